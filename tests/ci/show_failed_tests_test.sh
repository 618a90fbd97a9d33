#!/bin/bash
# .ci/show-failed-tests against build folders laid out as ctest leaves them: it prints again the
# output of each test that failed in a run after the marker, and nothing of a test that passed or of
# a failure from an earlier run.
set -euo pipefail
script=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

log_block() {   # number name result output
  printf '%s/9 Testing: %s\n%s/9 Test: %s\nCommand: "/bin/%s"\nOutput:\n' "$1" "$2" "$1" "$2" "$2"
  printf -- '----------------------------------------------------------\n%s\n<end of output>\n' "$4"
  printf 'Test time =   0.10 sec\n----------------------------------------------------------\nTest %s.\n' "$3"
  printf '"%s" end time: Dec 01 06:06 UTC\n----------------------------------------------------------\n\n' "$2"
}
lay_out() {   # folder failed-list, then the log's blocks on stdin
  mkdir -p "$work/$1/Testing/Temporary"
  cat > "$work/$1/Testing/Temporary/LastTest.log"
  printf '%s' "$2" > "$work/$1/Testing/Temporary/LastTestsFailed.log"
}

# An earlier run's failure, before the marker: not printed again.
{ echo "Start testing"; log_block 1 stale_test Failed "output of an earlier run"; echo "End testing: x"; } |
  lay_out build-old $'1:stale_test\n'
touch -d '2 hours ago' "$work"/build-old/Testing/Temporary/*
marker="$work/marker"
touch -d '1 hour ago' "$marker"
# This run: one passing test, then two failing ones (one of them a prefix of the other's name), the
# second with more lines than are shown.
long=$(seq 1 400 | sed 's/^/line /')
{ echo "Start testing"
  log_block 1 passing_test Passed "output of a passing test"
  log_block 2 remote_cache Failed "AssertionError: the budget's words"
  log_block 3 remote_cache_servers Failed "$long"
  echo "End testing: Dec 01"; echo "after the end"; } | lay_out build $'2:remote_cache\n3:remote_cache_servers\n'

out=$(LINES_PER_TEST=50 "$script" "$marker" "$work")
fail() { echo "FAIL: $1"; echo "--- output ---"; echo "$out"; exit 1; }
[[ $out == *"=== build: 2 failed test(s)"* ]] || fail "no heading for build"
[[ $out == *"--- remote_cache ---"*"AssertionError: the budget's words"* ]] || fail "the failed test's output is missing"
[[ $out == *"line 400"* ]] || fail "the end of a long output is missing"
[[ $out != *"line 300"$'\n'* ]] || fail "more than LINES_PER_TEST lines of one test were printed"
[[ $out != *"output of a passing test"* ]] || fail "a passing test's output was printed"
[[ $out != *"stale_test"* && $out != *"earlier run"* ]] || fail "an earlier run's failure was printed"
[[ $out != *"after the end"* ]] || fail "lines after the log's end were printed"
# The block of remote_cache holds only its own output, not its longer-named neighbour's.
block=$(awk '/^--- remote_cache ---$/ {on = 1; next} /^--- / {on = 0} on' <<< "$out")
[[ $block != *"line 1"* ]] || fail "remote_cache's block holds another test's output"
# Nothing failed after the marker: nothing printed, and success.
touch "$work/later"
[ -z "$("$script" "$work/later" "$work")" ] || fail "output for a run with no failures"
echo "PASS"
