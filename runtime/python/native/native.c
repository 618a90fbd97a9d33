/* kiln._native: the binding's first-launch calls in C, an optional companion of the pure-Python
 * binding (runtime/python/kiln). Where it is absent or declines a call, the binding does the same work
 * through ctypes, with the same result.
 *
 * Why it exists: in a fresh process ctypes' first call of each libkiln function costs 10-30 us and
 * packing a launch's arguments in Python another 20 us per new argument type. This module calls the
 * same entry points directly and packs the common arguments itself: a first launch through the
 * binding took 0.39-0.41 ms with it against 0.47-0.52 ms without, on H200 hosts
 * (bench/results/python-first-launch.md).
 *
 * What it takes on: exactly what the binding's fast paths take (runtime/python/kiln/_arguments.py),
 * and it packs them into the same bytes: a Python float for a 4- or 8-byte parameter, a Python int
 * that fits its parameter, numpy's fixed-size integer, float32/float64 and bool scalars whose size is
 * the parameter's, and a CuPy array as its data pointer. Anything else (a NaN, a float16, a ctypes
 * value, a cuda.core Buffer, a size mismatch, geometry that is not plain ints) returns
 * NotImplemented, and the binding's Python path packs it or words the error.
 *
 * It links nothing: bind() takes the dlopen handle of the libkiln the binding loaded and looks its
 * entry points up there, so both always call the same library. Built against the stable ABI of
 * Python 3.8 (one file, _native.abi3.so, for every CPython from 3.8: CMakeLists.txt). Linux only.
 * The arguments it packs: arguments.c. */
#include <Python.h>

#include <dlfcn.h>
#include <stdint.h>
#include <string.h>

#include "arguments.h"
#include "kiln/kiln.h"

/* The version of this module's interface to the binding: the binding uses a module of its own
 * version only (a stale copy beside a newer binding is left alone). */
#define NATIVE_INTERFACE_VERSION 1

typedef struct {
  kiln_status (*open_file)(const char*, kiln_package**);
  kiln_status (*get_kernel)(kiln_package*, const char*, kiln_kernel**);
  kiln_status (*kernel_params)(const kiln_kernel*, size_t*, size_t*, size_t*, size_t);
  const char* (*kernel_name)(const kiln_kernel*);
  kiln_status (*kernel_launch)(kiln_kernel*, kiln_dim3, kiln_dim3, uint32_t, void*, void**, size_t);
  kiln_status (*find_kernel)(const kiln_package*, const char*, size_t*);
  kiln_status (*select_image)(kiln_package*, const char*, int, kiln_image*);
} entry_points;

static entry_points entries;
static int bound;

/* ---- Entry points ----------------------------------------------------------------------------- */

static PyObject* none_reference(void) {
  Py_INCREF(Py_None);
  return Py_None;
}

static PyObject* handle_object(const void* pointer) {
  return PyLong_FromVoidPtr((void*)pointer);
}

static int handle_argument(PyObject* object, void** out) {
  if (object == Py_None) {
    *out = NULL;
    return 1;
  }
  *out = PyLong_AsVoidPtr(object);
  return !(*out == NULL && PyErr_Occurred());
}

static int require_bound(void) {
  if (bound) return 1;
  PyErr_SetString(PyExc_RuntimeError, "kiln._native: bind() was not called");
  return 0;
}

/* A text argument of `what` (a name, a path): bytes without a NUL (C would read it only up to one). */
static int text_argument(PyObject* object, const char** out, const char* call, const char* what) {
  char* text = NULL;
  Py_ssize_t length = 0;
  if (PyBytes_AsStringAndSize(object, &text, &length) < 0) return 0;
  if ((size_t)length != strlen(text)) {
    PyErr_Format(PyExc_ValueError, "kiln._native.%s: the %s holds a NUL byte", call, what);
    return 0;
  }
  *out = text;
  return 1;
}

/* bind(handle): looks up the entry points in the library at `handle` (a dlopen handle, as a ctypes
 * CDLL's _handle). True if every one was found; False leaves the module unusable. */
