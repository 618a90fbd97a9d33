// Driver calls in the benchmark fail loudly: a BenchError naming the call and the driver's error name.
#pragma once

#include <cuda.h>

namespace kiln::bench {

void check(CUresult result, const char* what);   // launch.cpp

}  // namespace kiln::bench
