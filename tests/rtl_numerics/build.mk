# tests/rtl_numerics/build.mk -- Verilator models of the RTL numerics units
# (hw/rtl/numerics/) and the GoogleTest binary that compares them with their
# C twins (host/src/numerics_hw/) and with the numerics library.
#
# Each test top tests/rtl_numerics/spu_tb_*.v (a thin wrapper holding several
# parameter configurations, so only four Verilator runs are needed) becomes
# $(BUILD)/rtl_numerics/<top>/V<top>__ALL.a. The Verilator runtime is built
# once into $(BUILD)/rtl_numerics/vlrt/. Everything runs with one job and
# -O1, the machine is shared.
#   make build/tests/spu_rtl_numerics_tests    build the suite
#   make lint-rtl-numerics                      verilator -Wall + yosys synth/check of every unit

RTLN_DIR     := $(BUILD)/rtl_numerics
RTLN_RTL     := $(sort $(wildcard hw/rtl/numerics/*.v))
RTLN_VLT     := $(wildcard hw/rtl/numerics/*.vlt)
RTLN_TOPS    := spu_tb_mul spu_tb_cvt spu_tb_acc spu_tb_mx spu_tb_pipe spu_tb_f16x
RTLN_TB_V    := $(wildcard tests/rtl_numerics/spu_tb_*.v)
RTLN_TEST    := $(BUILD)/tests/spu_rtl_numerics_tests
RTLN_VLROOT  := $(shell verilator --getenv VERILATOR_ROOT 2>/dev/null || echo /usr/share/verilator)
RTLN_VLINC   := $(RTLN_VLROOT)/include
RTLN_VLFLAGS := --cc --build --build-jobs 1 -Wall -O3 -CFLAGS -O1 -Ihw/rtl/numerics -Itests/rtl_numerics
RTLN_CXXFLAGS := $(CXXFLAGS_COMMON) -faligned-new -Wno-unused-parameter \
                 -DVM_COVERAGE=0 -DVM_SC=0 -DVM_TRACE=0 -DVM_TRACE_FST=0 -DVM_TRACE_VCD=0 \
                 -I$(RTLN_VLINC) -I$(RTLN_VLINC)/vltstd $(addprefix -I$(RTLN_DIR)/,$(RTLN_TOPS))
RTLN_LIBS    := $(foreach t,$(RTLN_TOPS),$(RTLN_DIR)/$(t)/V$(t)__ALL.a)
RTLN_VLRT    := $(RTLN_DIR)/vlrt/verilated.o $(RTLN_DIR)/vlrt/verilated_threads.o
RTLN_SRCS    := $(wildcard tests/rtl_numerics/*.cc)
RTLN_OBJS    := $(patsubst tests/rtl_numerics/%.cc,$(RTLN_DIR)/obj/%.o,$(RTLN_SRCS))

# One Verilator model per test top. The archive is the target; the generated
# headers come with it.
define rtln_model_rule
$(RTLN_DIR)/$(1)/V$(1)__ALL.a: tests/rtl_numerics/$(1).v $(RTLN_TB_V) $(RTLN_RTL) $(RTLN_VLT)
	@mkdir -p $(RTLN_DIR)
	verilator $(RTLN_VLFLAGS) -Mdir $(RTLN_DIR)/$(1) --prefix V$(1) --top-module $(1) \
	    $(RTLN_VLT) tests/rtl_numerics/$(1).v > $(RTLN_DIR)/$(1).log 2>&1 \
	    || { cat $(RTLN_DIR)/$(1).log; exit 1; }
endef
$(foreach t,$(RTLN_TOPS),$(eval $(call rtln_model_rule,$(t))))

$(RTLN_DIR)/vlrt/%.o: $(RTLN_VLINC)/%.cpp
	@mkdir -p $(dir $@)
	$(CXX) $(RTLN_CXXFLAGS) -O1 -c -o $@ $<

$(RTLN_DIR)/obj/%.o: tests/rtl_numerics/%.cc $(RTLN_LIBS) $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(RTLN_CXXFLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<

-include $(wildcard $(RTLN_DIR)/obj/*.d)

$(RTLN_TEST): $(RTLN_OBJS) $(RTLN_LIBS) $(RTLN_VLRT) $(LIBSPU_A)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $(RTLN_OBJS) $(RTLN_LIBS) $(RTLN_VLRT) $(LIBSPU_A) $(GTEST_LIBS) $(LIBSPU_LIBS)

TEST_BINS += $(RTLN_TEST)

# Lint and synthesis check of every unit on its own, with default parameters.
.PHONY: lint-rtl-numerics
lint-rtl-numerics:
	@for f in $(RTLN_RTL); do t=$$(basename $$f .v); \
	  verilator -Wall --lint-only -Ihw/rtl/numerics $(RTLN_VLT) --top-module $$t $$f || exit 1; \
	  yosys -q -p "read_verilog $(RTLN_RTL); synth -top $$t; check -assert" > /dev/null || { echo "yosys: $$t failed"; exit 1; }; \
	  echo "ok $$t"; done
lint: lint-rtl-numerics
