// Reading files and publishing them atomically: a reader never sees a half-written package, and a
// failed build leaves the previous one in place.
#pragma once

#include "platform/files.hpp"
#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln {

// A file's bytes; with `status`, also its status (size and times as read, for callers that judge them).
Result<std::vector<std::byte>> read_binary_file(const std::filesystem::path& path,
                                                platform::FileStatus* status = nullptr);

// A file's bytes as text; nullopt when it cannot be read (for callers whose message names the file).
std::optional<std::string> read_text_file(const std::filesystem::path& path);

// Writes `bytes` to a temporary file in the destination's directory, flushes it to disk and renames
// it over `path`, then flushes the directory. On failure (the message names `path` and gives the
// reason) the temporary file is removed and `path` is untouched. The temporary file is
// .<name>.tmp-<pid>-XXXXXX (scratch_names.hpp), removed on SIGINT/SIGTERM too.
Status write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes);

}  // namespace kiln
