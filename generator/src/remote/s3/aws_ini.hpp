// The AWS CLI's INI files (~/.aws/credentials, ~/.aws/config), read with inih (Debian's libinih) as
// Python's configparser reads them for the CLI: `name = value` under `[section]`, `#` and `;` comments,
// an indented line continuing the value above it (joined with a line break), names in lower case.
//
// Debian builds inih with lines of at most 199 characters, and a session token alone is longer (STS
// tokens run to a thousand characters or more): a longer line is handed to inih in pieces that it
// takes as continuations of the same value, joined here without a break, so a value of any length
// reads whole. What inih cannot read (a line that is no `name = value`, `[section]` or comment) is an
// error naming the file and its line, as it is for the AWS CLI.
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace kiln::remote {

using IniSection = std::map<std::string, std::string>;   // name (lower case) -> value
using IniSections = std::map<std::string, IniSection>;   // "default", "profile ci", ...

// The largest AWS file read: far beyond any real one, and small enough to hold.
inline constexpr std::size_t k_max_aws_file_size = 1 << 20;

// The sections of the file at `path`; nothing when there is no such file. `named` is how messages
// name the file: "AWS_SHARED_CREDENTIALS_FILE=/ci/credentials", or the path itself where no variable
// named it. Values are never shown: a line inih cannot read is named by its number alone.
Result<std::optional<IniSections>> read_aws_file(const std::filesystem::path& path, const std::string& named);

// The same for a file's text (the tests).
Result<IniSections> parse_aws_file(std::string_view text, const std::string& named);

}  // namespace kiln::remote
