// Included after clang's CUDA wrapper on both sides of a CUDA parse.
#pragma clang system_header
// clang 19 ignores __managed__ in CUDA (it knows the attribute only for HIP), so the variable would
// look like a host one, and a kernel that uses it would not parse. After the wrapper has defined it,
// redefine it as a device variable (as nvcc treats it) with an annotation the scanner reads.
#undef __managed__
#define __managed__ __attribute__((device, annotate("kiln.managed")))
#include "nvcc_extras.h"
