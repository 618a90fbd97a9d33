# consumer_arguments: kiln_add_cache()'s checks and its reading of ARGUMENTS and
# CMAKE_CUDA_ARCHITECTURES, in projects that only configure (LANGUAGES NONE: a package needs no
# compiler of the project's); then one project built from two copies at different paths, whose
# packages must be identical byte for byte (the generated manifest holds relative paths only).
#   cmake -DWORK=... -DPREFIX=... -DCUDA_INCLUDE_DIR=... -P check_arguments.cmake
include(${CMAKE_CURRENT_LIST_DIR}/consumer_support.cmake)
kiln_fresh_dir(${WORK})

# A project at `dir` holding the files of arguments/ and `code` after find_package(Kiln).
function(write_project dir code)
  file(COPY ${CMAKE_CURRENT_LIST_DIR}/arguments/ DESTINATION ${dir})
  file(WRITE ${dir}/CMakeLists.txt "cmake_minimum_required(VERSION 3.20)\nproject(consumer LANGUAGES NONE)\n"
                                   "find_package(Kiln 0.1 CONFIG REQUIRED COMPONENTS runtime generator)\n${code}\n")
endfunction()

# Configures `code`; `expect` is OK, or a regex the error must match (kiln_expect_configure).
function(configure name expect code)
  write_project(${WORK}/${name} "${code}")
  kiln_expect_configure(${WORK}/${name} "${expect}" -DCMAKE_PREFIX_PATH=${PREFIX})
endfunction()

# Configures `code`, which must succeed with a warning matching `regex` (newlines and runs of spaces
# read as one space).
function(configure_warns name regex code)
  write_project(${WORK}/${name} "${code}")
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${WORK}/${name} -B ${WORK}/${name}/build -G Ninja
                          -DCMAKE_PREFIX_PATH=${PREFIX}
                  RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
  if(NOT result EQUAL 0)
    message(FATAL_ERROR "${name}: configuring failed:\n${output}")
  endif()
  string(REGEX REPLACE "[ \n]+" " " flat "${output}")
  kiln_expect("${flat}" MATCHES "${regex}" "${name}")
endfunction()

# Configures `code`, which makes the cache `name`, and checks the targets it chose.
function(expect_targets name expected code)
  configure(${name} OK "${code}")
  include(${WORK}/${name}/build/kiln/${name}/inputs.cmake)
  if(NOT KILN_TARGETS STREQUAL "${expected}")
    message(FATAL_ERROR "${name}: targets '${KILN_TARGETS}', expected '${expected}'")
  endif()
endfunction()

set(fn "kiln_add_cache\\(\\):")
configure(both "${fn} give TARGETS or ARCHITECTURES, not both"
          "kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80 ARCHITECTURES 80)")
configure(bad_architecture "${fn} ARCHITECTURES entry '8.0' is not a CUDA architecture"
          "kiln_add_cache(c SOURCES kernel.cu ARCHITECTURES 8.0)")
configure(bad_target "${fn} TARGETS entry '80' is not a Kiln target"
          "kiln_add_cache(c SOURCES kernel.cu TARGETS 80)")
configure(unknown_keyword "${fn} unknown keyword 'SOURCE' for cache 'c' \\(did you mean 'SOURCES'\\?\\)"
          "kiln_add_cache(c SOURCE kernel.cu)")
configure(misspelt_keyword "${fn} unknown keyword 'INSTANTIATES' for cache 'c' \\(did you mean 'INSTANTIATE'\\?\\)"
          "kiln_add_cache(c SOURCES kernel.cu INSTANTIATES k<int>)")
# A misspelt keyword anywhere in the call (issue 33): after INCLUDE_DIRECTORIES (five letters in common
# with DEFINES), in DEFINES and in OPTIONS; words that only look like keywords pass: a macro in DEFINES
# not close to one (STRICT_MODE), a value after an option without '=' (-D TARGET).
configure(definitions_after_list "${fn} unknown keyword 'DEFINITIONS' for cache 'c' \\(did you mean 'DEFINES'\\?\\)"
          "kiln_add_cache(c SOURCES kernel.cu INCLUDE_DIRECTORIES include DEFINITIONS FOO=1)")
configure(misspelt_in_defines "${fn} unknown keyword 'TARGET' for cache 'c' \\(did you mean 'TARGETS'\\?\\)"
          "kiln_add_cache(c SOURCES kernel.cu DEFINES FOO TARGET sm_80)")
configure(misspelt_in_options "${fn} unknown keyword 'ARCHITECTURE' for cache 'c' \\(did you mean 'ARCHITECTURES'\\?\\)"
          "kiln_add_cache(c SOURCES kernel.cu OPTIONS -lineinfo -D NAME ARCHITECTURE 80)")
configure(keyword_like_values OK
          "kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80 DEFINES STRICT_MODE OPTIONS -D TARGET -D OPTION_X)")
# Targets and options the installed generator refuses fail at configure time (kiln check), at the
# call: an architecture NVRTC does not support, an option Kiln does not know or sets itself, one in
# a source's KILN_OPTIONS; a value with a generator expression is left to the build.
configure(unsupported_architecture "${fn} TARGETS or OPTIONS of cache 'c': target 'sm_52' is not supported by NVRTC [0-9.]+ \\(it supports [0-9 ]+\\).*CMakeLists.txt:4 \\(kiln_add_cache\\)"
          "kiln_add_cache(c SOURCES kernel.cu ARCHITECTURES 80-real 52)")
