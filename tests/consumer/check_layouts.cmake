# consumer_layouts: a package is copied beside every module that links its cache, wherever that is
# built: programs in CMAKE_RUNTIME_OUTPUT_DIRECTORY, a program in a subdirectory, a MODULE library in
# CMAKE_LIBRARY_OUTPUT_DIRECTORY (layouts/), and a SPLIT package under another file name (OUTPUT),
# copied as <name>.kiln with its companions. Each finds it when run from the build tree (from another
# working directory) and by ctest; a no-op build runs nothing; a changed package reaches every copy
# without relinking. With Ninja, and with Unix Makefiles where make is found.
# Then (Ninja) the project's shared library that links the cache PUBLIC is installed and exported,
# and downstream/ builds a program against the export and runs it; and docs/cmake.md's first
# example, as written there (for one architecture), is built, installed, moved and run.
# With Kiln's source tree added by add_subdirectory, the copies' rules are made the same way
# (configured only: building the generator again is consumer_subdirectory's). Last, a copy that
# fails says which.
# With CMAKE_EXPORT_COMPILE_COMMANDS ON, compile_commands.json holds each cache's kernel source (the
# three caches, one in a subdirectory, tools/) beside CMake's own entries, with its include
# directories and macros; the entry compiles; a configure, which rewrites the database, and a build
# put the entries back; a rebuilt package whose commands did not change does not touch it.
#   cmake -DWORK=... -DPREFIX=... -DCXX=... -DDOCS=<docs/cmake.md> -DKILN_SOURCE_DIR=... [-DMAKE=...]
#         -P check_layouts.cmake
include(${CMAKE_CURRENT_LIST_DIR}/consumer_support.cmake)
kiln_fresh_dir(${WORK})

# kiln_check_compile_commands(<dir> <build> <generator> <what>): the kernel sources' entries in
# <build>/compile_commands.json, beside CMake's.
function(kiln_check_compile_commands dir build generator what)
  file(READ ${build}/compile_commands.json database)
  string(JSON count LENGTH "${database}")
  math(EXPR last "${count} - 1")
  set(found "")
  foreach(i RANGE ${last})
    string(JSON file GET "${database}" ${i} file)
    string(JSON output ERROR_VARIABLE no_output GET "${database}" ${i} output)
    if(file STREQUAL "${dir}/open.cpp")
      list(APPEND found cmake)
    elseif(file STREQUAL "${dir}/kernel.cu" AND output MATCHES "^${build}/(k|split/kernels)\\.kiln$")
      list(APPEND found ${CMAKE_MATCH_1})
    elseif(file STREQUAL "${dir}/tools/tool_kernel.cu" AND output STREQUAL "${build}/tools/t.kiln")
      list(APPEND found t)
      string(JSON directory GET "${database}" ${i} directory)
      string(JSON arguments GET "${database}" ${i} arguments)
      string(JSON argc LENGTH "${arguments}")
      math(EXPR argl "${argc} - 1")
      set(command "")
      foreach(a RANGE ${argl})
        string(JSON argument GET "${arguments}" ${a})
        list(APPEND command "${argument}")
      endforeach()
    endif()
  endforeach()
  list(REMOVE_DUPLICATES found)
  list(SORT found)
  kiln_expect("${found}" MATCHES "^cmake;k;split/kernels;t$" "${generator}: compile_commands.json ${what} (its entries: ${found})")
  kiln_expect("${command}" MATCHES "/nvcc;-x;cu;-std=c\\+\\+17;-arch=sm_80;-I${dir}/tools/include;.*-DTOOL_SCALE=3;-DTOOL_ONLY=1;.*-c;${dir}/tools/tool_kernel.cu$"
              "${generator}: tool_kernel.cu's entry ${what}")
  set(entry_command "${command}" PARENT_SCOPE)
  set(entry_directory "${directory}" PARENT_SCOPE)
endfunction()

