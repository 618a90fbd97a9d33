// The build's compile phase: every job of the plan in worker processes, and NVRTC's verdict on each
// unit it may reject, taken once: its first target is tried alone, and a rejection (a header NVRTC
// cannot open) sends the unit to nvcc for every target (the compiler of record decides, not the route
// the plan guessed); a rejection the cache remembers sends it there before anything runs. Then the
// compilers' messages, each distinct one once.
#pragma once

#include "build/build_events.hpp"
#include "compile/compile_cache.hpp"
#include "compile/job_runner.hpp"
#include "plan/build_plan.hpp"
#include "util/result.hpp"

#include <optional>
#include <vector>

namespace kiln::build {

// The outputs of `plan.jobs` (the plan as NVRTC's verdicts left it), all ok; or, when a compile
// failed, the closing error naming the failed sources and targets, after each failed log went to
// `events` as an error followed by a note naming the targets whose compiles gave it. The compilers'
// warnings (logs of compiles that succeeded) go to `events` as warnings, each distinct one once.
// `verdicts` (may be null) remembers NVRTC's rejections by content, for this build and the next.
Result<std::vector<compile::CompileOutput>> compile_plan(plan::BuildPlan& plan, compile::JobRunner& runner,
                                                         BuildEvents& events, compile::CompileCache* verdicts = nullptr);

// Whether an NVRTC log says that NVRTC cannot compile the source at all (a header it cannot open,
// host code, an option it lacks) rather than that the source is wrong. When nvcc fails too, its
// errors are then the ones that matter; otherwise NVRTC's are.
bool nvrtc_cannot_compile(const std::string& log);

}  // namespace kiln::build
