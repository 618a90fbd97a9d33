# kiln_add_cache()'s check of its targets and compile options by the generator itself, when CMake
# configures: `kiln check` reads them as `kiln build` would (the one option table, the toolkit's NVRTC
# for architectures), so that what Kiln or the toolkit refuses (ARCHITECTURES 52, OPTIONS -O3) is an
# error at the call's CMakeLists.txt line rather than in the generated kiln.toml at build time.
include_guard(GLOBAL)
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.25)

# Checks cache `name`'s TARGETS and OPTIONS, then each of SOURCES' unit (the call's OPTIONS, its
# KILN_OPTIONS, each variant's KILN_VARIANT_<v>_OPTIONS) with an installed generator (an imported
# Kiln::kiln); in Kiln's own tree the generator is built later, and `kiln build` checks them.
# Values with generator expressions are left out (their value is known at generate time only).
function(_kiln_check_with_generator name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "TARGETS;OPTIONS;SOURCES")
  get_target_property(imported Kiln::kiln IMPORTED)
  if(NOT imported)
    return()
  endif()
  get_target_property(kiln Kiln::kiln LOCATION)
  if(NOT kiln OR NOT EXISTS "${kiln}")
    return()
  endif()
  set(common "")
  if(KILN_CUDA_ROOT)
    list(APPEND common --cuda-root ${KILN_CUDA_ROOT})
  endif()
  _kiln_plain_options(call_options ${arg_OPTIONS})
  set(targets "")
  if(arg_TARGETS)
    string(REPLACE ";" "," target_list "${arg_TARGETS}")
    set(targets --targets ${target_list})
  endif()
  _kiln_run_check(${kiln} "TARGETS or OPTIONS of cache '${name}'" ${common} ${targets} ${call_options})
  foreach(source IN LISTS arg_SOURCES)
    get_source_file_property(own "${source}" KILN_OPTIONS)
    get_source_file_property(variants "${source}" KILN_VARIANTS)
    if(own)
      _kiln_plain_options(own_options ${own})
      _kiln_run_check(${kiln} "KILN_OPTIONS of source '${source}' (cache '${name}')" ${common} ${call_options}
                      ${own_options})
    endif()
    foreach(variant IN LISTS variants)
      get_source_file_property(extra "${source}" KILN_VARIANT_${variant}_OPTIONS)
      if(extra)
        _kiln_plain_options(extra_options ${extra})
        if(NOT own)
          set(own_options "")
        endif()
        _kiln_run_check(${kiln} "KILN_VARIANT_${variant}_OPTIONS of source '${source}' (cache '${name}')" ${common}
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

# Runs `kiln check` with ARGN; its exit code 2 (something refused) is an error naming `what` with
# kiln's own messages. Any other failure (no toolkit at configure time) leaves the check to the build.
function(_kiln_run_check kiln what)
  if(NOT ARGN)
    return()
  endif()
  execute_process(COMMAND ${kiln} check ${ARGN} RESULT_VARIABLE result OUTPUT_QUIET ERROR_VARIABLE errors)
  if(result EQUAL 2)
    string(REGEX REPLACE "(^|\n)kiln: error: " "\\1" errors "${errors}")
    string(STRIP "${errors}" errors)
    message(FATAL_ERROR "kiln_add_cache(): ${what}: ${errors}")
  endif()
endfunction()

cmake_policy(POP)
