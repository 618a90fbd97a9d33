"""One sample of open_cost.py, in a fresh process: `open_sample.py none|cupy|cuda.core` makes the
mode's CUDA context current as the benchmark's paths do (launch_paths.py), then opens the example
wheel's package twice through the binding. Prints one JSON line: both opens' times, the number of
loaded objects and where libcuda is mapped from (both differ between the modes), or {"skipped": why}
where the mode's library cannot be imported. Exit status 1 when an open fails."""
import ctypes
import json
import os
import sys
import time

mode = sys.argv[1] if len(sys.argv) == 2 else None
if mode not in ("none", "cupy", "cuda.core"):   # open_cost.MODES
    sys.exit("usage: open_sample.py none|cupy|cuda.core (one sample of open_cost.py)")
try:
    if mode == "cupy":
        import cupy
        cupy.cuda.Device(0).use()
        cupy.cuda.runtime.free(0)
    elif mode == "cuda.core":
        # cuda.core's API as launch_paths.import_cuda_core finds it, without importing launch_paths,
        # whose cases.py imports numpy: this process loads only what the mode needs.
        try:
            from cuda.core import Device
        except ImportError:
            from cuda.core.experimental import Device
        Device(0).set_current()
except ImportError as error:
    print(json.dumps({"skipped": str(error)}))
    sys.exit(0)
import kiln_example
from kiln_example._kiln import _library
with open("/proc/self/maps") as maps:
    mapped = [line.split()[-1] for line in maps if ".so" in line]
runtime = _library.runtime()
path = os.fsencode(kiln_example._PACKAGE_PATH)
clock = time.perf_counter_ns
first, second = ctypes.c_void_p(), ctypes.c_void_p()
start = clock()
status_first = runtime.lib.kiln_package_open_file(path, ctypes.byref(first))
middle = clock()
status_second = runtime.lib.kiln_package_open_file(path, ctypes.byref(second))
end = clock()
if status_first or status_second:
    sys.exit("kiln_package_open_file failed: %d, %d" % (status_first, status_second))
print(json.dumps({"first_us": (middle - start) / 1e3, "second_us": (end - middle) / 1e3,
                  "objects": len(set(mapped)), "libcuda": sorted({m for m in mapped if "libcuda" in m})}))
