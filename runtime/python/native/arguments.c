/* Packing kiln._native's launch arguments (arguments.h): argument kinds by type, classified once
 * by module and name as _arguments._packer_for does; the bytes of each kind; the launch geometry. */
#include "arguments.h"

#include <math.h>
#include <string.h>

/* ---- Argument kinds, by type ------------------------------------------------------------------ */

typedef enum {
  KIND_OTHER = 0,  /* the Python path decides */
  KIND_SIGNED,     /* numpy.int8 ... numpy.int64 */
  KIND_UNSIGNED,   /* numpy.uint8 ... numpy.uint64 */
  KIND_FLOAT32,
  KIND_FLOAT64,
  KIND_BOOL,       /* numpy.bool_ (numpy.bool in numpy 2) */
  KIND_CUPY_ARRAY  /* cupy.ndarray: .data.ptr */
} arg_kind;

typedef struct {
  PyTypeObject* type; /* a strong reference: a type kept here is never freed and its address reused */
  arg_kind kind;
  size_t size;
} known_type;

/* The types seen so far, classified once by module and name as _arguments._packer_for does. A
 * program passes few types; past this many the rest are classified on every call. */
#define KNOWN_TYPES 32
static known_type known[KNOWN_TYPES];
static int known_count;

static const struct {
  const char* name;
  arg_kind kind;
  size_t size;
} numpy_scalars[] = {
    {"int8", KIND_SIGNED, 1},    {"int16", KIND_SIGNED, 2},   {"int32", KIND_SIGNED, 4},
    {"int64", KIND_SIGNED, 8},   {"uint8", KIND_UNSIGNED, 1}, {"uint16", KIND_UNSIGNED, 2},
    {"uint32", KIND_UNSIGNED, 4}, {"uint64", KIND_UNSIGNED, 8}, {"float32", KIND_FLOAT32, 4},
    {"float64", KIND_FLOAT64, 8}, {"bool", KIND_BOOL, 1},     {"bool_", KIND_BOOL, 1},
};

/* Whether a type's attribute (`__module__`, `__name__`) is the text `expected`. An attribute that
 * could not be read (null) or is not text is not: the Python path decides such a type. */
static int attribute_is(PyObject* text, const char* expected) {
  return text && PyUnicode_Check(text) && PyUnicode_CompareWithASCIIString(text, expected) == 0;
}

/* Whether such an attribute begins with `prefix`. Errors are cleared: a type whose name cannot be
 * read is one the Python path decides. */
static int attribute_starts_with(PyObject* text, const char* prefix) {
  if (!text || !PyUnicode_Check(text)) return 0;
  PyObject* start = PyUnicode_FromString(prefix);
  if (!start) {
    PyErr_Clear();
    return 0;
  }
  Py_ssize_t match = PyUnicode_Tailmatch(text, start, 0, PY_SSIZE_T_MAX, -1);
  Py_DECREF(start);
  if (match < 0) PyErr_Clear();
  return match == 1;
}

static known_type classify(PyTypeObject* type) {
  known_type result = {type, KIND_OTHER, 0};
  PyObject* module = PyObject_GetAttrString((PyObject*)type, "__module__");
  PyObject* name = module ? PyObject_GetAttrString((PyObject*)type, "__name__") : NULL;
  if (!name) PyErr_Clear();
  if (attribute_is(module, "numpy")) {
    for (size_t i = 0; i < sizeof numpy_scalars / sizeof numpy_scalars[0]; ++i)
      if (attribute_is(name, numpy_scalars[i].name)) {
        result.kind = numpy_scalars[i].kind;
        result.size = numpy_scalars[i].size;
      }
  } else if (attribute_is(name, "ndarray") && (attribute_is(module, "cupy") || attribute_starts_with(module, "cupy."))) {
    result.kind = KIND_CUPY_ARRAY;
    result.size = sizeof(void*);
  }
  Py_XDECREF(module);
  Py_XDECREF(name);
  return result;
}

static known_type kind_of(PyTypeObject* type) {
  for (int i = 0; i < known_count; ++i)
    if (known[i].type == type) return known[i];
  known_type found = classify(type);
  if (known_count < KNOWN_TYPES) {
    Py_INCREF((PyObject*)type);
    known[known_count++] = found;
  }
  return found;
}

/* ---- Packing ---------------------------------------------------------------------------------- */

static void store_little_endian(unsigned char* out, uint64_t value, size_t size) {
  for (size_t i = 0; i < size; ++i) out[i] = (unsigned char)(value >> (8 * i));
}

/* An int value that fits a `size`-byte parameter, signed or unsigned, as the Python path takes it:
 * -(2^(bits-1)) <= value < 2^bits. 1: stored; 0: not taken (no error left set); -1: an error. */
static int pack_integer(PyObject* number, size_t size, unsigned char* out) {
  if (size != 1 && size != 2 && size != 4 && size != 8) return 0;
  int overflow = 0;
  long long value = PyLong_AsLongLongAndOverflow(number, &overflow);
  if (value == -1 && PyErr_Occurred()) return -1;
  if (overflow == 0) {
    if (size < 8) {
      long long bits = 8 * (long long)size;
      if (value < -(1LL << (bits - 1)) || value >= (1LL << bits)) return 0;
    }
    store_little_endian(out, (uint64_t)value, size);
    return 1;
  }
  if (overflow < 0 || size != 8) return 0;
  unsigned long long unsigned_value = PyLong_AsUnsignedLongLong(number);
  if (unsigned_value == (unsigned long long)-1 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
    PyErr_Clear();
    return 0;
  }
  store_little_endian(out, unsigned_value, 8);
  return 1;
}

