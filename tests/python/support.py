"""Helpers for the Python binding's tests."""

import os
import subprocess
import sys

# The binding's source directory (the tests import it from there through PYTHONPATH).
BINDING_DIR = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime",
                                            "python", "kiln"))


def run_python(code, env_changes=None, cwd=None):
    """Runs `code` in a fresh interpreter (for what a process does only once: loading libkiln or
    the driver) with the environment changed by `env_changes` (None values remove a variable)."""
    env = dict(os.environ)
    for name, value in (env_changes or {}).items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=120)
