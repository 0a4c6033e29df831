// test_pipe.cc -- the pipelined numerics units (hw/rtl/numerics/*_pipe.v,
// spu_acc_fx STAGES = 1..3) at every depth, streaming one input per clock and
// checking each output against the C twin of the input presented STAGES
// cycles earlier (latency-aligned). Multipliers: every pair of <= 8-bit
// codes exhaustively (every format, both depths), bf16 x bf16 and
// fp16 x fp16 sampled.
// Converters, fx2f32, accumulators, MX dot units: sampled (random plus
// special values), the combinational depth being exhaustive or wider in
// test_mul / test_cvt / test_acc / test_mx. mxint8 (no C twin in
// numerics_hw): the exact integer sum of the int8 products through
// spu_hw_fx2f32 at 2^(sa + sb - 254 - 12).
// The slot tables below must follow tests/rtl_numerics/spu_tb_pipe.v.
#include <gtest/gtest.h>
#include <deque>
#include <memory>
#include <vector>

#include "Vspu_tb_pipe.h"
#include "rtln_util.h"

using namespace rtln;

namespace {

template <size_t W>
uint64_t bits_of(const VlWide<W> &w, unsigned lo, unsigned n) {
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        unsigned b = lo + i;
        v |= (uint64_t)((w[b / 32] >> (b % 32)) & 1u) << i;
    }
    return v;
}

uint64_t pack(const spu_hw_fpprod &p) {
    return (uint64_t)p.sig | ((uint64_t)(uint16_t)(int16_t)p.exp << 32) |
           ((uint64_t)p.sign << 48) | ((uint64_t)p.zero << 49) |
           ((uint64_t)p.inf << 50) | ((uint64_t)p.nan << 51);
}

struct MulSlot { spu_fmt fa, fb; int lat; bool int8; };
const MulSlot kMul[18] = {
    {SPU_FMT_E4M3, SPU_FMT_E4M3, 1, true}, {SPU_FMT_E4M3, SPU_FMT_E4M3, 2, true},
    {SPU_FMT_E4M3, SPU_FMT_E4M3, 1, false}, {SPU_FMT_E4M3, SPU_FMT_E4M3, 2, false},
    {SPU_FMT_E5M2, SPU_FMT_E5M2, 1, false}, {SPU_FMT_E5M2, SPU_FMT_E5M2, 2, false},
    {SPU_FMT_E4M3, SPU_FMT_E5M2, 1, false}, {SPU_FMT_E4M3, SPU_FMT_E5M2, 2, false},
    {SPU_FMT_BF16, SPU_FMT_BF16, 1, false}, {SPU_FMT_BF16, SPU_FMT_BF16, 2, false},
    {SPU_FMT_E2M1, SPU_FMT_E2M1, 1, false}, {SPU_FMT_E2M1, SPU_FMT_E2M1, 2, false},
    {SPU_FMT_E2M3, SPU_FMT_E2M3, 1, false}, {SPU_FMT_E2M3, SPU_FMT_E2M3, 2, false},
    {SPU_FMT_E3M2, SPU_FMT_E3M2, 1, false}, {SPU_FMT_E3M2, SPU_FMT_E3M2, 2, false},
    {SPU_FMT_F16, SPU_FMT_F16, 1, false},   {SPU_FMT_F16, SPU_FMT_F16, 2, false},
};
struct CvtSlot { spu_fmt f; int lat; };
const CvtSlot kCvt[15] = {
    {SPU_FMT_BF16, 1}, {SPU_FMT_BF16, 2}, {SPU_FMT_BF16, 3},
    {SPU_FMT_E4M3, 1}, {SPU_FMT_E4M3, 2}, {SPU_FMT_E4M3, 3},
    {SPU_FMT_E5M2, 1}, {SPU_FMT_E5M2, 2}, {SPU_FMT_E5M2, 3},
    {SPU_FMT_BF16, 4}, {SPU_FMT_BF16, 5}, {SPU_FMT_E4M3, 4},
    {SPU_FMT_E4M3, 5}, {SPU_FMT_E5M2, 4}, {SPU_FMT_E5M2, 5},
};
struct MxSlot { spu_fmt fa, fb; bool int8; int n, lat; };
const MxSlot kMx[20] = {
    {SPU_FMT_E4M3, SPU_FMT_E4M3, false, 32, 1}, {SPU_FMT_E4M3, SPU_FMT_E4M3, false, 32, 2},
    {SPU_FMT_E4M3, SPU_FMT_E4M3, false, 32, 3}, {SPU_FMT_E4M3, SPU_FMT_E4M3, false, 32, 5},
    {SPU_FMT_E4M3, SPU_FMT_E4M3, false, 32, 7}, {SPU_FMT_E5M2, SPU_FMT_E5M2, false, 32, 2},
    {SPU_FMT_E3M2, SPU_FMT_E3M2, false, 32, 4}, {SPU_FMT_E2M3, SPU_FMT_E2M3, false, 32, 6},
    {SPU_FMT_E2M1, SPU_FMT_E2M1, false, 32, 5}, {SPU_FMT_E4M3, SPU_FMT_E5M2, false, 32, 3},
    {SPU_FMT_E4M3, SPU_FMT_E4M3, true, 32, 0},  {SPU_FMT_E4M3, SPU_FMT_E4M3, true, 32, 4},
    {SPU_FMT_E4M3, SPU_FMT_E4M3, false, 8, 3},  {SPU_FMT_E4M3, SPU_FMT_E4M3, true, 8, 2},
    {SPU_FMT_E2M1, SPU_FMT_E2M1, false, 32, 10}, {SPU_FMT_E4M3, SPU_FMT_E4M3, false, 32, 9},
    {SPU_FMT_E4M3, SPU_FMT_E4M3, false, 8, 8},  {SPU_FMT_E4M3, SPU_FMT_E4M3, false, 8, 11},
    {SPU_FMT_E4M3, SPU_FMT_E4M3, true, 8, 12},  {SPU_FMT_E2M1, SPU_FMT_E2M1, false, 32, 12},
};

