# consumer_saxpy_ninja, consumer_embedded_makefiles, consumer_subdirectory: builds a copy of an
# example against the Kiln in PREFIX (MODE package: find_package) or against Kiln's source tree
# (MODE subdirectory: add_subdirectory), and checks the build rules kiln_add_cache makes:
#
#   - the first build builds the package; a second build does nothing;
#   - touching a header a kernel includes rebuilds the package; touching a host header does not;
#   - saxpy: installed to another prefix, the program finds saxpy.kiln next to itself by name;
#   - embedded: installed, the program holds its package (no .kiln file anywhere) and finds it.
#
#   cmake -DEXAMPLE=saxpy|embedded -DSOURCE=<example dir> -DKILN_SOURCE_DIR=... -DWORK=... -DPREFIX=...
#         -DGENERATOR=... -DMODE=package|subdirectory -DCXX=... -P build_example.cmake
include(${CMAKE_CURRENT_LIST_DIR}/consumer_support.cmake)

# What each example builds, a header its kernels include, a host header, and a cache setting that
# keeps the package small (an initial cache script: a list passes through no command line intact).
kiln_fresh_dir(${WORK})
if(EXAMPLE STREQUAL "saxpy")
  set(package saxpy)
  set(program saxpy)
  set(kernel_header kernels/common.cuh)
  set(host_header device_buffer.hpp)
  file(WRITE ${WORK}/cache.cmake "set(SAXPY_KILN_TARGETS sm_80 compute_80 CACHE STRING \"\")\n")
else()
  set(package vector_ops)
  set(program embedded)
  set(kernel_header include/vector_math.cuh)
  set(host_header report.hpp)
  file(WRITE ${WORK}/cache.cmake "set(EMBEDDED_ARCHITECTURES 80 CACHE STRING \"\")\n")
endif()

file(COPY ${SOURCE}/ DESTINATION ${WORK}/src)
set(project_dir ${WORK}/src)
set(build ${WORK}/build)
if(MODE STREQUAL "subdirectory")
  # A project of the user's, with Kiln's tree and the example inside it.
  set(project_dir ${WORK})
  file(WRITE ${WORK}/CMakeLists.txt
       "cmake_minimum_required(VERSION 3.21)\n"
       "project(consumer LANGUAGES CXX ASM)\n"
       "add_subdirectory(\"${KILN_SOURCE_DIR}\" kiln)\n"
       "add_subdirectory(src)\n")
endif()
# Release, but for Kiln's own tree as a subproject: "None", a build type without flags (no
# optimization, no debug information), since its generator is built only to make the example's
# package, and optimizing the scanner's clang-heavy sources would be most of this test's time.
set(build_type Release)
if(MODE STREQUAL "subdirectory")
  set(build_type None)
endif()
kiln_run(output ${CMAKE_COMMAND} -S ${project_dir} -B ${build} -G ${GENERATOR} -DCMAKE_BUILD_TYPE=${build_type}
         -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${PREFIX} -C ${WORK}/cache.cmake)

if(MODE STREQUAL "subdirectory")
  # The build graph uses Kiln's in-tree targets: the package is made by the kiln built in this tree,
  # and the program links the libkiln built in this tree; Kiln as a subproject builds no tests.
  kiln_run(plan ${CMAKE_COMMAND} --build ${build} -- -n)
  kiln_expect("${plan}" MATCHES "Building Kiln package ${package}" "the package is built")
  kiln_expect("${plan}" NOT_MATCHES "runtime_tests|saxpy|runtime_load_bench" "Kiln as a subproject builds no tests")
  kiln_run(commands ${CMAKE_COMMAND} --build ${build} -- -t commands ${program}_example)
  kiln_expect("${commands}" MATCHES "${build}/kiln/bin/kiln build " "the in-tree generator builds the package")
  kiln_expect("${commands}" MATCHES "kiln/lib/libkiln.so" "the program links the in-tree runtime")
  kiln_expect("${commands}" MATCHES "${package}_embed.S" "the package is linked in with .incbin")
  # Then it builds for real (Kiln's generator and runtime, the package, the program; a minute or
  # two on a small machine), and the program finds its embedded package by name from the build tree.
  kiln_run(output ${CMAKE_COMMAND} --build ${build} --target ${program}_example)
  kiln_expect("${output}" MATCHES "Building Kiln package ${package}" "the in-tree build makes the package")
  file(GLOB_RECURSE built_program ${build}/src/${program})
  if(NOT built_program)
    message(FATAL_ERROR "the build made no ${program} under ${build}/src")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=KILN_PACKAGE_PATH --unset=LD_LIBRARY_PATH
                          ${built_program} --if-gpu
                  WORKING_DIRECTORY ${WORK} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${built_program} --if-gpu exited ${result}:\n${output}")
  endif()
  kiln_expect("${output}" MATCHES "linked into this program.*kernel  fill_ramp" "the program built in the tree")
  return()
