// Serializes a WritePlan: strings interned in first-use order (deterministic because the plan is
// sorted), records in plan order, sections in a fixed order, the TOC last and the header at 0.
#include "writer/package_writer.hpp"

#include "format/name_index.hpp"

#include "format/checksum.hpp"
#include "format/index_pages.hpp"
#include "writer/image_compress.hpp"
#include "format/record_io.hpp"
#include "writer/write_plan.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

namespace kiln::format {
namespace {

using Bytes = std::vector<std::byte>;

void pad_to(Bytes& bytes, std::uint64_t alignment) {
  bytes.resize((bytes.size() + alignment - 1) / alignment * alignment, std::byte{0});
}

// The STRINGS section: a NUL first (so StrRef {0, 0} is ""), then each distinct string once.
class StringTable {
public:
  StringTable() : m_bytes(1, std::byte{0}) {}

  StrRef intern(std::string_view text) {
    if (text.empty()) {
      return {0, 0};
    }
    // A NUL inside would end the string early for C callers; the reader refuses such files.
    if (text.find('\0') != std::string_view::npos) {
      m_status = detail::refused("the string '" + std::string(text.substr(0, text.find('\0'))) +
                                 "\\0...' contains a NUL byte");
      return {0, 0};
    }
    if (const auto it = m_offsets.find(std::string(text)); it != m_offsets.end()) {
      return {it->second, static_cast<std::uint32_t>(text.size())};
    }
    const std::uint64_t end = m_bytes.size() + text.size() + 1;
    if (end > std::numeric_limits<std::uint32_t>::max()) {
      m_status = detail::refused("the string table exceeds 4 GiB");
      return {0, 0};
    }
    const auto offset = static_cast<std::uint32_t>(m_bytes.size());
    const auto* chars = reinterpret_cast<const std::byte*>(text.data());
    m_bytes.insert(m_bytes.end(), chars, chars + text.size());
    m_bytes.push_back(std::byte{0});
    m_offsets.emplace(std::string(text), offset);
    return {offset, static_cast<std::uint32_t>(text.size())};
  }

