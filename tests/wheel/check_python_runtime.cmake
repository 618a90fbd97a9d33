# wheel_python_runtime: kiln_install_python_runtime() against the installed (and moved) Kiln, in
# projects that need no compiler (LANGUAGES NONE):
#   - its errors: no DESTINATION, an unknown argument, no Kiln::runtime, a Kiln::runtime that is not
#     a shared library, no binding in KILN_PYTHON_BINDING_DIR;
#   - what it installs: the binding's .py files as installed with Kiln (found relative to
#     KilnConfig.cmake, so in the moved prefix) and libkiln.so.0, a regular file with the library's
#     bytes, and _native.abi3.so where the installed Kiln has it; nothing else; only with its
#     COMPONENT; with COMPILE_LIBRARY, libkiln_jit.so.0 beside it.
#   cmake -DWORK=... -DPREFIX=... -P check_python_runtime.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../consumer/consumer_support.cmake)
kiln_fresh_dir(${WORK})

# Configures a project whose CMakeLists.txt is the code arguments joined; `expect` is OK or a regex
# the error matches (kiln_expect_configure).
function(configure name expect)
  string(JOIN "" code ${ARGN})
  file(WRITE ${WORK}/${name}/CMakeLists.txt "cmake_minimum_required(VERSION 3.21)\nproject(p LANGUAGES NONE)\n${code}\n")
  kiln_expect_configure(${WORK}/${name} "${expect}" -DCMAKE_PREFIX_PATH=${PREFIX})
endfunction()

set(fn "kiln_install_python_runtime\\(\\):")
set(find "find_package(Kiln 0.1 CONFIG REQUIRED)")
configure(no_destination "${fn} DESTINATION is required" "${find}\nkiln_install_python_runtime()")
configure(unknown "${fn} unknown argument\\(s\\) 'DESTINATON mypkg/_kiln'"
          "${find}\nkiln_install_python_runtime(DESTINATON mypkg/_kiln)")
configure(no_runtime "${fn} there is no target Kiln::runtime; call find_package\\(Kiln\\) first"
          "include(${PREFIX}/lib/cmake/Kiln/KilnPython.cmake)\nkiln_install_python_runtime(DESTINATION d)")
configure(static_runtime "${fn} Kiln::runtime is a STATIC_LIBRARY, not a shared library"
          "add_library(Kiln::runtime STATIC IMPORTED)\ninclude(${PREFIX}/lib/cmake/Kiln/KilnPython.cmake)\n"
          "kiln_install_python_runtime(DESTINATION d)")
configure(no_binding "${fn} Kiln's Python binding is not in '${WORK}/empty' \\(KILN_PYTHON_BINDING_DIR\\)"
          "${find}\nset(KILN_PYTHON_BINDING_DIR ${WORK}/empty)\nkiln_install_python_runtime(DESTINATION d)")

# The real thing, into a component of its own next to a file of another component.
configure(install OK "${find}\nkiln_install_python_runtime(DESTINATION mypkg/_kiln COMPONENT python)\n"
                     "install(FILES CMakeLists.txt DESTINATION other COMPONENT other)")
kiln_run(ignored ${CMAKE_COMMAND} --install ${WORK}/install/build --prefix ${WORK}/out --component python)
file(GLOB_RECURSE installed LIST_DIRECTORIES false RELATIVE ${WORK}/out ${WORK}/out/*)
file(GLOB binding RELATIVE ${PREFIX}/share/kiln/python/kiln ${PREFIX}/share/kiln/python/kiln/*.py)
if(NOT binding)
  message(FATAL_ERROR "the installed Kiln has no binding in ${PREFIX}/share/kiln/python/kiln")
endif()
list(TRANSFORM binding PREPEND mypkg/_kiln/)
set(expected ${binding} mypkg/_kiln/libkiln.so.0)
# The binding's calls in C, where the installed Kiln has them (Kiln::python_native: Linux builds
# with Python's headers), as the name CPython imports.
if(EXISTS ${PREFIX}/share/kiln/python/kiln/_native.abi3.so)
  list(APPEND expected mypkg/_kiln/_native.abi3.so)
endif()
list(SORT expected)
list(SORT installed)
if(NOT installed STREQUAL expected)
  message(FATAL_ERROR "component python installed:\n  ${installed}\nexpected:\n  ${expected}")
endif()
set(library ${WORK}/out/mypkg/_kiln/libkiln.so.0)
if(IS_SYMLINK ${library})
  message(FATAL_ERROR "${library} is a symbolic link: a wheel cannot hold one")
endif()
file(SHA256 ${library} copied)
file(SHA256 ${PREFIX}/lib/libkiln.so.0 original)  # follows the soname link to the library
if(NOT copied STREQUAL original)
  message(FATAL_ERROR "${library} differs from ${PREFIX}/lib/libkiln.so.0")
endif()
message(STATUS "kiln_install_python_runtime(DESTINATION mypkg/_kiln) installed:\n  ${installed}")

# COMPILE_LIBRARY: the compile library too, beside libkiln under the name it looks for, and nothing
# more; and an error naming the option where Kiln has no Kiln::jit.
configure(with_jit OK "${find}\nkiln_install_python_runtime(DESTINATION mypkg/_kiln COMPILE_LIBRARY)")
kiln_run(ignored ${CMAKE_COMMAND} --install ${WORK}/with_jit/build --prefix ${WORK}/out_jit)
file(GLOB_RECURSE installed_jit LIST_DIRECTORIES false RELATIVE ${WORK}/out_jit ${WORK}/out_jit/*)
set(expected_jit ${expected} mypkg/_kiln/libkiln_jit.so.0)
list(SORT expected_jit)
list(SORT installed_jit)
if(NOT installed_jit STREQUAL expected_jit)
  message(FATAL_ERROR "with COMPILE_LIBRARY, installed:\n  ${installed_jit}\nexpected:\n  ${expected_jit}")
endif()
file(SHA256 ${WORK}/out_jit/mypkg/_kiln/libkiln_jit.so.0 copied_jit)
file(SHA256 ${PREFIX}/lib/libkiln_jit.so.0 original_jit)
if(NOT copied_jit STREQUAL original_jit)
  message(FATAL_ERROR "${WORK}/out_jit/mypkg/_kiln/libkiln_jit.so.0 differs from ${PREFIX}/lib/libkiln_jit.so.0")
endif()
configure(no_jit "${fn} COMPILE_LIBRARY asks for Kiln::jit, which this Kiln does not have"
          "add_library(Kiln::runtime SHARED IMPORTED)\ninclude(${PREFIX}/lib/cmake/Kiln/KilnPython.cmake)\n"
          "kiln_install_python_runtime(DESTINATION d COMPILE_LIBRARY)")
