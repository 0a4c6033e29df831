# tests/build.mk -- GoogleTest suites. Each folder tests/<suite>/ with *.cc
# files becomes one binary build/tests/spu_<suite>_tests linked against
# libspu. Suites that need Verilator (tests/rtl*) are built by hw/build.mk.

GTEST_LIBS := -lgtest -lgtest_main -lpthread
TEST_SUITES := $(filter-out rtl%,$(notdir $(patsubst %/,%,$(sort $(dir $(wildcard tests/*/*.cc))))))

define test_suite_rule
$(BUILD)/tests/spu_$(1)_tests: $(patsubst tests/%.cc,$(BUILD)/obj/tests/%.o,$(wildcard tests/$(1)/*.cc)) $(LIBSPU_A) $(SPU_BIN)
	@mkdir -p $$(dir $$@)
	$$(CXX) -o $$@ $$(filter %.o,$$^) $(LIBSPU_A) $(GTEST_LIBS) $$(LIBSPU_LIBS)
TEST_BINS += $(BUILD)/tests/spu_$(1)_tests
endef
$(foreach s,$(TEST_SUITES),$(eval $(call test_suite_rule,$(s))))

$(BUILD)/obj/tests/%.o: tests/%.cc $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_COMMON) $(INCLUDES) -DSPU_SOURCE_DIR=\"$(CURDIR)\" -DSPU_BUILD_DIR=\"$(abspath $(BUILD))\" -MMD -MP -c -o $@ $<

-include $(wildcard $(BUILD)/obj/tests/*/*.d)
