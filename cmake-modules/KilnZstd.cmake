# zstd, compiled from Debian's own source package (scripts/install-deps.sh unpacks the source of the
# installed libzstd-dev into .deps/zstd) in two halves, as zstd's lib/README.md ("Modular build")
# describes:
#   kiln_zstd_decoder  common/ + decompress/: what the loader links (it only ever decodes)
#   kiln_zstd          the decoder + compress/: the package writer, the store and the generator
# Without legacy formats (Kiln writes its frames itself, with today's zstd) and without assembly
# (one portable build for Linux and Windows). Where no source is found on Linux, Debian's libzstd.a
# serves both, and the loader then carries the compressor too.
set(KILN_ZSTD_SOURCE_DIR "${PROJECT_SOURCE_DIR}/.deps/zstd" CACHE PATH
    "zstd's source tree (Debian's source package, unpacked by scripts/install-deps.sh)")

if(EXISTS "${KILN_ZSTD_SOURCE_DIR}/lib/zstd.h")
  set(zstd_lib ${KILN_ZSTD_SOURCE_DIR}/lib)
  set(zstd_definitions ZSTD_LEGACY_SUPPORT=0 ZSTD_DISABLE_ASM XXH_NAMESPACE=ZSTD_)
  # A fixed source tree: no CONFIGURE_DEPENDS, whose check makes `ninja -n` plan only a re-run of CMake.
  file(GLOB kiln_zstd_decoder_sources ${zstd_lib}/common/*.c ${zstd_lib}/decompress/*.c)
  # Threads are the compressor's (multi-threaded compression, which Kiln does not use either).
  list(FILTER kiln_zstd_decoder_sources EXCLUDE REGEX "/(pool|threading)\\.c$")
  file(GLOB kiln_zstd_encoder_sources ${zstd_lib}/compress/*.c ${zstd_lib}/common/pool.c
       ${zstd_lib}/common/threading.c)
  add_library(kiln_zstd_decoder STATIC ${kiln_zstd_decoder_sources})
  add_library(kiln_zstd_encoder STATIC ${kiln_zstd_encoder_sources})
  foreach(half kiln_zstd_decoder kiln_zstd_encoder)
    target_compile_definitions(${half} PRIVATE ${zstd_definitions})
    target_include_directories(${half} SYSTEM PUBLIC ${zstd_lib})
    set_target_properties(${half} PROPERTIES POSITION_INDEPENDENT_CODE ON C_VISIBILITY_PRESET hidden
                                             UNITY_BUILD OFF)
    # Under UBSan (the fuzz preset), zstd 1.5.4's own pointer arithmetic on a null buffer of size 0
    # (`src + pos`, which its API allows) is reported as "applying zero offset to null pointer":
    # zstd's, fixed upstream, not Kiln's. The other checks, and ASan, still cover it.
    if(CMAKE_C_FLAGS MATCHES "-fsanitize=[^ ]*undefined")
      target_compile_options(${half} PRIVATE -fno-sanitize=pointer-overflow)
    endif()
  endforeach()
  target_link_libraries(kiln_zstd_encoder PUBLIC kiln_zstd_decoder)
  # The decoder at its smallest (lib/README.md): one Huffman and one sequence decoder, which read every
  # frame, and no second copy of each for BMI2. Images are mostly stored raw, and a compressed one is
  # decoded once per process: size matters more to a loader than the last 20% of decode speed.
  target_compile_definitions(kiln_zstd_decoder PRIVATE HUF_FORCE_DECOMPRESS_X1 ZSTD_FORCE_DECOMPRESS_SEQUENCES_SHORT
                                                       DYNAMIC_BMI2=0)
  add_library(kiln_zstd INTERFACE)
  target_link_libraries(kiln_zstd INTERFACE kiln_zstd_encoder)
  set(KILN_ZSTD_FROM_SOURCE ON)
elseif(WIN32)
  message(FATAL_ERROR "A Windows build compiles zstd from source and found none at ${KILN_ZSTD_SOURCE_DIR}: "
                      "run scripts/install-deps.sh, or set KILN_ZSTD_SOURCE_DIR")
else()
  message(STATUS "Kiln: no zstd source at ${KILN_ZSTD_SOURCE_DIR} (scripts/install-deps.sh unpacks it): "
                 "libkiln links Debian's whole libzstd.a")
  find_path(KILN_ZSTD_INCLUDE_DIR zstd.h REQUIRED)
  find_library(KILN_ZSTD_STATIC NAMES libzstd.a REQUIRED)
  add_library(kiln_zstd INTERFACE)
  target_include_directories(kiln_zstd SYSTEM INTERFACE ${KILN_ZSTD_INCLUDE_DIR})
  target_link_libraries(kiln_zstd INTERFACE ${KILN_ZSTD_STATIC})
  add_library(kiln_zstd_decoder INTERFACE)
  target_link_libraries(kiln_zstd_decoder INTERFACE kiln_zstd)
  set(KILN_ZSTD_FROM_SOURCE OFF)
endif()
