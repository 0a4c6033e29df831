#!/bin/bash
# sim_variant.sh NAME "VERILATOR OPTIONS" "MAKE OPTIONS" [HARNESS CXXFLAGS] [LDFLAGS]
#
# Builds the 8x8 spu-sim with changed Verilator / compiler options into
# build/sim-variants/NAME/spu-sim, for speed experiments (docs/sim.md "Speed
# of the 8x8 sim"): the Verilator and make lines of hw/build.mk with the
# options given instead of SIM_VL_FAST and SIM_OPT, and hw/build.mk's
# SIM_TOP_VFLAGS (the core clock gate and the array's step blocks) as it
# builds them (SPU_SIM_CORE_CLOCK=always in spu-sim's environment clocks the
# core every cycle instead). Run from the repository root after `make`.
# Measure with
#   SPU_SIM=build/sim-variants/NAME/spu-sim SPU_SIM_STDERR=1 \
#     build/bin/spu gemm --device sim --m 128 --n 128 --k 512
# Example (the build as it is, then int8 only):
#   hw/sim/sim_variant.sh base "--x-assign fast --x-initial fast -O3" \
#     "OPT_FAST=-O3 OPT_SLOW=-O1 OPT_GLOBAL=-O2 CXX=clang++"
#   hw/sim/sim_variant.sh int8only "--x-assign fast --x-initial fast -O3 -GFORMATS=1" \
#     "OPT_FAST=-O3 OPT_SLOW=-O1 OPT_GLOBAL=-O2 CXX=clang++"
# MAKE OPTIONS are word-split by the shell (quote a value with spaces:
# "'OPT_FAST=-O3 -fprofile-instr-use=F' CXX=clang++").
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,18p' "$0"; exit 2; }
NAME=$1 VF=$2 MO=$3 HF=${4:--O3} LF=${5:-}
D=build/sim-variants/$NAME
VERILATOR=${VERILATOR:-verilator}
VL_INC=$($VERILATOR --getenv VERILATOR_ROOT)/include
CXXH=${CXXH:-$(command -v clang++ || echo g++)}
rm -rf "$D"; mkdir -p "$D"
# the geometry of hw/build.mk's SIM_GEOM (the 8x8 sim)
nice -n 5 $VERILATOR --cc $VF +define+SPU_CORE_CLOCK_GATE +define+SPU_SIM_STEP_BLOCKS --unroll-stmts 200000 --build-jobs 1 -Wno-lint -Wno-style -Ibuild/gen \
  -y hw/rtl -y hw/rtl/link -y hw/rtl/core -y hw/rtl/numerics --top-module spu_top \
  -GCLKS_PER_BIT=4 -GCLOCK_HZ=12000000 -GROWS=8 -GCOLS=8 -GSPAD_BYTES=262144 -GSPAD_BANKS=4 \
  -GUCODE_WORDS=1024 -GDRAIN_LANES=8 -GLINK='"sim"' --Mdir "$D" hw/rtl/spu_top.v > "$D/verilator.log" 2>&1
eval nice -n 5 make -j1 -C "$D" -f Vspu_top.mk $MO Vspu_top__ALL.a verilated.o verilated_threads.o > "$D/make.log" 2>&1
for f in hw/sim/*.cpp; do
  nice -n 5 $CXXH -std=c++17 -Wall -I"$VL_INC" -I"$VL_INC/vltstd" -faligned-new -DVM_COVERAGE=0 -DVM_SC=0 \
    -DVM_TRACE=0 -DVM_TRACE_FST=0 -DVM_TRACE_VCD=0 $HF -I"$D" -Ihw/sim -DSPU_SIM_ROWS=8 -DSPU_SIM_COLS=8 \
    -DSPU_SIM_LANES=8 -DSPU_SIM_CLKS_PER_BIT=4 -DSPU_SIM_CLOCK_HZ=12000000 -c -o "$D/$(basename "$f" .cpp).o" "$f"
done
$CXXH -o "$D/spu-sim" "$D"/spu_sim.o "$D"/spu_fault.o "$D/Vspu_top__ALL.a" "$D/verilated.o" \
  "$D/verilated_threads.o" $LF -latomic -pthread
echo "$D/spu-sim"
