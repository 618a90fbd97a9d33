// Kiln's JIT-safe <float.h> for NVRTC (compile/jit_safe_headers.hpp): the C header: its C++ counterpart's
// names.
#pragma once
#include <cfloat>
