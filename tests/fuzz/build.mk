# tests/fuzz/build.mk -- libFuzzer targets for the parsers that take outside
# input: .npy files, assembly source, link frames (COBS/CRC).
#   make fuzz [FUZZ_SECONDS=60]   fuzz each target; new inputs go to build/fuzz/corpus-*
#   make fuzz-smoke               each target over its corpus in tests/fuzz/corpus/
#                                 plus FUZZ_RUNS mutations with a fixed seed (new
#                                 inputs go to build/fuzz/smoke-*, never into the repo)
#                                 (deterministic; part of `make test`)
FUZZ_TARGETS := npy asm cobs
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_FLAGS   := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_SECONDS ?= 60
FUZZ_RUNS    ?= 4000
FUZZ_LIB_OBJS := $(patsubst host/%.c,$(FUZZ_DIR)/obj/%.o,$(LIBSPU_SRCS)) \
                 $(patsubst $(BUILD)/gen/%.c,$(FUZZ_DIR)/obj/gen/%.o,$(FIRMWARE_GEN))
FUZZ_BINS    := $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_TARGETS))
# seeds: tests/fuzz/corpus/<target> plus the project's own real inputs
FUZZ_SEEDS_npy  := tests/data/npy
FUZZ_SEEDS_asm  := tests/fuzz/corpus/asm firmware firmware/examples
FUZZ_SEEDS_cobs := tests/fuzz/corpus/cobs

$(FUZZ_DIR)/obj/gen/%.o: $(BUILD)/gen/%.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	clang $(CFLAGS_COMMON) $(FUZZ_FLAGS) $(INCLUDES) -c -o $@ $<
$(FUZZ_DIR)/obj/%.o: host/%.c $(GEN_HEADERS)
	@mkdir -p $(dir $@)
	clang $(CFLAGS_COMMON) $(FUZZ_FLAGS) $(INCLUDES) -MMD -MP -c -o $@ $<
$(FUZZ_DIR)/libspu_fuzz.a: $(FUZZ_LIB_OBJS)
	rm -f $@ && ar rcs $@ $^
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libspu_fuzz.a
	clang $(CFLAGS_COMMON) $(FUZZ_FLAGS) -fsanitize=fuzzer $(INCLUDES) -o $@ $< $(FUZZ_DIR)/libspu_fuzz.a $(LIBSPU_LIBS)

.PHONY: fuzz fuzz-smoke
fuzz-smoke: $(FUZZ_BINS)
	@set -e; $(foreach t,$(FUZZ_TARGETS),\
	  rm -rf $(FUZZ_DIR)/smoke-$(t) && mkdir -p $(FUZZ_DIR)/smoke-$(t); \
	  if $(FUZZ_DIR)/fuzz_$(t) -runs=$(FUZZ_RUNS) -seed=1 $(FUZZ_DIR)/smoke-$(t) $(FUZZ_SEEDS_$(t)) \
	       > $(FUZZ_DIR)/$(t).log 2>&1; then echo "fuzz-smoke $(t): ok ($(FUZZ_RUNS) runs from the seeds)"; \
	  else echo "fuzz-smoke $(t): FAILED, see $(FUZZ_DIR)/$(t).log"; tail -30 $(FUZZ_DIR)/$(t).log; exit 1; fi;)

fuzz: $(FUZZ_BINS)
	@set -e; $(foreach t,$(FUZZ_TARGETS),\
	  mkdir -p $(FUZZ_DIR)/corpus-$(t); echo "fuzzing $(t) for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_DIR)/fuzz_$(t) -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(FUZZ_DIR)/crash-$(t)- \
	    $(FUZZ_DIR)/corpus-$(t) $(FUZZ_SEEDS_$(t));)

-include $(wildcard $(FUZZ_DIR)/obj/*/*.d $(FUZZ_DIR)/obj/*/*/*.d)
