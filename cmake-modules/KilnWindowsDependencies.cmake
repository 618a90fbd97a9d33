# zstd and xxhash for a Windows build (the windows-mingw preset): Debian has no MinGW builds of
# them, so zstd is compiled from Debian's own source package (scripts/install-deps.sh unpacks it
# into .deps/zstd) and xxhash, used header-only, is Debian's header copied beside the build: the
# build machine's /usr/include is never on a Windows compile's include path.
set(KILN_ZSTD_SOURCE_DIR "${PROJECT_SOURCE_DIR}/.deps/zstd" CACHE PATH
    "zstd's source tree (Debian's source package, unpacked by scripts/install-deps.sh)")
if(NOT EXISTS "${KILN_ZSTD_SOURCE_DIR}/lib/zstd.h")
  message(FATAL_ERROR "A Windows build compiles zstd from source and found none at ${KILN_ZSTD_SOURCE_DIR}: "
                      "run scripts/install-deps.sh, or set KILN_ZSTD_SOURCE_DIR")
endif()
file(GLOB kiln_zstd_sources CONFIGURE_DEPENDS
     ${KILN_ZSTD_SOURCE_DIR}/lib/common/*.c
     ${KILN_ZSTD_SOURCE_DIR}/lib/compress/*.c
     ${KILN_ZSTD_SOURCE_DIR}/lib/decompress/*.c)
add_library(kiln_zstd_library STATIC ${kiln_zstd_sources})
# No assembly (the Huffman decoder's .S is for ELF) and no threads: Kiln compresses on one thread.
target_compile_definitions(kiln_zstd_library PRIVATE ZSTD_DISABLE_ASM XXH_NAMESPACE=ZSTD_)
target_include_directories(kiln_zstd_library PUBLIC ${KILN_ZSTD_SOURCE_DIR}/lib)
set_target_properties(kiln_zstd_library PROPERTIES POSITION_INDEPENDENT_CODE ON)
add_library(kiln_zstd INTERFACE)
target_include_directories(kiln_zstd SYSTEM INTERFACE ${KILN_ZSTD_SOURCE_DIR}/lib)
target_link_libraries(kiln_zstd INTERFACE kiln_zstd_library)

set(KILN_XXHASH_HEADER /usr/include/xxhash.h CACHE FILEPATH "xxhash's header (Debian: libxxhash-dev)")
if(NOT EXISTS "${KILN_XXHASH_HEADER}")
  message(FATAL_ERROR "No xxhash header at ${KILN_XXHASH_HEADER}: run scripts/install-deps.sh")
endif()
configure_file(${KILN_XXHASH_HEADER} ${CMAKE_BINARY_DIR}/third_party/xxhash/xxhash.h COPYONLY)
add_library(kiln_xxhash INTERFACE)
target_include_directories(kiln_xxhash SYSTEM INTERFACE ${CMAKE_BINARY_DIR}/third_party/xxhash)