endif()

# cmake --build, with the package built (or not) as `expect` says: PACKAGE or NO_PACKAGE.
function(build expect what)
  kiln_run(output ${CMAKE_COMMAND} --build ${build})
  if(expect STREQUAL "PACKAGE")
    kiln_expect("${output}" MATCHES "Building Kiln package ${package}" "${what}")
  else()
    kiln_expect("${output}" NOT_MATCHES "Building Kiln package" "${what}")
  endif()
  set(output "${output}" PARENT_SCOPE)
endfunction()

# A build with nothing to do: Ninja says so; Makefiles build and link nothing.
function(no_op_build what)
  build(NO_PACKAGE "${what}")
  if(GENERATOR STREQUAL "Ninja")
    kiln_expect("${output}" MATCHES "ninja: no work to do" "${what}")
  else()
    kiln_expect("${output}" NOT_MATCHES "Building|Linking|Writing the Kiln manifest" "${what}")
  endif()
endfunction()

build(PACKAGE "the first build")
no_op_build("a second build")
file(TOUCH ${WORK}/src/${kernel_header})
build(PACKAGE "after touching ${kernel_header}, which a kernel includes")
file(TOUCH ${WORK}/src/${host_header})
build(NO_PACKAGE "after touching ${host_header}, a host header")
kiln_expect("${output}" MATCHES "main.cpp" "after touching ${host_header}, main.cpp is compiled")
no_op_build("a build after those")

# Installed into a prefix of its own, then moved: the program runs from there, with no help from
# the environment, and finds its package by name.
set(app ${WORK}/app)
kiln_run(ignored ${CMAKE_COMMAND} --install ${build} --prefix ${WORK}/app-stage)
file(RENAME ${WORK}/app-stage ${app})
file(GLOB_RECURSE packages ${app}/*.kiln)
if(EXAMPLE STREQUAL "saxpy")
  if(NOT packages STREQUAL "${app}/bin/saxpy.kiln")
    message(FATAL_ERROR "expected exactly bin/saxpy.kiln in the installed tree, found: ${packages}")
  endif()
  set(expected "package saxpy \\(by name\\): 7 kernels, 2 targets")
else()
  if(packages)
    message(FATAL_ERROR "EMBED: the installed tree holds package files: ${packages}")
  endif()
  # The package's bytes are inside the program.
  file(READ ${build}/kiln/${package}/${package}.kiln package_hex HEX)
  file(READ ${app}/bin/${program} program_hex HEX)
  string(FIND "${program_hex}" "${package_hex}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "EMBED: ${app}/bin/${program} does not contain ${package}.kiln")
  endif()
  set(expected "linked into this program.*kernel  fill_ramp.*target  sm_80\n  target  compute_80")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=KILN_PACKAGE_PATH --unset=LD_LIBRARY_PATH
                        ${app}/bin/${program} --if-gpu
                WORKING_DIRECTORY ${WORK} RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${app}/bin/${program} --if-gpu exited ${result}:\n${output}")
endif()
kiln_expect("${output}" MATCHES "${expected}" "the installed program")
message(STATUS "${app}/bin/${program} --if-gpu:\n${output}")
