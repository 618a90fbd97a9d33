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
// compile failed, after printing why. The compilers' warnings are printed either way.
std::optional<std::vector<compile::CompileOutput>> compile_plan(plan::BuildPlan& plan, compile::JobRunner& runner,
                                                                bool verbose);

// Whether an NVRTC log says that NVRTC cannot compile the source at all (a header it cannot open,
// host code, an option it lacks) rather than that the source is wrong. When nvcc fails too, its
// errors are then the ones that matter; otherwise NVRTC's are.
bool nvrtc_cannot_compile(const std::string& log);

}  // namespace kiln::cli
