# perf/build.mk -- the performance model's pieces of the build
# (docs/perf-model.md): the git commit baked into libspu for bench records,
# gnuplot for the plots, and `make perf-bench` (the full calibration sweep).

DEBS += gnuplot git

# build/gen/spu_git_commit.h: rewritten only when the commit changes
PERF_GIT_H := $(BUILD)/gen/spu_git_commit.h
$(PERF_GIT_H): perf-git-force
	@mkdir -p $(dir $@)
	@c=$$(git -C $(CURDIR) rev-parse --short=12 HEAD 2>/dev/null || echo unknown); \
	  echo "#define SPU_GIT_COMMIT \"$$c\"" > $@.tmp; \
	  cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
.PHONY: perf-git-force perf-bench
perf-git-force:
$(BUILD)/obj/src/perf/perf_hw.o $(BUILD)/asan/obj/src/perf/perf_hw.o: $(PERF_GIT_H)

# The full sweep (>= 50 shapes) on `sim`, calibration, error table and plots
# into build/perf/ (a benchmark, not part of `make test`).
PERF_DEVICE ?= sim
perf-bench: all
	@mkdir -p $(BUILD)/perf
	$(SPU_BIN) bench gemm --device '$(PERF_DEVICE)' --sweep --calibrate $(BUILD)/perf/hw.json \
	  --reps 3 --csv $(BUILD)/perf/bench.csv --plot $(BUILD)/perf --json > $(BUILD)/perf/bench.json
