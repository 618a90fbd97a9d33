# consumer_pkg_config: builds the Make project in make/ against the Kiln in PREFIX through kiln.pc,
# checks that `make -q` then finds it up to date, and runs its program.
#   cmake -DWORK=... -DPREFIX=... -DSOURCE=<make/> -DMAKE=<make> -DC=<cc> -P check_pkg_config.cmake
include(${CMAKE_CURRENT_LIST_DIR}/consumer_support.cmake)
kiln_fresh_dir(${WORK})
set(make ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${PREFIX}/lib/pkgconfig
    ${MAKE} -C ${WORK} -f ${SOURCE}/Makefile SOURCE=${SOURCE} CC=${C})
kiln_run(output ${make})
kiln_run(output ${make} -q)  # exit 0: everything is up to date, including the package's headers
kiln_run(output ${WORK}/probe)
kiln_expect("${output}" MATCHES "package probe: probe_kernel" "the program")
