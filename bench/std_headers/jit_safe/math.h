// PROTOTYPE (bench/std_headers): a JIT-safe <math.h> for NVRTC, for comparing against nvcc routing.
#pragma once
#include <cuda/std/cmath>
