// Compiles one source for one target, in the calling process: NVRTC to LTO-IR (-dlto), then
// nvJitLink to a trimmed cubin (or PTX). Trimming drops device variables nothing refers to, such as
// libcu++'s constexpr members (125 KB -> 5 KB for a CUB kernel); the variables a job lists survive.
#pragma once

#include "compile/compile_job.hpp"

namespace kiln::compile {

// Never throws. Compile errors are data: CompileOutput::ok is false and the log says why.
CompileOutput compile_job(const CompileJob& job);

}  // namespace kiln::compile
