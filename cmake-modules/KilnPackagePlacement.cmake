# Puts each package that is a file (kiln_add_cache without EMBED) where the programs that open it are
# built: a copy named <name>.kiln in the output directory of every executable, shared and module
# library that links the cache, so that kiln_package_open_named finds it next to the calling module
# in the build tree whatever the layout (CMAKE_RUNTIME_OUTPUT_DIRECTORY, programs in subdirectories,
# LIBRARY_OUTPUT_DIRECTORY). docs/cmake.md, "Where the package is in the build tree".
#
# Which targets link a cache is known only once the whole project is read, so the copies are made
# by one call deferred to the end of the top directory. A target's output directory is known only
# at generate time ($<TARGET_FILE_DIR:...>; it may hold generator expressions): file(GENERATE)
# writes it to a file the copy reads, because naming the target in the copy's command would make
# the copy wait for the target whose link waits for the copy.
include_guard(GLOBAL)

# Records cache <name> (a package file) for placement, and schedules the placement once.
function(_kiln_place_package_later name)
  set_property(GLOBAL APPEND PROPERTY _KILN_PLACED_CACHES ${name})
  get_property(scheduled GLOBAL PROPERTY _KILN_PLACEMENT_SCHEDULED)
  if(NOT scheduled)
    set_property(GLOBAL PROPERTY _KILN_PLACEMENT_SCHEDULED TRUE)
    cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL _kiln_place_packages)
  endif()
endfunction()

