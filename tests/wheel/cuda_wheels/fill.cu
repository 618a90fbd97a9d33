// A kernel and the host function that launches it: host code, which only nvcc compiles.
__global__ void fill(float* out, float value) { out[threadIdx.x] = value; }

void launch_fill(float* out) { fill<<<1, 32>>>(out, 1.0f); }
