/*
 * datapath.h -- the tile arithmetic of the reference model (internal):
 * one tile's accumulator and what mm adds to it and st reads from it, per
 * docs/numerics.md "Datapath numerics". Kept apart from spu_model.c because
 * it uses the numerics library (whose names clash with the ISA header's).
 */
#ifndef SPU_MODEL_DATAPATH_H
#define SPU_MODEL_DATAPATH_H

#include <stdint.h>

__extension__ typedef __int128 spu_dp_i128;

/* One tile's accumulator: v is the SPU_ACC_W-bit register sign-extended;
 * the flags are sticky until zacc / st / RUN. */
typedef struct spu_dp_acc {
    spu_dp_i128 v;
    spu_dp_i128 blk;     /* MX: the block sum of the current K block */
    uint8_t nan, pinf, ninf, ovf;
} spu_dp_acc;

/* acc += A x B for the dtype code `in` (int8: integer product at 2^0;
 * e4m3 / e5m2: exact product at 2^SPU_ACC_FP_LSB, NaN / Inf to the flags). */
void spu_dp_mac(spu_dp_acc *t, unsigned in, uint8_t a, uint8_t b);
/* acc += A x B for bf16 codes (in = bf16): the exact product on the
 * 2^SPU_ACC_FP_LSB grid, rounded to it (RNE) when below; a product too large
 * for the register sets the overflow flag (docs/numerics.md). */
void spu_dp_mac_bf16(spu_dp_acc *t, uint16_t a, uint16_t b);
/* MX (in = mxfp8_e4m3 / mxfp8_e5m2 / mxint8): an element k-step adds the
 * exact product of the element codes into the block register (e4m3 / e5m2
 * on the 2^SPU_ACC_FP_LSB grid, int8 at 2^0; specials to the flags). */
void spu_dp_mac_mx(spu_dp_acc *t, unsigned in, uint8_t a, uint8_t b);
/* 1 when `in` is an MX dtype (mxfp8_e4m3 / e5m2, mxint8, mxfp6_e3m2 / e2m3,
 * mxfp4_e2m1). */
int spu_dp_is_mx(unsigned in);
/* mxfp6_e3m2 / mxfp6_e2m3 / mxfp4_e2m1: the e4m3 code of the same value as
 * the element code in c's low 6 / 4 bits (high bits ignored; spu_load_unit
 * widens the element words so, and the tiles run them as mxfp8_e4m3); other
 * `in`: c unchanged. */
uint8_t spu_dp_mx_widen(unsigned in, uint8_t c);
/* MX: the block's scale word (E8M0 codes sa, sb): acc += blk x 2^(sa + sb -
 * 254) (mxint8: x 2^-12 more), put on the 2^SPU_ACC_FP_LSB grid by the bf16
 * rule (RNE below it; too large: ovf); 0xFF: the NaN flag. Clears blk. */
void spu_dp_mx_scale(spu_dp_acc *t, unsigned in, uint8_t sa, uint8_t sb);
/* st out=f32: binary32 bits of the accumulator read on the grid of `in`. */
uint32_t spu_dp_to_f32(const spu_dp_acc *t, unsigned in);
/* What st does with an accumulator (the cfg fields; dtype codes). */
typedef struct spu_dp_outcfg {
    unsigned in, out, shift, round;
    int relu, ovf;
} spu_dp_outcfg;
/* st's output pipeline (docs/numerics.md "Output pipeline"): the element
 * (its code in the low bytes) that st writes for accumulator t plus bias
 * (on the accumulator's grid). */
uint32_t spu_dp_out(const spu_dp_acc *t, spu_dp_i128 bias, const spu_dp_outcfg *c);
/* st out=int32 / int8: the low 32 bits. */
int32_t spu_dp_low32(const spu_dp_acc *t);

#endif
