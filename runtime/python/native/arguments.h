/* The launch arguments kiln._native packs itself (arguments.c), and the geometry it takes: the
 * binding's fast cases (runtime/python/kiln/_arguments.py, _launch.py), in the same bytes. Each
 * function answers 1 (done), 0 (not taken: the binding's Python path packs, checks or words it, and
 * no error is left set) or, where it says so, -1 (a Python error is set). */
#ifndef KILN_NATIVE_ARGUMENTS_H
#define KILN_NATIVE_ARGUMENTS_H

#include <Python.h>

#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln.h"

/* A first launch's arguments fit here: more parameters than this go the Python way. */
#define MAX_FAST_PARAMS 64
/* Each argument's bytes start at a multiple of this, as _arguments.pointer_array lays them out. */
#define SLOT_BYTES 16

typedef struct {
  _Alignas(SLOT_BYTES) unsigned char data[MAX_FAST_PARAMS * SLOT_BYTES];
  void* pointers[MAX_FAST_PARAMS];
  size_t count;
} packed_arguments;

/* Packs `args` by `sizes` (both tuples or lists of the same length): 1, 0 or -1. */
int pack_all(PyObject* sizes, PyObject* args, packed_arguments* out);

/* A plain int in [minimum, UINT32_MAX]: 1 or 0. */
int plain_uint32(PyObject* value, uint32_t minimum, uint32_t* out);

/* An int or a tuple of 1 to 3 ints, each at least 1 (_launch.dim3's fast cases): 1 or 0. */
int plain_dim3(PyObject* value, kiln_dim3* out);

#endif
