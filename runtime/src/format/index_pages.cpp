#include "index_pages.hpp"

#include "checksum.hpp"
#include "record_io.hpp"
#include "table_check.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <type_traits>

namespace kiln::format {

std::uint64_t IndexPagesView::checksum(std::uint32_t page) const {
  std::uint64_t value = 0;
  if (std::size_t{page} * sizeof value + sizeof value <= checksums.size()) {
    std::memcpy(&value, checksums.data() + std::size_t{page} * sizeof value, sizeof value);
  }
  return value;
}

std::uint64_t IndexPagesView::page_end(std::uint32_t page) const {
  return std::min(end, page_begin(page) + page_size);
}

namespace detail {

std::vector<std::byte> encode_index_pages(std::span<const std::byte> file, std::uint64_t begin, std::uint64_t end,
                                          std::uint32_t page_size) {
  const std::uint64_t count = (end - begin + page_size - 1) / page_size;
  // Sized at once and filled in place: one allocation, and no range insert into an empty vector,
  // on which GCC 12 warns a false -Wstringop-overflow.
  const IndexPagesHeader header{page_size, static_cast<std::uint32_t>(count), begin, end};
  static_assert(std::has_unique_object_representations_v<IndexPagesHeader>);
  std::vector<std::byte> out(sizeof header + count * sizeof(std::uint64_t));
  std::memcpy(out.data(), &header, sizeof header);
  std::byte* next = out.data() + sizeof header;
  for (std::uint64_t at = begin; at < end; at += page_size, next += sizeof(std::uint64_t)) {
    const std::uint64_t checksum_of_page = format::checksum(file.subspan(at, std::min<std::uint64_t>(page_size, end - at)));
    std::memcpy(next, &checksum_of_page, sizeof checksum_of_page);
  }
  return out;
}

Status parse_index_pages(std::span<const std::byte> section, std::uint64_t header_size, std::uint64_t blobs_offset,
                         IndexPagesView& out) {
  if (section.size() < sizeof(IndexPagesHeader)) {
    return corrupt("INDEX_PAGES section is " + std::to_string(section.size()) + " bytes, shorter than its header");
  }
  const auto header = load_record<IndexPagesHeader>(section);
  if (!std::has_single_bit(header.page_size) || header.page_size < k_index_page_min ||
      header.page_size > k_index_page_max) {
    return corrupt("INDEX_PAGES page size " + std::to_string(header.page_size) + " is not a power of two from " +
                   std::to_string(k_index_page_min) + " to " + std::to_string(k_index_page_max));
  }
  if (header.begin != header_size || header.end != blobs_offset) {
    return corrupt("INDEX_PAGES covers bytes [" + std::to_string(header.begin) + ", " + std::to_string(header.end) +
                   "), not the index [" + std::to_string(header_size) + ", " + std::to_string(blobs_offset) + ")");
  }
  const std::uint64_t pages = (header.end - header.begin + header.page_size - 1) / header.page_size;
  if (header.page_count != pages || section.size() != sizeof header + pages * sizeof(std::uint64_t)) {
    return corrupt("INDEX_PAGES holds " + std::to_string(header.page_count) + " pages in " +
                   std::to_string(section.size()) + " bytes; the index needs " + std::to_string(pages));
  }
  out = IndexPagesView{header.page_size, header.page_count, header.begin, header.end, section.subspan(sizeof header)};
  return {};
}

Status page_mismatch(const IndexPagesView& pages, std::uint32_t page) {
  return corrupt("INDEX_PAGES page " + std::to_string(page) + " (bytes [" + std::to_string(pages.page_begin(page)) +
                 ", " + std::to_string(pages.page_end(page)) + ")) checksum mismatch");
}

Status check_index_pages(const IndexPagesView& pages, std::span<const std::byte> file) {
  for (std::uint32_t page = 0; page < pages.page_count; ++page) {
    const std::uint64_t first = pages.page_begin(page);
    if (format::checksum(file.subspan(first, pages.page_end(page) - first)) != pages.checksum(page)) {
      return page_mismatch(pages, page);
    }
  }
  return {};
}

}  // namespace detail

IndexPageLoader::IndexPageLoader(const IndexPagesView& pages, std::span<const std::byte> file, Fill fill,
                                 Changed changed)
    : m_pages(pages), m_file(file), m_fill(std::move(fill)), m_changed(std::move(changed)),
      m_shift(static_cast<unsigned>(std::countr_zero(pages.page_size))),
      m_state(std::make_unique<std::atomic<std::uint8_t>[]>(pages.page_count)) {}

bool IndexPageLoader::load_all() const { return load(m_pages.begin, m_pages.end - m_pages.begin); }

bool IndexPageLoader::load_page(std::uint32_t page) const {
  std::lock_guard lock(m_mutex);
  const std::uint8_t state = m_state[page].load(std::memory_order_relaxed);
  if (state != k_unread) return state == k_read;
  const std::uint64_t first = m_pages.page_begin(page);
  const std::uint64_t size = m_pages.page_end(page) - first;
  Status read = m_fill(first, size);
  if (read && checksum(m_file.subspan(first, size)) != m_pages.checksum(page)) {
    // Bytes that differ from those written: the file changed (IO_ERROR, its own words), or the
    // package is damaged.
    Status unchanged = m_changed ? m_changed() : Status();
    read = unchanged ? detail::page_mismatch(m_pages, page) : std::move(unchanged);
  }
  if (!read) {
    if (m_failure.ok()) {
      m_failure = std::move(read);
      m_failed.store(true, std::memory_order_release);
    }
    m_state[page].store(k_failed, std::memory_order_release);
    return false;
  }
  m_state[page].store(k_read, std::memory_order_release);
  if (m_read.fetch_add(1, std::memory_order_relaxed) + 1 == m_pages.page_count) {
    m_all_read.store(true, std::memory_order_release);
  }
  return true;
}

Status IndexPageLoader::failure() const {
  std::lock_guard lock(m_mutex);
  return m_failure;
}

}  // namespace kiln::format
