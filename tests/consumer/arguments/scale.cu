// A second kernel source for consumer_arguments' INSTANTIATE case: INSTANTIATE's scale<float> is built
// here, its fill<int> in templates.cu, the source that defines each.
template <class T>
__global__ void scale(T* out, T factor) {
  *out *= factor;
}
