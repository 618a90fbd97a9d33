// A compile option as written, read against option_table(): in either spelling NVRTC accepts
// ("--maxrregcount=64" or "--maxrregcount", "64" as two strings; "-DX", "-D X", "-D=X" or "-D", "X"),
// its value checked, and spelled as NVRTC and nvJitLink take it. A manifest's options are read so
// (the generator's compiler_options.hpp translates them for every consumer), and so are the options a
// package carries (carried_rules.hpp). Plain data in and out.
#pragma once

#include "options/option_table.hpp"

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace kiln::options {

// A problem with one option: the index of its first string in the list given, and a message that
// completes "option '<it>' in 'options' ...".
struct OptionProblem {
  std::size_t index = 0;
  std::string option;       // as written (both strings of a two-string option, joined by a space)
  std::string message;      // "is set by Kiln for each target; list targets in 'targets'"
};

// One option as read: its row, its value, and where it was in the list.
struct ReadOption {
  const OptionSpec* spec = nullptr;
  std::string value;
  bool has_value = false;
  std::size_t index = 0;
  std::size_t strings = 1;  // 2 for "--name", "value"
  std::string text;         // as written
};

// Reads the option at `given[at]`: nothing, and `problem` says why, when it is unknown, refused or
// malformed.
std::optional<ReadOption> read_option(std::span<const std::string> given, std::size_t at, OptionProblem& problem);

// Every problem in `given`, in order: unknown or refused options, a missing or malformed value.
std::vector<OptionProblem> check_options(std::span<const std::string> given);

// The option as NVRTC gets it: --<name>=<value>, --<name>, or -D<value> and -U<value> for macros.
std::string nvrtc_spelling(const ReadOption& option);

// What nvJitLink gets for it, in its own spelling (-ftz=1 for --ftz=true; nothing for most options).
std::vector<std::string> link_spellings(const ReadOption& option);

}  // namespace kiln::options
