#include "reseal.hpp"

#include "format/checksum.hpp"
#include "format/index_pages.hpp"
#include "format/layout.hpp"

#include <bit>
#include <cstring>
#include <optional>
#include <span>

namespace kiln::format::testing {
namespace {

template <class T>
T load(const std::vector<std::byte>& file, std::uint64_t at) {
  T value;
  std::memcpy(&value, file.data() + at, sizeof value);
  return value;
}

template <class T>
void store(std::vector<std::byte>& file, std::uint64_t at, const T& value) {
  std::memcpy(file.data() + at, &value, sizeof value);
}

bool inside(const std::vector<std::byte>& file, const TocEntry& e) {
  return e.offset <= file.size() && e.size <= file.size() - e.offset;
}

// INDEX_PAGES made to cover the index as it now lies: [header_size, BLOBS), its checksums
// recomputed (the first section of each kind, as the reader takes them).
bool reseal_index_pages(std::vector<std::byte>& file, const FileHeader& h) {
  std::optional<TocEntry> pages, blobs;
  for (std::uint32_t i = 0; i < h.section_count; ++i) {
    const auto e = load<TocEntry>(file, h.toc_offset + std::uint64_t{i} * sizeof(TocEntry));
    if (e.kind == static_cast<std::uint32_t>(SectionKind::index_pages) && !pages) pages = e;
    if (e.kind == static_cast<std::uint32_t>(SectionKind::blobs) && !blobs) blobs = e;
  }
  if (!pages || !blobs || !inside(file, *pages) || pages->size < sizeof(IndexPagesHeader) ||
      blobs->offset > file.size() || blobs->offset < h.header_size || pages->offset < blobs->offset) {
    return false;
  }
  const auto header = load<IndexPagesHeader>(file, pages->offset);
  if (!std::has_single_bit(header.page_size) || header.page_size < k_index_page_min || header.page_size > k_index_page_max) {
    return false;
  }
  const std::vector<std::byte> fresh = detail::encode_index_pages(file, h.header_size, blobs->offset, header.page_size);
  if (fresh.size() != pages->size) return false;
  std::memcpy(file.data() + pages->offset, fresh.data(), fresh.size());
  return true;
}

}  // namespace

bool reseal(std::vector<std::byte>& file, bool index_pages) {
  if (file.size() < sizeof(FileHeader)) return false;
  auto h = load<FileHeader>(file, 0);
  const std::uint64_t toc_size = std::uint64_t{h.section_count} * sizeof(TocEntry);
  bool redone = false;
  if (h.toc_offset <= file.size() && toc_size <= file.size() - h.toc_offset) {
    if (index_pages) redone = reseal_index_pages(file, h);
    for (std::uint32_t i = 0; i < h.section_count; ++i) {
      const std::uint64_t at = h.toc_offset + std::uint64_t{i} * sizeof(TocEntry);
      auto e = load<TocEntry>(file, at);
      if (!inside(file, e)) continue;
      e.checksum = checksum(std::span(file).subspan(e.offset, e.size));
      store(file, at, e);
    }
    h.toc_checksum = checksum(std::span(file).subspan(h.toc_offset, toc_size));
  }
  store(file, 0, h);
  h.header_checksum = checksum(std::span(file).first(k_header_checksum_span));
  store(file, 0, h);
  return redone;
}

}  // namespace kiln::format::testing
