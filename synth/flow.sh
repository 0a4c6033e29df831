#!/usr/bin/env bash
# synth/flow.sh -- one run of the open iCE40 flow, for `make bitstream` and
# `make ppa` (synth/build.mk) and the smoke test (tests/synth/).
#
#   synth/flow.sh entry NAME DEVICE OUTDIR
#       the row (NAME, DEVICE) of synth/ppa_table.tsv or of the array rows
#       generated from hw/isa/spu_cfg.def (synth/ppa_rows.sh; $PPA_TABLE, default
#       $BUILD/ppa/table.tsv), by one of the two below.
#   synth/flow.sh unit  NAME DEVICE OUTDIR TOP [PARAM=VALUE ...]
#       a numerics unit (module TOP in hw/rtl/numerics/TOP.v, or the file
#       given in $UNIT_SRC) inside the generated register harness, on DEVICE
#       (up5k | hx8k), plus the technology-independent pass on the unit alone.
#   synth/flow.sh board BOARD OUTDIR ENTRY_NAME [PARAM=VALUE ...]
#       the board top hw/rtl/board/spu_board_BOARD.v with the board's pcf;
#       CLK_MHZ=.. (the PLL clock, also the timing target) and any other
#       parameter of the board top (ROWS, COLS, FORMATS, BAUD, ...).
#       Writes OUTDIR/spu.bin and fails with a plain message when the design
#       does not fit or misses timing.
#   synth/flow.sh probe NAME DEVICE OUTDIR [CLK_MHZ=24]
#       a timing probe (synth/probes/NAME.v, top NAME, pins NAME.pcf): a
#       design not built yet, placed and timed as a board top is, with the
#       system clock's target CLK_MHZ (and its fast clock, if it has one).
#
# Every step logs into OUTDIR/*.log; the result is OUTDIR/entry.json (one row
# of the PPA report, see synth/ppa_report.c). Environment: SPU_PPA (the
# spu-ppa binary, default build/bin/spu-ppa), BUILD (default build),
# SEED (nextpnr seed, default 1), SYNTH_OPTS (extra synth_ice40 options,
# default -abc9), QUIET=1 (no progress lines).
set -euo pipefail

BUILD=${BUILD:-build}
SPU_PPA=${SPU_PPA:-$BUILD/bin/spu-ppa}
SEED=${SEED:-1}
# -abc9: Yosys's timing-driven LUT mapper; 3-5 % fewer SB_LUT4 than the
# default abc on the board tops (docs/fpga.md)
SYNTH_OPTS=${SYNTH_OPTS:--abc9}
RTL_DIRS=(hw/rtl/board hw/rtl/core hw/rtl/link hw/rtl hw/rtl/numerics)

say()  { [ "${QUIET:-0}" = 1 ] || echo "[flow] $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# run LOG cmd...: run a tool with its output in LOG; on error show the tail.
run() {
    local log=$1; shift
    if ! "$@" >"$log" 2>&1; then
        echo "FAIL: $1 failed (log: $log); last lines:" >&2
        tail -n 15 "$log" >&2
        exit 1
    fi
}

for t in yosys nextpnr-ice40 icepack icetime; do
    command -v "$t" >/dev/null || fail "$t not found (make deps installs yosys, nextpnr-ice40, fpga-icestorm)"
done
[ -x "$SPU_PPA" ] || fail "$SPU_PPA not built (make $BUILD/bin/spu-ppa)"

device_args() {  # DEVICE -> nextpnr/icetime/yosys settings
    case $1 in
        up5k) NP_DEV=--up5k; PKG=sg48;  IT_DEV=up5k; DSP=-dsp ;;
        hx8k) NP_DEV=--hx8k; PKG=ct256; IT_DEV=hx8k; DSP= ;;
        *) fail "device $1: expected up5k or hx8k" ;;
    esac
}

libdirs() { local d; for d in "${RTL_DIRS[@]}"; do [ -d "$d" ] && printf -- '-libdir %s ' "$d"; done; }

