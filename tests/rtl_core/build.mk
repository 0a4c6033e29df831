# tests/rtl_core/build.mk -- Verilator models of spu_core (hw/rtl/core/) and
# the GoogleTest suite that drives its ports directly and compares it with the
# C reference model (host/src/model/) and with plain C++ references.
#
# Two geometries, each its own Verilated model under $(BUILD)/rtl_core/<cfg>/:
#   c8 : 8x8, 256 KiB in 4 banks, 1024 microcode words, row / column buses
#        (BROADCAST=1), overlapped issue (OVERLAP=1): the sim default
#   c4 : 4x4,   8 KiB in 2 banks,  256 microcode words: the iCE40 boards' shape --
#        broadcast array, 32-bit counters in an EBR (CNT_RAM=1), one accumulator
#        drained per cycle (DRAIN_LANES=1); overlapped issue (OVERLAP=1, as the
#        HX8K)
#   c8n: c8 with one drain lane (two int32 accumulators share a scratchpad word),
#        the systolic array (BROADCAST=0: operands skewed through the tiles) and
#        the two-cycle issue (OVERLAP=0)
#   c4s: c4 with the iCEBreaker's scratchpad: 128 KiB in 2 banks of single-port
#        SPRAM (SPAD_SPRAM=1, spu_spram_model; an mm waits for the drain), its
#        requests registered and taken mid-cycle (SPAD_2X=1, spu_spram MID), and
#        the array, its SB_MAC16 pairs (as `*`) and tiles on the second clock
#        with k-step pairs (ARRAY_2X=1, USE_ICE40_DSP=1): the harness drives
#        clk2x_i at twice clk_i. The board simulator sim?board=icebreaker has
#        neither.
#   c4f: c4 carrying every array format (FORMATS 0x1F9D): bf16 and MX on the
#        boards' broadcast wiring; without overlapped issue
# c8 and c8n carry every array format (FORMATS 0x1F9D, as spu-sim);
# c4 carries int8 only (the boards' FORMATS = 1). c8 and c8n carry the vector
# unit (VECTOR=1, as spu-sim), c4 does not (the boards).
# The harness reads the scalar registers through the core's REGS port, so no
# internal signal is made public (--public-flat-rw made the float 8x8's
# symbol table alone take many minutes to compile). Single job, -O1 C++.
#   make build/tests/spu_rtl_core_tests

