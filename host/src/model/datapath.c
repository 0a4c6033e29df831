/*
 * datapath.c -- the tile arithmetic of the reference model, bit-exact with
 * hw/rtl/core/spu_array.v (the tiles' mac) and the f32 lanes of
 * spu_drain_unit.v (docs/numerics.md "Datapath numerics"). The products and
 * the final rounding use the C twins of the RTL numerics units
 * (numerics_hw.h: spu_mul_fp, spu_fx2f32).
 */
#include "model/datapath.h"
#include "spu/model.h"
#include "spu/numerics.h"
#include "spu/numerics_hw.h"

#include <pthread.h>
#include <stdatomic.h>

enum {
#define SPU_DTYPE(n, k, c, b, a) DP_DT_##n = (c),
#include "spu_cfg.def"
    DP_DT_END_
};

__extension__ typedef unsigned __int128 u128;
typedef spu_dp_i128 i128;

/* Wrap a value to SPU_ACC_W bits, sign-extended. */
static i128 wrap_acc(u128 v)
{
    const unsigned sh = 128 - SPU_ACC_W;
    return (i128)(v << sh) >> sh;
}

/* acc += term on the SPU_ACC_W-bit register; ovf when the sum wraps (both
 * addends of one sign, the sum of the other: spu_array). */
static void acc_add(spu_dp_acc *t, i128 term)
{
    i128 sum = wrap_acc((u128)t->v + (u128)term);
    if ((t->v < 0) == (term < 0) && (sum < 0) != (t->v < 0))
        t->ovf = 1;
    t->v = sum;
}

static spu_fmt fmt_of(unsigned code)
{
    return code == DP_DT_E5M2 ? SPU_FMT_E5M2 : SPU_FMT_E4M3;
}

/* FP8 products from per-code decode tables (sign, significand, exponent,
 * class), ~10x faster than the general C twin of spu_mul_fp for the model's
 * FP8 GEMMs (a network's 10,000-image run). When the tables are built, every
 * one of the 2 x 65536 products is checked against spu_hw_mul_fp (the twin
 * of the RTL): a format with any difference keeps using spu_hw_mul_fp, so
 * the bits are the twin's either way. */
enum { DP_ZERO = 1, DP_INF = 2, DP_NAN = 4 };
typedef struct dp_dec {
    uint8_t sig;        /* significand (integer)                           */
    uint8_t e;          /* exponent of its LSB + 16 (>= 0 for e4m3 / e5m2) */
    uint8_t sign;
    uint8_t cls;        /* DP_ZERO / DP_INF / DP_NAN, 0 for finite non-zero */
} dp_dec;
static dp_dec dp_dec_tab[2][256];       /* [0] e4m3, [1] e5m2 */
static int dp_fast[2];
static pthread_once_t dp_once = PTHREAD_ONCE_INIT;
static atomic_int dp_ready;

/* The product of two decoded codes: flags into *fl, the term (sign
 * applied) as the return value when *fl is 0. */
static inline i128 dp_term(const dp_dec *x, const dp_dec *y, unsigned *fl)
{
    const unsigned c = x->cls | y->cls;
    if (__builtin_expect(c == 0, 1)) {
        *fl = 0;
        const i128 mag = (i128)((u128)((unsigned)x->sig * y->sig) << (x->e + y->e - 32 - SPU_ACC_FP_LSB));
        return x->sign ^ y->sign ? -mag : mag;
    }
    if ((c & DP_NAN) || ((x->cls & DP_ZERO) && (y->cls & DP_INF)) || ((x->cls & DP_INF) && (y->cls & DP_ZERO)))
        *fl = DP_NAN;
    else if (c & DP_INF)
        *fl = DP_INF | (x->sign ^ y->sign ? DP_ZERO : 0);     /* DP_ZERO here: negative */
    else
        *fl = DP_ZERO;
    return 0;
}