static PyObject* native_bind(PyObject* self, PyObject* handle_object_) {
  (void)self;
  void* handle = PyLong_AsVoidPtr(handle_object_);
  if (!handle) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "kiln._native.bind: a null library handle");
    return NULL;
  }
  entry_points found;
  *(void**)&found.open_file = dlsym(handle, "kiln_package_open_file");
  *(void**)&found.get_kernel = dlsym(handle, "kiln_package_get_kernel");
  *(void**)&found.kernel_params = dlsym(handle, "kiln_kernel_params");
  *(void**)&found.kernel_name = dlsym(handle, "kiln_kernel_name");
  *(void**)&found.kernel_launch = dlsym(handle, "kiln_kernel_launch");
  *(void**)&found.find_kernel = dlsym(handle, "kiln_package_find_kernel");
  *(void**)&found.select_image = dlsym(handle, "kiln_package_select_image");
  if (!found.open_file || !found.get_kernel || !found.kernel_params || !found.kernel_name || !found.kernel_launch ||
      !found.find_kernel || !found.select_image)
    Py_RETURN_FALSE;
  entries = found;
  bound = 1;
  Py_RETURN_TRUE;
}

/* open_file(path: bytes) -> (status, package handle or None) */
static PyObject* native_open_file(PyObject* self, PyObject* path) {
  (void)self;
  if (!require_bound()) return NULL;
  const char* text;
  if (!text_argument(path, &text, "open_file", "path")) return NULL;
  kiln_package* package = NULL;
  kiln_status status;
  Py_BEGIN_ALLOW_THREADS
  status = entries.open_file(text, &package);
  Py_END_ALLOW_THREADS
  return Py_BuildValue("(iN)", (int)status, package ? handle_object(package) : none_reference());
}

/* The (package handle, name: bytes) arguments of get_kernel and find_kernel; 0 with an error set. */
static int package_and_name(PyObject* args, const char* what, void** package, const char** name) {
  if (!require_bound()) return 0;
  PyObject *package_object, *name_object;
  if (!PyArg_ParseTuple(args, "OO", &package_object, &name_object)) return 0;
  return handle_argument(package_object, package) && text_argument(name_object, name, what, "name");
}

/* get_kernel(package handle, name: bytes) -> (status, kernel handle or None) */
static PyObject* native_get_kernel(PyObject* self, PyObject* args) {
  (void)self;
  void* package;
  const char* name;
  if (!package_and_name(args, "get_kernel", &package, &name)) return NULL;
  kiln_kernel* kernel = NULL;
  kiln_status status;
  Py_BEGIN_ALLOW_THREADS
  status = entries.get_kernel((kiln_package*)package, name, &kernel);
  Py_END_ALLOW_THREADS
  return Py_BuildValue("(iN)", (int)status, kernel ? handle_object(kernel) : none_reference());
}

/* find_kernel(package handle, name: bytes) -> (status, index) */
static PyObject* native_find_kernel(PyObject* self, PyObject* args) {
  (void)self;
  void* package;
  const char* name;
  if (!package_and_name(args, "find_kernel", &package, &name)) return NULL;
  size_t index = 0;
  kiln_status status;
  Py_BEGIN_ALLOW_THREADS  /* a large index is read by pages: this may read the file */
  status = entries.find_kernel((const kiln_package*)package, name, &index);
  Py_END_ALLOW_THREADS
  return Py_BuildValue("(in)", (int)status, (Py_ssize_t)index);
}

static PyObject* text_or_empty(const char* text) {
  return PyUnicode_DecodeUTF8(text ? text : "", text ? (Py_ssize_t)strlen(text) : 0, "replace");
}

/* select_image(package handle, name: bytes, device ordinal) -> (status, None) or (0, (data, kind,
 * compute capability, target, kernel name, lowered name, description)): Image's fields, with a PTX
 * image's terminating NUL left off as Image.from_struct leaves it. */
