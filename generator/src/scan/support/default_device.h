// Included first when a source's options hold -default-device (NVRTC's
// --device-as-default-execution-space): every function declared after this pragma is __host__
// __device__, so device code may call the unannotated ones, as NVRTC lets it.
#pragma clang force_cuda_host_device begin
