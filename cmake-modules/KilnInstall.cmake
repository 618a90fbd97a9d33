# Kiln's install tree and CMake package:
#
#   bin/kiln                               the generator (not in runtime-only builds)
#   include/kiln/kiln.h, launch.h         the loader's C interface
#   include/kiln/kiln.hpp, error.hpp, kernel.hpp, name_of.hpp   its C++ interface (kiln.hpp includes the rest)
#   include/kiln/compile.h, program.hpp   compiling at run time (C, C++): programs include them themselves
#   lib/libkiln.so*                        the loader, Kiln::runtime (Windows: bin/kiln.dll, lib/libkiln.dll.a
#                                          and lib/kiln.lib)
#   lib/libkiln_jit.so*                    the compile library, Kiln::jit, which libkiln loads from its own
#                                          directory (KILN_BUILD_JIT; Windows: bin/kiln_jit.dll)
#   lib/libkiln_static.a                   Kiln::runtime_static, for extension modules (not on Windows)
#   lib/libkiln_jit_static.a               Kiln::jit_static, the compile library for them (KILN_BUILD_JIT)
#   lib/cmake/Kiln/KilnConfig.cmake, KilnConfigVersion.cmake (SameMajorVersion), KilnTargets*.cmake,
#                  KilnFunctions.cmake and what it includes, runs and configures
#   lib/pkgconfig/kiln.pc
#   share/kiln/python/kiln/*.py            the Python binding (KILN_PYTHON_BINDING_DIR in KilnConfig.cmake),
#                                          installed-library-dir: the way from there to lib/, and
#                                          _native.abi3.so, its optional calls in C (Kiln::python_native;
#                                          KILN_BUILD_PYTHON_NATIVE, Linux)
#   share/doc/kiln/*.md                    the documentation (docs/), which messages name
#
# Nothing installed names an absolute path inside the prefix: the CMake files find the targets
# relative to themselves, kiln.pc relative to ${pcfiledir}, and libkiln.so needs no RUNPATH (it
# depends on libc and libstdc++ alone). kiln's RUNPATH names the toolkit's library directory, where
# its libnvrtc and libnvJitLink are: those are outside the prefix and stay where they are.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(KILN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Kiln)

