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
foreach(copy IN LISTS copies)
  string(REGEX MATCH "^(.*)=([^=]*)$" ignored "${copy}")
  set(from "${CMAKE_MATCH_1}")
  set(to "${destination}/${CMAKE_MATCH_2}")
  if(NOT from STREQUAL to)
    execute_process(COMMAND "${CMAKE_COMMAND}" -E copy_if_different "${from}" "${to}" RESULT_VARIABLE result)
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "could not copy the Kiln package ${from} to ${to}, beside the target ${FOR} that links "
                          "the cache ${NAME}")
    endif()
  endif()
endforeach()
