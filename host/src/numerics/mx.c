/*
 * mx.c -- OCP MX block formats: shared scale, element codes, fake-quant,
 * the exact block dot product, and packing of sub-byte codes
 * (docs/numerics.md "OCP MX block formats").
 */
#include "numerics_internal.h"
#include "spu/spu.h"

#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    spu_fmt elem;
    int emax;
} mx_table[SPU_MX_COUNT] = {
    [SPU_MX_FP8_E4M3] = { "mxfp8_e4m3", SPU_FMT_E4M3, 8 },
    [SPU_MX_FP8_E5M2] = { "mxfp8_e5m2", SPU_FMT_E5M2, 15 },
    [SPU_MX_FP6_E3M2] = { "mxfp6_e3m2", SPU_FMT_E3M2, 4 },
    [SPU_MX_FP6_E2M3] = { "mxfp6_e2m3", SPU_FMT_E2M3, 2 },
    [SPU_MX_FP4_E2M1] = { "mxfp4_e2m1", SPU_FMT_E2M1, 2 },
    [SPU_MX_INT8]     = { "mxint8",     SPU_FMT_INT8, 0 },
};

const char *spu_mx_name(spu_mx_fmt f)
{
    return (unsigned)f < SPU_MX_COUNT ? mx_table[f].name : "?";
}

int spu_mx_from_name(const char *name)
{
    if (!name)
        return SPU_EINVAL;
    for (int i = 0; i < SPU_MX_COUNT; i++)
        if (!strcmp(name, mx_table[i].name))
            return i;
    return SPU_EINVAL;
}

spu_fmt spu_mx_elem(spu_mx_fmt f)
{
    return (unsigned)f < SPU_MX_COUNT ? mx_table[f].elem : SPU_FMT_COUNT;
}

int spu_mx_emax(spu_mx_fmt f)
{
    return (unsigned)f < SPU_MX_COUNT ? mx_table[f].emax : 0;
}

/* max finite element value (mxint8: 127/64) */
static double mx_max_elem(spu_mx_fmt f)
{
    if (f == SPU_MX_INT8)
        return 127.0 / 64.0;
    return spu_fmt_get(mx_table[f].elem)->max_value;
}

size_t spu_mx_blocks_per_row(size_t cols, size_t block)
{
    if (!block)
        block = SPU_MX_BLOCK_DEFAULT;
    return (cols + block - 1) / block;
}

uint8_t spu_mx_scale(spu_mx_fmt f, uint32_t amax_bits, spu_mx_scale_rule rule)
{
    uint32_t a = amax_bits & 0x7FFFFFFFu;
    if ((unsigned)f >= SPU_MX_COUNT || a >= 0x7F800000u)
        return SPU_E8M0_NAN;
    if (a == 0)
        return 0;
    int fl = (a >> 23) ? (int)(a >> 23) - 127 : (31 - __builtin_clz(a)) - 149;
    int X = fl - mx_table[f].emax;
    if (rule == SPU_MX_SCALE_CEIL && (double)spu_u2f_(a) > ldexp(mx_max_elem(f), X))
        X++;
    if (X < -127)
        X = -127;
    if (X > 127)
        X = 127;
    return (uint8_t)(X + 127);
}

uint32_t spu_mx_elem_code(spu_mx_fmt f, uint32_t x_bits, uint8_t scale,
                          spu_round round, uint32_t rbits)
{
    if ((unsigned)f >= SPU_MX_COUNT || scale == SPU_E8M0_NAN)
        return 0;
    int X = (int)scale - 127;
    const spu_cvt_param *p = spu_cvt_param_get(mx_table[f].elem);
    if (f == SPU_MX_INT8)
        return spu_cvt_core(p, x_bits, X - 6, round, SPU_OVF_SAT, rbits, 127);
    return spu_cvt_core(p, x_bits, X, round, SPU_OVF_SAT, rbits, 128);
}

float spu_mx_dequant(spu_mx_fmt f, uint32_t code, uint8_t scale)
{
    if ((unsigned)f >= SPU_MX_COUNT || scale == SPU_E8M0_NAN)
        return NAN;
    int X = (int)scale - 127 - (f == SPU_MX_INT8 ? 6 : 0);
    /* exact: the element times a power of two stays an f32 (docs) */
    return ldexpf(spu_num_to_f32(mx_table[f].elem, code), X);
}

/* ---- quantize ------------------------------------------------------------------ */
static void quant_block_scalar(spu_mx_fmt f, const float *x, size_t len, uint8_t scale,
                               spu_round round, uint64_t seed, uint64_t idx0,
                               uint8_t *codes, float *deq)
{
    for (size_t i = 0; i < len; i++) {
        uint32_t r = round == SPU_ROUND_SR ? spu_sr_random(seed, idx0 + i) : 0;
        uint32_t c = spu_mx_elem_code(f, spu_f2u_(x[i]), scale, round, r);
        if (codes)
            codes[i] = (uint8_t)c;
        if (deq)
            deq[i] = spu_mx_dequant(f, c, scale);
    }
}

