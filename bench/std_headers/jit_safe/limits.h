// PROTOTYPE (bench/std_headers): a JIT-safe <limits.h> for NVRTC.
#pragma once
#include <climits>