  const Bytes& bytes() const { return m_bytes; }
  // Whether every string could be interned: a refusal names the last one that could not.
  const Status& status() const { return m_status; }

private:
  Bytes m_bytes;
  // Owns its keys: callers intern temporaries (target names are built on the fly).
  std::unordered_map<std::string, std::uint32_t> m_offsets;
  Status m_status;
};

// Every section but STRINGS and BLOBS, as record arrays, plus the image bytes.
struct Sections {
  Bytes targets, units, images, kernels, params, names, variables, sources, metadata, kernel_targets, unit_sources,
      blobs;
  Bytes carried_units, carried_entries, source_texts, text_blobs;
  Bytes name_index;
};

// Carried sources: records, and each text once in TEXT_BLOBS (16-byte aligned; zstd where it saves).
void encode_carried(const detail::WritePlan& plan, const WriteOptions& options, StringTable& strings, Sections& out) {
  std::uint32_t first_entry = 0;
  for (const detail::PlannedCarriedUnit& unit : plan.carried) {
    const auto count = static_cast<std::uint32_t>(unit.entries.size());
    detail::append_record(out.carried_units,
                          CarriedUnitRecord{unit.unit, first_entry, count, 0, strings.intern(unit.nvrtc_version)});
    for (const detail::PlannedCarriedEntry& e : unit.entries) {
      detail::append_record(out.carried_entries,
                            CarriedEntryRecord{static_cast<std::uint32_t>(e.kind), e.text, strings.intern(e.value)});
    }
    first_entry += count;
  }
  for (const detail::PlannedText& text : plan.texts) {
    const std::span<const std::byte> raw = std::as_bytes(std::span(text.text->data(), text.text->size()));
    SourceTextRecord record{text.content_hash, 0, raw.size(), raw.size(), static_cast<std::uint32_t>(ImageEncoding::raw), 0};
    std::optional<Bytes> compressed;
    if (options.compress_texts) compressed = detail::zstd_compress(raw, options.text_compression_level);
    std::span<const std::byte> stored = raw;
    if (compressed && compressed->size() < raw.size()) {
      stored = *compressed;
      record.encoding = static_cast<std::uint32_t>(ImageEncoding::zstd);
      record.stored_size = stored.size();
    }
    pad_to(out.text_blobs, k_blob_alignment);
    record.offset = out.text_blobs.size();
    out.text_blobs.insert(out.text_blobs.end(), stored.begin(), stored.end());
    detail::append_record(out.source_texts, record);
  }
}

// Images go into BLOBS in IMAGES order, each 16-byte aligned; zstd only where it saves bytes.
void encode_images(const detail::WritePlan& plan, const WriteOptions& options, Sections& out) {
  for (const detail::PlannedImage& image : plan.images) {
    const std::span<const std::byte> raw = *image.bytes;
    ImageRecord record{};
    record.unit = image.unit;
    record.target = image.target;
    record.raw_size = raw.size();
    record.checksum = checksum(raw);
    record.encoding = static_cast<std::uint32_t>(ImageEncoding::raw);
    record.ptx_version = image.ptx_version;
    std::optional<Bytes> compressed;
    if (options.compress) {
      compressed = detail::zstd_compress(raw, options.compression_level);
    }
    std::span<const std::byte> stored = raw;
    if (compressed && compressed->size() < raw.size()) {
      stored = *compressed;
      record.encoding = static_cast<std::uint32_t>(ImageEncoding::zstd);
    }
    pad_to(out.blobs, k_blob_alignment);
    record.offset = out.blobs.size();
    record.stored_size = stored.size();
    out.blobs.insert(out.blobs.end(), stored.begin(), stored.end());
    detail::append_record(out.images, record);
  }
}

void encode_records(const detail::WritePlan& plan, StringTable& strings, Sections& out) {
  for (const Target& target : plan.targets) {
    const std::string name = target.name();
    detail::append_record(out.targets, TargetRecord{strings.intern(name), target.arch,
                                                    static_cast<std::uint8_t>(target.kind),
                                                    static_cast<std::uint8_t>(target.variant), 0});
  }
  std::uint32_t first_image = 0;
  for (std::uint32_t u = 0; u < plan.units.size(); ++u) {
    std::uint32_t count = 0;
    while (first_image + count < plan.images.size() && plan.images[first_image + count].unit == u) {
      ++count;
    }
    detail::append_record(out.units,
                          UnitRecord{strings.intern(plan.units[u]->source), first_image, count});
    first_image += count;
  }
  for (const detail::PlannedUnitSource& source : plan.unit_sources) {
    detail::append_record(out.unit_sources, UnitSourceRecord{source.unit, static_cast<std::uint32_t>(source.role),
                                                             strings.intern(source.source)});
  }
  std::uint32_t first_param = 0;
  for (const detail::PlannedKernel& planned : plan.kernels) {
    const PackageKernel& kernel = *planned.kernel;
    const bool known = (kernel.flags & k_kernel_params_known) != 0;
    const auto count = known ? static_cast<std::uint32_t>(kernel.params.size()) : 0;
    detail::append_record(
        out.kernels,
        KernelRecord{strings.intern(kernel.lowered_name), strings.intern(kernel.canonical_name),
                     planned.unit, first_param, count, kernel.flags});
    for (std::uint32_t i = 0; i < count; ++i) {
      detail::append_record(out.params, kernel.params[i]);
    }
    first_param += count;
  }
  for (std::uint32_t k = 0; k < plan.kernels.size(); ++k) {
    for (const std::uint32_t target : plan.kernels[k].targets) {
      detail::append_record(out.kernel_targets, KernelTargetRecord{k, target});
    }
  }
  std::vector<std::string_view> names;
  for (const detail::PlannedName& name : plan.names) {
    detail::append_record(out.names, NameRecord{strings.intern(name.name), name.kernel});
    names.push_back(name.name);
  }
  for (const NameIndexSlot slot : detail::build_name_index(names)) detail::append_record(out.name_index, slot);
  for (const detail::PlannedVariable& planned : plan.variables) {
    const PackageVariable& variable = *planned.variable;
    detail::append_record(
        out.variables,
        VariableRecord{strings.intern(planned.name), strings.intern(variable.lowered_name),
                       planned.unit, static_cast<std::uint32_t>(variable.kind), variable.size});
  }
  for (const PackageSource* source : plan.sources) {
    detail::append_record(out.sources, SourceRecord{strings.intern(source->path),
                                                    static_cast<std::uint32_t>(source->role), 0,
                                                    source->content_hash});
  }
  for (const detail::MetadataEntry* entry : plan.metadata) {
    detail::append_record(
        out.metadata, MetadataRecord{strings.intern(entry->first), strings.intern(entry->second)});
  }
}

// Lays out header, sections (16-byte aligned, zero padding) and TOC, then fills in the header.
Bytes assemble(const StringTable& strings, const Sections& s) {
  Bytes file(sizeof(FileHeader), std::byte{0});
  std::vector<TocEntry> toc;
  const auto place = [&](std::uint32_t kind, std::span<const std::byte> bytes,
                         std::uint32_t flags) {
    pad_to(file, k_section_alignment);
    toc.push_back(TocEntry{kind, flags, file.size(), bytes.size(), checksum(bytes)});
    file.insert(file.end(), bytes.begin(), bytes.end());
  };
  const auto place_known = [&](SectionKind kind, const Bytes& bytes) {
    place(static_cast<std::uint32_t>(kind), bytes, 0);
  };
  place_known(SectionKind::strings, strings.bytes());
  place_known(SectionKind::targets, s.targets);
  place_known(SectionKind::units, s.units);
  place_known(SectionKind::images, s.images);
  place_known(SectionKind::kernels, s.kernels);
  place_known(SectionKind::params, s.params);
  place_known(SectionKind::names, s.names);
  place_known(SectionKind::variables, s.variables);
  place_known(SectionKind::sources, s.sources);
  place_known(SectionKind::metadata, s.metadata);
  place_known(SectionKind::kernel_targets, s.kernel_targets);
  place_known(SectionKind::unit_sources, s.unit_sources);
  if (!s.carried_units.empty()) {   // only a package that carries sources has these
    place_known(SectionKind::carried_units, s.carried_units);
    place_known(SectionKind::carried_entries, s.carried_entries);
    place_known(SectionKind::source_texts, s.source_texts);
    place(static_cast<std::uint32_t>(SectionKind::text_blobs), s.text_blobs, k_section_verify_lazily);
  }
  place_known(SectionKind::name_index, s.name_index);
  place(static_cast<std::uint32_t>(SectionKind::blobs), s.blobs, k_section_verify_lazily);
  // After BLOBS: the pages cover everything before it.
  const std::uint64_t blobs_offset = toc.back().offset;
  place_known(SectionKind::index_pages, detail::encode_index_pages(file, sizeof(FileHeader), blobs_offset, k_index_page_size));

  pad_to(file, k_section_alignment);
  FileHeader header{};
  std::copy(k_magic.begin(), k_magic.end(), header.magic);
  header.version_major = k_version_major;
  header.version_minor = k_version_minor;
  header.header_size = sizeof(FileHeader);
  header.toc_offset = file.size();
  header.section_count = static_cast<std::uint32_t>(toc.size());
  for (const TocEntry& entry : toc) {
    detail::append_record(file, entry);
  }
  header.file_size = file.size();
  header.toc_checksum = checksum(std::span(file).subspan(header.toc_offset));
  std::memcpy(file.data(), &header, sizeof header);
  header.header_checksum = checksum(std::span(file).first(k_header_checksum_span));
  std::memcpy(file.data(), &header, sizeof header);
  return file;
}

}  // namespace

Result<std::vector<std::byte>> write_package(const PackageContents& contents, const WriteOptions& options) {
  Result<detail::WritePlan> plan = detail::plan_package(contents);
  if (!plan) return std::move(plan).error();
  StringTable strings;
  Sections sections;
  encode_records(*plan, strings, sections);
  encode_carried(*plan, options, strings, sections);
  KILN_TRY(strings.status());
  encode_images(*plan, options, sections);
  return assemble(strings, sections);
}

}  // namespace kiln::format
