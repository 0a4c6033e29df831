# synth/sweep/build.mk -- design-space sweeps (docs/sim.md "Design-space sweeps").
#
#   make dse [-j2] [RUNNER=make|slurm] [DSE_SHAPES="2x2 4x4" DSE_SEEDS="1 2" ...]
#       synthesis (synth/flow.sh) + a GEMM bench per configuration, into
#       build/dse/table.{tsv,csv,json} (synth/sweep/dse.sh lists the knobs)
#   make test-slurm
#       starts a single-node Slurm (munge, slurmctld, slurmd), runs a small
#       sweep as a job array, checks the table, stops everything
#   make sim-config CFG_DIR=DIR [CFG_ROWS=4 CFG_COLS=4 CFG_BANKS=2 ...]
#       DIR/spu-sim-cfg: spu_board_spu Verilated with those parameters behind
#       the spu-sim harness (the DSE's bench=rtl; SPU_SIM=DIR/spu-sim-cfg)
DEBS += slurmctld slurmd slurm-client munge

DSE_DIR ?= $(BUILD)/dse
.PHONY: dse test-slurm sim-config
dse: $(SPU_BIN) $(SPU_PPA_BIN)
	+RUNNER=$(or $(RUNNER),make) synth/sweep/dse.sh $(DSE_DIR)

test-slurm: $(SPU_BIN)
	@tests/slurm/run_slurm_test.sh

CFG_DIR     ?= $(BUILD)/sim/cfg
CFG_ROWS    ?= 4
CFG_COLS    ?= 4
CFG_BANKS   ?= 2
CFG_SPAD    ?= 8192
CFG_UCODE   ?= 256
CFG_CLK_MHZ ?= 24
CFG_BAUD    ?= 3000000
CFG_FORMATS ?= 1
sim-config: $(BUILD)/gen/spu_isa.vh
	@mkdir -p $(CFG_DIR)
	$(VERILATOR) --cc $(SIM_VL_FAST) --build-jobs 1 -Wno-lint -Wno-style $(HW_VFLAGS) -y hw/rtl/board \
	  --top-module spu_board_spu --prefix Vboard -GROWS=$(CFG_ROWS) -GCOLS=$(CFG_COLS) \
	  -GCLK_MHZ=$(CFG_CLK_MHZ) -GBAUD=$(CFG_BAUD) -GSPAD_BYTES=$(CFG_SPAD) -GSPAD_BANKS=$(CFG_BANKS) \
	  -GUCODE_WORDS=$(CFG_UCODE) -GFORMATS=$(CFG_FORMATS) --Mdir $(CFG_DIR) hw/rtl/board/spu_board_spu.v
	$(MAKE) -j1 -C $(CFG_DIR) -f Vboard.mk $(SIM_OPT) Vboard__ALL.a $(VL_RUNTIME_NT)
	$(CXX) $(VL_CXXFLAGS_NT) -I$(CFG_DIR) -Ihw/sim -DSPU_SIM_BOARD=\"cfg\" -DSPU_SIM_ROWS=$(CFG_ROWS) \
	  -DSPU_SIM_COLS=$(CFG_COLS) -DSPU_SIM_LANES=1 \
	  -DSPU_SIM_CLKS_PER_BIT=$$(( $(CFG_CLK_MHZ) * 1000000 / $(CFG_BAUD) )) \
	  -DSPU_SIM_CLOCK_HZ=$(CFG_CLK_MHZ)000000 -c -o $(CFG_DIR)/spu_sim.o hw/sim/spu_sim.cpp
	$(CXX) -o $(CFG_DIR)/spu-sim-cfg $(CFG_DIR)/spu_sim.o $(CFG_DIR)/Vboard__ALL.a \
	  $(addprefix $(CFG_DIR)/,$(VL_RUNTIME_NT)) -latomic -pthread
