// The Make consumer's kernel.
extern "C" __global__ void probe_kernel(int* out) { *out = 42; }
