// test_mx.cc -- spu_mx_dot (32 pairs, six element pairings) against its C
// twin, against the library's spu_dot_exact, and against an independent
// reference: exact 128-bit integer sum of the decoded products, rounded to
// odd at 64 bits, scaled exactly in long double and rounded once to float.
#include <gtest/gtest.h>
#include <cmath>
#include <memory>

#include "Vspu_tb_mx.h"
#include "rtln_util.h"

using namespace rtln;

namespace {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

struct Pair { const char *name; spu_fmt fa, fb; spu_mx_fmt ma, mb; };
const Pair kPairs[] = {
    {"e4m3", SPU_FMT_E4M3, SPU_FMT_E4M3, SPU_MX_FP8_E4M3, SPU_MX_FP8_E4M3},
    {"e5m2", SPU_FMT_E5M2, SPU_FMT_E5M2, SPU_MX_FP8_E5M2, SPU_MX_FP8_E5M2},
    {"e3m2", SPU_FMT_E3M2, SPU_FMT_E3M2, SPU_MX_FP6_E3M2, SPU_MX_FP6_E3M2},
    {"e2m3", SPU_FMT_E2M3, SPU_FMT_E2M3, SPU_MX_FP6_E2M3, SPU_MX_FP6_E2M3},
    {"e2m1", SPU_FMT_E2M1, SPU_FMT_E2M1, SPU_MX_FP4_E2M1, SPU_MX_FP4_E2M1},
    {"e4m3xe5m2", SPU_FMT_E4M3, SPU_FMT_E5M2, SPU_MX_FP8_E4M3, SPU_MX_FP8_E5M2},
};

uint32_t ref_dot(spu_fmt fa, const uint8_t *a, uint8_t sa, spu_fmt fb, const uint8_t *b, uint8_t sb) {
    const int lsb = -300;  // below every product exponent here
    i128 s = 0;
    bool nan = sa == 0xFF || sb == 0xFF, pinf = false, ninf = false;
    for (int k = 0; k < 32; k++) {
        spu_num x, y;
        spu_num_decode(fa, a[k], &x);
        spu_num_decode(fb, b[k], &y);
        bool xz = x.cls == SPU_FCLASS_ZERO, yz = y.cls == SPU_FCLASS_ZERO;
        if (x.cls == SPU_FCLASS_NAN || y.cls == SPU_FCLASS_NAN ||
            (x.cls == SPU_FCLASS_INF && yz) || (y.cls == SPU_FCLASS_INF && xz)) { nan = true; continue; }
        if (x.cls == SPU_FCLASS_INF || y.cls == SPU_FCLASS_INF) { (x.sign ^ y.sign ? ninf : pinf) = true; continue; }
        if (xz || yz) continue;
        // products span at most 2^-32 .. 2^32: shift by at most 268+... fits i128
        int sh = x.exp + y.exp - lsb;
        u128 t = (u128)((uint64_t)x.sig * y.sig);
        // keep the sum in 127 bits: rescale to 2^-40 units (exact for these formats)
        t <<= (sh - 260);
        s += (x.sign ^ y.sign) ? -(i128)t : (i128)t;
    }
    if (nan || (pinf && ninf)) return 0x7FC00000u;
    if (pinf || ninf) return ninf ? 0xFF800000u : 0x7F800000u;
    if (s == 0) return 0;
    bool neg = s < 0;
    u128 mag = neg ? (u128)(-s) : (u128)s;
    int shift = 0;
    while ((mag >> 64) != 0) {  // round to odd into 64 bits: keeps one rounding later
        u128 low = mag & 1;
        mag = (mag >> 1) | low;
        shift++;
    }
    long double v = std::ldexp((long double)(uint64_t)mag, shift + (lsb + 260) + (int)sa - 127 + (int)sb - 127);
    float f = (float)(neg ? -v : v);
    return f32_bits(f);
}

struct MxTest : ::testing::Test {
    std::unique_ptr<Vspu_tb_mx> m{new Vspu_tb_mx};
    int bad = 0;
    long nonfinite = 0, subnormal = 0, zero = 0, normal = 0;

