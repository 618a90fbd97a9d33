// Found before the user's include directories for quoted includes (-iquote). clang's wrapper starts
// with `#include "cuda.h"`, which would otherwise find a project's own cuda.h in an -I directory
// before the toolkit's (nvcc's cuda_runtime.h never includes cuda.h). That first inclusion gets
// the toolkit's, by the path the scanner passes (__KILN_TOOLKIT_CUDA_H); any later quoted
// "cuda.h" goes on to the next directories, as it would without this file.
#pragma clang system_header
#ifndef __cuda_cuda_h__
#include __KILN_TOOLKIT_CUDA_H
#else
#include_next "cuda.h"
#endif
