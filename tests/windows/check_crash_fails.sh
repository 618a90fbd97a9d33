#!/bin/sh
# windows.a_crash_fails: a Windows program that crashes on a second thread (crash_in_thread.exe)
# must fail under run_under_wine.sh, as every test binary is run. With Wine's debugger on, such a
# crash exited with status 0 and the test binary it happened in passed. Exit 77 (skipped) where the
# Windows build or Wine is missing.
set -u
program=$1
missing=${2:-}
if [ -n "$missing" ]; then
  echo "check_crash_fails: no Windows build on this machine, it lacks $missing (scripts/install-deps.sh installs it): skipped"
  exit 77
fi
if [ ! -f "$program" ]; then
  echo "check_crash_fails: $program was not built" >&2
  exit 1
fi
output=$("$(dirname "$0")/run_under_wine.sh" "$program" 2>&1)
status=$?
if [ "$status" -eq 77 ]; then
  echo "$output"
  exit 77
fi
if [ "$status" -eq 0 ]; then
  echo "check_crash_fails: $program crashed on a thread and Wine reported success (status 0):"
  echo "$output"
  exit 1
fi
case $output in
  *"Unhandled page fault"*)
    echo "check_crash_fails: a crash on a thread failed with status $status, as it must"
    exit 0 ;;
esac
echo "check_crash_fails: $program failed with status $status, but not by the crash it was built for:"
echo "$output"
exit 1
