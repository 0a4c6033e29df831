#!/usr/bin/env bash
# synth/sweep/run_job.sh OUTDIR INDEX -- run line INDEX (from 0) of
# OUTDIR/jobs.tsv (written by sweep.sh), for the make runner and for one
# Slurm array task alike. Writes OUTDIR/jobs/NAME/{log,status,.done}; status
# holds "exit<TAB>wall_s<TAB>host". Always exits 0 once the status is
# written (the table carries failures), 2 if the line does not exist.
set -uo pipefail
out=$1
idx=$2
line=$(awk -v i="$idx" 'NR == i + 1' "$out/jobs.tsv")
[ -n "$line" ] || { echo "run_job: no job $idx in $out/jobs.tsv" >&2; exit 2; }
name=${line%%$'\t'*}
cmd=${line#*$'\t'}
dir=$out/jobs/$name
cd "$(cat "$out/workdir")" || { echo "run_job: cannot enter the sweep's working directory" >&2; exit 2; }
mkdir -p "$dir"
rm -f "$dir/result.tsv" "$dir/status" "$dir/.done"
echo "[sweep] start $name"
t0=$(date +%s.%N)
SWEEP_OUT=$dir SWEEP_NAME=$name bash -c "$cmd" > "$dir/log" 2>&1
rc=$?
t1=$(date +%s.%N)
printf '%s\t%s\t%s\n' "$rc" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" \
    "$(hostname -s)" > "$dir/status"
if [ "$rc" -eq 0 ]; then
    echo "[sweep] done  $name"
else
    echo "[sweep] FAIL  $name (exit $rc; $dir/log): $(tail -n 1 "$dir/log")"
fi
touch "$dir/.done"
exit 0
