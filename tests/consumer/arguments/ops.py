"""Python code for consumer_arguments' scanning case: the generator finds the request below and
builds fill<float> (kiln_add_cache PYTHON_SOURCES)."""


def requested(package):
    return package.kernel("fill<float>")
