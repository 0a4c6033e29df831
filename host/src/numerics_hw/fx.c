/*
 * fx.c -- C twins of spu_fx2f32 (fixed point -> fp32, RNE) and spu_acc_fx
 * (exact fixed-point accumulator), and of spu_mx_dot built from them.
 * 128-bit integers (a GCC/Clang extension) hold the fixed-point values.
 */
#include "spu/numerics_hw.h"

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

static u128 join(const uint64_t x[2]) { return ((u128)x[1] << 64) | x[0]; }
static void split(u128 v, uint64_t x[2]) { x[0] = (uint64_t)v; x[1] = (uint64_t)(v >> 64); }

/* Keep the low w bits of v, sign-extended to 128. */
static u128 sext(u128 v, unsigned w)
{
    if (w >= 128) return v;
    v &= (((u128)1) << w) - 1;
    if ((v >> (w - 1)) & 1)
        v |= ~((((u128)1) << w) - 1);
    return v;
}

static uint32_t round_f32(int neg, u128 mag, int32_t e)
{
    int p = 127;
    int64_t t, lsb, r;
    u128 kept;
    if (mag == 0)
        return 0;
    while (!((mag >> p) & 1)) p--;
    t = (int64_t)p + e;                       /* exponent of the leading one */
    if (t > 200)                              /* far beyond 2^128: Inf      */
        return (neg ? 0x80000000u : 0) | 0x7F800000u;
    lsb = t >= -126 ? t - 23 : -149;          /* exponent of the kept LSB    */
    r = lsb - e;                              /* bits of mag below it        */
    if (r <= 0) {
        kept = mag << (-r);                   /* exact, < 2^24              */
    } else if (r >= 128) {
        kept = 0;                             /* < half of the LSB: to 0    */
    } else {
        u128 rem, half;
        kept = mag >> r;
        rem  = mag - (kept << r);
        half = ((u128)1) << (r - 1);
        if (rem > half || (rem == half && (kept & 1)))
            kept++;
    }
    if (kept == ((u128)1 << 24)) {            /* carried into the next binade */
        kept >>= 1;
        lsb++;
    }
    {
        uint32_t s = neg ? 0x80000000u : 0;
        int64_t biased;
        if (lsb == -149 && kept < ((u128)1 << 23))
            return s | (uint32_t)kept;        /* subnormal (or zero)        */
        biased = lsb + 150;
        if (biased >= 255)
            return s | 0x7F800000u;
        return s | (uint32_t)(biased << 23) | ((uint32_t)kept & 0x7FFFFFu);
    }
}

uint32_t spu_hw_fx2f32(const uint64_t x[2], unsigned w, int32_t e,
                       int nan, int inf, int inf_sign)
{
    u128 v;
    int neg;
    if (nan)
        return 0x7FC00000u;
    if (inf)
        return (inf_sign ? 0x80000000u : 0) | 0x7F800000u;
    if (w < 2) w = 2;
    v = sext(join(x), w);
    neg = (int)(v >> 127);
    return round_f32(neg, neg ? (u128)(-(i128)v) : v, e);
}

void spu_hw_acc_fx_reset(spu_hw_acc_fx *s, unsigned acc_w, int32_t lsb_exp)
{
    s->acc_w = acc_w < 2 ? 2 : acc_w > 128 ? 128 : acc_w;
    s->lsb_exp = lsb_exp;
    s->acc[0] = s->acc[1] = 0;
    s->nan_q = s->pinf_q = s->ninf_q = s->ovf_q = 0;
}

void spu_hw_acc_fx_step(spu_hw_acc_fx *s, int clr, int valid, const spu_hw_fpprod *p)
{
    unsigned w = s->acc_w;
    u128 base = clr ? 0 : join(s->acc);
    int nan = clr ? 0 : s->nan_q, pinf = clr ? 0 : s->pinf_q;
    int ninf = clr ? 0 : s->ninf_q, ovf = clr ? 0 : s->ovf_q;
    if (valid && p) {
        if (p->nan) {
            nan = 1;
        } else if (p->inf) {
            pinf |= !p->sign;
            ninf |= p->sign;
        } else {
            int64_t sh = (int64_t)p->exp - s->lsb_exp;
            u128 mag = (sh < 0 || sh >= (int64_t)w) ? 0 : ((u128)p->sig << sh);
            u128 term, sum;
            int bs, ts, ss;
            /* the RTL's term_mag is an unsigned ACC_W-bit shift result */
            if (w < 128) mag &= (((u128)1) << w) - 1;
            term = sext(p->sign ? (u128)(-(i128)mag) : mag, w);
            sum  = sext(base + term, w);
            bs = (int)(base >> 127); ts = (int)(term >> 127); ss = (int)(sum >> 127);
            ovf |= (bs == ts) && (ss != bs);
            base = sum;
        }
    }
    split(sext(base, w), s->acc);
    s->nan_q = nan; s->pinf_q = pinf; s->ninf_q = ninf; s->ovf_q = ovf;
}

int spu_hw_acc_fx_nan(const spu_hw_acc_fx *s) { return s->nan_q || (s->pinf_q && s->ninf_q); }
int spu_hw_acc_fx_inf(const spu_hw_acc_fx *s) { return !spu_hw_acc_fx_nan(s) && (s->pinf_q || s->ninf_q); }
int spu_hw_acc_fx_inf_sign(const spu_hw_acc_fx *s) { return s->ninf_q; }

uint32_t spu_hw_mx_dot(spu_fmt fa, const uint8_t *a, uint8_t sa,
                       spu_fmt fb, const uint8_t *b, uint8_t sb, size_t n)
{
    const spu_fmt_info *ia = spu_fmt_get(fa), *ib = spu_fmt_get(fb);
    int32_t lsb;
    i128 sum = 0;
    int nan = 0, pinf = 0, ninf = 0;
    uint64_t x[2];
    if (!a || !b || n > 1024 || spu_hw_fp_params(fa, NULL, NULL, NULL) ||
        spu_hw_fp_params(fb, NULL, NULL, NULL))
        return 0x7FC00000u;
    /* the smallest product exponent: both operands' subnormal LSB */
    lsb = (1 - ia->bias - (int32_t)ia->mbits) + (1 - ib->bias - (int32_t)ib->mbits);
    for (size_t k = 0; k < n; k++) {
        spu_hw_fpprod p;
        spu_hw_mul_fp(fa, a[k], fb, b[k], &p);
        if (p.nan) { nan = 1; continue; }
        if (p.inf) { if (p.sign) ninf = 1; else pinf = 1; continue; }
        {
            i128 t = (i128)((u128)p.sig << (p.exp - lsb));
            sum += p.sign ? -t : t;
        }
    }
    nan |= sa == SPU_E8M0_NAN || sb == SPU_E8M0_NAN || (pinf && ninf);
    split((u128)sum, x);
    return spu_hw_fx2f32(x, 128, lsb + (int32_t)sa + (int32_t)sb - 254, nan,
                         pinf || ninf, ninf);
}
