#!/usr/bin/env bash
# Runs every GoogleTest binary given, then prints one summary line
# "tests: N passed, N failed, N skipped". Exit status non-zero on any failure.
set -u
pass=0; fail=0; skip=0; bad=()
for t in "$@"; do
  [ -x "$t" ] || { echo "missing test binary $t"; bad+=("$t"); continue; }
  echo "=== $t"
  log=$(mktemp)
  "$t" --gtest_brief=1 2>&1 | tee "$log"; rc=${PIPESTATUS[0]}
  p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*, listed below:/\1/p' "$log" | tail -1)
  s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
  pass=$((pass + ${p:-0})); fail=$((fail + ${f:-0})); skip=$((skip + ${s:-0}))
  if [ "$rc" -ne 0 ]; then bad+=("$t"); [ -z "$f" ] && fail=$((fail + 1)); fi
  rm -f "$log"
done
echo
[ ${#bad[@]} -gt 0 ] && echo "failing binaries: ${bad[*]}"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ ${#bad[@]} -eq 0 ]
