#!/bin/sh
# Runs a cross-built Windows test program under Wine, for CTest (the windows-mingw tree's tests, and
# the default tree's `windows.*` entries): exit 77, which CTest reports as skipped, where this
# machine has no Wine. The prefix is the build tree's own (KILN_WINE_PREFIX), made once under a lock
# so that tests started together do not both make it.
set -eu
wine=""
for candidate in "${KILN_WINE:-}" wine64 /usr/lib/wine/wine64 wine; do
  if [ -n "$candidate" ] && command -v "$candidate" >/dev/null 2>&1; then
    wine=$(command -v "$candidate")
    break
  fi
done
if [ -z "$wine" ]; then
  echo "run_under_wine: no Wine on this machine (Debian: wine64; scripts/install-deps.sh installs it): skipped"
  exit 77
fi
: "${KILN_WINE_PREFIX:?run_under_wine: KILN_WINE_PREFIX is not set}"
# No debugger (winedbg.exe=d): with it, a crash on any thread but the first ended the process with
# status 0 in about half of the runs, so a test binary that crashed there passed
# (windows.a_crash_fails checks this).
export WINEPREFIX="$KILN_WINE_PREFIX" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=;winedbg.exe=d"
mkdir -p "$(dirname "$WINEPREFIX")"
# The prefix is ready once wineboot has finished and its wineserver has exited: the server writes
# system.reg seconds after wineboot returns, so system.reg alone let a second test start wineboot
# again while the first one's program ran. The marker is written only after both, and only when
# wineboot succeeded: a failed one is tried again by the next test (this one runs regardless, and
# says what Wine says).
ready="$WINEPREFIX/.kiln-prefix-ready"
if [ ! -f "$ready" ]; then
  wineserver=$(dirname "$wine")/wineserver
  [ -x "$wineserver" ] || wineserver=$(command -v wineserver || true)
  flock "$WINEPREFIX.lock" sh -c '
    [ -f "$1" ] && exit 0
    "$2" wineboot --init >/dev/null 2>&1 || exit 0
    if [ -n "$3" ]; then "$3" -w; fi
    touch "$1"' sh "$ready" "$wine" "$wineserver"
fi
exec "$wine" "$@"
