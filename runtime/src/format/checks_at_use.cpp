// A deferred reader's checks at first use (package_reader.hpp): what handing out one kernel trusts,
// the same rules open() applies to every record (table_check.cpp, table_invariants.cpp), here for
// that kernel's records, its names and the tables every kernel's answer reads. What no lookup's
// answer rests on (variables, sources, carried sources, the images' sizes together) waits for
// check_all().
#include "package_reader.hpp"

#include "names.hpp"
#include "record_io.hpp"
#include "table_invariants.hpp"

#include <cstring>

namespace kiln::format {

using detail::at_record;
using detail::corrupt;
using detail::not_a_string;
using detail::out_of_range;

Status PackageReader::checked(Status found) const {
  if (found && m_pages && !m_pages->failed()) return {};   // the usual answer, without a lock
  KILN_TRY(page_error());
  if (found) return {};
  Error e = std::move(found).error();
  e.where.file = m_label;
  return e;
}

Status PackageReader::check_kernel(std::uint32_t i) const { return check_kernel_found(i, nullptr, {}); }

Status PackageReader::check_kernel_found(std::uint32_t i, const NameHit* hint, std::string_view asked) const {
  if (!m_deferred || kernel_checked(i)) return {};
  if (i < m_kernels.count && m_deferred->all_passed.load(std::memory_order_acquire)) {
    m_deferred->kernel_checked.set(i);   // check_all() has checked it
    return {};
  }
  if (!m_deferred->tables_passed.load(std::memory_order_acquire)) {
    m_deferred->tables_once.run([this] {
      m_deferred->tables = checked(check_small_tables());
      m_deferred->tables_passed.store(m_deferred->tables.ok(), std::memory_order_release);
    });
    KILN_TRY(m_deferred->tables);
  }
  OwnNames names;
  std::uint32_t records[2] = {};
  Status found = check_kernel_records(i, names);
  if (found) found = check_own_names(i, names, hint, asked, records);
  KILN_TRY(checked(std::move(found)));
  // The records its own names find may be handed out for it: check_name needs nothing more.
  for (const std::uint32_t r : records) m_deferred->name_checked.set(r);
  m_deferred->kernel_checked.set(i);
  return {};
}

Status PackageReader::check_name(const NameHit& hit, std::string_view asked) const {
  if (!m_deferred || name_checked(hit.record)) return {};
  if (hit.kernel >= m_kernels.count) {
    return checked(corrupt(at_record(SectionKind::names, hit.record) +
                           out_of_range("kernel", hit.kernel, m_kernels.count, SectionKind::kernels)));
  }
  KILN_TRY(check_kernel_found(hit.kernel, &hit, asked));
  // Not one of the kernel's own names (nor checked whole yet): an alias ("block_sum<float, 256u>"),
  // or another kernel's own name that this record leads elsewhere. Only the whole of NAMES and
  // KERNELS tells the two apart, once for every alias.
  if (!name_checked(hit.record) && !m_deferred->all_passed.load(std::memory_order_acquire)) {
    KILN_TRY(check_all());
  }
  m_deferred->name_checked.set(hit.record);
  return {};
}

Status PackageReader::check_kernel_records(std::uint32_t i, OwnNames& names) const {
  if (i >= m_kernels.count) return corrupt("kernel " + out_of_range("index", i, m_kernels.count, SectionKind::kernels));
  if (m_strings.empty() || !present(m_strings.first(1)) || m_strings[0] != std::byte{0}) {
    return corrupt("STRINGS section does not start with a NUL byte");
  }
  // Messages are built only on failure: this runs on each kernel's first lookup.
  const auto where = [i] { return at_record(SectionKind::kernels, i); };
  const auto r = record<KernelRecord>(m_kernels, i);
  const auto valid = [&](StrRef ref) {
    const std::string_view text = string(ref);
    return text.data() != nullptr && std::memchr(text.data(), 0, text.size()) == nullptr;
  };
  if (!valid(r.lowered_name)) return corrupt(where() + not_a_string("lowered_name", r.lowered_name));
  if (!valid(r.canonical_name)) return corrupt(where() + not_a_string("canonical_name", r.canonical_name));
  names[0] = string(r.lowered_name);
  names[1] = string(r.canonical_name);
  if (r.unit >= m_units.count)
    return corrupt(where() + out_of_range("unit", r.unit, m_units.count, SectionKind::units));
  if (r.first_param > m_params.count || r.param_count > m_params.count - r.first_param) {
    return corrupt(where() + "parameters [" + std::to_string(r.first_param) + ", +" + std::to_string(r.param_count) +
                   ") lie outside PARAMS (" + std::to_string(m_params.count) + " records)");
  }
  const std::string_view stored = names[0];
  const auto shown = [&] { return "kernel '" + std::string(stored.substr(0, 200)) + "'"; };
  if ((r.flags & k_kernel_variant) != 0 && !split_variant_name(stored)) {
    return corrupt(where() + shown() +
                   " is flagged as a variant kernel, but its lowered name is not '<variant>/<symbol>'");
  }
  if ((r.flags & k_kernel_variant) == 0 && stored.find('/') != std::string_view::npos) {
    return corrupt(where() + shown() + " has a '/' in its lowered name but is not flagged as a variant kernel");
  }
  // A unit holds many kernels: its checks run once.
  if (!m_deferred->unit_checked.test(r.unit)) {
    KILN_TRY(check_unit_records(r.unit));
    if (!page_error()) m_deferred->unit_checked.set(r.unit);
  }
  // Its KERNEL_TARGETS records (all of them: the table's order is checked whole), each a target its
  // unit has an image for, and none for a kernel in another file.
  const auto unit = record<UnitRecord>(m_units, r.unit);
  for (std::uint32_t at = first_target_record(i); at < m_kernel_targets.count; ++at) {
    const auto t = record<KernelTargetRecord>(m_kernel_targets, at);
    if (t.kernel != i) break;
    const auto here = [at] { return at_record(SectionKind::kernel_targets, at); };
    if ((r.flags & k_kernel_in_other_file) != 0) {
      return corrupt(here() + "kernel " + std::to_string(i) + " is flagged as in another file");
    }
    bool imaged = false;
    for (std::uint32_t j = unit.first_image; j < unit.first_image + unit.image_count && !imaged; ++j) {
      imaged = record<ImageRecord>(m_images, j).target == t.target;
    }
    if (!imaged) {
      return corrupt(here() + "target " + std::to_string(t.target) + " has no image in unit " + std::to_string(r.unit) +
                     ", the unit of kernel " + std::to_string(i));
    }
  }
  return {};
}

// A unit's record and its images (which name it, in target order); TARGETS is checked whole.
Status PackageReader::check_unit_records(std::uint32_t u) const {
  const auto r = record<UnitRecord>(m_units, u);
  const std::string_view source = string(r.source);
  if (source.data() == nullptr || std::memchr(source.data(), 0, source.size()) != nullptr) {
    return corrupt(at_record(SectionKind::units, u) + not_a_string("source", r.source));
  }
  if (r.first_image > m_images.count || r.image_count > m_images.count - r.first_image) {
    return corrupt(at_record(SectionKind::units, u) + "images [" + std::to_string(r.first_image) + ", +" +
                   std::to_string(r.image_count) + ") lie outside IMAGES (" + std::to_string(m_images.count) +
                   " records)");
  }
  for (std::uint32_t j = r.first_image; j < r.first_image + r.image_count; ++j) {
    const auto image = record<ImageRecord>(m_images, j);
    const auto where = [j] { return at_record(SectionKind::images, j); };
    if (image.unit != u) {
      return corrupt(where() + "unit " + std::to_string(image.unit) + " is not the unit whose range holds it (" +
                     std::to_string(u) + ")");
    }
    if (image.target >= m_targets.count)
      return corrupt(where() + out_of_range("target", image.target, m_targets.count, SectionKind::targets));
    if (j > r.first_image && record<ImageRecord>(m_images, j - 1).target >= image.target) {
      return corrupt(where() + "out of order or a duplicate (a unit's images are sorted by target)");
    }
    if (record<TargetRecord>(m_targets, image.target).kind == static_cast<std::uint8_t>(TargetKind::sass) &&
        image.ptx_version != 0) {
      return corrupt(where() + "a cubin with a PTX version (" + std::to_string(image.ptx_version) + ")");
    }
    if (image.offset % k_blob_alignment != 0) {
      return corrupt(where() + "offset " + std::to_string(image.offset) + " is not a multiple of " +
                     std::to_string(k_blob_alignment));
    }
    if (image.offset > m_blobs.size() || image.stored_size > m_blobs.size() - image.offset) {
      return corrupt(where() + "bytes [" + std::to_string(image.offset) + ", +" + std::to_string(image.stored_size) +
                     ") lie outside BLOBS (" + std::to_string(m_blobs.size()) + " bytes)");
    }
    if (Status sized = detail::check_raw_size(image.raw_size, m_bytes.size()); !sized) {
      return corrupt(where() + sized.error().message);
    }
  }
  return {};
}

// Rule 11 for one kernel: its normalized lowered and canonical names find it, through the lookup's
// own procedure (find_name). A name then always gives the kernel whose own name it is: a record that
// leads another kernel's name elsewhere fails that kernel here, and one whose symbol is another's
// fails one of the two. `hint`: what a lookup found for `asked`, maybe one of the names (then not
// looked up again, nor normalized when spelled as asked). Messages are built only on failure.
Status PackageReader::check_own_names(std::uint32_t i, const OwnNames& names, const NameHit* hint,
                                      std::string_view asked, std::uint32_t (&records)[2]) const {
  const std::string_view hinted = hint ? string(record<NameRecord>(m_names, hint->record).name) : std::string_view();
  for (std::size_t n = 0; n < 2; ++n) {
    const std::string_view stored = names[n];
    // A stored name equal to the hint's (normalized) or spelled as asked finds what the lookup
    // found; a canonical name has its spaces, so it is normalized before a probe is spent on it.
    NameKey normalized;
    const bool found_already = hint && (stored == hinted || (!asked.empty() && stored == asked) ||
                                        (n == 1 && normalized.of(stored) == hinted));
    const std::optional<NameHit> found = found_already ? std::optional(*hint) : find_name(stored);
    if (!found || found->kernel != i) {
      const char* field = n == 0 ? "lowered name" : "canonical name";
      return corrupt(detail::own_name_problem(i, field, NameKey().of(stored),
                                              found ? std::optional(found->kernel) : std::nullopt));
    }
    records[n] = found->record;
  }
  return {};
}

}  // namespace kiln::format