struct PipeTest : ::testing::Test {
    std::unique_ptr<Vspu_tb_pipe> m{new Vspu_tb_pipe};
    int bad = 0;
    long checked = 0;
    void SetUp() override { m->clk_i = 0; m->eval(); }
    void tick() { m->clk_i = 1; m->eval(); m->clk_i = 0; m->eval(); }
    void fail(const std::string &what) {
        if (bad++ < 12) ADD_FAILURE() << what;
    }
};

// ---- multipliers ---------------------------------------------------------
struct MulIn { uint32_t a, b; };

TEST_F(PipeTest, MultipliersEveryDepthExhaustive8Bit) {
    std::deque<MulIn> hist;  // hist[L] = the input L cycles ago
    Rng r(151);
    const long n8 = 1 << 16, nbf = 100000;
    long seen_nan = 0;
    for (long t = 0; t < n8 + nbf + 3; t++) {
        MulIn in;
        if (t < n8) in = {(uint32_t)(t >> 8), (uint32_t)(t & 0xFF)};
        else in = {r.u32() & 0xFFFF, r.u32() & 0xFFFF};
        m->a_i = (uint16_t)in.a; m->b_i = (uint16_t)in.b;
        hist.push_front(in);
        if (hist.size() > 3) hist.pop_back();
        m->eval();
        for (int s = 0; s < 18; s++) {
            const MulSlot &k = kMul[s];
            if ((long)hist.size() <= k.lat) continue;
            const MulIn &x = hist[k.lat];
            // 8-bit formats only during the exhaustive phase, bf16 and fp16 always
            bool in8 = (t - k.lat) < n8;
            if (k.fa != SPU_FMT_BF16 && k.fa != SPU_FMT_F16 && !in8) continue;
            uint64_t got = bits_of(m->mul_o, 64 * s, 64), want;
            if (k.int8) {
                want = (uint16_t)spu_hw_mul_int8((int8_t)x.a, (int8_t)x.b);
            } else {
                unsigned wa = spu_fmt_get(k.fa)->bits, wb = spu_fmt_get(k.fb)->bits;
                spu_hw_fpprod p;
                ASSERT_EQ(spu_hw_mul_fp(k.fa, x.a & ((1u << wa) - 1), k.fb, x.b & ((1u << wb) - 1), &p), 0);
                want = pack(p);
                seen_nan += p.nan;
            }
            checked++;
            if (got != want) {
                char buf[200];
                snprintf(buf, sizeof buf, "mul slot %d (%s x %s%s, STAGES %d) a=0x%x b=0x%x rtl=0x%llx twin=0x%llx",
                         s, spu_fmt_name(k.fa), spu_fmt_name(k.fb), k.int8 ? " int8" : "", k.lat, x.a, x.b,
                         (unsigned long long)got, (unsigned long long)want);
                fail(buf);
            }
        }
        tick();
    }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(seen_nan, 0);
    EXPECT_GT(checked, 16L * n8);
}

