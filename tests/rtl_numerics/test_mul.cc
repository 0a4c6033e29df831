// test_mul.cc -- spu_mul_int8 and spu_mul_fp (every configuration) against
// their C twins, and the twins against the exact product of the library's
// decoded operands. Exhaustive for every pair of <= 16 input bits; bf16 x
// bf16 by a special-value cross product plus a random sweep.
#include <gtest/gtest.h>
#include <memory>
#include <vector>

#include "Vspu_tb_mul.h"
#include "rtln_util.h"

using namespace rtln;

namespace {

uint64_t pack(const spu_hw_fpprod &p) {
    return (uint64_t)p.sig | ((uint64_t)(uint16_t)(int16_t)p.exp << 32) |
           ((uint64_t)p.sign << 48) | ((uint64_t)p.zero << 49) |
           ((uint64_t)p.inf << 50) | ((uint64_t)p.nan << 51);
}

uint64_t rtl_out(Vspu_tb_mul &m, spu_fmt fa, spu_fmt fb) {
    if (fa == SPU_FMT_E4M3 && fb == SPU_FMT_E4M3) return m.e4m3_o;
    if (fa == SPU_FMT_E5M2 && fb == SPU_FMT_E5M2) return m.e5m2_o;
    if (fa == SPU_FMT_E4M3 && fb == SPU_FMT_E5M2) return m.e4m3_e5m2_o;
    if (fa == SPU_FMT_BF16) return m.bf16_o;
    if (fa == SPU_FMT_E2M1) return m.e2m1_o;
    if (fa == SPU_FMT_E2M3) return m.e2m3_o;
    return m.e3m2_o;
}

// Twin against the mathematics: the decoded operands' exact product.
// Returns an empty string when they agree.
std::string check_twin(spu_fmt fa, uint32_t a, spu_fmt fb, uint32_t b, const spu_hw_fpprod &p) {
    spu_num na, nb;
    long double va = value_of(fa, a, &na), vb = value_of(fb, b, &nb);
    bool nan = na.cls == SPU_FCLASS_NAN || nb.cls == SPU_FCLASS_NAN ||
               (na.cls == SPU_FCLASS_INF && nb.cls == SPU_FCLASS_ZERO) ||
               (nb.cls == SPU_FCLASS_INF && na.cls == SPU_FCLASS_ZERO);
    bool inf = !nan && (na.cls == SPU_FCLASS_INF || nb.cls == SPU_FCLASS_INF);
    char buf[160];
    if (p.nan != nan || p.inf != inf) return "class";
    if (p.sign != (na.sign ^ nb.sign)) return "sign";
    if (nan || inf) return (p.sig == 0 && p.exp == 0) ? "" : "special not canonical";
    long double exact = va * vb;  // exact: <= 22 significant bits
    long double got = std::ldexp((long double)p.sig, p.exp) * (p.sign ? -1 : 1);
    if (got != exact || p.zero != (exact == 0)) {
        snprintf(buf, sizeof buf, "value %Lg != %Lg", got, exact);
        return buf;
    }
    if (p.zero && p.exp != 0) return "zero not canonical";
    return "";
}

struct MulTest : ::testing::Test {
    std::unique_ptr<Vspu_tb_mul> m{new Vspu_tb_mul};
    void eval(uint32_t a, uint32_t b) { m->a_i = (uint16_t)a; m->b_i = (uint16_t)b; m->eval(); }

