// What `kiln build` prints for a unit whose options ask ptxas to be verbose (-Xptxas=-v): a note per
// kernel and cubin with what ptxas -v reports, read from the cubin itself (image/kernel_resources.hpp,
// the reader `kiln inspect` uses), and its spills, which no cubin records, from ptxas's own report in
// the compile's log (compile/ptxas_report.hpp). The compile cache stores that log with the image, so a
// cache hit, local or remote, says exactly what the compile that filled it did. ptxas gets the -v (its
// report is where the spills are), so the option is part of the compile cache's key.
//
//   kernels/a.cu: note: sm_90: 'saxpy': 16 registers, 0 bytes stack frame, 0 bytes spill stores,
//                 0 bytes spill loads, 0 bytes cumulative stack, 0 bytes shared, 0 bytes local,
//                 380 bytes constant[0], max 256 threads
//
// A kernel whose log has no spill line (a report in a layout Kiln does not read) has a note without
// spills, rather than a guess.
#pragma once

#include "compile/compile_job.hpp"
#include "compile/ptxas_report.hpp"
#include "image/kernel_resources.hpp"

#include <string>
#include <vector>

namespace kiln::cli {

// "16 registers, 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads, ..., max 256
// threads": what the note says of one kernel; the spills only where ptxas's report had them.
std::string resources_phrase(const image::KernelResources& r, const std::optional<compile::Spills>& spills);

// The notes of every (unit, target) in `jobs` that asks for them (CompileJob::ptxas_verbose) and compiled a cubin, in job order,
// each kernel once per unit and target (a unit's image parts hold some kernels twice). PTX targets
// have none: ptxas did not run. `outputs` are the jobs' own (jobs without an image are skipped).
std::vector<std::string> resource_notes(const std::vector<compile::CompileJob>& jobs,
                                        const std::vector<compile::CompileOutput>& outputs);

}  // namespace kiln::cli
