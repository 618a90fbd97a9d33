/* A stand-in for cuRAND's <curand_mtgp32_kernel.h>, which clang's CUDA wrapper includes in every CUDA
 * parse (__clang_cuda_runtime_wrapper.h) only to keep its redeclarations of blockDim and threadIdx in
 * line with clang's. NVIDIA's wheels that kiln builds with (nvidia-cuda-runtime and the rest) hold no
 * cuRAND; without this every scan fails there. Found only when no real one is (an -idirafter
 * directory), and a source that uses cuRAND finds the real header first. Empty: the scanner never
 * compiles, and nothing here is needed to read a source. */
#pragma clang system_header
