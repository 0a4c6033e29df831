# hw/build.mk -- the Verilated board (build/bin/spu-sim), the RTL link tests
# (build/tests/spu_rtl_link_tests) and `make lint`.
#
# One Verilated model of spu_top (LINK "sim": byte port and UART, selected at
# run time) is built once under build/sim/top/ and linked into both spu-sim
# and the RTL tests; a small test bench of the link units (spu_link_tb) is
# built under build/sim/tb/. Verilator runs single-job (shared machine).

VERILATOR      ?= verilator
YOSYS          ?= yosys
HW_RTL_DIRS    := hw/rtl hw/rtl/link hw/rtl/core hw/rtl/numerics
HW_RTL_SRCS    := $(sort $(wildcard $(addsuffix /*.v,$(HW_RTL_DIRS))))
HW_VLT         := hw/lint/spu.vlt
HW_VFLAGS      := -I$(BUILD)/gen $(addprefix -y ,$(HW_RTL_DIRS)) -Wno-fatal
# Default geometry of the simulated board (docs/isa.md)
SIM_ROWS       ?= 8
SIM_COLS       ?= 8
SIM_SPAD       ?= 262144
SIM_BANKS      ?= 4
SIM_UCODE      ?= 1024
SIM_LANES      ?= $(SIM_COLS)
SIM_CLKS_PER_BIT ?= 4
SIM_CLOCK_HZ   ?= 12000000
SIM_GEOM       := -GCLKS_PER_BIT=$(SIM_CLKS_PER_BIT) -GCLOCK_HZ=$(SIM_CLOCK_HZ) -GROWS=$(SIM_ROWS) -GCOLS=$(SIM_COLS) -GSPAD_BYTES=$(SIM_SPAD) \
                  -GSPAD_BANKS=$(SIM_BANKS) -GUCODE_WORDS=$(SIM_UCODE) -GDRAIN_LANES=$(SIM_LANES)
# spu-sim speed is a reported figure (docs/sim.md "Speed"): no tracing in
# the models that run (a traced twin, spu-sim-trace, is built on demand),
# X values resolved at compile time (--x-assign/--x-initial fast: every flop
# of the design is reset synchronously, so no value depends on them; the
# sim and rtl_link suites check this), Verilator -O3, the model at -O3.
# The models are compiled with clang++ when it is installed (it is in DEBS):
# 10-20 % more cycles/s than g++ 12 on this design (docs/sim.md "Speed").
SIM_VL_FAST    := --x-assign fast --x-initial fast -O3
# The 8x8 sim's model only: the core clock gate and the array's step blocks
# (docs/rtl.md "Core clock gate in simulation", "The step blocks in
# simulation"); the RTL tests and the boards build without. --unroll-stmts:
# Verilator unrolls the e4m3 / e5m2 step block's loop over the 64 tiles
# (rolled, its variable part-selects cost more than the code it saves).
SIM_TOP_VFLAGS := +define+SPU_CORE_CLOCK_GATE +define+SPU_SIM_STEP_BLOCKS --unroll-stmts 200000
SIM_CXX        ?= $(if $(shell command -v clang++ 2>/dev/null),clang++,$(CXX))
SIM_OPT        := OPT_FAST=-O3 OPT_SLOW=-O1 OPT_GLOBAL=-O2 CXX=$(SIM_CXX)
# Evaluated when the Makefile is read, possibly before `make deps` installed
# Verilator: fall back to where Debian puts it.
VL_INC         := $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null || echo /usr/share/verilator)/include
VL_CXXFLAGS    := -std=c++17 -O2 -g -Wall -I$(VL_INC) -I$(VL_INC)/vltstd -faligned-new \
                  -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0
VL_RUNTIME     := verilated.o verilated_fst_c.o verilated_threads.o
# models built without tracing (spu-sim, the board simulators, the RTL link tests)
VL_CXXFLAGS_NT := $(filter-out -DVM_TRACE%,$(VL_CXXFLAGS)) -DVM_TRACE=0 -DVM_TRACE_FST=0 -DVM_TRACE_VCD=0
VL_RUNTIME_NT  := verilated.o verilated_threads.o

SIM_TOP_DIR    := $(BUILD)/sim/top
SIM_TOP_LIB    := $(SIM_TOP_DIR)/Vspu_top__ALL.a
SIM_TOP_RT     := $(addprefix $(SIM_TOP_DIR)/,$(VL_RUNTIME_NT))
SIM_TB_DIR     := $(BUILD)/sim/tb
SIM_TB_LIB     := $(SIM_TB_DIR)/Vspu_link_tb__ALL.a
SPU_SIM        := $(BUILD)/bin/spu-sim

all: $(SPU_SIM)

# --- the model of spu_top -----------------------------------------------------
$(SIM_TOP_LIB): $(HW_RTL_SRCS) $(BUILD)/gen/spu_isa.vh hw/build.mk
	@mkdir -p $(SIM_TOP_DIR)
	$(VERILATOR) --cc $(SIM_VL_FAST) $(SIM_TOP_VFLAGS) --build-jobs 1 -Wno-lint -Wno-style $(HW_VFLAGS) \
	  --top-module spu_top $(SIM_GEOM) -GLINK='"sim"' --Mdir $(SIM_TOP_DIR) hw/rtl/spu_top.v
	$(MAKE) -j1 -C $(SIM_TOP_DIR) -f Vspu_top.mk $(SIM_OPT) Vspu_top__ALL.a $(VL_RUNTIME_NT)

$(SIM_TOP_RT): $(SIM_TOP_LIB)

$(BUILD)/obj/hw/sim/%.o: hw/sim/%.cpp $(SIM_TOP_LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(VL_CXXFLAGS_NT) -I$(SIM_TOP_DIR) -Ihw/sim $(SIM_DEFS) -MMD -MP -c -o $@ $<

SIM_DEFS := -DSPU_SIM_ROWS=$(SIM_ROWS) -DSPU_SIM_COLS=$(SIM_COLS) -DSPU_SIM_LANES=$(SIM_LANES) \
            -DSPU_SIM_CLKS_PER_BIT=$(SIM_CLKS_PER_BIT) -DSPU_SIM_CLOCK_HZ=$(SIM_CLOCK_HZ)
SPU_SIM_OBJS := $(patsubst hw/sim/%.cpp,$(BUILD)/obj/hw/sim/%.o,$(wildcard hw/sim/*.cpp))
$(SPU_SIM): $(SPU_SIM_OBJS) $(SIM_TOP_LIB) $(SIM_TOP_RT)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $(SPU_SIM_OBJS) $(SIM_TOP_LIB) $(SIM_TOP_RT) -latomic -pthread

# --- spu-sim-trace: the same 8x8 with FST tracing (sim?trace=F.fst) -------------
# Built on demand (`make sim-trace`): tracing support slows the model even
# when no trace is written.
SIM_TRC_DIR := $(BUILD)/sim/top-trace
SPU_SIM_TRACE := $(BUILD)/bin/spu-sim-trace
$(SIM_TRC_DIR)/Vspu_top__ALL.a: $(HW_RTL_SRCS) $(BUILD)/gen/spu_isa.vh hw/build.mk
	@mkdir -p $(SIM_TRC_DIR)
	$(VERILATOR) --cc --trace-fst --build-jobs 1 -Wno-lint -Wno-style $(HW_VFLAGS) \
	  --top-module spu_top $(SIM_GEOM) -GLINK='"sim"' --Mdir $(SIM_TRC_DIR) hw/rtl/spu_top.v
	$(MAKE) -j1 -C $(SIM_TRC_DIR) -f Vspu_top.mk $(SIM_OPT) Vspu_top__ALL.a $(VL_RUNTIME)
$(BUILD)/obj/hw/sim-trace/%.o: hw/sim/%.cpp $(SIM_TRC_DIR)/Vspu_top__ALL.a
	@mkdir -p $(dir $@)
	$(CXX) $(VL_CXXFLAGS) -I$(SIM_TRC_DIR) -Ihw/sim $(SIM_DEFS) -MMD -MP -c -o $@ $<
$(SPU_SIM_TRACE): $(patsubst hw/sim/%.cpp,$(BUILD)/obj/hw/sim-trace/%.o,$(wildcard hw/sim/*.cpp)) $(SIM_TRC_DIR)/Vspu_top__ALL.a
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $^ $(addprefix $(SIM_TRC_DIR)/,$(VL_RUNTIME)) -lz -latomic -pthread
.PHONY: sim-trace
sim-trace: $(SPU_SIM_TRACE)

-include $(wildcard $(BUILD)/obj/hw/sim/*.d)

# --- make sim-speed: the 8x8 sim's speed beside a bare array's -----------------
# The reference (hw/sim/bench/array_speed.cpp): spu_array alone, 8x8 int8,
# Verilated and compiled like spu-sim, clocked with a random k-step every
# cycle; then spu-sim's own figure on the measurement GEMM of docs/sim.md
# "Speed of the 8x8 sim", three times. Machines differ by half and more, so
# a figure of spu-sim means something only beside this one.
ARRAY_SPEED_DIR := $(BUILD)/sim/array8
ARRAY_SPEED     := $(BUILD)/bin/spu-array-speed
$(ARRAY_SPEED_DIR)/Vspu_array__ALL.a: $(HW_RTL_SRCS) $(BUILD)/gen/spu_isa.vh hw/build.mk
	@mkdir -p $(ARRAY_SPEED_DIR)
	$(VERILATOR) --cc $(SIM_VL_FAST) --build-jobs 1 -Wno-lint -Wno-style $(HW_VFLAGS) \
	  --top-module spu_array -GROWS=8 -GCOLS=8 -GFORMATS=1 --Mdir $(ARRAY_SPEED_DIR) hw/rtl/core/spu_array.v
	$(MAKE) -j1 -C $(ARRAY_SPEED_DIR) -f Vspu_array.mk $(SIM_OPT) Vspu_array__ALL.a $(VL_RUNTIME_NT)
$(ARRAY_SPEED): hw/sim/bench/array_speed.cpp $(ARRAY_SPEED_DIR)/Vspu_array__ALL.a
	@mkdir -p $(dir $@)
	$(SIM_CXX) $(filter-out -O2 -g,$(VL_CXXFLAGS_NT)) -O3 -I$(ARRAY_SPEED_DIR) -o $@ $< \
	  $(ARRAY_SPEED_DIR)/Vspu_array__ALL.a $(addprefix $(ARRAY_SPEED_DIR)/,$(VL_RUNTIME_NT)) -latomic -pthread
.PHONY: sim-speed
sim-speed: $(ARRAY_SPEED) $(SPU_SIM) $(SPU_BIN)
	$(ARRAY_SPEED)
	for i in 1 2 3; do SPU_SIM_STDERR=1 $(SPU_BIN) gemm --device sim --m 128 --n 128 --k 512 2>&1 | grep 'per CPU second'; done

# --- board-shaped simulators: build/bin/spu-sim-BOARD -------------------------------
# spu_board_spu (what every iCE40 board top wraps: PLL pass-through in
# simulation, the board reset, spu_top with LINK "uart") Verilated with one
# board's parameters, behind the same pty harness (-DSPU_SIM_BOARD). The
# parameters are the board tops' defaults (hw/rtl/board/spu_board_BOARD.v,
# docs/fpga.md); the harness gets the same numbers. docs/sim.md.
SIM_BOARDS           := icebreaker hx8k icebreaker-ebr
# scratchpad: the iCEBreaker's default is its four SPRAM blocks (128 KiB in
# single-port banks; docs/rtl.md "Scratchpad in SPRAM"), with the top's
# LOOP_DEPTH=2 and UCODE_TWIN=1 (the microcode store twice) that go with it;
# icebreaker-ebr is its SPAD_SPRAM=0 build (8 KiB of EBR, four loops), and
# the HX8K has 8 KiB of EBR, two loops and overlapped issue (OVL). The iCEBreaker's default has the
# second clock (SPAD_2X, ARRAY_2X: k-step pairs), which the simulator drives
# (spu_board_spu's clk2x_sim_i)
SIMB_icebreaker_DSP   := 1
SIMB_icebreaker_PAD   := 1
SIMB_icebreaker_SPAD  := 131072
SIMB_icebreaker_SPRAM := 1
SIMB_icebreaker_LOOPS := 2
SIMB_icebreaker_TWIN  := 1
SIMB_icebreaker_CLK   := 24
SIMB_icebreaker_2X    := 1
SIMB_icebreaker_OVL   := 0
SIMB_icebreaker-ebr_DSP   := 1
SIMB_icebreaker-ebr_PAD   := 1
SIMB_icebreaker-ebr_SPAD  := 8192
SIMB_icebreaker-ebr_SPRAM := 0
SIMB_icebreaker-ebr_LOOPS := 4
SIMB_icebreaker-ebr_TWIN  := 0
SIMB_icebreaker-ebr_CLK   := 24
SIMB_icebreaker-ebr_2X    := 0
SIMB_icebreaker-ebr_OVL   := 0
SIMB_hx8k_DSP        := 0
SIMB_hx8k_PAD        := 0
SIMB_hx8k_SPAD       := 8192
SIMB_hx8k_SPRAM      := 0
SIMB_hx8k_LOOPS      := 2
SIMB_hx8k_TWIN       := 0
SIMB_hx8k_CLK        := 48
SIMB_hx8k_2X         := 0
SIMB_hx8k_OVL        := 1
SIMB_ROWS    ?= 4
SIMB_COLS    ?= 4
SIMB_BAUD    ?= 12000000
SIMB_BANKS   ?= 2
SIMB_UCODE   ?= 256
# clocks per bit at the board's clock (SIMB_<board>_CLK): 2 at 24 MHz, 4 at 48
SIMB_CPB      = $(shell echo $$(( $(SIMB_$(1)_CLK) * 1000000 / $(SIMB_BAUD) )))
SIMB_GEOM     = -GROWS=$(SIMB_ROWS) -GCOLS=$(SIMB_COLS) -GCLK_MHZ=$(SIMB_$(1)_CLK) -GBAUD=$(SIMB_BAUD) \
                -GSPAD_BYTES=$(SIMB_$(1)_SPAD) -GSPAD_BANKS=$(SIMB_BANKS) -GUCODE_WORDS=$(SIMB_UCODE) \
                -GUSE_ICE40_DSP=$(SIMB_$(1)_DSP) -GPLL_USE_PAD=$(SIMB_$(1)_PAD) -GSPAD_SPRAM=$(SIMB_$(1)_SPRAM) \
                -GLOOP_DEPTH=$(SIMB_$(1)_LOOPS) -GUCODE_TWIN=$(SIMB_$(1)_TWIN) \
                -GSPAD_2X=$(SIMB_$(1)_2X) -GARRAY_2X=$(SIMB_$(1)_2X) -GOVERLAP=$(SIMB_$(1)_OVL)
SIMB_DEFS     = -DSPU_SIM_BOARD=\"$(1)\" -DSPU_SIM_ROWS=$(SIMB_ROWS) -DSPU_SIM_COLS=$(SIMB_COLS) \
                -DSPU_SIM_LANES=1 -DSPU_SIM_CLKS_PER_BIT=$(call SIMB_CPB,$(1)) -DSPU_SIM_CLOCK_HZ=$(SIMB_$(1)_CLK)000000 \
                -DSPU_SIM_CLK2X=$(SIMB_$(1)_2X)

define sim_board_rule
$(BUILD)/sim/$(1)/Vboard__ALL.a: $(HW_RTL_SRCS) $(wildcard hw/rtl/board/*.v) $(BUILD)/gen/spu_isa.vh hw/build.mk
	@mkdir -p $(BUILD)/sim/$(1)
	$(VERILATOR) --cc $(SIM_VL_FAST) --build-jobs 1 -Wno-lint -Wno-style $(HW_VFLAGS) -y hw/rtl/board \
	  --top-module spu_board_spu --prefix Vboard $(call SIMB_GEOM,$(1)) --Mdir $(BUILD)/sim/$(1) \
	  hw/rtl/board/spu_board_spu.v
	$(MAKE) -j1 -C $(BUILD)/sim/$(1) -f Vboard.mk $(SIM_OPT) Vboard__ALL.a $(VL_RUNTIME_NT)
$(BUILD)/obj/hw/sim/$(1)/%.o: hw/sim/%.cpp $(BUILD)/sim/$(1)/Vboard__ALL.a
	@mkdir -p $$(dir $$@)
	$(CXX) $(VL_CXXFLAGS_NT) -I$(BUILD)/sim/$(1) -Ihw/sim $(call SIMB_DEFS,$(1)) -MMD -MP -c -o $$@ $$<
$(BUILD)/bin/spu-sim-$(1): $(patsubst hw/sim/%.cpp,$(BUILD)/obj/hw/sim/$(1)/%.o,$(wildcard hw/sim/*.cpp)) $(BUILD)/sim/$(1)/Vboard__ALL.a
	@mkdir -p $$(dir $$@)
	$(CXX) -o $$@ $$^ $(addprefix $(BUILD)/sim/$(1)/,$(VL_RUNTIME_NT)) -latomic -pthread
all: $(BUILD)/bin/spu-sim-$(1)
SPU_SIM_BOARD_BINS += $(BUILD)/bin/spu-sim-$(1)
-include $(wildcard $(BUILD)/obj/hw/sim/$(1)/*.d)
endef
$(foreach b,$(SIM_BOARDS),$(eval $(call sim_board_rule,$(b))))

# --- RTL link tests -------------------------------------------------------------
$(SIM_TB_LIB): tests/rtl_link/spu_link_tb.v $(HW_RTL_SRCS) $(BUILD)/gen/spu_isa.vh hw/build.mk
	@mkdir -p $(SIM_TB_DIR)
	$(VERILATOR) --cc $(SIM_VL_FAST) --build-jobs 1 -Wno-lint -Wno-style $(HW_VFLAGS) \
	  --top-module spu_link_tb --Mdir $(SIM_TB_DIR) tests/rtl_link/spu_link_tb.v
	$(MAKE) -j1 -C $(SIM_TB_DIR) -f Vspu_link_tb.mk $(SIM_OPT) Vspu_link_tb__ALL.a

RTL_LINK_OBJS := $(patsubst tests/%.cc,$(BUILD)/obj/tests/%.o,$(wildcard tests/rtl_link/*.cc))
$(RTL_LINK_OBJS): $(BUILD)/obj/tests/rtl_link/%.o: tests/rtl_link/%.cc $(SIM_TOP_LIB) $(SIM_TB_LIB) $(GEN_HEADERS) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(VL_CXXFLAGS_NT) $(INCLUDES) -I$(SIM_TOP_DIR) -I$(SIM_TB_DIR) -Ihw/sim $(SIM_DEFS) \
	  -DSPU_SOURCE_DIR=\"$(CURDIR)\" -DSPU_BUILD_DIR=\"$(abspath $(BUILD))\" -MMD -MP -c -o $@ $<

ifneq ($(RTL_LINK_OBJS),)
$(BUILD)/tests/spu_rtl_link_tests: $(RTL_LINK_OBJS) $(SIM_TOP_LIB) $(SIM_TB_LIB) $(SIM_TOP_RT) $(LIBSPU_A)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $(RTL_LINK_OBJS) $(SIM_TOP_LIB) $(SIM_TB_LIB) $(SIM_TOP_RT) $(LIBSPU_A) \
	  $(GTEST_LIBS) $(LIBSPU_LIBS) -lz -latomic -pthread
TEST_BINS += $(BUILD)/tests/spu_rtl_link_tests
endif

# --- lint -------------------------------------------------------------------------
# Verilator -Wall on spu_top for every LINK (and LINK "sim" with the
# simulation's core clock gate) and on every other RTL file as its own top;
# Yosys: no latch after proc, and check -assert (multiple drivers, undriven,
# loops) after synth, on a 2x2 array with a small scratchpad in two
# configurations: every feature on (the sim's FORMATS, the vector unit) on the
# systolic array (BROADCAST 0; the sim builds buses) and the boards' switches
# (BROADCAST, counters in RAM, 32-bit counters, one drain lane, int8 only, no
# vector unit). The array's code is the same for any
# ROWS x COLS, and the full 8x8 float array took Yosys 25-55 min. Any warning
# fails.
HW_LINT_YOSYS_CFGS := \
  "-set ROWS 2 -set COLS 2 -set DRAIN_LANES 2 -set SPAD_BYTES 4096 -set LINK \"uart\" -set BROADCAST 0" \
  "-set ROWS 2 -set COLS 2 -set DRAIN_LANES 1 -set SPAD_BYTES 4096 -set SPAD_BANKS 2 -set LINK \"uart\" -set BROADCAST 1 -set CNT_RAM 1 -set CNT_WIDTH 32 -set FORMATS 1 -set VECTOR 0"
# (spu_sb_mac16.v is a Yosys-only black box, empty to Verilator)
HW_LINT_TOPS := $(filter-out hw/rtl/spu_top.v hw/rtl/core/spu_core.v hw/rtl/core/spu_sb_mac16.v,$(HW_RTL_SRCS)) \
                $(sort $(wildcard hw/rtl/board/*.v))
lint: $(BUILD)/gen/spu_isa.vh
	@set -e; fail=0; \
	for link in byte uart sim; do \
	  echo "lint: verilator spu_top LINK=$$link"; \
	  $(VERILATOR) -Wall --lint-only $(HW_VLT) -I$(BUILD)/gen $(addprefix -y ,$(HW_RTL_DIRS)) \
	    --top-module spu_top -GLINK="\"$$link\"" hw/rtl/spu_top.v || fail=1; \
	done; \
	echo "lint: verilator spu_top LINK=sim with $(SIM_TOP_VFLAGS) (the 8x8 sim's model)"; \
	$(VERILATOR) -Wall --lint-only $(HW_VLT) -I$(BUILD)/gen $(addprefix -y ,$(HW_RTL_DIRS)) $(SIM_TOP_VFLAGS) \
	  --top-module spu_top -GLINK='"sim"' hw/rtl/spu_top.v || fail=1; \
	for f in $(HW_LINT_TOPS); do \
	  echo "lint: verilator $$f"; \
	  $(VERILATOR) -Wall --lint-only $(HW_VLT) -I$(BUILD)/gen $(addprefix -y ,$(HW_RTL_DIRS) hw/rtl/board) \
	    --top-module $$(basename $$f .v) $$f || fail=1; \
	done; \
	for cfg in $(HW_LINT_YOSYS_CFGS); do \
	  echo "lint: yosys spu_top ($$cfg): latches, drivers"; \
	  $(YOSYS) -q -l $(BUILD)/lint_yosys.log -p "read_verilog -I$(BUILD)/gen $(filter-out hw/rtl/board/%,$(HW_RTL_SRCS)); \
	    chparam $$cfg spu_top; hierarchy -check -top spu_top; \
	    proc; select -assert-none t:\$$dlatch t:\$$adlatch t:\$$dlatchsr; \
	    synth -top spu_top; check -assert" || fail=1; \
	  if grep -qi "warning" $(BUILD)/lint_yosys.log; then grep -i warning $(BUILD)/lint_yosys.log; fail=1; fi; \
	done; \
	if [ $$fail -ne 0 ]; then echo "lint: FAILED"; exit 1; fi; echo "lint: clean"

# the sim suite also drives the board simulators (tests/sim/test_sim_board.cc)
$(BUILD)/tests/spu_sim_tests: $(SPU_SIM_BOARD_BINS)
