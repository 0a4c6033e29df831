# tests/numerics/build.mk -- the numerics suite (build/tests/spu_numerics_tests
# comes from tests/build.mk) and `make test-exhaustive`: every f32 input into
# f16 (vs F16C) and bf16 (vs an independent converter), several minutes.

NUMERICS_EXHAUSTIVE := $(BUILD)/tests/spu_numerics_exhaustive

$(NUMERICS_EXHAUSTIVE): tests/numerics/tools/exhaustive.c $(LIBSPU_A)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -mavx -mf16c $(INCLUDES) -o $@ $< $(LIBSPU_A) $(LIBSPU_LIBS)

.PHONY: test-exhaustive
test-exhaustive: $(NUMERICS_EXHAUSTIVE)
	$(NUMERICS_EXHAUSTIVE)