static PyObject* native_select_image(PyObject* self, PyObject* args) {
  (void)self;
  if (!require_bound()) return NULL;
  PyObject *package_object, *name_object;
  int device;
  if (!PyArg_ParseTuple(args, "OOi", &package_object, &name_object, &device)) return NULL;
  void* package;
  const char* name;
  if (!handle_argument(package_object, &package) || !text_argument(name_object, &name, "select_image", "name")) return NULL;
  kiln_image image;
  memset(&image, 0, sizeof image);
  image.struct_size = sizeof image;
  kiln_status status;
  Py_BEGIN_ALLOW_THREADS
  status = entries.select_image((kiln_package*)package, name, device, &image);
  Py_END_ALLOW_THREADS
  if (status != KILN_STATUS_SUCCESS) return Py_BuildValue("(iO)", (int)status, Py_None);
  size_t size = image.data ? image.size : 0;
  if (image.kind == KILN_IMAGE_PTX && size > 0 && ((const char*)image.data)[size - 1] == '\0') --size;
  return Py_BuildValue("(i(y#IINNNN))", (int)status, (const char*)image.data, (Py_ssize_t)size, image.kind,
                       image.compute_capability, text_or_empty(image.target), text_or_empty(image.kernel_name),
                       text_or_empty(image.lowered_name), text_or_empty(image.description));
}

/* kernel_info(kernel handle) -> (status, name: bytes or None, parameter sizes: list or None when the
 * package does not record them) */
static PyObject* native_kernel_info(PyObject* self, PyObject* kernel_object) {
  (void)self;
  if (!require_bound()) return NULL;
  void* kernel;
  if (!handle_argument(kernel_object, &kernel)) return NULL;
  const char* name = entries.kernel_name((const kiln_kernel*)kernel);
  size_t count = 0;
  size_t small[MAX_FAST_PARAMS];
  kiln_status status = entries.kernel_params((const kiln_kernel*)kernel, &count, small, NULL, MAX_FAST_PARAMS);
  if (status != KILN_STATUS_SUCCESS) return Py_BuildValue("(iOO)", (int)status, Py_None, Py_None);
  PyObject* name_bytes = name ? PyBytes_FromString(name) : none_reference();
  if (!name_bytes) return NULL;
  if (count == KILN_PARAMS_UNKNOWN) return Py_BuildValue("(iNO)", (int)status, name_bytes, Py_None);
  size_t* sizes = small;
  if (count > MAX_FAST_PARAMS) {
    sizes = PyMem_Malloc(count * sizeof(size_t));
    if (!sizes) {
      Py_DECREF(name_bytes);
      return PyErr_NoMemory();
    }
    size_t again = 0;
    status = entries.kernel_params((const kiln_kernel*)kernel, &again, sizes, NULL, count);
    if (status != KILN_STATUS_SUCCESS || again != count) {
      PyMem_Free(sizes);
      Py_DECREF(name_bytes);
      return Py_BuildValue("(iOO)", status != KILN_STATUS_SUCCESS ? (int)status : (int)KILN_STATUS_INTERNAL_ERROR, Py_None,
                           Py_None);
    }
  }
  PyObject* list = PyList_New((Py_ssize_t)count);
  for (size_t i = 0; list && i < count; ++i) {
    PyObject* size = PyLong_FromSize_t(sizes[i]);
    if (!size) Py_CLEAR(list);
    else PyList_SetItem(list, (Py_ssize_t)i, size);
  }
  if (sizes != small) PyMem_Free(sizes);
  if (!list) {
    Py_DECREF(name_bytes);
    return NULL;
  }
  return Py_BuildValue("(iNN)", (int)status, name_bytes, list);
}

/* pack(sizes, args) -> (bytes of every slot, offsets) or NotImplemented: what launch() would pass,
 * for the tests, which compare it with _arguments.pointer_array's. */
