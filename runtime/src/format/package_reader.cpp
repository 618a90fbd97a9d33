// PackageReader::open: the header, the table of contents and the sections, checked in the order
// that lets each step trust the one before (bounds before checksums before indices).
#include "package_reader.hpp"

#include "checksum.hpp"
#include "record_io.hpp"
#include "table_check.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

namespace kiln::format {
namespace {

// What open() has found so far; copied into the reader only when everything is valid.
struct Opened {
  std::span<const std::byte> bytes;
  std::uint16_t major = 0;
  std::uint16_t minor = 0;
  detail::Tables tables;
  IndexPagesView pages;
};

// A failure of open_package; open_with names the file (`where.file`).
Error error(kiln_status status, std::string message) { return fail(status, std::move(message)); }

std::string version_text(std::uint16_t major, std::uint16_t minor) {
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string truncated_text(std::size_t have, std::uint64_t need) {
  return "the file is truncated: " + std::to_string(have) + " of " + std::to_string(need) +
         " bytes";
}

// Magic and version come first: they are the only fields every major version shares, so a newer
// major is reported as such even if the rest of its header means something else.
Status read_header(std::span<const std::byte> bytes, Opened& opened, FileHeader& header) {
  const std::size_t have = bytes.size();
  if (have == 0) {
    return error(KILN_STATUS_TRUNCATED, "the file is empty");
  }
  if (std::memcmp(bytes.data(), k_magic.data(), std::min(have, k_magic.size())) != 0) {
    return error(KILN_STATUS_NOT_A_PACKAGE, "not a Kiln package (no Kiln magic at its start)");
  }
  constexpr std::size_t k_version_end = offsetof(FileHeader, header_size);
  if (have < k_version_end) {
    return error(KILN_STATUS_TRUNCATED, truncated_text(have, sizeof(FileHeader)));
  }
  std::uint16_t major = 0;
  std::uint16_t minor = 0;
  std::memcpy(&major, bytes.data() + offsetof(FileHeader, version_major), sizeof major);
  std::memcpy(&minor, bytes.data() + offsetof(FileHeader, version_minor), sizeof minor);
  if (major != k_version_major) {
    const std::string found = "package format " + version_text(major, minor);
    if (major > k_version_major) {
      return error(KILN_STATUS_UNSUPPORTED_VERSION, found + " is newer than this reader (" +
                                                           std::to_string(k_version_major) +
                                                           ".x); rebuild it or update Kiln");
    }
    // Older majors are the formats of Kiln before its first release, which wrote 2.0: nothing reads
    // them any more. (A new major must say here how files of 2.x are refused.)
    return error(KILN_STATUS_UNSUPPORTED_VERSION,
                 found + " predates Kiln's first release (format 2.0): rebuild the package with this Kiln");
  }
  if (have < sizeof(FileHeader)) {
    return error(KILN_STATUS_TRUNCATED, truncated_text(have, sizeof(FileHeader)));
  }
  header = detail::load_record<FileHeader>(bytes);
  if (checksum(bytes.first(k_header_checksum_span)) != header.header_checksum) {
    return error(KILN_STATUS_CORRUPT, "header checksum mismatch");
  }
  if (header.header_size < sizeof(FileHeader) || header.file_size < header.header_size) {
    return error(KILN_STATUS_CORRUPT, "header size " + std::to_string(header.header_size) +
                                             " or file size " + std::to_string(header.file_size) +
                                             " is impossible");
  }
  if (have < header.file_size) {
    return error(KILN_STATUS_TRUNCATED, truncated_text(have, header.file_size));
  }
  // A longer buffer is fine (an embedded copy may be padded); only file_size bytes are the package.
  opened.bytes = bytes.first(static_cast<std::size_t>(header.file_size));
  opened.major = major;
  opened.minor = minor;
  return {};
}

Status read_toc(const FileHeader& header, std::span<const std::byte> bytes) {
  const std::uint64_t toc_size = std::uint64_t{header.section_count} * sizeof(TocEntry);
  if (header.toc_offset < header.header_size || header.toc_offset > header.file_size ||
      toc_size > header.file_size - header.toc_offset) {
    return error(KILN_STATUS_CORRUPT, "the TOC lies outside the file");
  }
  if (header.toc_offset + toc_size != header.file_size) {
    return error(KILN_STATUS_CORRUPT, "the TOC does not end the file");
  }
  if (checksum(bytes.subspan(header.toc_offset, toc_size)) != header.toc_checksum) {
    return error(KILN_STATUS_CORRUPT, "TOC checksum mismatch");
  }
  return {};
}

// Sections lie between the header and the TOC without overlapping; the bytes between them are
// zero padding. So every byte of a valid file is covered by some checksum or known to be zero.
// Deferred (unread_end > 0): the padding before unread_end is covered by the index pages' checksums
// and checked when its page is read.
Status check_placement(const FileHeader& header, std::span<const std::byte> bytes,
                          std::span<const std::byte> toc, std::uint64_t unread_end) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> extents;
  extents.reserve(header.section_count);
  for (std::uint32_t i = 0; i < header.section_count; ++i) {
    const auto entry = detail::load_record<TocEntry>(toc, i);
    // Named only when refused: a name per section of every open was two allocations each.
    const auto name = [&] { return detail::section_name(entry.kind) + " section"; };
    if (entry.offset % k_section_alignment != 0) {
      return error(KILN_STATUS_CORRUPT, name() + " at offset " + std::to_string(entry.offset) +
                                               " is not " + std::to_string(k_section_alignment) +
                                               "-byte aligned");
    }
    if (entry.offset < header.header_size || entry.offset > header.toc_offset ||
        entry.size > header.toc_offset - entry.offset) {
      return error(KILN_STATUS_CORRUPT, name() + " lies outside the space between header and TOC");
    }
    extents.emplace_back(entry.offset, entry.size);
  }
  std::sort(extents.begin(), extents.end());
  std::uint64_t end = header.header_size;
  extents.emplace_back(header.toc_offset, 0);
  for (const auto& [offset, size] : extents) {
    if (offset < end) {
      return error(KILN_STATUS_CORRUPT, "sections overlap at offset " + std::to_string(offset));
    }
    for (std::uint64_t at = std::max(end, unread_end); at < offset; ++at) {
      if (bytes[at] != std::byte{0}) {
        return error(KILN_STATUS_CORRUPT,
                     "non-zero padding byte at offset " + std::to_string(at));
      }
    }
    end = offset + size;
  }
  return {};
}

// Finds the sections this version knows, checks their checksums (unless verified lazily, or the
// caller vouched for them: Checksums) and record sizes. Unknown kinds are skipped, but their
// checksums are checked like any other's.
Status read_sections(const FileHeader& header, std::span<const std::byte> bytes,
                        std::span<const std::byte> toc, std::uint64_t unread_end, Checksums checksums,
                        detail::Tables& tables) {
  std::array<std::optional<std::span<const std::byte>>,
             std::size(detail::k_required_kinds) + std::size(detail::k_optional_kinds) + 1>
      found;
  for (std::uint32_t i = 0; i < header.section_count; ++i) {
    const auto entry = detail::load_record<TocEntry>(toc, i);
    const std::span<const std::byte> section = bytes.subspan(entry.offset, entry.size);
    const auto name = [&] { return detail::section_name(entry.kind); };
    const bool unread = entry.offset + entry.size <= unread_end;   // deferred: checked by its pages
    if (checksums == Checksums::check && (entry.flags & k_section_verify_lazily) == 0 && !unread &&
        checksum(section) != entry.checksum) {
      return error(KILN_STATUS_CORRUPT, name() + " section checksum mismatch");
    }
    if (!detail::is_known_kind(entry.kind)) {
      continue;
    }
    if (found[entry.kind]) {
      return error(KILN_STATUS_CORRUPT, "two " + name() + " sections");
    }
    const std::size_t record = detail::record_size(entry.kind);
    if (record != 0 && entry.size % record != 0) {
      return error(KILN_STATUS_CORRUPT, name() + " section size " + std::to_string(entry.size) +
                                               " is not a multiple of " + std::to_string(record));
    }
    if (record != 0 && entry.size / record > UINT32_MAX) {
      return error(KILN_STATUS_CORRUPT, name() + " section has too many records");
    }
    found[entry.kind] = section;
  }
  for (const SectionKind kind : detail::k_required_kinds) {
    if (!found[static_cast<std::uint32_t>(kind)]) {
      return error(KILN_STATUS_CORRUPT,
                   "no " + detail::section_name(static_cast<std::uint32_t>(kind)) + " section");
    }
  }
  const auto records = [&](SectionKind kind) {
    const auto k = static_cast<std::uint32_t>(kind);
    return detail::RecordTable{
        *found[k], static_cast<std::uint32_t>(found[k]->size() / detail::record_size(k))};
  };
  tables.strings = *found[static_cast<std::uint32_t>(SectionKind::strings)];
  tables.blobs = *found[static_cast<std::uint32_t>(SectionKind::blobs)];
  tables.targets = records(SectionKind::targets);
  tables.units = records(SectionKind::units);
  tables.images = records(SectionKind::images);
  tables.kernels = records(SectionKind::kernels);
  tables.params = records(SectionKind::params);
  tables.names = records(SectionKind::names);
  tables.variables = records(SectionKind::variables);
  tables.sources = records(SectionKind::sources);
  tables.metadata = records(SectionKind::metadata);
  tables.kernel_targets = records(SectionKind::kernel_targets);
  tables.unit_sources = records(SectionKind::unit_sources);
  tables.name_index = records(SectionKind::name_index);
  tables.index_pages = *found[static_cast<std::uint32_t>(SectionKind::index_pages)];
  for (const SectionKind kind : {SectionKind::carried_units, SectionKind::carried_entries, SectionKind::source_texts}) {
    if (!found[static_cast<std::uint32_t>(kind)]) continue;
    detail::RecordTable& table = kind == SectionKind::carried_units     ? tables.carried_units
                                 : kind == SectionKind::carried_entries ? tables.carried_entries
                                                                        : tables.source_texts;
    table = records(kind);
  }
  if (found[static_cast<std::uint32_t>(SectionKind::text_blobs)]) {
    tables.text_blobs = *found[static_cast<std::uint32_t>(SectionKind::text_blobs)];
  }
  return {};
}

// The offset of the first BLOBS entry of the TOC (bounds are checked later), or 0.
std::uint64_t blobs_offset(const FileHeader& header, std::span<const std::byte> toc) {
  for (std::uint32_t i = 0; i < header.section_count; ++i) {
    const auto entry = detail::load_record<TocEntry>(toc, i);
    if (entry.kind == static_cast<std::uint32_t>(SectionKind::blobs)) return entry.offset;
  }
  return 0;
}

// Deferred: only the header, the TOC and what lies from BLOBS on (INDEX_PAGES) are read; the index
// before BLOBS is left to its pages.
}  // namespace

Status check_file_header(std::span<const std::byte> bytes, std::uint64_t& package_size) {
  Opened opened;
  FileHeader header{};
  KILN_TRY(read_header(bytes, opened, header));
  package_size = header.file_size;
  return {};
}

namespace {

Status open_package(std::span<const std::byte> bytes, Opened& opened, bool deferred, Checksums checksums) {
  FileHeader header{};
  KILN_TRY(read_header(bytes, opened, header));
  KILN_TRY(read_toc(header, opened.bytes));
  const auto toc = opened.bytes.subspan(header.toc_offset, header.section_count * sizeof(TocEntry));
  const std::uint64_t unread_end = deferred ? blobs_offset(header, toc) : 0;
  KILN_TRY(check_placement(header, opened.bytes, toc, unread_end));
  KILN_TRY(read_sections(header, opened.bytes, toc, unread_end, checksums, opened.tables));
  opened.tables.file_size = header.file_size;
  const auto blobs = opened.tables.blobs.data() - opened.bytes.data();
  KILN_TRY(detail::parse_index_pages(opened.tables.index_pages, header.header_size, static_cast<std::uint64_t>(blobs),
                                     opened.pages));
  if (deferred) return {};
  KILN_TRY(detail::check_tables(opened.tables));
  return checksums == Checksums::check ? detail::check_index_pages(opened.pages, opened.bytes) : Status{};
}

}  // namespace

Status PackageReader::open(std::span<const std::byte> bytes, std::string label, Checksums checksums) {
  return open_with(bytes, std::move(label), false, checksums);
}

Status PackageReader::open_deferred(std::span<const std::byte> bytes, std::string label) {
  return open_with(bytes, std::move(label), true, Checksums::check);
}

Error PackageReader::refused(kiln_status status, std::string message) const {
  return fail(status, std::move(message), Location{.file = m_label});
}

Status PackageReader::check_all() const {
  if (!m_deferred) return {};
  m_deferred->all_once.run([this] {
    if (!m_pages || !m_pages->load_all()) {
      m_deferred->all = page_error();
      return;
    }
    Opened whole;
    if (Status opened = open_package(m_bytes, whole, false, Checksums::check); !opened) {
      Error e = std::move(opened).error();
      e.where.file = m_label;
      m_deferred->all = std::move(e);
      return;
    }
    m_deferred->all_passed.store(true, std::memory_order_release);
  });
  return m_deferred->all;
}

Status PackageReader::page_error() const {
  if (!m_pages) return refused(KILN_STATUS_CORRUPT, "the index pages were not handed to the reader");
  if (!m_pages->failed()) return {};
  Status failure = m_pages->failure();
  if (failure) return {};
  Error e = std::move(failure).error();
  e.where.file = m_label;
  return e;
}

Status PackageReader::open_with(std::span<const std::byte> bytes, std::string label, bool deferred,
                                Checksums checksums) {
  *this = PackageReader{};
  Opened opened;
  if (Status read = open_package(bytes, opened, deferred, checksums); !read) {
    Error e = std::move(read).error();
    e.where.file = std::move(label);
    return e;
  }
  m_bytes = opened.bytes;
  m_label = std::move(label);
  m_checksums = checksums;
  m_major = opened.major;
  m_minor = opened.minor;
  const detail::Tables& t = opened.tables;
  m_strings = t.strings;
  m_blobs = t.blobs;
  const auto table = [](const detail::RecordTable& r) {
    return Table{r.bytes, r.count};
  };
  m_targets = table(t.targets);
  m_units = table(t.units);
  m_images = table(t.images);
  m_kernels = table(t.kernels);
  m_params = table(t.params);
  m_names = table(t.names);
  m_variables = table(t.variables);
  m_sources = table(t.sources);
  m_metadata = table(t.metadata);
  m_kernel_targets = table(t.kernel_targets);
  m_unit_sources = table(t.unit_sources);
  m_carried_units = table(t.carried_units);
  m_carried_entries = table(t.carried_entries);
  m_source_texts = table(t.source_texts);
  m_text_blobs = t.text_blobs;
  m_name_index = table(t.name_index);
  m_index_pages = opened.pages;
  if (deferred) {
    m_deferred = std::make_unique<Deferred>();
    m_deferred->kernel_checked = CheckedBits(m_kernels.count);
    m_deferred->unit_checked = CheckedBits(m_units.count);
    m_deferred->name_checked = CheckedBits(m_names.count);
  }
  return {};
}

}  // namespace kiln::format
