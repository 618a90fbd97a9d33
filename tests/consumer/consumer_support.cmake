# Shared by the consumer test scripts (cmake -P): running commands and checking what they print.

# kiln_run(<output-var> COMMAND...): runs the command, fails the test with its output unless it
# exits 0, and returns its stdout and stderr together.
function(kiln_run out_var)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    string(REPLACE ";" " " command "${ARGN}")
    message(FATAL_ERROR "failed (${result}): ${command}\n${output}")
  endif()
  set(${out_var} "${output}" PARENT_SCOPE)
endfunction()

# kiln_expect(<text> MATCHES|NOT_MATCHES <regex> <what>): fails the test, showing the text, unless
# `text` does (or does not) match.
function(kiln_expect text mode regex what)
  if(mode STREQUAL "MATCHES" AND NOT text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected to match '${regex}' in:\n${text}")
  elseif(mode STREQUAL "NOT_MATCHES" AND text MATCHES "${regex}")
    message(FATAL_ERROR "${what}: expected no match of '${regex}' in:\n${text}")
  endif()
endfunction()

# kiln_fresh_dir(<dir>): an empty directory.
function(kiln_fresh_dir dir)
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
endfunction()
