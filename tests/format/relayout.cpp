#include "relayout.hpp"

#include "reseal.hpp"

#include "format/index_pages.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

namespace kiln::format::testing {

using Bytes = std::vector<std::byte>;   // as package_fixture.hpp says

namespace {

template <class T>
T read_at(const Bytes& file, std::uint64_t at) {
  T value;
  std::memcpy(&value, file.data() + at, sizeof value);
  return value;
}

void pad_file(Bytes& file) { file.resize((file.size() + k_section_alignment - 1) / k_section_alignment * k_section_alignment); }

bool is_kind(const LaidSection& section, SectionKind kind) { return section.kind == static_cast<std::uint32_t>(kind); }

}  // namespace

Layout layout_of(const Bytes& file) {
  Layout layout;
  const auto header = read_at<FileHeader>(file, 0);
  layout.major = header.version_major;
  layout.minor = header.version_minor;
  std::vector<TocEntry> toc;
  for (std::uint32_t i = 0; i < header.section_count; ++i) {
    toc.push_back(read_at<TocEntry>(file, header.toc_offset + std::uint64_t{i} * sizeof(TocEntry)));
  }
  std::stable_sort(toc.begin(), toc.end(), [](const TocEntry& a, const TocEntry& b) { return a.offset < b.offset; });
  for (const TocEntry& entry : toc) {
    const auto first = file.begin() + static_cast<std::ptrdiff_t>(entry.offset);
    layout.sections.push_back({entry.kind, entry.flags, Bytes(first, first + static_cast<std::ptrdiff_t>(entry.size))});
    if (is_kind(layout.sections.back(), SectionKind::index_pages) && entry.size >= sizeof(IndexPagesHeader)) {
      layout.index_page_size = read_at<IndexPagesHeader>(file, entry.offset).page_size;
    }
  }
  return layout;
}

Bytes lay_out(const Layout& layout) {
  Bytes file(sizeof(FileHeader));
  std::vector<TocEntry> toc;
  std::optional<std::uint64_t> blobs;
  for (const LaidSection& section : layout.sections) {
    pad_file(file);
    Bytes bytes = section.bytes;
    if (is_kind(section, SectionKind::index_pages) && blobs) {
      bytes = detail::encode_index_pages(file, sizeof(FileHeader), *blobs, layout.index_page_size);
    }
    if (is_kind(section, SectionKind::blobs) && !blobs) blobs = file.size();
    toc.push_back(TocEntry{section.kind, section.flags, file.size(), bytes.size(), 0});
    file.insert(file.end(), bytes.begin(), bytes.end());
  }
  pad_file(file);
  FileHeader header{};
  std::copy(k_magic.begin(), k_magic.end(), header.magic);
  header.version_major = layout.major;
  header.version_minor = layout.minor;
  header.header_size = sizeof(FileHeader);
  header.toc_offset = file.size();
  header.section_count = static_cast<std::uint32_t>(toc.size());
  for (const TocEntry& entry : toc) {
    const auto* first = reinterpret_cast<const std::byte*>(&entry);
    file.insert(file.end(), first, first + sizeof entry);
  }
  header.file_size = file.size();
  std::memcpy(file.data(), &header, sizeof header);
  reseal(file, /*index_pages=*/false);   // made above, over the index as laid out
  return file;
}

Bytes with_index_page_size(const Bytes& file, std::uint32_t page_size) {
  Layout layout = layout_of(file);
  layout.index_page_size = page_size;
  return lay_out(layout);
}

Bytes with_section(const Bytes& file, std::uint32_t kind, Bytes bytes, std::uint32_t flags) {
  Layout layout = layout_of(file);
  const auto blobs = std::find_if(layout.sections.begin(), layout.sections.end(),
                                  [](const LaidSection& s) { return is_kind(s, SectionKind::blobs); });
  layout.sections.insert(blobs, LaidSection{kind, flags, std::move(bytes)});
  return lay_out(layout);
}

Bytes without_section(const Bytes& file, SectionKind kind) {
  Layout layout = layout_of(file);
  std::erase_if(layout.sections, [&](const LaidSection& s) { return is_kind(s, kind); });
  return lay_out(layout);
}

Bytes with_version(Bytes file, std::uint16_t major, std::uint16_t minor) {
  FileHeader header = read_at<FileHeader>(file, 0);
  header.version_major = major;
  header.version_minor = minor;
  std::memcpy(file.data(), &header, sizeof header);
  reseal(file);
  return file;
}

}  // namespace kiln::format::testing
