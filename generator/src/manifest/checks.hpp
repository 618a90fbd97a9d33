// String rules for manifest values (defines, targets, key spellings; options: options/), kept apart from TOML
// and the file system so each rule can be tested on its own. Internal to kiln_manifest.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "util/result.hpp"
#include "util/suggest.hpp"

namespace kiln::manifest::detail {

// [A-Za-z_][A-Za-z0-9_]*, and its two character classes.
bool is_identifier(std::string_view text);
bool is_identifier_start(char c);
bool is_identifier_char(char c);

// Empty or only whitespace: such a list entry is always a mistake.
bool is_blank(std::string_view text);

// Whether `define` is NAME or NAME=VALUE (NAME an identifier). The error's message is the reason,
// which completes a sentence: "define 'X' " + reason.
Status check_define(std::string_view define);

// Whether `name` can name a package, whose file is <name>.kiln: not if it is empty, '.' or '..', or
// holds a '/', '\\', ':' or a control character. The error's message completes "package name 'x' ".
Status check_package_name(std::string_view name);

// The canonical spelling of a target ("sm_90a"), or nothing if format::parse_target rejects it.
std::optional<std::string> canonical_target(std::string_view text);

// What canonical_target accepts, for error messages.
extern const std::string_view k_accepted_targets;

// What a misspelt target most likely meant: " (did you mean 'sm_90'?)" for "sm90", or "".
std::string did_you_mean_target(std::string_view text);

// The did-you-mean helpers, under the names the manifest's readers use.
using kiln::did_you_mean;
using kiln::edit_distance;
using kiln::nearest;

}  // namespace kiln::manifest::detail
