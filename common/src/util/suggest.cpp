#include "util/suggest.hpp"

#include <algorithm>
#include <cctype>

namespace kiln {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rolling rows of the classic dynamic programme; the row before last is needed for swaps.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string_view> nearest(std::string_view word, std::span<const std::string_view> candidates) {
  std::optional<std::string_view> best;
  std::size_t best_distance = 0;
  for (std::string_view candidate : candidates) {
    // Short names are one edit from many others; only suggest them for a single typo.
    const std::size_t limit = candidate.size() <= 4 ? 1 : 2;
    const std::size_t distance = edit_distance(word, candidate);
    if (distance == 0 || distance > limit || distance >= candidate.size()) continue;
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates) {
  const std::optional<std::string_view> suggestion = nearest(word, candidates);
  return suggestion ? " (did you mean '" + std::string(*suggestion) + "'?)" : std::string();
}

std::vector<std::string> target_respellings(std::string_view text) {
  std::string lower;
  for (const char c : text)
    if (c != '.' && c != ' ') lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::string> out;
  const auto add = [&](std::string s) {
    if (s != text && std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
  };
  if (!lower.empty() && std::isdigit(static_cast<unsigned char>(lower.front()))) {
    add("sm_" + lower);        // "9.0a", "90": a compute capability
    add("compute_" + lower);
  }
  for (const std::string_view prefix : {std::string_view("sm"), std::string_view("compute")}) {
    if (!lower.starts_with(prefix)) continue;
    std::string rest = lower.substr(prefix.size());
    while (!rest.empty() && (rest.front() == '_' || rest.front() == '-')) rest.erase(0, 1);
    add(std::string(prefix) + "_" + rest);
  }
  add(lower);
  return out;
}

}  // namespace kiln
