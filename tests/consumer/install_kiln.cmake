# consumer_install: installs Kiln's build into STAGE, moves the tree to PREFIX (an installed Kiln
# must not depend on where it was installed), and checks what is there.
#   cmake -DKILN_BUILD_DIR=... -DSTAGE=... -DPREFIX=... -P install_kiln.cmake
include(${CMAKE_CURRENT_LIST_DIR}/consumer_support.cmake)

file(REMOVE_RECURSE ${STAGE} ${PREFIX})
kiln_run(ignored ${CMAKE_COMMAND} --install ${KILN_BUILD_DIR} --prefix ${STAGE})
file(RENAME ${STAGE} ${PREFIX})

set(expected bin/kiln include/kiln/kiln.h include/kiln/launch.h include/kiln/compile.h include/kiln/kiln.hpp include/kiln/error.hpp
    include/kiln/kernel.hpp include/kiln/name_of.hpp include/kiln/program.hpp lib/libkiln.so lib/libkiln.so.0
    lib/libkiln_static.a
    lib/cmake/Kiln/KilnConfig.cmake lib/cmake/Kiln/KilnConfigVersion.cmake lib/cmake/Kiln/KilnTargets.cmake
    lib/cmake/Kiln/KilnFunctions.cmake lib/pkgconfig/kiln.pc)
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
foreach(binary bin/kiln lib/libkiln.so.0)
  kiln_run(dynamic readelf -d ${PREFIX}/${binary})
  kiln_expect("${dynamic}" NOT_MATCHES "${STAGE}|${KILN_BUILD_DIR}" "RUNPATH of ${binary}")
endforeach()
