# Runs an `ar` MRI script (ar -M reads it from standard input) that writes ARCHIVE.merged, then
# puts that in place of ARCHIVE: cmake -DAR=<ar> -DSCRIPT=<file> -DARCHIVE=<archive> -P ...
file(REMOVE ${ARCHIVE}.merged)
execute_process(COMMAND ${AR} -M INPUT_FILE ${SCRIPT} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${AR} -M < ${SCRIPT} failed: ${result}")
endif()
file(RENAME ${ARCHIVE}.merged ${ARCHIVE})
