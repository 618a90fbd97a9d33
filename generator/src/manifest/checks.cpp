#include "manifest/checks.hpp"

#include "format/target.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace kiln::manifest::detail {
namespace {

bool is_identifier_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

bool is_identifier_char(char c) { return is_identifier_start(c) || (c >= '0' && c <= '9'); }

}  // namespace

const std::string_view k_accepted_targets =
    "sm_XY, sm_XYa, sm_XYf, compute_XY, compute_XYa or compute_XYf, where XY is the compute "
    "capability without the dot (e.g. sm_80, sm_90a, sm_100f, compute_120)";

bool is_identifier(std::string_view text) {
  return !text.empty() && is_identifier_start(text.front()) &&
         std::all_of(text.begin(), text.end(), is_identifier_char);
}

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

std::optional<std::string> check_define(std::string_view define) {
  const std::string_view name = define.substr(0, define.find('='));
  if (is_identifier(name)) return std::nullopt;
  return std::string("must be NAME or NAME=VALUE, with NAME an identifier");
}

std::optional<std::string> canonical_target(std::string_view text) {
  const std::optional<format::Target> target = format::parse_target(text);
  if (!target) return std::nullopt;
  return target->name();
}

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

}  // namespace kiln::manifest::detail
