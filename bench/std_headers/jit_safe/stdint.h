// PROTOTYPE (bench/std_headers): a JIT-safe <stdint.h> for NVRTC, for comparing against nvcc routing.
#pragma once
#include <cuda/std/cstdint>
using ::cuda::std::int8_t; using ::cuda::std::int16_t; using ::cuda::std::int32_t; using ::cuda::std::int64_t;
using ::cuda::std::uint8_t; using ::cuda::std::uint16_t; using ::cuda::std::uint32_t; using ::cuda::std::uint64_t;
