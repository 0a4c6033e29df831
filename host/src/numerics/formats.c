/*
 * formats.c -- the format table, names, exact decode, the SR random stream
 * and exact products (docs/numerics.md "Semantics").
 */
#include "numerics_internal.h"
#include "spu/spu.h"

#include <math.h>
#include <string.h>

/*  name    bits e  m  bias inf nan sgn emax  N  max_code max_value */
static const spu_fmt_info fmt_table[SPU_FMT_COUNT] = {
    [SPU_FMT_F32]  = { "f32",  32, 8, 23, 127, 1, 1, 1, 127, 0,  0x7F7FFFFFu, 3.4028234663852886e38 },
    [SPU_FMT_F16]  = { "f16",  16, 5, 10, 15,  1, 1, 1, 15,  13, 0x7BFFu, 65504.0 },
    [SPU_FMT_BF16] = { "bf16", 16, 8, 7,  127, 1, 1, 1, 127, 16, 0x7F7Fu, 3.3895313892515355e38 },
    [SPU_FMT_E4M3] = { "e4m3", 8,  4, 3,  7,   0, 1, 1, 8,   20, 0x7Eu, 448.0 },
    [SPU_FMT_E5M2] = { "e5m2", 8,  5, 2,  15,  1, 1, 1, 15,  21, 0x7Bu, 57344.0 },
    [SPU_FMT_E3M2] = { "e3m2", 6,  3, 2,  3,   0, 0, 1, 4,   21, 0x1Fu, 28.0 },
    [SPU_FMT_E2M3] = { "e2m3", 6,  2, 3,  1,   0, 0, 1, 2,   20, 0x1Fu, 7.5 },
    [SPU_FMT_E2M1] = { "e2m1", 4,  2, 1,  1,   0, 0, 1, 2,   22, 0x7u, 6.0 },
    [SPU_FMT_E8M0] = { "e8m0", 8,  8, 0,  127, 0, 1, 0, 127, 23, 0xFEu, 1.7014118346046923e38 },
    [SPU_FMT_INT8] = { "int8", 8,  0, 7,  0,   0, 0, 1, 6,   16, 0x7Fu, 127.0 },
};

/* kind m bias emin bits nsr maxmag infmag inf nan payload nanmag */
static const spu_cvt_param cvt_table[SPU_FMT_COUNT] = {
    [SPU_FMT_F32]  = { CVT_FLOAT, 23, 127, -126, 32, 0,  0x7F7FFFFFu, 0x7F800000u, 1, 1, 1, 0 },
    [SPU_FMT_F16]  = { CVT_FLOAT, 10, 15,  -14,  16, 13, 0x7BFFu, 0x7C00u, 1, 1, 1, 0 },
    [SPU_FMT_BF16] = { CVT_FLOAT, 7,  127, -126, 16, 16, 0x7F7Fu, 0x7F80u, 1, 1, 1, 0 },
    [SPU_FMT_E4M3] = { CVT_FLOAT, 3,  7,   -6,   8,  20, 0x7Eu, 0, 0, 1, 0, 0x7Fu },
    [SPU_FMT_E5M2] = { CVT_FLOAT, 2,  15,  -14,  8,  21, 0x7Bu, 0x7Cu, 1, 1, 1, 0 },
    [SPU_FMT_E3M2] = { CVT_FLOAT, 2,  3,   -2,   6,  21, 0x1Fu, 0, 0, 0, 0, 0 },
    [SPU_FMT_E2M3] = { CVT_FLOAT, 3,  1,   0,    6,  20, 0x1Fu, 0, 0, 0, 0, 0 },
    [SPU_FMT_E2M1] = { CVT_FLOAT, 1,  1,   0,    4,  22, 0x7u, 0, 0, 0, 0, 0 },
    [SPU_FMT_E8M0] = { CVT_E8M0,  0,  128, -127, 8,  23, 0xFFu, 0, 0, 1, 0, 0xFFu },
    [SPU_FMT_INT8] = { CVT_INT8,  7,  -6,  7,    8,  16, 0x7Fu, 0, 0, 0, 0, 0 },
};

const spu_fmt_info *spu_fmt_get(spu_fmt fmt)
{
    return (unsigned)fmt < SPU_FMT_COUNT ? &fmt_table[fmt] : NULL;
}

const spu_cvt_param *spu_cvt_param_get(spu_fmt fmt)
{
    return (unsigned)fmt < SPU_FMT_COUNT ? &cvt_table[fmt] : NULL;
}

const char *spu_fmt_name(spu_fmt fmt)
{
    return (unsigned)fmt < SPU_FMT_COUNT ? fmt_table[fmt].name : "?";
}

int spu_fmt_from_name(const char *name)
{
    static const struct { const char *alias; spu_fmt f; } aliases[] = {
        { "fp32", SPU_FMT_F32 }, { "fp16", SPU_FMT_F16 }, { "fp8_e4m3", SPU_FMT_E4M3 },
        { "fp8_e5m2", SPU_FMT_E5M2 }, { "fp6_e3m2", SPU_FMT_E3M2 },
        { "fp6_e2m3", SPU_FMT_E2M3 }, { "fp4_e2m1", SPU_FMT_E2M1 },
    };
    if (!name)
        return SPU_EINVAL;
    for (int i = 0; i < SPU_FMT_COUNT; i++)
        if (!strcmp(name, fmt_table[i].name))
            return i;
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(name, aliases[i].alias))
            return (int)aliases[i].f;
    return SPU_EINVAL;
}

