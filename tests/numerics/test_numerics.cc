// test_numerics.cc -- known tricky points, specials, stochastic rounding,
// MX scale rules, AVX2 == scalar, exact products and dot, packing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "spu/numerics.h"

namespace {

uint32_t f2u(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

float rt(spu_fmt f, float x, spu_round r = SPU_ROUND_RNE, spu_overflow o = SPU_OVF_SAT)
{
    return spu_num_to_f32(f, spu_from_f32(f, x, r, o, 0));
}

TEST(Tricky, IssuePoints)
{
    EXPECT_EQ(448.0f, rt(SPU_FMT_E4M3, 464.0f));
    EXPECT_EQ(448.0f, rt(SPU_FMT_E4M3, 464.0f, SPU_ROUND_RNE, SPU_OVF_OVF));
    EXPECT_EQ(0x7Fu, spu_from_f32(SPU_FMT_E4M3, 465.0f, SPU_ROUND_RNE, SPU_OVF_OVF, 0));
    EXPECT_TRUE(std::isnan(rt(SPU_FMT_E4M3, 465.0f, SPU_ROUND_RNE, SPU_OVF_OVF)));
    EXPECT_EQ(448.0f, rt(SPU_FMT_E4M3, 465.0f));
    EXPECT_EQ(0x7Cu, spu_from_f32(SPU_FMT_E5M2, 61440.0f, SPU_ROUND_RNE, SPU_OVF_OVF, 0));
    EXPECT_EQ(57344.0f, rt(SPU_FMT_E5M2, 61440.0f));
    EXPECT_EQ(0x00u, spu_from_f32(SPU_FMT_E4M3, std::ldexp(1.0f, -10), SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(384.0f, rt(SPU_FMT_E4M3, 400.0f));
    EXPECT_EQ(416.0f, rt(SPU_FMT_E4M3, 400.0f, SPU_ROUND_RNA));
    EXPECT_EQ(384.0f, rt(SPU_FMT_E4M3, 415.0f, SPU_ROUND_RTZ));
    // rtz never overflows a finite input, even under ovf
    EXPECT_EQ(448.0f, rt(SPU_FMT_E4M3, 1000.0f, SPU_ROUND_RTZ, SPU_OVF_OVF));
    EXPECT_EQ(65504.0f, rt(SPU_FMT_F16, 1e6f, SPU_ROUND_RTZ, SPU_OVF_OVF));
    EXPECT_TRUE(std::isinf(rt(SPU_FMT_F16, 1e6f, SPU_ROUND_RNE, SPU_OVF_OVF)));
    // formats without Inf/NaN saturate under ovf too
    EXPECT_EQ(6.0f, rt(SPU_FMT_E2M1, 7.0f, SPU_ROUND_RNE, SPU_OVF_OVF));
    EXPECT_EQ(28.0f, rt(SPU_FMT_E3M2, 1e9f, SPU_ROUND_RNE, SPU_OVF_OVF));
    EXPECT_EQ(-128.0f, rt(SPU_FMT_INT8, -128.4f));
    EXPECT_EQ(127.0f, rt(SPU_FMT_INT8, 127.5f));
    EXPECT_EQ(2.0f, rt(SPU_FMT_INT8, 2.5f));
    EXPECT_EQ(3.0f, rt(SPU_FMT_INT8, 2.5f, SPU_ROUND_RNA));
}

TEST(Tricky, Bf16NanDecodeKeepsPayload)
{
    // bf16 widens to f32 bit for bit (docs/numerics.md): scalar and bulk
    // decode agree, payload and signalling bit kept; f16 / e5m2 NaNs give
    // the canonical quiet NaN with their sign
    auto bits = [](float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; };
    for (uint32_t c : {0x7F81u, 0xFF81u, 0x7FC0u, 0x7FFFu, 0xFFC1u, 0x7F80u, 0x0001u, 0x3F80u}) {
        EXPECT_EQ(bits(spu_num_to_f32(SPU_FMT_BF16, c)), c << 16) << std::hex << c;
        uint16_t h = (uint16_t)c;
        float f;
        ASSERT_EQ(spu_convert_to_f32(SPU_FMT_BF16, &h, &f, 1), 0);
        EXPECT_EQ(bits(f), c << 16) << std::hex << c;
    }
    EXPECT_EQ(bits(spu_num_to_f32(SPU_FMT_F16, 0x7C01u)), 0x7FC00000u);
    EXPECT_EQ(bits(spu_num_to_f32(SPU_FMT_F16, 0xFE01u)), 0xFFC00000u);
    EXPECT_EQ(bits(spu_num_to_f32(SPU_FMT_E5M2, 0x7Du)), 0x7FC00000u);
}

TEST(Tricky, Specials)
{
    const float inf = INFINITY, nan = NAN;
    EXPECT_EQ(0x7Eu, spu_from_f32(SPU_FMT_E4M3, inf, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0x7Fu, spu_from_f32(SPU_FMT_E4M3, inf, SPU_ROUND_RNE, SPU_OVF_OVF, 0));
    EXPECT_EQ(0xFFu, spu_from_f32(SPU_FMT_E4M3, -nan, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0xFCu, spu_from_f32(SPU_FMT_E5M2, -inf, SPU_ROUND_RNE, SPU_OVF_OVF, 0));
    EXPECT_EQ(0xFBu, spu_from_f32(SPU_FMT_E5M2, -inf, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0x7Eu, spu_from_f32(SPU_FMT_E5M2, nan, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0x7E00u, spu_from_f32(SPU_FMT_F16, nan, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0x7FC0u, spu_from_f32(SPU_FMT_BF16, nan, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    // signalling NaN stays NaN (quiet bit set) even when the payload is dropped
    EXPECT_EQ(0x7E00u, spu_f32_to_code(SPU_FMT_F16, 0x7F800001u, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0x00u, spu_from_f32(SPU_FMT_E2M1, nan, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0xFFu, spu_from_f32(SPU_FMT_E8M0, nan, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0x80u, spu_from_f32(SPU_FMT_E4M3, -0.0f, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0x80u, spu_from_f32(SPU_FMT_E4M3, -1e-30f, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0x8u, spu_from_f32(SPU_FMT_E2M1, -0.0f, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    // subnormals: f32 subnormal inputs are not flushed
    EXPECT_EQ(0x0001u, spu_f32_to_code(SPU_FMT_BF16, 0x00010000u, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0x0001u, spu_f32_to_code(SPU_FMT_BF16, 0x00008001u, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0x0000u, spu_f32_to_code(SPU_FMT_BF16, 0x00008000u, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(std::ldexp(3.0f, -9), rt(SPU_FMT_E4M3, std::ldexp(3.0f, -9)));   // subnormal 3*2^-9
    EXPECT_EQ(std::ldexp(1.0f, -16), rt(SPU_FMT_E5M2, std::ldexp(1.5f, -17), SPU_ROUND_RNA));
    // e8m0: powers of two, ties up, sign ignored, zero -> 2^-127
    EXPECT_EQ(127u, spu_from_f32(SPU_FMT_E8M0, -1.0f, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(128u, spu_from_f32(SPU_FMT_E8M0, 1.5f, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(127u, spu_from_f32(SPU_FMT_E8M0, 1.49f, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(127u, spu_from_f32(SPU_FMT_E8M0, 1.99f, SPU_ROUND_RTZ, SPU_OVF_SAT, 0));
    EXPECT_EQ(0u, spu_from_f32(SPU_FMT_E8M0, 0.0f, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0xFEu, spu_from_f32(SPU_FMT_E8M0, 3e38f, SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    EXPECT_EQ(0xFFu, spu_from_f32(SPU_FMT_E8M0, 3e38f, SPU_ROUND_RNE, SPU_OVF_OVF, 0));
}

TEST(Names, Lookup)
{
    for (int f = 0; f < SPU_FMT_COUNT; f++)
        EXPECT_EQ(f, spu_fmt_from_name(spu_fmt_name((spu_fmt)f)));
    for (int f = 0; f < SPU_MX_COUNT; f++)
        EXPECT_EQ(f, spu_mx_from_name(spu_mx_name((spu_mx_fmt)f)));
    EXPECT_LT(spu_fmt_from_name("e4m4"), 0);
    EXPECT_LT(spu_mx_from_name("mxfp7"), 0);
    EXPECT_EQ(SPU_ROUND_SR, spu_round_from_name("sr"));
    EXPECT_LT(spu_round_from_name("up"), 0);
    EXPECT_EQ(nullptr, spu_fmt_get(SPU_FMT_COUNT));
}

// Over all 2^N random values, the mean of the SR result equals the exact
// input (checked exactly: the sum of the results equals x * 2^N).
TEST(StochasticRounding, MeanIsExactOverAllRandomBits)
{
    std::mt19937 rng(7);
    const spu_fmt fmts[] = {SPU_FMT_F16, SPU_FMT_BF16, SPU_FMT_E4M3, SPU_FMT_E5M2,
                            SPU_FMT_E3M2, SPU_FMT_E2M3, SPU_FMT_E2M1, SPU_FMT_INT8};
    for (spu_fmt f : fmts) {
        const spu_fmt_info *fi = spu_fmt_get(f);
        unsigned N = fi->sr_bits;
        int inputs = N > 20 ? 3 : 8;
        for (int t = 0; t < inputs; t++) {
            float x;
            if (f == SPU_FMT_INT8) {
                // integer part plus 16 fraction bits
                x = (float)((int)(rng() % 200) - 100) + (float)(rng() & 0xFFFF) / 65536.0f;
            } else {
                // a normal target binade, random f32 mantissa
                int e = (int)(rng() % (unsigned)(fi->emax + 1 - (1 - fi->bias))) + (1 - fi->bias);
                if (e > 20) e = 20;
                x = u2f(((uint32_t)(e + 127) << 23) | (rng() & 0x7FFFFF));
                if (x >= (float)fi->max_value) x = (float)fi->max_value * 0.75f;
                if (rng() & 1) x = -x;
            }
            long double sum = 0;
            for (uint32_t R = 0; R < (1u << N); R++)
                sum += spu_num_to_f32(f, spu_from_f32(f, x, SPU_ROUND_SR, SPU_OVF_SAT, R));
            EXPECT_EQ(std::ldexp((long double)x, (int)N), sum) << fi->name << " x=" << x;
        }
    }
}

TEST(StochasticRounding, DeterministicStreamAndHighBitsIgnored)
{
    std::vector<float> x(1000);
    for (size_t i = 0; i < x.size(); i++)
        x[i] = 0.013f * (float)i - 3.3f;
    std::vector<uint8_t> a(1000), b(1000);
    spu_cvt_opts o{SPU_ROUND_SR, SPU_OVF_SAT, 42, 0};
    ASSERT_EQ(0, spu_convert_from_f32(SPU_FMT_E4M3, x.data(), a.data(), 1000, &o));
    int differs_from_rne = 0;
    for (size_t i = 0; i < 1000; i++) {
        uint32_t r = spu_sr_random(42, i);
        EXPECT_EQ(spu_from_f32(SPU_FMT_E4M3, x[i], SPU_ROUND_SR, SPU_OVF_SAT, r), a[i]);
        EXPECT_EQ(spu_from_f32(SPU_FMT_E4M3, x[i], SPU_ROUND_SR, SPU_OVF_SAT, r & 0xFFFFF), a[i]);
        differs_from_rne += a[i] != spu_from_f32(SPU_FMT_E4M3, x[i], SPU_ROUND_RNE, SPU_OVF_SAT, 0);
    }
    EXPECT_GT(differs_from_rne, 100);
    // chunking with index0 gives the same stream
    o.index0 = 500;
    ASSERT_EQ(0, spu_convert_from_f32(SPU_FMT_E4M3, x.data() + 500, b.data(), 500, &o));
    EXPECT_EQ(0, std::memcmp(a.data() + 500, b.data(), 500));
    // known values of the generator (splitmix64 with the documented constants)
    EXPECT_EQ(spu_sr_random(0, 0), (uint32_t)(0xE220A8397B1DCDAFull >> 32));
}

// ---- MX ----------------------------------------------------------------------
TEST(Mx, ScaleRule)
{
    EXPECT_EQ(0xFF, spu_mx_scale(SPU_MX_FP8_E4M3, f2u(NAN), SPU_MX_SCALE_FLOOR));
    EXPECT_EQ(0xFF, spu_mx_scale(SPU_MX_FP8_E4M3, f2u(-INFINITY), SPU_MX_SCALE_FLOOR));
    EXPECT_EQ(0x00, spu_mx_scale(SPU_MX_FP8_E4M3, 0, SPU_MX_SCALE_FLOOR));
    EXPECT_EQ(0x00, spu_mx_scale(SPU_MX_FP8_E4M3, 0x80000000u, SPU_MX_SCALE_CEIL));
    EXPECT_EQ(127, spu_mx_scale(SPU_MX_FP8_E4M3, f2u(448.0f), SPU_MX_SCALE_FLOOR));
    EXPECT_EQ(127, spu_mx_scale(SPU_MX_FP8_E4M3, f2u(448.0f), SPU_MX_SCALE_CEIL));
    EXPECT_EQ(127, spu_mx_scale(SPU_MX_FP8_E4M3, f2u(500.0f), SPU_MX_SCALE_FLOOR));
    EXPECT_EQ(128, spu_mx_scale(SPU_MX_FP8_E4M3, f2u(500.0f), SPU_MX_SCALE_CEIL));
    EXPECT_EQ(127 - 2, spu_mx_scale(SPU_MX_FP4_E2M1, f2u(1.0f), SPU_MX_SCALE_FLOOR));
    EXPECT_EQ(127, spu_mx_scale(SPU_MX_FP4_E2M1, f2u(6.0f), SPU_MX_SCALE_CEIL));
    EXPECT_EQ(128, spu_mx_scale(SPU_MX_FP4_E2M1, f2u(6.5f), SPU_MX_SCALE_CEIL));
    EXPECT_EQ(127, spu_mx_scale(SPU_MX_FP4_E2M1, f2u(6.5f), SPU_MX_SCALE_FLOOR));
    EXPECT_EQ(127, spu_mx_scale(SPU_MX_INT8, f2u(1.5f), SPU_MX_SCALE_FLOOR));
    EXPECT_EQ(128, spu_mx_scale(SPU_MX_INT8, f2u(1.99f), SPU_MX_SCALE_CEIL));
    EXPECT_EQ(0, spu_mx_scale(SPU_MX_FP8_E4M3, 1u, SPU_MX_SCALE_FLOOR));           // clamp -127
    EXPECT_EQ(127 + 127 - 15, spu_mx_scale(SPU_MX_FP8_E5M2, f2u(3e38f), SPU_MX_SCALE_FLOOR));
    EXPECT_EQ(254, spu_mx_scale(SPU_MX_INT8, f2u(3e38f), SPU_MX_SCALE_FLOOR));      // 127 + 127
}

TEST(Mx, BlocksZeroNanClipAndDequant)
{
    std::vector<float> x(96, 0.0f);
    x[1] = -0.0f;
    for (int i = 32; i < 64; i++) x[i] = (float)(i - 40) * 1.1f;
    x[40] = 500.0f;   // clips to 448 under floor
    x[70] = NAN;
    std::vector<uint8_t> codes(96), scales(3);
    std::vector<float> deq(96);
    ASSERT_EQ(0, spu_mx_quantize(SPU_MX_FP8_E4M3, x.data(), 1, 96, nullptr, codes.data(), scales.data(), deq.data()));
    EXPECT_EQ(0, scales[0]);
    EXPECT_EQ(0x80, codes[1]);
    EXPECT_TRUE(std::signbit(deq[1]));
    EXPECT_EQ(127, scales[1]);
    EXPECT_EQ(448.0f, deq[40]);
    EXPECT_EQ(0xFF, scales[2]);
    for (int i = 64; i < 96; i++) EXPECT_TRUE(std::isnan(deq[i]));
    spu_mx_opts o{32, SPU_MX_SCALE_CEIL, SPU_ROUND_RNE, 0};
    ASSERT_EQ(0, spu_mx_quantize(SPU_MX_FP8_E4M3, x.data(), 1, 96, &o, codes.data(), scales.data(), deq.data()));
    EXPECT_EQ(128, scales[1]);
    EXPECT_EQ(512.0f, deq[40]);   // 500/2 = 250 -> 256 (e4m3 step 16 in [128, 256))
    // dequant = element * 2^X exactly
    for (int i = 32; i < 64; i++)
        EXPECT_EQ(deq[i], spu_mx_dequant(SPU_MX_FP8_E4M3, codes[i], scales[1]));
}

TEST(Mx, Int8ImplicitScale)
{
    float x[4] = {1.0f, -1.984375f, 0.5f, -2.0f};
    uint8_t c[4], s;
    float d[4];
    ASSERT_EQ(0, spu_mx_quantize(SPU_MX_INT8, x, 1, 4, nullptr, c, &s, d));
    // amax = 2 -> X = floor(log2 2) - 0 = 1; elements are round(x * 2^(6-1))
    EXPECT_EQ(128, s);
    EXPECT_EQ(32, c[0]);
    EXPECT_EQ((uint8_t)-64, c[1]);   // -63.5 ties to even
    EXPECT_EQ(16, c[2]);
    EXPECT_EQ((uint8_t)-64, c[3]);
    EXPECT_EQ(-2.0f, d[1]);
    EXPECT_EQ(1.0f, d[0]);
    float big[2] = {-1.999f, 0.0f};
    ASSERT_EQ(0, spu_mx_quantize(SPU_MX_INT8, big, 1, 2, nullptr, c, &s, d));
    EXPECT_EQ(127, s);
    EXPECT_EQ((uint8_t)-127, c[0]);  // symmetric clamp, never -128
}

// ---- AVX2 == scalar ---------------------------------------------------------------
std::vector<float> test_inputs(size_t n, uint32_t seed)
{
    std::mt19937 rng(seed);
    std::vector<float> x(n);
    const uint32_t specials[] = {0, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFA00001u,
                                 0x00000001u, 0x807FFFFFu, 0x00800000u, 0x7F7FFFFFu, 0x43E80000u,
                                 0x43E80001u, 0x47700000u, 0x3A800000u, 0x43C80000u};
    for (size_t i = 0; i < n; i++) {
        uint32_t r = rng();
        switch (r % 8) {
        case 0: x[i] = u2f(specials[rng() % (sizeof specials / 4)]); break;
        case 1: x[i] = u2f(rng()); break;  // any bit pattern
        case 2: x[i] = u2f(rng() & 0x807FFFFFu); break;  // f32 subnormals
        default: {
            int e = (int)(rng() % 60) - 30;
            x[i] = std::ldexp((float)(int32_t)(rng() % 2000001) - 1e6f, e) * 1e-6f;
        }
        }
    }
    return x;
}

TEST(Avx2, ElementwiseEqualsScalar)
{
    if (!spu_numerics_have_avx2())
        GTEST_SKIP() << "no AVX2 on this CPU";
    std::vector<float> x = test_inputs(1 << 16, 3);
    for (int f = SPU_FMT_F16; f < SPU_FMT_COUNT; f++)
        for (int r = 0; r < 3; r++)
            for (int o = 0; o < 2; o++) {
                size_t n = x.size() - 5;  // exercise the scalar tail
                size_t eb = spu_fmt_elem_bytes((spu_fmt)f);
                std::vector<uint8_t> a(n * eb), b(n * eb);
                spu_cvt_opts op{(spu_round)r, (spu_overflow)o, 0, 0};
                ASSERT_EQ(0, spu_convert_from_f32((spu_fmt)f, x.data(), a.data(), n, &op));
                ASSERT_EQ(0, spu_convert_from_f32_scalar((spu_fmt)f, x.data(), b.data(), n, &op));
                ASSERT_EQ(0, std::memcmp(a.data(), b.data(), n * eb))
                    << spu_fmt_name((spu_fmt)f) << " round " << r << " ovf " << o;
            }
}

TEST(Avx2, MxEqualsScalar)
{
    if (!spu_numerics_have_avx2())
        GTEST_SKIP() << "no AVX2 on this CPU";
    std::vector<float> x = test_inputs(96 * 40, 5);
    // whole blocks of tiny values, of zeros and of one binade to exercise the scale
    for (int i = 0; i < 32; i++) x[i] = u2f(0x00000100u + (uint32_t)i * 77);
    for (int i = 32; i < 64; i++) x[i] = 0.0f;
    for (int i = 64; i < 96; i++) x[i] = 1.0f + (float)i / 128.0f;
    for (int i = 96; i < 200; i++) x[i] = std::ldexp(x[i], -120);
    for (int f = 0; f < SPU_MX_COUNT; f++)
        for (int sc = 0; sc < 2; sc++)
            for (int r = 0; r < 3; r++)
                for (size_t blk : {32u, 16u, 8u, 7u}) {
                    for (size_t cols : {96u, 90u}) {
                        size_t rows = x.size() / cols, n = rows * cols;
                        size_t nb = rows * spu_mx_blocks_per_row(cols, blk);
                        std::vector<uint8_t> ca(n), cb(n), sa(nb), sb(nb);
                        std::vector<float> da(n), db(n);
                        spu_mx_opts o{blk, (spu_mx_scale_rule)sc, (spu_round)r, 0};
                        ASSERT_EQ(0, spu_mx_quantize((spu_mx_fmt)f, x.data(), rows, cols, &o, ca.data(), sa.data(), da.data()));
                        ASSERT_EQ(0, spu_mx_quantize_scalar((spu_mx_fmt)f, x.data(), rows, cols, &o, cb.data(), sb.data(), db.data()));
                        std::string what = std::string(spu_mx_name((spu_mx_fmt)f)) + " scale " + std::to_string(sc) +
                                           " round " + std::to_string(r) + " block " + std::to_string(blk) +
                                           " cols " + std::to_string(cols);
                        ASSERT_EQ(sa, sb) << what;
                        ASSERT_EQ(ca, cb) << what;
                        ASSERT_EQ(0, std::memcmp(da.data(), db.data(), n * 4)) << what;
                    }
                }
}

// ---- products and dot ------------------------------------------------------------------
TEST(Products, AllE4m3PairsExact)
{
    for (uint32_t a = 0; a < 256; a++)
        for (uint32_t b = 0; b < 256; b++) {
            spu_prod p;
            ASSERT_EQ(0, spu_num_mul_exact(SPU_FMT_E4M3, a, SPU_FMT_E5M2, b, &p));
            double va = spu_num_to_f32(SPU_FMT_E4M3, a), vb = spu_num_to_f32(SPU_FMT_E5M2, b);
            double want = va * vb;  // exact in double (<= 8 significant bits)
            if (std::isnan(want)) {
                ASSERT_EQ(SPU_FCLASS_NAN, p.cls) << a << " " << b;
            } else if (std::isinf(want)) {
                ASSERT_EQ(SPU_FCLASS_INF, p.cls);
                ASSERT_EQ(want < 0, p.sign != 0);
            } else if (want == 0) {
                ASSERT_EQ(SPU_FCLASS_ZERO, p.cls);
            } else {
                ASSERT_EQ(want, std::ldexp((double)p.sig, p.exp) * (p.sign ? -1 : 1)) << a << " " << b;
            }
        }
}

TEST(Products, MxDotExact)
{
    std::mt19937 rng(11);
    for (int t = 0; t < 200; t++) {
        uint8_t a[32], b[32];
        double sum = 0;
        for (int i = 0; i < 32; i++) {
            a[i] = (uint8_t)(rng() & 0xFF);
            b[i] = (uint8_t)(rng() & 0xFF);
            if ((a[i] & 0x7F) == 0x7F) a[i] = 0x12;  // no NaN
            if ((b[i] & 0x7F) == 0x7F) b[i] = 0x93;
            sum += (double)spu_num_to_f32(SPU_FMT_E4M3, a[i]) * spu_num_to_f32(SPU_FMT_E4M3, b[i]);
        }
        uint8_t sa = (uint8_t)(100 + rng() % 50), sb = (uint8_t)(100 + rng() % 50);
        // the double sum is exact (products span 2^-18..2^17, 32 terms)
        float want = (float)std::ldexp(sum, sa - 127 + sb - 127);
        EXPECT_EQ(want, spu_mx_dot_exact(SPU_MX_FP8_E4M3, a, sa, SPU_MX_FP8_E4M3, b, sb, 32));
    }
    uint8_t one = 0x38, nanc = 0x7F;  // e4m3 1.0, NaN
    EXPECT_TRUE(std::isnan(spu_mx_dot_exact(SPU_MX_FP8_E4M3, &nanc, 127, SPU_MX_FP8_E4M3, &one, 127, 1)));
    EXPECT_TRUE(std::isnan(spu_mx_dot_exact(SPU_MX_FP8_E4M3, &one, 0xFF, SPU_MX_FP8_E4M3, &one, 127, 1)));
    EXPECT_EQ(1.0f, spu_mx_dot_exact(SPU_MX_FP8_E4M3, &one, 127, SPU_MX_FP8_E4M3, &one, 127, 1));
    uint8_t i64 = 64;  // mxint8 64 * 2^-6 = 1
    EXPECT_EQ(2.0f, spu_mx_dot_exact(SPU_MX_INT8, &i64, 128, SPU_MX_FP8_E4M3, &one, 127, 1));
}

TEST(Packing, RoundTripAndLayout)
{
    uint8_t c4[5] = {0x1, 0x2, 0x3, 0xF, 0x7}, p[8], u[8];
    ASSERT_EQ(3u, spu_pack_codes(SPU_FMT_E2M1, c4, 5, p));
    EXPECT_EQ(0x21, p[0]);
    EXPECT_EQ(0xF3, p[1]);
    EXPECT_EQ(0x07, p[2]);
    spu_unpack_codes(SPU_FMT_E2M1, p, 5, u);
    EXPECT_EQ(0, std::memcmp(c4, u, 5));
    uint8_t c6[4] = {0x3F, 0x01, 0x20, 0x15};
    ASSERT_EQ(3u, spu_pack_codes(SPU_FMT_E3M2, c6, 4, p));
    // bit stream: 111111 100000 000001 101010 (LSB first)
    EXPECT_EQ(0x7F, p[0]);
    EXPECT_EQ(0x00, p[1]);
    EXPECT_EQ(0x56, p[2]);
    spu_unpack_codes(SPU_FMT_E3M2, p, 4, u);
    EXPECT_EQ(0, std::memcmp(c6, u, 4));
    EXPECT_EQ(4u, spu_pack_bytes(SPU_FMT_E2M3, 5));
}

}  // namespace
