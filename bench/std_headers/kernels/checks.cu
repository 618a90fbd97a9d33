// <cassert>, <climits> and <cfloat> in device code.
#include <cassert>
#include <cfloat>
#include <climits>

extern "C" __global__ void clamp_checked(float* x, int* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  assert(n <= INT_MAX / 2);
  if (i >= n) return;
  x[i] = x[i] > FLT_MAX / 2 ? FLT_MAX / 2 : x[i];
  y[i] = y[i] == INT_MIN ? 0 : y[i];
}
