#include "core/nearest_names.hpp"

#include "format/names.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <vector>

namespace kiln::core {

namespace {

constexpr std::size_t k_max_compared = 256;

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
  scored.reserve(reader.name_count());
  for (std::uint32_t i = 0; i < reader.name_count(); ++i) {
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
  scored.reserve(reader.variable_count());
  for (std::uint32_t i = 0; i < reader.variable_count(); ++i) {
    scored.push_back({edit_distance(key, reader.variable(i).name), i, i});
  }
  std::string out;
  for (std::uint32_t variable : best_ids(std::move(scored), count)) {
    out += (out.empty() ? "" : ", ") + std::string(reader.variable(variable).name);
  }
  return out;
}

}  // namespace kiln::core
