// Reads a package from bytes in memory (an mmap or a caller's buffer) without copying: open()
// validates the header, the table of contents and every index section; images are checked and
// decoded only when read_image() asks for one. Never throws; never reads outside the buffer.
//
// open_deferred() checks only the header, the TOC and INDEX_PAGES at
// open; each page of the index is read and checked against its checksum when an accessor first
// touches it (IndexPageLoader), and the tables' rules are checked before an answer rests on them:
// check_metadata() before METADATA is read, check_name() before a kernel found by name is handed
// out, check_kernel() before one found by index is, check_all() for everything open() checks. A
// deferred reader's answer is then one the whole check stands behind: where open() accepts a file,
// the same answer; where it refuses one, an error naming what is wrong, or a kernel whose own
// name was asked for and whose records pass (never a kernel that another kernel's name leads to).
// Accessors stay within the buffer whatever the bytes hold, returning empty views for references
// that lead outside it.
#pragma once

#include "index_pages.hpp"
#include "layout.hpp"
#include "target.hpp"
#include "util/once.hpp"
#include "util/result.hpp"

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::format {

// Why a package is refused: a Status or Result whose Error has the kiln_status the loader reports
// (NOT_A_PACKAGE, UNSUPPORTED_VERSION, TRUNCATED, CORRUPT, IMAGE_CORRUPT, or IO_ERROR when a deferred
// index page cannot be read), the label the reader was opened with as `where.file`, and for an
// image the target as `where.target`. The message names the section, record or image.

// Views returned by the reader point into the package buffer and live as long as it does.
struct TargetView {
  std::string_view name;
  Target target;
};

struct ImageView {
  std::uint32_t index;      // into the IMAGES table
  std::uint32_t unit;
  std::uint32_t target;     // index into TARGETS
  ImageEncoding encoding;
  std::uint64_t stored_size;
  std::uint64_t raw_size;
  std::uint64_t checksum;
  std::uint32_t ptx_version;  // 0 for cubins
};

struct UnitView {
  std::string_view source;  // the unit's name: its source's path, or a variant's or link group's name
  std::uint32_t first_image;
  std::uint32_t image_count;
};

// What a unit is built from (UNIT_SOURCES): a unit without records is a `source`.
enum class UnitKind {
  source,      // one source file, the path UnitView::source names
  link_group,  // several sources compiled apart and linked into one image per target
  variant,     // one source compiled again with other options, under the variant's name
};

struct KernelView {
  std::uint32_t index;      // into the KERNELS table
  // The symbol in the image. For a variant kernel (k_kernel_variant) the stored name's part after
  // its first '/', a suffix, so data() is still NUL-terminated; otherwise the stored name.
  std::string_view lowered_name;
  std::string_view canonical_name;
  std::string_view variant;       // a variant kernel's variant ("f64"), else empty
  std::string_view stored_name;   // KernelRecord.lowered_name as stored: "f64/_Z5scaleIdEvPT_"
  std::uint32_t unit;
  std::uint32_t flags;      // KernelFlags
  std::span<const std::byte> params;  // ParamRecord[param_count], possibly unaligned: use param()
  std::uint32_t param_count;
  ParamRecord param(std::uint32_t i) const;
};

struct NameView {
  std::string_view name;
  std::uint32_t kernel;
};

// What a name finds: its NAMES record and that record's kernel.
struct NameHit {
  std::uint32_t record;     // into the NAMES table
  std::uint32_t kernel;     // into the KERNELS table (unchecked until check_name)
};

struct VariableView {
  std::string_view name;
  std::string_view lowered_name;
  std::uint32_t unit;
  VariableKind kind;
  std::uint64_t size;
};

struct SourceView {
  std::string_view path;
  SourceRole role;
  std::uint64_t content_hash;
};

struct MetadataView {
  std::string_view key;
  std::string_view value;
};

// A unit's carried sources (CARRIED_UNITS): entries [first_entry, first_entry + entry_count).
struct CarriedUnitView {
  std::uint32_t unit;               // index into UNITS
  std::string_view nvrtc_version;
  std::uint32_t first_entry;
  std::uint32_t entry_count;        // at least 1: the first entry is the source
};

struct CarriedEntryView {
  CarriedEntryKind kind;
  std::string_view value;           // a path, a directory, an option or a kernel's name
  std::uint32_t text;               // source and header: index into SOURCE_TEXTS
};

struct SourceTextView {
  std::uint64_t content_hash;       // XXH3-64 of the text
  ImageEncoding encoding;
  std::uint64_t stored_size;
  std::uint64_t raw_size;
};

// One bit per record of a table, set once a check passes and never cleared; tested without a lock.
// Bits, not bytes: they are zeroed at open, and a package of 10,000 kernels has 20,000 names.
class CheckedBits {
public:
  explicit CheckedBits(std::size_t count = 0) : m_words(std::make_unique<std::atomic<std::uint64_t>[]>(count / 64 + 1)) {}
  bool test(std::uint32_t i) const { return (m_words[i / 64].load(std::memory_order_acquire) >> (i % 64) & 1) != 0; }
  void set(std::uint32_t i) const { m_words[i / 64].fetch_or(std::uint64_t{1} << (i % 64), std::memory_order_release); }

private:
  std::unique_ptr<std::atomic<std::uint64_t>[]> m_words;
};

// The checks of a file's header alone (magic, version, header checksum, sizes), as open() makes
// them first, reading no byte of `bytes` past the header: `bytes` may be a file's whole view of which
// only the header has been read yet. Ok with the package's size (its header's file_size; an embedded
// copy may be padded past it), so a reader of files reads no more than that, and nothing more at all
// of a file open() would refuse from its header (a 20 GB file that is not a package).
Status check_file_header(std::span<const std::byte> bytes, std::uint64_t& package_size);

// Whether a whole open computes the content checksums (of the sections, the index pages and each
// image at its use), or the caller has checked the very same bytes already: a direct record's
// package, which the store's checksum of the record covers whole (store/entry_format.hpp). The
// structure is checked either way.
enum class Checksums { check, verified_by_caller };

class PackageReader {
public:
  // Validates and indexes `bytes`, which must outlive the reader. `label` (a file name) is every
  // error's `where.file`. On failure the reader is left empty.
  Status open(std::span<const std::byte> bytes, std::string label = "package", Checksums checksums = Checksums::check);
  // Checks the header, the TOC and INDEX_PAGES (which the file must have), the only bytes that need
  // be present besides BLOBS; the caller then hands over the loader of the index pages before
  // anything else is asked (use_pages). The tables are checked at first use (the class comment).
  Status open_deferred(std::span<const std::byte> bytes, std::string label = "package");
  // The index pages of a deferred reader: where INDEX_PAGES says they lie, for the loader.
  const IndexPagesView& index_pages() const { return m_index_pages; }
  void use_pages(const IndexPageLoader* pages) { m_pages = pages; }
  bool deferred() const { return m_deferred != nullptr; }
  // Deferred readers: what using kernel `i` trusts, checked once (checks_at_use.cpp): its record,
  // unit, the unit's images, TARGETS and KERNEL_TARGETS (whole, once: their order decides which
  // image holds a kernel), and that its own names (canonical and lowered) find it in NAMES.
  // Corrupt naming the record, or io when a page cannot be read. Readers opened whole: nothing to check.
  Status check_kernel(std::uint32_t i) const;
  // Whether check_kernel(i) has passed (always, for a reader opened whole).
  bool kernel_checked(std::uint32_t i) const {
    return !m_deferred || (i < m_kernels.count && m_deferred->kernel_checked.test(i));
  }
  // Deferred readers: whether a lookup may hand out the kernel of `hit` (what find_name gave for
  // `asked`, the name as the caller spelled it, if known): check_kernel of its kernel, and the name
  // either one of that kernel's own names or, for any other name (an alias), the whole index
  // checked (check_all), since only the whole NAMES and KERNELS can show that no other kernel's own
  // name it is. Once per NAMES record.
  Status check_name(const NameHit& hit, std::string_view asked = {}) const;
  // Whether check_name has passed for NAMES record `record` (always, for a reader opened whole):
  // the test each lookup makes, inline.
  bool name_checked(std::uint32_t record) const {
    return !m_deferred || (record < m_names.count && m_deferred->name_checked.test(record));
  }
  // Deferred readers: METADATA checked whole (its strings, its order), once, before anything reads
  // it (a split package's keys are read at open). Readers opened whole: nothing to check.
  Status check_metadata() const;
  // Deferred readers: reads every page and checks everything open() checks, once (later calls give
  // the same answer). Readers opened whole: nothing to check.
  Status check_all() const;

  std::uint16_t version_major() const { return m_major; }
  std::uint16_t version_minor() const { return m_minor; }
  std::span<const std::byte> bytes() const { return m_bytes; }

  std::uint32_t target_count() const;
  TargetView target(std::uint32_t i) const;
  std::uint32_t unit_count() const;
  UnitView unit(std::uint32_t i) const;
  std::uint32_t image_count() const;
  ImageView image(std::uint32_t i) const;
  std::uint32_t kernel_count() const;
  KernelView kernel(std::uint32_t i) const;
  std::uint32_t name_count() const;
  NameView name(std::uint32_t i) const;
  std::uint32_t variable_count() const;
  VariableView variable(std::uint32_t i) const;
  std::uint32_t source_count() const;
  SourceView source(std::uint32_t i) const;
  std::uint32_t metadata_count() const;
  MetadataView metadata(std::uint32_t i) const;
  std::optional<std::string_view> metadata_value(std::string_view key) const;

  // What unit `unit` is built from: its UNIT_SOURCES records' role, or `source` without records.
  UnitKind unit_kind(std::uint32_t unit) const;
  // The unit's source paths, in string order: its UNIT_SOURCES records' (a link group's members, a
  // variant's one source), or without records its own name. Empty for an index out of range.
  std::vector<std::string_view> unit_sources(std::uint32_t unit) const;

  // Carried sources (none in a package that carries none). package_carried.cpp.
  std::uint32_t carried_unit_count() const { return m_carried_units.count; }
  CarriedUnitView carried_unit(std::uint32_t i) const;
  // The carried record of unit `unit`, if its sources are carried.
  std::optional<std::uint32_t> find_carried_unit(std::uint32_t unit) const;
  CarriedEntryView carried_entry(std::uint32_t i) const;
  std::uint32_t source_text_count() const { return m_source_texts.count; }
  SourceTextView source_text(std::uint32_t i) const;
  // Decodes text `i` and checks its hash: IMAGE_CORRUPT (naming the text) when it fails.
  Result<std::string> read_source_text(std::uint32_t i) const;

  // Whether the image of kernel `kernel`'s unit for target `target` holds the kernel: always for a
  // kernel in every image (one without KERNEL_TARGETS records), else as KERNEL_TARGETS says.
  bool kernel_in_target(std::uint32_t kernel, std::uint32_t target) const;
  bool kernel_in_every_image(std::uint32_t kernel) const;
  // Whether no image of this file holds the kernel (a split package's other file does).
  bool kernel_in_other_file(std::uint32_t kernel) const;
  // The targets (indices into TARGETS) whose images hold the kernel, in target order (none for a
  // kernel in another file).
  std::vector<std::uint32_t> kernel_targets(std::uint32_t kernel) const;

  // Look-ups. The name is normalized first, so any spelling the package records works. A kernel's
  // name is found through NAME_INDEX, else by binary search in NAMES: one procedure for lookups and
  // for the checks of a deferred reader, so that a name always finds the same record.
  std::optional<NameHit> find_name(std::string_view name) const;
  std::optional<std::uint32_t> find_kernel(std::string_view name) const {
    const std::optional<NameHit> hit = find_name(name);
    return hit ? std::optional<std::uint32_t>(hit->kernel) : std::nullopt;
  }
  std::optional<std::uint32_t> find_variable(std::string_view name) const;

  // The stored (possibly compressed) bytes of an image, unchecked.
  std::span<const std::byte> stored_image(std::uint32_t image) const;
  // Checks and decodes an image (raw_size bytes).
  Result<std::vector<std::byte>> read_image(std::uint32_t image) const;
  // Checks an image and gives its bytes without copying where it can: a raw image is a view into the
  // package buffer, a compressed one is decoded into `scratch`. The view lives as long as both do.
  Result<std::span<const std::byte>> image_bytes(std::uint32_t image, std::vector<std::byte>& scratch) const;

  // Sections present in the file, for inspect/verify, including kinds this reader does not know.
  std::span<const std::byte> toc_bytes() const;
  std::uint32_t section_count() const;
  TocEntry section(std::uint32_t i) const;
  // Verifies every section checksum, including the lazily verified ones (BLOBS).
  Status verify_all_sections() const;
  // Whether NAME_INDEX has the shape the writer gives it and finds every name of NAMES (CORRUPT
  // saying what is wrong). For `kiln verify`: lookups never depend on it being right.
  Status check_name_index() const;

private:
  struct Table {
    std::span<const std::byte> bytes;
    std::uint32_t count = 0;
  };
  // A deferred reader's state: what it has checked so far.
  struct Deferred {
    Once all_once;                // util/once.hpp: no system call on a first check, as std::call_once makes
    Status all;
    std::atomic<bool> all_passed{false};
    Once tables_once;             // TARGETS and the order of KERNEL_TARGETS
    std::atomic<bool> tables_passed{false};   // whether `tables` passed, tested without the lock
    Status tables;
    Once metadata_once;
    Status metadata;
    CheckedBits kernel_checked;
    CheckedBits unit_checked;   // a unit's record and images
    CheckedBits name_checked;   // a NAMES record, by check_name
  };
  Status open_with(std::span<const std::byte> bytes, std::string label, bool deferred, Checksums checksums);
  // Whether `bytes` (inside the buffer) may be read: their index pages are loaded.
  bool present(std::span<const std::byte> bytes) const {
    return !m_pages || m_pages->load(static_cast<std::uint64_t>(bytes.data() - m_bytes.data()), bytes.size());
  }
  // Record i of a table, or a zeroed record past its end or when its page cannot be read.
  template <class Record>
  Record record(const Table& table, std::uint32_t i) const;
  // The string `ref` names, or "" when it does not lie in STRINGS or its NUL is missing.
  std::string_view string(StrRef ref) const;
  // `bytes` when present, else empty.
  std::span<const std::byte> loaded(std::span<const std::byte> bytes) const { return present(bytes) ? bytes : std::span<const std::byte>{}; }
  std::uint32_t first_target_record(std::uint32_t kernel) const;
  std::uint32_t first_unit_source(std::uint32_t unit) const;
  // check_kernel, where `hint` (if any) is what find_name gave for `asked`, maybe one of the
  // kernel's names (then not looked up again).
  Status check_kernel_found(std::uint32_t i, const NameHit* hint, std::string_view asked) const;
  // A kernel's own names as stored, once check_kernel_records has checked them: lowered, canonical.
  using OwnNames = std::string_view[2];
  Status check_kernel_records(std::uint32_t i, OwnNames& names) const;
  Status check_unit_records(std::uint32_t unit) const;
  // Whether kernel i's own names find it; `records` gets the NAMES records they find.
  Status check_own_names(std::uint32_t i, const OwnNames& names, const NameHit* hint, std::string_view asked,
                         std::uint32_t (&records)[2]) const;
  // TARGETS and KERNEL_TARGETS' order, and METADATA, checked whole (checks_at_use_tables.cpp).
  Status check_small_tables() const;
  std::optional<Status> check_metadata_records() const;   // nullopt: too large to check but whole
  // A check's answer: the page failure if one happened (a page that cannot be read gives zeros to
  // whatever reads it), else `found` (CORRUPT) naming this package, else success.
  Status checked(Status found) const;
  Status page_error() const;
  // A failure of this package: `where.file` is its label. (failure::Error: the runtime's tests see
  // kiln/error.hpp's kiln::Error too.)
  failure::Error refused(kiln_status status, std::string message) const;

  std::span<const std::byte> m_bytes;
  std::string m_label;
  Checksums m_checksums = Checksums::check;
  std::uint16_t m_major = 0;
  std::uint16_t m_minor = 0;
  std::span<const std::byte> m_strings;
  Table m_targets, m_units, m_images, m_kernels, m_params, m_names, m_variables, m_sources, m_metadata;
  Table m_kernel_targets;   // KERNEL_TARGETS
  Table m_unit_sources;     // UNIT_SOURCES
  Table m_carried_units, m_carried_entries, m_source_texts;   // empty unless sources are carried
  std::span<const std::byte> m_text_blobs;
  std::span<const std::byte> m_blobs;
  Table m_name_index;       // NAME_INDEX
  IndexPagesView m_index_pages;   // INDEX_PAGES
  const IndexPageLoader* m_pages = nullptr;   // a deferred reader's; null when opened whole
  std::unique_ptr<Deferred> m_deferred;       // null when opened whole
};

// Inline: a lookup reads a few records and strings, and the call would cost as much as the check.
template <class Record>
[[gnu::always_inline]] inline Record PackageReader::record(const Table& table, std::uint32_t i) const {
  Record value{};
  if (i < table.count && present(table.bytes.subspan(std::size_t{i} * sizeof(Record), sizeof(Record)))) {
    std::memcpy(&value, table.bytes.data() + std::size_t{i} * sizeof(Record), sizeof(Record));
  }
  return value;
}

[[gnu::always_inline]] inline std::string_view PackageReader::string(StrRef ref) const {
  if (ref.offset >= m_strings.size() || ref.length >= m_strings.size() - ref.offset) return {};
  const char* text = reinterpret_cast<const char*>(m_strings.data()) + ref.offset;
  // A deferred reader's reference is unchecked: it must lead to loaded bytes that end in a NUL.
  if (m_pages && (!present(m_strings.subspan(ref.offset, std::size_t{ref.length} + 1)) || text[ref.length] != '\0')) {
    return {};
  }
  return {text, ref.length};
}

}  // namespace kiln::format
