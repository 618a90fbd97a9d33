#include "core/package_source.hpp"

#include "format/layout.hpp"
#include "format/package_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "platform/files.hpp"
#include "platform/text.hpp"

namespace kiln::core {

namespace {

std::string in_quotes(const std::string& path) { return "'" + path + "'"; }

std::string errno_text(int error) { return std::strerror(error); }

}  // namespace

PackageSource::~PackageSource() {
  if (m_map_size != 0) platform::release_memory(m_map, m_map_size);
  if (m_fd >= 0) platform::close_file(m_fd);
}

Status PackageSource::read_file(const char* path) {
  m_path = path;
  m_fd = platform::open_utf8_for_reading(path);
  if (m_fd < 0) {
    // A socket does not open at all (ENXIO): say what it is, as for a FIFO that does.
    const int error = errno;
    if (platform::FileStatus st; platform::status_of(platform::path_of_utf8(path), st) && !st.is_regular && !st.is_directory)
      return fail(KILN_STATUS_IO_ERROR, in_quotes(m_path) + " is " + st.kind + ", not a regular file");
    return fail(KILN_STATUS_IO_ERROR, "cannot open " + in_quotes(m_path) + ": " + errno_text(error));
  }
  platform::FileStatus info;
  if (!platform::status_of(m_fd, info)) return fail(KILN_STATUS_IO_ERROR, "cannot stat " + in_quotes(m_path) + ": " + errno_text(errno));
  // Opening a directory for reading succeeds; only its status tells.
  if (info.is_directory) return fail(KILN_STATUS_IO_ERROR, in_quotes(m_path) + " is a directory, not a package file");
  // A FIFO or a device: refused, never waited on (the open did not wait either: open_for_reading).
  if (!info.is_regular) {
    return fail(KILN_STATUS_IO_ERROR, in_quotes(m_path) + " is " + info.kind + ", not a regular file");
  }
  if (info.size == 0) return fail(KILN_STATUS_TRUNCATED, in_quotes(m_path) + " is empty, not a package");
  m_identity = {info.device, info.file, info.size, info.mtime_ns};
  const auto size = static_cast<std::size_t>(info.size);
  // Below glibc's threshold for serving an allocation with its own mapping (128 KiB by default).
  constexpr std::size_t k_heap_file_limit = 64 << 10;
  void* map = nullptr;
  if (size <= k_heap_file_limit) {
    // Not zeroed: what the open leaves unread (BLOBS read lazily, index pages) is read by fetch() and
    // read_index_page() before anything looks at it.
    m_heap.reset(std::malloc(size));
    map = m_heap.get();
  } else if ((map = platform::reserve_memory(size)) != nullptr) {
    m_map_size = size;   // pages never read (most of BLOBS) are never backed
  }
  if (!map) return fail(KILN_STATUS_OUT_OF_MEMORY, "cannot reserve " + std::to_string(size) + " bytes for " + in_quotes(m_path));
  m_map = map;
  m_view = std::span<const std::byte>(static_cast<const std::byte*>(map), size);
  // A header the reader refuses (not a package, another version, a bad checksum, a size the file does
  // not have) is all that is read, with the rest of its page: the reader refuses it from those bytes
  // alone, so a 20 GB file that is not a package costs one read of 4 KiB. Past a good header, only
  // the package's own bytes are read (a padded file's are not, past that first page); the header and
  // TOC say where BLOBS is, and anything odd there and the whole package is read, for the reader to
  // refuse with its own message.
  //
  // The reads are whole pages where that saves one: the first page holds the header and, in a small
  // package, the index after it; the page the TOC starts in holds the sections after BLOBS too, in a
  // package as Kiln writes it. A read costs a system call (2-25 us from Python on a GPU host), more
  // than the rest of a page whose first byte faults it in anyway. Bytes of BLOBS read this way change
  // nothing: an image is read again when it is first asked for.
  constexpr std::uint64_t k_page = 4096;
  const std::uint64_t head_end = std::min<std::uint64_t>(size, k_page);   // [0, head_end) is read
  std::uint64_t tail_begin = 0, tail_end = 0;                            // and [tail_begin, tail_end)
  // Reads what of [begin, end) those two spans do not hold.
  const auto read_missing = [&](std::uint64_t begin, std::uint64_t end) -> Status {
    begin = std::max(begin, head_end);
    if (begin >= end) return {};
    if (begin < tail_end && end > tail_begin) {
      if (begin < tail_begin) KILN_TRY(read_range(begin, tail_begin - begin));
      if (end > tail_end) KILN_TRY(read_range(tail_end, end - tail_end));
      return {};
    }
    return read_range(begin, end - begin);
  };
  KILN_TRY(read_range(0, head_end));
  std::uint64_t package_size = 0;
  if (!format::check_file_header(m_view, package_size).ok()) return {};
  std::uint64_t header_end = sizeof(format::FileHeader);
  {
    format::FileHeader header;
    std::memcpy(&header, m_map, sizeof header);
    const std::uint64_t toc_size = std::uint64_t{header.section_count} * sizeof(format::TocEntry);
    if (header.toc_offset >= sizeof header && header.toc_offset <= package_size &&
        toc_size <= package_size - header.toc_offset) {
      tail_begin = std::max(head_end, header.toc_offset & ~(k_page - 1));
      tail_end = header.toc_offset + toc_size;
      if (tail_begin < tail_end) {
        KILN_TRY(read_range(tail_begin, tail_end - tail_begin));
      } else {
        tail_begin = tail_end = 0;   // the first page holds the TOC
      }
      for (std::uint64_t i = 0; i < header.section_count; ++i) {
        format::TocEntry entry;
        std::memcpy(&entry, static_cast<const std::byte*>(m_map) + header.toc_offset + i * sizeof entry, sizeof entry);
        const bool inside = entry.offset >= sizeof header && entry.offset <= header.toc_offset &&
                            entry.size <= header.toc_offset - entry.offset;
        if (entry.kind == static_cast<std::uint32_t>(format::SectionKind::blobs) &&
            (entry.flags & format::k_section_verify_lazily) != 0 && inside && m_lazy_end == 0) {
          m_lazy_begin = entry.offset;
          m_lazy_end = entry.offset + entry.size;
        }
      }
    }
    // A newer minor's longer header is read whole; the pages start where it ends.
    if (header.header_size > header_end && header.header_size <= (m_lazy_end ? m_lazy_begin : package_size)) {
      KILN_TRY(read_missing(header_end, header.header_size));
      header_end = header.header_size;
    }
  }
  const std::uint64_t index_end = m_lazy_end ? m_lazy_begin : package_size;
  const IndexReading reading = index_reading();
  if (m_lazy_end && reading != IndexReading::whole &&
      (reading == IndexReading::by_pages || index_end - header_end >= k_index_pages_from)) {
    // The reader checks INDEX_PAGES (after BLOBS, read below) and asks for the pages it needs.
    m_index_begin = header_end;
    m_index_end = index_end;
  } else {
    KILN_TRY(read_missing(header_end, index_end));
  }
  if (m_lazy_end) KILN_TRY(read_missing(m_lazy_end, package_size));
  return {};
}

IndexReading index_reading() {
  const char* value = std::getenv("KILN_INDEX_PAGES");
  if (value == nullptr || *value == '\0') return IndexReading::auto_size;
  if (std::strcmp(value, "0") == 0) return IndexReading::whole;
  if (std::strcmp(value, "1") == 0) return IndexReading::by_pages;
  return IndexReading::auto_size;
}

Status PackageSource::read_index_page(std::uint64_t offset, std::uint64_t size) const {
  if (offset < m_index_begin || offset > m_index_end || size > m_index_end - offset) {
    return fail(KILN_STATUS_IO_ERROR, "bytes [" + std::to_string(offset) + ", +" + std::to_string(size) +
                                          ") are not in the index of " + in_quotes(m_path));
  }
  Status read = read_range(offset, size);
  return read.ok() ? Status{} : explain(std::move(read));
}

Status PackageSource::explain(Status failure) const {
  if (failure.ok() || m_fd < 0) return failure;
  Status unchanged = check_unchanged();
  return unchanged.ok() ? std::move(failure) : std::move(unchanged);
}

Status PackageSource::check_unchanged() const {
  platform::FileStatus info;
  if (!platform::status_of(m_fd, info)) return fail(KILN_STATUS_IO_ERROR, "cannot stat " + in_quotes(m_path) + ": " + errno_text(errno));
  const Identity now{info.device, info.file, info.size, info.mtime_ns};
  if (!(now == m_identity)) {
    return fail(KILN_STATUS_IO_ERROR, in_quotes(m_path) + " has changed since it was opened (" +
                                          std::to_string(m_identity.size) + " bytes then, " +
                                          std::to_string(now.size) + " now); open it again");
  }
  return {};
}

Status PackageSource::fetch(std::span<const std::byte> range) const {
  if (m_fd < 0 || range.empty()) return {};
  const auto offset = static_cast<std::uint64_t>(range.data() - m_view.data());
  if (offset + range.size() <= m_lazy_begin || offset >= m_lazy_end) return {};  // read at open
  Status read = read_range(offset, range.size());
  return read.ok() ? Status{} : explain(std::move(read));
}

Status PackageSource::read_range(std::uint64_t offset, std::uint64_t size) const {
  auto* at = static_cast<char*>(m_map) + offset;
  platform::prefer_huge_pages(at, static_cast<std::size_t>(size));
  while (size > 0) {
    const long got = platform::read_at(m_fd, at, static_cast<std::size_t>(size), offset);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return fail(KILN_STATUS_IO_ERROR, "cannot read " + in_quotes(m_path) + ": " + errno_text(errno));
    if (got == 0) {
      return fail(KILN_STATUS_IO_ERROR, in_quotes(m_path) + " ends at byte " + std::to_string(offset) +
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
