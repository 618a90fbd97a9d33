# Finds the kernel names that Python code asks the Kiln binding for as constant strings:
#
#     pkg.kernel("scale<float, 4>")   pkg.image(name="k")   self.pkg.cupy_kernel("a" "b")
#
# A request is a method call (any `<expr>.method(...)`) named kernel, image, cupy_kernel,
# cuda_core_kernel or coverage (a kernel), or global_address (a variable), whose name argument, the
# first positional one or `name=`, is a constant string. Python's own parser reads the files, so
# comments, strings and docstrings that merely contain `.kernel("x")` never count.
#
# The object before the dot is unknown, so a call counts only where it has the shape of the binding's
# method (SHAPES): CuPy's `self.kernel(grid, block, args)` passes more positional arguments than
# Package.kernel takes and is no call to Kiln, so it is neither a request nor a warning. A call with
# `# kiln: ignore` in a comment on one of its lines is skipped whatever it holds.
#
# kiln embeds this file (generator/src/scan/CMakeLists.txt) and runs it as
# `python -I -c <this file> FILE...`. It prints one line,
#     KILN-PYTHON-SCAN {"python": "3.11.7", "files": [{"requests": [...], "non_constant": [...],
#                                                      "errors": [...]}, ...]}
# with one entry per FILE, in order:
#     requests:     {"what": "kernel" | "variable", "method", "name", "line", "column"}
#     non_constant: {"what", "method", "argument": what it is instead ("the variable 'n'"), "line", "column"}
#     errors:       {"kind": "syntax" | "parse" | "read", "message", "line", "column"}   (line 0: the file)
# Lines are 1-based, columns 1-based UTF-8 byte offsets, as clang's. Without that line (a traceback
# instead) the scan failed. Written for Python 3.8 and later; older ones get {"unsupported": why}
# (the version check itself parses on any Python).
import sys

MARKER = "KILN-PYTHON-SCAN "

# The binding's methods that take a name (runtime/python/kiln/_package.py), each as
# (parameters it takes by position, in order; parameters it takes by keyword only; how many of the
# positional ones a call must give). tests/python/test_scan_shapes.py checks them against the
# binding's signatures, so the two cannot drift apart.
SHAPES = {
    "kernel": (("name",), (), 1),
    "image": (("name", "device"), ("arch", "driver_version"), 1),
    "cupy_kernel": (("name",), (), 1),
    "cuda_core_kernel": (("name", "device"), (), 1),
    "coverage": (("name", "arch", "driver_version"), (), 2),
    "global_address": (("name",), (), 1),
}
VARIABLE_METHODS = ("global_address",)
IGNORE_COMMENT = r"\bkiln:\s*ignore\b"


def emit(result):
    import json
    sys.stdout.write(MARKER + json.dumps(result, sort_keys=True) + "\n")


def constant_text(node):
    """The string an expression always evaluates to, or None. Implicit concatenation ("a" "b") is one
    Constant already; "a" + "b" and f-strings without placeholders are folded here too."""
    import ast
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = constant_text(node.left), constant_text(node.right)
        return left + right if left is not None and right is not None else None
    if isinstance(node, ast.JoinedStr):
        parts = [constant_text(value) for value in node.values]
        return "".join(parts) if all(part is not None for part in parts) else None
    return None


def describe(node):
    """What the name argument is, for the warning: 'an f-string', 'the variable chosen', ..."""
    import ast
    if isinstance(node, ast.JoinedStr):
        return "an f-string with placeholders"
    if isinstance(node, ast.Name):
        return "the variable '" + node.id + "'"
    if isinstance(node, ast.Attribute):
        return "the attribute '" + node.attr + "'"
    if isinstance(node, ast.Starred):
        return "unpacked arguments (*args)"
    return "an expression"


def encodable(text):
    """Whether a name can travel as UTF-8: one with a lone surrogate escape in it cannot."""
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def name_argument(call):
    """The node holding the name and what it is when it is not a constant, or (None, None) when the
    call passes no name (obj.kernel() is some other API)."""
    if call.args:
        return call.args[0], describe(call.args[0])
    for keyword in call.keywords:
        if keyword.arg == "name":
            return keyword.value, describe(keyword.value)
    for keyword in call.keywords:
        if keyword.arg is None:       # **options: the name may be in there
            return keyword.value, "unpacked keyword arguments (**kwargs)"
    return None, None


