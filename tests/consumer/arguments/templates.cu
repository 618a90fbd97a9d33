// A kernel template for consumer_arguments' scanning case: only host code says which instantiation.
template <class T>
__global__ void fill(T* out, T value) {
  *out = value;
}
