/*
 * convert.c -- f32 -> format conversion (scalar core, bulk conversions and
 * the AVX2 dispatch). The rules are docs/numerics.md "Conversion" and
 * "Stochastic rounding".
 */
#include "numerics_internal.h"
#include "spu/spu.h"

#include <string.h>

static uint32_t apply_sign(const spu_cvt_param *p, uint32_t mag, uint32_t sign)
{
    if (p->kind == CVT_INT8)
        return (sign ? (0u - mag) : mag) & 0xFFu;
    return mag | (sign << (p->bits - 1));
}

uint32_t spu_cvt_core(const spu_cvt_param *p, uint32_t x, int32_t eoff,
                      spu_round round, spu_overflow ovf, uint32_t rbits,
                      uint32_t maxmag_neg)
{
    uint32_t sign = x >> 31, a = x & 0x7FFFFFFFu;
    uint32_t E = a >> 23, M = a & 0x7FFFFFu;
    uint32_t maxmag = (sign && p->kind == CVT_INT8) ? maxmag_neg : p->maxmag;

    if (p->kind == CVT_E8M0)
        sign = 0;
    if (E == 255 && M) {                       /* NaN */
        if (!p->has_nan)
            return 0;
        if (p->nan_payload) {
            uint32_t mag = p->infmag | (1u << (p->m - 1)) | (M >> (23 - p->m));
            return apply_sign(p, mag, sign);
        }
        return p->kind == CVT_E8M0 ? 0xFFu : apply_sign(p, p->nanmag, sign);
    }
    if (E == 255) {                            /* Inf */
        uint32_t mag = maxmag;
        if (ovf == SPU_OVF_OVF)
            mag = p->has_inf ? p->infmag : p->has_nan ? p->nanmag : maxmag;
        if (p->kind == CVT_E8M0)
            return ovf == SPU_OVF_OVF ? 0xFFu : 0xFEu;
        return apply_sign(p, mag, sign);
    }
    if (a == 0)
        return p->kind == CVT_E8M0 ? 0 : apply_sign(p, 0, sign);

    /* normalize: |x| = sig * 2^(e - 23), 2^23 <= sig < 2^24 */
    uint32_t sig;
    int32_t e;
    if (E) {
        sig = M | 0x800000u;
        e = (int32_t)E - 127;
    } else {
        int lz = __builtin_clz(M) - 8;
        sig = M << lz;
        e = -126 - lz;
    }
    e -= eoff;
    int32_t et = e > p->emin ? e : p->emin;
    int64_t s = (int64_t)(23 - p->m) + (et - e);   /* bits dropped below the kept LSB */
    uint64_t sig64 = sig;
    uint64_t kept = s >= 40 ? 0 : sig64 >> s;
    uint64_t up = 0;
    switch (round) {
    case SPU_ROUND_RNE:
    case SPU_ROUND_RNA: {
        if (s >= 1 && s < 40) {
            uint64_t rem = sig64 & ((1ull << s) - 1), half = 1ull << (s - 1);
            if (rem > half || (rem == half && (round == SPU_ROUND_RNA || (kept & 1))))
                up = 1;
        }
        break;
    }
    case SPU_ROUND_SR: {
        int64_t sh = s - (int64_t)p->nsr;          /* >= 0 for every format */
        uint64_t mask = (1ull << p->nsr) - 1;
        uint64_t D = sh >= 40 ? 0 : (sh >= 0 ? (sig64 >> sh) : (sig64 << -sh)) & mask;
        up = (D + (rbits & mask)) >> p->nsr;
        break;
    }
    default:
        break;
    }
    int64_t mag = ((int64_t)(et + p->bias - 1) << p->m) + (int64_t)(kept + up);
    if (p->kind == CVT_E8M0) {
        /* grid codes are shifted by one: 0 = "below 2^-127" */
        if (mag > (int64_t)p->maxmag)
            return (ovf == SPU_OVF_OVF && round != SPU_ROUND_RTZ) ? 0xFFu : 0xFEu;
        return mag > 0 ? (uint32_t)(mag - 1) : 0;
    }
    if (mag > (int64_t)maxmag) {
        uint32_t o = maxmag;
        if (ovf == SPU_OVF_OVF && round != SPU_ROUND_RTZ)
            o = p->has_inf ? p->infmag : p->has_nan ? p->nanmag : maxmag;
        return apply_sign(p, o, sign);
    }
    return apply_sign(p, (uint32_t)mag, sign);
}

uint32_t spu_f32_to_code(spu_fmt fmt, uint32_t f32bits, spu_round round,
                         spu_overflow ovf, uint32_t rbits)
{
    const spu_cvt_param *p = spu_cvt_param_get(fmt);
    if (!p)
        return 0;
    if (fmt == SPU_FMT_F32)
        return f32bits;
    return spu_cvt_core(p, f32bits, 0, round, ovf, rbits, 128);
}

