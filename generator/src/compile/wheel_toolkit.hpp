// CUDA from NVIDIA's PyPI wheels, for a kiln that runs where no CUDA toolkit is installed (a Python
// project building with Kiln on a machine without CUDA). CUDA 13's wheels all install into one tree,
// site-packages/nvidia/cu13/, laid out as a toolkit is, but for lib/ in place of lib64/:
//
//   nvidia-cuda-nvrtc     lib/libnvrtc.so.13, lib/libnvrtc-builtins.so.13.0
//   nvidia-nvjitlink      lib/libnvJitLink.so.13
//   nvidia-cuda-cccl      include/cccl/ (CUB, Thrust, libcu++)
//   nvidia-cuda-runtime   include/cuda.h, include/cuda_runtime.h, ..., lib/libcudadevrt.a
//   nvidia-cuda-crt       include/crt/
//   nvidia-cuda-nvcc      bin/nvcc, bin/nvcc.profile, bin/ptxas, ...
//   nvidia-nvvm           nvvm/bin/cicc, lib/libnvvm.so.4
//
// find_toolkit (toolkit.hpp) looks for such a tree after every place a system toolkit may be.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::compile {

// Where the wheels' tree may be, each with what it is for messages ("beside kiln", "$VIRTUAL_ENV"):
// nvidia/cu13 in the few directories above `executable`'s (site-packages/kiln/_prefix/bin/kiln
// reaches site-packages), then `virtual_env`/lib/python3.*/site-packages/nvidia/cu13 (the active
// venv; every python3.* found there, in name order). Empty arguments give no places, and a relative
// `virtual_env` none either: an activated venv's is absolute, and a relative one would search under
// whatever the working directory is.
std::vector<std::pair<std::string, std::filesystem::path>> wheel_places(const std::filesystem::path& executable,
                                                                        const std::filesystem::path& virtual_env);

// Whether `root` is a tree of NVIDIA's wheels that kiln can build with: it holds NVRTC and nvJitLink
// (lib/libnvrtc.so.13, lib/libnvJitLink.so.13). Not include/cuda.h, which a system toolkit must hold:
// every build compiles or links with NVRTC and nvJitLink, while the other wheels' pieces (the
// runtime's headers, CCCL, nvcc) serve only the units that use them, and a unit that lacks one is told
// which wheel to install. A tree with only other pieces (the cuobjdump wheel's) is no toolkit.
bool is_wheel_toolkit(const std::filesystem::path& root);

// Whether `root` is laid out as NVIDIA's wheels' tree (.../nvidia/cu13), whatever it holds.
bool is_wheel_tree(const std::filesystem::path& root);

// What to tell a user whose unit needs a piece the wheels' tree at `root` lacks: empty where `root`
// is no wheels' tree or holds the piece. nvcc, for units with host code or that NVRTC rejects:
// "this unit needs nvcc (...), which NVIDIA's wheels at <root> lack: pip install nvidia-cuda-nvcc==13.0.* ...".
std::string missing_wheel_nvcc(const std::filesystem::path& root);
// CCCL's headers (<cub/...>, <thrust/...>, <cuda/...>): "... pip install nvidia-cuda-cccl==13.0.*".
std::string missing_wheel_cccl(const std::filesystem::path& root);
// Whether a compiler's log names a header of CCCL's (cub/, thrust/, cuda/, nv/ as an include path).
bool names_a_cccl_header(std::string_view log);

}  // namespace kiln::compile
