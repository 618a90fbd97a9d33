// What each kernel of a cubin asks of the GPU, as ptxas recorded it: registers, stack, shared, local
// and constant memory, and the thread limit. `kiln inspect` prints it; the numbers are the ones
// `cuobjdump -res-usage` prints for the same file (REG, STACK, SHARED, LOCAL, CONSTANT[0]).
//
// Where each number lives (measured on CUDA 13.0 output, cuda-platform-facts.md section 5):
//   registers       .nv.info EIATTR_REGCOUNT (0x2f)        {u32 symbol, u32 registers}
//   frame, stack    .nv.info EIATTR_FRAME_SIZE (0x11) and EIATTR_MIN_STACK_SIZE (0x12), same shape:
//                   ptxas -v's "bytes stack frame" and "bytes cumulative stack size"
//   shared          the size of section .nv.shared.<kernel> (static __shared__, per block)
//   local           the size of section .nv.local.<kernel> (only code built without the ABI has one)
//   constant        the size of section .nv.constant0.<kernel> (parameters and driver data)
//   thread limit    .nv.info.<kernel> EIATTR_MAX_THREADS (0x05, __launch_bounds__ / .maxntid) or
//                   EIATTR_REQNTID (0x10, .reqntid): {u32 x, u32 y, u32 z}
// Spill stores and loads are not recorded in a cubin: only ptxas's info log says them.
#pragma once

#include "image/byte_view.hpp"
#include "image/cuda_info.hpp"
#include "util/result.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::image {

using ThreadShape = std::array<std::uint32_t, 3>;

struct KernelResources {
  std::string kernel;                         // the kernel's symbol
  std::optional<std::uint32_t> registers;     // per thread; nullopt when the cubin does not say
  std::optional<std::uint32_t> frame_size;    // bytes per thread, the kernel's own frame
  std::optional<std::uint32_t> stack_size;    // bytes per thread, with what its calls need
  std::uint64_t shared_size = 0;              // bytes per block, static __shared__ only
  std::uint64_t local_size = 0;               // bytes per thread outside the stack
  std::uint64_t constant_size = 0;            // bytes of constant bank 0
  std::optional<ThreadShape> max_threads;     // block shape limit (__launch_bounds__)
  std::optional<ThreadShape> required_threads;  // the one block shape it may run with
};

// Every kernel of the cubin (STO_CUDA_ENTRY functions), in symbol table order. Fails with a message
// that starts with `label` on a file that is not a CUDA ELF, on attribute lists that cannot be read,
// and on a resource record of the wrong shape, naming a symbol that does not exist, or contradicting
// another record for the same kernel. Never reads outside `cubin`; costs O(size of the file).
Result<std::vector<KernelResources>> read_kernel_resources(Bytes cubin, const std::string& label);

// The thread limits of one kernel's `.nv.info.<kernel>` records into `out` (the reader's step, for tests).
Status read_thread_limits(const std::vector<CudaAttribute>& attributes, KernelResources& out);

}  // namespace kiln::image
