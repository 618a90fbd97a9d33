# The shared runtime exports the C ABI and nothing else, and needs no CUDA library at load time; the
# export list kiln.dll is linked with (kiln.def, and the MSVC import library made from it) names
# exactly the same functions.
# Usage: cmake -DLIBRARY=<libkiln.so> -DHEADERS=<kiln.h;launch.h;compile.h> -DDEF=<kiln.def> -P check_exports.cmake
cmake_minimum_required(VERSION 3.25)  # IN_LIST
execute_process(COMMAND nm -D --defined-only "${LIBRARY}" OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_exports: nm failed on ${LIBRARY}")
endif()
string(REPLACE "\n" ";" lines "${symbols}")
set(exported "")
set(foreign "")
foreach(line IN LISTS lines)
  # "0000000000006d70 T kiln_kernel_handle"; version definitions ("A KILN_0") would show here too.
  if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] +([^ ]+)$")
    set(name "${CMAKE_MATCH_1}")
    if(name MATCHES "^kiln_")
      list(APPEND exported "${name}")
    else()
      list(APPEND foreign "${name}")
    endif()
  endif()
endforeach()
if(foreign)
  message(FATAL_ERROR "check_exports: ${LIBRARY} exports symbols outside the C ABI: ${foreign}")
endif()

# Every function the C headers declare is exported.
set(declared 0)
foreach(header IN LISTS HEADERS)
  file(STRINGS "${header}" declarations REGEX "^KILN_API ")
  foreach(declaration IN LISTS declarations)
    if(declaration MATCHES "(kiln_[a-z_0-9]+)\\(")
      math(EXPR declared "${declared} + 1")
      if(NOT "${CMAKE_MATCH_1}" IN_LIST exported)
        get_filename_component(file "${header}" NAME)
        message(FATAL_ERROR "check_exports: ${CMAKE_MATCH_1} is declared in ${file} but not exported")
      endif()
    endif()
  endforeach()
endforeach()
# A header list that matched nothing would pass any library.
if(declared EQUAL 0)
  message(FATAL_ERROR "check_exports: no KILN_API declaration found in ${HEADERS}")
endif()

# kiln.def, which kiln.dll is linked with, names exactly these functions.
include(${CMAKE_CURRENT_LIST_DIR}/../support/def_exports.cmake)
kiln_compare_def(check_exports "${LIBRARY}" "${DEF}" ${exported})

execute_process(COMMAND readelf -d "${LIBRARY}" OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_exports: readelf failed on ${LIBRARY}")
endif()
string(REGEX MATCHALL "NEEDED[^\n]*\\[[^]]*\\]" needed "${dynamic}")
foreach(entry IN LISTS needed)
  if(entry MATCHES "libcuda|libnvrtc|libcudart|libnvJitLink")
    message(FATAL_ERROR "check_exports: ${LIBRARY} must not need CUDA libraries at load time: ${entry}")
  endif()
endforeach()
list(LENGTH exported count)
message(STATUS "check_exports: ${count} kiln_* symbols (${declared} declared, all in kiln.def), no CUDA library needed")
