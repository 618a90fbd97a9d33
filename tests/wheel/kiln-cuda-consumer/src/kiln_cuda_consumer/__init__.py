"""kiln_wheel_requires' project: its kernels.kiln was built by the kiln of the kiln-cuda wheel."""
