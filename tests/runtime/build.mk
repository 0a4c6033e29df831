# tests/runtime/build.mk -- `make test-accuracy`: the full Fashion-MNIST test
# set on the model device for every shipped model (slow: not in `make test`;
# CI runs it). tests/runtime/*.cc is the spu_runtime_tests suite of make test.

ACCURACY_TESTS := $(BUILD)/tests/spu_accuracy_tests

$(ACCURACY_TESTS): $(patsubst tests/%.cc,$(BUILD)/obj/tests/%.o,$(wildcard tests/runtime/accuracy/*.cc)) $(LIBSPU_A)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $(filter %.o,$^) $(LIBSPU_A) $(GTEST_LIBS) $(LIBSPU_LIBS)

-include $(wildcard $(BUILD)/obj/tests/runtime/accuracy/*.d)

.PHONY: test-accuracy
test-accuracy: deps all $(ACCURACY_TESTS)
	@tests/run_tests.sh $(ACCURACY_TESTS)