configure(architecture_999 "${fn} TARGETS or OPTIONS of cache 'c': target 'sm_999' is not supported by NVRTC"
          "kiln_add_cache(c SOURCES kernel.cu ARCHITECTURES 999-real)")
configure(unknown_option "${fn} TARGETS or OPTIONS of cache 'c': option '-O3' is not an option NVRTC [0-9.]+ documents"
          "kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80 OPTIONS -lineinfo -O3)")
configure(refused_option "${fn} TARGETS or OPTIONS of cache 'c': option '-arch=sm_80' is set by Kiln for each target"
          "kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80 OPTIONS -arch=sm_80)")
configure(source_option "${fn} KILN_OPTIONS of source 'kernel.cu' \\(cache 'c'\\): option '--use-fast-math' is not an option"
          "set_source_files_properties(kernel.cu PROPERTIES KILN_OPTIONS --use-fast-math)
kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80)")
configure(option_expression_left OK
          "kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80 OPTIONS $<$<CONFIG:Debug>:-O3>)")
# kiln check itself: every refused target on a line of its own, exit 2; a value given as the next
# string (-maxrregcount 64) and a supported target pass, exit 0.
execute_process(COMMAND ${PREFIX}/bin/kiln check --targets sm80,sm_52,sm_80 --option=-O3
                RESULT_VARIABLE result ERROR_VARIABLE errors)
kiln_expect("${result}" MATCHES "^2$" "kiln check's exit code for refused targets")
kiln_expect("${errors}" MATCHES "option '-O3' [^\n]*\n[^\n]*unknown target 'sm80'\n[^\n]*target 'sm_52' is not supported"
            "kiln check's errors")
execute_process(COMMAND ${PREFIX}/bin/kiln check --targets sm_80,compute_80 --option=-maxrregcount --option=64
                RESULT_VARIABLE result ERROR_VARIABLE errors)
kiln_expect("${result}: ${errors}" MATCHES "^0: $" "kiln check of a supported target and a two-string option")
configure(unknown_argument "${fn} unknown argument\\(s\\) 'kernel.cu' for cache 'c'"
          "kiln_add_cache(c kernel.cu)")
configure(source_missing "${fn} SOURCES file 'missing.cu' of cache 'c' does not exist"
          "kiln_add_cache(c SOURCES kernel.cu missing.cu)")
configure(target_suggested "${fn} TARGETS entry 'sm90' is not a Kiln target \\(did you mean 'sm_90'\\?\\)"
          "kiln_add_cache(c SOURCES kernel.cu TARGETS sm90)")
configure(target_suggested_dot "${fn} TARGETS entry '9.0a' is not a Kiln target \\(did you mean 'sm_90a'\\?\\)"
          "kiln_add_cache(c SOURCES kernel.cu TARGETS 9.0a)")
configure(install_misspelt "kiln_install_cache\\(\\): unknown keyword 'DESTINATON' for cache 'c' \\(did you mean 'DESTINATION'\\?\\)"
          "kiln_add_cache(c SOURCES kernel.cu)\nkiln_install_cache(c DESTINATON bin)")
configure(no_sources "${fn} cache 'c' has no SOURCES" "kiln_add_cache(c TARGETS sm_80)")
configure(manifest_and_sources "${fn} MANIFEST cannot be combined with SOURCES"
          "kiln_add_cache(c MANIFEST kiln.toml SOURCES kernel.cu)")
configure(outside "${fn} SOURCES file '../kernel.cu' is outside this directory"
          "kiln_add_cache(c SOURCES ../kernel.cu)")
configure(host_source_missing "${fn} HOST_SOURCES file 'main.cpp' does not exist"
          "kiln_add_cache(c SOURCES kernel.cu HOST_SOURCES main.cpp)")
configure(python_source_missing "${fn} PYTHON_SOURCES file 'missing.py' does not exist"
          "kiln_add_cache(c SOURCES kernel.cu PYTHON_SOURCES missing.py)")
configure(python_source_directory "${fn} PYTHON_SOURCES file 'include' is a directory"
          "kiln_add_cache(c SOURCES kernel.cu PYTHON_SOURCES include)")
configure(scan_target_missing "${fn} SCAN_TARGETS entry 'app' is not a target"
          "kiln_add_cache(c SOURCES kernel.cu SCAN_TARGETS app)")
configure(manifest_and_scan_targets "${fn} MANIFEST cannot be combined with SCAN_TARGETS"
          "kiln_add_cache(c MANIFEST kiln.toml SCAN_TARGETS app)")
configure(embed_without_asm "${fn} EMBED links the package with an assembly file"
          "kiln_add_cache(c SOURCES kernel.cu EMBED)")
configure(name_taken "${fn} a target named 'c_package' exists already"
          "add_custom_target(c_package)\nkiln_add_cache(c SOURCES kernel.cu)")
configure(install_unknown "kiln_install_cache\\(\\): 'nothing' is not a target"
          "kiln_install_cache(nothing DESTINATION bin)")
configure(major_version "compatible with requested version \"1.0\""
          "find_package(Kiln 1.0 CONFIG REQUIRED)")

expect_targets(real_virtual "sm_80;compute_86;sm_90a;sm_100;compute_100"
               "kiln_add_cache(real_virtual SOURCES kernel.cu ARCHITECTURES 80-real 86-virtual 90a-real 100)")
