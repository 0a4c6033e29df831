// test_acc.cc -- spu_acc_fx (e4m3 x e4m3 and e5m2 x e5m2 configurations)
// cycle by cycle against its C twin, the sums against the exact value from
// the library's decode, order independence, sticky flags and overflow; and
// spu_fx2f32 against its twin and an independent long-double rounding.
#include <gtest/gtest.h>
#include <algorithm>
#include <memory>
#include <vector>

#include "Vspu_tb_acc.h"
#include "rtln_util.h"

using namespace rtln;

namespace {

__extension__ typedef __int128 i128;

i128 wide_to_i128(const VlWide<3> &w, unsigned bits) {
    unsigned __int128 v = ((unsigned __int128)w[2] << 64) | ((unsigned __int128)w[1] << 32) | w[0];
    v &= (((unsigned __int128)1) << bits) - 1;
    if ((v >> (bits - 1)) & 1) v |= ~((((unsigned __int128)1) << bits) - 1);
    return (i128)v;
}
i128 q_to_i128(uint64_t q, unsigned bits) {
    int64_t v = (int64_t)(q << (64 - bits)) >> (64 - bits);
    return v;
}
i128 twin_acc(const spu_hw_acc_fx &s) {
    return (i128)(((unsigned __int128)s.acc[1] << 64) | s.acc[0]);
}

// Exact sum of products in units of 2^lsb, from the library's decode only.
i128 exact_units(spu_fmt f, const std::vector<std::pair<uint8_t, uint8_t>> &ops, int lsb) {
    i128 s = 0;
    for (auto &o : ops) {
        spu_num a, b;
        spu_num_decode(f, o.first, &a);
        spu_num_decode(f, o.second, &b);
        if (a.cls == SPU_FCLASS_NAN || b.cls == SPU_FCLASS_NAN || a.cls == SPU_FCLASS_INF ||
            b.cls == SPU_FCLASS_INF)
            continue;
        i128 t = (i128)((unsigned __int128)((uint64_t)a.sig * b.sig) << (a.exp + b.exp - lsb));
        s += (a.sign ^ b.sign) ? -t : t;
    }
    return s;
}

struct AccTest : ::testing::Test {
    std::unique_ptr<Vspu_tb_acc> m{new Vspu_tb_acc};
    spu_hw_acc_fx t8, t5;
    int bad = 0;

