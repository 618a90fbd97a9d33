// A package read from disk for inspect and verify: the bytes and a reader over them.
#pragma once

#include "format/package_reader.hpp"
#include "util/result.hpp"

#include <cstddef>
#include <filesystem>
#include <memory>
#include <vector>

namespace kiln::cli {

struct PackageFile {
  std::filesystem::path path;
  std::vector<std::byte> bytes;
  format::PackageReader reader;
};

// Fails with the reader's message (which names the file) when the file is missing or refused.
Result<std::unique_ptr<PackageFile>> open_package_file(const std::filesystem::path& path);

}  // namespace kiln::cli
