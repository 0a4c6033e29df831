# tests/build.mk -- GoogleTest suites. Each folder tests/<suite>/ with *.cc
# files becomes one binary build/tests/spu_<suite>_tests linked against
# libspu (and depends on build/bin/spu and spu-sim, which the CLI and sim
# suites run). Suites that need Verilator (tests/rtl_*) have their own build.mk.

GTEST_LIBS := -lgtest -lgtest_main -lpthread
TEST_SUITES := $(filter-out rtl%,$(notdir $(patsubst %/,%,$(sort $(dir $(wildcard tests/*/*.cc))))))

define test_suite_rule
$(BUILD)/tests/spu_$(1)_tests: $(patsubst tests/%.cc,$(BUILD)/obj/tests/%.o,$(wildcard tests/$(1)/*.cc)) $(LIBSPU_A) $(SPU_BIN) $(SPU_SIM)
	@mkdir -p $$(dir $$@)
	$$(CXX) -o $$@ $$(filter %.o,$$^) $(LIBSPU_A) $(GTEST_LIBS) $$(LIBSPU_LIBS)
TEST_BINS += $(BUILD)/tests/spu_$(1)_tests
endef
$(foreach s,$(TEST_SUITES),$(eval $(call test_suite_rule,$(s))))

$(BUILD)/obj/tests/%.o: tests/%.cc $(GEN_HEADERS) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_COMMON) $(INCLUDES) -DSPU_SOURCE_DIR=\"$(CURDIR)\" -DSPU_BUILD_DIR=\"$(abspath $(BUILD))\" -MMD -MP -c -o $@ $<

-include $(wildcard $(BUILD)/obj/tests/*/*.d)

# --- sanitizers -----------------------------------------------------------------
# The host suites (model, unit, numerics: everything but the RTL) again, built
# with clang under AddressSanitizer + UndefinedBehaviorSanitizer, library and
# CLI included (the CLI tests run build/asan/bin/spu). Part of `make test`.
ASAN_SUITES := model unit numerics
ASAN_DIR    := $(BUILD)/asan
ASAN_FLAGS  := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
ASAN_LIB    := $(ASAN_DIR)/lib/libspu.a
ASAN_SPU    := $(ASAN_DIR)/bin/spu
ASAN_LIB_OBJS := $(patsubst host/%.c,$(ASAN_DIR)/obj/%.o,$(LIBSPU_SRCS)) \
                 $(patsubst $(BUILD)/gen/%.c,$(ASAN_DIR)/obj/gen/%.o,$(FIRMWARE_GEN))
ASAN_CLI_OBJS := $(patsubst host/%.c,$(ASAN_DIR)/obj/%.o,$(CLI_SRCS))

$(ASAN_DIR)/obj/gen/%.o: $(BUILD)/gen/%.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	clang $(CFLAGS_COMMON) $(ASAN_FLAGS) $(INCLUDES) -c -o $@ $<
$(ASAN_DIR)/obj/%.o: host/%.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	clang $(CFLAGS_COMMON) $(ASAN_FLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<
$(ASAN_LIB): $(ASAN_LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(ASAN_SPU): $(ASAN_CLI_OBJS) $(ASAN_LIB)
	@mkdir -p $(dir $@)
	clang $(ASAN_FLAGS) -o $@ $(ASAN_CLI_OBJS) $(ASAN_LIB) $(LIBSPU_LIBS)
$(ASAN_DIR)/obj/tests/%.o: tests/%.cc $(GEN_HEADERS) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	clang++ $(CXXFLAGS_COMMON) $(ASAN_FLAGS) $(INCLUDES) -DSPU_SOURCE_DIR=\"$(CURDIR)\" -DSPU_BUILD_DIR=\"$(abspath $(ASAN_DIR))\" -MMD -MP -c -o $@ $<

define asan_suite_rule
$(ASAN_DIR)/tests/spu_$(1)_asan_tests: $(patsubst tests/%.cc,$(ASAN_DIR)/obj/tests/%.o,$(wildcard tests/$(1)/*.cc)) $(ASAN_LIB) $(ASAN_SPU)
	@mkdir -p $$(dir $$@)
	clang++ $(ASAN_FLAGS) -o $$@ $$(filter %.o,$$^) $(ASAN_LIB) $(GTEST_LIBS) $$(LIBSPU_LIBS)
TEST_BINS += $(ASAN_DIR)/tests/spu_$(1)_asan_tests
endef
$(foreach s,$(ASAN_SUITES),$(eval $(call asan_suite_rule,$(s))))

-include $(wildcard $(ASAN_DIR)/obj/*/*.d $(ASAN_DIR)/obj/*/*/*.d)