RTLC_DIR     := $(BUILD)/rtl_core
RTLC_RTL     := $(sort $(wildcard hw/rtl/core/*.v))
RTLC_NUM     := $(sort $(wildcard hw/rtl/numerics/*.v))   # units the float tiles instantiate (-y)
RTLC_VLT     := hw/lint/spu.vlt   # the project's one waiver file
RTLC_CFGS    := c8 c4 c8n c4s c4f
RTLC_8X8     := -GROWS=8 -GCOLS=8 -GSPAD_BYTES=262144 -GSPAD_BANKS=4 -GUCODE_WORDS=1024 -GLOOP_DEPTH=4 -GFORMATS=32\'h1F9D -GVECTOR=1 -GCHAIN=1
RTLC_GEOM_c8 := $(RTLC_8X8) -GBROADCAST=1 -GOVERLAP=1
RTLC_4X4     := -GROWS=4 -GCOLS=4 -GSPAD_BYTES=8192 -GSPAD_BANKS=2 -GUCODE_WORDS=256 -GLOOP_DEPTH=4 \
                -GBROADCAST=1 -GCNT_WIDTH=32 -GCNT_RAM=1 -GDRAIN_LANES=1
RTLC_GEOM_c4 := $(RTLC_4X4) -GOVERLAP=1
RTLC_GEOM_c8n := $(RTLC_8X8) -GDRAIN_LANES=1 -GBROADCAST=0
RTLC_GEOM_c4s := -GROWS=4 -GCOLS=4 -GSPAD_BYTES=131072 -GSPAD_BANKS=2 -GUCODE_WORDS=256 -GLOOP_DEPTH=4 \
                 -GBROADCAST=1 -GCNT_WIDTH=32 -GCNT_RAM=1 -GDRAIN_LANES=1 -GSPAD_SPRAM=1 -GUCODE_TWIN=1 -GSPAD_2X=1 \
                 -GUSE_ICE40_DSP=1 -GARRAY_2X=1
# c4f: c4 (the boards' broadcast array wiring) carrying every array format:
# bf16 and MX on the BROADCAST = 1 path
RTLC_GEOM_c4f := $(RTLC_4X4) -GFORMATS=32\'h1F9D
RTLC_TEST    := $(BUILD)/tests/spu_rtl_core_tests
RTLC_VLROOT  := $(shell verilator --getenv VERILATOR_ROOT 2>/dev/null || echo /usr/share/verilator)
RTLC_VLINC   := $(RTLC_VLROOT)/include
RTLC_CXXFLAGS := $(CXXFLAGS_COMMON) -O1 -faligned-new -Wno-unused-parameter \
                 -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=0 -DVM_TRACE_FST=0 -DVM_TRACE_VCD=0 \
                 -I$(RTLC_VLINC) -I$(RTLC_VLINC)/vltstd $(addprefix -I$(RTLC_DIR)/,$(RTLC_CFGS) spad_sp)
RTLC_LIBS    := $(foreach c,$(RTLC_CFGS),$(RTLC_DIR)/$(c)/Vspu_core_$(c)__ALL.a)
# spu_spad alone with single-port SPRAM banks (test_spad_spram.cc): 4-byte
# words, 128 KiB in 2 banks, as the iCEBreaker's SPAD_SPRAM build
RTLC_SPAD_SRCS := hw/rtl/core/spu_spad.v hw/rtl/core/spu_spram.v hw/rtl/core/spu_spram_model.v hw/rtl/core/spu_ram_1r1w.v
RTLC_LIBS    += $(RTLC_DIR)/spad_sp/Vspu_spad_sp__ALL.a
$(RTLC_DIR)/spad_sp/Vspu_spad_sp__ALL.a: $(RTLC_SPAD_SRCS) $(RTLC_VLT) tests/rtl_core/build.mk
	@mkdir -p $(RTLC_DIR)
	verilator --cc --build --build-jobs 1 -Wall -O3 -CFLAGS -O1 -Mdir $(RTLC_DIR)/spad_sp --prefix Vspu_spad_sp \
	    --top-module spu_spad -GWORD_BYTES=4 -GSPAD_BYTES=131072 -GSPAD_BANKS=2 -GSPRAM=1 \
	    $(RTLC_VLT) $(RTLC_SPAD_SRCS) > $(RTLC_DIR)/spad_sp.log 2>&1 || { cat $(RTLC_DIR)/spad_sp.log; exit 1; }
RTLC_VLRT    := $(RTLC_DIR)/vlrt/verilated.o $(RTLC_DIR)/vlrt/verilated_threads.o
RTLC_SRCS    := $(wildcard tests/rtl_core/*.cc)
RTLC_OBJS    := $(patsubst tests/rtl_core/%.cc,$(RTLC_DIR)/obj/%.o,$(RTLC_SRCS))

define rtlc_model_rule
$(RTLC_DIR)/$(1)/Vspu_core_$(1)__ALL.a: $(RTLC_RTL) $(RTLC_NUM) $(RTLC_VLT) $(BUILD)/gen/spu_isa.vh tests/rtl_core/build.mk
	@mkdir -p $(RTLC_DIR)
	verilator --cc --build --build-jobs 1 -Wall -O3 -CFLAGS -O1 \
	    -I$(BUILD)/gen -y hw/rtl/numerics -Mdir $(RTLC_DIR)/$(1) --prefix Vspu_core_$(1) --top-module spu_core \
	    $(RTLC_GEOM_$(1)) $(RTLC_VLT) $(RTLC_RTL) > $(RTLC_DIR)/$(1).log 2>&1 \
	    || { cat $(RTLC_DIR)/$(1).log; exit 1; }
endef
$(foreach c,$(RTLC_CFGS),$(eval $(call rtlc_model_rule,$(c))))

$(RTLC_DIR)/vlrt/%.o: $(RTLC_VLINC)/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(RTLC_CXXFLAGS) -c -o $@ $<

$(RTLC_DIR)/obj/%.o: tests/rtl_core/%.cc $(RTLC_LIBS) $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(RTLC_CXXFLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<

-include $(wildcard $(RTLC_DIR)/obj/*.d)

$(RTLC_TEST): $(RTLC_OBJS) $(RTLC_LIBS) $(RTLC_VLRT) $(LIBSPU_A)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $(RTLC_OBJS) $(RTLC_LIBS) $(RTLC_VLRT) $(LIBSPU_A) $(GTEST_LIBS) $(LIBSPU_LIBS)

TEST_BINS += $(RTLC_TEST)
