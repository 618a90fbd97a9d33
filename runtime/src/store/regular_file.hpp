// Reading a file that must be a regular file of bounded size: the store's entries and stats (and the
// remote cache's key files), where a FIFO, socket or device must never block a build nor be read
// without end (a FIFO as an entry hung `kiln build`; a link to /dev/zero ran it out of memory).
#pragma once

#include "platform/files.hpp"
#include "util/result.hpp"

#include <cstddef>
#include <filesystem>
#include <vector>

namespace kiln::store {

// The bytes of `path` when it is a regular file of at most `max_size` bytes; otherwise an error that
// names the file and why ("not a regular file", "larger than 4096 bytes", strerror), with nothing
// read. Without `follow_link` a final symbolic link is refused too (the store never makes one). With
// `status`, also the file's status as opened.
Result<std::vector<std::byte>> read_regular_file(const std::filesystem::path& path, std::size_t max_size,
                                                 bool follow_link, platform::FileStatus* status = nullptr);

}  // namespace kiln::store
