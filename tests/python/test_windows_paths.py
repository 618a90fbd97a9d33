"""The binding's Windows paths, as plain logic on Linux (no Windows CPython can be had here): the
library's name, where it is looked for and how messages name the search, and where the NVIDIA
wheels keep their DLLs. Loading kiln.dll itself has not run: see docs/python.md."""

import ntpath

from kiln import _compile, _library


def test_the_library_is_kiln_dll_on_windows_and_libkiln_so_elsewhere():
    assert _library.library_file("win32") == "kiln.dll"
    assert _library.library_file("linux") == "libkiln.so.0"
    assert _library.system_search("win32") == "Windows' DLL search"
    assert _library.system_search("linux") == "the dynamic loader's search"


def test_a_wheel_s_kiln_dll_beside_the_binding_is_the_one_loaded():
    binding = r"C:\Users\me\venv\Lib\site-packages\mypkg\_kiln"
    beside = ntpath.join(binding, "kiln.dll")
    target, description, passed = _library._candidate(
        environ={}, binding_dir=binding, platform="win32", exists=lambda path: path == beside)
    assert target == beside
    assert description == beside + " (beside the binding)"
    assert passed == ["$KILN_LIBRARY (not set)"]


def test_without_one_beside_it_kiln_dll_comes_from_windows_search_and_the_message_says_so():
    binding = r"C:\site-packages\kiln"
    target, description, passed = _library._candidate(
        environ={}, binding_dir=binding, platform="win32", exists=lambda path: False)
    assert target == "kiln.dll"
    assert description == "kiln.dll through Windows' DLL search"
    assert passed[-1] == ntpath.join(binding, "kiln.dll") + " (beside the binding): no such file"


def test_kiln_library_wins_on_windows_too_even_with_a_copy_beside():
    explicit = r"D:\builds\kiln\bin\kiln.dll"
    target, description, passed = _library._candidate(
        environ={"KILN_LIBRARY": explicit}, binding_dir=r"C:\x", platform="win32", exists=lambda path: True)
    assert (target, description, passed) == (explicit, "$KILN_LIBRARY=" + explicit, [])


def test_the_nvidia_wheels_keep_their_dlls_in_bin_on_windows():
    assert _compile.wheel_library_dirs("win32") == ("cu13/bin/x86_64", "cu13/bin", "cuda_nvrtc/bin", "nvjitlink/bin")
    assert _compile.wheel_library_dirs("linux") == ("cu13/lib", "cuda_nvrtc/lib", "nvjitlink/lib")