# KILN_VERBOSE=ON reaches the kiln build inside the step as -v; without it there is no -v.
foreach(verbose ON OFF)
  configure(verbose_${verbose} OK "set(KILN_VERBOSE ${verbose})\nkiln_add_cache(c SOURCES kernel.cu TARGETS sm_80)")
  file(READ ${WORK}/verbose_${verbose}/build/build.ninja ninja)
  string(REGEX MATCH "[^\n]* build [^\n]*kiln[.]toml [^\n]*" kiln_command "${ninja}")
  if(NOT kiln_command)
    message(FATAL_ERROR "verbose_${verbose}: no kiln build command in build.ninja")
  endif()
  if(verbose)
    kiln_expect("${kiln_command}" MATCHES " -v( |$)" "verbose_${verbose}")
  else()
    kiln_expect("${kiln_command}" NOT_MATCHES " -v( |$)" "verbose_${verbose}")
  endif()
endforeach()

# all, all-major and nothing set mean what they mean to CMake and nvcc (KilnArchitectures.cmake), made
# of NVRTC's architectures as the installed kiln lists them: all is each, with PTX of the highest
# major's first; all-major the lowest of each major; nothing set the lowest, as cubin and PTX.
kiln_run(listed ${PREFIX}/bin/kiln check --list-architectures)
kiln_expect("${listed}" MATCHES "^[0-9]+( [0-9]+)+\n$" "kiln check --list-architectures")
string(REGEX MATCHALL "[0-9]+" nvrtc_architectures "${listed}")
set(every_architecture "")
set(all_major "")
set(majors "")
foreach(arch IN LISTS nvrtc_architectures)
  list(APPEND every_architecture sm_${arch})
  math(EXPR major "${arch} / 10")
  list(FIND majors ${major} found)
  if(found EQUAL -1)
    list(APPEND majors ${major})
    list(APPEND all_major sm_${arch})
    set(highest_major_ptx compute_${arch})
  endif()
endforeach()
list(APPEND every_architecture ${highest_major_ptx})
list(APPEND all_major ${highest_major_ptx})
list(GET nvrtc_architectures 0 lowest)
expect_targets(all_major "${all_major}" "kiln_add_cache(all_major SOURCES kernel.cu ARCHITECTURES all-major)")
expect_targets(every "${every_architecture}" "kiln_add_cache(every SOURCES kernel.cu ARCHITECTURES all)")
expect_targets(nothing_set "sm_${lowest};compute_${lowest}" "kiln_add_cache(nothing_set SOURCES kernel.cu)")
configure_warns(nothing_set_says_so
                "Kiln: cache c builds sm_${lowest} compute_${lowest}, nvcc's default, as no ARCHITECTURES, TARGETS or CMAKE_CUDA_ARCHITECTURES is set"
                "kiln_add_cache(c SOURCES kernel.cu)")
expect_targets(follows_cmake "sm_86;sm_90;compute_90"
               "set(CMAKE_CUDA_ARCHITECTURES 86-real 90)\nkiln_add_cache(follows_cmake SOURCES kernel.cu)")
expect_targets(targets_win "sm_75" "set(CMAKE_CUDA_ARCHITECTURES 90)\nkiln_add_cache(targets_win SOURCES kernel.cu TARGETS sm_75)")
# docs/python.md's wheel snippet: `all` only where the build sets no CMAKE_CUDA_ARCHITECTURES (pip
# wheel -C cmake.define.CMAKE_CUDA_ARCHITECTURES=90 is a -D on CMake's command line, as here).
foreach(defined "" 90)
  set(name python_md_architectures${defined})
  write_project(${WORK}/${name} "if(NOT CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES all)
endif()
kiln_add_cache(${name} SOURCES kernel.cu ARCHITECTURES \${CMAKE_CUDA_ARCHITECTURES})")
  set(define_architectures "")
  if(defined)
    set(define_architectures -DCMAKE_CUDA_ARCHITECTURES=${defined})
  endif()
  kiln_expect_configure(${WORK}/${name} OK -DCMAKE_PREFIX_PATH=${PREFIX} ${define_architectures})
  include(${WORK}/${name}/build/kiln/${name}/inputs.cmake)
  set(expected "${every_architecture}")
  if(defined)
    set(expected "sm_90;compute_90")
  endif()
  if(NOT KILN_TARGETS STREQUAL "${expected}")
    message(FATAL_ERROR "${name}: targets '${KILN_TARGETS}', expected '${expected}'")
  endif()
endforeach()
# INSTANTIATE with several SOURCES (issue 33): each name is built by the source that defines it. A
# name that names nothing, or that does not compile, fails the build at the call's line in
# CMakeLists.txt (found across a newline and a comment), under CMake's keyword, not in the generated
# kiln.toml.
write_project(${WORK}/several "kiln_add_cache(several SOURCES templates.cu scale.cu TARGETS sm_80
               INSTANTIATE fill<int> scale<float>)
kiln_add_cache(
  several_unknown  # scal: a typo
  SOURCES templates.cu scale.cu TARGETS sm_80 INSTANTIATE fill<int> scal<float>)
kiln_add_cache(several_typo SOURCES templates.cu scale.cu TARGETS sm_80 INSTANTIATE scale<flaot>)")
set(build ${WORK}/several/build)
kiln_run(ignored ${CMAKE_COMMAND} -S ${WORK}/several -B ${build} -G Ninja -DCMAKE_PREFIX_PATH=${PREFIX})
kiln_run(ignored ${CMAKE_COMMAND} --build ${build} --target several_package)
file(READ ${build}/kiln/several/kiln.toml manifest)
kiln_expect("${manifest}" MATCHES "\ninstantiate = \\[\"fill<int>\", \"scale<float>\"\\]\n.*cmake_call = \"CMakeLists.txt:4\""
            "several: the generated manifest's top-level instantiate and the call's place")
kiln_run(report ${PREFIX}/bin/kiln inspect ${build}/several.kiln)
kiln_expect("${report}" MATCHES "fill<int> +templates\\.cu" "several: fill<int> built by templates.cu")
kiln_expect("${report}" MATCHES "scale<float> +scale\\.cu" "several: scale<float> built by scale.cu")
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} --target several_unknown_package
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
kiln_expect("${result}" NOT_MATCHES "^0$" "several_unknown: the build")
set(expected "CMakeLists\\.txt:6: error: INSTANTIATE 'scal<float>' of cache 'several_unknown': no kernel source defines")
kiln_expect("${output}" MATCHES "${expected} a kernel or kernel template 'scal' \\(did you mean 'scale'\\?\\)"
            "several_unknown: the error")
