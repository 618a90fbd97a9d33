// A deferred reader's checks of the small tables that decide many answers, each whole and once, in
// the words open() uses (table_check.cpp): TARGETS (which image a device takes) and the order of
// KERNEL_TARGETS (a kernel's records are found by binary search: one out of place would make a
// kernel seem to be in every image) before the first kernel is handed out; METADATA (a split
// package's keys, the NVRTC a package was built with) before it is read, at open.
#include "package_reader.hpp"

#include "limits.hpp"
#include "table_check.hpp"

#include <cstring>

namespace kiln::format {

using detail::at_record;
using detail::corrupt;
using detail::not_a_string;
using detail::out_of_order;
using detail::out_of_range;

namespace {

// The string bytes METADATA's check may read before it leaves the table to check_all(), which
// checks it in time linear in STRINGS. Real METADATA holds a few hundred bytes; keys or values that
// are suffixes of one long string would make the check below quadratic.
constexpr std::uint64_t k_metadata_bytes = 1u << 20;

}  // namespace

Status PackageReader::check_small_tables() const {
  if (m_targets.count > k_max_targets) {
    return corrupt(at_record(SectionKind::targets, k_max_targets) + "more than " + std::to_string(k_max_targets) +
                   " targets");
  }
  Target previous;
  for (std::uint32_t i = 0; i < m_targets.count; ++i) {
    const auto r = record<TargetRecord>(m_targets, i);
    // At most one name longer than a target's is read (it fails one rule or the other), so the work is bounded.
    const std::string_view name = string(r.name);
    if (name.data() == nullptr || std::memchr(name.data(), 0, name.size()) != nullptr) {
      return corrupt(at_record(SectionKind::targets, i) + not_a_string("name", r.name));
    }
    const Target stored{static_cast<TargetKind>(r.kind), r.arch, static_cast<TargetVariant>(r.variant)};
    const std::optional<Target> parsed = parse_target(name);
    if (!parsed || *parsed != stored) {
      return corrupt(at_record(SectionKind::targets, i) + "name '" + std::string(name) + "' does not match its fields");
    }
    if (i > 0 && !(previous < stored))
      return corrupt(at_record(SectionKind::targets, i) + out_of_order("kind, arch, variant"));
    previous = stored;
  }
  KernelTargetRecord before{};
  for (std::uint32_t i = 0; i < m_kernel_targets.count; ++i) {
    const auto r = record<KernelTargetRecord>(m_kernel_targets, i);
    const auto where = [i] { return at_record(SectionKind::kernel_targets, i); };
    if (r.kernel >= m_kernels.count)
      return corrupt(where() + out_of_range("kernel", r.kernel, m_kernels.count, SectionKind::kernels));
    if (r.target >= m_targets.count)
      return corrupt(where() + out_of_range("target", r.target, m_targets.count, SectionKind::targets));
    if (i > 0 && (before.kernel > r.kernel || (before.kernel == r.kernel && before.target >= r.target))) {
      return corrupt(where() + out_of_order("kernel, then target"));
    }
    before = r;
  }
  return {};
}

Status PackageReader::check_metadata() const {
  if (!m_deferred) return {};
  m_deferred->metadata_once.run([this] {
    std::optional<Status> checked_here = check_metadata_records();
    m_deferred->metadata = checked_here ? checked(std::move(*checked_here)) : check_all();
  });
  return m_deferred->metadata;
}

// Every key and value a string, the keys in order without duplicates; nullopt past k_metadata_bytes.
std::optional<Status> PackageReader::check_metadata_records() const {
  std::uint64_t read = 0;
  std::string_view previous;
  for (std::uint32_t i = 0; i < m_metadata.count; ++i) {
    const auto r = record<MetadataRecord>(m_metadata, i);
    read += std::uint64_t{r.key.length} + r.value.length;
    if (read > k_metadata_bytes) return std::nullopt;
    for (const auto& [field, ref] : {std::pair{"key", r.key}, std::pair{"value", r.value}}) {
      const std::string_view text = string(ref);
      if (text.data() == nullptr || std::memchr(text.data(), 0, text.size()) != nullptr) {
        return corrupt(at_record(SectionKind::metadata, i) + not_a_string(field, ref));
      }
    }
    const std::string_view key = string(r.key);
    if (i > 0 && !(previous < key)) return corrupt(at_record(SectionKind::metadata, i) + out_of_order("key"));
    previous = key;
  }
  return Status();
}

}  // namespace kiln::format
