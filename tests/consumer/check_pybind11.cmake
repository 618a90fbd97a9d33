# consumer_pybind11: builds pybind11/ (docs/python.md's extension-module snippet) against the Kiln in
# PREFIX with the Python that has pybind11 (PYTHON), installs it, and imports it from a fresh
# interpreter: the extension finds its package beside itself, exports no Kiln symbol, needs no
# libkiln, and the install holds one stripped extension and the package, no copy of libkiln.
#   cmake -DWORK=... -DPREFIX=... -DCXX=... -DPYTHON=... -P check_pybind11.cmake
include(${CMAKE_CURRENT_LIST_DIR}/consumer_support.cmake)
kiln_fresh_dir(${WORK})
file(COPY ${CMAKE_CURRENT_LIST_DIR}/pybind11/ DESTINATION ${WORK}/project)
kiln_run(pybind11_dir ${PYTHON} -m pybind11 --cmakedir)
string(STRIP "${pybind11_dir}" pybind11_dir)
kiln_expect_configure(${WORK}/project OK -DCMAKE_PREFIX_PATH=${PREFIX} -Dpybind11_DIR=${pybind11_dir}
                      -DPython_EXECUTABLE=${PYTHON} -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release)
kiln_run(output ${CMAKE_COMMAND} --build ${WORK}/project/build)
kiln_run(output ${CMAKE_COMMAND} --install ${WORK}/project/build --prefix ${WORK}/site --strip)

file(GLOB installed RELATIVE ${WORK}/site/mypkg ${WORK}/site/mypkg/*)
list(SORT installed)
kiln_expect("${installed}" MATCHES "^__init__.py;_ext\\.[^;]*\\.so;mypkg_kernels\\.kiln$" "the install")
file(GLOB extension ${WORK}/site/mypkg/_ext.*.so)
kiln_run(exported nm -D --defined-only ${extension})
kiln_expect("${exported}" NOT_MATCHES "kiln_|ZSTD|XXH" "the extension's exported symbols")
kiln_run(dynamic readelf -d ${extension})
kiln_expect("${dynamic}" NOT_MATCHES "libkiln|libzstd" "the extension's NEEDED entries")
kiln_run(sections readelf -S ${extension})
kiln_expect("${sections}" NOT_MATCHES "\\.debug_info" "the installed extension (stripped)")

file(WRITE ${WORK}/import_mypkg.py [=[
import mypkg
print(sorted(mypkg.kernel_names()))
print("version", mypkg.runtime_version())
try:
    mypkg.open_missing()
except RuntimeError as error:
    print("error:", error)
]=])
kiln_run(output ${CMAKE_COMMAND} -E env PYTHONPATH=${WORK}/site ${PYTHON} ${WORK}/import_mypkg.py)
message(STATUS "import mypkg:\n${output}")
kiln_expect("${output}" MATCHES "\\['fill', 'scale<float, 4>'\\]" "the kernels the extension lists")
kiln_expect("${output}" MATCHES "version [1-9][0-9]*" "the runtime version")
kiln_expect("${output}" MATCHES "error: .*no_such_package" "a kiln::Error in Python")
