#include "core/package_source.hpp"

#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::core {

namespace {

// Closes the descriptor on every path out of map_file; the mapping outlives it.
struct FileDescriptor {
  int fd = -1;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

std::string quoted(const char* path) { return std::string("'") + path + "'"; }

}  // namespace

PackageSource::~PackageSource() {
  if (m_map) ::munmap(m_map, m_map_size);
}

Status PackageSource::map_file(const char* path) {
  FileDescriptor file;
  file.fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (file.fd < 0) {
    const int error = errno;
    return fail(KILN_STATUS_IO_ERROR, "cannot open " + quoted(path) + ": " + std::strerror(error));
  }
  struct stat info {};
  if (::fstat(file.fd, &info) != 0) {
    const int error = errno;
    return fail(KILN_STATUS_IO_ERROR, "cannot stat " + quoted(path) + ": " + std::strerror(error));
  }
  // open() succeeds on a directory with O_RDONLY; only fstat tells.
  if (S_ISDIR(info.st_mode)) return fail(KILN_STATUS_IO_ERROR, quoted(path) + " is a directory, not a package file");
  if (!S_ISREG(info.st_mode)) return fail(KILN_STATUS_IO_ERROR, quoted(path) + " is not a regular file");
  if (info.st_size == 0) return fail(KILN_STATUS_TRUNCATED, quoted(path) + " is empty, not a package");
  const auto size = static_cast<std::size_t>(info.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (map == MAP_FAILED) {
    const int error = errno;
    return fail(KILN_STATUS_IO_ERROR, "cannot map " + quoted(path) + ": " + std::strerror(error));
  }
  m_map = map;
  m_map_size = size;
  m_view = std::span<const std::byte>(static_cast<const std::byte*>(map), size);
  return {};
}

void PackageSource::copy(const void* data, std::size_t size) {
  m_copy.resize(size);
  if (size) std::memcpy(m_copy.data(), data, size);
  m_view = std::span<const std::byte>(m_copy.data(), m_copy.size());
}

void PackageSource::borrow(const void* data, std::size_t size) {
  m_view = std::span<const std::byte>(static_cast<const std::byte*>(data), size);
}

}  // namespace kiln::core
