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

#include <pthread.h>

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

/* Every product of two FP8 codes, per format, computed once by the C twin
 * of spu_mul_fp (spu_hw_mul_fp) and looked up by spu_dp_mac: the same bits,
 * ~10x faster for the model's FP8 GEMMs (a network's 10,000-image run). */
enum { DP_P_SIGN = 1, DP_P_ZERO = 2, DP_P_INF = 4, DP_P_NAN = 8 };
typedef struct dp_prod {
    uint32_t sig;
    uint8_t  shift;     /* sig's LSB weight relative to 2^SPU_ACC_FP_LSB */
    uint8_t  flags;
} dp_prod;
static dp_prod dp_tab[2][65536];        /* [0] e4m3, [1] e5m2 */
static pthread_once_t dp_tab_once = PTHREAD_ONCE_INIT;

static void dp_tab_init(void)
{
    for (int f = 0; f < 2; f++) {
        const spu_fmt fmt = f ? SPU_FMT_E5M2 : SPU_FMT_E4M3;
        for (uint32_t i = 0; i < 65536; i++) {
            spu_hw_fpprod p;
            spu_hw_mul_fp(fmt, i >> 8, fmt, i & 0xFF, &p);
            dp_prod *d = &dp_tab[f][i];
            d->sig = p.sig;
            d->flags = (uint8_t)((p.sign ? DP_P_SIGN : 0) | (p.zero ? DP_P_ZERO : 0) |
                                 (p.inf ? DP_P_INF : 0) | (p.nan ? DP_P_NAN : 0));
            d->shift = (uint8_t)(p.nan || p.inf || p.zero ? 0 : p.exp - SPU_ACC_FP_LSB);
        }
    }
}

void spu_dp_mac(spu_dp_acc *t, unsigned in, uint8_t a, uint8_t b)
{
    if (in == DP_DT_INT8) {
        acc_add(t, (i128)((int8_t)a * (int8_t)b));
        return;
    }
    pthread_once(&dp_tab_once, dp_tab_init);
    const dp_prod *p = &dp_tab[fmt_of(in) == SPU_FMT_E5M2][(unsigned)a << 8 | b];
    if (p->flags & DP_P_NAN) {
        t->nan = 1;
    } else if (p->flags & DP_P_INF) {
        if (p->flags & DP_P_SIGN) t->ninf = 1;
        else                      t->pinf = 1;
    } else if (!(p->flags & DP_P_ZERO)) {
        i128 mag = (i128)((u128)p->sig << p->shift);
        acc_add(t, p->flags & DP_P_SIGN ? -mag : mag);
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
