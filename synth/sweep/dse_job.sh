#!/usr/bin/env bash
# synth/sweep/dse_job.sh KEY=VALUE ... -- one design point of `make dse`:
# synthesis and place-and-route of the board top with these parameters
# (synth/flow.sh board) and a GEMM bench of the same configuration, into
# $SWEEP_OUT/result.tsv (one row of the DSE table, docs/sim.md).
#
# Keys (defaults in brackets):
#   board=icebreaker|hx8k [icebreaker]   rows= cols= [4 4]   banks= [2]
#   spad= [8192]  ucode= [256]  formats= [1] (dtype mask)  clk= [24] (MHz,
#   PLL clock and timing target)  seed= [1] (nextpnr placement seed)
#   m= n= k= [64 64 64] (the bench GEMM)
#   synth=1|0 [1]   0: no synthesis (LCs, DSPs, Fmax empty; GMAC/s at clk)
#   bench=model|rtl|none [model]
#       model: the reference model with this geometry -- cycle-exact with the
#              RTL (tests/sim, tests/e2e); instant
#       rtl:   the configuration Verilated (spu_board_spu, UART at the
#              board's clocks per bit; `make sim-config`) and run through
#              libspu: device cycles and the simulated board's total cycles,
#              link included (e2e_*)
# Columns: board device rows cols banks spad ucode formats clk_mhz seed
#   synth_status lcs lcs_avail dsps ebr fmax_mhz timing_met m n k macs cycles
#   utilization gmacs gmacs_fmax gmacs_per_lc e2e_cycles e2e_s e2e_gmacs
# gmacs = macs / cycles at clk_mhz (the PLL clock), gmacs_fmax at fmax_mhz;
# gmacs_per_lc = gmacs / lcs. Exit status non-zero if a step failed (a
# design that synthesises but misses timing is a result, not a failure).
set -uo pipefail

board=icebreaker rows=4 cols=4 banks=2 spad=8192 ucode=256 formats=1 clk=24 seed=1
m=64 n=64 k=64 synth=1 bench=model baud=3000000
for kv in "$@"; do
    case $kv in
        board=*|rows=*|cols=*|banks=*|spad=*|ucode=*|formats=*|clk=*|seed=*|m=*|n=*|k=*|synth=*|bench=*)
            declare "${kv%%=*}=${kv#*=}" ;;
        *) echo "dse_job: unknown key $kv" >&2; exit 2 ;;
    esac
done
case $board in icebreaker) dev=up5k ;; hx8k) dev=hx8k ;; *) echo "dse_job: board $board: expected icebreaker or hx8k" >&2; exit 2 ;; esac
out=${SWEEP_OUT:-build/dse/one}
mkdir -p "$out"
BUILD=${BUILD:-build}
SPU=${SPU:-$BUILD/bin/spu}
rc=0

# first numeric value of "KEY" in a JSON file (cJSON prints one key per line)
num() { sed -n "s/.*\"$1\":[[:space:]]*\\([-0-9.eE+]*\\).*/\\1/p" "$2" | head -n 1; }

# --- synthesis, place and route --------------------------------------------------
# the sweep's scratchpad is EBR of any size: the iCEBreaker's default SPRAM
# scratchpad (128 KiB, docs/fpga.md) is turned off
spram_param=; [ "$board" = icebreaker ] && spram_param=SPAD_SPRAM=0
synth_status=skipped lcs= lcs_avail= dsps= ebr= fmax= met=
if [ "$synth" = 1 ]; then
    if SEED=$seed QUIET=1 synth/flow.sh board "$board" "$out/fpga" "dse_$SWEEP_NAME" \
        ROWS="$rows" COLS="$cols" SPAD_BANKS="$banks" SPAD_BYTES="$spad" UCODE_WORDS="$ucode" \
        FORMATS="$formats" CLK_MHZ="$clk" $spram_param > "$out/flow.log" 2>&1; then
        synth_status=ok
    else
        synth_status=$(grep -q "timing not met" "$out/flow.log" && echo timing || echo FAIL)
        [ "$synth_status" = FAIL ] && rc=1
    fi
    e=$out/fpga/entry.json
    if [ -f "$e" ]; then
        lcs=$(num lcs "$e"); dsps=$(num dsps "$e"); ebr=$(num ebr "$e"); fmax=$(num fmax_mhz "$e")
        lcs_avail=$(awk '/"available"/ { a = 1 } a && /"lcs"/ { gsub(/[^0-9]/, ""); print; exit }' "$e")
    fi
    [ -n "$fmax" ] && met=$(awk -v f="$fmax" -v c="$clk" 'BEGIN { print (f >= c) ? 1 : 0 }')
