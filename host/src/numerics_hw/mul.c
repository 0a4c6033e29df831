/*
 * mul.c -- C twins of spu_mul_int8 and spu_mul_fp (hw/rtl/numerics/).
 * The exact product comes from the numerics library (spu_num_mul_exact);
 * this file only fixes the RTL output encoding around it.
 */
#include "spu/numerics_hw.h"
#include "spu/spu.h"

int16_t spu_hw_mul_int8(int8_t a, int8_t b)
{
    return (int16_t)((int)a * (int)b);
}

int spu_hw_fp_params(spu_fmt f, unsigned *ebits, unsigned *mbits, unsigned *spec)
{
    const spu_fmt_info *fi = spu_fmt_get(f);
    /* f32 would need 48-bit products; e8m0 and int8 are not sign/exp/man. */
    if (!fi || f == SPU_FMT_F32 || f == SPU_FMT_E8M0 || f == SPU_FMT_INT8)
        return SPU_EINVAL;
    if (ebits) *ebits = fi->ebits;
    if (mbits) *mbits = fi->mbits;
    /* The only signed float with NaN but no Inf is OCP E4M3. */
    if (spec) *spec = fi->has_inf ? 1u : fi->has_nan ? 2u : 0u;
    return 0;
}

int spu_hw_mul_fp(spu_fmt fa, uint32_t a, spu_fmt fb, uint32_t b, spu_hw_fpprod *out)
{
    spu_prod p;
    if (!out || spu_hw_fp_params(fa, NULL, NULL, NULL) || spu_hw_fp_params(fb, NULL, NULL, NULL))
        return SPU_EINVAL;
    if (spu_num_mul_exact(fa, a, fb, b, &p))
        return SPU_EINVAL;
    out->sign = p.sign;
    out->nan  = p.cls == SPU_FCLASS_NAN;
    out->inf  = p.cls == SPU_FCLASS_INF;
    out->zero = p.cls == SPU_FCLASS_ZERO;
    /* The RTL keeps sig/exp canonical (all zero) for zero, Inf and NaN. */
    if (out->nan || out->inf || out->zero) {
        out->sig = 0;
        out->exp = 0;
    } else {
        out->sig = (uint32_t)p.sig;
        out->exp = p.exp;
    }
    return 0;
}
