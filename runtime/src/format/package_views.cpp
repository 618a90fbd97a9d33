// PackageReader's accessors, look-ups and image loading. open() has checked every reference, so
// these only guard against a caller's out-of-range index (returning an empty view) and never fail.
// A deferred reader's have not been checked: each read goes through record() and string(), which
// load the pages it touches and keep it inside the buffer.
#include "package_reader.hpp"

#include "name_index.hpp"

#include "checksum.hpp"
#include "image_codec.hpp"
#include "names.hpp"
#include "record_io.hpp"
#include "table_check.hpp"

#include <cstring>

namespace kiln::format {
namespace {

// Binary search over a table sorted by the string key_of(i) returns (memcmp order).
template <class Table, class KeyOf>
std::optional<std::uint32_t> search(const Table& table, std::string_view key, KeyOf key_of) {
  std::uint32_t low = 0;
  std::uint32_t high = table.count;
  while (low < high) {
    const std::uint32_t mid = low + (high - low) / 2;
    if (key_of(mid) < key) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  if (low < table.count && key_of(low) == key) {
    return low;
  }
  return std::nullopt;
}

}  // namespace

ParamRecord KernelView::param(std::uint32_t i) const {
  if (i >= param_count || params.size() < (std::size_t{i} + 1) * sizeof(ParamRecord)) {
    return ParamRecord{};
  }
  return detail::load_record<ParamRecord>(params, i);
}

std::uint32_t PackageReader::target_count() const {
  return m_targets.count;
}
std::uint32_t PackageReader::unit_count() const {
  return m_units.count;
}
std::uint32_t PackageReader::image_count() const {
  return m_images.count;
}
std::uint32_t PackageReader::kernel_count() const {
  return m_kernels.count;
}
std::uint32_t PackageReader::name_count() const {
  return m_names.count;
}
std::uint32_t PackageReader::variable_count() const {
  return m_variables.count;
}
std::uint32_t PackageReader::source_count() const {
  return m_sources.count;
}
std::uint32_t PackageReader::metadata_count() const {
  return m_metadata.count;
}

TargetView PackageReader::target(std::uint32_t i) const {
  const auto r = record<TargetRecord>(m_targets, i);
  return {string(r.name),
          Target{static_cast<TargetKind>(r.kind), r.arch, static_cast<TargetVariant>(r.variant)}};
}

UnitView PackageReader::unit(std::uint32_t i) const {
  const auto r = record<UnitRecord>(m_units, i);
  return {string(r.source), r.first_image, r.image_count};
}

ImageView PackageReader::image(std::uint32_t i) const {
  const auto r = record<ImageRecord>(m_images, i);
  return {
      i,          r.unit,     r.target,     static_cast<ImageEncoding>(r.encoding), r.stored_size,
      r.raw_size, r.checksum, r.ptx_version};
}

KernelView PackageReader::kernel(std::uint32_t i) const {
  const auto r = record<KernelRecord>(m_kernels, i);
  const std::string_view stored = string(r.lowered_name);
  KernelView view{i, stored, string(r.canonical_name), {}, stored, r.unit, r.flags, {}, 0};
  // open() has checked that a flagged kernel's name splits.
  if (const auto split = (r.flags & k_kernel_variant) != 0 ? split_variant_name(stored) : std::nullopt) {
    view.lowered_name = split->symbol;
    view.variant = split->variant;
  }
  // A deferred reader's record is unchecked: parameters outside PARAMS are none.
  if (i < m_kernels.count && r.first_param <= m_params.count && r.param_count <= m_params.count - r.first_param) {
    view.params = loaded(m_params.bytes.subspan(std::size_t{r.first_param} * sizeof(ParamRecord),
                                                std::size_t{r.param_count} * sizeof(ParamRecord)));
    view.param_count = view.params.empty() ? 0 : r.param_count;
  }
  return view;
}

NameView PackageReader::name(std::uint32_t i) const {
  const auto r = record<NameRecord>(m_names, i);
  return {string(r.name), r.kernel};
}

VariableView PackageReader::variable(std::uint32_t i) const {
  const auto r = record<VariableRecord>(m_variables, i);
  return {string(r.name), string(r.lowered_name),
          r.unit, static_cast<VariableKind>(r.kind), r.size};
}

SourceView PackageReader::source(std::uint32_t i) const {
  const auto r = record<SourceRecord>(m_sources, i);
  return {string(r.path), static_cast<SourceRole>(r.role), r.content_hash};
}

MetadataView PackageReader::metadata(std::uint32_t i) const {
  const auto r = record<MetadataRecord>(m_metadata, i);
  return {string(r.key), string(r.value)};
}

std::optional<std::string_view> PackageReader::metadata_value(std::string_view key) const {
  const auto found = search(m_metadata, key, [&](std::uint32_t i) { return metadata(i).key; });
  if (!found) {
    return std::nullopt;
  }
  return metadata(*found).value;
}

// The first KERNEL_TARGETS record of `kernel` or later (the table is sorted by kernel, then target).
std::uint32_t PackageReader::first_target_record(std::uint32_t kernel) const {
  std::uint32_t low = 0;
  std::uint32_t high = m_kernel_targets.count;
  while (low < high) {
    const std::uint32_t mid = low + (high - low) / 2;
    if (record<KernelTargetRecord>(m_kernel_targets, mid).kernel < kernel) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low;
}

bool PackageReader::kernel_in_other_file(std::uint32_t kernel) const {
  return kernel < m_kernels.count && (record<KernelRecord>(m_kernels, kernel).flags & k_kernel_in_other_file) != 0;
}

bool PackageReader::kernel_in_every_image(std::uint32_t kernel) const {
  if (kernel_in_other_file(kernel)) {
    return false;
  }
  const std::uint32_t at = first_target_record(kernel);
  return at == m_kernel_targets.count || record<KernelTargetRecord>(m_kernel_targets, at).kernel != kernel;
}

bool PackageReader::kernel_in_target(std::uint32_t kernel, std::uint32_t target) const {
  if (kernel_in_every_image(kernel)) {
    return true;
  }
  if (kernel_in_other_file(kernel)) {
    return false;
  }
  for (std::uint32_t at = first_target_record(kernel); at < m_kernel_targets.count; ++at) {
    const auto r = record<KernelTargetRecord>(m_kernel_targets, at);
    if (r.kernel != kernel) {
      break;
    }
    if (r.target == target) {
      return true;
    }
  }
  return false;
}

std::vector<std::uint32_t> PackageReader::kernel_targets(std::uint32_t kernel) const {
  std::vector<std::uint32_t> targets;
  if (kernel >= m_kernels.count) {
    return targets;
  }
  if (kernel_in_every_image(kernel)) {
    const UnitView u = unit(this->kernel(kernel).unit);
    for (std::uint32_t i = 0; i < u.image_count; ++i) {
      targets.push_back(image(u.first_image + i).target);
    }
    return targets;
  }
  for (std::uint32_t at = first_target_record(kernel); at < m_kernel_targets.count; ++at) {
    const auto r = record<KernelTargetRecord>(m_kernel_targets, at);
    if (r.kernel != kernel) {
      break;
    }
    targets.push_back(r.target);
  }
  return targets;
}

std::optional<NameHit> PackageReader::find_name(std::string_view name) const {
  NameKey normalized;
  const std::string_view key = normalized.of(name);
  // NAME_INDEX first: a slot counts only if its record has the name; the search decides misses.
  // A record whose length differs is passed over without reading its name's bytes.
  std::uint32_t kernel = 0;
  const auto named = [&](std::uint32_t i) {
    if (i >= m_names.count) return false;
    const auto r = record<NameRecord>(m_names, i);
    kernel = r.kernel;
    return r.name.length == key.size() && string(r.name) == key;
  };
  const auto slot_present = [&](std::size_t at) {
    return present(m_name_index.bytes.subspan(at * sizeof(NameIndexSlot), sizeof(NameIndexSlot)));
  };
  if (const auto i = detail::probe_name_index(m_name_index.bytes, m_name_index.count, key, named, slot_present)) {
    return NameHit{*i, kernel};
  }
  const std::optional<std::uint32_t> found = search(m_names, key, [&](std::uint32_t i) { return this->name(i).name; });
  if (!found) {
    return std::nullopt;
  }
  return NameHit{*found, this->name(*found).kernel};
}

Status PackageReader::check_name_index() const {
  if (m_name_index.count < detail::name_index_size(m_names.count) / 2 || m_name_index.count > UINT32_MAX / 2 ||
      (m_name_index.count & (m_name_index.count - 1)) != 0)
    return refused(KILN_STATUS_CORRUPT, "NAME_INDEX has " + std::to_string(m_name_index.count) + " slots for " +
                                            std::to_string(m_names.count) +
                                            " names (a power of two, at least twice as many, is expected)");
  for (std::uint32_t i = 0; i < m_names.count; ++i) {
    const std::string_view wanted = name(i).name;
    const auto named = [&](std::uint32_t k) { return k < m_names.count && name(k).name == wanted; };
    const auto slot_present = [&](std::size_t at) {
      return present(m_name_index.bytes.subspan(at * sizeof(NameIndexSlot), sizeof(NameIndexSlot)));
    };
    if (detail::probe_name_index(m_name_index.bytes, m_name_index.count, wanted, named, slot_present) != i)
      return refused(KILN_STATUS_CORRUPT, "NAME_INDEX does not find the name '" + std::string(wanted.substr(0, 200)) +
                                              "' (lookups still find it by searching NAMES)");
  }
  return {};
}

std::optional<std::uint32_t> PackageReader::find_variable(std::string_view name) const {
  NameKey normalized;
  const std::string_view key = normalized.of(name);
  return search(m_variables, key, [&](std::uint32_t i) { return variable(i).name; });
}

std::span<const std::byte> PackageReader::stored_image(std::uint32_t image) const {
  if (image >= m_images.count) {
    return {};
  }
  const auto r = record<ImageRecord>(m_images, image);
  if (r.offset > m_blobs.size() || r.stored_size > m_blobs.size() - r.offset) return {};   // deferred: unchecked
  return m_blobs.subspan(r.offset, r.stored_size);
}

Result<std::span<const std::byte>> PackageReader::image_bytes(std::uint32_t image,
                                                             std::vector<std::byte>& scratch) const {
  scratch.clear();
  if (image >= m_images.count) {
    return refused(KILN_STATUS_CORRUPT, "there is no image " + std::to_string(image) + " (the package has " +
                                            std::to_string(m_images.count) + ")");
  }
  const auto r = record<ImageRecord>(m_images, image);
  // Messages are built only on failure: this runs on the first-launch path.
  const auto fail = [&](const std::string& why) {
    scratch.clear();
    const std::string_view target_name = target(r.target).name;
    return kiln::fail(KILN_STATUS_IMAGE_CORRUPT,
                      "image " + std::string(unit(r.unit).source) + " [" + std::string(target_name) + "] " + why,
                      Location{.file = m_label, .target = std::string(target_name)});
  };
  std::span<const std::byte> out;
  const std::span<const std::byte> stored = stored_image(image);
  switch (static_cast<ImageEncoding>(r.encoding)) {
    case ImageEncoding::raw:
      if (r.raw_size != r.stored_size) {
        return fail("is stored raw but its raw size " + std::to_string(r.raw_size) +
                    " differs from its stored size " + std::to_string(r.stored_size));
      }
      out = stored;
      break;
    case ImageEncoding::zstd:
      if (Status decoded = detail::zstd_decompress(stored, r.raw_size, scratch); !decoded) {
        return fail("does not decode: " + decoded.error().message);
      }
      out = scratch;
      break;
    default:
      return fail("has an unknown encoding " + std::to_string(r.encoding));
  }
  if (m_checksums == Checksums::check && checksum(out) != r.checksum) {
    return fail("fails its checksum");
  }
  return out;
}

Result<std::vector<std::byte>> PackageReader::read_image(std::uint32_t image) const {
  std::vector<std::byte> out;
  Result<std::span<const std::byte>> bytes = image_bytes(image, out);
  if (!bytes) return std::move(bytes).error();
  if (bytes->data() != out.data()) out.assign(bytes->begin(), bytes->end());
  return out;
}

std::span<const std::byte> PackageReader::toc_bytes() const {
  if (m_bytes.size() < sizeof(FileHeader)) {
    return {};
  }
  const auto header = detail::load_record<FileHeader>(m_bytes);
  return m_bytes.subspan(header.toc_offset, std::size_t{header.section_count} * sizeof(TocEntry));
}

std::uint32_t PackageReader::section_count() const {
  return static_cast<std::uint32_t>(toc_bytes().size() / sizeof(TocEntry));
}

TocEntry PackageReader::section(std::uint32_t i) const {
  if (i >= section_count()) {
    return TocEntry{};
  }
  return detail::load_record<TocEntry>(toc_bytes(), i);
}

Status PackageReader::verify_all_sections() const {
  if (m_pages && !m_pages->load_all()) return page_error();
  for (std::uint32_t i = 0; i < section_count(); ++i) {
    const TocEntry entry = section(i);
    if (checksum(m_bytes.subspan(entry.offset, entry.size)) != entry.checksum) {
      return refused(KILN_STATUS_CORRUPT, detail::section_name(entry.kind) + " section checksum mismatch");
    }
  }
  return {};
}

}  // namespace kiln::format
