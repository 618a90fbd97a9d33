#include "table_check.hpp"

#include "limits.hpp"
#include "names.hpp"
#include "record_io.hpp"
#include "string_index.hpp"
#include "table_invariants.hpp"
#include "target.hpp"
#include "carried_check.hpp"
#include "unit_sources_check.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

namespace kiln::format::detail {
namespace {

// Walks the tables in dependency order; each check_* returns false after recording the first
// failure, so run() stops there and the message names the exact record.
class Checker {
public:
  Checker(const Tables& tables, const StringIndex& strings) : m_t(tables), m_index(strings) {}

  Status run() {
    if (m_t.strings.empty() || m_t.strings[0] != std::byte{0}) {
      return corrupt("STRINGS section does not start with a NUL byte");
    }
    if (check_targets() && check_images() && check_units() && check_kernels() && check_kernel_targets() &&
        check_names() && check_variables() && check_sources() && check_metadata()) {
      return {};
    }
    return std::move(m_failure);
  }

private:
  bool fail(SectionKind kind, std::uint32_t i, const std::string& what) {
    m_failure = corrupt(at_record(kind, i) + what);
    return false;
  }

  bool string(SectionKind kind, std::uint32_t i, StrRef ref, const char* field) {
    // An embedded NUL would make the C API (which hands out the pointer) see a shorter string.
    return m_index.valid(ref) || fail(kind, i, not_a_string(field, ref));
  }

  bool index(SectionKind kind, std::uint32_t i, const char* field, std::uint32_t value,
             const RecordTable& table, SectionKind table_kind) {
    return value < table.count || fail(kind, i, out_of_range(field, value, table.count, table_kind));
  }

  // Sorted tables hold strictly increasing keys: sorted and free of duplicates in one test.
  bool increasing(SectionKind kind, std::uint32_t i, std::string_view previous,
                  std::string_view current, const char* key) {
    return i == 0 || previous < current || fail(kind, i, out_of_order(key));
  }

  std::string_view str(StrRef ref) const { return string_at(m_t.strings, ref); }

  // Before a sorted table's keys are compared: each is a valid string, and no two share bytes of
  // STRINGS (end at the same NUL). Kiln stores each distinct string once, so keys of one table
  // never do; without this, keys that are suffixes of one long string make the order check (and
  // every later use of the keys) quadratic in the size of STRINGS.
  template <class Record, class Key>
  bool separate_keys(SectionKind kind, const RecordTable& table, Key key, const char* field) {
    // A small table (a cache entry's, most packages') is compared pair by pair on the stack: the two
    // vectors below were about a quarter of the table checks of a one-kernel cache entry.
    if (table.count <= k_small_table) {
      StrRef refs[k_small_table];
      for (std::uint32_t i = 0; i < table.count; ++i) {
        refs[i] = key(load_record<Record>(table.bytes, i));
        if (!string(kind, i, refs[i], field)) return false;
        for (std::uint32_t j = 0; j < i; ++j) {
          if (StringIndex::end_of(refs[j]) == StringIndex::end_of(refs[i]) && refs[j].offset != refs[i].offset) {
            return shares_bytes(kind, i, j, field);
          }
        }
      }
      return true;
    }
    std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> ends;  // end, offset, record
    ends.reserve(table.count);
    for (std::uint32_t i = 0; i < table.count; ++i) {
      const StrRef ref = key(load_record<Record>(table.bytes, i));
      if (!string(kind, i, ref, field)) {
        return false;
      }
      ends.emplace_back(StringIndex::end_of(ref), ref.offset, i);
    }
    // Usually no two keys end at the same NUL: one bit per byte of STRINGS says so in linear time.
    // Only where two do is the list sorted (a sort was a fifth of opening a package of 10,000
    // kernels), to tell a key given twice (the order check's error) from two that share bytes.
    std::vector<std::uint64_t> seen(m_t.strings.size() / 64 + 1, 0);
    bool twice = false;
    for (const auto& [end, offset, record] : ends) {
      std::uint64_t& word = seen[end / 64];
      const std::uint64_t bit = std::uint64_t{1} << (end % 64);
      twice = twice || (word & bit) != 0;
      word |= bit;
    }
    if (!twice) return true;
    std::sort(ends.begin(), ends.end());
    for (std::size_t i = 1; i < ends.size(); ++i) {
      const auto& [end, offset, record] = ends[i];
      const auto& [previous_end, previous_offset, previous] = ends[i - 1];
      // The same reference twice is a duplicate key, which the order check reports as such.
      if (end == previous_end && offset != previous_offset) return shares_bytes(kind, record, previous, field);
    }
    return true;
  }

