# consumer_static: builds the project in static/ against the Kiln in PREFIX: two MODULE libraries
# (extension modules' stand-ins) that each link Kiln::runtime_static. Checks that neither exports a
# symbol of Kiln's (nor zstd's), neither needs libkiln.so, and a host program that dlopens both, with
# RTLD_LOCAL and with RTLD_GLOBAL, sees each read the package with a runtime of its own. ext_b also
# links the system's static zstd beside the runtime's copy: it links, and both work.
#   cmake -DWORK=... -DPREFIX=... -DCXX=... -DC=... -P check_static.cmake
include(${CMAKE_CURRENT_LIST_DIR}/consumer_support.cmake)
kiln_fresh_dir(${WORK})
file(COPY ${CMAKE_CURRENT_LIST_DIR}/static/ DESTINATION ${WORK}/project)
set(build ${WORK}/project/build)
kiln_expect_configure(${WORK}/project OK -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CXX_COMPILER=${CXX}
                      -DCMAKE_C_COMPILER=${C} -DCMAKE_BUILD_TYPE=Release)
kiln_run(output ${CMAKE_COMMAND} --build ${build})

foreach(module ext_a ext_b)
  set(file ${build}/${module}.so)
  kiln_run(exported nm -D --defined-only ${file})
  kiln_expect("${exported}" MATCHES " ${module}_open\n" "${module}'s exported symbols")
  kiln_expect("${exported}" NOT_MATCHES "kiln|ZSTD|XXH" "${module}'s exported symbols")
  kiln_run(dynamic readelf -d ${file})
  kiln_expect("${dynamic}" NOT_MATCHES "libkiln|libzstd" "${module}'s NEEDED entries")
endforeach()

foreach(mode local global)
  kiln_run(output ${build}/host ${mode})
  message(STATUS "host ${mode}:\n${output}")
  foreach(module ext_a ext_b)
    kiln_expect("${output}" MATCHES "${module}: version [0-9]+ kernels 2: (first second|second first)\n"
                "host ${mode}")
  endforeach()
  kiln_expect("${output}" MATCHES "own zstd beside the runtime's: ok" "host ${mode}")
  kiln_expect("${output}" MATCHES "separate runtimes" "host ${mode}")
endforeach()
