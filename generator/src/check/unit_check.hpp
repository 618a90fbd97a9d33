// The checks `kiln check` makes of targets and compile options, as kiln build reads them: the one
// option table (options/compiler_options.hpp), format::parse_target, and NVRTC's architectures.
// Written once for `kiln check` (cli/check_command.cpp) and for the configure-time checker that
// kiln_add_cache runs inside Kiln's own tree (configure_checker.cpp), so both print the same lines.
#pragma once

#include "check/nvrtc_facts.hpp"
#include "util/result.hpp"

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace kiln::check {

struct UnitCheck {
  std::vector<std::string> targets;   // "sm_80", "compute_90a"
  std::vector<std::string> options;   // one unit's options, read together ("-maxrregcount", "64")
};

enum class CheckOutcome {
  accepted,
  refused,          // a problem was printed
  nvrtc_unknown,    // targets to check, but NVRTC's facts could not be had (printed)
};

// NVRTC's facts, asked only when a target is well formed: kiln check finds the toolkit for them, the
// configure-time checker reads them from its command line.
using NvrtcFactsSource = std::function<Result<NvrtcFacts>()>;

// Prints each problem of `unit` to `errors` as "kiln: error: message", one line each, in this order:
// the options' first problem, each target that is no target name, each NVRTC does not support.
CheckOutcome check_unit(const UnitCheck& unit, const NvrtcFactsSource& nvrtc, std::ostream& errors);

}  // namespace kiln::check