  static constexpr std::uint32_t k_small_table = 16;

  bool shares_bytes(SectionKind kind, std::uint32_t record, std::uint32_t other, const char* field) {
    return fail(kind, std::max(record, other),
                std::string(field) + " shares its bytes in STRINGS with record " +
                    std::to_string(std::min(record, other)) + "'s");
  }

  bool check_targets() {
    const auto kind = SectionKind::targets;
    if (m_t.targets.count > k_max_targets) {
      return fail(kind, k_max_targets, "more than " + std::to_string(k_max_targets) + " targets");
    }
    Target previous;
    for (std::uint32_t i = 0; i < m_t.targets.count; ++i) {
      const auto r = load_record<TargetRecord>(m_t.targets.bytes, i);
      if (!string(kind, i, r.name, "name")) {
        return false;
      }
      const Target stored{static_cast<TargetKind>(r.kind), r.arch,
                          static_cast<TargetVariant>(r.variant)};
      const std::optional<Target> parsed = parse_target(str(r.name));
      if (!parsed || *parsed != stored) {
        return fail(kind, i, "name '" + std::string(str(r.name)) + "' does not match its fields");
      }
      if (i > 0 && !(previous < stored)) {
        return fail(kind, i, out_of_order("kind, arch, variant"));
      }
      previous = stored;
    }
    return true;
  }

  bool check_images() {
    const auto kind = SectionKind::images;
    for (std::uint32_t i = 0; i < m_t.images.count; ++i) {
      const auto r = load_record<ImageRecord>(m_t.images.bytes, i);
      if (!index(kind, i, "unit", r.unit, m_t.units, SectionKind::units) ||
          !index(kind, i, "target", r.target, m_t.targets, SectionKind::targets)) {
        return false;
      }
      const auto target = load_record<TargetRecord>(m_t.targets.bytes, r.target);
      if (target.kind == static_cast<std::uint8_t>(TargetKind::sass) && r.ptx_version != 0) {
        return fail(kind, i, "a cubin with a PTX version (" + std::to_string(r.ptx_version) + ")");
      }
      if (r.offset % k_blob_alignment != 0) {
        return fail(kind, i,
                    "offset " + std::to_string(r.offset) + " is not a multiple of " +
                        std::to_string(k_blob_alignment));
      }
      if (r.offset > m_t.blobs.size() || r.stored_size > m_t.blobs.size() - r.offset) {
        return fail(kind, i,
                    "bytes [" + std::to_string(r.offset) + ", +" + std::to_string(r.stored_size) +
                        ") lie outside BLOBS (" + std::to_string(m_t.blobs.size()) + " bytes)");
      }
    }
    return true;
  }

  // UNITS partitions IMAGES: unit u owns the next image_count records, which name u and are in
  // increasing target order (at most one image per target).
  bool check_units() {
    const auto kind = SectionKind::units;
    if (!separate_keys<UnitRecord>(kind, m_t.units, [](const UnitRecord& r) { return r.source; }, "source")) {
      return false;
    }
    std::uint64_t next_image = 0;
    std::string_view previous;
    for (std::uint32_t i = 0; i < m_t.units.count; ++i) {
      const auto r = load_record<UnitRecord>(m_t.units.bytes, i);
      if (!string(kind, i, r.source, "source") ||
          !increasing(kind, i, previous, str(r.source), "source path")) {
        return false;
      }
      previous = str(r.source);
      if (r.first_image != next_image || r.image_count > m_t.images.count - next_image) {
        return fail(
            kind, i,
            "images [" + std::to_string(r.first_image) + ", +" + std::to_string(r.image_count) +
                ") do not follow the previous unit's (expected " + std::to_string(next_image) +
                ", " + std::to_string(m_t.images.count) + " IMAGES records)");
      }
      for (std::uint32_t j = r.first_image; j < r.first_image + r.image_count; ++j) {
        const auto image = load_record<ImageRecord>(m_t.images.bytes, j);
        if (image.unit != i) {
          return fail(SectionKind::images, j,
                      "unit " + std::to_string(image.unit) +
                          " is not the unit whose range holds it (" + std::to_string(i) + ")");
        }
        if (j > r.first_image &&
            load_record<ImageRecord>(m_t.images.bytes, j - 1).target >= image.target) {
          return fail(SectionKind::images, j,
                      "out of order or a duplicate (a unit's images are sorted by target)");
        }
      }
      next_image += r.image_count;
    }
    if (next_image != m_t.images.count) {
      return fail(SectionKind::images, static_cast<std::uint32_t>(next_image),
                  "belongs to no unit");
    }
    return true;
  }

