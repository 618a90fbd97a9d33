# kiln_add_cache inside Kiln's own tree (a project that adds it with add_subdirectory): what Kiln or
# NVRTC refuses fails when CMake configures, at the call's CMakeLists.txt line, with kiln check's
# messages (the configure-time checker, generator/src/check); all, all-major and the default are
# made of NVRTC's architectures, as the built kiln lists them. One project and one build directory,
# configured once per case: the checker is built by the first run only, and again when what it was
# built from changed. Configure only, nothing is built.
#
#   cmake -DKILN_SOURCE_DIR=... -DKILN=<built kiln> -DWORK=... -DCXX=... -DC=... -P in_tree_check_test.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../consumer/consumer_support.cmake)
kiln_fresh_dir(${WORK})
set(project ${WORK}/project)
file(WRITE ${project}/kernel.cu "__global__ void k(float* x) { x[0] = 1.0f; }\n")
# The line of each call is what its error must name: keep them where they are.
file(WRITE ${project}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(in_tree LANGUAGES NONE)
add_subdirectory([[${KILN_SOURCE_DIR}]] kiln)
if(CASE STREQUAL unknown_option)
  kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80 OPTIONS -lineinfo -O3)
elseif(CASE STREQUAL unsupported_architecture)
  kiln_add_cache(c SOURCES kernel.cu ARCHITECTURES 80-real 52)
elseif(CASE STREQUAL refused_option)
  kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80 OPTIONS -arch=sm_80)
elseif(CASE STREQUAL source_option)
  set_source_files_properties(kernel.cu PROPERTIES KILN_OPTIONS --use-fast-math)
  kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80)