# generic_pass TOP OUT READ_SCRIPT: transistors and logic depth, technology
# independent. Memories stay $mem cells (not counted; the entry says how
# many bits were left out); iCE40 primitives the RTL instantiates (PLL,
# SB_MAC16) are black boxes, not counted either.
generic_pass() {
    local top=$1 out=$2 read_script=$3
    say "$top: technology-independent pass"
    run "$out/generic.log" yosys -p "
        verilog_defaults -add -I$BUILD/gen -Ihw/rtl
        read_verilog -lib +/ice40/cells_sim.v
        $read_script
        hierarchy -top $top $(libdirs)
        synth -top $top -flatten -run begin:fine
        opt -fast -full
        techmap
        opt -fast
        dfflegalize -cell \$_DFF_P_ 01
        abc -g cmos2
        opt_clean
        script synth/ice40_cells.ys
        tee -q -o $out/generic_stat.json stat -json -tech cmos
        write_json $out/generic.json"
}

# Two clocks (docs/fpga.md "Two clocks"): a design may have a second clock
# at twice the system clock, from the same PLL, on a net named FAST_CLK.
# nextpnr times it against 2 x FREQ (its pre-pack script below), every other
# clock against FREQ; spu-ppa entry --fast-clock turns the two domains and
# the paths between them into the system clock they allow.
FAST_CLK=clk2x

# pnr DEVICE OUTDIR FREQ [PCF]: nextpnr + icetime (interior paths).
pnr() {
    local dev=$1 out=$2 freq=$3 pcf=${4:-}
    device_args "$dev"
    local pcfarg=()
    [ -n "$pcf" ] && pcfarg=(--pcf "$pcf")
    cat > "$out/clocks.py" <<EOF
# written by synth/flow.sh: the fast clock, if the design has one, at 2 x $freq MHz
for name, net in ctx.nets:
    if name == "$FAST_CLK" or name.endswith(".$FAST_CLK"):
        ctx.addClock(name, $((2 * freq)))
EOF
    say "$(basename "$out"): nextpnr-ice40 $NP_DEV --package $PKG --freq $freq"
    run "$out/nextpnr.log" nextpnr-ice40 "$NP_DEV" --package "$PKG" --json "$out/ice40.json" \
        "${pcfarg[@]}" --asc "$out/spu.asc" --report "$out/nextpnr.json" --freq "$freq" \
        --pre-pack "$out/clocks.py" --seed "$SEED" --timing-allow-fail
    say "$(basename "$out"): icetime"
    # icetime's pcf reader takes only `set_io NAME PIN`: drop set_io options
    # (-nowarn, -pullup yes, ...) into a copy
    local itpcf=()
    if [ -n "$pcf" ]; then
        sed -E -e 's/#.*//' -e 's/ -(nowarn|pullup [a-z]+|pullup_resistor [0-9A-Za-z]+)//g' \
            -e '/^[[:space:]]*$/d' "$pcf" > "$out/icetime.pcf"
        itpcf=(-p "$out/icetime.pcf")
    fi
    # A unit whose every register-to-register path runs through SB_MAC16
    # blocks (a pipelined multiplier on the UP5K) has no path icetime can
    # time ("This design is empty"): the entry then has nextpnr's figure only.
    if ! icetime -d "$IT_DEV" -P "$PKG" "${itpcf[@]}" -i -t -j "$out/icetime.json" "$out/spu.asc" \
            >"$out/icetime.log" 2>&1; then
        if grep -q "contains no paths" "$out/icetime.log"; then
            rm -f "$out/icetime.json"
        else
            echo "FAIL: icetime failed (log: $out/icetime.log); last lines:" >&2
            tail -n 15 "$out/icetime.log" >&2
            exit 1
        fi
    fi
}

# flat_front TOP READ_SCRIPT: the Yosys steps both the DSP plan and the
# synthesis of a placed top start from (read, elaborate, flatten, narrow the
# multipliers to their operands' widths).
flat_front() {
    printf '%s\n' "verilog_defaults -add -I$BUILD/gen -Ihw/rtl" "$2" "hierarchy -top $1 $(libdirs)" \
        proc flatten opt_clean 'wreduce t:$mul'
}