def has_binding_shape(call, shape):
    """Whether the binding's method could accept this call's arguments: no more positional ones than
    it takes, no keyword it lacks, none given twice, and the required ones all there. Unpacked
    arguments (*args, **kwargs) may hold anything, so they are taken to fit."""
    import ast
    positional, keyword_only, required = shape
    explicit = [a for a in call.args if not isinstance(a, ast.Starred)]
    unpacked = len(explicit) != len(call.args) or any(k.arg is None for k in call.keywords)
    if len(explicit) > len(positional):
        return False
    given = set(positional[:len(explicit)])
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        if keyword.arg in given or (keyword.arg not in positional and keyword.arg not in keyword_only):
            return False
        given.add(keyword.arg)
    return unpacked or all(name in given for name in positional[:required])


def cannot_be_a_name(node):
    """Whether the name argument is a literal that is no string (a number, None, bytes, a tuple, a
    list, a lambda...): the binding refuses it (TypeError), so the call is to something else."""
    import ast
    if isinstance(node, ast.Constant):
        return not isinstance(node.value, str)
    return isinstance(node, (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
                             ast.GeneratorExp, ast.Lambda))


def ignored_lines(data):
    """The lines with a `# kiln: ignore` comment. The tokenizer tells comments from strings; it runs
    only on files that hold the text at all."""
    import io
    import re
    import tokenize
    if b"kiln:" not in data:
        return set()
    lines = set()
    try:
        for token in tokenize.tokenize(io.BytesIO(data).readline):
            if token.type == tokenize.COMMENT and re.search(IGNORE_COMMENT, token.string):
                lines.add(token.start[0])
    except (tokenize.TokenError, SyntaxError, ValueError):   # ast parsed it; keep what was read
        pass
    return lines


def scan_file(path):
    import ast
    import warnings
    found = {"requests": [], "non_constant": [], "errors": []}
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        found["errors"].append({"kind": "read", "line": 0, "column": 0, "message": error.strerror or str(error)})
        return found
    try:
        with warnings.catch_warnings():   # SyntaxWarnings (invalid escapes) are not ours to report
            warnings.simplefilter("ignore")
            tree = ast.parse(data, filename=path)
    except SyntaxError as error:
        found["errors"].append({"kind": "syntax", "line": error.lineno or 0, "column": error.offset or 0,
                                "message": error.msg or "invalid syntax"})
        return found
    except (ValueError, RecursionError, MemoryError) as error:   # NUL bytes, absurd nesting
        found["errors"].append({"kind": "parse", "line": 0, "column": 0,
                                "message": str(error) or type(error).__name__})
        return found
    ignored = ignored_lines(data)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        method = node.func.attr
        if method not in SHAPES or not has_binding_shape(node, SHAPES[method]):
            continue
        argument, what_it_is = name_argument(node)
        if argument is None or cannot_be_a_name(argument):
            continue
        if ignored and any(line in ignored for line in range(node.lineno, node.end_lineno + 1)):
            continue
        place = {"line": argument.lineno, "column": argument.col_offset + 1, "method": method,
                 "what": "variable" if method in VARIABLE_METHODS else "kernel"}
        try:
            text = constant_text(argument)
        except RecursionError:           # "a" + "b" + ... thousands deep
            text, what_it_is = None, "an expression too deep to evaluate"
        if text is not None and not encodable(text):
            text, what_it_is = None, "a string that is not valid UTF-8"
        if text is not None:
            place["name"] = text
            found["requests"].append(place)
        else:
            place["argument"] = what_it_is
            found["non_constant"].append(place)
    for entries in found.values():
        entries.sort(key=lambda e: (e["line"], e["column"]))
    return found


def main(paths):
    version = "%d.%d.%d" % sys.version_info[:3]
    if sys.version_info < (3, 8):
        emit({"python": version, "unsupported": "Python 3.8 or later is needed", "files": []})
        return 0
    emit({"python": version, "files": [scan_file(path) for path in paths]})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
