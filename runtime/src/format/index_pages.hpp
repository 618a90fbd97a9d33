// INDEX_PAGES (layout.hpp): a checksum per page of the index. One definition for the
// writer (which computes them), the reader (which checks the section's shape, and every page when it
// opens a package whole) and IndexPageLoader (which reads and checks a page when it is first used).
#pragma once

#include "layout.hpp"
#include "util/result.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace kiln::format {

struct IndexPagesView {
  std::uint32_t page_size = 0;
  std::uint32_t page_count = 0;
  std::uint64_t begin = 0;   // the first byte of the file the pages cover
  std::uint64_t end = 0;     // one past the last
  std::span<const std::byte> checksums;   // page_count u64, possibly unaligned

  std::uint64_t checksum(std::uint32_t page) const;
  // The file bytes [first, last) of page `page`.
  std::uint64_t page_begin(std::uint32_t page) const { return begin + std::uint64_t{page} * page_size; }
  std::uint64_t page_end(std::uint32_t page) const;
};

namespace detail {

// The INDEX_PAGES section for `file`'s bytes [begin, end), pages of `page_size`.
std::vector<std::byte> encode_index_pages(std::span<const std::byte> file, std::uint64_t begin, std::uint64_t end,
                                          std::uint32_t page_size);
// Checks the section's shape: its header, that it covers exactly [header_size, blobs_offset), and its
// size: CORRUPT ("INDEX_PAGES ...") when it is wrong.
Status parse_index_pages(std::span<const std::byte> section, std::uint64_t header_size, std::uint64_t blobs_offset,
                         IndexPagesView& out);
// Every page's checksum over `file`: CORRUPT naming the first page that fails.
Status check_index_pages(const IndexPagesView& pages, std::span<const std::byte> file);
Status page_mismatch(const IndexPagesView& pages, std::uint32_t page);

}  // namespace detail

// The index of a package read a page at a time (a file opened with its index deferred). A page is
// read into `file` (by `fill`) and checked against its checksum the first time any byte of it is
// asked for; until then its bytes are not to be read. Once read, a page never changes. A page that
// cannot be read or fails its checksum stays failed, and every request that touches it fails.
// Thread-safe: requests may come from many threads at once.
class IndexPageLoader {
public:
 // Reads file bytes [offset, offset + size) into place: IO_ERROR saying why it could not (an I/O
 // error, the file changed since it was opened).
 using Fill = std::function<Status(std::uint64_t offset, std::uint64_t size)>;
 // Asked only when a page read fails its checksum: IO_ERROR saying why its bytes differ from those
 // written (the file changed since it was opened). A fill need not ask before each read, since the
 // checksum finds what changed; this only names the cause (IO_ERROR, not CORRUPT).
 using Changed = std::function<Status()>;

 IndexPageLoader(const IndexPagesView& pages, std::span<const std::byte> file, Fill fill, Changed changed = {});

 // Whether file bytes [offset, offset + size) may be read: true at once outside the pages or when
 // their pages are read; otherwise reads them. False when one cannot be read (see failure()).
 bool load(std::uint64_t offset, std::uint64_t size) const {
   // Once every page is read (a program that looks up many kernels), one test answers.
   if (m_all_read.load(std::memory_order_acquire)) return true;
   if (size == 0 || offset >= m_pages.end || offset + size <= m_pages.begin) return true;
   const std::uint64_t first = (std::max(offset, m_pages.begin) - m_pages.begin) >> m_shift;
   const std::uint64_t last = (std::min(offset + size, m_pages.end) - 1 - m_pages.begin) >> m_shift;
   for (std::uint64_t page = first; page <= last; ++page) {
     if (m_state[page].load(std::memory_order_acquire) != k_read && !load_page(static_cast<std::uint32_t>(page))) {
       return false;
     }
   }
   return true;
  }
  // Reads every page: false at the first that fails.
  bool load_all() const;
  // The first failure (IO_ERROR from the fill or the change check, CORRUPT naming the page whose
  // checksum fails); success while every page read is good. failed() says whether there is one
  // without taking the lock.
  bool failed() const { return m_failed.load(std::memory_order_acquire); }
  Status failure() const;
  std::uint32_t pages_read() const { return m_read.load(std::memory_order_relaxed); }

private:
  static constexpr std::uint8_t k_unread = 0, k_read = 1, k_failed = 2;
  bool load_page(std::uint32_t page) const;

  IndexPagesView m_pages;
  std::span<const std::byte> m_file;
  Fill m_fill;
  Changed m_changed;
  unsigned m_shift = 0;
  std::unique_ptr<std::atomic<std::uint8_t>[]> m_state;
  mutable std::mutex m_mutex;   // one page is read at a time; guards the failure
  mutable Status m_failure;
  mutable std::atomic<std::uint32_t> m_read{0};
  mutable std::atomic<bool> m_all_read{false};
  mutable std::atomic<bool> m_failed{false};
};

}  // namespace kiln::format
