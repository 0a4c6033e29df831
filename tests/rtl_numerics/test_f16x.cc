// test_f16x.cc -- fp16 x fp16 spu_mul_fp_pipe at STAGES 1 and 2 equal to
// STAGES 0 for every input pair, by enumeration on the RTL
// (tests/rtl_numerics/spu_tb_f16x.v: the pairs come from a counter in the
// model, the comparison is in the model, so a clock costs a few tens of ns).
// The SAT proof of the same equivalence does not finish (an 11 x 11
// multiplier against its partial-product split); this enumeration is its
// replacement. With SPU_FORMAL_SET=full (make test-formal-full) all 2^32
// pairs (a few minutes); otherwise (make test) the 2^22 pairs whose a lies
// in [0x3C00, 0x3C40) (a = 1.0 .. 1.06, every b).
#include <gtest/gtest.h>
#include <cstdlib>
#include <memory>
#include <string>

#include "Vspu_tb_f16x.h"

namespace {

TEST(Fp16Exhaustive, PipelinesEqualCombinationalEveryPair)
{
    const char *set = std::getenv("SPU_FORMAL_SET");
    const bool full = set && std::string(set) == "full";
    const uint64_t n = full ? (1ull << 32) : (1ull << 22);
    std::unique_ptr<Vspu_tb_f16x> m{new Vspu_tb_f16x};
    m->start_i = full ? 0u : 0x3C000000u;
    m->rst_i = 1;
    m->clk_i = 0; m->eval(); m->clk_i = 1; m->eval(); m->clk_i = 0; m->eval();
    m->rst_i = 0;
    // n pairs presented, plus 2 clocks for the last one to reach STAGES 2
    for (uint64_t t = 0; t < n + 2; t++) {
        m->clk_i = 1; m->eval();
        m->clk_i = 0; m->eval();
    }
    EXPECT_EQ(m->bad1_o, 0u) << "STAGES 1 differs from STAGES 0; first pair {a,b} = 0x" << std::hex << m->first_bad_o;
    EXPECT_EQ(m->bad2_o, 0u) << "STAGES 2 differs from STAGES 0; first pair {a,b} = 0x" << std::hex << m->first_bad_o;
    EXPECT_EQ((uint64_t)m->checked_o, n) << "pairs compared at STAGES 2";
    std::printf("fp16 x fp16: %llu pairs compared at STAGES 1 and 2%s\n", (unsigned long long)n,
                full ? " (all 2^32)" : " (a in [0x3C00, 0x3C40); all 2^32 with SPU_FORMAL_SET=full)");
}

}  // namespace
