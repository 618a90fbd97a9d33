// What `kiln build` prints for a unit whose options ask ptxas to be verbose (-Xptxas=-v): a note per
// kernel and cubin with what ptxas -v reports, read from the cubin itself (image/kernel_resources.hpp,
// the reader `kiln inspect` uses), so that a cache hit, local or remote, says exactly what the compile
// that filled it would have. ptxas never gets the -v (options/compiler_options.hpp says why), so the
// option is no part of the compile cache's key: turning it on or off compiles nothing again.
//
//   kernels/a.cu: note: sm_90: 'saxpy': 16 registers, 0 bytes stack frame, 0 bytes cumulative stack,
//                 0 bytes shared, 0 bytes local, 380 bytes constant[0], max 256 threads
//
// Spill stores and loads are not recorded in a cubin, so no note has them.
#pragma once

#include "compile/compile_job.hpp"
#include "image/kernel_resources.hpp"

#include <string>
#include <vector>

namespace kiln::cli {

// "16 registers, 0 bytes stack frame, ..., max 256 threads": what the note says of one kernel.
std::string resources_phrase(const image::KernelResources& r);

// The notes of every (unit, target) in `jobs` that asks for them (CompileJob::ptxas_verbose) and compiled a cubin, in job order,
// each kernel once per unit and target (a unit's image parts hold some kernels twice). PTX targets
// have none: ptxas did not run. `outputs` are the jobs' own (jobs without an image are skipped).
std::vector<std::string> resource_notes(const std::vector<compile::CompileJob>& jobs,
                                        const std::vector<compile::CompileOutput>& outputs);

}  // namespace kiln::cli
