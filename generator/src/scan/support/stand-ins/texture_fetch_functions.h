// clang 19's CUDA wrapper includes this header, which CUDA 13 removed (fixed in later LLVM).
#pragma clang system_header
