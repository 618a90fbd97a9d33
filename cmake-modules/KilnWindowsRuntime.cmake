# kiln.dll (included by runtime/src/api for a Windows build): the C ABI exported by name from
# kiln.def, the C++ runtime, libgcc and winpthread linked in (the DLL imports only Windows' own
# DLLs), an import library for MinGW (libkiln.dll.a) and one for MSVC (kiln.lib, from kiln.def).
set(kiln_def ${CMAKE_CURRENT_SOURCE_DIR}/kiln.def)
set_target_properties(kiln_runtime PROPERTIES
  OUTPUT_NAME kiln
  PREFIX ""
  IMPORT_PREFIX "lib"
  VERSION ${PROJECT_VERSION}
  LINK_DEPENDS ${kiln_def})
target_link_options(kiln_runtime PRIVATE -static -Wl,--no-undefined ${kiln_def})

find_program(KILN_DLLTOOL NAMES llvm-dlltool-19 llvm-dlltool x86_64-w64-mingw32-dlltool
             HINTS /usr/lib/llvm-19/bin REQUIRED)
add_custom_command(TARGET kiln_runtime POST_BUILD
                   COMMAND ${KILN_DLLTOOL} -m i386:x86-64 -d ${kiln_def} -l ${KILN_LIBRARY_OUTPUT_DIRECTORY}/kiln.lib
                   BYPRODUCTS ${KILN_LIBRARY_OUTPUT_DIRECTORY}/kiln.lib
                   COMMENT "kiln.lib: the import library MSVC links"
                   VERBATIM)
