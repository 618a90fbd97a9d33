# kiln_add_cache() and kiln_install_cache(): build a Kiln package from CUDA sources at build time with
# the generator (Kiln::kiln), and link or install it. docs/cmake.md describes every argument.
#
#   kiln_add_cache(<name> SOURCES kernels/a.cu [INSTANTIATE ...] [TARGETS sm_80 compute_80 | ARCHITECTURES 80]
#                  [MANIFEST kiln.toml] [INCLUDE_DIRECTORIES ...] [DEFINES ...] [OPTIONS ...] [VARIABLES ...]
#                  [HOST_SOURCES ...] [SCAN_TARGETS ...] [PYTHON_SOURCES ...] [EMBED] [STRICT] [RELOCATABLE]
#                  [REMOVE_UNUSED_VARIABLES] [CARRY_SOURCES] [KERNELS_PER_IMAGE n] [OUTPUT file.kiln]
#                  [JOB_POOL pool])
#   target_link_libraries(app PRIVATE <name>)
#   kiln_install_cache(<name> DESTINATION bin [COMPONENT runtime])
#
# Loaded by KilnConfig.cmake (find_package(Kiln)) and by Kiln's own CMakeLists.txt (add_subdirectory,
# FetchContent): the same functions and target names either way.
include_guard(GLOBAL)
# Functions keep the policies in force where they are defined: CMP0116 (depfile paths, 3.20) NEW
# whatever the calling project asks for.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.25)

include(${CMAKE_CURRENT_LIST_DIR}/KilnArchitectures.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/KilnCacheRules.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/KilnPackagePlacement.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/KilnSuggest.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/KilnSourceProperties.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/KilnGeneratorCheck.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/KilnScanTargets.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/KilnCompileCommands.cmake)

# A TARGETS entry as the user may have meant it ("sm90", "9.0a", "sm_90A" -> sm_90, sm_90a): " (did you
# mean 'sm_90'?)", or "".
function(_kiln_did_you_mean_target out target)
  string(TOLOWER "${target}" guess)
  string(REPLACE "." "" guess "${guess}")
  if(guess MATCHES "^[0-9]")
    set(guess "sm_${guess}")
  endif()
  string(REGEX REPLACE "^(sm|compute)[-_]?([0-9])" "\\1_\\2" guess "${guess}")
  set(text "")
  if(guess MATCHES "^(sm|compute)_[0-9]+[af]?$" AND NOT guess STREQUAL target)
    set(text " (did you mean '${guess}'?)")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