  bool check_kernels() {
    const auto kind = SectionKind::kernels;
    if (!separate_keys<KernelRecord>(kind, m_t.kernels, [](const KernelRecord& r) { return r.lowered_name; },
                                     "lowered_name") ||
        !separate_keys<KernelRecord>(kind, m_t.kernels, [](const KernelRecord& r) { return r.canonical_name; },
                                     "canonical_name")) {
      return false;
    }
    std::string_view previous;
    for (std::uint32_t i = 0; i < m_t.kernels.count; ++i) {
      const auto r = load_record<KernelRecord>(m_t.kernels.bytes, i);
      if (!string(kind, i, r.lowered_name, "lowered_name") ||
          !string(kind, i, r.canonical_name, "canonical_name") ||
          !index(kind, i, "unit", r.unit, m_t.units, SectionKind::units) ||
          !increasing(kind, i, previous, str(r.lowered_name), "lowered name")) {
        return false;
      }
      previous = str(r.lowered_name);
      if (!check_variant_name(i, r)) {
        return false;
      }
      if (r.first_param > m_t.params.count || r.param_count > m_t.params.count - r.first_param) {
        return fail(kind, i,
                    "parameters [" + std::to_string(r.first_param) + ", +" +
                        std::to_string(r.param_count) + ") lie outside PARAMS (" +
                        std::to_string(m_t.params.count) + " records)");
      }
    }
    return true;
  }

  // The variant flag and a '/' in the lowered name go together: a reader takes the symbol
  // after the '/' only when the flag says so, and a plain symbol never holds one.
  bool check_variant_name(std::uint32_t i, const KernelRecord& r) {
    const std::string_view stored = str(r.lowered_name);
    // Built only for a message: this runs for every kernel of every open.
    const auto shown = [&] { return "kernel '" + std::string(stored.substr(0, 200)) + "'"; };
    if ((r.flags & k_kernel_variant) != 0) {
      return split_variant_name(stored) ||
             fail(SectionKind::kernels, i,
                  shown() + " is flagged as a variant kernel, but its lowered name is not '<variant>/<symbol>'");
    }
    return stored.find('/') == std::string_view::npos ||
           fail(SectionKind::kernels, i, shown() + " has a '/' in its lowered name but is not flagged as a variant kernel");
  }

  // Sorted by (kernel, target) without duplicates, and each target one the kernel's unit has an
  // image for: a reader may then load that image for the kernel. A kernel in another file has none.
  bool check_kernel_targets() {
    const auto kind = SectionKind::kernel_targets;
    for (std::uint32_t i = 0; i < m_t.kernel_targets.count; ++i) {
      const auto r = load_record<KernelTargetRecord>(m_t.kernel_targets.bytes, i);
      if (!index(kind, i, "kernel", r.kernel, m_t.kernels, SectionKind::kernels) ||
          !index(kind, i, "target", r.target, m_t.targets, SectionKind::targets)) {
        return false;
      }
      if (i > 0) {
        const auto previous = load_record<KernelTargetRecord>(m_t.kernel_targets.bytes, i - 1);
        if (previous.kernel > r.kernel || (previous.kernel == r.kernel && previous.target >= r.target)) {
          return fail(kind, i, out_of_order("kernel, then target"));
        }
      }
      const auto kernel = load_record<KernelRecord>(m_t.kernels.bytes, r.kernel);
      if ((kernel.flags & k_kernel_in_other_file) != 0) {
        return fail(kind, i, "kernel " + std::to_string(r.kernel) + " is flagged as in another file");
      }
      const auto unit = load_record<UnitRecord>(m_t.units.bytes, kernel.unit);
      bool imaged = false;
      for (std::uint32_t j = unit.first_image; j < unit.first_image + unit.image_count && !imaged; ++j) {
        imaged = load_record<ImageRecord>(m_t.images.bytes, j).target == r.target;
      }
      if (!imaged) {
        return fail(kind, i,
                    "target " + std::to_string(r.target) + " has no image in unit " + std::to_string(kernel.unit) +
                        ", the unit of kernel " + std::to_string(r.kernel));
      }
    }
    return true;
  }

