"""The build-time Python scan (generator/src/scan/python_requests.py) counts a call as a request only
where it has the shape of one of the binding's methods that take a name. Its SHAPES must be those
methods' signatures exactly: a parameter added here and not there would make real requests
invisible (or a CuPy call a request)."""

import importlib.util
import inspect
import os

import kiln

SCRIPT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "generator", "src",
                                       "scan", "python_requests.py"))


def _scanner():
    spec = importlib.util.spec_from_file_location("kiln_python_requests", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _shape_of(method):
    """(positional parameters, keyword-only parameters, how many positional ones are required)."""
    parameters = list(inspect.signature(method).parameters.values())[1:]   # without self
    positional = tuple(p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD)
    keyword_only = tuple(p.name for p in parameters if p.kind is p.KEYWORD_ONLY)
    required = sum(1 for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty)
    return positional, keyword_only, required


def test_every_scanned_method_has_the_bindings_shape():
    shapes = _scanner().SHAPES
    for method, shape in shapes.items():
        assert shape == _shape_of(getattr(kiln.Package, method)), method


def test_every_method_of_the_binding_that_takes_a_name_is_scanned():
    shapes = _scanner().SHAPES
    takes_a_name = {name for name, member in inspect.getmembers(kiln.Package, inspect.isfunction)
                    if not name.startswith("_") and list(inspect.signature(member).parameters)[1:2] == ["name"]}
    assert takes_a_name == set(shapes)