// ---- fp32 -> narrow ------------------------------------------------------
struct CvtIn { uint32_t x, rbits; spu_round rd; spu_overflow ov; };

uint32_t interesting_f32(Rng &r) {
    static const uint32_t special[] = {0x0, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                       0x7F800001u, 0xFFFFFFFFu, 0x00000001u, 0x007FFFFFu,
                                       0x43E80000u /* 464 */, 0x47600000u /* 57344 */,
                                       0x3B000000u, 0x38800000u, 0x7F7FFFFFu};
    switch (r.below(4)) {
        case 0: return special[r.below(sizeof special / sizeof special[0])];
        case 1: return (r.u32() & 0x80FFFFFFu) | ((100u + r.below(60)) << 23);  // near 1
        case 2: return (r.u32() & 0x807FFFFFu) | ((110u + r.below(40)) << 23) | (r.below(2) ? 0x7FFFu : 0);
        default: return r.u32();
    }
}

TEST_F(PipeTest, ConvertersEveryDepthSampled) {
    std::deque<CvtIn> hist;
    Rng r(152);
    const long n = 300000;
    for (long t = 0; t < n + 5; t++) {
        CvtIn in{interesting_f32(r), r.u32(), (spu_round)r.below(4), (spu_overflow)r.below(2)};
        m->f32_i = in.x; m->round_i = in.rd; m->ovf_i = in.ov; m->rand_i = in.rbits & 0x1FFFFF;
        hist.push_front(in);
        if (hist.size() > 6) hist.pop_back();
        m->eval();
        for (int s = 0; s < 15; s++) {
            if ((long)hist.size() <= kCvt[s].lat) continue;
            const CvtIn &x = hist[kCvt[s].lat];
            uint32_t got = (uint32_t)bits_of(m->cvt_o, 16 * s, 16);
            uint32_t want = spu_hw_cvt_f32(kCvt[s].f, x.x, x.rd, x.ov, x.rbits);
            checked++;
            if (got != want) {
                char buf[200];
                snprintf(buf, sizeof buf, "cvt slot %d (%s, STAGES %d) x=0x%08x round=%d ovf=%d rbits=0x%x rtl=0x%x twin=0x%x",
                         s, spu_fmt_name(kCvt[s].f), kCvt[s].lat, x.x, x.rd, x.ov, x.rbits, got, want);
                fail(buf);
            }
        }
        tick();
    }
    EXPECT_EQ(bad, 0);
    long want_checked = 0;
    for (const CvtSlot &k : kCvt) want_checked += n + 5 - k.lat;
    EXPECT_EQ(checked, want_checked);
}

// ---- fixed point -> fp32 -------------------------------------------------
struct FxIn { uint64_t x; int32_t e; int nan, inf, isg; };

