# xxhash for a Windows build (the windows-mingw preset; zstd is compiled from source for every build,
# KilnZstd.cmake): Debian has no MinGW build of it, so its header, used header-only, is Debian's
# copied beside the build: the build machine's /usr/include is never on a Windows compile's include
# path.
set(KILN_XXHASH_HEADER /usr/include/xxhash.h CACHE FILEPATH "xxhash's header (Debian: libxxhash-dev)")
if(NOT EXISTS "${KILN_XXHASH_HEADER}")
  message(FATAL_ERROR "No xxhash header at ${KILN_XXHASH_HEADER}: run scripts/install-deps.sh")
endif()
configure_file(${KILN_XXHASH_HEADER} ${CMAKE_BINARY_DIR}/third_party/xxhash/xxhash.h COPYONLY)
add_library(kiln_xxhash INTERFACE)
target_include_directories(kiln_xxhash SYSTEM INTERFACE ${CMAKE_BINARY_DIR}/third_party/xxhash)
