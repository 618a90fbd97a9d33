#include "cli/package_file.hpp"

#include "util/file_io.hpp"

namespace kiln::cli {

Result<std::unique_ptr<PackageFile>> open_package_file(const std::filesystem::path& path) {
  auto file = std::make_unique<PackageFile>();
  file->path = path;
  Result<std::vector<std::byte>> bytes = read_binary_file(path);
  if (!bytes) return bytes.error();
  file->bytes = std::move(*bytes);
  // The path leads the message, as the commands print it.
  if (Status opened = file->reader.open(file->bytes, path.string()); !opened)
    return fail(opened.error().status, error_text(opened.error()));
  return file;
}

}  // namespace kiln::cli
