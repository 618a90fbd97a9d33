# Fuzzes package_fuzzer for SECONDS from CORPUS without writing into it (ctest's fuzz_package).
# -rss_limit_mb and -timeout turn a package that takes too much memory or time into a finding.
# -max_len bounds what a valid input may cost: its images decode to at most 1024 times its size
# (docs/package-format.md, Limits), 64 MiB for 64 KiB, far inside the memory limit.
file(REMOVE_RECURSE ${WORK}/new)
file(MAKE_DIRECTORY ${WORK}/new ${WORK}/artifacts)
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=1024 -max_len=65536
          -print_final_stats=1 -artifact_prefix=${WORK}/artifacts/ ${WORK}/new ${CORPUS}
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "fuzz_package: the fuzzer found a failure (exit ${result}); the input is in "
                      "${WORK}/artifacts/; reproduce with: ${FUZZER} ${WORK}/artifacts/<file>")
endif()
