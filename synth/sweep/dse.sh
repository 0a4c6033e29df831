#!/usr/bin/env bash
# synth/sweep/dse.sh OUTDIR -- the design-space sweep behind `make dse`: the
# cross product of the DSE_* lists below, one synth/sweep/dse_job.sh per
# point, run by synth/sweep/sweep.sh (RUNNER=make|slurm) into
# OUTDIR/table.{tsv,csv,json}. docs/sim.md ("Design-space sweeps").
#
#   DSE_BOARDS   boards (device)          [icebreaker]
#   DSE_SHAPES   ROWSxCOLS array shapes   [2x2 4x4]
#   DSE_BANKS    scratchpad banks         [2]
#   DSE_FORMATS  dtype masks (FORMATS)    [1]
#   DSE_CLKS     PLL clock / target, MHz  [24]
#   DSE_SEEDS    nextpnr placement seeds  [1 2]
#   DSE_SPAD DSE_UCODE                    [8192] [256]
#   DSE_GEMM     bench GEMM MxNxK         [64x64x64]
#   DSE_SYNTH    1: synthesise, 0: bench only           [1]
#   DSE_BENCH    model | rtl | none (synth/sweep/dse_job.sh) [model]
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: synth/sweep/dse.sh OUTDIR" >&2; exit 2; }
out=$1
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
IFS=x read -r gm gn gk <<< "${DSE_GEMM:-64x64x64}"
list=$out/dse_jobs.tsv
: > "$list"
for b in ${DSE_BOARDS:-icebreaker}; do
for s in ${DSE_SHAPES:-2x2 4x4}; do
    r=${s%x*} c=${s#*x}
for bk in ${DSE_BANKS:-2}; do
for f in ${DSE_FORMATS:-1}; do
for clk in ${DSE_CLKS:-24}; do
for seed in ${DSE_SEEDS:-1 2}; do
    name="${b}_${r}x${c}_b${bk}_f${f}_${clk}mhz_s${seed}"
    printf '%s\t%q board=%s rows=%s cols=%s banks=%s formats=%s clk=%s seed=%s spad=%s ucode=%s m=%s n=%s k=%s synth=%s bench=%s\n' \
        "$name" "$here/dse_job.sh" "$b" "$r" "$c" "$bk" "$f" "$clk" "$seed" "${DSE_SPAD:-8192}" \
        "${DSE_UCODE:-256}" "$gm" "$gn" "$gk" "${DSE_SYNTH:-1}" "${DSE_BENCH:-model}" >> "$list"
done; done; done; done; done; done
exec "$here/sweep.sh" "$list" "$out"
