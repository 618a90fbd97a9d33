# Copies a Kiln package into the directory a module is built in, as <NAME>.kiln (and, for a SPLIT
# package, its companions as <NAME>.cc<major>.kiln), each only if it differs from the copy there.
# KilnPackagePlacement.cmake's rules run it at build time:
#   cmake -DPACKAGE=<file> -DNAME=<name> -DSPLIT=TRUE|FALSE -DDESTINATION_FILE=<file naming the directory>
#         -DFOR=<target> -P KilnPlacePackage.cmake
# The directory comes in a file written by file(GENERATE) ($<TARGET_FILE_DIR:...>), known only at
# generate time.
file(READ "${DESTINATION_FILE}" destination)
file(MAKE_DIRECTORY "${destination}")   # before the module's link has made it
set(copies "${PACKAGE}=${NAME}.kiln")
if(SPLIT)
  string(REGEX REPLACE "\\.kiln$" "" stem "${PACKAGE}")
  file(GLOB companions "${stem}.cc*.kiln")
  foreach(companion IN LISTS companions)
    if(companion MATCHES "\\.cc[0-9]+\\.kiln$")
      list(APPEND copies "${companion}=${NAME}${CMAKE_MATCH_0}")
    endif()
  endforeach()
endif()
# Each copy is written beside its destination under a name of this rule's own, then renamed over it:
# two modules built in one directory (a MODULE and a SHARED library in CMAKE_LIBRARY_OUTPUT_DIRECTORY)
# place the same package there at once, and a program started meanwhile never opens half of one.
string(MAKE_C_IDENTIFIER "${FOR}" rule)
foreach(copy IN LISTS copies)
  string(REGEX MATCH "^(.*)=([^=]*)$" ignored "${copy}")
  set(from "${CMAKE_MATCH_1}")
  set(to "${destination}/${CMAKE_MATCH_2}")
  if(from STREQUAL to)
    continue()
  endif()
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${from}" "${to}"
                  RESULT_VARIABLE differs OUTPUT_QUIET ERROR_QUIET)
  if(differs EQUAL 0)
    continue()   # the same bytes: left as they are, so that nothing that depends on the copy rebuilds
  endif()
  set(partial "${to}.${rule}.partial")
  file(COPY_FILE "${from}" "${partial}" RESULT result)
  if(result EQUAL 0)
    file(RENAME "${partial}" "${to}" RESULT result)
  endif()
  if(NOT result EQUAL 0)
    file(REMOVE "${partial}")
    message(FATAL_ERROR "could not copy the Kiln package ${from} to ${to}, beside the target ${FOR} that links "
                        "the cache ${NAME}: ${result}")
  endif()
endforeach()