static void dp_init(void)
{
    for (int f = 0; f < 2; f++) {
        const spu_fmt fmt = f ? SPU_FMT_E5M2 : SPU_FMT_E4M3;
        int ok = 1;
        for (unsigned c = 0; c < 256; c++) {
            spu_num n;
            spu_num_decode(fmt, c, &n);
            dp_dec *d = &dp_dec_tab[f][c];
            d->sign = (uint8_t)n.sign;
            d->cls = n.cls == SPU_FCLASS_ZERO ? DP_ZERO : n.cls == SPU_FCLASS_INF ? DP_INF
                   : n.cls == SPU_FCLASS_NAN ? DP_NAN : 0;
            if (!d->cls && (n.sig > 255 || n.exp + 16 < 0 || n.exp + 16 > 255))
                ok = 0;
            d->sig = d->cls ? 0 : (uint8_t)n.sig;
            d->e = d->cls ? 0 : (uint8_t)(n.exp + 16);
        }
        for (unsigned i = 0; ok && i < 65536; i++) {
            spu_hw_fpprod p;
            spu_hw_mul_fp(fmt, i >> 8, fmt, i & 0xFF, &p);
            unsigned fl;
            const i128 t = dp_term(&dp_dec_tab[f][i >> 8], &dp_dec_tab[f][i & 0xFF], &fl);
            if (p.nan) {
                ok = fl == DP_NAN;
            } else if (p.inf) {
                ok = fl == (DP_INF | (p.sign ? DP_ZERO : 0));
            } else if (p.zero) {
                ok = fl == DP_ZERO;
            } else {
                const i128 mag = (i128)((u128)p.sig << (p.exp - SPU_ACC_FP_LSB));
                ok = fl == 0 && t == (p.sign ? -mag : mag);
            }
        }
        dp_fast[f] = ok;
    }
    atomic_store_explicit(&dp_ready, 1, memory_order_release);
}

void spu_dp_mac(spu_dp_acc *t, unsigned in, uint8_t a, uint8_t b)
{
    if (in == DP_DT_INT8) {
        acc_add(t, (i128)((int8_t)a * (int8_t)b));
        return;
    }
    if (__builtin_expect(!atomic_load_explicit(&dp_ready, memory_order_acquire), 0))
        pthread_once(&dp_once, dp_init);
    const int f = fmt_of(in) == SPU_FMT_E5M2;
    if (__builtin_expect(dp_fast[f], 1)) {
        unsigned fl;
        const i128 term = dp_term(&dp_dec_tab[f][a], &dp_dec_tab[f][b], &fl);
        if (!fl)
            acc_add(t, term);
        else if (fl & DP_NAN)
            t->nan = 1;
        else if (fl & DP_INF) {
            if (fl & DP_ZERO) t->ninf = 1;
            else              t->pinf = 1;
        }
        return;
    }
    spu_hw_fpprod p;
    spu_hw_mul_fp(fmt_of(in), a, fmt_of(in), b, &p);
    if (p.nan) {
        t->nan = 1;
    } else if (p.inf) {
        if (p.sign) t->ninf = 1;
        else        t->pinf = 1;
    } else if (!p.zero) {
        i128 mag = (i128)((u128)p.sig << (p.exp - SPU_ACC_FP_LSB));
        acc_add(t, p.sign ? -mag : mag);
    }
}

/* bf16 x bf16 (docs/numerics.md "Datapath numerics"): the exact product
 * p * 2^e (p = the product of the two 8-bit significands, e = the sum of the
 * biased exponents, 0 counting as 1, minus 2 x (127 + 7)) put on the 2^-32
 * grid: shifted left when e >= -32, else rounded to the grid (RNE; below
 * 2^-33 it is 0). A term of 2^(SPU_ACC_W-1) grid units or more (|a*b| >=
 * 2^47) does not fit the register: the overflow flag, nothing added. NaN
 * operands and 0 x Inf set the NaN flag, other Inf products the Inf flag of
 * their sign (spu_array.v's mac, bf16 branch). */
void spu_dp_mac_bf16(spu_dp_acc *t, uint16_t a, uint16_t b)
{
    const unsigned ea = (a >> 7) & 0xFFu, eb = (b >> 7) & 0xFFu;
    const unsigned ma = a & 0x7Fu, mb = b & 0x7Fu;
    const int an = ea == 0xFF && ma, bn = eb == 0xFF && mb;
    const int ai = ea == 0xFF && !ma, bi = eb == 0xFF && !mb;
    const int az = !(a & 0x7FFFu), bz = !(b & 0x7FFFu);
    const int neg = ((a ^ b) >> 15) & 1;
    if (an || bn || (ai && bz) || (bi && az)) {
        t->nan = 1;
        return;
    }
    if (ai || bi) {
        if (neg) t->ninf = 1;
        else     t->pinf = 1;
        return;
    }
    const uint32_t p = ((ea ? 0x80u : 0u) | ma) * ((eb ? 0x80u : 0u) | mb);
    if (!p)
        return;
    const int sh = (int)(ea ? ea : 1u) + (int)(eb ? eb : 1u) - 2 * (127 + 7) - SPU_ACC_FP_LSB;
    u128 mag;
    if (sh >= 0) {
        if (sh > SPU_ACC_W - 2 || ((u128)p << sh) >> (SPU_ACC_W - 1)) {
            t->ovf = 1;
            return;
        }
        mag = (u128)p << sh;
    } else {
        const int n = -sh;
        if (n >= 17)
            return;
        uint32_t q = p >> n;
        const uint32_t rem = p & ((1u << n) - 1u), half = 1u << (n - 1);
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        if (!q)
            return;
        mag = q;
    }
    acc_add(t, neg ? -(i128)mag : (i128)mag);
}

