# consumer_jobs: kiln_add_cache(... JOB_POOL) puts the kiln build in that Ninja pool, and only what
# reads a package waits for it: with Ninja, a program's object files compile before the package its
# link needs, and a new package does not relink it; with EMBED, the object that embeds the package
# depends on it.
#   cmake -DWORK=... -DPREFIX=... -P check_jobs.cmake
include(${CMAKE_CURRENT_LIST_DIR}/consumer_support.cmake)
kiln_fresh_dir(${WORK})
file(COPY ${CMAKE_CURRENT_LIST_DIR}/jobs/ DESTINATION ${WORK}/project)
set(build ${WORK}/project/build)
kiln_expect_configure(${WORK}/project OK -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CXX_COMPILER=${CXX}
                      -DCMAKE_ASM_COMPILER=${C})

# The kiln edge of `file` is in its pool, and that of `embedded`, which names none, in the pool every
# such cache shares: one kiln build at a time, each running a compile per core.
file(READ ${build}/build.ninja ninja)
string(REGEX MATCH "\nbuild [^\n]*file\\.kiln[ :][^\n]*CUSTOM_COMMAND[^\n]*\n( [^\n]*\n)*" file_edge "${ninja}")
kiln_expect("${file_edge}" MATCHES "\n  pool = kiln_pool\n" "the kiln build of 'file'")
string(REGEX MATCH "\nbuild [^\n]*embedded\\.kiln[ :][^\n]*CUSTOM_COMMAND[^\n]*\n( [^\n]*\n)*" embedded_edge "${ninja}")
kiln_expect("${embedded_edge}" MATCHES "Building Kiln package embedded" "the kiln build of 'embedded'")
kiln_expect("${embedded_edge}" MATCHES "\n  pool = kiln_packages\n" "the kiln build of 'embedded'")
file(READ ${build}/CMakeFiles/rules.ninja rules)
kiln_expect("${rules}" MATCHES "\npool kiln_packages\n  depth = 1\n" "the pools in rules.ninja")

# Nothing is built yet: what would building app's object file run? Not the package.
kiln_run(plan ${CMAKE_COMMAND} -E chdir ${build} ninja -n CMakeFiles/app.dir/main.cpp.o)
kiln_expect("${plan}" NOT_MATCHES "Building Kiln package" "app's object file")
kiln_run(plan ${CMAKE_COMMAND} -E chdir ${build} ninja -n app)
kiln_expect("${plan}" MATCHES "Building Kiln package file" "app's link")
# EMBED: the object that embeds the package needs it.
kiln_run(plan ${CMAKE_COMMAND} -E chdir ${build} ninja -n CMakeFiles/embedded.dir/kiln/embedded/embedded_embed.S.o)
kiln_expect("${plan}" MATCHES "Building Kiln package embedded" "the object that embeds 'embedded'")

# Built, then the kernel changes: the package is rebuilt, app is not relinked.
kiln_run(output ${CMAKE_COMMAND} --build ${build})
file(TOUCH ${WORK}/project/kernel.cu)
kiln_run(output ${CMAKE_COMMAND} --build ${build} --target app)
kiln_expect("${output}" MATCHES "Building Kiln package file" "a rebuild after the kernel changed")
kiln_expect("${output}" NOT_MATCHES "Linking" "a rebuild after the kernel changed")
kiln_run(output ${CMAKE_COMMAND} -E chdir ${build} ninja -n app)
kiln_expect("${output}" MATCHES "no work to do" "a no-op build")

# A pool JOB_POOLS does not define fails at configure time (Ninja would refuse build.ninja), naming
# the call; one defined after the call is fine.
file(READ ${WORK}/project/CMakeLists.txt code)
string(REPLACE "set_property(GLOBAL APPEND PROPERTY JOB_POOLS kiln_pool=1)\n" "" undefined "${code}")
file(COPY ${CMAKE_CURRENT_LIST_DIR}/jobs/ DESTINATION ${WORK}/undefined_pool)
file(WRITE ${WORK}/undefined_pool/CMakeLists.txt "${undefined}")
kiln_expect_configure(${WORK}/undefined_pool
                      "kiln_add_cache\\(\\): JOB_POOL 'kiln_pool' of cache 'file' \\(kiln_add_cache at CMakeLists.txt:4\\) is not in the JOB_POOLS global property: define it"
                      -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_ASM_COMPILER=${C})
file(COPY ${CMAKE_CURRENT_LIST_DIR}/jobs/ DESTINATION ${WORK}/later_pool)
file(WRITE ${WORK}/later_pool/CMakeLists.txt "${undefined}set_property(GLOBAL APPEND PROPERTY JOB_POOLS kiln_pool=2)\n")
kiln_expect_configure(${WORK}/later_pool OK -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CXX_COMPILER=${CXX}
                      -DCMAKE_ASM_COMPILER=${C} -DKILN_PARALLEL_PACKAGES=3)
# KILN_PARALLEL_PACKAGES deepens the shared pool; a value that is not a count fails the configure.
file(READ ${WORK}/later_pool/build/CMakeFiles/rules.ninja rules)
kiln_expect("${rules}" MATCHES "\npool kiln_packages\n  depth = 3\n" "the pools with KILN_PARALLEL_PACKAGES=3")
kiln_expect_configure(${WORK}/later_pool "KILN_PARALLEL_PACKAGES is 'many'; it is how many kiln builds Ninja runs at once"
                      -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_ASM_COMPILER=${C}
                      -DKILN_PARALLEL_PACKAGES=many)

# Unix Makefiles: JOB_POOL is ignored with a warning, and the kiln builds take their compiles from
# `make -jN`'s jobserver, which make < 4.4 lends only to recipes naming $(MAKE): no kiln build may say
# it found the jobserver closed.
find_program(MAKE_PROGRAM NAMES gmake make)
if(MAKE_PROGRAM)
  file(COPY ${CMAKE_CURRENT_LIST_DIR}/jobs/ DESTINATION ${WORK}/makefiles)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/makefiles -B ${WORK}/makefiles/build -G "Unix Makefiles"
                          -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_ASM_COMPILER=${C}
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  string(REGEX REPLACE "[ \n]+" " " flat "${output}")
  kiln_expect("${result}" MATCHES "^0$" "configuring with Unix Makefiles:\n${output}")
  kiln_expect("${flat}" MATCHES "JOB_POOL is for the Ninja generators; Unix Makefiles ignores it"
              "configuring with Unix Makefiles")
  kiln_run(output ${CMAKE_COMMAND} -E env --unset=MAKEFLAGS --unset=MFLAGS --unset=MAKELEVEL
                  ${MAKE_PROGRAM} -C ${WORK}/makefiles/build -j4)
  kiln_expect("${output}" NOT_MATCHES "jobserver" "make -j4")
  kiln_expect("${output}" MATCHES "Built target app" "make -j4")
endif()
