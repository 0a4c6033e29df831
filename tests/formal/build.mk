# tests/formal/build.mk -- equivalence proofs of the pipelined numerics units
# (tests/formal/test_formal.cc, built by the default suite rule of
# tests/build.mk as build/tests/spu_formal_tests). `make test` runs its quick
# set; the larger sets (one gtest per proof):
#   make test-formal       the CI set (SPU_FORMAL_SET=ci): every unit, a few minutes
#   make test-formal-full  every proof (SPU_FORMAL_SET=full; .ci/run runs it, ~15 min)
#                          and the fp16 enumeration
# Both print "tests: N passed, N failed, N skipped". Each test (one proof, or
# one mutation test) runs as its own process, SPU_FORMAL_JOBS of them at a
# time (default 2: the proofs are single-threaded; tests/formal/run_parallel.sh
# prints each one's wall and CPU seconds, its table is
# build/tests/formal-runs/{ci,full}/times.tsv).
# Yosys writes the miters as AIGs, ABC (yosys-abc, part of Debian's yosys
# package, already in DEBS) proves them; the accumulator's induction runs in
# Yosys's SAT solver. SPU_FORMAL_TIMEOUT=S limits each tool run of a proof to S
# CPU seconds (ulimit -t; default 300).
SPU_FORMAL_JOBS ?= 2
.PHONY: test-formal test-formal-full
# (the quick set and the negative tests run in make test: not again here)
test-formal: $(BUILD)/tests/spu_formal_tests
	@SPU_FORMAL_SET=ci GTEST_FILTER='CI/*:FormalCI.*' tests/formal/run_parallel.sh $(SPU_FORMAL_JOBS) \
	    $(BUILD)/tests/formal-runs/ci $(BUILD)/tests/spu_formal_tests
# (and fp16 x fp16 STAGES 1, 2 = STAGES 0 by enumerating all 2^32 pairs on
# the RTL, tests/rtl_numerics/test_f16x.cc, beside the CI set's BDD proof)
test-formal-full: $(BUILD)/tests/spu_formal_tests $(BUILD)/tests/spu_rtl_numerics_tests
	@SPU_FORMAL_SET=full GTEST_FILTER='CI/*:FormalCI.*:Full/*:Fp16Exhaustive.*' tests/formal/run_parallel.sh \
	    $(SPU_FORMAL_JOBS) $(BUILD)/tests/formal-runs/full $(BUILD)/tests/spu_formal_tests $(BUILD)/tests/spu_rtl_numerics_tests
