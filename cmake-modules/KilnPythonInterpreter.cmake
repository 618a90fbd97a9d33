# The Python interpreter for the binding's tests and the wheel example: the one
# scripts/install-deps.sh set up in .venv (it has pytest and scikit-build-core), else the first
# python3 CMake finds. Tests that need a module the interpreter lacks fail and say so; they are not
# skipped.
set(_kiln_default_python "")
if(EXISTS "${PROJECT_SOURCE_DIR}/.venv/bin/python")
  set(_kiln_default_python "${PROJECT_SOURCE_DIR}/.venv/bin/python")
else()
  find_package(Python3 3.8 COMPONENTS Interpreter)
  if(Python3_FOUND)
    set(_kiln_default_python "${Python3_EXECUTABLE}")
  endif()
endif()
set(KILN_PYTHON "${_kiln_default_python}" CACHE FILEPATH
    "Python interpreter for the Python binding's tests and the wheel example (scripts/install-deps.sh makes .venv)")
unset(_kiln_default_python)
if(KILN_PYTHON)
  message(STATUS "Kiln: Python for tests: ${KILN_PYTHON}")
else()
  message(STATUS "Kiln: no Python interpreter found; the Python tests report that they cannot run")
endif()
