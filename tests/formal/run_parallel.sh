#!/usr/bin/env bash
# tests/formal/run_parallel.sh JOBS LOGDIR BIN... -- runs every test of the
# GoogleTest binaries BIN (those GTEST_FILTER selects, when set) as its own
# process, JOBS at a time (the proofs of make test-formal / test-formal-full
# are independent, one or two tool runs each, single-threaded), the slowest
# known ones first. Prints one line per test as it ends (status, wall and CPU
# seconds: CPU includes the yosys / yosys-abc runs it waited for), each
# failing test's output, then "tests: N passed, N failed, N skipped" (the
# line tests/run_tests.sh prints). Exit status non-zero on any failure.
# Per-test logs: LOGDIR/<test>.log, the per-test table LOGDIR/times.tsv.
set -u
jobs=$1; logdir=$2; shift 2
[ "$jobs" -ge 1 ] 2>/dev/null || { echo "run_parallel.sh: JOBS must be a positive number, not '$jobs'"; exit 2; }
mkdir -p "$logdir" || exit 2
rm -f "$logdir"/*.log "$logdir"/*.rc "$logdir"/times.tsv
list=$(mktemp); trap 'rm -f "$list"' EXIT
for bin in "$@"; do
  [ -x "$bin" ] || { echo "missing test binary $bin"; exit 2; }
  # --gtest_list_tests honours GTEST_FILTER: "Suite." lines, then "  Test" lines
  "$bin" --gtest_list_tests | awk -v bin="$bin" '
    /^[^ ]/ { suite = $1; next }
    /^  [^ ]/ { print bin "\t" suite $1 }' >> "$list" || { echo "cannot list the tests of $bin"; exit 2; }
done
# the slowest first (measured: docs/numerics-rtl.md), so two workers end together
order() {
  awk -F'\t' '{ w = 5
    if ($2 ~ /Fp16Exhaustive/) w = 0
    else if ($2 ~ /ref_mx_dot.*N_8/) w = 1
    else if ($2 ~ /N_32/ || $2 ~ /ref_mx_dot/) w = 2
    else if ($2 ~ /FormalCI|ref_fx2f32|A_EXP_5_A_MAN_10|N_8/) w = 3
    print w "\t" NR "\t" $0 }' "$list" | sort -t$'\t' -k1,1n -k2,2n | cut -f3-
}
n=$(wc -l < "$list")
echo "run_parallel.sh: $n tests, $jobs at a time (logs in $logdir)"
one() {  # BIN NAME LOGDIR: runs one test, prints its line
  local bin=$1 name=$2 f=${2//\//_} t0=$SECONDS
  local log="$3/$f.log" rcf="$3/$f.rc"
  local TIMEFORMAT='%U %S'
  local cpu
  cpu=$( { time "$bin" --gtest_filter="$name" > "$log" 2>&1; echo $? > "$rcf"; } 2>&1 )
  local rc; rc=$(cat "$rcf" 2>/dev/null)
  local st=ok
  if [ "${rc:-1}" != 0 ]; then st=FAILED
  elif grep -q '^\[  SKIPPED \] 1 test' "$log"; then st=skipped; fi
  local c; c=$(echo "$cpu" | awk '{ printf "%.1f", $1 + $2 }')
  printf '%-8s %5d s wall %8s s CPU  %s\n' "$st" $((SECONDS - t0)) "$c" "$name"
  printf '%s\t%s\t%d\t%s\n' "$name" "$st" $((SECONDS - t0)) "$c" >> "$3/times.tsv"
}
export -f one
start=$SECONDS
order | while IFS=$'\t' read -r bin name; do printf '%s\0%s\0' "$bin" "$name"; done |
  xargs -0 -n 2 -P "$jobs" bash -c 'one "$1" "$2" "$0"' "$logdir"
pass=0; fail=0; skip=0; bad=()
while IFS=$'\t' read -r name st wall cpu; do
  case $st in ok) pass=$((pass + 1)) ;; skipped) skip=$((skip + 1)) ;; *) fail=$((fail + 1)); bad+=("$name") ;; esac
done < "$logdir/times.tsv"
done_n=$((pass + fail + skip))
if [ "$done_n" -ne "$n" ]; then echo "run_parallel.sh: $((n - done_n)) tests did not report"; fail=$((fail + n - done_n)); fi
for b in "${bad[@]+"${bad[@]}"}"; do echo "=== $b (FAILED)"; cat "$logdir/${b//\//_}.log"; done
cpu_total=$(awk -F'\t' '{ s += $4 } END { printf "%.0f", s }' "$logdir/times.tsv")
echo "run_parallel.sh: $((SECONDS - start)) s of wall time, $cpu_total s of CPU"
echo
echo "tests: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
