"""consumer_pybind11's package: the extension and its kernels, side by side."""
from ._ext import kernel_names, open_missing, runtime_version  # noqa: F401
