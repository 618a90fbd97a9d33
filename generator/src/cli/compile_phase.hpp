// kiln build's compile phase: every job of the plan in worker processes, then a second round for the
// units NVRTC rejected and nvcc may compile (the compiler of record decides, not the route the plan
// guessed), and the compilers' messages, each distinct one once.
#pragma once

#include "cli/progress.hpp"
#include "compile/job_runner.hpp"
#include "plan/build_plan.hpp"

#include <optional>
#include <vector>

namespace kiln::cli {

// The outputs of `plan.jobs` (the plan as updated by the second round), all ok; nothing when a
// compile failed, after printing why: each failed log is followed by a note naming the targets whose
// compiles gave it, and the closing error names the failed sources and targets. The compilers'
// warnings (logs of compiles that succeeded) are printed unless `quiet`, and added to `warnings`.
std::optional<std::vector<compile::CompileOutput>> compile_plan(plan::BuildPlan& plan, compile::JobRunner& runner,
                                                                Verbosity verbosity, std::vector<std::string>& warnings);

// Whether an NVRTC log says that NVRTC cannot compile the source at all (a header it cannot open,
// host code, an option it lacks) rather than that the source is wrong. When nvcc fails too, its
// errors are then the ones that matter; otherwise NVRTC's are.
bool nvrtc_cannot_compile(const std::string& log);

}  // namespace kiln::cli
