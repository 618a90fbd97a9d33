# The source-file properties kiln_add_cache() reads from each kernel source (docs/cmake.md, "Per-source
# settings"), and its checks of them and of its keywords:
#   _kiln_source_unit_settings   KILN_OPTIONS, KILN_DEFINES and KILN_INCLUDE_DIRECTORIES of one source, for inputs.cmake
#   _kiln_check_source_properties  unknown KILN_* properties (errors), CMake's compile properties (warnings)
#   _kiln_check_misspelt_keywords  values of the call that read like misspelt keywords (errors)
include_guard(GLOBAL)
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.25)

# The KILN_* source properties kiln_add_cache reads, besides KILN_VARIANT_<v>_DEFINES, _OPTIONS and
# _INSTANTIATE for each variant <v> in KILN_VARIANTS.
function(_kiln_source_property_names out)
  set(${out} KILN_INSTANTIATE KILN_VARIABLES KILN_OPTIONS KILN_DEFINES KILN_INCLUDE_DIRECTORIES KILN_LINK_GROUP
             KILN_VARIANTS KILN_CARRY_SOURCES PARENT_SCOPE)
endfunction()

# Sets `out_var` to the directories given, each relative one made absolute from the calling directory,
# as target_include_directories() reads them. A generator expression is kept as written: it is
# evaluated with the rest of inputs.cmake.
function(_kiln_directories_from_here out_var)
  set(dirs "")
  foreach(dir IN LISTS ARGN)
    if(NOT dir MATCHES "\\$<" AND NOT IS_ABSOLUTE "${dir}")
      set(dir ${CMAKE_CURRENT_SOURCE_DIR}/${dir})
    endif()
    list(APPEND dirs "${dir}")
  endforeach()
  set(${out_var} "${dirs}" PARENT_SCOPE)
endfunction()

# Appends to `content_var` (inputs.cmake) the source's own options, macros and include directories,
# KILN_OPTIONS, KILN_DEFINES and KILN_INCLUDE_DIRECTORIES: written after the call's OPTIONS, DEFINES and
# INCLUDE_DIRECTORIES into that source's [[source]] tables only (each of its variants too). Generator
# expressions are evaluated with the rest of inputs.cmake. A relative directory is relative to the
# calling directory, as the call's INCLUDE_DIRECTORIES are (KilnCacheRules.cmake).
function(_kiln_source_unit_settings content_var index source)
  set(content "${${content_var}}")
  foreach(what OPTIONS DEFINES INCLUDE_DIRECTORIES)
    get_source_file_property(value "${source}" KILN_${what})
    if(NOT value)
      set(value "")
    endif()
    if(what STREQUAL "INCLUDE_DIRECTORIES")
      _kiln_directories_from_here(value ${value})
    endif()
    string(APPEND content "set(KILN_SOURCE_${index}_${what} [==[${value}]==])\n")
  endforeach()
  set(${content_var} "${content}" PARENT_SCOPE)
endfunction()

