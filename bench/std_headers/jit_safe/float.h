// PROTOTYPE (bench/std_headers): a JIT-safe <float.h> for NVRTC.
#pragma once
#include <cfloat>