    uint32_t rtl(int i) {
        switch (i) {
            case 0: return m->e4m3_o; case 1: return m->e5m2_o; case 2: return m->e3m2_o;
            case 3: return m->e2m3_o; case 4: return m->e2m1_o; default: return m->e4m3_e5m2_o;
        }
    }
    void run(const uint8_t *a, const uint8_t *b, uint8_t sa, uint8_t sb) {
        for (int w = 0; w < 8; w++) {
            m->a_i[w] = (uint32_t)a[4*w] | (uint32_t)a[4*w+1] << 8 | (uint32_t)a[4*w+2] << 16 | (uint32_t)a[4*w+3] << 24;
            m->b_i[w] = (uint32_t)b[4*w] | (uint32_t)b[4*w+1] << 8 | (uint32_t)b[4*w+2] << 16 | (uint32_t)b[4*w+3] << 24;
        }
        m->sa_i = sa; m->sb_i = sb;
        m->eval();
        for (int i = 0; i < 6; i++) {
            const Pair &p = kPairs[i];
            uint8_t am[32], bm[32];
            unsigned wa = spu_fmt_get(p.fa)->bits, wb = spu_fmt_get(p.fb)->bits;
            for (int k = 0; k < 32; k++) { am[k] = a[k] & ((1u << wa) - 1); bm[k] = b[k] & ((1u << wb) - 1); }
            uint32_t got = rtl(i);
            uint32_t twin = spu_hw_mx_dot(p.fa, am, sa, p.fb, bm, sb, 32);
            uint32_t ref = ref_dot(p.fa, am, sa, p.fb, bm, sb);
            uint32_t lib = f32_bits(spu_mx_dot_exact(p.ma, am, sa, p.mb, bm, sb, 32));
            bool lib_ok = std::isnan(bits_f32(twin)) ? std::isnan(bits_f32(lib)) : lib == twin;
            if ((got != twin || twin != ref || !lib_ok) && bad++ < 10)
                ADD_FAILURE() << p.name << std::hex << " sa=0x" << (int)sa << " sb=0x" << (int)sb
                              << " rtl=0x" << got << " twin=0x" << twin << " ref=0x" << ref
                              << " lib=0x" << lib;
            uint32_t mag = twin & 0x7FFFFFFFu;
            if (mag >= 0x7F800000u) nonfinite++;
            else if (mag == 0) zero++;
            else if (mag < 0x00800000u) subnormal++;
            else normal++;
        }
    }
};

TEST_F(MxTest, RandomBlocksAndScales) {
    Rng r(44);
    uint8_t a[32], b[32];
    for (int blk = 0; blk < 20000; blk++) {
        bool specials = r.below(10) == 0;
        for (int k = 0; k < 32; k++) {
            a[k] = (uint8_t)r.u32(); b[k] = (uint8_t)r.u32();
            if (!specials) {   // keep the fp8 codes finite in most blocks
                if ((a[k] & 0x7C) == 0x7C) a[k] &= 0xBF;
                if ((b[k] & 0x7C) == 0x7C) b[k] &= 0xBF;
            }
        }
        uint8_t sa, sb;
        switch (r.below(6)) {
            case 0: sa = (uint8_t)r.below(255); sb = (uint8_t)r.below(255); break;  // anywhere
            case 1: sa = (uint8_t)r.below(20); sb = (uint8_t)r.below(40); break;    // underflow
            case 2: sa = (uint8_t)(235 + r.below(20)); sb = (uint8_t)(200 + r.below(55)); break;  // overflow
            case 3: sa = r.below(2) ? 0xFF : 127; sb = r.below(2) ? 0xFF : (uint8_t)r.u32(); break;  // NaN scale
            default: sa = (uint8_t)(117 + r.below(20)); sb = (uint8_t)(117 + r.below(20)); break;
        }
        run(a, b, sa, sb);
    }
    EXPECT_EQ(bad, 0);
    // the sweep reached every kind of result
    EXPECT_GT(nonfinite, 0); EXPECT_GT(subnormal, 0); EXPECT_GT(zero, 0); EXPECT_GT(normal, 0);
}

TEST_F(MxTest, ExactCancellationGivesPlusZero) {
    Rng r(45);
    for (int i = 0; i < 6; i++) {
        unsigned wa = spu_fmt_get(kPairs[i].fa)->bits, wb = spu_fmt_get(kPairs[i].fb)->bits;
        uint8_t a[32], b[32];
        for (int k = 0; k < 16; k++) {
            do a[k] = (uint8_t)(r.u32() & ((1u << wa) - 1));
            while (std::isnan(spu_num_to_f32(kPairs[i].fa, a[k])) || std::isinf(spu_num_to_f32(kPairs[i].fa, a[k])));
            do b[k] = (uint8_t)(r.u32() & ((1u << wb) - 1));
            while (std::isnan(spu_num_to_f32(kPairs[i].fb, b[k])) || std::isinf(spu_num_to_f32(kPairs[i].fb, b[k])));
            a[16 + k] = a[k] ^ (uint8_t)(1u << (wa - 1));   // -a_k
            b[16 + k] = b[k];
        }
        run(a, b, 127, 127);
        EXPECT_EQ(rtl(i), 0u) << kPairs[i].name;
    }
    EXPECT_EQ(bad, 0);
}

}  // namespace