# dsp_plan TOP DEVICE OUTDIR READ_SCRIPT [BUDGET]: OUTDIR/dsp_plan.ys, which
# keeps the design within the device's SB_MAC16 blocks (spu-ppa dsp-plan).
dsp_plan() {
    local top=$1 dev=$2 out=$3 read_script=$4 budget=${5:-8}
    if [ "$dev" != up5k ]; then
        echo "# $dev: no DSP blocks, every multiplier is LUTs" > "$out/dsp_plan.ys"
        return
    fi
    run "$out/dsp_plan.log" yosys -p "
        $(flat_front "$top" "$read_script")
        write_json $out/premap.json"
    "$SPU_PPA" dsp-plan "$out/premap.json" "$budget" > "$out/dsp_plan.ys" 2>>"$out/dsp_plan.log"
    rm -f "$out/premap.json"
}

# chparams TOP PARAM=VALUE... -> yosys chparam commands
chparams() {
    local top=$1 kv k v; shift
    for kv in "$@"; do
        [ "$kv" = - ] && continue
        k=${kv%%=*}; v=${kv#*=}
        [ -n "$v" ] || continue
        case $v in
            *[!0-9]*) printf 'chparam -set %s "%s" %s\n' "$k" "$v" "$top" ;;
            *)        printf 'chparam -set %s %s %s\n' "$k" "$v" "$top" ;;
        esac
    done
}

# place_top KIND NAME DEVICE TOP SRC PCF OUTDIR FREQ MACS [PARAM=VALUE ...]:
# a top with its own pins (a board top or a probe) through Yosys, nextpnr,
# icetime and icepack, then its entry (OUTDIR/entry.json) and the check;
# MACS 0: no MACs per cycle in the entry.
place_top() {
    local kind=$1 name=$2 dev=$3 top=$4 src=$5 pcf=$6 out=$7 freq=$8 macs=$9
    shift 9
    device_args "$dev"
    local read_top="read_verilog $src
        $(chparams "$top" "$@")"
    # no DSP blocks (HX8K): signed 8x8 multipliers as a carry-save array
    # (synth/ice40_mul8s_csa.v, ~20 SB_LUT4 fewer each than Yosys's mapping)
    local mul_map=
    [ "$dev" = hx8k ] && mul_map="techmap -map synth/ice40_mul8s_csa.v"
    # the commit the run is of ("+": RTL, flow or pins differ from it)
    local commit
    commit=$(git rev-parse --short HEAD 2>/dev/null || true)
    [ -n "$commit" ] && ! git diff --quiet HEAD -- hw synth constraints 2>/dev/null && commit="$commit+"
    mkdir -p "$out"
    say "$name ($dev): yosys synth_ice40 $DSP $*"
    dsp_plan "$top" "$dev" "$out" "$read_top"
    run "$out/yosys.log" yosys -p "
        $(flat_front "$top" "$read_top")
        $(cat "$out/dsp_plan.ys")
        $mul_map
        synth_ice40 -top $top $DSP $SYNTH_OPTS
        script synth/ice40_cells.ys
        write_json $out/ice40.json
        tee -q -o $out/stat.json stat -json"
    "$SPU_PPA" budget "$out/stat.json" "$dev"
    pnr "$dev" "$out" "$freq" "$pcf"
    say "$name: icepack"
    run "$out/icepack.log" icepack "$out/spu.asc" "$out/spu.bin"
    generic_pass "$top" "$out" "$read_top"
    local macs_args=()
    [ "$macs" -gt 0 ] && macs_args=(--macs "$macs")
    "$SPU_PPA" entry --name "$name" --kind "$kind" --device "$dev" --top "$top" --target-mhz "$freq" \
        "${macs_args[@]}" --seed "$SEED" --commit "$commit" --fast-clock "$FAST_CLK" \
        --stat "$out/stat.json" --nextpnr "$out/nextpnr.json" --icetime "$out/icetime.json" \
        --generic "$out/generic_stat.json" --netlist "$out/generic.json" -o "$out/entry.json"
    "$SPU_PPA" check "$out/entry.json"
}

