// The bytes of an open package: a file read into memory, a copy of the caller's buffer, or the
// caller's buffer itself. The reader's views point into these bytes, so they stay put (no
// reallocation, no remapping) for the package's lifetime.
//
// A file is read, not mapped: a mapped file that is truncated while open kills the process with
// SIGBUS, and one rewritten in place (`cp new.kiln app.kiln`) changes under the checked index. Its
// index (everything but BLOBS) is read at open, or a large one page by page when first used
// (index_pages.hpp), into an anonymous mapping of the file's size; each
// image's stored bytes are read into the same place (pread) when it is first asked for, so the
// untouched pages of BLOBS cost no memory and no time (docs/runtime.md, "Files changed while open").
#pragma once

#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace kiln::core {

// How a file's index is read (KILN_INDEX_PAGES): `whole` at open, always; `by_pages` always (the
// reader refuses a file without INDEX_PAGES either way); `auto_size` (unset) by pages when the index is at least
// k_index_pages_from bytes, where reading and checking it whole would take a noticeable time.
enum class IndexReading { auto_size, whole, by_pages };
IndexReading index_reading();
inline constexpr std::uint64_t k_index_pages_from = 64 * 1024;

class PackageSource {
public:
  PackageSource() = default;
  ~PackageSource();
  PackageSource(const PackageSource&) = delete;
  PackageSource& operator=(const PackageSource&) = delete;

  // Opens `path` and reads its index: all of it, or (an index that is large, as index_reading()
  // decides) only the header, the TOC and what follows BLOBS (INDEX_PAGES), leaving the
  // index's pages to read_index_page. An empty file is TRUNCATED (there is no header to read); a
  // directory, a missing file or a non-regular file is IO_ERROR.
  Status read_file(const char* path);
  // Whether read_file left the index to be read by pages.
  bool index_deferred() const { return m_index_end != 0; }
  // Reads file bytes [offset, offset + size) of the deferred index into place: IO_ERROR saying why
  // not (the file changed since it was opened, an I/O error), naming the file. It does not ask
  // whether the file changed before reading (a stat per page): the page's checksum finds changed
  // bytes, and then check_unchanged() names the cause.
  Status read_index_page(std::uint64_t offset, std::uint64_t size) const;
  // Whether the file is still the one opened: IO_ERROR naming it when its size, time or identity
  // changed.
  Status check_unchanged() const;
  // Makes `range` (a subspan of bytes(): an image's stored bytes) hold the file's bytes: a no-op for
  // memory, else read from the file once. Like read_index_page it does not ask first whether the
  // file changed (a stat on every first request for an image): the image's checksum finds changed
  // bytes, and the caller hands that failure to explain(). IO_ERROR naming the file when the file no
  // longer holds the range (explained the same way). Calls for ranges that do not overlap may run
  // concurrently.
  Status fetch(std::span<const std::byte> range) const;
  // What to report for `failure`, a failed check of bytes read from this source: IO_ERROR naming the
  // file when it has changed since open (size, time or identity), the likely cause, said plainly;
  // otherwise `failure` itself (and always for memory).
  Status explain(Status failure) const;
  // Copies `size` bytes: the caller may free its buffer as soon as this returns.
  void copy(const void* data, std::size_t size);
  // Uses the caller's bytes in place; they must outlive this object.
  void borrow(const void* data, std::size_t size);

  std::span<const std::byte> bytes() const { return m_view; }

private:
  Status read_range(std::uint64_t offset, std::uint64_t size) const;

  // A file's bytes, read where they are needed: a small file's into the heap (no mapping of its own,
  // and no page faults where the process has backed those pages already); a larger one's into memory
  // reserved for it (platform::reserve_memory, released on destruction), backed only where read.
  struct Free {
    void operator()(void* bytes) const { std::free(bytes); }
  };
  std::unique_ptr<void, Free> m_heap;
  void* m_map = nullptr;
  std::size_t m_map_size = 0;   // non-zero: m_map is reserved memory
  int m_fd = -1;          // a file's, kept open to read images; closed on destruction
  std::string m_path;
  struct Identity {
    std::uint64_t device, file, size;
    std::int64_t mtime_ns;
    bool operator==(const Identity&) const = default;
  } m_identity{};
  std::uint64_t m_lazy_begin = 0, m_lazy_end = 0;  // BLOBS: read on demand
  std::uint64_t m_index_begin = 0, m_index_end = 0;  // a deferred index: read by pages
  std::vector<std::byte> m_copy;
  std::span<const std::byte> m_view;
};

}  // namespace kiln::core
