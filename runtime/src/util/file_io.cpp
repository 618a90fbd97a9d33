#include "util/file_io.hpp"

#include "util/scratch_names.hpp"
#include "util/signal_cleanup.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

namespace kiln {

namespace fs = std::filesystem;

std::int64_t modification_time_ns(const struct stat& status) {
  return static_cast<std::int64_t>(status.st_mtim.tv_sec) * 1000000000 + status.st_mtim.tv_nsec;
}

Result<std::vector<std::byte>> read_binary_file(const fs::path& path, struct stat* status) {
  // open, fstat, read: the run-time cache reads a few files on every hit, and a stream costs more
  // than the read itself for small ones.
  const auto failure = [&path](int error) { return Error{"cannot read " + path.string() + ": " + std::strerror(error)}; };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return failure(errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    const int error = S_ISDIR(st.st_mode) ? EISDIR : errno;
    ::close(fd);
    return failure(error);
  }
  // The size fstat gave, as a stream's tellg would; a file that says 0 (a pipe, /proc) is read to its end.
  const bool sized = S_ISREG(st.st_mode) && st.st_size > 0;
  std::vector<std::byte> bytes(sized ? static_cast<std::size_t>(st.st_size) : 4096);
  std::size_t done = 0;
  while (true) {
    if (done == bytes.size()) {
      if (sized) break;
      bytes.resize(bytes.size() * 2);
    }
    const ssize_t got = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      const int error = errno;
      ::close(fd);
      return failure(error);
    }
    if (got == 0) break;
    done += static_cast<std::size_t>(got);
  }
  ::close(fd);
  bytes.resize(done);
  if (status) *status = st;
  return bytes;
}

Status write_file_atomically(const fs::path& path, std::span<const std::byte> bytes) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::string temp = scratch_template(path, "tmp");
  const int fd = mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0)
    return Error{"cannot write " + path.string() + ": cannot create a file in " + dir.string() + ": " +
                 std::strerror(errno)};
  // Locked and registered at once: a later build sees a live owner, a signal removes the file.
  try_lock(fd);
  const cleanup::ScopedPath on_signal(temp);
  const auto fail = [&](const std::string& what) -> Status {
    const std::string reason = std::strerror(errno);
    close(fd);
    unlink(temp.c_str());
    return Error{"cannot write " + path.string() + " (" + what + "): " + reason};
  };
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail("write");
    if (n == 0) {
      errno = ENOSPC;
      return fail("write");
    }
    written += static_cast<std::size_t>(n);
  }
  // mkstemp creates 0600 files; a package is meant to be shared like any build output.
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) return fail("chmod");
  if (fsync(fd) != 0) return fail("fsync");
  if (rename(temp.c_str(), path.c_str()) != 0) return fail("rename into place");
  close(fd);   // after the rename: until then the lock says the temporary file is in use
  // The rename is durable only once the directory's entries are on disk.
  sync_directory(dir);
  return Ok{};
}

}  // namespace kiln