/* A finite double or one too large for the parameter is left to the Python path: it raises the
 * overflow as a mismatch naming the argument; a NaN keeps its payload only there (tobytes). */
static int pack_real(double value, size_t size, unsigned char* out) {
  if (isnan(value)) return 0;
  if (size == 8) {
    uint64_t bits;
    memcpy(&bits, &value, 8);
    store_little_endian(out, bits, 8);
    return 1;
  }
  if (size == 4) {
    float narrow = (float)value;
    if (isinf(narrow) && !isinf(value)) return 0;
    uint32_t bits;
    memcpy(&bits, &narrow, 4);
    store_little_endian(out, bits, 4);
    return 1;
  }
  return 0;
}

static int pack_index(PyObject* value, size_t size, unsigned char* out) {
  PyObject* number = PyNumber_Index(value);
  if (!number) return -1;
  int packed = pack_integer(number, size, out);
  Py_DECREF(number);
  return packed;
}

static int pack_cupy_pointer(PyObject* array, unsigned char* out) {
  PyObject* memory = PyObject_GetAttrString(array, "data");
  if (!memory) return -1;
  PyObject* pointer = PyObject_GetAttrString(memory, "ptr");
  Py_DECREF(memory);
  if (!pointer) return -1;
  int packed = PyLong_Check(pointer) ? pack_integer(pointer, sizeof(void*), out) : 0;
  Py_DECREF(pointer);
  return packed;
}

/* One argument for a `size`-byte parameter: 1 packed, 0 not taken, -1 an error. */
static int pack_argument(PyObject* value, size_t size, unsigned char* out) {
  if (PyFloat_CheckExact(value)) {
    double real = PyFloat_AsDouble(value);
    return pack_real(real, size, out);
  }
  if (PyLong_CheckExact(value)) return pack_integer(value, size, out);
  known_type type = kind_of(Py_TYPE(value));
  if (type.kind == KIND_OTHER || type.size != size) return 0;
  switch (type.kind) {
    case KIND_SIGNED:
    case KIND_UNSIGNED:
      return pack_index(value, size, out);
    case KIND_FLOAT32:
    case KIND_FLOAT64: {
      double real = PyFloat_AsDouble(value);
      if (real == -1.0 && PyErr_Occurred()) return -1;
      return pack_real(real, size, out);
    }
    case KIND_BOOL: {
      int truth = PyObject_IsTrue(value);
      if (truth < 0) return -1;
      out[0] = (unsigned char)truth;
      return 1;
    }
    case KIND_CUPY_ARRAY:
      return pack_cupy_pointer(value, out);
    default:
      return 0;
  }
}

/* A tuple's or list's length and items (borrowed), or -1 for anything else. */
static Py_ssize_t sequence_length(PyObject* sequence) {
  if (PyTuple_Check(sequence)) return PyTuple_Size(sequence);
  if (PyList_Check(sequence)) return PyList_Size(sequence);
  return -1;
}

static PyObject* sequence_item(PyObject* sequence, Py_ssize_t index) {
  return PyTuple_Check(sequence) ? PyTuple_GetItem(sequence, index) : PyList_GetItem(sequence, index);
}

/* Packs `args` by `sizes` (both tuples or lists of the same length). 1 packed, 0 not taken, -1 an
 * error. Each item is held while it is packed: packing a CuPy array runs its code. */
int pack_all(PyObject* sizes, PyObject* args, packed_arguments* out) {
  Py_ssize_t count = sequence_length(args);
  if (count < 0 || count > MAX_FAST_PARAMS || sequence_length(sizes) != count) return 0;
  memset(out->data, 0, (size_t)count * SLOT_BYTES);
  for (Py_ssize_t i = 0; i < count; ++i) {
    PyObject* size_object = sequence_item(sizes, i);
    PyObject* value = sequence_item(args, i);
    if (!size_object || !value) return -1;
    size_t size = PyLong_AsSize_t(size_object);
    if (size == (size_t)-1 && PyErr_Occurred()) return -1;
    if (size > SLOT_BYTES) return 0;
    Py_INCREF(value);
    int packed = pack_argument(value, size, out->data + (size_t)i * SLOT_BYTES);
    Py_DECREF(value);
    if (packed != 1) return packed;
    out->pointers[i] = out->data + (size_t)i * SLOT_BYTES;
  }
  out->count = (size_t)count;
  return 1;
}

/* ---- Geometry --------------------------------------------------------------------------------- */

/* A plain int in [minimum, UINT32_MAX]. 1 stored, 0 not taken. */
int plain_uint32(PyObject* value, uint32_t minimum, uint32_t* out) {
  if (!PyLong_CheckExact(value)) return 0;
  int overflow = 0;
  long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (overflow || (number == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return 0;
  }
  if (number < (long long)minimum || number > (long long)UINT32_MAX) return 0;
  *out = (uint32_t)number;
  return 1;
}

/* An int or a tuple of 1 to 3 ints, each at least 1 (_launch.dim3's fast cases). */
int plain_dim3(PyObject* value, kiln_dim3* out) {
  uint32_t parts[3] = {1, 1, 1};
  if (PyLong_CheckExact(value)) {
    if (!plain_uint32(value, 1, &parts[0])) return 0;
  } else if (PyTuple_CheckExact(value)) {
    Py_ssize_t count = PyTuple_Size(value);
    if (count < 1 || count > 3) return 0;
    for (Py_ssize_t i = 0; i < count; ++i)
      if (!plain_uint32(PyTuple_GetItem(value, i), 1, &parts[i])) return 0;
  } else {
    return 0;
  }
  out->x = parts[0];
  out->y = parts[1];
  out->z = parts[2];
  return 1;
}