# Checks the source properties of kernel source `source` of cache `name`, whose variants are ARGN.
#
# CMake cannot list the properties a source has, so the KILN_* properties checked are the words
# starting with KILN_ in the list file of the call and in its directory's CMakeLists.txt (where
# set_source_files_properties is called): each one set on the source that kiln_add_cache does not
# read is an error naming the nearest property it does read.
#
# CMake's own COMPILE_OPTIONS, COMPILE_DEFINITIONS, COMPILE_FLAGS and INCLUDE_DIRECTORIES on a kernel
# source are warnings, not errors: the same file may also be a source of a CUDA target, whose nvcc
# compile reads them; the package's build never does.
function(_kiln_check_source_properties name source)
  set(fn "kiln_add_cache()")
  _kiln_source_property_names(known)
  foreach(variant IN LISTS ARGN)
    list(APPEND known KILN_VARIANT_${variant}_DEFINES KILN_VARIANT_${variant}_OPTIONS
                      KILN_VARIANT_${variant}_INSTANTIATE)
  endforeach()
  get_property(words GLOBAL PROPERTY _KILN_LIST_FILE_WORDS_${CMAKE_CURRENT_LIST_FILE})
  if(NOT words)
    set(words "")
    foreach(file "${CMAKE_CURRENT_LIST_FILE}" "${CMAKE_CURRENT_SOURCE_DIR}/CMakeLists.txt")
      if(EXISTS "${file}")
        file(READ "${file}" text)
        string(REGEX MATCHALL "KILN_[A-Za-z0-9_]+" found "${text}")
        list(APPEND words ${found})
      endif()
    endforeach()
    list(REMOVE_DUPLICATES words)
    list(APPEND words "-")   # so that a file without one is read once, too
    set_property(GLOBAL PROPERTY _KILN_LIST_FILE_WORDS_${CMAKE_CURRENT_LIST_FILE} "${words}")
  endif()
  foreach(word IN LISTS words)
    if(word STREQUAL "-" OR word IN_LIST known)
      continue()
    endif()
    get_property(is_set SOURCE "${source}" PROPERTY ${word} SET)
    if(is_set)
      _kiln_did_you_mean(suggestion "${word}" ${known})
      message(FATAL_ERROR "${fn}: source '${source}' of cache '${name}' has the source property '${word}', "
                          "which kiln_add_cache does not know${suggestion}")
    endif()
  endforeach()
  foreach(pair COMPILE_OPTIONS:KILN_OPTIONS COMPILE_FLAGS:KILN_OPTIONS COMPILE_DEFINITIONS:KILN_DEFINES
               INCLUDE_DIRECTORIES:KILN_INCLUDE_DIRECTORIES)
    string(REPLACE ":" ";" pair "${pair}")
    list(GET pair 0 property)
    list(GET pair 1 instead)
    get_property(is_set SOURCE "${source}" PROPERTY ${property} SET)
    if(is_set)
      message(WARNING "${fn}: source '${source}' of cache '${name}' has the source property ${property}, "
                      "which the package's build does not read (only CMake's own compiles of the file do): "
                      "for the package, use ${instead}")
    endif()
  endforeach()
endfunction()

# " (did you mean 'X'?)" when `word`, a value of one of the call's lists, reads like a misspelt
# keyword of ARGN, else "". It does when it is written in capitals, digits and underscores (starting
# with a capital), is no keyword, and is at most two edits from a keyword (one for keywords of up to
# four letters) or, with `by_prefix` true, begins with a keyword's first five letters (DEFINITIONS,
# INCLUDE_DIRS).
function(_kiln_misspelt_keyword out word by_prefix)
  set(text "")
  if(word MATCHES "^[A-Z][A-Z0-9_]*$" AND NOT word IN_LIST ARGN)
    _kiln_did_you_mean(text "${word}" ${ARGN})
    if(NOT text AND by_prefix)
      string(LENGTH "${word}" length)
      foreach(keyword IN LISTS ARGN)
        string(LENGTH "${keyword}" keyword_length)
        if(length GREATER_EQUAL 5 AND keyword_length GREATER_EQUAL 5)
          string(SUBSTRING "${word}" 0 5 head)
          string(SUBSTRING "${keyword}" 0 5 keyword_head)
          if(head STREQUAL keyword_head)
            set(text " (did you mean '${keyword}'?)")
            break()
          endif()
        endif()
      endforeach()
    endif()
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Fails when a value of kiln_add_cache()'s list keywords `lists` (as the caller's arg_<KEYWORD> holds
# them) reads like a misspelt keyword of `keywords` (_kiln_misspelt_keyword), in every list, DEFINES
# and OPTIONS included. A word in OPTIONS right after an option without '=' is passed over, as it may
# be that option's value (-D NAME); in DEFINES, whose words are macros (STRICT_MODE, OPTIONAL_X), only
# those close to a keyword count (a macro TARGET is written TARGET=1, which -D makes the same).
function(_kiln_check_misspelt_keywords name lists keywords)
  foreach(keyword IN LISTS lists)
    set(previous "")
    foreach(word IN LISTS arg_${keyword})
      if(NOT (keyword STREQUAL "OPTIONS" AND previous MATCHES "^-[^=]*$"))
        set(by_prefix TRUE)
        if(keyword STREQUAL "DEFINES")
          set(by_prefix FALSE)
        endif()
        _kiln_misspelt_keyword(suggestion "${word}" ${by_prefix} ${keywords})
        if(suggestion)
          message(FATAL_ERROR "kiln_add_cache(): unknown keyword '${word}' for cache '${name}'${suggestion}")
        endif()
      endif()
      set(previous "${word}")
    endforeach()
  endforeach()
endfunction()

cmake_policy(POP)
