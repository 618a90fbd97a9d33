# Runs an `ar` MRI script (ar -M reads it from standard input): cmake -DAR=<ar> -DSCRIPT=<file> -P ...
execute_process(COMMAND ${AR} -M INPUT_FILE ${SCRIPT} RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${AR} -M < ${SCRIPT} failed: ${result}")
endif()