mode=${1:-}
if [ "$mode" = entry ]; then
    [ $# -eq 4 ] || fail "usage: synth/flow.sh entry NAME DEVICE OUTDIR"
    e_name=$2 e_dev=$3 e_out=$4
    # the rows of make ppa: synth/ppa_table.tsv plus the generated array rows
    # (synth/ppa_rows.sh; make passes the table it wrote as PPA_TABLE)
    table=${PPA_TABLE:-$BUILD/ppa/table.tsv}
    [ -n "${PPA_TABLE:-}" ] || synth/ppa_rows.sh synth/ppa_table.tsv hw/isa/spu_cfg.def "$table"
    row=$(awk -v n="$e_name" -v d="$e_dev" '!/^#/ && $1 == n && $3 == d { $1 = $3 = ""; print; exit }' "$table")
    if [ -z "$row" ]; then
        # a numerics unit not (yet) in the table: default parameters
        [ -f "hw/rtl/numerics/$e_name.v" ] || fail "$e_name ($e_dev) is not in $table (synth/ppa_table.tsv or the generated array rows)"
        row="unit $e_name -"
    fi
    # shellcheck disable=SC2086
    set -- $row
    kind=$1 top=$2; shift 2
    case $kind in
        unit) set -- unit "$e_name" "$e_dev" "$e_out" "$top" "$@" ;;
        spu)  set -- board "$top" "$e_out" "$e_name" "$@" ;;
        *) fail "synth/ppa_table.tsv: $e_name: kind $kind is not unit|spu" ;;
    esac
    mode=$1
fi

