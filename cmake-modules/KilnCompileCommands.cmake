# The kernel sources in compile_commands.json (docs/cmake.md, "compile_commands.json and clangd"). CMake
# never compiles a cache's kernels, so CMAKE_EXPORT_COMPILE_COMMANDS leaves them out. Where it is ON,
# each kiln build writes its units' commands to a fragment (kiln build --compile-commands), and one rule
# per build tree merges every fragment into ${CMAKE_BINARY_DIR}/compile_commands.json (kiln
# compile-commands): one process alone writes the database, never two package steps at once.
#
# CMake writes the database anew, without Kiln's entries, whenever it generates. The merge's rule
# depends on a file written at every configure (not on the database, which the rule itself writes:
# Ninja 1.12 and later would find it newer than the rule's start and run the rule again on every
# build), so the next build after a configure puts the entries back, and a build after that does nothing.
include_guard(GLOBAL)

# Sets `out` to the fragment kiln build writes for cache <name> when CMAKE_EXPORT_COMPILE_COMMANDS is ON
# where the cache is made, and schedules the merge; else to "".
function(_kiln_compile_commands_fragment out name work_dir)
  if(NOT CMAKE_EXPORT_COMPILE_COMMANDS)
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  set(fragment ${work_dir}/compile_commands.json)
  set_property(GLOBAL APPEND PROPERTY _KILN_COMPILE_COMMANDS_FRAGMENTS ${fragment})
  set_property(GLOBAL APPEND PROPERTY _KILN_COMPILE_COMMANDS_CACHES ${name})
  get_property(scheduled GLOBAL PROPERTY _KILN_COMPILE_COMMANDS_SCHEDULED)
  if(NOT scheduled)
    set_property(GLOBAL PROPERTY _KILN_COMPILE_COMMANDS_SCHEDULED TRUE)
    # An imported Kiln::kiln is seen only below the directory that found Kiln: the merge, made in the
    # top directory, runs it by its file there.
    get_target_property(imported Kiln::kiln IMPORTED)
    if(imported)
      get_target_property(location Kiln::kiln LOCATION)
      set_property(GLOBAL PROPERTY _KILN_COMPILE_COMMANDS_KILN ${location})
    endif()
    cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL _kiln_merge_compile_commands)
  endif()
  set(${out} ${fragment} PARENT_SCOPE)
endfunction()

# Deferred to the end of the top directory: the rule that merges every cache's fragment into the
# database, after the caches' package steps.
function(_kiln_merge_compile_commands)
  get_property(fragments GLOBAL PROPERTY _KILN_COMPILE_COMMANDS_FRAGMENTS)
  get_property(caches GLOBAL PROPERTY _KILN_COMPILE_COMMANDS_CACHES)
  set(kiln Kiln::kiln)
  if(NOT TARGET Kiln::kiln)
    get_property(kiln GLOBAL PROPERTY _KILN_COMPILE_COMMANDS_KILN)
  endif()
  set(dir ${CMAKE_BINARY_DIR}/CMakeFiles/kiln)
  set(configured ${dir}/compile_commands.configured)
  file(WRITE ${configured} "written at every configure: CMake has just written compile_commands.json anew\n")
  set(stamp ${dir}/compile_commands.stamp)
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${kiln} compile-commands ${CMAKE_BINARY_DIR}/compile_commands.json ${fragments}
    COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
    DEPENDS ${configured} ${fragments} ${kiln}
    COMMENT "Adding the kernel sources of Kiln's caches to compile_commands.json"
    VERBATIM)
  add_custom_target(kiln_compile_commands ALL DEPENDS ${stamp})
  # Makefile generators order rules of different targets only through the targets.
  foreach(cache IN LISTS caches)
    add_dependencies(kiln_compile_commands ${cache}_package)
  endforeach()
endfunction()
