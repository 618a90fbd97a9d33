#include "core/package_source.hpp"

#include "format/layout.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace kiln::core {

namespace {

std::string quoted(const std::string& path) { return "'" + path + "'"; }

std::string error_text(int error) { return std::strerror(error); }

}  // namespace

PackageSource::~PackageSource() {
  if (m_map) ::munmap(m_map, m_map_size);
  if (m_fd >= 0) ::close(m_fd);
}

Status PackageSource::read_file(const char* path) {
  m_path = path;
  m_fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (m_fd < 0) return fail(KILN_STATUS_IO_ERROR, "cannot open " + quoted(m_path) + ": " + error_text(errno));
  struct stat info {};
  if (::fstat(m_fd, &info) != 0) return fail(KILN_STATUS_IO_ERROR, "cannot stat " + quoted(m_path) + ": " + error_text(errno));
  // open() succeeds on a directory with O_RDONLY; only fstat tells.
  if (S_ISDIR(info.st_mode)) return fail(KILN_STATUS_IO_ERROR, quoted(m_path) + " is a directory, not a package file");
  if (!S_ISREG(info.st_mode)) return fail(KILN_STATUS_IO_ERROR, quoted(m_path) + " is not a regular file");
  if (info.st_size == 0) return fail(KILN_STATUS_TRUNCATED, quoted(m_path) + " is empty, not a package");
  m_identity = {info.st_dev, info.st_ino, static_cast<unsigned long long>(info.st_size), info.st_mtim.tv_sec,
                info.st_mtim.tv_nsec};
  const auto size = static_cast<std::size_t>(info.st_size);
  // Anonymous and NORESERVE: pages never read (most of BLOBS) are never backed.
  void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) return fail(KILN_STATUS_OUT_OF_MEMORY, "cannot reserve " + std::to_string(size) + " bytes for " + quoted(m_path));
  // Huge pages where the system allows them: a large image is read with a few page faults instead
  // of one per 4 KiB (50 MiB: 32 ms -> see bench/results/package-open.md).
  ::madvise(map, size, MADV_HUGEPAGE);
  m_map = map;
  m_map_size = size;
  m_view = std::span<const std::byte>(static_cast<const std::byte*>(map), size);
  // The header and TOC say where BLOBS is; anything odd and the whole file is read, for the reader
  // to refuse with its own message.
  const std::uint64_t header_end = std::min<std::uint64_t>(size, sizeof(format::FileHeader));
  KILN_TRY(read_range(0, header_end));
  if (header_end == sizeof(format::FileHeader)) {
    format::FileHeader header;
    std::memcpy(&header, m_map, sizeof header);
    const std::uint64_t toc_size = std::uint64_t{header.section_count} * sizeof(format::TocEntry);
    if (header.toc_offset >= sizeof header && header.toc_offset <= size && toc_size <= size - header.toc_offset) {
      KILN_TRY(read_range(header.toc_offset, toc_size));
      for (std::uint64_t i = 0; i < header.section_count; ++i) {
        format::TocEntry entry;
        std::memcpy(&entry, static_cast<const std::byte*>(m_map) + header.toc_offset + i * sizeof entry, sizeof entry);
        if (entry.kind == static_cast<std::uint32_t>(format::SectionKind::blobs) &&
            (entry.flags & format::k_section_verify_lazily) != 0 && entry.offset >= sizeof header &&
            entry.offset <= header.toc_offset && entry.size <= header.toc_offset - entry.offset) {
          m_lazy_begin = entry.offset;
          m_lazy_end = entry.offset + entry.size;
          break;
        }
      }
    }
  }
  KILN_TRY(read_range(header_end, (m_lazy_end ? m_lazy_begin : size) - header_end));
  if (m_lazy_end) KILN_TRY(read_range(m_lazy_end, size - m_lazy_end));
  return {};
}

Status PackageSource::fetch(std::span<const std::byte> range) const {
  if (m_fd < 0 || range.empty()) return {};
  const auto offset = static_cast<std::uint64_t>(range.data() - m_view.data());
  if (offset + range.size() <= m_lazy_begin || offset >= m_lazy_end) return {};  // read at open
  struct stat info {};
  if (::fstat(m_fd, &info) != 0) return fail(KILN_STATUS_IO_ERROR, "cannot stat " + quoted(m_path) + ": " + error_text(errno));
  const Identity now{info.st_dev, info.st_ino, static_cast<unsigned long long>(info.st_size), info.st_mtim.tv_sec,
                     info.st_mtim.tv_nsec};
  if (!(now == m_identity)) {
    return fail(KILN_STATUS_IO_ERROR, quoted(m_path) + " has changed since it was opened (" +
                                          std::to_string(m_identity.size) + " bytes then, " +
                                          std::to_string(now.size) + " now); open it again");
  }
  return read_range(offset, range.size());
}

Status PackageSource::read_range(std::uint64_t offset, std::uint64_t size) const {
  auto* at = static_cast<char*>(m_map) + offset;
  while (size > 0) {
    const ssize_t got = ::pread(m_fd, at, size, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail(KILN_STATUS_IO_ERROR, "cannot read " + quoted(m_path) + ": " + error_text(errno));
    if (got == 0) {
      return fail(KILN_STATUS_IO_ERROR, quoted(m_path) + " ends at byte " + std::to_string(offset) +
                                            ", before the bytes it had when opened; open it again");
    }
    at += got;
    offset += static_cast<std::uint64_t>(got);
    size -= static_cast<std::uint64_t>(got);
  }
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
