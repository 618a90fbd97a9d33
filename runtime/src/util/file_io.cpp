#include "util/file_io.hpp"

#include "util/scratch_names.hpp"
#include "util/signal_cleanup.hpp"

#include "platform/text.hpp"

#include <cerrno>
#include <cstring>

namespace kiln {

namespace fs = std::filesystem;

Result<std::vector<std::byte>> read_binary_file(const fs::path& path, platform::FileStatus* status) {
  // open, fstat, read: the run-time cache reads a few files on every hit, and a stream costs more
  // than the read itself for small ones.
  const auto failure = [&path](int error) {
    return Error{"cannot read " + platform::utf8_of(path) + ": " + std::strerror(error)};
  };
  const int fd = platform::open_for_reading(path);
  if (fd < 0) {
    // A socket does not open at all (ENXIO): say what it is, as for a FIFO that does.
    const int error = errno;
    if (platform::FileStatus st; platform::status_of(path, st) && !st.is_regular && !st.is_directory)
      return Error{"cannot read " + platform::utf8_of(path) + ": it is " + st.kind + std::string(k_not_a_regular_file)};
    return failure(error);
  }
  platform::FileStatus st;
  if (!platform::status_of(fd, st)) {
    const int error = errno;
    platform::close_file(fd);
    return failure(error);
  }
  if (st.is_directory) {
    platform::close_file(fd);
    return failure(EISDIR);
  }
  // A FIFO, a socket or a device may never end, or never answer: only regular files are read.
  if (!st.is_regular) {
    platform::close_file(fd);
    return Error{"cannot read " + platform::utf8_of(path) + ": it is " + st.kind + std::string(k_not_a_regular_file)};
  }
  // The size fstat gave, as a stream's tellg would; a file that says 0 (/proc) is read to its end.
  const bool sized = st.size > 0;
  std::vector<std::byte> bytes(sized ? static_cast<std::size_t>(st.size) : 4096);
  std::size_t done = 0;
  while (true) {
    if (done == bytes.size()) {
      if (sized) break;
      bytes.resize(bytes.size() * 2);
    }
    const long got = platform::read_some(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      platform::close_file(fd);
      return failure(error);
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  platform::close_file(fd);
  bytes.resize(done);
  if (status) *status = st;
  return bytes;
}

std::optional<std::string> read_text_file(const fs::path& path) {
  const Result<std::vector<std::byte>> bytes = read_binary_file(path);
  if (!bytes) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(bytes->data()), bytes->size());
}

Status write_file_atomically(const fs::path& path, std::span<const std::byte> bytes) {
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
  if (!platform::sync_file(fd)) return fail("fsync");
  if (!platform::replace_file(platform::path_of_utf8(temp), path)) return fail("rename into place");
  platform::close_file(fd);   // after the rename: until then the lock says the temporary file is in use
  // The rename is durable only once the directory's entries are on disk.
  platform::sync_directory(dir);
  return Ok{};
}

}  // namespace kiln
