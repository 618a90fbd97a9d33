# consumer_install: installs Kiln's build into STAGE, moves the tree to PREFIX (an installed Kiln
# must not depend on where it was installed), and checks what is there.
#   cmake -DKILN_BUILD_DIR=... -DSTAGE=... -DPREFIX=... -P install_kiln.cmake
include(${CMAKE_CURRENT_LIST_DIR}/consumer_support.cmake)

file(REMOVE_RECURSE ${STAGE} ${PREFIX})
kiln_run(ignored ${CMAKE_COMMAND} --install ${KILN_BUILD_DIR} --prefix ${STAGE})
file(RENAME ${STAGE} ${PREFIX})

set(expected bin/kiln include/kiln/kiln.h include/kiln/launch.h include/kiln/compile.h include/kiln/kiln.hpp include/kiln/error.hpp
    include/kiln/kernel.hpp include/kiln/name_of.hpp include/kiln/program.hpp lib/libkiln.so lib/libkiln.so.0
    lib/libkiln_static.a lib/libkiln_jit.so lib/libkiln_jit.so.0 lib/libkiln_jit_static.a
    lib/cmake/Kiln/KilnConfig.cmake lib/cmake/Kiln/KilnConfigVersion.cmake lib/cmake/Kiln/KilnTargets.cmake
    lib/cmake/Kiln/KilnFunctions.cmake lib/cmake/Kiln/KilnPackagePlacement.cmake lib/cmake/Kiln/KilnPlacePackage.cmake
    lib/pkgconfig/kiln.pc share/doc/kiln/manifest.md share/doc/kiln/cmake.md share/kiln/python/kiln/installed-library-dir)
foreach(file IN LISTS expected)
  if(NOT EXISTS ${PREFIX}/${file})
    message(FATAL_ERROR "the install has no ${file}")
  endif()
endforeach()
file(GLOB_RECURSE installed RELATIVE ${PREFIX} ${PREFIX}/*)
list(SORT installed)
string(REPLACE ";" "\n  " listing "${installed}")
message(STATUS "installed:\n  ${listing}")

# Nothing may name the place it was installed to, nor Kiln's build or source tree.
file(GLOB_RECURSE text_files ${PREFIX}/lib/cmake/* ${PREFIX}/lib/pkgconfig/*)
foreach(file IN LISTS text_files)
  file(READ ${file} content)
  foreach(path ${STAGE} ${KILN_BUILD_DIR})
    string(FIND "${content}" "${path}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${file} names ${path}")
    endif()
  endforeach()
endforeach()
foreach(binary bin/kiln lib/libkiln.so.0 lib/libkiln_jit.so.0)
  kiln_run(dynamic readelf -d ${PREFIX}/${binary})
  kiln_expect("${dynamic}" NOT_MATCHES "${STAGE}|${KILN_BUILD_DIR}" "RUNPATH of ${binary}")
endforeach()
# The loader and the compile library NEED no CUDA library and not each other: libkiln loads the
# compile library when a kernel must be compiled, and that one loads NVRTC and nvJitLink with dlopen.
foreach(binary lib/libkiln.so.0 lib/libkiln_jit.so.0)
  kiln_run(dynamic readelf -d ${PREFIX}/${binary})
  kiln_expect("${dynamic}" NOT_MATCHES "NEEDED[^\n]*(libcuda|libnvrtc|libnvJitLink|libkiln)" "NEEDED of ${binary}")
endforeach()
kiln_run(exports nm -D --defined-only ${PREFIX}/lib/libkiln_jit.so.0)
string(REGEX MATCHALL "[^\n]+" export_lines "${exports}")
list(LENGTH export_lines export_count)
if(NOT export_count EQUAL 1 OR NOT exports MATCHES " T kiln_jit_compile_library")
  message(FATAL_ERROR "libkiln_jit.so.0 must export its entry point alone; it exports:\n${exports}")
endif()
