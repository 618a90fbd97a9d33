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

# kiln_expect_configure(<project-dir> <expect> [<cmake-arg>...]): configures the project in
# <project-dir> into <project-dir>/build with Ninja and the arguments given. `expect` is OK, or a
# regex the error must match (line breaks CMake puts into messages are undone first); the test fails
# if configuring fails when OK is expected, or succeeds when an error is.
function(kiln_expect_configure dir expect)
  get_filename_component(name ${dir} NAME)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${dir} -B ${dir}/build -G Ninja ${ARGN}
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  string(REGEX REPLACE "[ \n]+" " " flat "${output}")
  if(expect STREQUAL "OK")
    if(NOT result EQUAL 0)
      message(FATAL_ERROR "${name}: configuring failed:\n${output}")
    endif()
  elseif(result EQUAL 0)
    message(FATAL_ERROR "${name}: configuring succeeded; expected an error matching '${expect}'")
  else()
    kiln_expect("${flat}" MATCHES "${expect}" "${name}")
  endif()
endfunction()

# kiln_fresh_dir(<dir>): an empty directory.
function(kiln_fresh_dir dir)
  file(REMOVE_RECURSE ${dir})
  file(MAKE_DIRECTORY ${dir})
endfunction()