uint8_t spu_mx_block_scalar_(spu_mx_fmt f, const float *x, size_t len,
                             spu_mx_scale_rule rule, spu_round round, uint64_t seed,
                             uint64_t idx0, uint8_t *codes, float *deq)
{
    uint32_t amax = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t a = spu_f2u_(x[i]) & 0x7FFFFFFFu;
        amax = a > amax ? a : amax;
    }
    uint8_t sc = spu_mx_scale(f, amax, rule);
    quant_block_scalar(f, x, len, sc, round, seed, idx0, codes, deq);
    return sc;
}

static int quantize(spu_mx_fmt f, const float *x, size_t rows, size_t cols,
                    const spu_mx_opts *opts, uint8_t *codes, uint8_t *scales,
                    float *deq, int use_avx2)
{
    spu_mx_opts def = { SPU_MX_BLOCK_DEFAULT, SPU_MX_SCALE_FLOOR, SPU_ROUND_RNE, 0 };
    const spu_mx_opts *o = opts ? opts : &def;
    size_t block = o->block ? o->block : SPU_MX_BLOCK_DEFAULT;
    if ((unsigned)f >= SPU_MX_COUNT || (unsigned)o->round >= SPU_ROUND_COUNT ||
        (unsigned)o->scale > SPU_MX_SCALE_CEIL || ((rows && cols) && !x))
        return SPU_EINVAL;
    if (o->round == SPU_ROUND_SR)
        use_avx2 = 0;
    if (use_avx2 && o->round == SPU_ROUND_RNE &&
        spu_mx_rows_avx2(f, x, rows, cols, block, o->scale, codes, scales, deq))
        return 0;
    size_t nb = spu_mx_blocks_per_row(cols, block);
    for (size_t r = 0; r < rows; r++) {
        for (size_t b = 0; b < nb; b++) {
            size_t j0 = b * block, len = cols - j0 < block ? cols - j0 : block;
            size_t idx = r * cols + j0;
            const float *xb = x + idx;
            uint32_t amax = 0;
            int vec = use_avx2 && len % 8 == 0;
            if (vec) {
                amax = spu_amax_bits_avx2(xb, len);
            } else {
                for (size_t i = 0; i < len; i++) {
                    uint32_t a = spu_f2u_(xb[i]) & 0x7FFFFFFFu;
                    amax = a > amax ? a : amax;
                }
            }
            uint8_t sc = spu_mx_scale(f, amax, o->scale);
            if (scales)
                scales[r * nb + b] = sc;
            if (vec && sc != SPU_E8M0_NAN &&
                spu_mx_block_avx2(f, xb, len, (int)sc - 127, o->round,
                                  codes ? codes + idx : NULL, deq ? deq + idx : NULL))
                continue;
            quant_block_scalar(f, xb, len, sc, o->round, o->seed, idx,
                               codes ? codes + idx : NULL, deq ? deq + idx : NULL);
        }
    }
    return 0;
}

int spu_mx_quantize(spu_mx_fmt f, const float *x, size_t rows, size_t cols,
                    const spu_mx_opts *opts, uint8_t *codes, uint8_t *scales, float *deq)
{
    return quantize(f, x, rows, cols, opts, codes, scales, deq, spu_avx2_ok_());
}

int spu_mx_quantize_scalar(spu_mx_fmt f, const float *x, size_t rows, size_t cols,
                           const spu_mx_opts *opts, uint8_t *codes, uint8_t *scales,
                           float *deq)
{
    return quantize(f, x, rows, cols, opts, codes, scales, deq, 0);
}

/* ---- exact dot product ------------------------------------------------------------- */
#define DOT_LSB (-32) /* the smallest product weight: e5m2 subnormal squared, 2^-32 */

