# kiln_add_cache()'s check of its targets and compile options by the generator's own code, when
# CMake configures: what Kiln or the toolkit refuses (ARCHITECTURES 52, OPTIONS -O3) is an error at
# the call's CMakeLists.txt line rather than in the generated kiln.toml at build time. With an
# installed Kiln, `kiln check` reads them as `kiln build` would (the one option table, the toolkit's
# NVRTC for architectures). Inside Kiln's own tree (add_subdirectory, FetchContent), where the
# generator is built after CMake has configured, the configure-time checker does: the same checks
# and messages (generator/src/check), built when Kiln is configured, given NVRTC's facts as that
# configuration asked them.
include_guard(GLOBAL)
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.25)

# Sets `out` to the command that checks: the installed generator's `kiln check`, else in Kiln's own
# tree its configure-time checker with NVRTC's facts; empty where there is neither (a checker that
# could not be built, an installed kiln that is missing), which leaves the checks to `kiln build`.
function(_kiln_check_command out)
  set(command "")
  get_target_property(imported Kiln::kiln IMPORTED)
  if(imported)
    get_target_property(kiln Kiln::kiln LOCATION)
    if(kiln AND EXISTS "${kiln}")
      set(command ${kiln} check)
      if(KILN_CUDA_ROOT)
        list(APPEND command --cuda-root ${KILN_CUDA_ROOT})
      endif()
    endif()
  else()
    get_property(checker GLOBAL PROPERTY KILN_CONFIGURE_CHECKER)
    get_property(facts GLOBAL PROPERTY KILN_NVRTC_FACTS)
    if(checker AND EXISTS "${checker}")
      set(command ${checker} "--nvrtc-facts=${facts}")
    endif()
  endif()
  set(${out} "${command}" PARENT_SCOPE)
endfunction()

# Checks cache `name`'s TARGETS and OPTIONS, then each of SOURCES' unit (the call's OPTIONS, its
# KILN_OPTIONS, each variant's KILN_VARIANT_<v>_OPTIONS), with _kiln_check_command's command.
# Values with generator expressions are left out (their value is known at generate time only).
function(_kiln_check_with_generator name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "TARGETS;OPTIONS;SOURCES")
  _kiln_check_command(checker)
  if(NOT checker)
    return()
  endif()
  _kiln_plain_options(call_options ${arg_OPTIONS})
  set(targets "")
  if(arg_TARGETS)
    string(REPLACE ";" "," target_list "${arg_TARGETS}")
    set(targets --targets ${target_list})
  endif()
  _kiln_run_check("${checker}" "TARGETS or OPTIONS of cache '${name}'" ${targets} ${call_options})
  foreach(source IN LISTS arg_SOURCES)
    get_source_file_property(own "${source}" KILN_OPTIONS)
    get_source_file_property(variants "${source}" KILN_VARIANTS)
    if(own)
      _kiln_plain_options(own_options ${own})
      _kiln_run_check("${checker}" "KILN_OPTIONS of source '${source}' (cache '${name}')" ${call_options}
                      ${own_options})
    endif()
    foreach(variant IN LISTS variants)
      get_source_file_property(extra "${source}" KILN_VARIANT_${variant}_OPTIONS)
      if(extra)
        _kiln_plain_options(extra_options ${extra})
        if(NOT own)
          set(own_options "")
        endif()
        _kiln_run_check("${checker}" "KILN_VARIANT_${variant}_OPTIONS of source '${source}' (cache '${name}')"
                        ${call_options} ${own_options} ${extra_options})
      endif()
    endforeach()
  endforeach()
endfunction()

# `--option=X` for each value in ARGN without a generator expression.
function(_kiln_plain_options out)
  set(result "")
  foreach(value IN LISTS ARGN)
    if(NOT value STREQUAL "" AND NOT value MATCHES "\\$<")
      list(APPEND result "--option=${value}")
    endif()
  endforeach()
  set(${out} "${result}" PARENT_SCOPE)
endfunction()

# Runs the check command `checker` (a list) with ARGN; its exit code 2 (something refused) is an
# error naming `what` with kiln's own messages. Any other failure (no toolkit at configure time)
# leaves the check to the build.
function(_kiln_run_check checker what)
  if(NOT ARGN)
    return()
  endif()
  execute_process(COMMAND ${checker} ${ARGN} RESULT_VARIABLE result OUTPUT_QUIET ERROR_VARIABLE errors)
  if(result EQUAL 2)
    string(REGEX REPLACE "(^|\n)kiln: error: " "\\1" errors "${errors}")
    string(STRIP "${errors}" errors)
    message(FATAL_ERROR "kiln_add_cache(): ${what}: ${errors}")
  endif()
endfunction()

cmake_policy(POP)