static PyObject* native_pack(PyObject* self, PyObject* args) {
  (void)self;
  PyObject *sizes, *values;
  if (!PyArg_ParseTuple(args, "OO", &sizes, &values)) return NULL;
  packed_arguments packed;
  int result = pack_all(sizes, values, &packed);
  if (result < 0) return NULL;
  if (result == 0) Py_RETURN_NOTIMPLEMENTED;
  PyObject* offsets = PyList_New((Py_ssize_t)packed.count);
  if (!offsets) return NULL;
  size_t end = 0;
  for (size_t i = 0; i < packed.count; ++i) {
    size_t offset = (size_t)((unsigned char*)packed.pointers[i] - packed.data);
    PyObject* number = PyLong_FromSize_t(offset);
    if (!number) {
      Py_DECREF(offsets);
      return NULL;
    }
    PyList_SetItem(offsets, (Py_ssize_t)i, number);
    end = offset + SLOT_BYTES;
  }
  return Py_BuildValue("(y#N)", (const char*)packed.data, (Py_ssize_t)end, offsets);
}

/* launch(kernel handle, sizes, args, grid, block, shared_mem, stream handle or None) -> status, or
 * NotImplemented for anything the Python path must pack, check or word. */
static PyObject* native_launch(PyObject* self, PyObject* args) {
  (void)self;
  if (!require_bound()) return NULL;
  PyObject *kernel_object, *sizes, *values, *grid_object, *block_object, *shared_object, *stream_object;
  if (!PyArg_ParseTuple(args, "OOOOOOO", &kernel_object, &sizes, &values, &grid_object, &block_object,
                        &shared_object, &stream_object))
    return NULL;
  kiln_dim3 grid, block;
  uint32_t shared = 0;
  if (!plain_dim3(grid_object, &grid) || !plain_dim3(block_object, &block) ||
      !plain_uint32(shared_object, 0, &shared))
    Py_RETURN_NOTIMPLEMENTED;
  void *kernel, *stream;
  if (!handle_argument(kernel_object, &kernel) || !handle_argument(stream_object, &stream)) return NULL;
  packed_arguments packed;
  int result = pack_all(sizes, values, &packed);
  if (result < 0) return NULL;
  if (result == 0) Py_RETURN_NOTIMPLEMENTED;
  kiln_status status;
  Py_BEGIN_ALLOW_THREADS
  status = entries.kernel_launch((kiln_kernel*)kernel, grid, block, shared, stream, packed.pointers, packed.count);
  Py_END_ALLOW_THREADS
  return PyLong_FromLong((long)status);
}

static PyMethodDef methods[] = {
    {"bind", native_bind, METH_O, "bind(handle): look up libkiln's entry points in the dlopen handle"},
    {"open_file", native_open_file, METH_O, "open_file(path) -> (status, package handle)"},
    {"get_kernel", native_get_kernel, METH_VARARGS, "get_kernel(package, name) -> (status, kernel handle)"},
    {"kernel_info", native_kernel_info, METH_O, "kernel_info(kernel) -> (status, name, parameter sizes)"},
    {"find_kernel", native_find_kernel, METH_VARARGS, "find_kernel(package, name) -> (status, index)"},
    {"select_image", native_select_image, METH_VARARGS,
     "select_image(package, name, device) -> (status, (data, kind, cc, target, name, lowered, description))"},
    {"pack", native_pack, METH_VARARGS, "pack(sizes, args) -> (bytes, offsets) or NotImplemented"},
    {"launch", native_launch, METH_VARARGS,
     "launch(kernel, sizes, args, grid, block, shared_mem, stream) -> status or NotImplemented"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "The Kiln binding's first-launch calls in C (optional).", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void) {
  PyObject* created = PyModule_Create(&module);
  if (created && PyModule_AddIntConstant(created, "INTERFACE_VERSION", NATIVE_INTERFACE_VERSION) < 0) Py_CLEAR(created);
  if (created && PyModule_AddIntConstant(created, "MAX_FAST_PARAMS", MAX_FAST_PARAMS) < 0) Py_CLEAR(created);
  return created;
}