float spu_mx_dot_exact(spu_mx_fmt fa, const uint8_t *a, uint8_t scale_a,
                       spu_mx_fmt fb, const uint8_t *b, uint8_t scale_b, size_t n)
{
    if ((unsigned)fa >= SPU_MX_COUNT || (unsigned)fb >= SPU_MX_COUNT ||
        scale_a == SPU_E8M0_NAN || scale_b == SPU_E8M0_NAN)
        return NAN;
    __int128 acc = 0;
    int pinf = 0, ninf = 0;
    for (size_t i = 0; i < n; i++) {
        spu_prod p;
        spu_num_mul_exact(mx_table[fa].elem, a[i], mx_table[fb].elem, b[i], &p);
        if (p.cls == SPU_FCLASS_NAN)
            return NAN;
        if (p.cls == SPU_FCLASS_INF) {
            if (p.sign) ninf = 1; else pinf = 1;
            continue;
        }
        if (p.cls == SPU_FCLASS_ZERO)
            continue;
        int e = p.exp - (fa == SPU_MX_INT8 ? 6 : 0) - (fb == SPU_MX_INT8 ? 6 : 0) - DOT_LSB;
        __int128 v = (__int128)p.sig << e;  /* e in [0, 58], sig < 2^8: < 2^66 */
        acc += p.sign ? -v : v;
    }
    if (pinf && ninf)
        return NAN;
    if (pinf || ninf)
        return pinf ? INFINITY : -INFINITY;
    if (acc == 0)
        return 0.0f;
    int neg = acc < 0;
    unsigned __int128 u = neg ? (unsigned __int128)(-acc) : (unsigned __int128)acc;
    int k = (int)scale_a - 127 + (int)scale_b - 127 + DOT_LSB;  /* value = u * 2^k */
    int p = 0;
    for (unsigned __int128 t = u; t; t >>= 1)
        p++;
    int E = p - 1 + k;
    int lsb = E - 23 > -149 ? E - 23 : -149;
    int d = lsb - k;
    unsigned __int128 q;
    if (d <= 0) {
        q = u << -d;
    } else if (d >= 128) {
        q = 0;  /* far below half of the smallest subnormal */
    } else {
        q = u >> d;
        unsigned __int128 rem = u & (((unsigned __int128)1 << d) - 1);
        unsigned __int128 half = (unsigned __int128)1 << (d - 1);
        if (rem > half || (rem == half && (q & 1)))
            q++;
    }
    float r = ldexpf((float)(uint32_t)q, lsb);  /* q <= 2^24: exact; overflow -> Inf */
    return neg ? -r : r;
}

/* ---- packing -------------------------------------------------------------------------- */
size_t spu_pack_bytes(spu_fmt fmt, size_t n)
{
    const spu_fmt_info *fi = spu_fmt_get(fmt);
    if (!fi)
        return 0;
    if (fi->bits == 4)
        return (n + 1) / 2;
    if (fi->bits == 6)
        return (6 * n + 7) / 8;
    return n * (fi->bits / 8);
}

size_t spu_pack_codes(spu_fmt fmt, const void *codes, size_t n, uint8_t *out)
{
    const spu_fmt_info *fi = spu_fmt_get(fmt);
    size_t nb = spu_pack_bytes(fmt, n);
    if (!fi)
        return 0;
    const uint8_t *c = codes;
    if (fi->bits == 4 || fi->bits == 6) {
        memset(out, 0, nb);
        for (size_t i = 0; i < n; i++) {
            size_t bit = i * fi->bits;
            uint32_t v = (uint32_t)(c[i] & ((1u << fi->bits) - 1)) << (bit % 8);
            out[bit / 8] |= (uint8_t)v;
            if ((bit % 8) + fi->bits > 8)
                out[bit / 8 + 1] |= (uint8_t)(v >> 8);
        }
        return nb;
    }
    if (fi->bits == 8) {
        memcpy(out, codes, n);
        return nb;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t v = fi->bits == 16 ? ((const uint16_t *)codes)[i] : ((const uint32_t *)codes)[i];
        for (unsigned k = 0; k < fi->bits / 8; k++)
            out[i * (fi->bits / 8) + k] = (uint8_t)(v >> (8 * k));
    }
    return nb;
}

size_t spu_unpack_codes(spu_fmt fmt, const uint8_t *in, size_t n, void *codes)
{
    const spu_fmt_info *fi = spu_fmt_get(fmt);
    size_t nb = spu_pack_bytes(fmt, n);
    if (!fi)
        return 0;
    if (fi->bits == 4 || fi->bits == 6) {
        uint8_t *c = codes;
        for (size_t i = 0; i < n; i++) {
            size_t bit = i * fi->bits;
            uint32_t v = in[bit / 8];
            if ((bit % 8) + fi->bits > 8)
                v |= (uint32_t)in[bit / 8 + 1] << 8;
            c[i] = (uint8_t)((v >> (bit % 8)) & ((1u << fi->bits) - 1));
        }
        return nb;
    }
    if (fi->bits == 8) {
        memcpy(codes, in, n);
        return nb;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t v = 0;
        for (unsigned k = 0; k < fi->bits / 8; k++)
            v |= (uint32_t)in[i * (fi->bits / 8) + k] << (8 * k);
        if (fi->bits == 16)
            ((uint16_t *)codes)[i] = (uint16_t)v;
        else
            ((uint32_t *)codes)[i] = v;
    }
    return nb;
}
