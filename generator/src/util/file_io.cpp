#include "util/file_io.hpp"

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
  std::string temp = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = mkstemp(temp.data());
  if (fd < 0) return Error{"cannot create a file in " + dir.string() + ": " + std::strerror(errno)};
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
    if (n <= 0) return fail("write");
    written += static_cast<std::size_t>(n);
  }
  // mkstemp creates 0600 files; a package is meant to be shared like any build output.
  const mode_t mask = umask(0);
  umask(mask);
  if (fchmod(fd, 0666 & ~mask) != 0) return fail("chmod");
  if (fsync(fd) != 0) return fail("fsync");
  if (close(fd) != 0) {
    unlink(temp.c_str());
    return Error{"cannot write " + path.string() + ": " + std::strerror(errno)};
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    unlink(temp.c_str());
    return Error{"cannot replace " + path.string() + ": " + reason};
  }
  return Ok{};
}

}  // namespace kiln
