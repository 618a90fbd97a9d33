// NVRTC jobs that share one precompiled header. NVRTC's PCH lives in its process's heap: another
// process cannot use it (warning 20282), but later compiles in the same process can. So jobs that
// NVRTC would parse the same headers for (the same root, target and options, and the same leading
// preprocessor directives) run in batches, one process each: the first job with -create-pch, the
// rest with -use-pch. On CUB's BlockReduce that is 0.4 s per job instead of 2.5
// (bench/results/fleet.md). NVRTC's output is the same either way; a PCH that does not fit a job
// is ignored by NVRTC, which then parses the headers itself.
#pragma once

#include "compile/compile_job.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace kiln::compile {

// Jobs in batches, each run by one process one after another: in a batch of two or more, the
// first job creates the precompiled header and the others use it. Batches hold jobs of one group
// (the same root, target, options and leading directives); a group is cut into as many batches as
// its share of `parallel` processes, at least two jobs each, so that PCHs do not cost parallelism.
// Larger batches come first; a job of no group is a batch of its own.
std::vector<std::vector<std::size_t>> plan_shared_pch(const std::vector<CompileJob>& jobs, int parallel, bool enabled);

// Whether the environment allows shared PCHs: KILN_NVRTC_PCH unset, or anything but "0".
bool shared_pch_enabled();

// The directives a source starts with (#include, #pragma, #define ...; blank lines and comments
// skipped): what NVRTC compares to decide whether a PCH fits. Empty when there are none.
std::string leading_directives(const std::string& source);

// `headers` with those of `seed` that it lacks, first: a job that used the seed's PCH did not parse
// the headers the PCH holds, so NVRTC's time trace does not name them.
std::vector<std::string> with_seed_headers(const std::vector<std::string>& seed, const std::vector<std::string>& headers);

}  // namespace kiln::compile
