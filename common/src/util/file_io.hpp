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
#include <string_view>
#include <vector>

namespace kiln {

// A file's bytes; with `status`, also its status (size and times as read, for callers that judge them).
// Only a regular file is read: a directory, a FIFO, a socket or a device is an error saying what it
// is, found without waiting on it (platform::open_regular_for_reading).
Result<std::vector<std::byte>> read_binary_file(const std::filesystem::path& path,
                                                platform::FileStatus* status = nullptr);
// The same, bounded: a file larger than `max_size` is an error with nothing read ("it is larger than
// 4096 bytes"), and without `follow_link` so is a final symbolic link (where the store publishes its
// own files by rename, a link is not its own). For the caches' entries and key files, whose readers
// must never wait on a FIFO nor read /dev/zero without end.
Result<std::vector<std::byte>> read_regular_file(const std::filesystem::path& path, std::uint64_t max_size,
                                                 bool follow_link, platform::FileStatus* status = nullptr);
// What every message about such a file ends with ("... it is a FIFO, not a regular file"), wherever it
// comes from (the scan's clang too): a build that meets it stops, as no compiler should wait on the file.
inline constexpr std::string_view k_not_a_regular_file = ", not a regular file";

// A file's bytes as text; nullopt when it cannot be read (for callers whose message names the file).
std::optional<std::string> read_text_file(const std::filesystem::path& path);

// Writes `bytes` to a temporary file in the destination's directory, flushes it to disk and renames
// it over `path`, then flushes the directory. On failure (the message names `path` and gives the
// reason) the temporary file is removed and `path` is untouched. Only a regular file (or a link to
// one) is replaced: a directory, a FIFO or a device at `path` is an error, and nothing is written. The temporary file is
// .<name>.tmp-<pid>-XXXXXX (scratch_names.hpp), removed on SIGINT/SIGTERM too.
// A new output is readable by all, as the umask allows (mkstemp's 0600 would hide a package from the
// group that shares it); a file edited in place (`kiln harvest --write`) keeps the permissions it had.
enum class Permissions { of_new_output, of_replaced_file };
Status write_file_atomically(const std::filesystem::path& path, std::span<const std::byte> bytes,
                             Permissions permissions = Permissions::of_new_output);

}  // namespace kiln
