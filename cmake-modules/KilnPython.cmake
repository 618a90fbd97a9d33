# kiln_install_python_runtime(): vendors Kiln's Python binding and runtime library into a Python
# package, for wheels that ship Kiln packages (docs/python.md, docs/cmake.md).
#
#   kiln_install_python_runtime(DESTINATION mypkg/_kiln [COMPILE_LIBRARY] [COMPONENT <component>])
#
# installs into DESTINATION the binding's Python files (from KILN_PYTHON_BINDING_DIR) and
# Kiln::runtime's library file as libkiln.so.0: a real file, not a symbolic link, because a wheel
# cannot hold links, and under the name the binding looks for beside itself. Where this Kiln has
# Kiln::python_native (Linux), its file too, as _native.abi3.so: the binding's first-launch calls in
# C, which CPython 3.8 and later load (elsewhere the binding goes through ctypes, with the same
# results). With COMPILE_LIBRARY, Kiln::jit's file too, as libkiln_jit.so.0 beside it, for a package that compiles at run time
# (carried sources, kiln.Program); without it, such a compile is NoCompilerError naming the file. Each wheel carries its
# own copy inside its own package (`from mypkg import _kiln as kiln`), so two wheels never install
# the same file.
#
# Loaded by KilnConfig.cmake (find_package(Kiln)) and by Kiln's own CMakeLists.txt.
include_guard(GLOBAL)

# Where the binding is: KilnConfig.cmake sets KILN_PYTHON_BINDING_DIR for an installed Kiln
# (<prefix>/share/kiln/python/kiln); in Kiln's source tree (its own build, add_subdirectory,
# FetchContent) it is runtime/python/kiln. Kept as a global property too, for calls made from
# directories where the variable is not visible.
if(NOT DEFINED KILN_PYTHON_BINDING_DIR)
  get_filename_component(KILN_PYTHON_BINDING_DIR "${CMAKE_CURRENT_LIST_DIR}/../runtime/python/kiln" ABSOLUTE)
endif()
set_property(GLOBAL PROPERTY KILN_PYTHON_BINDING_DIR "${KILN_PYTHON_BINDING_DIR}")

function(kiln_install_python_runtime)
  cmake_parse_arguments(PARSE_ARGV 0 arg "COMPILE_LIBRARY" "DESTINATION;COMPONENT" "")
  set(fn "kiln_install_python_runtime()")
  if(arg_UNPARSED_ARGUMENTS)
    string(REPLACE ";" " " unknown "${arg_UNPARSED_ARGUMENTS}")
    message(FATAL_ERROR "${fn}: unknown argument(s) '${unknown}'")
  endif()
  if(NOT arg_DESTINATION)
    message(FATAL_ERROR "${fn}: DESTINATION is required: the directory inside your Python package that "
                        "becomes its private copy of Kiln, e.g. DESTINATION mypkg/_kiln")
  endif()
  if(NOT TARGET Kiln::runtime)
    message(FATAL_ERROR "${fn}: there is no target Kiln::runtime; call find_package(Kiln) first")
  endif()
  get_target_property(type Kiln::runtime TYPE)
  if(NOT type STREQUAL "SHARED_LIBRARY")
    message(FATAL_ERROR "${fn}: Kiln::runtime is a ${type}, not a shared library: the binding loads "
                        "libkiln.so.0 with ctypes")
  endif()
  if(arg_COMPILE_LIBRARY AND NOT TARGET Kiln::jit)
    message(FATAL_ERROR "${fn}: COMPILE_LIBRARY asks for Kiln::jit, which this Kiln does not have "
                        "(it was built with KILN_BUILD_JIT=OFF)")
  endif()
  set(binding_dir "${KILN_PYTHON_BINDING_DIR}")
  if(NOT binding_dir)
    get_property(binding_dir GLOBAL PROPERTY KILN_PYTHON_BINDING_DIR)
  endif()
  if(NOT EXISTS "${binding_dir}/__init__.py")
    message(FATAL_ERROR "${fn}: Kiln's Python binding is not in '${binding_dir}' (KILN_PYTHON_BINDING_DIR): "
                        "no __init__.py there; this Kiln was installed without it")
  endif()

  set(component "")
  if(arg_COMPONENT)
    set(component COMPONENT ${arg_COMPONENT})
  endif()
  install(DIRECTORY "${binding_dir}/" DESTINATION "${arg_DESTINATION}" ${component}
          FILES_MATCHING PATTERN "*.py" PATTERN "py.typed" PATTERN "__pycache__" EXCLUDE)
  # TARGET_FILE is the library itself (libkiln.so.0.2.0), never the soname link.
  set(libraries "Kiln::runtime=libkiln.so.0")
  if(arg_COMPILE_LIBRARY)
    list(APPEND libraries "Kiln::jit=libkiln_jit.so.0")
  endif()
  # The binding's optional calls in C, where this Kiln has them (Linux, KILN_BUILD_PYTHON_NATIVE):
  # a first launch without ctypes' first-call costs; the binding works the same without it.
  if(TARGET Kiln::python_native)
    list(APPEND libraries "Kiln::python_native=_native.abi3.so")
  endif()
  foreach(library IN LISTS libraries)
    string(REPLACE "=" ";" library "${library}")
    list(GET library 0 target)
    list(GET library 1 name)
    install(FILES "$<TARGET_FILE:${target}>" DESTINATION "${arg_DESTINATION}" RENAME ${name} ${component})
    # Stripped when the install asks for it (cmake --install --strip; scikit-build-core does by
    # default), as install(TARGETS) strips libraries: install(FILES) alone would not, and a
    # RelWithDebInfo libkiln is several times larger with its debug information.
    if(CMAKE_STRIP)
      set(installed "${arg_DESTINATION}/${name}")
      if(NOT IS_ABSOLUTE "${installed}")
        set(installed "\${CMAKE_INSTALL_PREFIX}/${installed}")
      endif()
      install(CODE "if(CMAKE_INSTALL_DO_STRIP)
  execute_process(COMMAND \"${CMAKE_STRIP}\" \"\$ENV{DESTDIR}${installed}\")
endif()" ${component})
    endif()
  endforeach()
endfunction()
