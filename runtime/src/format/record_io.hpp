// Private to the format library: records as raw bytes, and facts about each section kind that
// the reader and the writer must agree on.
#pragma once

#include "layout.hpp"

#include <bit>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace kiln::format::detail {

// Records are copied to and from the file as they lie in memory, which is the file's byte order
// only on little-endian hosts (every host CUDA supports).
static_assert(std::endian::native == std::endian::little, "the package format is little-endian");

// Reads record `index` of a packed array. memcpy, not a cast: a package may sit at any address
// (an embedded array, a caller's buffer), so records may be unaligned. The caller checks bounds.
template <class T>
T load_record(std::span<const std::byte> bytes, std::size_t index = 0) {
  static_assert(std::is_trivially_copyable_v<T>);
  T value;
  std::memcpy(&value, bytes.data() + index * sizeof(T), sizeof(T));
  return value;
}

template <class T>
void append_record(std::vector<std::byte>& out, const T& value) {
  static_assert(std::is_trivially_copyable_v<T> && std::has_unique_object_representations_v<T>,
                "records must have no padding, or their bytes would not be deterministic");
  const auto* first = reinterpret_cast<const std::byte*>(&value);
  out.insert(out.end(), first, first + sizeof(T));
}

inline std::string_view as_chars(std::span<const std::byte> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// The kinds a file must contain, in the order the writer lays them out (INDEX_PAGES after BLOBS).
inline constexpr SectionKind k_required_kinds[] = {
    SectionKind::strings,  SectionKind::targets,        SectionKind::units,        SectionKind::images,
    SectionKind::kernels,  SectionKind::params,         SectionKind::names,        SectionKind::variables,
    SectionKind::sources,  SectionKind::metadata,       SectionKind::kernel_targets, SectionKind::unit_sources,
    SectionKind::name_index, SectionKind::blobs,        SectionKind::index_pages,
};

// Sections a file may lack: the carried sources', which only a package that carries sources has.
inline constexpr SectionKind k_optional_kinds[] = {SectionKind::carried_units, SectionKind::carried_entries,
                                                   SectionKind::source_texts, SectionKind::text_blobs};

inline constexpr bool is_known_kind(std::uint32_t kind) {
  return kind >= static_cast<std::uint32_t>(SectionKind::strings) &&
         kind <= static_cast<std::uint32_t>(SectionKind::index_pages);
}

// Bytes per record (a NAME_INDEX slot counts as one), or 0 for the sections that are not record
// arrays (STRINGS, BLOBS, TEXT_BLOBS, unknown).
inline constexpr std::size_t record_size(std::uint32_t kind) {
  switch (static_cast<SectionKind>(kind)) {
    case SectionKind::targets:
      return sizeof(TargetRecord);
    case SectionKind::units:
      return sizeof(UnitRecord);
    case SectionKind::images:
      return sizeof(ImageRecord);
    case SectionKind::kernels:
      return sizeof(KernelRecord);
    case SectionKind::params:
      return sizeof(ParamRecord);
    case SectionKind::names:
      return sizeof(NameRecord);
    case SectionKind::variables:
      return sizeof(VariableRecord);
    case SectionKind::sources:
      return sizeof(SourceRecord);
    case SectionKind::metadata:
      return sizeof(MetadataRecord);
    case SectionKind::kernel_targets:
      return sizeof(KernelTargetRecord);
    case SectionKind::unit_sources:
      return sizeof(UnitSourceRecord);
    case SectionKind::carried_units:
      return sizeof(CarriedUnitRecord);
    case SectionKind::carried_entries:
      return sizeof(CarriedEntryRecord);
    case SectionKind::source_texts:
      return sizeof(SourceTextRecord);
    case SectionKind::name_index:
      return sizeof(NameIndexSlot);
    default:
      return 0;
  }
}

// "KERNELS", or "kind 200" for a kind this version does not know; used in messages.
inline std::string section_name(std::uint32_t kind) {
  static constexpr std::string_view k_names[] = {"STRINGS",  "TARGETS",  "UNITS",          "IMAGES",
                                                 "KERNELS",  "PARAMS",   "NAMES",          "VARIABLES",
                                                 "SOURCES",  "METADATA", "BLOBS",          "KERNEL_TARGETS",
                                                 "UNIT_SOURCES", "CARRIED_UNITS", "CARRIED_ENTRIES",
                                                 "SOURCE_TEXTS", "TEXT_BLOBS", "NAME_INDEX", "INDEX_PAGES"};
  if (is_known_kind(kind)) {
    return std::string(k_names[kind - 1]);
  }
  return "kind " + std::to_string(kind);
}

}  // namespace kiln::format::detail