TEST_F(PipeTest, Fx2f32EveryDepthSampled) {
    std::deque<FxIn> hist;
    Rng r(153);
    const long n = 300000;
    long sub = 0, ovf = 0;
    for (long t = 0; t < n + 9; t++) {
        FxIn in;
        unsigned width = 1 + r.below(64);
        in.x = r.next();
        if (width < 64) in.x = (uint64_t)((int64_t)(in.x << (64 - width)) >> (64 - width));
        if (r.below(50) == 0) in.x = r.below(2) ? 0 : 0x8000000000000000ull;
        in.e = (int32_t)r.below(1024) - 512;
        unsigned sp = r.below(40);
        in.nan = sp == 0; in.inf = sp == 1 || sp == 2; in.isg = r.below(2);
        m->fx_x_i = in.x; m->fx_e_i = (uint32_t)in.e & 0x3FF;
        m->fx_nan_i = in.nan; m->fx_inf_i = in.inf; m->fx_inf_sign_i = in.isg;
        hist.push_front(in);
        if (hist.size() > 10) hist.pop_back();
        m->eval();
        for (int s = 0; s < 9; s++) {
            int lat = s + 1;
            if ((long)hist.size() <= lat) continue;
            const FxIn &x = hist[lat];
            uint64_t xw[2] = {x.x, (int64_t)x.x < 0 ? ~0ull : 0};
            uint32_t want = spu_hw_fx2f32(xw, 64, x.e, x.nan, x.inf, x.isg);
            uint32_t got = (uint32_t)bits_of(m->fx_o, 32 * s, 32);
            if (s == 0) {
                sub += ((want & 0x7F800000u) == 0) && (want & 0x7FFFFFu);
                ovf += (want & 0x7FFFFFFFu) == 0x7F800000u && !x.inf;
            }
            checked++;
            if (got != want) {
                char buf[200];
                snprintf(buf, sizeof buf, "fx2f32 STAGES %d x=0x%llx e=%d nan=%d inf=%d rtl=0x%08x twin=0x%08x",
                         lat, (unsigned long long)x.x, x.e, x.nan, x.inf, got, want);
                fail(buf);
            }
        }
        tick();
    }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(sub, 100);  // the subnormal and overflow paths were exercised
    EXPECT_GT(ovf, 100);
}