# kiln_check_layouts(<dir> <generator> <build tool>...): configures and builds layouts/ in <dir> and
# checks it as above.
function(kiln_check_layouts dir generator)
  set(tool ${ARGN})
  file(COPY ${CMAKE_CURRENT_LIST_DIR}/layouts/ DESTINATION ${dir})
  set(build ${dir}/build)
  kiln_run(output ${CMAKE_COMMAND} -S ${dir} -B ${build} -G ${generator} -DCMAKE_PREFIX_PATH=${PREFIX}
                  -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
  kiln_run(output ${CMAKE_COMMAND} --build ${build})
  kiln_check_compile_commands(${dir} ${build} ${generator} "after the first build")
  # The entry is a compile nvcc can run: the header and both macros reach the source.
  kiln_run(output ${CMAKE_COMMAND} -E chdir ${entry_directory} ${entry_command} -o ${build}/tool_kernel.o)
  # A configure writes the database anew, without Kiln's entries; the next build puts them back.
  kiln_run(output ${CMAKE_COMMAND} ${build})
  file(READ ${build}/compile_commands.json database)
  kiln_expect("${database}" NOT_MATCHES "tool_kernel" "${generator}: compile_commands.json as CMake writes it")
  kiln_run(output ${CMAKE_COMMAND} --build ${build})
  kiln_expect("${output}" MATCHES "Adding the kernel sources" "${generator}: the build after a configure")
  kiln_check_compile_commands(${dir} ${build} ${generator} "after a configure and a build")
  foreach(copy bin/k.kiln tools/k.kiln plugins/k.kiln bin/s.kiln bin/s.cc8.kiln)
    if(NOT EXISTS ${build}/${copy})
      message(FATAL_ERROR "${generator}: no package copy ${build}/${copy}")
    endif()
  endforeach()
  foreach(program bin/top tools/tool)
    kiln_run(output ${CMAKE_COMMAND} -E chdir ${WORK} ${build}/${program})
    kiln_expect("${output}" MATCHES "opened k: 1 kernel" "${generator}: ${program} run from ${WORK}")
  endforeach()
  kiln_run(output ${CMAKE_COMMAND} -E chdir ${WORK} ${build}/bin/load_plugin ${build}/plugins/libplugin.so)
  kiln_expect("${output}" MATCHES "plugin opened k: 1 kernel" "${generator}: the plugin")
  kiln_run(output ${CMAKE_CTEST_COMMAND} --test-dir ${build} --output-on-failure)
  kiln_expect("${output}" MATCHES "100% tests passed, 0 tests failed out of 3" "${generator}: ctest")

  # Nothing changed: nothing to do (no copy, no link).
  kiln_run(output ${CMAKE_COMMAND} --build ${build})
  kiln_expect("${output}" NOT_MATCHES "Copying Kiln package|Linking|Building Kiln package|Adding the kernel sources"
              "${generator}: a no-op build")
  if(generator STREQUAL "Ninja")
    kiln_run(output ${CMAKE_COMMAND} -E chdir ${build} ninja -n)
    kiln_expect("${output}" MATCHES "no work to do" "${generator}: a no-op build")
  endif()

  # A second kernel: the package is rebuilt, every copy has it, nothing is relinked.
  file(APPEND ${dir}/kernel.cu "extern \"C\" __global__ void store_two(int* out) { *out = 2; }\n")
  kiln_run(output ${CMAKE_COMMAND} --build ${build})
  kiln_expect("${output}" MATCHES "Building Kiln package k" "${generator}: a rebuild after the kernel changed")
  kiln_expect("${output}" NOT_MATCHES "Linking" "${generator}: a rebuild after the kernel changed")
  # Its compile commands did not change: the database is left as it is.
  kiln_expect("${output}" NOT_MATCHES "Adding the kernel sources" "${generator}: a rebuild after the kernel changed")
  kiln_run(output ${CMAKE_CTEST_COMMAND} --test-dir ${build} --output-on-failure -V)
  string(REGEX MATCHALL "opened k: 2 kernel" updated "${output}")
  list(LENGTH updated count)
  kiln_expect("${count}" MATCHES "^3$" "${generator}: the copies after the kernel changed:\n${output}")
endfunction()

kiln_check_layouts(${WORK}/ninja Ninja)

# The export: installed, it names no file of the build tree (the link stamp stays there), and a
# downstream program links layouts::shapes, gets Kiln's headers through it, and has it open the
# package installed beside it.
kiln_run(output ${CMAKE_COMMAND} --install ${WORK}/ninja/build --prefix ${WORK}/layouts-prefix)
file(GLOB exported ${WORK}/layouts-prefix/lib*/cmake/layouts/layoutsTargets*.cmake)
foreach(file IN LISTS exported)
  file(READ ${file} content)
  kiln_expect("${content}" NOT_MATCHES "link-stamp|${WORK}/ninja" "the installed export ${file}")
endforeach()
kiln_expect("${exported}" MATCHES "layoutsTargets.cmake" "the installed export")
kiln_run(output ${CMAKE_COMMAND} -S ${WORK}/ninja/downstream -B ${WORK}/downstream-build -G Ninja
                "-DCMAKE_PREFIX_PATH=${WORK}/layouts-prefix\;${PREFIX}" -DCMAKE_CXX_COMPILER=${CXX})
kiln_run(output ${CMAKE_COMMAND} --build ${WORK}/downstream-build)
kiln_run(output ${CMAKE_COMMAND} -E chdir ${WORK} ${WORK}/downstream-build/use_shapes)
kiln_expect("${output}" MATCHES "plugin opened k: 2 kernel" "the downstream program")

# docs/cmake.md's first example: its CMake code and main.cpp as the page has them, a kernel to
# match, one architecture. Installed, then moved, it starts (libkiln.so.0 found) and opens its package.
file(READ ${DOCS} page)
string(REGEX MATCH "```cmake\n([^`]*)```" ignored "${page}")
set(cmake_code "${CMAKE_MATCH_1}")
string(REGEX MATCH "```cpp\n([^`]*)```" ignored "${page}")
set(main_cpp "${CMAKE_MATCH_1}")
kiln_expect("${cmake_code}" MATCHES "ARCHITECTURES 80-real 90-real 90-virtual" "docs/cmake.md's first example")
string(REPLACE "ARCHITECTURES 80-real 90-real 90-virtual" "ARCHITECTURES 80-real" cmake_code "${cmake_code}")
set(example ${WORK}/first-example)
file(WRITE ${example}/CMakeLists.txt "${cmake_code}")
file(WRITE ${example}/main.cpp "${main_cpp}")
file(WRITE ${example}/kernels/ops.cu [=[
template <typename T, int Block>
__global__ void block_sum(const T* in, T* out, int n) {
  __shared__ T partial[Block];
  const int i = blockIdx.x * Block + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int half = Block / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
]=])
kiln_run(output ${CMAKE_COMMAND} -S ${example} -B ${example}/build -G Ninja -DCMAKE_PREFIX_PATH=${PREFIX}
                -DCMAKE_CXX_COMPILER=${CXX})
kiln_run(output ${CMAKE_COMMAND} --build ${example}/build)
kiln_run(output ${CMAKE_COMMAND} --install ${example}/build --prefix ${WORK}/example-stage)
file(RENAME ${WORK}/example-stage ${WORK}/example-prefix)
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH ${WORK}/example-prefix/bin/app
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
# It opens the package, then asks for a kernel, which needs the NVIDIA driver: without one (a build
# machine) the program ends there, having started and found its package.
kiln_expect("${output}" NOT_MATCHES "libkiln|no package" "the installed first example")
if(NOT result EQUAL 0)
  kiln_expect("${output}" MATCHES "no NVIDIA driver: libcuda.so.1 cannot be opened" "the installed first example")
endif()
if(MAKE)
  kiln_check_layouts(${WORK}/makefiles "Unix Makefiles")
endif()

# Kiln's source tree in the project: each copy's rule runs the script from that tree.
file(COPY ${CMAKE_CURRENT_LIST_DIR}/layouts/ DESTINATION ${WORK}/in-tree/layouts)
file(WRITE ${WORK}/in-tree/CMakeLists.txt "cmake_minimum_required(VERSION 3.21)\n"
                                          "project(in_tree LANGUAGES CXX)\n"
                                          "add_subdirectory([[${KILN_SOURCE_DIR}]] kiln)\n"
                                          "add_subdirectory(layouts)\n")
kiln_run(output ${CMAKE_COMMAND} -S ${WORK}/in-tree -B ${WORK}/in-tree/build -G Ninja -DCMAKE_BUILD_TYPE=None
                -DKILN_INSTALL=OFF -DCMAKE_CXX_COMPILER=${CXX})
file(READ ${WORK}/in-tree/build/build.ninja ninja)
string(REGEX MATCHALL "-DFOR=[a-z_]+ -P ${KILN_SOURCE_DIR}/cmake-modules/KilnPlacePackage\\.cmake" rules "${ninja}")
list(LENGTH rules count)
kiln_expect("${count}" MATCHES "^4$" "the copies' rules with Kiln's source tree added (k beside top, tool and plugin; s beside top):\n${rules}")

# A copy that fails names the package, the place and the target it was for.
file(WRITE ${WORK}/destination "${WORK}/nowhere")
execute_process(COMMAND ${CMAKE_COMMAND} -DPACKAGE=${WORK}/missing.kiln -DNAME=k -DSPLIT=FALSE
                        -DDESTINATION_FILE=${WORK}/destination -DFOR=top -P ${PREFIX}/lib/cmake/Kiln/KilnPlacePackage.cmake
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
string(REGEX REPLACE "[ \n]+" " " output "${output}")
kiln_expect("${result}" NOT_MATCHES "^0$" "a copy of a missing package")
kiln_expect("${output}" MATCHES "could not copy the Kiln package ${WORK}/missing.kiln to ${WORK}/nowhere/k.kiln, beside the target top that links the cache k"
            "a copy of a missing package")