# The build system targets of directory <dir> and of all directories below it.
function(_kiln_targets_below out dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirectories DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    _kiln_targets_below(more ${subdirectory})
    list(APPEND targets ${more})
  endforeach()
  set(${out} "${targets}" PARENT_SCOPE)
endfunction()

# The targets <target> links, directly or through the INTERFACE_LINK_LIBRARIES of what it links (as
# CMake propagates links). Names inside generator expressions ($<LINK_ONLY:k>, $<BUILD_INTERFACE:k>)
# count whatever the condition: a copy too many is harmless, one too few fails at run time.
function(_kiln_linked_targets out target)
  get_target_property(queue ${target} LINK_LIBRARIES)
  if(NOT queue)
    set(queue "")
  endif()
  set(seen "")
  while(queue)
    list(POP_FRONT queue item)
    set(names "${item}")
    if(item MATCHES "\\$<")
      string(REGEX MATCHALL "[A-Za-z0-9_.+:-]+" names "${item}")
    endif()
    foreach(linked IN LISTS names)
      if(NOT TARGET "${linked}")
        continue()
      endif()
      get_target_property(aliased "${linked}" ALIASED_TARGET)
      if(aliased)
        set(linked ${aliased})
      endif()
      if(linked IN_LIST seen)
        continue()
      endif()
      list(APPEND seen ${linked})
      get_target_property(interface ${linked} INTERFACE_LINK_LIBRARIES)
      if(interface)
        list(APPEND queue ${interface})
      endif()
    endforeach()
  endwhile()
  set(${out} "${seen}" PARENT_SCOPE)
endfunction()

# Deferred to the end of the top directory: a copy of each recorded package for every module that
# links its cache.
function(_kiln_place_packages)
  get_property(caches GLOBAL PROPERTY _KILN_PLACED_CACHES)
  _kiln_targets_below(targets "${CMAKE_SOURCE_DIR}")
  set(stamps "")
  set(modules "")
  foreach(target IN LISTS targets)
    get_target_property(type ${target} TYPE)
    if(NOT type MATCHES "^(EXECUTABLE|SHARED_LIBRARY|MODULE_LIBRARY)$")
      continue()
    endif()
    _kiln_linked_targets(linked ${target})
    foreach(cache IN LISTS caches)
      if(cache IN_LIST linked)
        _kiln_place_package(stamp ${cache} ${target})
        if(stamp)
          list(APPEND stamps ${stamp})
          list(APPEND modules ${target})
        endif()
      endif()
    endforeach()
  endforeach()
  if(NOT stamps)
    return()
  endif()
  add_custom_target(kiln_package_copies ALL DEPENDS ${stamps})
  foreach(cache IN LISTS caches)
    add_dependencies(kiln_package_copies ${cache}_package)
  endforeach()
  # Ninja: each module's link waits for its copy through the copy's stamp (LINK_DEPENDS, set in
  # _kiln_place_package), as for the package itself. Makefile generators build one target after
  # another: the module waits for the copies' target.
  if(NOT CMAKE_GENERATOR MATCHES "Ninja")
    list(REMOVE_DUPLICATES modules)
    foreach(module IN LISTS modules)
      add_dependencies(${module} kiln_package_copies)
    endforeach()
  endif()
endfunction()

# The directory a target of type <type> is built into when its output directory property is unset
# or empty (known at configure time), else "" (set, perhaps per configuration: known at generate time).
function(_kiln_default_output_directory out target type)
  set(kind LIBRARY)
  if(type STREQUAL "EXECUTABLE" OR (WIN32 AND type STREQUAL "SHARED_LIBRARY"))
    set(kind RUNTIME)
  endif()
  set(properties ${kind}_OUTPUT_DIRECTORY)
  if(CMAKE_BUILD_TYPE)
    string(TOUPPER "${CMAKE_BUILD_TYPE}" config)
    list(APPEND properties ${kind}_OUTPUT_DIRECTORY_${config})
  endif()
  foreach(property IN LISTS properties)
    get_target_property(value ${target} ${property})
    if(value)
      set(${out} "" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  get_target_property(binary_dir ${target} BINARY_DIR)
  set(${out} "${binary_dir}" PARENT_SCOPE)
endfunction()

# A rule that copies the package of <cache> into the output directory of <target>, and the stamp
# file that says it ran (<stamp>), or "" where the package is built there already.
function(_kiln_place_package stamp_var cache target)
  get_target_property(file ${cache} KILN_PACKAGE_FILE)
  get_target_property(name ${cache} KILN_PACKAGE_NAME)
  get_target_property(split ${cache} KILN_SPLIT)
  get_target_property(type ${target} TYPE)
  get_filename_component(file_dir "${file}" DIRECTORY)
  get_filename_component(file_name "${file}" NAME)
  _kiln_default_output_directory(output_dir ${target} ${type})
  if(output_dir STREQUAL file_dir AND file_name STREQUAL "${name}.kiln")
    set(${stamp_var} "" PARENT_SCOPE)
    return()
  endif()
  # Found from this function's file: the deferred call runs in the top directory's scope, which lacks
  # the variables of a Kiln added with add_subdirectory.
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/KilnPlacePackage.cmake)
  get_target_property(cache_dir ${cache}_package BINARY_DIR)
  set(work_dir ${cache_dir}/kiln/${cache}/placed)
  set(stamp ${work_dir}/${target}.stamp)
  file(GENERATE OUTPUT ${work_dir}/${target}.directory CONTENT "$<TARGET_FILE_DIR:${target}>")
  file(WRITE ${work_dir}/stamp.in "the link of ${target} waits for its copy of ${name}.kiln\n")
  # Ninja: the stamp is written once and left as it is (restat), so a rebuilt package is copied
  # again without relinking the module, and a no-op build runs nothing.
  set(stamp_command ${CMAKE_COMMAND} -E touch ${stamp})
  if(CMAKE_GENERATOR MATCHES "Ninja")
    set(stamp_command ${CMAKE_COMMAND} -E copy_if_different ${work_dir}/stamp.in ${stamp})
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${stamp})
  endif()
  add_custom_command(
    OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DPACKAGE=${file} -DNAME=${name} -DSPLIT=${split}
            -DDESTINATION_FILE=${work_dir}/${target}.directory -DFOR=${target} -P ${script}
    COMMAND ${stamp_command}
    DEPENDS ${file} ${work_dir}/${target}.directory ${script}
    COMMENT "Copying Kiln package ${name} beside ${target}"
    VERBATIM)
  set(${stamp_var} ${stamp} PARENT_SCOPE)
endfunction()
