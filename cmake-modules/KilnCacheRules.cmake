# The build rules behind kiln_add_cache() (KilnFunctions.cmake): the manifest it generates from its
# arguments, and the object library that links an EMBEDded package into a binary.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/KilnSourceProperties.cmake)
cmake_policy(PUSH)
cmake_policy(VERSION 3.20...3.25)

# Writes `work_dir`/kiln.toml at build time and sets `manifest_var` to it and `inputs_var` to what the
# package depends on besides it. Arguments may hold generator expressions (OPTIONS
# "$<$<CONFIG:Debug>:-lineinfo>"), so file(GENERATE) writes their values to inputs.cmake and a build
# step (KilnWriteManifest.cmake) turns those into TOML: escaping, dropping the empty values a false
# condition leaves, and making every path relative to the project directory (`kiln build --root`),
# so that the package records no absolute path.
function(_kiln_generated_manifest name manifest_var inputs_var)
  cmake_parse_arguments(PARSE_ARGV 3 arg "REMOVE_UNUSED_VARIABLES;CARRY_SOURCES"
    "WORK_DIR;KERNELS_PER_IMAGE;CALL_SITE" "TARGETS;SOURCES;INSTANTIATE;VARIABLES;INCLUDE_DIRECTORIES;DEFINES;OPTIONS")
  set(fn "kiln_add_cache()")

  set(content "# kiln_add_cache(${name}), generator expressions evaluated: read by KilnWriteManifest.cmake\n")
  string(APPEND content "set(KILN_NAME [==[${name}]==])\nset(KILN_ROOT [==[${CMAKE_CURRENT_SOURCE_DIR}]==])\n")
  string(APPEND content "set(KILN_TARGETS [==[${arg_TARGETS}]==])\n")
  # INSTANTIATE and VARIABLES are the package's: kiln sends each name to the source(s) defining it.
  # The call's place ("CMakeLists.txt:12", relative to this directory) is where kiln reports errors
  # about the values it gave (docs/manifest.md, cmake_call).
  string(APPEND content "set(KILN_INSTANTIATE [==[${arg_INSTANTIATE}]==])\n"
                        "set(KILN_VARIABLES [==[${arg_VARIABLES}]==])\n"
                        "set(KILN_CMAKE_CALL [==[${arg_CALL_SITE}]==])\n")
  set(sources "")
  set(index 0)
  foreach(source IN LISTS arg_SOURCES)
    get_filename_component(path "${source}" ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    cmake_path(IS_PREFIX CMAKE_CURRENT_SOURCE_DIR "${path}" NORMALIZE inside)
    if(NOT inside)
      message(FATAL_ERROR "${fn}: SOURCES file '${source}' is outside this directory "
                          "(${CMAKE_CURRENT_SOURCE_DIR}); call kiln_add_cache where the kernels are")
    endif()
    get_source_file_property(instantiate ${source} KILN_INSTANTIATE)
    get_source_file_property(variables ${source} KILN_VARIABLES)
    foreach(list instantiate variables)
      if(NOT ${list})
        set(${list} "")
      endif()
    endforeach()
    string(APPEND content "set(KILN_SOURCE_${index} [==[${path}]==])\n"
                          "set(KILN_SOURCE_${index}_INSTANTIATE [==[${instantiate}]==])\n"
                          "set(KILN_SOURCE_${index}_VARIABLES [==[${variables}]==])\n")
    # A device link group (KILN_LINK_GROUP) and variants (KILN_VARIANTS, each with its own
    # KILN_VARIANT_<v>_DEFINES, _OPTIONS and _INSTANTIATE): docs/cmake.md.
    get_source_file_property(link_group ${source} KILN_LINK_GROUP)
    get_source_file_property(variants ${source} KILN_VARIANTS)
    # KILN_CARRY_SOURCES: ON or OFF for this source, over the call's CARRY_SOURCES; unset: the call's.
    get_source_file_property(carry ${source} KILN_CARRY_SOURCES)
    if(carry STREQUAL "NOTFOUND")
      set(carry "")
    elseif(carry)
      set(carry true)
    else()
      set(carry false)
    endif()
    string(APPEND content "set(KILN_SOURCE_${index}_CARRY_SOURCES [==[${carry}]==])\n")
    foreach(list link_group variants)
      if(NOT ${list})
        set(${list} "")
      endif()
    endforeach()
    if(link_group AND variants)
      message(FATAL_ERROR "${fn}: source '${source}' of cache '${name}' has both KILN_LINK_GROUP and KILN_VARIANTS: "
                          "a variant is a unit of its own and cannot join a link group")
    endif()
    string(APPEND content "set(KILN_SOURCE_${index}_LINK_GROUP [==[${link_group}]==])\n"
                          "set(KILN_SOURCE_${index}_VARIANTS [==[${variants}]==])\n")
    # Its own KILN_OPTIONS and KILN_DEFINES, and the check of its other properties
    # (KilnSourceProperties.cmake).
    _kiln_check_source_properties(${name} "${source}" ${variants})
    _kiln_source_unit_settings(content ${index} "${source}")
    foreach(variant IN LISTS variants)
      if(NOT variant MATCHES "^[A-Za-z_][A-Za-z0-9_.-]*$")
        message(FATAL_ERROR "${fn}: variant '${variant}' of source '${source}' (cache '${name}') is not a name: a "
                            "letter or '_', then letters, digits, '_', '-' or '.'")
      endif()
      foreach(what DEFINES OPTIONS INSTANTIATE)
        get_source_file_property(value ${source} KILN_VARIANT_${variant}_${what})
        if(NOT value)
          set(value "")
        endif()
        string(APPEND content "set(KILN_SOURCE_${index}_VARIANT_${variant}_${what} [==[${value}]==])\n")
      endforeach()
    endforeach()
    list(APPEND sources ${path})
    math(EXPR index "${index} + 1")
  endforeach()
  string(APPEND content "set(KILN_SOURCE_COUNT ${index})\n")

  # Relative include directories are relative to this directory, as in target_include_directories.
  _kiln_directories_from_here(include_dirs ${arg_INCLUDE_DIRECTORIES})
  # Toolkit directories become <cuda>/...: every toolkit the generator may use.
  get_property(generator_toolkit GLOBAL PROPERTY KILN_GENERATOR_CUDA_ROOT)
  set(toolkits ${KILN_CUDA_ROOT} $ENV{CUDA_PATH} $ENV{CUDA_HOME} ${generator_toolkit})
  list(REMOVE_DUPLICATES toolkits)
  string(APPEND content "set(KILN_REMOVE_UNUSED_VARIABLES ${arg_REMOVE_UNUSED_VARIABLES})\n"
                        "set(KILN_CARRY_SOURCES ${arg_CARRY_SOURCES})\n"
                        "set(KILN_KERNELS_PER_IMAGE [==[${arg_KERNELS_PER_IMAGE}]==])\n")
  # The build tree and Kiln's own include directory become <build>/... and <kiln>/...: the manifest
  # (and so the package and the cache keys) is the same for every build directory and install.
  string(APPEND content "set(KILN_INCLUDE_DIRECTORIES [==[${include_dirs}]==])\n"
                        "set(KILN_DEFINES [==[${arg_DEFINES}]==])\n"
                        "set(KILN_OPTIONS [==[${arg_OPTIONS}]==])\n"
                        "set(KILN_TOOLKITS [==[${toolkits}]==])\n"
                        "set(KILN_BUILD_DIR [==[${CMAKE_BINARY_DIR}]==])\n"
                        "set(KILN_OWN_INCLUDE_DIR [==[${KILN_INCLUDE_DIR}]==])\n")

  set(inputs ${arg_WORK_DIR}/inputs.cmake)
  set(manifest ${arg_WORK_DIR}/kiln.toml)
  set(writer ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/KilnWriteManifest.cmake)
  file(GENERATE OUTPUT ${inputs} CONTENT "${content}")
  add_custom_command(
    OUTPUT ${manifest}
    COMMAND ${CMAKE_COMMAND} -DKILN_INPUTS=${inputs} -DKILN_MANIFEST=${manifest} -P ${writer}
    DEPENDS ${inputs} ${writer}
    COMMENT "Writing the Kiln manifest of ${name}"
    VERBATIM)
  set(${manifest_var} ${manifest} PARENT_SCOPE)
  set(${inputs_var} ${manifest} ${sources} PARENT_SCOPE)
endfunction()

# Makes `name` an object library that links the package at `package` into every binary that links
# it: an assembly file includes the bytes whole (.incbin), and a C or C++ file registers them with
# the runtime from a constructor (kiln_register_embedded), so the package is found by name from the
# executable or shared library it ends up in. The registration has internal linkage and the bytes
# hidden symbols, so neither -fvisibility=hidden nor two modules embedding the same name interfere.
function(_kiln_add_embedded_library name package work_dir)
  set(fn "kiln_add_cache()")
  if(NOT DEFINED CMAKE_ASM_COMPILE_OBJECT)
    message(FATAL_ERROR "${fn}: EMBED links the package with an assembly file (.incbin): enable the ASM "
                        "language where '${name}' is created (project(... LANGUAGES CXX ASM) or "
                        "enable_language(ASM))")
  endif()
  if(DEFINED CMAKE_CXX_COMPILE_OBJECT)
    set(extension cpp)
  elseif(DEFINED CMAKE_C_COMPILE_OBJECT)
    set(extension c)
  else()
    message(FATAL_ERROR "${fn}: EMBED registers the package from a C or C++ file: enable C or CXX")
  endif()
  string(MAKE_C_IDENTIFIER "kiln_embedded_${name}" KILN_EMBED_SYMBOL)
  set(KILN_EMBED_NAME ${name})
  set(KILN_EMBED_FILE ${package})
  set(templates ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  configure_file(${templates}/KilnEmbed.S.in ${work_dir}/${name}_embed.S @ONLY)
  configure_file(${templates}/KilnEmbed.c.in ${work_dir}/${name}_register.${extension} @ONLY)
  add_library(${name} OBJECT ${work_dir}/${name}_embed.S ${work_dir}/${name}_register.${extension})
  # .incbin is invisible to the compiler's dependency scan: the object depends on the package here.
  set_source_files_properties(${work_dir}/${name}_embed.S PROPERTIES OBJECT_DEPENDS ${package})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${name} PUBLIC Kiln::runtime)
endfunction()

cmake_policy(POP)