/* MX element k-step: the element product into the block register, with
 * the arithmetic of the element format (spu_array.v: mac on blk_q with the
 * element format). The block register never wraps (at most 32 products
 * below 2^64 grid units each) but is added like the accumulator anyway. */
int spu_dp_is_mx(unsigned in)
{
    return in == DP_DT_MXFP8_E4M3 || in == DP_DT_MXFP8_E5M2 || in == DP_DT_MXINT8 ||
           in == DP_DT_MXFP6_E3M2 || in == DP_DT_MXFP6_E2M3 || in == DP_DT_MXFP4_E2M1;
}

/* spu_load_unit's widen(): the e4m3 code (bias 7, 3 mantissa bits) of the
 * same value as an e3m2 (bias 3) / e2m3 (bias 1) / e2m1 (bias 1) code in the
 * byte's low 6 / 4 bits. A normal keeps its value: exponent rebiased,
 * mantissa left-aligned; a subnormal m x 2^(1 - bias - mb) is normalized. */
uint8_t spu_dp_mx_widen(unsigned in, uint8_t c)
{
    unsigned eb, mb, bias;
    switch (in) {
    case DP_DT_MXFP6_E3M2: eb = 3, mb = 2, bias = 3; break;
    case DP_DT_MXFP6_E2M3: eb = 2, mb = 3, bias = 1; break;
    case DP_DT_MXFP4_E2M1: eb = 2, mb = 1, bias = 1; break;
    default: return c;
    }
    const unsigned s = (c >> (eb + mb)) & 1u, e = (c >> mb) & ((1u << eb) - 1u), m = c & ((1u << mb) - 1u);
    if (e)
        return (uint8_t)(s << 7 | (e + 7 - bias) << 3 | m << (3 - mb));
    if (!m)
        return (uint8_t)(s << 7);
    /* m x 2^(1 - bias - mb): leading one at bit h of m */
    unsigned h = 0;
    while (m >> (h + 1))
        h++;
    const unsigned ee = 1 - bias - mb + h + 7;            /* >= 1 for these formats */
    const unsigned frac = (m & ((1u << h) - 1u)) << (3 - h);
    return (uint8_t)(s << 7 | ee << 3 | frac);
}

void spu_dp_mac_mx(spu_dp_acc *t, unsigned in, uint8_t a, uint8_t b)
{
    spu_dp_acc s = *t;
    s.v = t->blk;
    if (in == DP_DT_MXFP6_E3M2 || in == DP_DT_MXFP6_E2M3 || in == DP_DT_MXFP4_E2M1) {
        a = spu_dp_mx_widen(in, a);
        b = spu_dp_mx_widen(in, b);
        in = DP_DT_MXFP8_E4M3;
    }
    spu_dp_mac(&s, in == DP_DT_MXFP8_E4M3 ? DP_DT_E4M3 : in == DP_DT_MXFP8_E5M2 ? DP_DT_E5M2 : DP_DT_INT8,
               a, b);
    t->blk = s.v;
    t->nan = s.nan;
    t->pinf = s.pinf;
    t->ninf = s.ninf;
    t->ovf = s.ovf;
}

/* MX scale word (spu_array.v's mxs): the block sum B (two's complement)
 * times 2^e, e = sa + sb - 254 (+ 20 for mxint8: its products are on 2^0,
 * i.e. 2^-12 in element units, and the grid is 2^-32), on the grid: e >= 0
 * shifts left (a magnitude of 2^(SPU_ACC_W-1) or more: ovf, nothing added);
 * e < 0 shifts right by n = -e with RNE (n > SPU_ACC_W: 0). */
void spu_dp_mx_scale(spu_dp_acc *t, unsigned in, uint8_t sa, uint8_t sb)
{
    const i128 blk = t->blk;
    t->blk = 0;
    if (sa == 0xFF || sb == 0xFF) {
        t->nan = 1;
        return;
    }
    if (!blk)
        return;
    const int neg = blk < 0;
    const u128 m = neg ? (u128)0 - (u128)blk : (u128)blk;     /* < 2^SPU_ACC_W */
    const int e = (int)sa + (int)sb - 254 + (in == DP_DT_MXINT8 ? 20 : 0);
    u128 mag;
    if (e >= 0) {
        if (e > SPU_ACC_W - 2 || (m << e) >> (SPU_ACC_W - 1)) {
            t->ovf = 1;
            return;
        }
        mag = m << e;
    } else {
        const int n = -e;
        if (n > SPU_ACC_W)
            return;
        u128 q = n >= 128 ? 0 : m >> n;
        const u128 rem = m - (q << n), half = (u128)1 << (n - 1);
        if (rem > half || (rem == half && (q & 1u)))
            q++;
        mag = q;
    }
    if (mag)
        acc_add(t, neg ? -(i128)mag : (i128)mag);
}