fi

# --- bench ------------------------------------------------------------------------
macs= cycles= util= e2e_cycles= e2e_s=
model_uri="model?rows=$rows&cols=$cols&spad=$spad&banks=$banks&ucode=$ucode&lanes=1"
case $bench in
model)
    "$SPU" gemm --device "$model_uri" --m "$m" --n "$n" --k "$k" --json > "$out/bench.json" || rc=1 ;;
rtl)
    # the configuration's own Verilated board (hw/build.mk: sim-config)
    if ${MAKE:-make} --no-print-directory sim-config CFG_DIR="$out/sim" CFG_ROWS="$rows" CFG_COLS="$cols" \
        CFG_BANKS="$banks" CFG_SPAD="$spad" CFG_UCODE="$ucode" CFG_CLK_MHZ="$clk" CFG_BAUD="$baud" \
        CFG_FORMATS="$formats" > "$out/sim_build.log" 2>&1; then
        SPU_SIM=$(cd "$out/sim" && pwd)/spu-sim-cfg "$SPU" gemm --device sim --m "$m" --n "$n" --k "$k" --json \
            > "$out/bench.json" || rc=1
    else
        echo "dse_job: building the simulator failed ($out/sim_build.log)" >&2
        rc=1
    fi ;;
none) : ;;
*) echo "dse_job: bench=$bench: expected model, rtl or none" >&2; exit 2 ;;
esac
if [ -s "$out/bench.json" ]; then
    macs=$(num macs "$out/bench.json"); cycles=$(num cycles "$out/bench.json")
    util=$(num utilization "$out/bench.json")
    e2e_cycles=$(num sim_cycles "$out/bench.json"); e2e_s=$(num sim_s "$out/bench.json")
    grep -q '"bitexact":true' "$out/bench.json" || { echo "dse_job: bench not bit-exact" >&2; rc=1; }
fi

# --- derived figures ----------------------------------------------------------------
calc() { awk "BEGIN { x = $1; if (x != x) exit; printf \"%.6g\", x }" 2>/dev/null; }
gmacs= gmacs_fmax= per_lc= e2e_gmacs=
[ -n "$cycles" ] && [ "$cycles" != 0 ] && gmacs=$(calc "$macs / $cycles * $clk / 1000")
[ -n "$cycles" ] && [ -n "$fmax" ] && gmacs_fmax=$(calc "$macs / $cycles * $fmax / 1000")
[ -n "$gmacs" ] && [ -n "$lcs" ] && [ "$lcs" != 0 ] && per_lc=$(calc "$gmacs / $lcs")
[ -n "$e2e_cycles" ] && [ "$e2e_cycles" != 0 ] && e2e_gmacs=$(calc "$macs / $e2e_cycles * $clk / 1000")

{
    printf 'board\tdevice\trows\tcols\tbanks\tspad\tucode\tformats\tclk_mhz\tseed\tsynth_status\tlcs\tlcs_avail\tdsps\tebr\tfmax_mhz\ttiming_met\tbench\tm\tn\tk\tmacs\tcycles\tutilization\tgmacs\tgmacs_fmax\tgmacs_per_lc\te2e_cycles\te2e_s\te2e_gmacs\n'
    printf '%s\t' "$board" "$dev" "$rows" "$cols" "$banks" "$spad" "$ucode" "$formats" "$clk" "$seed" \
        "$synth_status" "$lcs" "$lcs_avail" "$dsps" "$ebr" "$fmax" "$met" "$bench" "$m" "$n" "$k" "$macs" \
        "$cycles" "$util" "$gmacs" "$gmacs_fmax" "$per_lc" "$e2e_cycles" "$e2e_s"
    printf '%s\n' "$e2e_gmacs"
} > "$out/result.tsv"
cat "$out/result.tsv"
exit $rc