// ---- accumulators at STAGES = 1, 2, 3 -------------------------------------
// e4m3 products at STAGES 1 (latency 2) and 3 (latency 4), e5m2 products at
// STAGES 1 and 2 (latency 3), and with SPLIT = 1 e4m3 at STAGES 3 (latency
// 5), e5m2 at STAGES 2 (latency 4), all fed the same stream, every cycle
// against the twin's state of that many steps earlier.
TEST_F(PipeTest, AccumulatorEveryDepthCycleByCycle) {
    auto sx = [](const spu_hw_acc_fx &s, unsigned bits) {
        unsigned __int128 v = ((unsigned __int128)s.acc[1] << 64) | s.acc[0];
        if (bits < 128) v &= (((unsigned __int128)1) << bits) - 1;
        return v;
    };
    auto flags = [](const spu_hw_acc_fx &w) {
        return (unsigned)(spu_hw_acc_fx_nan(&w) | spu_hw_acc_fx_inf(&w) << 1 |
                          spu_hw_acc_fx_inf_sign(&w) << 2 | w.ovf_q << 3);
    };
    auto wide = [](const uint32_t *w) {
        return ((unsigned __int128)w[2] << 64) | ((unsigned __int128)w[1] << 32) | w[0];
    };
    spu_hw_acc_fx t8, t5;
    spu_hw_acc_fx_reset(&t8, 48, -18);
    spu_hw_acc_fx_reset(&t5, 80, -32);
    // reset through the input stages and the output register: five clocks
    m->rst_i = 1; tick(); tick(); tick(); tick(); tick(); m->rst_i = 0;
    Rng r(154);
    std::deque<std::pair<spu_hw_acc_fx, spu_hw_acc_fx>> states;  // twin after each step
    long nonzero = 0, ovf8 = 0;
    for (long t = 0; t < 200000; t++) {
        int clr = r.below(64) == 0, valid = r.below(8) != 0;
        uint8_t a8 = (uint8_t)r.u32(), b8 = (uint8_t)r.u32(), a5 = (uint8_t)r.u32(), b5 = (uint8_t)r.u32();
        if (r.below(100)) { if ((a8 & 0x7F) == 0x7F) a8 ^= 1; if ((a5 & 0x7C) == 0x7C) a5 ^= 0x04; }
        if ((t / 20000) % 2 == 1) {
            // long sums of large e4m3 products of one sign: the 48-bit sum
            // wraps (both ways), so the wrap check runs on every path
            clr = r.below(6000) == 0;
            a8 = (uint8_t)(0x70 + r.below(15)); b8 = (uint8_t)(0x70 + r.below(15));
            if ((t / 40000) % 2 == 1) a8 |= 0x80;
        }
        spu_hw_fpprod p8, p5;
        spu_hw_mul_fp(SPU_FMT_E4M3, a8, SPU_FMT_E4M3, b8, &p8);
        spu_hw_mul_fp(SPU_FMT_E5M2, a5, SPU_FMT_E5M2, b5, &p5);
        m->clr_i = clr; m->valid_i = valid;
        m->p8_sign_i = p8.sign; m->p8_exp_i = (uint8_t)p8.exp & 0x7F; m->p8_sig_i = (uint8_t)p8.sig;
        m->p8_inf_i = p8.inf; m->p8_nan_i = p8.nan;
        m->p5_sign_i = p5.sign; m->p5_exp_i = (uint8_t)p5.exp; m->p5_sig_i = (uint8_t)p5.sig;
        m->p5_inf_i = p5.inf; m->p5_nan_i = p5.nan;
        tick();
        spu_hw_acc_fx_step(&t8, clr, valid, &p8);
        spu_hw_acc_fx_step(&t5, clr, valid, &p5);
        states.push_front({t8, t5});
        if (states.size() > 5) states.pop_back();
        if (states.size() < 5) continue;
        // latency 1 + S: after this clock the RTL at STAGES S shows the sum
        // up to S steps before this one
        const spu_hw_acc_fx &w8 = states[1].first, &w5 = states[1].second;
        const spu_hw_acc_fx &w8s3 = states[3].first, &w5s2 = states[2].second;
        bool ok = (uint64_t)m->acc8_o == (uint64_t)sx(w8, 48) && m->flags8_o == flags(w8) &&
                  wide(m->acc5_o) == sx(w5, 80) && m->flags5_o == flags(w5);
        bool ok3 = (uint64_t)m->acc8s3_o == (uint64_t)sx(w8s3, 48) && m->flags8s3_o == flags(w8s3);
        bool ok2 = wide(m->acc5s2_o) == sx(w5s2, 80) && m->flags5s2_o == flags(w5s2);
        // the split loop (SPLIT = 1) at the same depths: one cycle more
        const spu_hw_acc_fx &w8sp = states[4].first, &w5sp = states[3].second;
        bool oks = (uint64_t)m->acc8sp_o == (uint64_t)sx(w8sp, 48) && m->flags8sp_o == flags(w8sp) &&
                   wide(m->acc5sp_o) == sx(w5sp, 80) && m->flags5sp_o == flags(w5sp);
        nonzero += m->acc8s3_o != 0;
        ovf8 += w8s3.ovf_q;
        checked += 6;
        if (!oks) fail("acc SPLIT 1 mismatch at cycle " + std::to_string(t));
        if (!ok) fail("acc STAGES 1 mismatch at cycle " + std::to_string(t));
        if (!ok3) fail("acc e4m3 STAGES 3 mismatch at cycle " + std::to_string(t));
        if (!ok2) fail("acc e5m2 STAGES 2 mismatch at cycle " + std::to_string(t));
    }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(nonzero, 1000);
    EXPECT_GT(ovf8, 1000);   // cycles with the wrap flag set were compared
}

// ---- MX block dot products ------------------------------------------------
struct MxIn { uint8_t a[32], b[32]; uint8_t sa, sb; };