uint32_t spu_from_f32(spu_fmt fmt, float x, spu_round round, spu_overflow ovf,
                      uint32_t rbits)
{
    return spu_f32_to_code(fmt, spu_f2u_(x), round, ovf, rbits);
}

/* ---- bulk ------------------------------------------------------------------------ */
static int opts_ok(spu_fmt fmt, const spu_cvt_opts *o)
{
    return (unsigned)fmt < SPU_FMT_COUNT && (unsigned)o->round < SPU_ROUND_COUNT &&
           (unsigned)o->overflow < SPU_OVF_COUNT;
}

static void store_code(spu_fmt fmt, void *out, size_t i, uint32_t c)
{
    switch (spu_fmt_elem_bytes(fmt)) {
    case 1: ((uint8_t *)out)[i] = (uint8_t)c; break;
    case 2: ((uint16_t *)out)[i] = (uint16_t)c; break;
    default: ((uint32_t *)out)[i] = c; break;
    }
}

static void convert_scalar_range(spu_fmt fmt, const float *in, void *out,
                                 size_t from, size_t n, const spu_cvt_opts *o)
{
    const spu_cvt_param *p = spu_cvt_param_get(fmt);
    for (size_t i = from; i < n; i++) {
        uint32_t x = spu_f2u_(in[i]);
        uint32_t r = o->round == SPU_ROUND_SR ? spu_sr_random(o->seed, o->index0 + i) : 0;
        uint32_t c = fmt == SPU_FMT_F32 ? x : spu_cvt_core(p, x, 0, o->round, o->overflow, r, 128);
        store_code(fmt, out, i, c);
    }
}

int spu_convert_from_f32_scalar(spu_fmt fmt, const float *in, void *out, size_t n,
                                const spu_cvt_opts *opts)
{
    spu_cvt_opts def = { SPU_ROUND_RNE, SPU_OVF_SAT, 0, 0 };
    const spu_cvt_opts *o = opts ? opts : &def;
    if (!opts_ok(fmt, o) || (n && (!in || !out)))
        return SPU_EINVAL;
    convert_scalar_range(fmt, in, out, 0, n, o);
    return 0;
}

int spu_convert_from_f32(spu_fmt fmt, const float *in, void *out, size_t n,
                         const spu_cvt_opts *opts)
{
    spu_cvt_opts def = { SPU_ROUND_RNE, SPU_OVF_SAT, 0, 0 };
    const spu_cvt_opts *o = opts ? opts : &def;
    if (!opts_ok(fmt, o) || (n && (!in || !out)))
        return SPU_EINVAL;
    size_t done = 0;
    if (o->round != SPU_ROUND_SR && spu_avx2_ok_())
        done = spu_cvt_avx2(fmt, in, out, n, o->round, o->overflow);
    convert_scalar_range(fmt, in, out, done, n, o);
    return 0;
}

int spu_convert_to_f32(spu_fmt fmt, const void *in, float *out, size_t n)
{
    if ((unsigned)fmt >= SPU_FMT_COUNT || (n && (!in || !out)))
        return SPU_EINVAL;
    if (fmt == SPU_FMT_F32) {
        memmove(out, in, n * 4);
        return 0;
    }
    if (spu_fmt_elem_bytes(fmt) == 1) {
        float lut[256];
        for (unsigned c = 0; c < 256; c++)
            lut[c] = spu_num_to_f32(fmt, c);
        const uint8_t *b = in;
        for (size_t i = 0; i < n; i++)
            out[i] = lut[b[i]];
        return 0;
    }
    const uint16_t *h = in;
    if (fmt == SPU_FMT_BF16) {
        for (size_t i = 0; i < n; i++)
            out[i] = spu_u2f_((uint32_t)h[i] << 16);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = spu_num_to_f32(fmt, h[i]);
    return 0;
}

int spu_convert(spu_fmt from, const void *in, spu_fmt to, void *out, size_t n,
                const spu_cvt_opts *opts)
{
    spu_cvt_opts def = { SPU_ROUND_RNE, SPU_OVF_SAT, 0, 0 };
    const spu_cvt_opts *o = opts ? opts : &def;
    if ((unsigned)from >= SPU_FMT_COUNT || !opts_ok(to, o) || (n && (!in || !out)))
        return SPU_EINVAL;
    float tmp[1024];
    for (size_t i = 0; i < n; i += 1024) {
        size_t k = n - i < 1024 ? n - i : 1024;
        spu_convert_to_f32(from, (const uint8_t *)in + i * spu_fmt_elem_bytes(from), tmp, k);
        spu_cvt_opts oc = *o;
        oc.index0 = o->index0 + i;
        int rc = spu_convert_from_f32(to, tmp, (uint8_t *)out + i * spu_fmt_elem_bytes(to), k, &oc);
        if (rc)
            return rc;
    }
    return 0;
}

int spu_numerics_have_avx2(void)
{
    return spu_avx2_ok_();
}
