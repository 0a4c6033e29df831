/*
 * cvt.c -- C twin of spu_cvt_f32: the library conversion itself, fed the
 * N = sr_bits random bits the unit's rand_i port carries.
 */
#include "spu/numerics_hw.h"

uint32_t spu_hw_cvt_f32(spu_fmt fmt, uint32_t f32bits, spu_round round,
                        spu_overflow ovf, uint32_t rbits)
{
    const spu_fmt_info *fi = spu_fmt_get(fmt);
    uint32_t mask;
    if (!fi)
        return 0;
    mask = fi->sr_bits >= 32 ? 0xFFFFFFFFu : ((1u << fi->sr_bits) - 1u);
    return spu_f32_to_code(fmt, f32bits, round, ovf, rbits & mask);
}
