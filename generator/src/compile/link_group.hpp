// A device link group for one target: every member source compiled on its own to LTO-IR (NVRTC with
// -rdc=true, or nvcc -dc), then one nvJitLink of them all into one trimmed image, as nvcc -rdc=true
// and a device link would make, so that a kernel in one source can call a __device__ function or
// use a __constant__ variable defined in another. A group whose code launches kernels from the
// device (dynamic parallelism) is linked with the CUDA device runtime, libcudadevrt.a.
#pragma once

#include "compile/compile_job.hpp"

namespace kiln::compile {

// Never throws; failures are data, as for a unit. A member NVRTC rejects goes to nvcc when it may
// (CompileJob::nvcc_fallback). The output's names, headers and log are the members', together.
// PTX cannot carry the device runtime (nvJitLink's -ptx takes LTO-IR alone): a group that needs it
// gets no PTX image (ok, an empty image, and a warning in the log that says so).
CompileOutput compile_group(const CompileJob& group);

}  // namespace kiln::compile
