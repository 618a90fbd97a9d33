#include "util/file_io.hpp"

#include "util/scratch_names.hpp"
#include "util/signal_cleanup.hpp"

#include "platform/text.hpp"

#include <cerrno>
#include <cstring>
#include <limits>

namespace kiln {

namespace fs = std::filesystem;

Result<std::vector<std::byte>> read_regular_file(const fs::path& path, std::uint64_t max_size, bool follow_link,
                                                 platform::FileStatus* status) {
  // open, fstat, read: the run-time cache reads a few files on every hit, and a stream costs more
  // than the read itself for small ones.
  const auto failure = [&path](const std::string& why) { return Error{"cannot read " + platform::utf8_of(path) + ": " + why}; };
  platform::FileStatus st;
  const int fd = platform::open_regular_for_reading(path, follow_link, &st);
  if (fd < 0) {
    const int error = errno;
    if (error == ELOOP && !follow_link) return failure("it is a symbolic link" + std::string(k_not_a_regular_file));
    // What it is, where that is why (a socket does not even open: ENXIO).
    if (platform::FileStatus what; error != EISDIR && platform::status_of(path, what) && !what.is_regular &&
                                   !what.is_directory)
      return failure("it is " + std::string(what.kind) + std::string(k_not_a_regular_file));
    return failure(std::strerror(error));
  }
  if (st.size > max_size) {
    platform::close_file(fd);
    return failure("it is larger than " + std::to_string(max_size) + " bytes");
  }
  // The size fstat gave: a file cut short since is what its reader's checks find.
  std::vector<std::byte> bytes(static_cast<std::size_t>(st.size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const long got = platform::read_some(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      platform::close_file(fd);
      return failure(std::strerror(error));
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  platform::close_file(fd);
  bytes.resize(done);
  if (status) *status = st;
  return bytes;
}

Result<std::vector<std::byte>> read_binary_file(const fs::path& path, platform::FileStatus* status) {
  return read_regular_file(path, std::numeric_limits<std::uint64_t>::max(), /*follow_link=*/true, status);
}

std::optional<std::string> read_text_file(const fs::path& path) {
  const Result<std::vector<std::byte>> bytes = read_binary_file(path);
  if (!bytes) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

Status write_file_atomically(const fs::path& path, std::span<const std::byte> bytes, Permissions permissions) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  // The rename would put a regular file where a device, a FIFO or a directory was (/dev/null, as root).
  if (platform::FileStatus existing; platform::status_of(path, existing) && !existing.is_regular)
    return Error{"cannot write " + platform::utf8_of(path) + ": it is " + existing.kind + std::string(k_not_a_regular_file)};
  std::string temp = scratch_template(path, "tmp");
  const int fd = platform::make_temporary(temp);
  if (fd < 0)
    return Error{"cannot write " + platform::utf8_of(path) + ": cannot create a file in " + platform::utf8_of(dir) +
                 ": " + std::strerror(errno)};
  // Locked and registered at once: a later build sees a live owner, a signal removes the file.
  try_lock(fd);
  const cleanup::ScopedPath on_signal(temp);
  const auto fail = [&](const std::string& what) -> Status {
    const std::string reason = std::strerror(errno);
    platform::close_file(fd);
    std::error_code ignored;
    fs::remove(platform::path_of_utf8(temp), ignored);
    return Error{"cannot write " + platform::utf8_of(path) + " (" + what + "): " + reason};
  };
  std::size_t written = 0;
  while (written < bytes.size()) {
    const long n = platform::write_some(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write");
    if (n == 0) {
      errno = ENOSPC;
      return fail("write");
    }
    written += static_cast<std::size_t>(n);
  }
  // mkstemp creates 0600 files; a package is meant to be shared like any build output.
  if (!platform::share_like_other_outputs(fd)) return fail("chmod");
  if (permissions == Permissions::of_replaced_file) {
    std::error_code ec;
    const fs::file_status replaced = fs::status(path, ec);
    if (!ec && fs::is_regular_file(replaced)) {
      fs::permissions(platform::path_of_utf8(temp), replaced.permissions(), ec);
      if (ec) {
        errno = ec.value();
        return fail("chmod");
      }
    }
  }
  if (!platform::sync_file(fd)) return fail("fsync");
  if (!platform::replace_file(platform::path_of_utf8(temp), path)) return fail("rename into place");
  platform::close_file(fd);   // after the rename: until then the lock says the temporary file is in use
  // The rename is durable only once the directory's entries are on disk.
  platform::sync_directory(dir);
  return Ok{};
}

}  // namespace kiln