kiln_expect("${output}" NOT_MATCHES "kiln\\.toml:[0-9]" "several_unknown: no report in the generated manifest")
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} --target several_typo_package
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
kiln_expect("${result}" NOT_MATCHES "^0$" "several_typo: the build")
kiln_expect("${output}" MATCHES "CMakeLists\\.txt:9: error: INSTANTIATE 'scale<flaot>' of cache 'several_typo': identifier"
            "several_typo: the error")
kiln_expect("${output}" NOT_MATCHES "kiln\\.toml:[0-9]" "several_typo: no report in the generated manifest")

# The build names the call that asked for the package (ninja shows it with a failure).
configure(call_site OK "\nkiln_add_cache(call_site SOURCES kernel.cu TARGETS sm_80)")
file(READ ${WORK}/call_site/build/build.ninja ninja_file)
kiln_expect("${ninja_file}" MATCHES "Building Kiln package call_site \\(kiln_add_cache at CMakeLists.txt:5\\)"
            call_site)
execute_process(COMMAND nvidia-smi -L RESULT_VARIABLE no_gpu OUTPUT_QUIET ERROR_QUIET)
if(no_gpu)
  configure(native "${fn} ARCHITECTURES native, but this build machine has no GPU"
            "kiln_add_cache(c SOURCES kernel.cu ARCHITECTURES native)")
endif()

# One project, two places: relative, absolute and toolkit include directories, and generator
# expressions that leave a value in this configuration (Release) and an empty one. (Not -lineinfo:
# NVRTC then records the directory it compiled in inside the cubin, so the packages would differ.)
set(code "kiln_add_cache(relocatable SOURCES kernel.cu TARGETS sm_80
  INCLUDE_DIRECTORIES include \${CMAKE_CURRENT_SOURCE_DIR}/include2 ${CUDA_INCLUDE_DIR}/cccl
  DEFINES $<$<CONFIG:Debug>:DEBUG_ONLY> NAME=\"quoted value\"
  OPTIONS $<$<CONFIG:Release>:-std=c++17>)")
foreach(copy one/project two/deeper/project)
  write_project(${WORK}/${copy} "${code}")
  kiln_run(ignored ${CMAKE_COMMAND} -S ${WORK}/${copy} -B ${WORK}/${copy}/build -G Ninja
           -DCMAKE_PREFIX_PATH=${PREFIX} -DCMAKE_BUILD_TYPE=Release)
  kiln_run(ignored ${CMAKE_COMMAND} --build ${WORK}/${copy}/build)
endforeach()
file(READ ${WORK}/one/project/build/kiln/relocatable/kiln.toml manifest)
kiln_expect("${manifest}" NOT_MATCHES "\"/|DEBUG_ONLY|\\[\"\"|, \"\"" "the generated manifest")
kiln_expect("${manifest}" MATCHES
            "include_dirs = \\[\"include\", \"include2\", \"<cuda>/[a-z0-9_/-]*include/cccl\"\\]" "include_dirs")
kiln_expect("${manifest}" MATCHES "defines = \\[\"NAME=\\\\\"quoted value\\\\\"\"\\]" "defines")
kiln_expect("${manifest}" MATCHES "options = \\[\"-std=c\\+\\+17\"\\]" "options")
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/one/project/build/relocatable.kiln
                        ${WORK}/two/deeper/project/build/relocatable.kiln RESULT_VARIABLE different)
if(different)
  message(FATAL_ERROR "the package differs between two copies of the project")
endif()

# OPTIONS -Xptxas=-v: the build's output has a note per kernel and cubin (issue 33), with ptxas's
# spills and without its raw report, none for PTX.
configure(ptxas_notes OK "kiln_add_cache(ptxas_notes SOURCES kernel.cu TARGETS sm_80 compute_80
  INCLUDE_DIRECTORIES include \${CMAKE_CURRENT_SOURCE_DIR}/include2 OPTIONS -Xptxas=-v)")