  bool check_names() {
    const auto kind = SectionKind::names;
    if (!separate_keys<NameRecord>(kind, m_t.names, [](const NameRecord& r) { return r.name; }, "name")) {
      return false;
    }
    std::string_view previous;
    for (std::uint32_t i = 0; i < m_t.names.count; ++i) {
      const auto r = load_record<NameRecord>(m_t.names.bytes, i);
      if (!string(kind, i, r.name, "name") ||
          !index(kind, i, "kernel", r.kernel, m_t.kernels, SectionKind::kernels) ||
          !increasing(kind, i, previous, str(r.name), "name")) {
        return false;
      }
      previous = str(r.name);
    }
    return true;
  }

  bool check_variables() {
    const auto kind = SectionKind::variables;
    if (!separate_keys<VariableRecord>(kind, m_t.variables, [](const VariableRecord& r) { return r.name; }, "name")) {
      return false;
    }
    std::string_view previous;
    for (std::uint32_t i = 0; i < m_t.variables.count; ++i) {
      const auto r = load_record<VariableRecord>(m_t.variables.bytes, i);
      if (!string(kind, i, r.name, "name") || !string(kind, i, r.lowered_name, "lowered_name") ||
          !index(kind, i, "unit", r.unit, m_t.units, SectionKind::units) ||
          !increasing(kind, i, previous, str(r.name), "name")) {
        return false;
      }
      previous = str(r.name);
      if (r.kind > static_cast<std::uint32_t>(VariableKind::managed)) {
        return fail(kind, i, "unknown variable kind " + std::to_string(r.kind));
      }
    }
    return true;
  }

  bool check_sources() {
    const auto kind = SectionKind::sources;
    if (!separate_keys<SourceRecord>(kind, m_t.sources, [](const SourceRecord& r) { return r.path; }, "path")) {
      return false;
    }
    std::string_view previous;
    for (std::uint32_t i = 0; i < m_t.sources.count; ++i) {
      const auto r = load_record<SourceRecord>(m_t.sources.bytes, i);
      if (!string(kind, i, r.path, "path") || !increasing(kind, i, previous, str(r.path), "path")) {
        return false;
      }
      previous = str(r.path);
      if (r.role > static_cast<std::uint32_t>(SourceRole::toolkit_headers)) {
        return fail(kind, i, "unknown source role " + std::to_string(r.role));
      }
    }
    return true;
  }

  bool check_metadata() {
    const auto kind = SectionKind::metadata;
    if (!separate_keys<MetadataRecord>(kind, m_t.metadata, [](const MetadataRecord& r) { return r.key; }, "key")) {
      return false;
    }
    std::string_view previous;
    for (std::uint32_t i = 0; i < m_t.metadata.count; ++i) {
      const auto r = load_record<MetadataRecord>(m_t.metadata.bytes, i);
      if (!string(kind, i, r.key, "key") || !string(kind, i, r.value, "value") ||
          !increasing(kind, i, previous, str(r.key), "key")) {
        return false;
      }
      previous = str(r.key);
    }
    return true;
  }

  const Tables& m_t;
  const StringIndex& m_index;
  Status m_failure;
};

}  // namespace

Status corrupt(std::string message) { return fail(KILN_STATUS_CORRUPT, std::move(message)); }

std::string at_record(SectionKind kind, std::uint32_t i) {
  return section_name(static_cast<std::uint32_t>(kind)) + " record " + std::to_string(i) + ": ";
}

std::string out_of_range(const char* field, std::uint32_t value, std::uint32_t count, SectionKind table) {
  return std::string(field) + " " + std::to_string(value) + " is out of range (" + std::to_string(count) + " " +
         section_name(static_cast<std::uint32_t>(table)) + " records)";
}

std::string not_a_string(const char* field, StrRef ref) {
  return std::string(field) + " (offset " + std::to_string(ref.offset) + ", length " + std::to_string(ref.length) +
         ") is not a NUL-terminated string inside STRINGS";
}

std::string out_of_order(const char* key) {
  return std::string("out of order or a duplicate (the table is sorted by ") + key + ")";
}

std::string_view string_at(std::span<const std::byte> strings, StrRef ref) {
  // Bounds only: check_tables has already checked termination for every reference in the file.
  if (ref.offset >= strings.size() || ref.length >= strings.size() - ref.offset) {
    return {};
  }
  return {reinterpret_cast<const char*>(strings.data()) + ref.offset, ref.length};
}

Status check_tables(const Tables& tables) {
  const StringIndex index(tables.strings);
  KILN_TRY(Checker(tables, index).run());
  KILN_TRY(check_unit_sources(tables, index));
  KILN_TRY(check_carried(tables, index));
  return check_invariants(tables);
}

}  // namespace kiln::format::detail