elseif(CASE STREQUAL nvrtc_not_asked)
  set_property(GLOBAL PROPERTY KILN_NVRTC_FACTS \"\")   # as when Kiln's configuration could not ask NVRTC
  kiln_add_cache(c SOURCES kernel.cu TARGETS sm_52)
  kiln_add_cache(d SOURCES kernel.cu ARCHITECTURES all)
else()
  kiln_add_cache(every SOURCES kernel.cu ARCHITECTURES all OPTIONS -lineinfo -maxrregcount 64)
  kiln_add_cache(majors SOURCES kernel.cu ARCHITECTURES all-major)
  kiln_add_cache(nothing_set SOURCES kernel.cu)
endif()
")

set(building "Kiln: building the configure-time checker")
# Configures the project with -DCASE=`case` and ARGN; `expect` is OK, or a regex the error must match;
# `rebuilds` says whether the checker must be built by this run. Sets `configured` to the output.
function(configure case expect rebuilds)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${project} -B ${project}/build -G Ninja -DCASE=${case}
                          -DCMAKE_C_COMPILER=${C} -DCMAKE_CXX_COMPILER=${CXX} ${ARGN}
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  string(REGEX REPLACE "[ \n]+" " " flat "${output}")
  set(configured "${flat}" PARENT_SCOPE)
  if(expect STREQUAL "OK" AND NOT result EQUAL 0)
    message(FATAL_ERROR "${case}: configuring failed:\n${output}")
  elseif(NOT expect STREQUAL "OK")
    if(result EQUAL 0)
      message(FATAL_ERROR "${case}: configuring succeeded; expected an error matching '${expect}'")
    endif()
    kiln_expect("${flat}" MATCHES "${expect}" "${case}")
  endif()
  if(rebuilds)
    kiln_expect("${output}" MATCHES "${building}" "${case}: the checker is built")
  else()
    kiln_expect("${output}" NOT_MATCHES "${building}" "${case}: the checker is built once")
  endif()
endfunction()

# The targets cache `name` chose.
function(expect_targets name expected)
  include(${project}/build/kiln/${name}/inputs.cmake)
  if(NOT KILN_TARGETS STREQUAL "${expected}")
    message(FATAL_ERROR "${name}: targets '${KILN_TARGETS}', expected '${expected}' (NVRTC supports ${archs})")
  endif()
endfunction()

configure(good OK TRUE)
# NVRTC's architectures, as the built kiln has them (nvrtc_library_test.cpp holds those to what the
# library itself says): all is each, with PTX of the highest major's first; all-major the lowest of
# each major; nothing set the lowest, as cubin and PTX.
kiln_run(listed ${KILN} check --list-architectures)
string(REGEX MATCHALL "[0-9]+" archs "${listed}")
list(LENGTH archs count)
if(count LESS 2)
  message(FATAL_ERROR "kiln check --list-architectures printed '${listed}'")
endif()
set(every "")
set(majors "")
set(seen "")
foreach(arch IN LISTS archs)
  list(APPEND every sm_${arch})
  math(EXPR major "${arch} / 10")
  list(FIND seen ${major} found)
  if(found EQUAL -1)
    list(APPEND seen ${major})
    list(APPEND majors sm_${arch})
    set(ptx compute_${arch})
  endif()
endforeach()
list(GET archs 0 lowest)
expect_targets(every "${every};${ptx}")
expect_targets(majors "${majors};${ptx}")
expect_targets(nothing_set "sm_${lowest};compute_${lowest}")

set(fn "kiln_add_cache\\(\\):")
set(at "CMakeLists.txt")
configure(unknown_option "${fn} TARGETS or OPTIONS of cache 'c': option '-O3' is not an option NVRTC [0-9.]+ documents.*${at}:5 \\(kiln_add_cache\\)" FALSE)
configure(unsupported_architecture "${fn} TARGETS or OPTIONS of cache 'c': target 'sm_52' is not supported by NVRTC [0-9.]+ \\(it supports [0-9 ]+\\).*${at}:7 \\(kiln_add_cache\\)" FALSE)
configure(refused_option "${fn} TARGETS or OPTIONS of cache 'c': option '-arch=sm_80' is set by Kiln for each target.*${at}:9 \\(kiln_add_cache\\)" FALSE)
configure(source_option "${fn} KILN_OPTIONS of source 'kernel.cu' \\(cache 'c'\\): option '--use-fast-math' is not an option.*${at}:12 \\(kiln_add_cache\\)" FALSE)
# Without NVRTC's facts (Kiln's configuration could not ask it), targets are left to kiln build, and
# all cannot be expanded: an error at its call.
configure(nvrtc_not_asked "${fn} ARCHITECTURES all needs the architectures NVRTC supports, but Kiln's configuration could not ask NVRTC.*${at}:16 \\(kiln_add_cache\\)" FALSE)
kiln_expect("${configured}" NOT_MATCHES "sm_52" "nvrtc_not_asked: sm_52 is left to the build")
# The message is kiln check's, word for word.
execute_process(COMMAND ${KILN} check --targets sm_52 ERROR_VARIABLE said)
string(REGEX REPLACE "^kiln: error: |\n$" "" said "${said}")
configure(unsupported_architecture "${fn}" FALSE)
string(FIND "${configured}" "${said}" found)
if(found EQUAL -1 OR said STREQUAL "")
  message(FATAL_ERROR "kiln check says '${said}', the configure-time check:\n${configured}")
endif()
# A checker built from other sources (the hash of what it was built from differs, as after an edit
# of the option table) is built again, once.
file(READ ${project}/build/CMakeCache.txt cache)
string(REGEX REPLACE "(KILN_CONFIGURE_CHECKER_BUILT_FROM:INTERNAL=)[0-9a-f]+" "\\1other" edited "${cache}")
if(edited STREQUAL cache)
  message(FATAL_ERROR "the cache holds no KILN_CONFIGURE_CHECKER_BUILT_FROM")
endif()
file(WRITE ${project}/build/CMakeCache.txt "${edited}")
configure(good OK TRUE)
configure(good OK FALSE)

# An installed generator (an imported Kiln::kiln, as KilnConfig.cmake makes it) whose
# `kiln check --list-architectures` fails (it cannot load its NVRTC): all is an error at its call,
# with kiln's reason.
set(installed ${WORK}/installed)
file(WRITE ${installed}/kernel.cu "__global__ void k() {}\n")
file(WRITE ${installed}/kiln "#!/bin/sh\necho 'kiln: error: kiln cannot load libnvrtc.so.13: no such file' >&2\nexit 4\n")
file(CHMOD ${installed}/kiln PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
file(WRITE ${installed}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(installed LANGUAGES NONE)
add_executable(Kiln::kiln IMPORTED)
set_target_properties(Kiln::kiln PROPERTIES IMPORTED_LOCATION [[${installed}/kiln]])
add_library(Kiln::runtime INTERFACE IMPORTED)
include([[${KILN_SOURCE_DIR}/cmake-modules/KilnFunctions.cmake]])
kiln_add_cache(c SOURCES kernel.cu ARCHITECTURES all)
")
kiln_expect_configure(${installed} "${fn} ARCHITECTURES all needs the architectures NVRTC supports, but `[^`]*/kiln check --list-architectures` failed: kiln cannot load libnvrtc.so.13: no such file; list architectures instead.*${at}:7 \\(kiln_add_cache\\)")
