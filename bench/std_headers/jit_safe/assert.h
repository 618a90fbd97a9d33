// PROTOTYPE (bench/std_headers): a JIT-safe <assert.h> for NVRTC, for comparing against nvcc routing.
#pragma once
// assert is one of NVRTC's built-in macros.
