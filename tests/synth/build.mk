# tests/synth/build.mk -- the synth smoke test (tests/synth/*.cc) is built by
# the default suite rule of tests/build.mk; it also reads JSON with cJSON and
# runs build/bin/spu-ppa, so it links cJSON and depends on spu-ppa.
# Equivalence.Mul8sCsaMatchesMultiply simulates the HX8K techmap with Icarus.
DEBS += iverilog
$(BUILD)/tests/spu_synth_tests: private LIBSPU_LIBS += $(CJSON_LIBS)
$(BUILD)/tests/spu_synth_tests: $(SPU_PPA_BIN) $(BUILD)/gen/spu_isa.vh
