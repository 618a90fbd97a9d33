// A JobRunner that asks the compile cache first: hits come back at once (reported as finished, in
// job order, before any compile), misses run on the runner it wraps and are stored when `keep` says
// their output is worth keeping (successes; and NVRTC's verdict that it cannot take a source, so the
// next build goes straight to nvcc). A hit that `usable` refuses (an image that does not read for its
// target: a damaged or forged entry) is a miss like any other, never a failed build.
#pragma once

#include "compile/compile_cache.hpp"
#include "compile/job_runner.hpp"

#include <cstddef>
#include <functional>
#include <memory>

namespace kiln::compile {

struct CacheCounts {
  std::size_t hits = 0;
  std::size_t misses = 0;
};

using KeepFn = std::function<bool(const CompileJob&, const CompileOutput&)>;
using UsableFn = std::function<bool(const CompileJob&, const CompileOutput&)>;

// `inner`, `cache` and `counts` must outlive the runner.
std::unique_ptr<JobRunner> make_cached_runner(JobRunner& inner, CompileCache& cache, KeepFn keep, UsableFn usable,
                                              CacheCounts& counts);

}  // namespace kiln::compile
