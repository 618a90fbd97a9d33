#include "table_invariants.hpp"

#include "limits.hpp"
#include "name_index.hpp"
#include "names.hpp"
#include "record_io.hpp"

#include <algorithm>
#include <optional>
#include <tuple>
#include <vector>

namespace kiln::format::detail {
Status check_raw_size(std::uint64_t raw_size, std::uint64_t file_size) {
  const std::uint64_t ceiling = max_image_size(file_size);
  if (raw_size <= ceiling) return {};
  return corrupt("raw size " + std::to_string(raw_size) + " exceeds the limit of " + std::to_string(ceiling) +
                 " bytes (" + std::to_string(k_max_image_ratio) + " times the package's size, at most 2 GiB)");
}

namespace {

// Each image decodes to no more than the limits allow, all of them together to no more than
// k_max_image_ratio times the package (what bounds a reader that decodes every image: verify, a
// preload, a fuzzer), and no two images share stored bytes (the
// index lies in other sections, which the reader has already kept apart from BLOBS).
Status check_images(const Tables& t) {
  std::vector<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>> spans;  // offset, end, image
  spans.reserve(t.images.count);
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < t.images.count; ++i) {
    const auto r = load_record<ImageRecord>(t.images.bytes, i);
    if (Status sized = check_raw_size(r.raw_size, t.file_size); !sized) {
      return corrupt(at_record(SectionKind::images, i) + sized.error().message);
    }
    total += r.raw_size;  // no overflow: each term is at most 2 GiB and there are fewer than 2^32
    if (total > max_total_image_size(t.file_size)) {
      return corrupt(at_record(SectionKind::images, i) + "the images' raw sizes add up to more than " +
                     std::to_string(max_total_image_size(t.file_size)) + " bytes (" +
                     std::to_string(k_max_image_ratio) + " times the package's size)");
    }
    if (r.stored_size != 0) spans.emplace_back(r.offset, r.offset + r.stored_size, i);
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i) {
    const auto& [offset, end, image] = spans[i];
    const auto& [previous_offset, previous_end, previous] = spans[i - 1];
    if (offset < previous_end) {
      return corrupt(at_record(SectionKind::images, image) + "bytes [" + std::to_string(offset) + ", +" +
                     std::to_string(end - offset) + ") overlap image " + std::to_string(previous) + "'s [" +
                     std::to_string(previous_offset) + ", +" + std::to_string(previous_end - previous_offset) + ")");
    }
  }
  return {};
}

// The NAMES record for `name` (NAMES is sorted and unique), if any: through NAME_INDEX in a
// few steps, else by binary search. The index is not trusted: a slot counts only if its record has
// the name (NAMES being unique, that is the one record), and a probe that finds nothing within a few
// steps (a damaged or missing index) leaves the answer to the search.
std::optional<NameRecord> find_name(const Tables& t, std::string_view name) {
  constexpr std::size_t k_probe_steps = 64;
  const auto named = [&](std::uint32_t i) {
    return i < t.names.count && string_at(t.strings, load_record<NameRecord>(t.names.bytes, i).name) == name;
  };
  if (const std::optional<std::uint32_t> i = probe_name_index(t.name_index.bytes, t.name_index.count, name, named, [](std::size_t) { return true; }, k_probe_steps))
    return load_record<NameRecord>(t.names.bytes, *i);
  std::uint32_t low = 0;
  std::uint32_t high = t.names.count;
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    const auto r = load_record<NameRecord>(t.names.bytes, middle);
    const std::string_view key = string_at(t.strings, r.name);
    if (key == name) return r;
    if (key < name) low = middle + 1; else high = middle;
  }
  return std::nullopt;
}

// The spec's "every kernel's normalized lowered name and canonical name are in NAMES": a kernel
// that its own names do not find could never be asked for. Lowered and canonical names are keys
// that share no bytes (check_tables), so normalizing them all is linear in STRINGS.
Status check_names(const Tables& t) {
  for (std::uint32_t i = 0; i < t.kernels.count; ++i) {
    const auto k = load_record<KernelRecord>(t.kernels.bytes, i);
    for (const auto& [field, ref] : {std::pair{"lowered name", k.lowered_name}, std::pair{"canonical name", k.canonical_name}}) {
      const std::string_view stored = string_at(t.strings, ref);
      std::string normalized;
      const std::string_view name = is_normalized(stored) ? stored : std::string_view(normalized = normalize_name(stored));
      const std::optional<NameRecord> found = find_name(t, name);
      if (!found || found->kernel != i) {
        return corrupt(own_name_problem(i, field, name, found ? std::optional(found->kernel) : std::nullopt));
      }
    }
  }
  return {};
}

}  // namespace

std::string own_name_problem(std::uint32_t kernel, const char* field, std::string_view name,
                             std::optional<std::uint32_t> found) {
  return at_record(SectionKind::kernels, kernel) + "its " + field + " '" + std::string(name.substr(0, 200)) +
         (found ? "' belongs to kernel " + std::to_string(*found) + " in NAMES" : "' is not in NAMES");
}

Status check_invariants(const Tables& tables) {
  KILN_TRY(check_images(tables));
  return check_names(tables);
}

}  // namespace kiln::format::detail
