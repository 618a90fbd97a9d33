"""Just enough of the CUDA driver API, through ctypes, for the GPU tests to make device 0's primary
context current, allocate and copy memory, and make streams without CuPy or cuda.core."""

import array
import ctypes
import os

_u64 = ctypes.c_uint64
_p = ctypes.c_void_p
_PROTOTYPES = {
    "cuInit": [ctypes.c_uint],
    "cuDeviceGet": [ctypes.POINTER(ctypes.c_int), ctypes.c_int],
    "cuDeviceGetAttribute": [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int],
    "cuDevicePrimaryCtxRetain": [ctypes.POINTER(_p), ctypes.c_int],
    "cuCtxSetCurrent": [_p],
    "cuCtxSynchronize": [],
    "cuMemAlloc_v2": [ctypes.POINTER(_u64), ctypes.c_size_t],
    "cuMemFree_v2": [_u64],
    "cuMemcpyHtoD_v2": [_u64, _p, ctypes.c_size_t],
    "cuMemcpyDtoH_v2": [_p, _u64, ctypes.c_size_t],
    "cuStreamCreate": [ctypes.POINTER(_p), ctypes.c_uint],
    "cuStreamSynchronize": [_p],
    "cuStreamDestroy_v2": [_p],
}
_COMPUTE_CAPABILITY_MAJOR, _COMPUTE_CAPABILITY_MINOR = 75, 76


class Driver:
    def __init__(self):
        self.lib = ctypes.CDLL(os.environ.get("KILN_LIBCUDA") or "libcuda.so.1")
        for name, arguments in _PROTOTYPES.items():
            function = getattr(self.lib, name)
            function.argtypes, function.restype = arguments, ctypes.c_int
        self.check(self.lib.cuInit(0), "cuInit")
        device = ctypes.c_int()
        self.check(self.lib.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        self.device = device.value
        context = _p()
        self.check(self.lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), self.device), "cuDevicePrimaryCtxRetain")
        self.check(self.lib.cuCtxSetCurrent(context), "cuCtxSetCurrent")

    @staticmethod
    def check(result, call):
        if result != 0:
            raise RuntimeError("%s failed: CUresult %d" % (call, result))

    def compute_capability(self):
        values = []
        for attribute in (_COMPUTE_CAPABILITY_MAJOR, _COMPUTE_CAPABILITY_MINOR):
            value = ctypes.c_int()
            self.check(self.lib.cuDeviceGetAttribute(ctypes.byref(value), attribute, self.device),
                       "cuDeviceGetAttribute")
            values.append(value.value)
        return values[0] * 10 + values[1]

    def synchronize(self):
        self.check(self.lib.cuCtxSynchronize(), "cuCtxSynchronize")

    def stream(self):
        handle = _p()
        self.check(self.lib.cuStreamCreate(ctypes.byref(handle), 1), "cuStreamCreate")  # non-blocking
        return handle.value


class DeviceArray:
    """A 1-D device array with __cuda_array_interface__, filled from an array.array."""

    def __init__(self, driver, values):
        self.driver, self.typecode, self.count = driver, values.typecode, len(values)
        self.nbytes = values.itemsize * len(values)
        pointer = _u64()
        driver.check(driver.lib.cuMemAlloc_v2(ctypes.byref(pointer), self.nbytes), "cuMemAlloc")
        self.pointer = pointer.value
        data = values.tobytes()
        driver.check(driver.lib.cuMemcpyHtoD_v2(self.pointer, data, self.nbytes), "cuMemcpyHtoD")
        typestr = {"f": "<f4", "d": "<f8", "q": "<i8", "i": "<i4"}[values.typecode]
        self.__cuda_array_interface__ = {"shape": (self.count,), "typestr": typestr, "data": (self.pointer, False),
                                         "version": 3}

    def read(self):
        out = ctypes.create_string_buffer(self.nbytes)
        self.driver.check(self.driver.lib.cuMemcpyDtoH_v2(out, self.pointer, self.nbytes), "cuMemcpyDtoH")
        return array.array(self.typecode, out.raw)

    def free(self):
        if self.pointer:
            self.driver.check(self.driver.lib.cuMemFree_v2(self.pointer), "cuMemFree")
            self.pointer = 0
