/*
 * datapath.c -- the tile arithmetic of the reference model, bit-exact with
 * hw/rtl/core/spu_tile_mul.v, spu_tile.v and the f32 lanes of
 * spu_drain_unit.v (docs/numerics.md "Datapath numerics"). The products and
 * the final rounding use the C twins of the RTL numerics units
 * (numerics_hw.h: spu_mul_fp, spu_fx2f32).
 */
#include "model/datapath.h"
#include "spu/model.h"
#include "spu/numerics_hw.h"

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
 * addends of one sign, the sum of the other: spu_tile). */
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

void spu_dp_mac(spu_dp_acc *t, unsigned in, uint8_t a, uint8_t b)
{
    if (in == DP_DT_INT8) {
        acc_add(t, (i128)((int8_t)a * (int8_t)b));
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
