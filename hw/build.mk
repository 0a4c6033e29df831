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
HW_VFLAGS      := -Ibuild/gen $(addprefix -y ,$(HW_RTL_DIRS)) -Wno-fatal
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
# spu-sim speed is a reported figure: model at -O2, runtime at -O2
SIM_OPT        := OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2
# Evaluated when the Makefile is read, possibly before `make deps` installed
# Verilator: fall back to where Debian puts it.
VL_INC         := $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null || echo /usr/share/verilator)/include
VL_CXXFLAGS    := -std=c++17 -O2 -g -Wall -I$(VL_INC) -I$(VL_INC)/vltstd -faligned-new \
                  -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0
VL_RUNTIME     := verilated.o verilated_fst_c.o verilated_threads.o

SIM_TOP_DIR    := $(BUILD)/sim/top
SIM_TOP_LIB    := $(SIM_TOP_DIR)/Vspu_top__ALL.a
SIM_TOP_RT     := $(addprefix $(SIM_TOP_DIR)/,$(VL_RUNTIME))
SIM_TB_DIR     := $(BUILD)/sim/tb
SIM_TB_LIB     := $(SIM_TB_DIR)/Vspu_link_tb__ALL.a
SPU_SIM        := $(BUILD)/bin/spu-sim

all: $(SPU_SIM)

# --- the model of spu_top -----------------------------------------------------
$(SIM_TOP_LIB): $(HW_RTL_SRCS) $(BUILD)/gen/spu_isa.vh hw/build.mk
	@mkdir -p $(SIM_TOP_DIR)
	$(VERILATOR) --cc --trace-fst --build-jobs 1 -Wno-lint -Wno-style $(HW_VFLAGS) \
	  --top-module spu_top $(SIM_GEOM) -GLINK='"sim"' --Mdir $(SIM_TOP_DIR) hw/rtl/spu_top.v
	$(MAKE) -j1 -C $(SIM_TOP_DIR) -f Vspu_top.mk $(SIM_OPT) Vspu_top__ALL.a $(VL_RUNTIME)

$(SIM_TOP_RT): $(SIM_TOP_LIB)

$(BUILD)/obj/hw/sim/%.o: hw/sim/%.cpp $(SIM_TOP_LIB)
	@mkdir -p $(dir $@)
	$(CXX) $(VL_CXXFLAGS) -I$(SIM_TOP_DIR) -Ihw/sim $(SIM_DEFS) -MMD -MP -c -o $@ $<

SIM_DEFS := -DSPU_SIM_ROWS=$(SIM_ROWS) -DSPU_SIM_COLS=$(SIM_COLS) -DSPU_SIM_LANES=$(SIM_LANES) -DSPU_SIM_CLKS_PER_BIT=$(SIM_CLKS_PER_BIT)
SPU_SIM_OBJS := $(patsubst hw/sim/%.cpp,$(BUILD)/obj/hw/sim/%.o,$(wildcard hw/sim/*.cpp))
$(SPU_SIM): $(SPU_SIM_OBJS) $(SIM_TOP_LIB) $(SIM_TOP_RT)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $(SPU_SIM_OBJS) $(SIM_TOP_LIB) $(SIM_TOP_RT) -lz -pthread

-include $(wildcard $(BUILD)/obj/hw/sim/*.d)

# --- RTL link tests -------------------------------------------------------------
$(SIM_TB_LIB): tests/rtl_link/spu_link_tb.v $(HW_RTL_SRCS) $(BUILD)/gen/spu_isa.vh hw/build.mk
	@mkdir -p $(SIM_TB_DIR)
	$(VERILATOR) --cc --trace-fst --build-jobs 1 -Wno-lint -Wno-style $(HW_VFLAGS) \
	  --top-module spu_link_tb --Mdir $(SIM_TB_DIR) tests/rtl_link/spu_link_tb.v
	$(MAKE) -j1 -C $(SIM_TB_DIR) -f Vspu_link_tb.mk $(SIM_OPT) Vspu_link_tb__ALL.a

RTL_LINK_OBJS := $(patsubst tests/%.cc,$(BUILD)/obj/tests/%.o,$(wildcard tests/rtl_link/*.cc))
$(RTL_LINK_OBJS): $(BUILD)/obj/tests/rtl_link/%.o: tests/rtl_link/%.cc $(SIM_TOP_LIB) $(SIM_TB_LIB) $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(VL_CXXFLAGS) $(INCLUDES) -I$(SIM_TOP_DIR) -I$(SIM_TB_DIR) -Ihw/sim $(SIM_DEFS) \
	  -DSPU_SOURCE_DIR=\"$(CURDIR)\" -DSPU_BUILD_DIR=\"$(abspath $(BUILD))\" -MMD -MP -c -o $@ $<

ifneq ($(RTL_LINK_OBJS),)
$(BUILD)/tests/spu_rtl_link_tests: $(RTL_LINK_OBJS) $(SIM_TOP_LIB) $(SIM_TB_LIB) $(SIM_TOP_RT) $(LIBSPU_A)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $(RTL_LINK_OBJS) $(SIM_TOP_LIB) $(SIM_TB_LIB) $(SIM_TOP_RT) $(LIBSPU_A) \
	  $(GTEST_LIBS) $(LIBSPU_LIBS) -lz -pthread
TEST_BINS += $(BUILD)/tests/spu_rtl_link_tests
endif

# --- lint -------------------------------------------------------------------------
# Verilator -Wall on spu_top for every LINK and on every other RTL file as its
# own top; Yosys: no latch after proc, and check -assert (multiple drivers,
# undriven, loops) after synth with a small scratchpad. Any warning fails.
HW_LINT_TOPS := $(filter-out hw/rtl/spu_top.v hw/rtl/core/spu_core.v,$(HW_RTL_SRCS)) \
                $(sort $(wildcard hw/rtl/board/*.v))
lint: $(BUILD)/gen/spu_isa.vh
	@set -e; fail=0; \
	for link in byte uart sim; do \
	  echo "lint: verilator spu_top LINK=$$link"; \
	  $(VERILATOR) -Wall --lint-only $(HW_VLT) -Ibuild/gen $(addprefix -y ,$(HW_RTL_DIRS)) \
	    --top-module spu_top -GLINK="\"$$link\"" hw/rtl/spu_top.v || fail=1; \
	done; \
	for f in $(HW_LINT_TOPS); do \
	  echo "lint: verilator $$f"; \
	  $(VERILATOR) -Wall --lint-only $(HW_VLT) -Ibuild/gen $(addprefix -y ,$(HW_RTL_DIRS) hw/rtl/board) \
	    --top-module $$(basename $$f .v) $$f || fail=1; \
	done; \
	echo "lint: yosys spu_top (SPAD_BYTES=4096, LINK=uart): latches, drivers"; \
	$(YOSYS) -q -l $(BUILD)/lint_yosys.log -p "read_verilog -Ibuild/gen $(filter-out hw/rtl/board/%,$(HW_RTL_SRCS)); \
	  chparam -set SPAD_BYTES 4096 -set LINK \"uart\" spu_top; hierarchy -check -top spu_top; \
	  proc; select -assert-none t:\$$dlatch t:\$$adlatch t:\$$dlatchsr; \
	  synth -top spu_top; check -assert" || fail=1; \
	if grep -qi "warning" $(BUILD)/lint_yosys.log; then grep -i warning $(BUILD)/lint_yosys.log; fail=1; fi; \
	if [ $$fail -ne 0 ]; then echo "lint: FAILED"; exit 1; fi; echo "lint: clean"
