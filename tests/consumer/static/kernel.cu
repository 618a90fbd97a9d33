// consumer_static's kernels: two, so that the modules have something to count.
extern "C" __global__ void first(int* out) { *out = 1; }
extern "C" __global__ void second(int* out) { *out = 2; }
