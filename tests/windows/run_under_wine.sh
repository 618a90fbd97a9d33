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
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  flock "$WINEPREFIX.lock" sh -c '[ -f "$WINEPREFIX/system.reg" ] || "$1" wineboot --init >/dev/null 2>&1 || true' sh "$wine"
fi
exec "$wine" "$@"
