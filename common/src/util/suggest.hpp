// Did-you-mean suggestions, as compilers and git give them: the known word a misspelt one most likely
// meant (manifest keys, subcommands, kernels, templates), and the respellings of a target string a
// user may have meant ("sm90", "9.0a", "sm_90A"). Pure string functions, so every caller agrees.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln {

// Optimal string alignment distance: edits, with a swap of two neighbours counted as one edit, so
// "tragets" is one edit from "targets".
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate a misspelt `word` most likely meant, if one is close enough to suggest: one edit for
// names of up to four characters (they are one edit from many others), else two.
std::optional<std::string_view> nearest(std::string_view word, std::span<const std::string_view> candidates);

// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

// Spellings of a target the user may have meant by `text`, most likely first, for the caller to
// check against the target grammar: lower case ("sm_90A"), the missing underscore ("sm90",
// "compute90"), the compute capability with a dot or without a prefix ("9.0a", "90", "sm_9.0").
std::vector<std::string> target_respellings(std::string_view text);

}  // namespace kiln