static const char *const round_names[SPU_ROUND_COUNT] = { "rne", "rtz", "rna", "sr" };

int spu_round_from_name(const char *name)
{
    if (!name)
        return SPU_EINVAL;
    for (int i = 0; i < SPU_ROUND_COUNT; i++)
        if (!strcmp(name, round_names[i]))
            return i;
    return SPU_EINVAL;
}

const char *spu_round_name(spu_round r)
{
    return (unsigned)r < SPU_ROUND_COUNT ? round_names[r] : "?";
}

size_t spu_fmt_elem_bytes(spu_fmt fmt)
{
    if ((unsigned)fmt >= SPU_FMT_COUNT)
        return 0;
    return fmt_table[fmt].bits <= 8 ? 1 : fmt_table[fmt].bits / 8;
}

/* ---- decode ---------------------------------------------------------------- */
int spu_num_decode(spu_fmt fmt, uint32_t code, spu_num *out)
{
    const spu_fmt_info *fi = spu_fmt_get(fmt);
    if (!fi || !out)
        return SPU_EINVAL;
    memset(out, 0, sizeof *out);
    if (fi->bits < 32)
        code &= (1u << fi->bits) - 1;
    if (fmt == SPU_FMT_INT8) {
        int v = (int)(int8_t)(uint8_t)code;
        out->sign = v < 0;
        out->sig = (uint32_t)(v < 0 ? -v : v);
        out->cls = v ? SPU_FCLASS_NORMAL : SPU_FCLASS_ZERO;
        return 0;
    }
    if (fmt == SPU_FMT_E8M0) {
        if (code == SPU_E8M0_NAN) {
            out->cls = SPU_FCLASS_NAN;
        } else {
            out->cls = SPU_FCLASS_NORMAL;
            out->sig = 1;
            out->exp = (int32_t)code - 127;
        }
        return 0;
    }
    unsigned m = fi->mbits, e = fi->ebits;
    uint32_t mag = code & ((1u << (fi->bits - 1)) - 1);
    uint32_t E = mag >> m, M = mag & ((1u << m) - 1);
    out->sign = (int)(code >> (fi->bits - 1)) & 1;
    if (fi->has_inf && E == (1u << e) - 1) {
        out->cls = M ? SPU_FCLASS_NAN : SPU_FCLASS_INF;
        return 0;
    }
    if (fmt == SPU_FMT_E4M3 && mag == 0x7F) {
        out->cls = SPU_FCLASS_NAN;
        return 0;
    }
    if (E == 0) {
        out->cls = M ? SPU_FCLASS_SUBNORMAL : SPU_FCLASS_ZERO;
        out->sig = M;
        out->exp = M ? 1 - fi->bias - (int)m : 0;
    } else {
        out->cls = SPU_FCLASS_NORMAL;
        out->sig = M | (1u << m);
        out->exp = (int)E - fi->bias - (int)m;
    }
    return 0;
}

float spu_num_to_f32(spu_fmt fmt, uint32_t code)
{
    spu_num d;
    if (fmt == SPU_FMT_F32)
        return spu_u2f_(code);
    /* bf16 is the top half of an f32: widening keeps every bit, NaN payload
     * and signalling bit included (docs/numerics.md), as the bulk path */
    if (fmt == SPU_FMT_BF16 && code <= 0xFFFFu)
        return spu_u2f_(code << 16);
    if (spu_num_decode(fmt, code, &d))
        return NAN;
    float s = d.sign ? -1.0f : 1.0f;
    switch (d.cls) {
    case SPU_FCLASS_NAN:
        return spu_u2f_((d.sign ? 0x80000000u : 0) | 0x7FC00000u);
    case SPU_FCLASS_INF:
        return s * INFINITY;
    case SPU_FCLASS_ZERO:
        return s * 0.0f;
    default:
        /* sig < 2^24 and the result is an f32 (normal or subnormal): exact */
        return s * ldexpf((float)d.sig, d.exp);
    }
}

/* ---- SR stream ----------------------------------------------------------------- */
uint32_t spu_sr_random(uint64_t seed, uint64_t index)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ull * (index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z = z ^ (z >> 31);
    return (uint32_t)(z >> 32);
}

/* ---- exact products ---------------------------------------------------------- */
int spu_num_mul_exact(spu_fmt fa, uint32_t a, spu_fmt fb, uint32_t b, spu_prod *out)
{
    spu_num x, y;
    if (!out || spu_num_decode(fa, a, &x) || spu_num_decode(fb, b, &y))
        return SPU_EINVAL;
    memset(out, 0, sizeof *out);
    out->sign = x.sign ^ y.sign;
    int xz = x.cls == SPU_FCLASS_ZERO, yz = y.cls == SPU_FCLASS_ZERO;
    int xi = x.cls == SPU_FCLASS_INF, yi = y.cls == SPU_FCLASS_INF;
    if (x.cls == SPU_FCLASS_NAN || y.cls == SPU_FCLASS_NAN || (xz && yi) || (xi && yz))
        out->cls = SPU_FCLASS_NAN;
    else if (xi || yi)
        out->cls = SPU_FCLASS_INF;
    else if (xz || yz)
        out->cls = SPU_FCLASS_ZERO;
    else {
        out->cls = SPU_FCLASS_NORMAL;
        out->sig = (uint64_t)x.sig * y.sig;
        out->exp = x.exp + y.exp;
    }
    return 0;
}
