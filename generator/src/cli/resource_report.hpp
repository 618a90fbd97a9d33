// The resources each kernel asks of the GPU, per cubin, for `kiln inspect`: read from the cubins the
// package holds (image/kernel_resources.hpp), added to the report that package_report builds.
#pragma once

#include "format/package_reader.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace kiln::cli {

// Adds `resources[]` to each of report["kernels"] (one entry per cubin that holds the kernel, in
// image order) and `resources_problem` to each cubin of report["units"][].images whose records
// cannot be read. The report's kernels and units must be the reader's, in its order.
void add_kernel_resources(const format::PackageReader& reader, nlohmann::json& report);

// The text form: a table per target, after the kernel table.
std::string render_kernel_resources(const nlohmann::json& report);

}  // namespace kiln::cli