case $mode in
unit)
    [ $# -ge 5 ] || fail "usage: synth/flow.sh unit NAME DEVICE OUTDIR TOP [PARAM=VALUE ...]"
    name=$2; dev=$3; out=$4; top=$5; shift 5
    src=${UNIT_SRC:-hw/rtl/numerics/$top.v}
    [ -f "$src" ] || fail "$src not found"
    read_unit="read_verilog $src
        $(chparams "$top" "$@")"
    device_args "$dev"
    mkdir -p "$out"
    say "$name ($dev): yosys synth_ice40 $DSP $*"
    run "$out/ports.log" yosys -p "
        verilog_defaults -add -I$BUILD/gen -Ihw/rtl
        $read_unit
        hierarchy -top $top $(libdirs)
        proc
        write_json $out/ports.json"
    io_bits=$("$SPU_PPA" harness "$out/ports.json" "$top" "$out/spu_ppa_harness.v")
    run "$out/yosys.log" yosys -p "
        verilog_defaults -add -I$BUILD/gen -Ihw/rtl
        $read_unit
        read_verilog $out/spu_ppa_harness.v
        hierarchy -top spu_ppa_harness $(libdirs)
        synth_ice40 -top spu_ppa_harness $DSP $SYNTH_OPTS
        script synth/ice40_cells.ys
        write_json $out/ice40.json
        tee -q -o $out/stat.json stat -json"
    # Yosys 0.23 synth_ice40 -dsp empties the harness of some pipelined
    # multipliers (docs/numerics-rtl.md): say so instead of timing nothing
    if grep -q '"num_cells": *0[,}]' "$out/stat.json"; then
        fail "synth_ice40 removed the whole design (0 cells; Yosys 0.23 -dsp with registered partial products)"
    fi
    "$SPU_PPA" budget "$out/stat.json" "$dev"
    pnr "$dev" "$out" 100
    generic_pass "$top" "$out" "$read_unit"
    # numerics units: STAGES=K pipeline registers (0 = combinational, the
    # default), latency K clocks (spu_acc_fx: its own register + K, + 1
    # output register with SPLIT=1)
    st=0; split=0
    for kv in "$@"; do case $kv in STAGES=?*) st=${kv#STAGES=} ;; SPLIT=?*) split=${kv#SPLIT=} ;; esac; done
    lat=$st; [ "$top" = spu_acc_fx ] && lat=$((st + 1 + split))
    stages_args=(--stages "$st" --latency "$lat")
    "$SPU_PPA" entry --name "$name" --kind unit --device "$dev" --top "$top" --io-bits "$io_bits" \
        "${stages_args[@]}" --stat "$out/stat.json" --nextpnr "$out/nextpnr.json" \
        $([ -f "$out/icetime.json" ] && echo --icetime "$out/icetime.json") \
        --generic "$out/generic_stat.json" --netlist "$out/generic.json" -o "$out/entry.json"
    ;;
board)
    [ $# -ge 4 ] || fail "usage: synth/flow.sh board BOARD OUTDIR ENTRY_NAME [PARAM=VALUE ...]"
    board=$2; out=$3; name=$4; shift 4
    case $board in
        icebreaker) dev=up5k ;;
        hx8k)       dev=hx8k ;;
        *) fail "BOARD=$board: expected icebreaker or hx8k" ;;
    esac
    top=spu_board_$board
    src=hw/rtl/board/$top.v
    pcf=constraints/$board.pcf
    [ -f "$src" ] || fail "$src not found"
    freq=
    # MACs per cycle = ROWS * COLS (the board top's defaults unless given)
    rows=$(sed -n 's/.*parameter integer ROWS *= *\([0-9]*\).*/\1/p' "$src" | head -n1)
    cols=$(sed -n 's/.*parameter integer COLS *= *\([0-9]*\).*/\1/p' "$src" | head -n1)
    for kv in "$@"; do
        case $kv in
            CLK_MHZ=?*) freq=${kv#CLK_MHZ=} ;;
            ROWS=?*) rows=${kv#ROWS=} ;;
            COLS=?*) cols=${kv#COLS=} ;;
        esac
    done
    [ -n "$freq" ] || fail "board flow needs CLK_MHZ=..."
    # the PLL settings exist for these only (spu_board_spu.v); another value
    # would build the 24 MHz PLL against a different timing target and baud
    case $freq in
        24|30|36|42|48) ;;
        *) fail "CLK_MHZ=$freq: the board PLL table has 24, 30, 36, 42 and 48 MHz (hw/rtl/board/spu_board_spu.v)" ;;
    esac
    # The second clock (docs/fpga.md "Two clocks"): SPAD_2X (the SPRAM
    # requests taken mid-cycle on the pad PLL's 2 x 24 MHz port) and
    # ARRAY_2X (the array on it, k-step pairs: twice the MACs per cycle).
    # The iCEBreaker's SPRAM build at 24 MHz has both by default
    # (spu_board_icebreaker); SPAD_2X=0 or ARRAY_2X=0 turn them off.
    spad_sram=1
    printf '%s\n' "$@" | grep -qx 'SPAD_SPRAM=0' && spad_sram=0
    spad2x=0 array2x=0
    [ "$board" = icebreaker ] && [ "$freq" = 24 ] && [ $spad_sram = 1 ] && spad2x=1 array2x=1
    for kv in "$@"; do
        case $kv in
            SPAD_2X=0) spad2x=0 array2x=0 ;;
            SPAD_2X=?*)
                [ "$board" = icebreaker ] && [ "$freq" = 24 ] && [ $spad_sram = 1 ] ||
                    fail "SPAD_2X=1 needs BOARD=icebreaker, CLK_MHZ=24 and the SPRAM scratchpad" ;;
            ARRAY_2X=0) array2x=0 ;;
            ARRAY_2X=?*)
                [ $spad2x = 1 ] || fail "ARRAY_2X=1 needs the second clock (SPAD_2X: BOARD=icebreaker, CLK_MHZ=24, the SPRAM scratchpad)"
                array2x=1 ;;
        esac
    done
    macs=$(( (1 + array2x) * rows * cols ))
    place_top spu "$name" "$dev" "$top" "$src" "$pcf" "$out" "$freq" "$macs" "$@"
    ;;
probe)
    [ $# -ge 4 ] || fail "usage: synth/flow.sh probe NAME DEVICE OUTDIR [CLK_MHZ=24]"
    name=$2; dev=$3; out=$4; shift 4
    src=synth/probes/$name.v
    pcf=synth/probes/$name.pcf
    [ -f "$src" ] || fail "$src not found (the probes are synth/probes/*.v)"
    [ -f "$pcf" ] || fail "$pcf not found"
    freq=24
    for kv in "$@"; do
        case $kv in
            CLK_MHZ=?*) freq=${kv#CLK_MHZ=} ;;
            *) fail "probe: unknown setting $kv (only CLK_MHZ=...)" ;;
        esac
        case $freq in
            *[!0-9]*|0*) fail "probe: CLK_MHZ=$freq is not a whole number of MHz" ;;
        esac
    done
    place_top probe "$name" "$dev" "$name" "$src" "$pcf" "$out" "$freq" 0
    ;;
*)
    fail "usage: synth/flow.sh entry NAME DEVICE OUTDIR | unit NAME DEVICE OUTDIR TOP [P=V ...] | board BOARD OUTDIR NAME [P=V ...] | probe NAME DEVICE OUTDIR [CLK_MHZ=F]"
    ;;
esac
