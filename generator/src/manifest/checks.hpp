// String rules for manifest values (defines, targets, key spellings; options: options/), kept apart from TOML
// and the file system so each rule can be tested on its own. Internal to kiln_manifest.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace kiln::manifest::detail {

// [A-Za-z_][A-Za-z0-9_]*
bool is_identifier(std::string_view text);

// Empty or only whitespace: such a list entry is always a mistake.
bool is_blank(std::string_view text);

// Why `define` is not NAME or NAME=VALUE (NAME an identifier), or nothing if it is. The reason
// completes a sentence: "define 'X' " + reason.
std::optional<std::string> check_define(std::string_view define);

// The canonical spelling of a target ("sm_90a"), or nothing if format::parse_target rejects it.
std::optional<std::string> canonical_target(std::string_view text);

// What canonical_target accepts, for error messages.
extern const std::string_view k_accepted_targets;

// Optimal string alignment distance: edits, with a swap of two neighbours counted as one edit, so
// "tragets" is one edit from "targets".
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate a misspelt `word` most likely meant, if one is close enough to suggest.
std::optional<std::string_view> nearest(std::string_view word, std::span<const std::string_view> candidates);

// " (did you mean 'x'?)" or "".
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates);

}  // namespace kiln::manifest::detail