set_target_properties(kiln_runtime PROPERTIES EXPORT_NAME runtime)
# Windows: kiln.dll in bin/, its MinGW import library libkiln.dll.a and MSVC's kiln.lib in lib/.
install(TARGETS kiln_runtime EXPORT KilnTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(WIN32)
  install(FILES $<TARGET_FILE_DIR:kiln_runtime>/kiln.lib DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(TARGET kiln_runtime_static)
  # The static runtime for extension modules (one archive, zstd included: see runtime/src/api).
  set_target_properties(kiln_runtime_static PROPERTIES EXPORT_NAME runtime_static)
  install(TARGETS kiln_runtime_static EXPORT KilnTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endif()
if(TARGET kiln_python_native)
  # Beside the binding, where its `from . import _native` finds it; Kiln::python_native for
  # kiln_install_python_runtime().
  install(TARGETS kiln_python_native EXPORT KilnTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_DATADIR}/kiln/python/kiln)
endif()
if(TARGET kiln_jit)
  set_target_properties(kiln_jit PROPERTIES EXPORT_NAME jit)
  install(TARGETS kiln_jit EXPORT KilnTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
if(TARGET kiln_jit_static)
  set_target_properties(kiln_jit_static PROPERTIES EXPORT_NAME jit_static)
  install(TARGETS kiln_jit_static EXPORT KilnTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
set(kiln_public_headers kiln.h launch.h kiln.hpp error.hpp kernel.hpp name_of.hpp)
list(TRANSFORM kiln_public_headers PREPEND ${PROJECT_SOURCE_DIR}/runtime/include/kiln/)
# compile.h and program.hpp, whose entry points libkiln exports, are installed with or without the
# compile library: a program built against them reports NO_COMPILER where the library is missing.
list(APPEND kiln_public_headers ${PROJECT_SOURCE_DIR}/jit/include/kiln/compile.h
     ${PROJECT_SOURCE_DIR}/jit/include/kiln/program.hpp)
install(FILES ${kiln_public_headers} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
# The Python binding: pure Python over libkiln, installed without the library, which stays in lib/
# (kiln_install_python_runtime() puts a copy beside the binding in a wheel).
install(DIRECTORY ${KILN_PYTHON_BINDING_DIR}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/kiln/python/kiln
        FILES_MATCHING PATTERN "*.py" PATTERN "__pycache__" EXCLUDE)
# Beside it, where the library is relative to it (the binding reads it: runtime/python/kiln/_library.py),
# so that the installed binding loads <prefix>/<libdir>/libkiln.so.0, wherever the tree is moved.
# Not a .py file: kiln_install_python_runtime() copies the binding's .py files into wheels, which
# carry their own library beside it.
# (Windows: kiln.dll is installed as a RUNTIME file, into bin/.)
set(kiln_library_dir ${CMAKE_INSTALL_LIBDIR})
if(WIN32)
  set(kiln_library_dir ${CMAKE_INSTALL_BINDIR})
endif()
file(RELATIVE_PATH kiln_binding_to_libdir /prefix/${CMAKE_INSTALL_DATADIR}/kiln/python/kiln /prefix/${kiln_library_dir})
if(IS_ABSOLUTE "${CMAKE_INSTALL_DATADIR}" OR IS_ABSOLUTE "${kiln_library_dir}")
  get_filename_component(kiln_binding_to_libdir "${kiln_library_dir}" ABSOLUTE BASE_DIR "${CMAKE_INSTALL_PREFIX}")
endif()
file(WRITE ${PROJECT_BINARY_DIR}/installed-library-dir "${kiln_binding_to_libdir}\n")
install(FILES ${PROJECT_BINARY_DIR}/installed-library-dir DESTINATION ${CMAKE_INSTALL_DATADIR}/kiln/python/kiln)

set(KILN_GENERATOR_CUDA_ROOT "")
set(KILN_PC_GENERATOR "")
if(TARGET kiln)
  # Its RUNPATH: the directories of the libraries it links from outside the system's (the toolkit's
  # libnvrtc and libnvJitLink, clang's and LLVM's if not in a system directory).
  set_target_properties(kiln PROPERTIES EXPORT_NAME kiln INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS kiln EXPORT KilnTargets RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # clang's parser, which kiln loads from <bindir>/../<libdir>/kiln when it first parses
  # (generator/src/scan/parser_module.hpp); its RUNPATH finds clang and LLVM as kiln's did.
  set_target_properties(kiln_scan_parser PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS kiln_scan_parser LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/kiln)
  get_property(KILN_GENERATOR_CUDA_ROOT GLOBAL PROPERTY KILN_GENERATOR_CUDA_ROOT)
  set(KILN_PC_GENERATOR "generator=\${prefix}/${CMAKE_INSTALL_BINDIR}/kiln")
endif()

install(EXPORT KilnTargets NAMESPACE Kiln:: DESTINATION ${KILN_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/KilnConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/KilnConfig.cmake
                              INSTALL_DESTINATION ${KILN_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/KilnConfig.cmake ${PROJECT_BINARY_DIR}/KilnConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/KilnFunctions.cmake ${CMAKE_CURRENT_LIST_DIR}/KilnArchitectures.cmake
              ${CMAKE_CURRENT_LIST_DIR}/KilnCacheRules.cmake ${CMAKE_CURRENT_LIST_DIR}/KilnSuggest.cmake
              ${CMAKE_CURRENT_LIST_DIR}/KilnSourceProperties.cmake ${CMAKE_CURRENT_LIST_DIR}/KilnGeneratorCheck.cmake
              ${CMAKE_CURRENT_LIST_DIR}/KilnWriteManifest.cmake ${CMAKE_CURRENT_LIST_DIR}/KilnCompileCommands.cmake
              ${CMAKE_CURRENT_LIST_DIR}/KilnPackagePlacement.cmake ${CMAKE_CURRENT_LIST_DIR}/KilnPlacePackage.cmake
              ${CMAKE_CURRENT_LIST_DIR}/KilnEmbed.S.in ${CMAKE_CURRENT_LIST_DIR}/KilnEmbed.c.in
              ${CMAKE_CURRENT_LIST_DIR}/KilnPython.cmake ${CMAKE_CURRENT_LIST_DIR}/KilnScanTargets.cmake
        DESTINATION ${KILN_INSTALL_CMAKEDIR})

# The documentation, which messages point to (share/doc/kiln/manifest.md for the options Kiln
# takes): a user of an installed Kiln has no source tree. The pages link each other relatively.
file(GLOB kiln_docs ${PROJECT_SOURCE_DIR}/docs/*.md)
install(FILES ${kiln_docs} DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/doc/kiln)

# ${pcfiledir} is <prefix>/<libdir>/pkgconfig: the way back up depends on how deep libdir is.
file(RELATIVE_PATH KILN_PC_PREFIX_FROM_PCFILEDIR /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" KILN_PC_PREFIX_FROM_PCFILEDIR "${KILN_PC_PREFIX_FROM_PCFILEDIR}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/kiln.pc.in ${PROJECT_BINARY_DIR}/kiln.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/kiln.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
