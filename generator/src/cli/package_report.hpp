// What `kiln inspect` reports, as one JSON document: --json prints it, the table is rendered from it.
#pragma once

#include "format/package_reader.hpp"
#include "select/select_image.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kiln::cli {

// `device`, if given, adds for every kernel the image that device would load and why.
nlohmann::json package_report(const format::PackageReader& reader, const std::string& path,
                              std::uint64_t file_size, const std::optional<select::DeviceProfile>& device);

// Renders the report as aligned text tables.
std::string render_report(const nlohmann::json& report);

// Rows as columns padded to their widest cell (up to 120 bytes: a longer one does not widen its
// column); the last column is not padded. Each line starts with `indent`.
std::string text_table(const std::vector<std::vector<std::string>>& rows, const std::string& indent = "  ");

}  // namespace kiln::cli
