"""Shared by the wheel test scripts: running commands and failing with what they printed."""
import subprocess
import sys


def fail(message):
    print(f"FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def run_status(command, **kwargs):
    """Runs `command`; returns its exit status and its stdout and stderr together."""
    try:
        result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)
    except FileNotFoundError:
        fail(f"cannot run {command[0]}: no such program")
    return result.returncode, result.stdout


def run(command, what, *, expect=0, **kwargs):
    """Runs `command`; fails the test unless it exits `expect`. Returns its stdout and stderr."""
    status, output = run_status(command, **kwargs)
    if status != expect:
        fail(f"{what} exited {status}, expected {expect}: {' '.join(map(str, command))}\n{output}")
    return output


def show(title, text):
    """Prints a block of output under a title, for ctest --output-on-failure and -V."""
    print(f"--- {title}")
    print("    " + text.rstrip().replace("\n", "\n    "))


def make_venv(path, with_pip=True):
    """A fresh virtual environment with nothing but pip (with_pip=False: nothing, in a twentieth of the
    time; install into it with this interpreter's pip --python); returns its interpreter and site-packages."""
    import shutil
    from pathlib import Path

    shutil.rmtree(path, ignore_errors=True)
    run([sys.executable, "-m", "venv", *([] if with_pip else ["--without-pip"]), str(path)], "python -m venv")
    python = Path(path) / "bin" / "python"
    site = run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['platlib'])"], "sysconfig")
    return python, Path(site.strip())


def pip_install(python, *wheels):
    """Installs wheels offline: no index, no dependencies, no cache."""
    return run([str(python), "-m", "pip", "install", "--no-index", "--no-deps", "--no-cache-dir",
                "--disable-pip-version-check", *map(str, wheels)], "pip install")


def snapshot(root):
    """Every file and directory under root, with its size and modification time."""
    import os

    entries = {}
    for directory, subdirs, files in os.walk(root):
        for name in subdirs + files:
            path = os.path.join(directory, name)
            info = os.lstat(path)
            entries[os.path.relpath(path, root)] = (info.st_size, info.st_mtime_ns)
    return entries
