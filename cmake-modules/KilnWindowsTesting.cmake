# The Windows build's tests (windows-mingw preset): GoogleTest compiled from Debian's source
# (libgtest-dev ships it in /usr/src/googletest) with the cross compiler, and every test binary run
# under Wine through tests/windows/run_under_wine.sh, which reports a missing Wine as skipped.
set(KILN_GOOGLETEST_SOURCE_DIR /usr/src/googletest CACHE PATH "GoogleTest's source (Debian: libgtest-dev)")
if(NOT EXISTS "${KILN_GOOGLETEST_SOURCE_DIR}/CMakeLists.txt")
  message(FATAL_ERROR "No GoogleTest source at ${KILN_GOOGLETEST_SOURCE_DIR}: run scripts/install-deps.sh")
endif()
set(BUILD_GMOCK ON CACHE BOOL "" FORCE)
set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
add_subdirectory(${KILN_GOOGLETEST_SOURCE_DIR} ${CMAKE_BINARY_DIR}/googletest EXCLUDE_FROM_ALL SYSTEM)
# GoogleTest's own tree names its targets GTest::gtest, GTest::gtest_main and GTest::gmock, as its
# installed config does, so the tests link the same names on every system.

# One prefix per build tree: the tests never touch ~/.wine, and its first start (about 15 s) is paid once.
set(KILN_WINE_PREFIX ${CMAKE_BINARY_DIR}/wineprefix)
set(KILN_WINE_RUNNER ${PROJECT_SOURCE_DIR}/tests/windows/run_under_wine.sh)

# Paths compiled into the tests, as Wine sees the build machine's: its root is drive Z:.
set(KILN_TEST_PATH_PREFIX "Z:")
