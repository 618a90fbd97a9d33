# kiln_add_cache(... SCAN_TARGETS ...): what the generator scans of each target's host code, read when
# the build system is generated, not at the call, so that target_sources() and
# target_compile_features() after kiln_add_cache count. Everything here is a generator expression
# (CMake 3.20: no $<PATH:...>, no $<LIST:...>), evaluated in `kiln build`'s command line, its
# DEPENDS and the record file(GENERATE) writes beside the manifest.
include_guard(GLOBAL)
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.25)

# Sets, for the targets `scan_targets` of cache `name`:
#   args_var     kiln build's arguments: --host-source FILE for each C, C++ and CUDA source (the
#                cache's own kernel sources among them are scanned once, as kernels), then
#                --host-std=c++NN (_kiln_scan_standard); lists, for COMMAND_EXPAND_LISTS
#   depends_var  those files and the record, so that the package is rebuilt when one changes, and
#                when a source is added or the standard changes (the record's content then differs;
#                file(GENERATE) leaves an unchanged file alone)
# and writes the record, `work_dir`/scan-targets.cmake: the files and the standard, as evaluated.
function(_kiln_scan_targets name work_dir scan_targets args_var depends_var)
  set(args "")
  set(depends "")
  set(record_files "")
  foreach(target IN LISTS scan_targets)
    # SOURCES as evaluated holds the target's generator expressions' values and its dependencies'
    # INTERFACE_SOURCES; a relative entry is relative to the target's source directory.
    get_target_property(source_dir ${target} SOURCE_DIR)
    set(sources "$<FILTER:$<TARGET_PROPERTY:${target},SOURCES>,INCLUDE,\\.(c|cc|cpp|cxx|c\\+\\+|cu)$>")
    set(absolute "$<FILTER:${sources},INCLUDE,^(/|[A-Za-z]:)>")
    set(relative "$<FILTER:${sources},EXCLUDE,^(/|[A-Za-z]:)>")
    # $<SEMICOLON>: a ';' written here would split the expression itself into list items.
    set(made_absolute "$<$<BOOL:${relative}>:${source_dir}/$<JOIN:${relative},$<SEMICOLON>${source_dir}/>>")
    foreach(files absolute made_absolute)
      set(option "--host-source$<SEMICOLON>")
      list(APPEND args "$<$<BOOL:${${files}}>:${option}$<JOIN:${${files}},$<SEMICOLON>${option}>>")
    endforeach()
    list(APPEND depends "${absolute}" "${made_absolute}")
    string(APPEND record_files "${absolute}\n${made_absolute}\n")
  endforeach()
  _kiln_scan_standard(standard "${scan_targets}")
  list(APPEND args "$<$<BOOL:${standard}>:--host-std=c++${standard}>")
  set(record ${work_dir}/scan-targets.cmake)
  string(CONCAT content
       "# SCAN_TARGETS of kiln_add_cache(${name}) as the build system was generated: the files kiln build scans\n"
       "# (--host-source) and the C++ standard it parses them at (--host-std). Kiln reads none of it; a change\n"
       "# rebuilds the package.\nset(KILN_SCAN_SOURCES [==[\n${record_files}]==])\n"
       "set(KILN_SCAN_STANDARD [==[${standard}]==])\n")
  file(GENERATE OUTPUT ${record} CONTENT "${content}")
  list(APPEND depends ${record})
  set(${args_var} "${args}" PARENT_SCOPE)
  set(${depends_var} "${depends}" PARENT_SCOPE)
endfunction()

# `out`: a generator expression for the C++ standard the targets compile at, as a number (20), or
# empty: the highest of each target's CXX_STANDARD and the cxx_std_NN among its COMPILE_FEATURES
# (which, evaluated, holds its dependencies' INTERFACE_COMPILE_FEATURES: CMake compiles the target at
# the higher of the two), else CMAKE_CXX_STANDARD where kiln_add_cache is called, else empty (kiln
# build then parses at the kernels' -std). Several targets: the highest of theirs, for all their
# files. CMake's CXX_STANDARD_REQUIRED and CXX_EXTENSIONS change nothing the scanner reads.
function(_kiln_scan_standard out scan_targets)
  set(standard "${CMAKE_CXX_STANDARD}")
  foreach(version 98 11 14 17 20 23 26)   # lowest first: the outermost test is the highest
    set(asks "")
    foreach(target IN LISTS scan_targets)
      string(APPEND asks ",$<STREQUAL:$<TARGET_PROPERTY:${target},CXX_STANDARD>,${version}>"
                         ",$<IN_LIST:cxx_std_${version},$<TARGET_PROPERTY:${target},COMPILE_FEATURES>>")
    endforeach()
    string(SUBSTRING "${asks}" 1 -1 asks)
    set(standard "$<IF:$<OR:${asks}>,${version},${standard}>")
  endforeach()
  set(${out} "${standard}" PARENT_SCOPE)
endfunction()

cmake_policy(POP)
