# The test binaries a Windows build has, by their directory under tests/ (tests/CMakeLists.txt
# builds them in the windows-mingw tree; tests/windows/CMakeLists.txt gives the default tree one
# CTest entry for each): the runtime's tests that need no GPU, no NVRTC and no Python.
set(KILN_WINDOWS_TEST_BINARIES format/format_tests select/select_tests store/store_tests driver/driver_tests
    runtime/runtime_tests)
