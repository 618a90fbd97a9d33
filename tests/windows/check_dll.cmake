# kiln.dll as a Windows user gets it: it exports exactly the names kiln.def lists (the C ABI), it
# imports only Windows' own DLLs (libstdc++, libgcc and winpthread are linked in; no CUDA library:
# the driver is loaded at run time), and kiln.lib, the import library for MSVC, holds every name.
# Usage: cmake -DLIBRARY=<kiln.dll> -DOBJDUMP=<x86_64-w64-mingw32-objdump> -DNM=<...-nm>
#              -DDEF=<kiln.def> -DIMPORT_LIBRARY=<kiln.lib> -P check_dll.cmake
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND "${OBJDUMP}" -p "${LIBRARY}" OUTPUT_VARIABLE dump RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_dll: ${OBJDUMP} -p failed on ${LIBRARY}")
endif()

# Imports: "\tDLL Name: KERNEL32.dll".
string(REGEX MATCHALL "DLL Name: [^\n]+" import_lines "${dump}")
set(imports "")
foreach(line IN LISTS import_lines)
  string(REGEX REPLACE "DLL Name: " "" name "${line}")
  string(TOLOWER "${name}" lower)
  list(APPEND imports "${name}")
  if(NOT lower MATCHES "^(kernel32|msvcrt|ucrtbase|advapi32|ntdll|user32|shell32|ole32|bcrypt)\\.dll$|^api-ms-win-")
    message(FATAL_ERROR "check_dll: ${LIBRARY} imports ${name}, which is not a Windows system DLL "
                        "(a MinGW runtime DLL must be linked in; a CUDA library must be loaded at run time)")
  endif()
endforeach()
if(NOT imports)
  message(FATAL_ERROR "check_dll: no import table read from ${LIBRARY}")
endif()

# Exports: "\t[   0] kiln_cache_get_stats" in the name pointer table, which ends at a blank line.
string(FIND "${dump}" "[Ordinal/Name Pointer] Table" at)
if(at EQUAL -1)
  message(FATAL_ERROR "check_dll: ${LIBRARY} has no export name table")
endif()
string(SUBSTRING "${dump}" ${at} -1 names)
string(FIND "${names}" "\n\n" end)
string(SUBSTRING "${names}" 0 ${end} names)
string(REGEX MATCHALL "\\[ *[0-9]+\\] [A-Za-z_0-9]+" export_lines "${names}")
set(exported "")
foreach(line IN LISTS export_lines)
  string(REGEX REPLACE "^\\[ *[0-9]+\\] " "" name "${line}")
  list(APPEND exported "${name}")
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/../support/def_exports.cmake)
kiln_compare_def(check_dll "${LIBRARY}" "${DEF}" ${exported})
set(in_def "${KILN_DEF_NAMES}")

# kiln.lib: an import stub for every name.
execute_process(COMMAND "${NM}" "${IMPORT_LIBRARY}" OUTPUT_VARIABLE stubs RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_dll: ${NM} failed on ${IMPORT_LIBRARY}")
endif()
foreach(name IN LISTS in_def)
  if(NOT stubs MATCHES "__imp_${name}\n")
    message(FATAL_ERROR "check_dll: ${IMPORT_LIBRARY} has no import of ${name}")
  endif()
endforeach()

list(LENGTH exported count)
message(STATUS "check_dll: ${count} exports, all in kiln.def and kiln.lib; imports ${imports}")
