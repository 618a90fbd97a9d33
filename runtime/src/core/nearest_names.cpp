#include "core/nearest_names.hpp"

#include "format/names.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

namespace kiln::core {

namespace {

constexpr std::size_t k_max_compared = 256;
// At most this many names are compared, those next to the wanted name in sorted order, so a lookup
// costs O(log n) plus a fixed amount however many names a package holds.
constexpr std::uint32_t k_max_candidates = 1024;

// The range [first, last) of `count` sorted names to compare: all of them, or the k_max_candidates
// around where `key` would be.
template <class NameAt>
std::pair<std::uint32_t, std::uint32_t> candidates(std::uint32_t count, std::string_view key, NameAt name_at) {
  if (count <= k_max_candidates) return {0, count};
  std::uint32_t low = 0, high = count;
  while (low < high) {
    const std::uint32_t middle = low + (high - low) / 2;
    if (name_at(middle) < key) low = middle + 1; else high = middle;
  }
  const std::uint32_t first = std::min(low > k_max_candidates / 2 ? low - k_max_candidates / 2 : 0u,
                                       count - k_max_candidates);
  return {first, first + k_max_candidates};
}

struct Scored {
  std::size_t distance;
  std::uint32_t order;   // position in the table: the tie-breaker
  std::uint32_t id;      // kernel or variable index: shown once
};

// Keeps the `count` best distinct ids, best first.
std::vector<std::uint32_t> best_ids(std::vector<Scored> scored, std::size_t count) {
  std::stable_sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) {
    return a.distance != b.distance ? a.distance < b.distance : a.order < b.order;
  });
  std::vector<std::uint32_t> ids;
  std::set<std::uint32_t> seen;
  for (const Scored& s : scored) {
    if (ids.size() == count) break;
    if (seen.insert(s.id).second) ids.push_back(s.id);
  }
  return ids;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  a = a.substr(0, std::min(a.size(), k_max_compared));
  b = b.substr(0, std::min(b.size(), k_max_compared));
  std::vector<std::size_t> previous(b.size() + 1), current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::string nearest_kernel_names(const format::PackageReader& reader, std::string_view wanted, std::size_t count) {
  const std::string key = format::normalize_name(wanted);
  std::vector<Scored> scored;
  const auto [first, last] =
      candidates(reader.name_count(), key, [&](std::uint32_t i) { return reader.name(i).name; });
  scored.reserve(last - first);
  for (std::uint32_t i = first; i < last; ++i) {
    const format::NameView name = reader.name(i);
    scored.push_back({edit_distance(key, name.name), i, name.kernel});
  }
  std::string out;
  for (std::uint32_t kernel : best_ids(std::move(scored), count)) {
    out += (out.empty() ? "" : ", ") + std::string(reader.kernel(kernel).canonical_name);
  }
  return out;
}

std::string nearest_variable_names(const format::PackageReader& reader, std::string_view wanted, std::size_t count) {
  const std::string key = format::normalize_name(wanted);
  std::vector<Scored> scored;
  const auto [first, last] =
      candidates(reader.variable_count(), key, [&](std::uint32_t i) { return reader.variable(i).name; });
  scored.reserve(last - first);
  for (std::uint32_t i = first; i < last; ++i) {
    scored.push_back({edit_distance(key, reader.variable(i).name), i, i});
  }
  std::string out;
  for (std::uint32_t variable : best_ids(std::move(scored), count)) {
    out += (out.empty() ? "" : ", ") + std::string(reader.variable(variable).name);
  }
  return out;
}

}  // namespace kiln::core
