#!/bin/sh
# One Windows test binary of build/windows, for the default tree's `windows.*` entries: skipped
# (exit 77) with the reason when the cross build could not be made here, else run under Wine in
# its own directory (run_under_wine.sh).
set -eu
program=$1
missing=${2:-}
if [ -n "$missing" ]; then
  echo "run_windows_test: no Windows build on this machine, it lacks $missing (scripts/install-deps.sh installs it): skipped"
  exit 77
fi
if [ ! -f "$program" ]; then
  echo "run_windows_test: $program was not built (the Windows tree is built with the default build)" >&2
  exit 1
fi
cd "$(dirname "$program")"
exec "$(dirname "$0")/run_under_wine.sh" "./$(basename "$program")"
