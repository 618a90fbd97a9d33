# consumer_layouts: a package is copied beside every module that links its cache, wherever that is
# built: programs in CMAKE_RUNTIME_OUTPUT_DIRECTORY, a program in a subdirectory, a MODULE library in
# CMAKE_LIBRARY_OUTPUT_DIRECTORY (layouts/). Each finds it when run from the build tree (from another
# working directory) and by ctest; a no-op build runs nothing; a changed package reaches every copy
# without relinking. With Ninja, and with Unix Makefiles where make is found.
#   cmake -DWORK=... -DPREFIX=... -DCXX=... [-DMAKE=...] -P check_layouts.cmake
include(${CMAKE_CURRENT_LIST_DIR}/consumer_support.cmake)
kiln_fresh_dir(${WORK})

# kiln_check_layouts(<dir> <generator> <build tool>...): configures and builds layouts/ in <dir> and
# checks it as above.
function(kiln_check_layouts dir generator)
  set(tool ${ARGN})
  file(COPY ${CMAKE_CURRENT_LIST_DIR}/layouts/ DESTINATION ${dir})
  set(build ${dir}/build)
  kiln_run(output ${CMAKE_COMMAND} -S ${dir} -B ${build} -G ${generator} -DCMAKE_PREFIX_PATH=${PREFIX}
                  -DCMAKE_CXX_COMPILER=${CXX})
  kiln_run(output ${CMAKE_COMMAND} --build ${build})
  foreach(copy bin/k.kiln tools/k.kiln plugins/k.kiln)
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
  kiln_expect("${output}" NOT_MATCHES "Copying Kiln package|Linking|Building Kiln package" "${generator}: a no-op build")
  if(generator STREQUAL "Ninja")
    kiln_run(output ${CMAKE_COMMAND} -E chdir ${build} ninja -n)
    kiln_expect("${output}" MATCHES "no work to do" "${generator}: a no-op build")
  endif()

  # A second kernel: the package is rebuilt, every copy has it, nothing is relinked.
  file(APPEND ${dir}/kernel.cu "extern \"C\" __global__ void store_two(int* out) { *out = 2; }\n")
  kiln_run(output ${CMAKE_COMMAND} --build ${build})
  kiln_expect("${output}" MATCHES "Building Kiln package k" "${generator}: a rebuild after the kernel changed")
  kiln_expect("${output}" NOT_MATCHES "Linking" "${generator}: a rebuild after the kernel changed")
  kiln_run(output ${CMAKE_CTEST_COMMAND} --test-dir ${build} --output-on-failure -V)
  string(REGEX MATCHALL "opened k: 2 kernel" updated "${output}")
  list(LENGTH updated count)
  kiln_expect("${count}" MATCHES "^3$" "${generator}: the copies after the kernel changed:\n${output}")
endfunction()

kiln_check_layouts(${WORK}/ninja Ninja)
if(MAKE)
  kiln_check_layouts(${WORK}/makefiles "Unix Makefiles")
endif()