function(kiln_add_cache name)
  set(options EMBED STRICT RELOCATABLE REMOVE_UNUSED_VARIABLES CARRY_SOURCES SPLIT)
  set(one_value MANIFEST OUTPUT JOB_POOL KERNELS_PER_IMAGE)
  set(multi_value SOURCES HOST_SOURCES SCAN_TARGETS PYTHON_SOURCES TARGETS ARCHITECTURES INSTANTIATE VARIABLES
                  INCLUDE_DIRECTORIES DEFINES OPTIONS)
  cmake_parse_arguments(PARSE_ARGV 1 arg "${options}" "${one_value}" "${multi_value}")
  set(fn "kiln_add_cache()")
  # A misspelt keyword (INSTANTIATES, DEFINITIONS) after a list keyword is taken as one of that list's
  # values, and the values after it too; before any keyword it is unparsed. A value that reads like a
  # keyword is refused with the keyword it most likely meant (_kiln_misspelt_keyword: capitals, close
  # to one). In OPTIONS, a value right after an option without '=' may be that option's (-D NAME).
  _kiln_check_misspelt_keywords(${name} "${multi_value}" "${options};${one_value};${multi_value}")
  if(arg_UNPARSED_ARGUMENTS)
    # Before any keyword: name the first word that reads like a keyword, with the one it most likely meant.
    foreach(word IN LISTS arg_UNPARSED_ARGUMENTS)
      _kiln_did_you_mean(suggestion "${word}" ${options} ${one_value} ${multi_value})
      if(suggestion OR word MATCHES "^[A-Z_]+$")
        message(FATAL_ERROR "${fn}: unknown keyword '${word}' for cache '${name}'${suggestion}")
      endif()
    endforeach()
    string(REPLACE ";" " " unknown "${arg_UNPARSED_ARGUMENTS}")
    message(FATAL_ERROR "${fn}: unknown argument(s) '${unknown}' for cache '${name}'")
  endif()
  foreach(keyword MANIFEST OUTPUT JOB_POOL KERNELS_PER_IMAGE)
    if(keyword IN_LIST arg_KEYWORDS_MISSING_VALUES)
      message(FATAL_ERROR "${fn}: ${keyword} needs a value")
    endif()
  endforeach()
  if(NOT name MATCHES "^[A-Za-z0-9_][A-Za-z0-9_.+-]*$")
    message(FATAL_ERROR "${fn}: the name '${name}' must be letters, digits and _ . + - (it names the "
                        "target, the package and its file <name>.kiln)")
  endif()
  foreach(taken ${name} ${name}_package)
    if(TARGET ${taken})
      message(FATAL_ERROR "${fn}: a target named '${taken}' exists already; choose another name")
    endif()
  endforeach()
  if(NOT TARGET Kiln::kiln)
    message(FATAL_ERROR "${fn}: needs the Kiln generator (the target Kiln::kiln), but this Kiln has only "
                        "the runtime (it was built with KILN_RUNTIME_ONLY); install a full Kiln")
  endif()
  get_property(multi_config GLOBAL PROPERTY GENERATOR_IS_MULTI_CONFIG)
  if(multi_config)
    message(FATAL_ERROR "${fn}: the ${CMAKE_GENERATOR} generator builds several configurations; Kiln "
                        "supports single-configuration generators (Ninja, Unix Makefiles)")
  endif()
  if(arg_SPLIT AND arg_EMBED)
    message(FATAL_ERROR "${fn}: SPLIT cannot be combined with EMBED: the files of a split package live beside "
                        "each other, and an embedded package has no directory to find them in")
  endif()
  if(arg_TARGETS AND arg_ARCHITECTURES)
    message(FATAL_ERROR "${fn}: give TARGETS or ARCHITECTURES, not both")
  endif()
  if(arg_REMOVE_UNUSED_VARIABLES AND arg_MANIFEST)
    message(FATAL_ERROR "${fn}: REMOVE_UNUSED_VARIABLES cannot be combined with MANIFEST: set "
                        "remove_unused_variables = true in the manifest")
  endif()
  if(arg_CARRY_SOURCES AND arg_MANIFEST)
    message(FATAL_ERROR "${fn}: CARRY_SOURCES cannot be combined with MANIFEST: set carry_sources = true in the manifest")
  endif()
  if(DEFINED arg_KERNELS_PER_IMAGE AND arg_MANIFEST)
    message(FATAL_ERROR "${fn}: KERNELS_PER_IMAGE cannot be combined with MANIFEST: set kernels_per_image in the manifest")
  endif()
  # The manifest's range (0 to 1,000,000), checked here so that the error names the call; at most 7
  # digits before the numeric comparison.
  if(DEFINED arg_KERNELS_PER_IMAGE)
    string(LENGTH "${arg_KERNELS_PER_IMAGE}" digits)
    if(NOT arg_KERNELS_PER_IMAGE MATCHES "^[0-9]+$" OR digits GREATER 7 OR arg_KERNELS_PER_IMAGE GREATER 1000000)
      message(FATAL_ERROR "${fn}: KERNELS_PER_IMAGE must be a number of kernels from 0 to 1000000 (0: never "
                          "split), not '${arg_KERNELS_PER_IMAGE}'")
    endif()
  endif()
  if(arg_RELOCATABLE AND arg_MANIFEST)
    message(FATAL_ERROR "${fn}: RELOCATABLE cannot be combined with MANIFEST: put \"-rdc=true\" in the manifest's options")
  elseif(arg_RELOCATABLE)
    list(APPEND arg_OPTIONS -rdc=true)   # every source one device link group (docs/manifest.md)
  endif()
  if(arg_MANIFEST)
    foreach(keyword SOURCES INSTANTIATE VARIABLES INCLUDE_DIRECTORIES DEFINES OPTIONS SCAN_TARGETS)
      if(arg_${keyword})
        message(FATAL_ERROR "${fn}: MANIFEST cannot be combined with ${keyword}: put it in the manifest")
      endif()
    endforeach()
  elseif(NOT arg_SOURCES)
    message(FATAL_ERROR "${fn}: cache '${name}' has no SOURCES (or give a MANIFEST)")
  endif()
  # A missing kernel source fails now, not later in the build as a missing file; one that a custom
  # command generates (the GENERATED property) may not exist yet.
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(path "${source}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    get_source_file_property(generated "${path}" GENERATED)
    cmake_path(IS_PREFIX CMAKE_CURRENT_SOURCE_DIR "${path}" NORMALIZE inside)
    if(NOT inside)
      continue()   # refused with its own message when the manifest is generated
    elseif(NOT EXISTS "${path}" AND NOT generated)
      message(FATAL_ERROR "${fn}: SOURCES file '${source}' of cache '${name}' does not exist (looked for ${path})")
    elseif(IS_DIRECTORY "${path}")
      message(FATAL_ERROR "${fn}: SOURCES file '${source}' of cache '${name}' is a directory (${path})")
    endif()
  endforeach()

  # Targets: TARGETS, else ARCHITECTURES, else (without a manifest of its own) CMAKE_CUDA_ARCHITECTURES,
  # else, without a manifest, nvcc's default architecture as CMake would build it (said once, at the
  # call); with a manifest, its own targets or the generator's default.
  set(targets "")
  if(arg_TARGETS)
    foreach(target IN LISTS arg_TARGETS)
      if(NOT target MATCHES "^(sm|compute)_[0-9]+[af]?$")
        _kiln_did_you_mean_target(suggestion "${target}")
        message(FATAL_ERROR "${fn}: TARGETS entry '${target}' is not a Kiln target${suggestion}: expected sm_XY, sm_XYa, "
                            "sm_XYf, compute_XY, compute_XYa or compute_XYf (for 80-real and the like, use "
                            "ARCHITECTURES)")
      endif()
    endforeach()
    set(targets ${arg_TARGETS})
  elseif(arg_ARCHITECTURES)
    _kiln_targets_from_architectures(targets ARCHITECTURES ${arg_ARCHITECTURES})
  elseif(NOT arg_MANIFEST AND DEFINED CMAKE_CUDA_ARCHITECTURES AND CMAKE_CUDA_ARCHITECTURES)
    _kiln_targets_from_architectures(targets CMAKE_CUDA_ARCHITECTURES ${CMAKE_CUDA_ARCHITECTURES})
  elseif(NOT arg_MANIFEST)
    _kiln_default_targets(targets)
    string(REPLACE ";" " " target_text "${targets}")
    message(STATUS "Kiln: cache ${name} builds ${target_text}, nvcc's default, as no ARCHITECTURES, TARGETS or "
                   "CMAKE_CUDA_ARCHITECTURES is set (set one: native for this machine's GPUs, all for every GPU)")
  endif()
  list(REMOVE_DUPLICATES targets)

  set(work_dir ${CMAKE_CURRENT_BINARY_DIR}/kiln/${name})
  if(arg_OUTPUT)
    get_filename_component(output "${arg_OUTPUT}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_BINARY_DIR})
  elseif(arg_EMBED)
    set(output ${work_dir}/${name}.kiln)  # linked into the binaries: kept out of their directory
  else()
    set(output ${CMAKE_CURRENT_BINARY_DIR}/${name}.kiln)  # beside the programs built here
  endif()
  # Ninja makes the directories of a rule's outputs; Makefile generators do not, and kiln needs its
  # output's directory to exist (OUTPUT split/kernels.kiln).
  get_filename_component(output_dir "${output}" DIRECTORY)
  file(MAKE_DIRECTORY "${output_dir}")

  _kiln_host_sources(host_sources scan_include_dirs scan_defines scan_args scan_depends ${name} ${work_dir}
                     "${arg_HOST_SOURCES}" "${arg_SCAN_TARGETS}" "${arg_SOURCES}")
  # The user's compile and scan cache (KILN_CACHE_DIR, else ~/.cache/kiln), as ccache works under
  # CMake: a `kiln build` of the same sources by hand, or another build tree, reuses what this one
  # compiled. The CMake variable KILN_CACHE_DIR, if set, names another.
  # The build directory is <build> in the manifest, the cache keys and the package: the whole build
  # tree, so that generated headers anywhere in it are named the same from every build directory.
  set(generator_args -o ${output} --depfile ${output}.d --build-dir ${CMAKE_BINARY_DIR})
  if(KILN_CACHE_DIR)
    list(APPEND generator_args --cache-dir ${KILN_CACHE_DIR})
  endif()
  foreach(file IN LISTS host_sources)
    list(APPEND generator_args --host-source ${file})
  endforeach()
  list(APPEND generator_args ${scan_args})   # generator expressions: lists, COMMAND_EXPAND_LISTS below
  _kiln_python_sources(python_sources python "${arg_PYTHON_SOURCES}")
  foreach(file IN LISTS python_sources)
    list(APPEND generator_args --python-source ${file})
  endforeach()
  if(python)
    list(APPEND generator_args --python ${python})
  endif()
  if(KILN_CUDA_ROOT)
    list(APPEND generator_args --cuda-root ${KILN_CUDA_ROOT})
  endif()
  # CMAKE_EXPORT_COMPILE_COMMANDS: the kernel sources' commands, for compile_commands.json
  # (KilnCompileCommands.cmake).
  _kiln_compile_commands_fragment(compile_commands ${name} ${work_dir})
  if(compile_commands)
    list(APPEND generator_args --compile-commands ${compile_commands})
  endif()
  if(arg_STRICT)
    list(APPEND generator_args --strict)   # what the scan cannot see fails the build
  endif()
  # Read when the call is made, as KILN_CACHE_DIR: every scan and compile, with its options and
  # whether the cache answered it, in the build's output (kiln build -v).
  if(KILN_VERBOSE)
    list(APPEND generator_args -v)
  endif()
  # "CMakeLists.txt:12": shown by the build tool with the command, so that a failure names the call that
  # asked for it, and recorded in a generated manifest (cmake_call), where kiln reports the errors in
  # the values the call gave.
  _kiln_call_site(call_site kiln_add_cache ${name})
  if(arg_MANIFEST)
    get_filename_component(manifest "${arg_MANIFEST}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(NOT EXISTS ${manifest})
      message(FATAL_ERROR "${fn}: MANIFEST '${arg_MANIFEST}' does not exist (looked for ${manifest})")
    endif()
    if(targets)
      string(REPLACE ";" "," target_list "${targets}")
      list(APPEND generator_args --targets ${target_list})
    endif()
    set(inputs ${manifest})
  else()
    set(manifest_flags "")   # passed on as they are
    foreach(flag REMOVE_UNUSED_VARIABLES CARRY_SOURCES)
      if(arg_${flag})
        list(APPEND manifest_flags ${flag})
      endif()
    endforeach()
    _kiln_generated_manifest(${name} manifest inputs WORK_DIR ${work_dir} CALL_SITE ${call_site} TARGETS ${targets}
      SOURCES ${arg_SOURCES} INSTANTIATE ${arg_INSTANTIATE} VARIABLES ${arg_VARIABLES}
      INCLUDE_DIRECTORIES ${arg_INCLUDE_DIRECTORIES} ${scan_include_dirs} DEFINES ${arg_DEFINES} ${scan_defines}
      OPTIONS ${arg_OPTIONS} ${manifest_flags} KERNELS_PER_IMAGE ${arg_KERNELS_PER_IMAGE})
    list(APPEND generator_args --root ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  # What the installed generator refuses fails now, at this call (KilnGeneratorCheck.cmake).
  _kiln_check_with_generator(${name} TARGETS ${targets} OPTIONS ${arg_OPTIONS} SOURCES ${arg_SOURCES})

  # A Ninja pool (JOB_POOLS) bounds how many kiln builds run at once; other generators have none.
  set(job_pool "")
  if(arg_JOB_POOL)
    if(CMAKE_GENERATOR MATCHES "Ninja")
      set(job_pool JOB_POOL ${arg_JOB_POOL})
      # Checked when the top directory is done, so the pool may be defined after the call; else Ninja
      # would refuse build.ninja ("unknown pool name") at build time, far from the call. EVAL: a
      # deferred call reads its arguments' variables when it runs, not now.
      cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY [[${CMAKE_SOURCE_DIR}]] CALL _kiln_check_job_pool
                                               [[${name}]] [[${arg_JOB_POOL}]] [[${call_site}]])")
    else()
      message(AUTHOR_WARNING "${fn}: JOB_POOL is for the Ninja generators; ${CMAKE_GENERATOR} ignores it "
                             "(its jobserver, make -jN, bounds the kiln builds' compiles)")
    endif()
  elseif(CMAKE_GENERATOR MATCHES "Ninja")
    # Ninja's -j counts a kiln build as one job, though it runs a compile per core: without a pool,
    # N packages building at once would run N compiles per core. Every cache without a JOB_POOL of
    # its own shares the pool kiln_packages (KILN_PARALLEL_PACKAGES builds at once, 1 by default).
    set(job_pool JOB_POOL kiln_packages)
    _kiln_define_packages_pool_later()
  endif()
  # Make before 4.4 lends its jobserver only to the recipes it takes for recursive makes, those naming
  # $(MAKE): this one names it (in a variable kiln ignores), so that kiln build takes its compiles from
  # `make -jN` rather than warning that the jobserver is closed ([cli.md], Jobserver).
  set(kiln_command Kiln::kiln)
  if(CMAKE_GENERATOR MATCHES "Makefiles")
    set(kiln_command ${CMAKE_COMMAND} -E env "KILN_RECURSIVE_MAKE=$(MAKE)" $<TARGET_FILE:Kiln::kiln>)
  endif()
  # The generator writes the depfile: every header NVRTC opened, so that Ninja and Makefiles rebuild
  # the package when any of them changes, and only then.
  # SPLIT: kiln split rewrites the package as its index and PTX, and writes <name>.cc<major>.kiln
  # beside it for each major of its cubins (docs/split-packages.md); known majors are byproducts.
  set(split_command "")
  set(companions "")
  if(arg_SPLIT)
    set(split_command COMMAND ${kiln_command} split ${output})
    if(KILN_VERBOSE)
      list(APPEND split_command -v)   # each file it writes (quiet otherwise)
    endif()
    string(REGEX REPLACE "\\.kiln$" "" output_stem "${output}")
    foreach(target IN LISTS targets)
      if(target MATCHES "^sm_([0-9]+)[0-9][af]?$")
        list(APPEND companions ${output_stem}.cc${CMAKE_MATCH_1}.kiln)
      endif()
    endforeach()
    list(REMOVE_DUPLICATES companions)
  endif()
  add_custom_command(
    OUTPUT ${output}
    BYPRODUCTS ${companions} ${compile_commands}
    COMMAND ${kiln_command} build ${manifest} ${generator_args}
    ${split_command}
    DEPENDS Kiln::kiln ${inputs} ${host_sources} ${scan_depends} ${python_sources}
    DEPFILE ${output}.d
    COMMENT "Building Kiln package ${name} (kiln_add_cache at ${call_site})"
    ${job_pool}
    COMMAND_EXPAND_LISTS
    VERBATIM)
  # Only what reads the package waits for it: the link of a program that links <name> and, with EMBED,
  # the object that .incbin's it (OBJECT_DEPENDS). A target-level dependency would make Ninja hold back
  # every object file of those programs until the whole package is built, though they need only
  # kiln.hpp. The link waits through a stamp written once, not the package itself: the stamp's rule
  # runs after each package build but leaves the stamp as it was, and Ninja (restat) then spares the
  # programs a relink (they read the package at run time). Makefile generators build targets one after
  # another, and EMBED's object library makes the objects of its programs wait anyway (CMake orders
  # them after their dependencies' generated files): both keep the target-level dependency.
  set(link_stamp "")
  if(CMAKE_GENERATOR MATCHES "Ninja" AND NOT arg_EMBED)
    set(link_stamp ${work_dir}/${name}.link-stamp)
    file(WRITE ${work_dir}/link-stamp.in "the link of programs that use ${output} waits for it\n")
    add_custom_command(
      OUTPUT ${link_stamp}
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${work_dir}/link-stamp.in ${link_stamp}
      DEPENDS ${output}
      VERBATIM)
  endif()
  add_custom_target(${name}_package ALL DEPENDS ${output} ${link_stamp})

  if(arg_EMBED)
    _kiln_add_embedded_library(${name} ${output} ${work_dir})
  else()
    add_library(${name} INTERFACE)
    target_link_libraries(${name} INTERFACE Kiln::runtime)
  endif()
  if(link_stamp)
    # The build tree's only: an installed export of <name> (a library that links it PUBLIC) names no
    # file of this build (install(EXPORT) refuses one).
    set_property(TARGET ${name} APPEND PROPERTY INTERFACE_LINK_DEPENDS $<BUILD_INTERFACE:${link_stamp}>)
  else()
    add_dependencies(${name} ${name}_package)
  endif()
  set(embed FALSE)
  if(arg_EMBED)
    set(embed TRUE)
  endif()
  set(split FALSE)
  if(arg_SPLIT)
    set(split TRUE)
  endif()
  foreach(target ${name} ${name}_package)
    set_target_properties(${target} PROPERTIES KILN_PACKAGE_NAME ${name} KILN_PACKAGE_FILE ${output}
                                               KILN_EMBED ${embed} KILN_SPLIT ${split})
  endforeach()
  if(NOT arg_EMBED)
    _kiln_place_package_later(${name})   # a copy beside every module that links it
  endif()
endfunction()

# Defines the Ninja pool kiln_packages, once, when the top directory is done, unless the project
# defined it itself: KILN_PARALLEL_PACKAGES deep (1 by default), read then, so it may be set after
# the calls.
function(_kiln_define_packages_pool_later)
  get_property(scheduled GLOBAL PROPERTY _KILN_PACKAGES_POOL_SCHEDULED)
  if(NOT scheduled)
    set_property(GLOBAL PROPERTY _KILN_PACKAGES_POOL_SCHEDULED TRUE)
    cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _kiln_define_packages_pool)
  endif()
endfunction()

function(_kiln_define_packages_pool)
  get_property(pools GLOBAL PROPERTY JOB_POOLS)
  foreach(entry IN LISTS pools)
    if(entry MATCHES "^kiln_packages=")
      return()
    endif()
  endforeach()
  set(depth 1)
  if(DEFINED KILN_PARALLEL_PACKAGES)
    if(NOT KILN_PARALLEL_PACKAGES MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "kiln_add_cache(): KILN_PARALLEL_PACKAGES is '${KILN_PARALLEL_PACKAGES}'; it is how many "
                          "kiln builds Ninja runs at once, a whole number from 1")
    endif()
    set(depth ${KILN_PARALLEL_PACKAGES})
  endif()
  set_property(GLOBAL APPEND PROPERTY JOB_POOLS kiln_packages=${depth})
endfunction()

# Fails unless the JOB_POOLS global property defines `pool` (kiln_add_cache's JOB_POOL).
function(_kiln_check_job_pool name pool call_site)
  get_property(pools GLOBAL PROPERTY JOB_POOLS)
  set(names "")
  foreach(entry IN LISTS pools)
    string(REGEX REPLACE "=.*" "" defined "${entry}")
    if(defined STREQUAL pool)
      return()
    endif()
    list(APPEND names "${defined}")
  endforeach()
  set(known "")
  if(names)
    string(REPLACE ";" ", " known " (the pools are ${names})")
  endif()
  message(FATAL_ERROR "kiln_add_cache(): JOB_POOL '${pool}' of cache '${name}' (kiln_add_cache at ${call_site}) "
                      "is not in the JOB_POOLS global property${known}: define it, set_property(GLOBAL APPEND "
                      "PROPERTY JOB_POOLS ${pool}=1)")
endfunction()

# Host code the generator scans for the kernels and variables it asks the runtime for (kiln build
# --host-source): the files in HOST_SOURCES (`files_var`), and each target's in SCAN_TARGETS, read when
# the build system is generated (KilnScanTargets.cmake: `scan_args_var` for kiln build's command line,
# with the targets' C++ standard, and `scan_depends_var`). The scanner parses host sources with the
# manifest's include directories and defines, so the targets' own (generator expressions, evaluated at
# generate time, transitive usage requirements included) are added to those; kernel sources are
# scanned anyway and left out.
function(_kiln_host_sources files_var include_dirs_var defines_var scan_args_var scan_depends_var name work_dir
                            host_sources scan_targets kernel_sources)
  set(fn "kiln_add_cache()")
  _kiln_given_files(files HOST_SOURCES "${host_sources}")
  set(include_dirs "")
  set(defines "")
  set(scan_args "")
  set(scan_depends "")
  foreach(target IN LISTS scan_targets)
    if(NOT TARGET ${target})
      message(FATAL_ERROR "${fn}: SCAN_TARGETS entry '${target}' is not a target (create it first)")
    endif()
    list(APPEND include_dirs "$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>")
    list(APPEND defines "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  endforeach()
  if(scan_targets)
    _kiln_scan_targets(${name} ${work_dir} "${scan_targets}" scan_args scan_depends)
  endif()
  foreach(source IN LISTS kernel_sources)
    get_filename_component(path "${source}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(REMOVE_ITEM files ${path})
  endforeach()
  list(REMOVE_DUPLICATES files)
  set(${files_var} "${files}" PARENT_SCOPE)
  set(${include_dirs_var} "${include_dirs}" PARENT_SCOPE)
  set(${defines_var} "${defines}" PARENT_SCOPE)
  set(${scan_args_var} "${scan_args}" PARENT_SCOPE)
  set(${scan_depends_var} "${scan_depends}" PARENT_SCOPE)
endfunction()

# The absolute paths of the files given to kiln_add_cache()'s <keyword> (relative to the current
# source directory, or absolute), each of which must be an existing file.
function(_kiln_given_files files_var keyword given)
  set(files "")
  foreach(file IN LISTS given)
    get_filename_component(path "${file}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "kiln_add_cache(): ${keyword} file '${file}' does not exist (looked for ${path})")
    elseif(IS_DIRECTORY "${path}")
      message(FATAL_ERROR "kiln_add_cache(): ${keyword} file '${file}' is a directory (${path})")
    endif()
    list(APPEND files ${path})
  endforeach()
  set(${files_var} "${files}" PARENT_SCOPE)
endfunction()

# Python files the generator scans, with Python's own parser, for the kernel names they pass to the
# Kiln binding (kiln build --python-source), and the interpreter to parse them with: the one the
# project found (Python3_EXECUTABLE, Python_EXECUTABLE, PYTHON_EXECUTABLE; scikit-build-core sets
# them), else none here, and the generator takes $KILN_PYTHON or python3 on PATH when it runs.
function(_kiln_python_sources files_var python_var python_sources)
  _kiln_given_files(files PYTHON_SOURCES "${python_sources}")
  list(REMOVE_DUPLICATES files)
  set(python "")
  if(files)
    foreach(variable Python3_EXECUTABLE Python_EXECUTABLE PYTHON_EXECUTABLE)
      if(${variable})
        set(python "${${variable}}")
        break()
      endif()
    endforeach()
  endif()
  set(${files_var} "${files}" PARENT_SCOPE)
  set(${python_var} "${python}" PARENT_SCOPE)
endfunction()

# Installs the package file of cache <name> as DESTINATION/<name>.kiln, where the runtime finds it for
# the programs and libraries installed into that directory (kiln_package_open_named).
function(kiln_install_cache name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "DESTINATION;COMPONENT" "")
  set(fn "kiln_install_cache()")
  if(arg_UNPARSED_ARGUMENTS)
    foreach(word IN LISTS arg_UNPARSED_ARGUMENTS)
      _kiln_did_you_mean(suggestion "${word}" DESTINATION COMPONENT)
      if(suggestion OR word MATCHES "^[A-Z_]+$")
        message(FATAL_ERROR "${fn}: unknown keyword '${word}' for cache '${name}'${suggestion}")
      endif()
    endforeach()
    string(REPLACE ";" " " unknown "${arg_UNPARSED_ARGUMENTS}")
    message(FATAL_ERROR "${fn}: unknown argument(s) '${unknown}' for cache '${name}'")
  endif()
  if(NOT arg_DESTINATION)
    message(FATAL_ERROR "${fn}: DESTINATION is required (the directory of the programs that use '${name}')")
  endif()
  if(NOT TARGET ${name})
    message(FATAL_ERROR "${fn}: '${name}' is not a target; create it with kiln_add_cache(${name} ...) first")
  endif()
  get_target_property(file ${name} KILN_PACKAGE_FILE)
  get_target_property(embed ${name} KILN_EMBED)
  if(NOT file)
    message(FATAL_ERROR "${fn}: '${name}' is not a Kiln cache (made by kiln_add_cache)")
  endif()
  if(embed)
    message(FATAL_ERROR "${fn}: cache '${name}' is EMBEDded in the binaries that link it: there is no "
                        "file to install")
  endif()
  set(component "")
  if(arg_COMPONENT)
    set(component COMPONENT ${arg_COMPONENT})
  endif()
  install(FILES ${file} DESTINATION ${arg_DESTINATION} RENAME ${name}.kiln ${component})
  get_target_property(split ${name} KILN_SPLIT)
  if(split)
    # The companions kiln split wrote, whichever majors the package has (a manifest may name its
    # targets), renamed like the package: <name>.cc<major>.kiln.
    string(REGEX REPLACE "\\.kiln$" "" stem "${file}")
    set(destination "\${CMAKE_INSTALL_PREFIX}/${arg_DESTINATION}")
    if(IS_ABSOLUTE "${arg_DESTINATION}")
      set(destination "${arg_DESTINATION}")
    endif()
    install(CODE "
      file(GLOB companions [[${stem}.cc*.kiln]])
      foreach(companion IN LISTS companions)
        string(REGEX MATCH [[\\.cc[0-9]+\\.kiln$]] suffix \"\${companion}\")
        if(suffix)
          file(INSTALL \"\${companion}\" DESTINATION \"${destination}\"
               RENAME \"${name}\${suffix}\")
        endif()
      endforeach()" ${component})
  endif()
endfunction()

cmake_policy(POP)