    void SetUp() override {
        spu_hw_acc_fx_reset(&t8, 48, -18);
        spu_hw_acc_fx_reset(&t5, 80, -32);
        m->rst_i = 1; m->clk_i = 0; m->eval(); m->clk_i = 1; m->eval(); m->rst_i = 0;
    }
    // One clock: e4m3 product of (a8, b8) and e5m2 product of (a5, b5).
    void step(int clr, int valid, uint8_t a8, uint8_t b8, uint8_t a5, uint8_t b5) {
        spu_hw_fpprod p8, p5;
        spu_hw_mul_fp(SPU_FMT_E4M3, a8, SPU_FMT_E4M3, b8, &p8);
        spu_hw_mul_fp(SPU_FMT_E5M2, a5, SPU_FMT_E5M2, b5, &p5);
        m->clr_i = clr; m->valid_i = valid;
        m->p8_sign_i = p8.sign; m->p8_exp_i = (uint8_t)p8.exp & 0x7F; m->p8_sig_i = (uint8_t)p8.sig;
        m->p8_inf_i = p8.inf; m->p8_nan_i = p8.nan;
        m->p5_sign_i = p5.sign; m->p5_exp_i = (uint8_t)p5.exp; m->p5_sig_i = (uint8_t)p5.sig;
        m->p5_inf_i = p5.inf; m->p5_nan_i = p5.nan;
        m->clk_i = 0; m->eval(); m->clk_i = 1; m->eval();
        spu_hw_acc_fx_step(&t8, clr, valid, &p8);
        spu_hw_acc_fx_step(&t5, clr, valid, &p5);
        compare();
    }
    void compare() {
        unsigned f8 = spu_hw_acc_fx_nan(&t8) | spu_hw_acc_fx_inf(&t8) << 1 |
                      spu_hw_acc_fx_inf_sign(&t8) << 2 | t8.ovf_q << 3;
        unsigned f5 = spu_hw_acc_fx_nan(&t5) | spu_hw_acc_fx_inf(&t5) << 1 |
                      spu_hw_acc_fx_inf_sign(&t5) << 2 | t5.ovf_q << 3;
        bool ok8 = q_to_i128(m->acc8_o, 48) == twin_acc(t8) && m->flags8_o == f8;
        bool ok5 = wide_to_i128(m->acc5_o, 80) == twin_acc(t5) && m->flags5_o == f5;
        if ((!ok8 || !ok5) && bad++ < 10)
            ADD_FAILURE() << "acc mismatch: flags8 rtl " << (int)m->flags8_o << " twin " << f8
                          << ", flags5 rtl " << (int)m->flags5_o << " twin " << f5;
    }
};

// Random dot products of finite operands: RTL == twin every cycle, the
// final sum == the exact sum, and summing in reverse order gives the same bits.
TEST_F(AccTest, RandomDotProductsExact) {
    Rng r(21);
    auto finite8 = [&] { uint8_t c; do c = (uint8_t)r.u32(); while ((c & 0x7F) == 0x7F); return c; };
    auto finite5 = [&] { uint8_t c; do c = (uint8_t)r.u32(); while ((c & 0x7C) == 0x7C); return c; };
    for (int blk = 0; blk < 300; blk++) {
        int k = 1 + r.below(600);
        std::vector<std::pair<uint8_t, uint8_t>> o8(k), o5(k);
        for (int i = 0; i < k; i++) { o8[i] = {finite8(), finite8()}; o5[i] = {finite5(), finite5()}; }
        for (int pass = 0; pass < 2; pass++) {
            if (pass) { std::reverse(o8.begin(), o8.end()); std::reverse(o5.begin(), o5.end()); }
            for (int i = 0; i < k; i++)
                step(i == 0, 1, o8[i].first, o8[i].second, o5[i].first, o5[i].second);
            step(0, 0, 0, 0, 0, 0);   // idle cycle: sum must hold
            EXPECT_EQ(q_to_i128(m->acc8_o, 48), exact_units(SPU_FMT_E4M3, o8, -18)) << "blk " << blk;
            EXPECT_EQ(wide_to_i128(m->acc5_o, 80), exact_units(SPU_FMT_E5M2, o5, -32)) << "blk " << blk;
            EXPECT_EQ(m->flags8_o, 0); EXPECT_EQ(m->flags5_o, 0);
        }
    }
    EXPECT_EQ(bad, 0);
}

TEST_F(AccTest, StickyFlagsAndClear) {
    // e5m2: +Inf (0x7C x 1.0=0x3C) then -Inf -> NaN; e4m3 NaN 0x7F
    step(1, 1, 0x38, 0x38, 0x7C, 0x3C);
    EXPECT_EQ(m->flags5_o, 0x2);          // inf, positive
    step(0, 1, 0x7F, 0x38, 0x3C, 0x3C);
    EXPECT_EQ(m->flags8_o & 1, 1);        // NaN sticky
    EXPECT_EQ(m->flags5_o, 0x2);          // finite add keeps Inf
    step(0, 1, 0x38, 0x38, 0xFC, 0x3C);   // -Inf
    EXPECT_EQ(m->flags5_o & 1, 1);        // +Inf and -Inf -> NaN
    step(0, 1, 0x00, 0x7F, 0x00, 0x7C);   // 0 x NaN, 0 x Inf -> NaN products
    step(1, 1, 0x38, 0x38, 0x3C, 0x3C);   // clear: starts from this product
    EXPECT_EQ(m->flags8_o, 0); EXPECT_EQ(m->flags5_o, 0);
    EXPECT_EQ(q_to_i128(m->acc8_o, 48), (i128)1 << 18);   // 1.0 in units of 2^-18
    step(1, 0, 0, 0, 0, 0);                                // clear without a product
    EXPECT_EQ(q_to_i128(m->acc8_o, 48), 0);
    EXPECT_EQ(bad, 0);
}

TEST_F(AccTest, OverflowWrapsAndFlags) {
    // 448 * 448 = 200704 = 0x31000 * 2^-18... repeated until 2^47 is passed.
    i128 want = 0, unit = ((i128)200704) << 18;
    int first_ovf = -1;
    for (int i = 0; i < 3000; i++) {
        step(i == 0, 1, 0x7E, 0x7E, 0x3C, 0x3C);
        want += unit;
        if (first_ovf < 0 && (m->flags8_o & 8)) first_ovf = i;
    }
    EXPECT_EQ(first_ovf, (int)((((i128)1 << 47) - 1) / unit));   // first sum above 2^47 - 1
    EXPECT_EQ(q_to_i128(m->acc8_o, 48), q_to_i128((uint64_t)want, 48));  // wrapped modulo 2^48
    EXPECT_EQ(bad, 0);
}

// Independent reference: x is exact in long double (64-bit significand),
// ldexpl is exact, the cast to float is one IEEE RNE rounding.
uint32_t ref_round(int64_t x, int e) {
    return f32_bits((float)std::ldexp((long double)x, e));
}

TEST_F(AccTest, Fx2f32VsTwinAndLongDouble) {
    Rng r(33);
    int bad2 = 0;
    for (int i = 0; i < 300000; i++) {
        int w = 1 + r.below(64);
        uint64_t raw = r.next();
        int64_t x = w == 64 ? (int64_t)raw : (int64_t)(raw << (64 - w)) >> (64 - w);
        int e = (int)r.below(1024) - 512;            // full 10-bit range
        if (i % 3 == 0) e = -200 + (int)r.below(120); // around the subnormal range
        if (i % 3 == 1) e = 60 + (int)r.below(80);    // around the overflow
        if (i % 1000 == 0) x = 0;
        m->fx_x_i = (uint64_t)x; m->fx_e_i = (uint16_t)e & 0x3FF;
        m->fx_nan_i = 0; m->fx_inf_i = 0; m->fx_inf_sign_i = 0;
        m->eval();
        uint64_t xw[2] = {(uint64_t)x, x < 0 ? ~0ull : 0};
        uint32_t twin = spu_hw_fx2f32(xw, 64, e, 0, 0, 0);
        uint32_t ref = ref_round(x, e);
        if ((m->fx_f32_o != twin || twin != ref) && bad2++ < 10)
            ADD_FAILURE() << std::hex << "x=0x" << x << std::dec << " e=" << e << std::hex
                          << " rtl=0x" << m->fx_f32_o << " twin=0x" << twin << " ref=0x" << ref;
    }
    // specials
    m->fx_x_i = 5; m->fx_e_i = 0; m->fx_nan_i = 1; m->fx_inf_i = 1; m->eval();
    EXPECT_EQ(m->fx_f32_o, 0x7FC00000u);
    m->fx_nan_i = 0; m->fx_inf_sign_i = 1; m->eval();
    EXPECT_EQ(m->fx_f32_o, 0xFF800000u);
    EXPECT_EQ(bad2, 0);
}

}  // namespace
