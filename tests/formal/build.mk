# tests/formal/build.mk -- equivalence proofs of the pipelined numerics units
# (tests/formal/test_formal.cc, built by the default suite rule of
# tests/build.mk as build/tests/spu_formal_tests). `make test` runs its quick
# set; the full set (every format and depth) is:
#   make test-formal     SPU_FORMAL_ALL=1, prints "tests: N passed, N failed, N skipped"
# Yosys's SAT solver does the proofs (yosys is in DEBS already).
.PHONY: test-formal
test-formal: $(BUILD)/tests/spu_formal_tests
	@SPU_FORMAL_ALL=1 tests/run_tests.sh $(BUILD)/tests/spu_formal_tests
