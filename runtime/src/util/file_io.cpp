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

Result<std::vector<std::byte>> read_binary_file(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Error{"cannot read " + path.string() + ": Is a directory"};
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return Error{"cannot read " + path.string() + ": " + std::strerror(errno)};
  const std::streamoff size = in.tellg();
  std::vector<std::byte> bytes(static_cast<std::size_t>(size < 0 ? 0 : size));
  in.seekg(0);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size())))
    return Error{"cannot read " + path.string() + ": " + std::strerror(errno)};
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