    // Every (a, b) pair: RTL == twin, twin == math. Returns #NaN, #Inf
    // results seen so the caller can check the specials were exercised.
    void exhaustive(spu_fmt fa, spu_fmt fb, int *nnan, int *ninf, int *nzero) {
        unsigned wa = spu_fmt_get(fa)->bits, wb = spu_fmt_get(fb)->bits;
        int bad = 0;
        *nnan = *ninf = *nzero = 0;
        for (uint32_t a = 0; a < (1u << wa); a++)
            for (uint32_t b = 0; b < (1u << wb); b++) {
                eval(a, b);
                spu_hw_fpprod p;
                ASSERT_EQ(spu_hw_mul_fp(fa, a, fb, b, &p), 0);
                uint64_t want = pack(p), got = rtl_out(*m, fa, fb);
                std::string why = check_twin(fa, a, fb, b, p);
                if ((got != want || !why.empty()) && bad++ < 10)
                    ADD_FAILURE() << spu_fmt_name(fa) << " x " << spu_fmt_name(fb) << " a=0x"
                                  << std::hex << a << " b=0x" << b << " rtl=0x" << got
                                  << " twin=0x" << want << " " << why;
                *nnan += p.nan; *ninf += p.inf; *nzero += p.zero;
            }
        EXPECT_EQ(bad, 0);
    }
};

TEST_F(MulTest, Int8Exhaustive) {
    int bad = 0;
    for (int a = -128; a < 128; a++)
        for (int b = -128; b < 128; b++) {
            eval((uint8_t)a, (uint8_t)b);
            int16_t twin = spu_hw_mul_int8((int8_t)a, (int8_t)b);
            // twin vs math through the library's int8 decode
            long double va = value_of(SPU_FMT_INT8, (uint8_t)a), vb = value_of(SPU_FMT_INT8, (uint8_t)b);
            if (((int16_t)m->int8_o != twin || (long double)twin != va * vb) && bad++ < 10)
                ADD_FAILURE() << a << "*" << b << " rtl=" << (int16_t)m->int8_o << " twin=" << twin;
        }
    EXPECT_EQ(bad, 0);
}

TEST_F(MulTest, E4M3xE4M3Exhaustive) {
    int nn, ni, nz; exhaustive(SPU_FMT_E4M3, SPU_FMT_E4M3, &nn, &ni, &nz);
    EXPECT_GT(nn, 0); EXPECT_EQ(ni, 0); EXPECT_GT(nz, 0);  // E4M3 has no Inf
}
TEST_F(MulTest, E5M2xE5M2Exhaustive) {
    int nn, ni, nz; exhaustive(SPU_FMT_E5M2, SPU_FMT_E5M2, &nn, &ni, &nz);
    EXPECT_GT(nn, 0); EXPECT_GT(ni, 0); EXPECT_GT(nz, 0);
}
TEST_F(MulTest, E4M3xE5M2Exhaustive) {
    int nn, ni, nz; exhaustive(SPU_FMT_E4M3, SPU_FMT_E5M2, &nn, &ni, &nz);
    EXPECT_GT(nn, 0); EXPECT_GT(ni, 0); EXPECT_GT(nz, 0);
}
TEST_F(MulTest, E2M1xE2M1Exhaustive) {
    int nn, ni, nz; exhaustive(SPU_FMT_E2M1, SPU_FMT_E2M1, &nn, &ni, &nz);
    EXPECT_EQ(nn, 0); EXPECT_EQ(ni, 0); EXPECT_GT(nz, 0);  // MX elements: all finite
}
TEST_F(MulTest, E2M3xE2M3Exhaustive) {
    int nn, ni, nz; exhaustive(SPU_FMT_E2M3, SPU_FMT_E2M3, &nn, &ni, &nz);
    EXPECT_EQ(nn, 0); EXPECT_EQ(ni, 0); EXPECT_GT(nz, 0);
}
TEST_F(MulTest, E3M2xE3M2Exhaustive) {
    int nn, ni, nz; exhaustive(SPU_FMT_E3M2, SPU_FMT_E3M2, &nn, &ni, &nz);
    EXPECT_EQ(nn, 0); EXPECT_EQ(ni, 0); EXPECT_GT(nz, 0);
}

TEST_F(MulTest, Bf16SpecialsAndRandom) {
    // Specials: +-0, smallest/largest subnormal, smallest/largest normal,
    // 1.0, 1.0+ulp, Inf, a quiet and a signalling NaN, and their negatives.
    std::vector<uint32_t> sp;
    for (uint32_t c : {0x0000u, 0x0001u, 0x007Fu, 0x0080u, 0x7F7Fu, 0x3F80u, 0x3F81u,
                       0x7F80u, 0x7FC0u, 0x7F81u, 0x4049u, 0x0040u})
        { sp.push_back(c); sp.push_back(c | 0x8000u); }
    int bad = 0;
    auto one = [&](uint32_t a, uint32_t b) {
        eval(a, b);
        spu_hw_fpprod p;
        spu_hw_mul_fp(SPU_FMT_BF16, a, SPU_FMT_BF16, b, &p);
        std::string why = check_twin(SPU_FMT_BF16, a, SPU_FMT_BF16, b, p);
        if ((m->bf16_o != pack(p) || !why.empty()) && bad++ < 10)
            ADD_FAILURE() << std::hex << "a=0x" << a << " b=0x" << b << " rtl=0x" << m->bf16_o
                          << " twin=0x" << pack(p) << " " << why;
    };
    for (uint32_t a : sp) for (uint32_t b : sp) one(a, b);
    Rng r(4);
    for (int i = 0; i < 1000000; i++) { uint32_t x = r.u32(); one(x & 0xFFFF, x >> 16); }
    // every bf16 code against a few fixed partners (all exponents, both subnormal ends)
    for (uint32_t a = 0; a < 65536; a++) for (uint32_t b : sp) one(a, b);
    EXPECT_EQ(bad, 0);
}

}  // namespace
