// PROTOTYPE (bench/std_headers): a JIT-safe <stdio.h> for NVRTC, for comparing against nvcc routing.
#pragma once
// printf is one of NVRTC's built-in functions.