uint32_t spu_dp_to_f32(const spu_dp_acc *t, unsigned in)
{
    const u128 u = (u128)t->v;
    uint64_t x[2] = { (uint64_t)u, (uint64_t)(u >> 64) };
    int nan = t->nan || (t->pinf && t->ninf) || t->ovf;
    return spu_hw_fx2f32(x, SPU_ACC_W, in == DP_DT_INT8 ? 0 : SPU_ACC_FP_LSB, nan,
                         t->pinf || t->ninf, t->ninf);
}

int32_t spu_dp_low32(const spu_dp_acc *t)
{
    return (int32_t)(uint32_t)(u128)t->v;
}

/* Round-to-odd binary32 of x * 2^lsb (x != 0, |x| < 2^127, so the result is
 * a normal f32): the top 24 bits of |x|, the last one ORed with every bit
 * below them. Rounding this once more, RNE, to a format of at most 22
 * significant bits gives RNE(x * 2^lsb) itself (round-to-odd, Boldo and
 * Melquiond 2008): the output pipeline's route to bf16 / f16 / e4m3 / e5m2
 * (spu_output_pipe.v). */
static uint32_t dp_ro_f32(i128 x, int lsb)
{
    const uint32_t s = x < 0 ? 0x80000000u : 0;
    const u128 m = x < 0 ? (u128)0 - (u128)x : (u128)x;
    int n = 0;
    while (n < 128 && (m >> n) != 0)
        n++;
    uint32_t mant;
    if (n <= 24) {
        mant = (uint32_t)(m << (24 - n));
    } else {
        const u128 low = m & (((u128)1 << (n - 24)) - 1);
        mant = (uint32_t)(m >> (n - 24)) | (low != 0);
    }
    const uint32_t bexp = (uint32_t)(n - 1 + lsb + 127);
    return s | (bexp << 23) | (mant & 0x7FFFFFu);
}

static int dp_narrow_fmt(unsigned out, spu_fmt *f)
{
    switch (out) {
    case DP_DT_BF16: *f = SPU_FMT_BF16; return 1;
    case DP_DT_F16:  *f = SPU_FMT_F16;  return 1;
    case DP_DT_E4M3: *f = SPU_FMT_E4M3; return 1;
    case DP_DT_E5M2: *f = SPU_FMT_E5M2; return 1;
    default:         return 0;
    }
}

uint32_t spu_dp_out(const spu_dp_acc *t, spu_dp_i128 bias, const spu_dp_outcfg *c)
{
    /* 1. bias: added on the accumulator register (wraps like a MAC: ovf) */
    spu_dp_acc a = *t;
    acc_add(&a, bias);
    const int lsb = c->in == DP_DT_INT8 ? 0 : SPU_ACC_FP_LSB;
    const int nan = a.nan || (a.pinf && a.ninf) || a.ovf;
    const int inf = !nan && (a.pinf || a.ninf);
    /* 2. relu: a negative value (int8 / int32 out: the low 32 bits'
     *    sign, the value they write; float outs: the register's sign, or
     *    -Inf) becomes +0; NaN stays */
    if (c->relu) {
        const int neg = (c->out == DP_DT_INT8 || c->out == DP_DT_INT32) ? (int32_t)(uint32_t)(u128)a.v < 0
                      : inf ? a.ninf : (!nan && a.v < 0);
        if (neg) {
            a.v = 0;
            a.pinf = a.ninf = 0;
            if (inf)
                return 0;   /* +0 in every format */
        }
    }
    /* 3. one rounding to the out format */
    const int32_t lo = (int32_t)(uint32_t)(u128)a.v;
    spu_fmt f;
    switch (c->out) {
    case DP_DT_INT32: return (uint32_t)lo;
    case DP_DT_INT8:  return (uint8_t)spu_requant_int8(lo, c->shift, c->round, 0);
    case DP_DT_F32: {
        const u128 u = (u128)a.v;
        uint64_t x[2] = { (uint64_t)u, (uint64_t)(u >> 64) };
        return spu_hw_fx2f32(x, SPU_ACC_W, lsb, nan, inf, a.ninf);
    }
    default:
        if (!dp_narrow_fmt(c->out, &f))
            return 0;
        {
            const uint32_t f32 = nan ? 0x7FC00000u
                               : inf ? (a.ninf ? 0xFF800000u : 0x7F800000u)
                               : a.v == 0 ? 0u : dp_ro_f32(a.v, lsb);
            return spu_hw_cvt_f32(f, f32, SPU_ROUND_RNE, c->ovf ? SPU_OVF_OVF : SPU_OVF_SAT, 0);
        }
    }
}
