// A deferred reader's checks at first use (package_reader.hpp): what using one kernel trusts, the
// same rules open() applies to every record (table_check.cpp), here for that kernel's records only.
// The rules that span whole tables (order, uniqueness, every name findable) wait for check_all().
#include "package_reader.hpp"

#include "names.hpp"
#include "record_io.hpp"
#include "table_invariants.hpp"

#include <cstring>

namespace kiln::format {
namespace {

std::string at_record(SectionKind kind, std::uint32_t i) {
  return detail::section_name(static_cast<std::uint32_t>(kind)) + " record " + std::to_string(i) + ": ";
}

std::string out_of_range(const char* field, std::uint32_t value, std::uint32_t count, SectionKind table) {
  return std::string(field) + " " + std::to_string(value) + " is out of range (" + std::to_string(count) + " " +
         detail::section_name(static_cast<std::uint32_t>(table)) + " records)";
}

std::string bad_string(const char* field, StrRef ref) {
  return std::string(field) + " (offset " + std::to_string(ref.offset) + ", length " + std::to_string(ref.length) +
         ") is not a NUL-terminated string inside STRINGS";
}

}  // namespace

ReadError PackageReader::check_kernel(std::uint32_t i) const {
  if (!m_deferred) return {};
  if (i < m_kernels.count && m_deferred->kernel_checked[i].load(std::memory_order_acquire) != 0) return {};
  std::string problem = kernel_problem(i);
  // A page that could not be read gives zeros to whatever reads it: its failure is the answer.
  if (ReadError pages = page_error()) return pages;
  if (!problem.empty()) return {ReadErrorCode::corrupt, m_label + ": " + problem};
  m_deferred->kernel_checked[i].store(1, std::memory_order_release);
  return {};
}

std::string PackageReader::kernel_problem(std::uint32_t i) const {
  if (i >= m_kernels.count) return "kernel " + out_of_range("index", i, m_kernels.count, SectionKind::kernels);
  if (m_strings.empty() || !present(m_strings.first(1)) || m_strings[0] != std::byte{0}) {
    return "STRINGS section does not start with a NUL byte";
  }
  // Messages are built only on failure: this runs on each kernel's first lookup.
  const auto where = [i] { return at_record(SectionKind::kernels, i); };
  const auto r = record<KernelRecord>(m_kernels, i);
  const auto valid = [&](StrRef ref) {
    const std::string_view text = string(ref);
    return text.data() != nullptr && std::memchr(text.data(), 0, text.size()) == nullptr;
  };
  if (!valid(r.lowered_name)) return where() + bad_string("lowered_name", r.lowered_name);
  if (!valid(r.canonical_name)) return where() + bad_string("canonical_name", r.canonical_name);
  if (r.unit >= m_units.count) return where() + out_of_range("unit", r.unit, m_units.count, SectionKind::units);
  if (r.first_param > m_params.count || r.param_count > m_params.count - r.first_param) {
    return where() + "parameters [" + std::to_string(r.first_param) + ", +" + std::to_string(r.param_count) +
           ") lie outside PARAMS (" + std::to_string(m_params.count) + " records)";
  }
  const std::string_view stored = string(r.lowered_name);
  const auto shown = [&] { return "kernel '" + std::string(stored.substr(0, 200)) + "'"; };
  if ((r.flags & k_kernel_variant) != 0 && !split_variant_name(stored)) {
    return where() + shown() + " is flagged as a variant kernel, but its lowered name is not '<variant>/<symbol>'";
  }
  if ((r.flags & k_kernel_variant) == 0 && stored.find('/') != std::string_view::npos) {
    return where() + shown() + " has a '/' in its lowered name but is not flagged as a variant kernel";
  }
  // A unit holds many kernels: its checks run once.
  if (m_deferred->unit_checked[r.unit].load(std::memory_order_acquire) == 0) {
    if (std::string problem = unit_problem(r.unit); !problem.empty()) return problem;
    if (!page_error()) m_deferred->unit_checked[r.unit].store(1, std::memory_order_release);
  }
  // Its KERNEL_TARGETS records: in order, each a target its unit has an image for.
  const auto unit = record<UnitRecord>(m_units, r.unit);
  std::uint32_t previous = 0;
  for (std::uint32_t at = first_target_record(i); at < m_kernel_targets.count; ++at) {
    const auto t = record<KernelTargetRecord>(m_kernel_targets, at);
    if (t.kernel != i) break;
    const auto here = [at] { return at_record(SectionKind::kernel_targets, at); };
    if ((r.flags & k_kernel_in_other_file) != 0) {
      return here() + "kernel " + std::to_string(i) + " is flagged as in another file (1.5)";
    }
    if (t.target >= m_targets.count) return here() + out_of_range("target", t.target, m_targets.count, SectionKind::targets);
    if (at > 0 && t.target <= previous && record<KernelTargetRecord>(m_kernel_targets, at - 1).kernel == i) {
      return here() + "out of order or a duplicate (the table is sorted by kernel, then target)";
    }
    previous = t.target;
    bool imaged = false;
    for (std::uint32_t j = unit.first_image; j < unit.first_image + unit.image_count && !imaged; ++j) {
      imaged = record<ImageRecord>(m_images, j).target == t.target;
    }
    if (!imaged) {
      return here() + "target " + std::to_string(t.target) + " has no image in unit " + std::to_string(r.unit) +
             ", the unit of kernel " + std::to_string(i);
    }
  }
  return {};
}

// A unit's record, its images (which name it, in target order) and their targets.
std::string PackageReader::unit_problem(std::uint32_t u) const {
  const auto r = record<UnitRecord>(m_units, u);
  const std::string_view source = string(r.source);
  if (source.data() == nullptr || std::memchr(source.data(), 0, source.size()) != nullptr) {
    return at_record(SectionKind::units, u) + bad_string("source", r.source);
  }
  if (r.first_image > m_images.count || r.image_count > m_images.count - r.first_image) {
    return at_record(SectionKind::units, u) + "images [" + std::to_string(r.first_image) + ", +" +
           std::to_string(r.image_count) + ") lie outside IMAGES (" + std::to_string(m_images.count) + " records)";
  }
  for (std::uint32_t j = r.first_image; j < r.first_image + r.image_count; ++j) {
    const auto image = record<ImageRecord>(m_images, j);
    const auto where = [j] { return at_record(SectionKind::images, j); };
    if (image.unit != u) {
      return where() + "unit " + std::to_string(image.unit) + " is not the unit whose range holds it (" +
             std::to_string(u) + ")";
    }
    if (image.target >= m_targets.count) return where() + out_of_range("target", image.target, m_targets.count, SectionKind::targets);
    if (j > r.first_image && record<ImageRecord>(m_images, j - 1).target >= image.target) {
      return where() + "out of order or a duplicate (a unit's images are sorted by target)";
    }
    const auto target = record<TargetRecord>(m_targets, image.target);
    const std::string_view name = string(target.name);
    const std::optional<Target> parsed = name.data() ? parse_target(name) : std::nullopt;
    if (!parsed || *parsed != Target{static_cast<TargetKind>(target.kind), target.arch,
                                     static_cast<TargetVariant>(target.variant)}) {
      return at_record(SectionKind::targets, image.target) + "name '" + std::string(name.substr(0, 200)) +
             "' does not match its fields";
    }
    if (target.kind == static_cast<std::uint8_t>(TargetKind::sass) && image.ptx_version != 0) {
      return where() + "a cubin with a PTX version (" + std::to_string(image.ptx_version) + ")";
    }
    if (image.offset % k_blob_alignment != 0) {
      return where() + "offset " + std::to_string(image.offset) + " is not a multiple of " + std::to_string(k_blob_alignment);
    }
    if (image.offset > m_blobs.size() || image.stored_size > m_blobs.size() - image.offset) {
      return where() + "bytes [" + std::to_string(image.offset) + ", +" + std::to_string(image.stored_size) +
             ") lie outside BLOBS (" + std::to_string(m_blobs.size()) + " bytes)";
    }
    if (std::string problem = detail::raw_size_problem(image.raw_size, m_bytes.size()); !problem.empty()) {
      return where() + problem;
    }
  }
  return {};
}

}  // namespace kiln::format