kiln_run(output ${CMAKE_COMMAND} --build ${WORK}/ptxas_notes/build)
kiln_expect("${output}" MATCHES "kernel\\.cu: note: sm_80: 'store': [0-9]+ registers, [0-9]+ bytes stack frame, [0-9]+ bytes spill stores, [0-9]+ bytes spill loads, "
            "ptxas_notes: the build's output, with ptxas's spills")
kiln_expect("${output}" NOT_MATCHES "ptxas info" "ptxas_notes: ptxas's report is said once, as the notes")
kiln_expect("${output}" NOT_MATCHES "note: compute_80" "ptxas_notes: no note for PTX")

# Host code decides which instantiation of a kernel template is built: host.cpp asks for fill<int>.
# It parses only with its target's include directory and definition, which SCAN_TARGETS passes on
# (HOST_SOURCES takes them from INCLUDE_DIRECTORIES and DEFINES). SCAN_TARGETS reads the target when
# the build system is generated (issue 33): later.cpp, added after the call and C++20 like the
# cxx_std_20 asked after it, is scanned at c++20 and asks for fill<double>. A STRICT cache whose
# target asks for a kernel no source defines fails, naming the file and line.
write_project(${WORK}/scanning "enable_language(CXX)
add_executable(app host.cpp)
target_include_directories(app PRIVATE hostinc)
target_compile_definitions(app PRIVATE HOST_DEFINE)
target_link_libraries(app PRIVATE Kiln::runtime)
kiln_add_cache(by_target SOURCES templates.cu SCAN_TARGETS app TARGETS sm_80)
kiln_add_cache(by_file SOURCES templates.cu HOST_SOURCES host.cpp INCLUDE_DIRECTORIES hostinc DEFINES HOST_DEFINE
               TARGETS sm_80)
kiln_add_cache(by_python SOURCES templates.cu PYTHON_SOURCES ops.py TARGETS sm_80)
target_sources(app PRIVATE later.cpp)
target_compile_features(app PRIVATE cxx_std_20)
add_library(unsatisfied OBJECT unsatisfied.cpp)
target_link_libraries(unsatisfied PRIVATE Kiln::runtime)
kiln_add_cache(unsatisfied_strict SOURCES templates.cu SCAN_TARGETS unsatisfied TARGETS sm_80 STRICT)")
set(build ${WORK}/scanning/build)
kiln_run(ignored ${CMAKE_COMMAND} -S ${WORK}/scanning -B ${build} -G Ninja -DCMAKE_PREFIX_PATH=${PREFIX}
         -DCMAKE_CXX_COMPILER=${CXX} -DPython3_EXECUTABLE=${PYTHON})
kiln_run(ignored ${CMAKE_COMMAND} --build ${build} --target by_target_package by_file_package by_python_package)
kiln_run(report ${PREFIX}/bin/kiln inspect ${build}/by_file.kiln)
kiln_expect("${report}" MATCHES "kernels \\(1\\)\n  fill<int> " "by_file: the kernel host code asks for")
kiln_run(report ${PREFIX}/bin/kiln inspect --json ${build}/by_target.kiln)
string(JSON count LENGTH "${report}" kernels)
set(kernels "")
math(EXPR last "${count} - 1")
foreach(index RANGE ${last})
  string(JSON kernel GET "${report}" kernels ${index} name)
  list(APPEND kernels "${kernel}")
endforeach()
list(SORT kernels)
kiln_expect("${kernels}" MATCHES "^fill<double>;fill<int>$" "by_target: the kernels host.cpp and the later, C++20 later.cpp ask for")
include(${build}/kiln/by_target/scan-targets.cmake)
kiln_expect("${KILN_SCAN_STANDARD}: ${KILN_SCAN_SOURCES}" MATCHES "^20: .*/scanning/later.cpp"
            "by_target: the record of what SCAN_TARGETS scans")
execute_process(COMMAND ${CMAKE_COMMAND} --build ${build} --target unsatisfied_strict_package
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
kiln_expect("${result}" NOT_MATCHES "^0$" "STRICT with a request no kernel source can satisfy: the build")
kiln_expect("${output}" MATCHES "unsatisfied\\.cpp:5:[0-9]+: [^\n]*'no_such_kernel<int>'"
            "STRICT with a request no kernel source can satisfy: the error")
# Python code decides too (ops.py asks for fill<float>), read by the interpreter CMake knows.
kiln_run(report ${PREFIX}/bin/kiln inspect ${build}/by_python.kiln)
kiln_expect("${report}" MATCHES "kernels \\(1\\)\n  fill<float> " "by_python: the kernel Python code asks for")
file(READ ${build}/build.ninja ninja)
string(FIND "${ninja}" "--python-source ${WORK}/scanning/ops.py --python ${PYTHON}" passed)
if(passed EQUAL -1)
  message(FATAL_ERROR "by_python: kiln build does not get --python-source ops.py --python ${PYTHON}")
endif()

# STRICT: what the scan cannot see fails the build (kiln build --strict); without it, a warning.
configure(strict OK "kiln_add_cache(strict SOURCES kernel.cu TARGETS sm_80 STRICT)\nkiln_add_cache(lenient SOURCES kernel.cu TARGETS sm_80)")
file(READ ${WORK}/strict/build/build.ninja ninja)
string(REGEX MATCH "-o [^ \n]*/strict\\.kiln [^\n]*--strict" strict_command "${ninja}")
string(REGEX MATCH "-o [^ \n]*/lenient\\.kiln [^\n]*--strict" lenient_command "${ninja}")
if(NOT strict_command OR lenient_command)
  message(FATAL_ERROR "STRICT: kiln build gets --strict for 'strict' only")
endif()

# Device link groups and variants from CMake (issue 13): RELOCATABLE makes every source one group;
# source properties name a group (KILN_LINK_GROUP) or build a source as variants (KILN_VARIANTS,
# with KILN_VARIANT_<v>_DEFINES/_OPTIONS/_INSTANTIATE). The generated manifests say so, and kiln
# builds them: one unit "rdc", and units f32 and f64 whose kernels carry their names.
configure(relocatable_with_manifest "${fn} RELOCATABLE cannot be combined with MANIFEST"
          "kiln_add_cache(c MANIFEST kernel.cu RELOCATABLE)")
# Per-source settings (issue 33): an unknown KILN_* source property (also a variant's, for a variant
# the source does not have) is an error naming the nearest; CMake's compile properties on a kernel
# source warn, naming the KILN_* property to use.
configure(unknown_source_property "${fn} source 'kernel.cu' of cache 'c' has the source property 'KILN_OPTION', which kiln_add_cache does not know \\(did you mean 'KILN_OPTIONS'\\?\\)"
          "set_source_files_properties(kernel.cu PROPERTIES KILN_OPTION -lineinfo)
kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80)")
configure(unknown_variant_property "${fn} source 'templates.cu' of cache 'c' has the source property 'KILN_VARIANT_f33_DEFINES', which kiln_add_cache does not know \\(did you mean 'KILN_VARIANT_f32_DEFINES'\\?\\)"
          "set_source_files_properties(templates.cu PROPERTIES KILN_VARIANTS f32 KILN_VARIANT_f33_DEFINES X)
kiln_add_cache(c SOURCES templates.cu TARGETS sm_80)")
configure(source_include_directory "${fn} source 'kernel.cu' of cache 'c' has the source property 'KILN_INCLUDE_DIRECTORES', which kiln_add_cache does not know \\(did you mean 'KILN_INCLUDE_DIRECTORIES'\\?\\)"
          "set_source_files_properties(kernel.cu PROPERTIES KILN_INCLUDE_DIRECTORES include)
kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80)")
configure_warns(cmake_compile_options "${fn} source 'kernel.cu' of cache 'c' has the source property COMPILE_OPTIONS, which the package's build does not read .* use KILN_OPTIONS.*source property COMPILE_DEFINITIONS, .* use KILN_DEFINES.*source property INCLUDE_DIRECTORIES, .* use KILN_INCLUDE_DIRECTORIES"
          "set_source_files_properties(kernel.cu PROPERTIES COMPILE_OPTIONS -lineinfo COMPILE_DEFINITIONS X INCLUDE_DIRECTORIES include)
kiln_add_cache(c SOURCES kernel.cu TARGETS sm_80)")
configure(variant_and_group "${fn} source 'templates.cu' of cache 'c' has both KILN_LINK_GROUP and KILN_VARIANTS"
          "set_source_files_properties(templates.cu PROPERTIES KILN_LINK_GROUP g KILN_VARIANTS v)
kiln_add_cache(c SOURCES templates.cu TARGETS sm_80)")
write_project(${WORK}/linking "set_source_files_properties(kernel.cu PROPERTIES
  KILN_INCLUDE_DIRECTORIES \"$<1:\${CMAKE_CURRENT_SOURCE_DIR}/include2>;include\")
kiln_add_cache(grouped SOURCES kernel.cu RELOCATABLE TARGETS sm_80
  INCLUDE_DIRECTORIES include \${CMAKE_CURRENT_SOURCE_DIR}/include2)
kiln_add_cache(per_source SOURCES kernel.cu templates.cu TARGETS sm_80)
set_source_files_properties(templates.cu PROPERTIES KILN_VARIANTS \"f32;f64\"
  KILN_DEFINES SOURCE_WIDE KILN_OPTIONS \"$<1:-maxrregcount=64>;$<$<CONFIG:Debug>:-G>\"
  KILN_VARIANT_f32_INSTANTIATE \"fill<float>\" KILN_VARIANT_f64_INSTANTIATE \"fill<double>\"
  KILN_VARIANT_f64_DEFINES WIDE)
kiln_add_cache(variants SOURCES templates.cu TARGETS sm_80)")
kiln_run(ignored ${CMAKE_COMMAND} -S ${WORK}/linking -B ${WORK}/linking/build -G Ninja -DCMAKE_PREFIX_PATH=${PREFIX})
kiln_run(ignored ${CMAKE_COMMAND} --build ${WORK}/linking/build)
file(READ ${WORK}/linking/build/kiln/grouped/kiln.toml manifest)
kiln_expect("${manifest}" MATCHES "options = \\[\"-rdc=true\"\\]" "RELOCATABLE's manifest")
# KILN_INCLUDE_DIRECTORIES (issue 33): a generator expression evaluated, a relative directory relative
# to the calling directory, in that source's [[source]] alone; kernel.cu finds its two headers there
# only, and the package builds. Beside the call's own INCLUDE_DIRECTORIES (grouped) they change nothing.
file(READ ${WORK}/linking/build/kiln/per_source/kiln.toml manifest)
kiln_expect("${manifest}" MATCHES "path = \"kernel.cu\"\ninclude_dirs = \\[\"include2\", \"include\"\\]\n"
            "KILN_INCLUDE_DIRECTORIES in kernel.cu's [[source]]")
kiln_expect("${manifest}" NOT_MATCHES "path = \"templates.cu\"\n[^[]*include_dirs" "templates.cu's [[source]], without them")
string(FIND "${manifest}" "[[source]]" first_source)
string(SUBSTRING "${manifest}" 0 ${first_source} top_level)
kiln_expect("${top_level}" NOT_MATCHES "include_dirs" "the top level, without them")
kiln_run(report ${PREFIX}/bin/kiln inspect --json ${WORK}/linking/build/per_source.kiln)
string(JSON options GET "${report}" metadata "options.kernel.cu")
kiln_expect("${options}" MATCHES "^-Iinclude2 -Iinclude$" "per_source: kernel.cu's recorded options")
kiln_run(report ${PREFIX}/bin/kiln inspect ${WORK}/linking/build/per_source.kiln)
kiln_expect("${report}" MATCHES "store +kernel\\.cu" "per_source: kernel.cu's kernel")
file(READ ${WORK}/linking/build/kiln/variants/kiln.toml manifest)
# The source's KILN_DEFINES and KILN_OPTIONS (generator expressions evaluated) in each variant, first.
kiln_expect("${manifest}" MATCHES "variant = \"f32\"\ndefines = \\[\"SOURCE_WIDE\"\\]\noptions = \\[\"-maxrregcount=64\"\\]\ninstantiate = \\[\"fill<float>\"\\]" "the f32 variant")
kiln_expect("${manifest}" MATCHES "variant = \"f64\"\ndefines = \\[\"SOURCE_WIDE\", \"WIDE\"\\]\noptions = \\[\"-maxrregcount=64\"\\]\ninstantiate = \\[\"fill<double>\"\\]"
            "the f64 variant")
kiln_run(report ${PREFIX}/bin/kiln inspect ${WORK}/linking/build/grouped.kiln)
kiln_expect("${report}" MATCHES "units \\(1\\)\n  rdc" "RELOCATABLE: one link group")
kiln_run(report ${PREFIX}/bin/kiln inspect ${WORK}/linking/build/variants.kiln)
kiln_expect("${report}" MATCHES "f32/fill<float>" "the f32 variant's kernel")
kiln_expect("${report}" MATCHES "f64/fill<double>" "the f64 variant's kernel")

# Carried sources from CMake (issue 14): CARRY_SOURCES for every source of a call, the source property
# KILN_CARRY_SOURCES to carry one more or one less; the generated manifests say so, and the packages
# carry what they say.
configure(carry_with_manifest "${fn} CARRY_SOURCES cannot be combined with MANIFEST"
          "kiln_add_cache(c MANIFEST kernel.cu CARRY_SOURCES)")
write_project(${WORK}/carrying "set_source_files_properties(templates.cu PROPERTIES KILN_CARRY_SOURCES OFF
  KILN_DEFINES ONLY_TEMPLATES KILN_OPTIONS -lineinfo)
kiln_add_cache(every SOURCES kernel.cu templates.cu TARGETS sm_80 CARRY_SOURCES
  INCLUDE_DIRECTORIES include \${CMAKE_CURRENT_SOURCE_DIR}/include2)
set_source_files_properties(kernel.cu PROPERTIES KILN_CARRY_SOURCES ON)
kiln_add_cache(one SOURCES kernel.cu TARGETS sm_80 INCLUDE_DIRECTORIES include \${CMAKE_CURRENT_SOURCE_DIR}/include2)")
kiln_run(ignored ${CMAKE_COMMAND} -S ${WORK}/carrying -B ${WORK}/carrying/build -G Ninja -DCMAKE_PREFIX_PATH=${PREFIX})
kiln_run(ignored ${CMAKE_COMMAND} --build ${WORK}/carrying/build)
file(READ ${WORK}/carrying/build/kiln/every/kiln.toml manifest)
kiln_expect("${manifest}" MATCHES "carry_sources = true\n" "CARRY_SOURCES's manifest")
kiln_expect("${manifest}" MATCHES "path = \"templates.cu\"\ndefines = \\[\"ONLY_TEMPLATES\"\\]\noptions = \\[\"-lineinfo\"\\]\ncarry_sources = false\n"
            "KILN_CARRY_SOURCES OFF, KILN_DEFINES and KILN_OPTIONS")
kiln_expect("${manifest}" NOT_MATCHES "path = \"kernel.cu\"\n(defines|options)" "kernel.cu: templates.cu's settings")
string(FIND "${manifest}" "[[source]]" first_source)
string(SUBSTRING "${manifest}" 0 ${first_source} top_level)
kiln_expect("${top_level}" NOT_MATCHES "ONLY_TEMPLATES|-lineinfo" "the top level: templates.cu's settings")
kiln_run(report ${PREFIX}/bin/kiln inspect ${WORK}/carrying/build/every.kiln)
kiln_expect("${report}" MATCHES "kernel.cu: 1 images[^\n]*\n[^\n]*\n    carries its sources" "CARRY_SOURCES: kernel.cu is carried")
kiln_expect("${report}" MATCHES "templates.cu: 1 images[^\n]*\n[^\n]*\n  carried texts" "KILN_CARRY_SOURCES OFF: templates.cu is not")
kiln_expect("${report}" MATCHES "include dirs: include include2 _cuda/include/cccl _cuda/include\n"
            "the include directories, in the carried tree")
kiln_run(report ${PREFIX}/bin/kiln inspect ${WORK}/carrying/build/one.kiln)
kiln_expect("${report}" MATCHES "carries its sources" "KILN_CARRY_SOURCES ON carries without CARRY_SOURCES")

# Image parts from CMake (issue 16): KERNELS_PER_IMAGE goes into the generated manifest, and the
# package holds the parts it asks for; with MANIFEST, or not a number, it is refused.
configure(parts_with_manifest "${fn} KERNELS_PER_IMAGE cannot be combined with MANIFEST"
          "kiln_add_cache(c MANIFEST kernel.cu KERNELS_PER_IMAGE 4)")
configure(parts_not_a_number "${fn} KERNELS_PER_IMAGE must be a number of kernels from 0 to 1000000 \\(0: never split\\), not 'many'"
          "kiln_add_cache(c SOURCES kernel.cu KERNELS_PER_IMAGE many)")
configure(parts_too_many "${fn} KERNELS_PER_IMAGE must be a number of kernels from 0 to 1000000 \\(0: never split\\), not '1000001'"
          "kiln_add_cache(c SOURCES kernel.cu KERNELS_PER_IMAGE 1000001)")
configure(parts_no_value "${fn} KERNELS_PER_IMAGE needs a value"
          "kiln_add_cache(c SOURCES kernel.cu KERNELS_PER_IMAGE)")
write_project(${WORK}/parts "kiln_add_cache(parts SOURCES templates.cu TARGETS sm_80 KERNELS_PER_IMAGE 1
  INSTANTIATE fill<int> fill<float>)")
kiln_run(ignored ${CMAKE_COMMAND} -S ${WORK}/parts -B ${WORK}/parts/build -G Ninja -DCMAKE_PREFIX_PATH=${PREFIX})
kiln_run(ignored ${CMAKE_COMMAND} --build ${WORK}/parts/build)
file(READ ${WORK}/parts/build/kiln/parts/kiln.toml manifest)
kiln_expect("${manifest}" MATCHES "kernels_per_image = 1\n" "KERNELS_PER_IMAGE's manifest")
kiln_run(report ${PREFIX}/bin/kiln inspect ${WORK}/parts/build/parts.kiln)
kiln_expect("${report}" MATCHES "templates.cu#2 \\(image part 2 of templates.cu\\)" "KERNELS_PER_IMAGE 1: two parts")

# Split packages from CMake (issue 16): SPLIT runs kiln split after the build, the companions are
# byproducts and installed beside the package under its name; a rebuild for fewer majors leaves no
# stale companion; SPLIT with EMBED is refused.
configure(split_embed "${fn} SPLIT cannot be combined with EMBED"
          "kiln_add_cache(c SOURCES kernel.cu EMBED SPLIT)")
set(split_code "string(REPLACE , \";\" split_targets \"\${SPLIT_TARGETS}\")
kiln_add_cache(split_kernels SOURCES kernel.cu TARGETS \${split_targets} SPLIT
  INCLUDE_DIRECTORIES include \${CMAKE_CURRENT_SOURCE_DIR}/include2)
kiln_install_cache(split_kernels DESTINATION lib/kernels)")
write_project(${WORK}/splitting "${split_code}")
set(build ${WORK}/splitting/build)
kiln_run(ignored ${CMAKE_COMMAND} -S ${WORK}/splitting -B ${build} -G Ninja -DCMAKE_PREFIX_PATH=${PREFIX}
         -DSPLIT_TARGETS=sm_80,sm_90,compute_80)
kiln_run(ignored ${CMAKE_COMMAND} --build ${build})
file(READ ${build}/build.ninja ninja)
kiln_expect("${ninja}" MATCHES "build split_kernels\\.kiln split_kernels\\.cc8\\.kiln split_kernels\\.cc9\\.kiln" "SPLIT's byproducts")
kiln_run(report ${PREFIX}/bin/kiln inspect ${build}/split_kernels.kiln)
kiln_expect("${report}" MATCHES "targets: compute_80\n  split: the index and PTX; cubins in [^\n]*split_kernels\\.cc8\\.kiln, [^\n]*split_kernels\\.cc9\\.kiln"
            "SPLIT: the main file")
kiln_run(ignored ${CMAKE_COMMAND} --install ${build} --prefix ${WORK}/splitting/installed)
foreach(file split_kernels.kiln split_kernels.cc8.kiln split_kernels.cc9.kiln)
  if(NOT EXISTS ${WORK}/splitting/installed/lib/kernels/${file})
    message(FATAL_ERROR "SPLIT: the install lacks lib/kernels/${file}")
  endif()
endforeach()
kiln_run(ignored ${CMAKE_COMMAND} -S ${WORK}/splitting -B ${build} -DSPLIT_TARGETS=sm_90,compute_80)
kiln_run(ignored ${CMAKE_COMMAND} --build ${build})
if(EXISTS ${build}/split_kernels.cc8.kiln OR NOT EXISTS ${build}/split_kernels.cc9.kiln)
  message(FATAL_ERROR "SPLIT: a rebuild for sm_90 alone keeps split_kernels.cc9.kiln only")
endif()
