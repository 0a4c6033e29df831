// test_cvt.cc -- spu_cvt_f32 (bf16, e4m3, e5m2 targets) against its C twin
// (the library's spu_f32_to_code with the same mode and random bits) under
// every rounding x overflow mode: the spec's tricky points, special values,
// every bf16 code and its neighbours, halfway points, a random sweep; and
// stochastic rounding averaging to the exact value over all random bits.
#include <gtest/gtest.h>
#include <memory>
#include <vector>

#include "Vspu_tb_cvt.h"
#include "rtln_util.h"

using namespace rtln;

namespace {

const spu_fmt kFmts[3] = {SPU_FMT_BF16, SPU_FMT_E4M3, SPU_FMT_E5M2};

struct CvtTest : ::testing::Test {
    std::unique_ptr<Vspu_tb_cvt> m{new Vspu_tb_cvt};
    int bad = 0;
    long checked = 0;

    uint32_t rtl(spu_fmt f, uint32_t x, spu_round rd, spu_overflow ov, uint32_t rbits) {
        m->f32_i = x; m->round_i = rd; m->ovf_i = ov; m->rand_i = rbits & 0x1FFFFF;
        m->eval();
        return f == SPU_FMT_BF16 ? m->bf16_o : f == SPU_FMT_E4M3 ? m->e4m3_o : m->e5m2_o;
    }
    // All three targets, one mode: RTL == twin.
    void check(uint32_t x, spu_round rd, spu_overflow ov, uint32_t rbits) {
        m->f32_i = x; m->round_i = rd; m->ovf_i = ov; m->rand_i = rbits & 0x1FFFFF;
        m->eval();
        uint32_t got[3] = {m->bf16_o, m->e4m3_o, m->e5m2_o};
        for (int i = 0; i < 3; i++) {
            uint32_t want = spu_hw_cvt_f32(kFmts[i], x, rd, ov, rbits);
            checked++;
            if (got[i] != want && bad++ < 20)
                ADD_FAILURE() << spu_fmt_name(kFmts[i]) << " x=0x" << std::hex << x << " ("
                              << bits_f32(x) << ") round=" << std::dec << rd << " ovf=" << ov
                              << std::hex << " rbits=0x" << rbits << " rtl=0x" << got[i]
                              << " twin=0x" << want;
        }
    }
    // Every mode; SR with random words 0, all ones and two from the stream.
    void check_all_modes(uint32_t x, uint64_t idx) {
        for (int ov = 0; ov < 2; ov++) {
            for (int rd = 0; rd < 3; rd++) check(x, (spu_round)rd, (spu_overflow)ov, 0);
            for (uint32_t rb : {0u, 0xFFFFFFFFu, spu_sr_random(7, idx), spu_sr_random(8, idx)})
                check(x, SPU_ROUND_SR, (spu_overflow)ov, rb);
        }
    }
};

float f(double v) { return (float)v; }

TEST_F(CvtTest, SpecExamples) {
    // Known tricky points of the issue, checked on the RTL directly.
    EXPECT_EQ(rtl(SPU_FMT_E4M3, f32_bits(464.f), SPU_ROUND_RNE, SPU_OVF_OVF, 0), 0x7Eu);  // 448
    EXPECT_EQ(rtl(SPU_FMT_E4M3, f32_bits(465.f), SPU_ROUND_RNE, SPU_OVF_OVF, 0), 0x7Fu);  // NaN
    EXPECT_EQ(rtl(SPU_FMT_E4M3, f32_bits(465.f), SPU_ROUND_RNE, SPU_OVF_SAT, 0), 0x7Eu);  // 448
    EXPECT_EQ(rtl(SPU_FMT_E4M3, f32_bits(-465.f), SPU_ROUND_RNE, SPU_OVF_OVF, 0), 0xFFu);
    EXPECT_EQ(rtl(SPU_FMT_E5M2, f32_bits(61440.f), SPU_ROUND_RNE, SPU_OVF_OVF, 0), 0x7Cu); // Inf
    EXPECT_EQ(rtl(SPU_FMT_E5M2, f32_bits(61440.f), SPU_ROUND_RNE, SPU_OVF_SAT, 0), 0x7Bu); // 57344
    EXPECT_EQ(rtl(SPU_FMT_E4M3, f32_bits(f(std::ldexp(1.0, -10))), SPU_ROUND_RNE, SPU_OVF_SAT, 0), 0x00u);
    EXPECT_EQ(rtl(SPU_FMT_E4M3, f32_bits(400.f), SPU_ROUND_RNE, SPU_OVF_SAT, 0), 0x7Cu);  // 384
    EXPECT_EQ(rtl(SPU_FMT_E4M3, f32_bits(400.f), SPU_ROUND_RNA, SPU_OVF_SAT, 0), 0x7Du);  // 416
    EXPECT_EQ(rtl(SPU_FMT_E4M3, f32_bits(1e30f), SPU_ROUND_RTZ, SPU_OVF_OVF, 0), 0x7Eu);  // rtz: max
    EXPECT_EQ(rtl(SPU_FMT_BF16, f32_bits(-0.f), SPU_ROUND_RNE, SPU_OVF_SAT, 0), 0x8000u);
    EXPECT_EQ(rtl(SPU_FMT_E4M3, f32_bits(f(-std::ldexp(1.0, -12))), SPU_ROUND_RNE, SPU_OVF_SAT, 0), 0x80u);
    // and the library agrees on all of them
    for (uint32_t x : {f32_bits(464.f), f32_bits(465.f), f32_bits(61440.f), f32_bits(400.f)})
        check_all_modes(x, 0);
    EXPECT_EQ(bad, 0);
}

TEST_F(CvtTest, SpecialsEveryMode) {
    std::vector<uint32_t> xs = {
        0x00000000u, 0x00000001u, 0x007FFFFFu, 0x00400000u, 0x00800000u,  // zero, f32 subnormals, min normal
        0x7F7FFFFFu, 0x7F800000u, 0x7FC00000u, 0x7F800001u, 0x7FA5A5A5u,  // max, Inf, NaNs
        0x7FFFFFFFu, 0x3F800000u, 0x3F800001u, 0x3F7FFFFFu,
    };
    // Target boundaries: max finite, max + half ulp (the overflow tie), the
    // next f32 neighbours, min subnormal / normal and their halves, and the
    // E4M3 / E5M2 values the issue names.
    for (double v : {448.0, 464.0, 465.0, 480.0, 57344.0, 61440.0, 61439.99, 65536.0,
                     3.3895313892515355e38, 3.3961775292304611e38,
                     std::ldexp(1.0, -9), std::ldexp(1.0, -10), std::ldexp(3.0, -11),
                     std::ldexp(1.0, -6), std::ldexp(1.0, -16), std::ldexp(1.0, -17),
                     std::ldexp(1.0, -14), std::ldexp(1.0, -133), std::ldexp(1.0, -134),
                     std::ldexp(1.0, -126), std::ldexp(1.0, -127)}) {
        uint32_t b = f32_bits(f(v));
        for (uint32_t d : {b - 1, b, b + 1}) xs.push_back(d);
    }
    // Halfway points between consecutive codes of every fp8 target, +-1 f32 ulp.
    for (spu_fmt fm : {SPU_FMT_E4M3, SPU_FMT_E5M2})
        for (uint32_t c = 0; c < 0x7F; c++) {
            float lo = spu_num_to_f32(fm, c), hi = spu_num_to_f32(fm, c + 1);
            if (std::isnan(hi) || std::isinf(hi)) continue;
            uint32_t mid = f32_bits(f(((double)lo + hi) / 2));
            for (uint32_t d : {mid - 1, mid, mid + 1}) xs.push_back(d);
        }
    uint64_t idx = 0;
    for (uint32_t x : xs)
        for (uint32_t s : {0u, 0x80000000u}) check_all_modes(x ^ s, idx++);
    EXPECT_EQ(bad, 0) << "of " << checked;
}

TEST_F(CvtTest, EveryBf16CodeAndNeighbours) {
    // Each bf16 value as f32, its f32 neighbours, the midpoint to the next
    // bf16 code and the midpoint's neighbours: all exponents, both signs.
    for (uint32_t c = 0; c < 65536; c++) {
        uint32_t b = c << 16;
        for (uint32_t x : {b, b + 1, b - 1, b | 0x8000u, (b | 0x8000u) + 1, (b | 0x8000u) - 1}) {
            for (int ov = 0; ov < 2; ov++)
                for (int rd = 0; rd < 3; rd++) check(x, (spu_round)rd, (spu_overflow)ov, 0);
            check(x, SPU_ROUND_SR, SPU_OVF_OVF, spu_sr_random(3, c));
        }
    }
    EXPECT_EQ(bad, 0) << "of " << checked;
}

TEST_F(CvtTest, RandomSweep) {
    Rng r(11);
    for (int i = 0; i < 400000; i++) {
        uint32_t x = r.u32();
        // half of the inputs in the fp8 targets' range: f32 exponent 100..150
        if (i & 1) x = (x & 0x807FFFFFu) | ((100u + r.below(51)) << 23);
        check(x, (spu_round)r.below(4), (spu_overflow)r.below(2), r.u32());
    }
    EXPECT_EQ(bad, 0) << "of " << checked;
}

// Over all 2^N random words the mean of the SR result equals the exact
// input (inputs chosen with no bits below ulp/2^N, docs/numerics.md).
TEST_F(CvtTest, StochasticMeanIsExact) {
    Rng r(5);
    for (spu_fmt fm : kFmts) {
        unsigned n = spu_fmt_get(fm)->sr_bits;
        std::vector<uint32_t> xs;
        // normal results in the target: random f32 in a few binades
        int e0 = fm == SPU_FMT_BF16 ? 127 - 10 : fm == SPU_FMT_E4M3 ? 127 - 5 : 127 - 12;
        for (int k = 0; k < 4; k++)
            xs.push_back((r.u32() & 0x807FFFFFu) | ((uint32_t)(e0 + 3 * k) << 23));
        // subnormal results: multiples of min_subnormal / 2^N
        for (int k = 0; k < 2; k++) {
            double sub = fm == SPU_FMT_BF16 ? std::ldexp(1.0, -133)
                       : fm == SPU_FMT_E4M3 ? std::ldexp(1.0, -9) : std::ldexp(1.0, -16);
            double v = std::ldexp((double)(r.u32() & ((1u << (n + 2)) - 1)), -(int)n) * sub;
            xs.push_back(f32_bits(f(v)) | (k ? 0x80000000u : 0));
        }
        for (uint32_t x : xs) {
            long double sum = 0;
            for (uint32_t rb = 0; rb < (1u << n); rb++) {
                uint32_t c = rtl(fm, x, SPU_ROUND_SR, SPU_OVF_OVF, rb);
                sum += value_of(fm, c);
            }
            long double mean = std::ldexp(sum, -(int)n);
            EXPECT_EQ(mean, (long double)bits_f32(x)) << spu_fmt_name(fm) << " x=" << bits_f32(x);
        }
    }
}

}  // namespace