uint32_t mxint8_ref(const uint8_t *a, const uint8_t *b, int n, uint8_t sa, uint8_t sb) {
    int64_t s = 0;
    for (int k = 0; k < n; k++) s += (int64_t)(int8_t)a[k] * (int8_t)b[k];
    uint64_t x[2] = {(uint64_t)s, s < 0 ? ~0ull : 0};
    return spu_hw_fx2f32(x, 128, -12 + (int32_t)sa + (int32_t)sb - 254, sa == 0xFF || sb == 0xFF, 0, 0);
}

TEST_F(PipeTest, MxDotEveryDepthSampled) {
    std::deque<MxIn> hist;
    Rng r(155);
    const long n = 20000;
    long nonfinite = 0, zero = 0;
    for (long t = 0; t < n + 13; t++) {
        MxIn in;
        unsigned mode = r.below(8);
        for (int k = 0; k < 32; k++) {
            in.a[k] = (uint8_t)r.u32(); in.b[k] = (uint8_t)r.u32();
            if (mode == 0) { in.a[k] &= 0x87; }           // small magnitudes, cancellation
            if (mode == 1 && k > 0) { in.b[k] = in.b[0]; in.a[k] = in.a[0] ^ (k & 1 ? 0x80 : 0); }
        }
        unsigned sm = r.below(10);
        in.sa = sm == 0 ? (uint8_t)r.u32() : (uint8_t)(110 + r.below(35));
        in.sb = sm == 1 ? (uint8_t)(r.below(2) ? 0 : 0xFF) : (uint8_t)(110 + r.below(35));
        for (int w = 0; w < 8; w++) {
            m->mx_a_i[w] = (uint32_t)in.a[4*w] | (uint32_t)in.a[4*w+1] << 8 | (uint32_t)in.a[4*w+2] << 16 | (uint32_t)in.a[4*w+3] << 24;
            m->mx_b_i[w] = (uint32_t)in.b[4*w] | (uint32_t)in.b[4*w+1] << 8 | (uint32_t)in.b[4*w+2] << 16 | (uint32_t)in.b[4*w+3] << 24;
        }
        m->sa_i = in.sa; m->sb_i = in.sb;
        hist.push_front(in);
        if (hist.size() > 13) hist.pop_back();
        m->eval();
        for (int s = 0; s < 20; s++) {
            const MxSlot &k = kMx[s];
            if ((long)hist.size() <= k.lat) continue;
            const MxIn &x = hist[k.lat];
            uint32_t want;
            if (k.int8) {
                want = mxint8_ref(x.a, x.b, k.n, x.sa, x.sb);
            } else {
                uint8_t a[32], b[32];
                uint8_t ma = (uint8_t)((1u << spu_fmt_get(k.fa)->bits) - 1), mb = (uint8_t)((1u << spu_fmt_get(k.fb)->bits) - 1);
                for (int j = 0; j < k.n; j++) { a[j] = x.a[j] & ma; b[j] = x.b[j] & mb; }
                want = spu_hw_mx_dot(k.fa, a, x.sa, k.fb, b, x.sb, (size_t)k.n);
            }
            uint32_t got = (uint32_t)bits_of(m->mx_o, 32 * s, 32);
            if (s == 0) { nonfinite += (want & 0x7F800000u) == 0x7F800000u; zero += (want & 0x7FFFFFFFu) == 0; }
            checked++;
            if (got != want) {
                char buf[200];
                snprintf(buf, sizeof buf, "mx slot %d (%s x %s%s N=%d STAGES %d) sa=%u sb=%u rtl=0x%08x twin=0x%08x",
                         s, spu_fmt_name(k.fa), spu_fmt_name(k.fb), k.int8 ? " mxint8" : "", k.n, k.lat,
                         x.sa, x.sb, got, want);
                fail(buf);
            }
        }
        tick();
    }
    EXPECT_EQ(bad, 0);
    EXPECT_GT(nonfinite, 50);
    EXPECT_GT(zero, 10);
}

}  // namespace
