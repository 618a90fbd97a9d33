#include "cli/verify_coverage.hpp"

#include "format/layout.hpp"

#include <cstring>

namespace kiln::cli {

std::vector<std::string> check_uncovered_bytes(std::span<const std::byte> file, const std::string& name) {
  std::vector<std::string> problems;
  if (file.size() < sizeof(format::FileHeader)) return problems;
  std::uint32_t header_size = 0;
  std::uint64_t file_size = 0;
  std::memcpy(&header_size, file.data() + offsetof(format::FileHeader, header_size), sizeof header_size);
  std::memcpy(&file_size, file.data() + offsetof(format::FileHeader, file_size), sizeof file_size);
  if (file.size() > file_size)
    problems.push_back(name + ": " + std::to_string(file.size() - file_size) + " bytes after the package's end (" +
                       "file_size " + std::to_string(file_size) + "), which no checksum covers");
  const std::size_t end = std::min<std::uint64_t>(header_size, file.size());
  for (std::size_t at = sizeof(format::FileHeader); at < end; ++at) {
    if (file[at] == std::byte{0}) continue;
    problems.push_back(name + ": non-zero header byte at offset " + std::to_string(at) + " (between 64 and " +
                       "header_size " + std::to_string(header_size) + "), which no checksum covers");
    break;
  }
  return problems;
}

}  // namespace kiln::cli
