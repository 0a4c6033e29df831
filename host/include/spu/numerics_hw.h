/*
 * numerics_hw.h -- bit-exact C twins of the RTL numerics units in
 * hw/rtl/numerics/ (docs/numerics-rtl.md). Each function computes, bit for
 * bit, what the unit of the same name puts on its output ports for the
 * same inputs; the Verilator tests compare the two exhaustively or over
 * large sweeps. The semantics come from the numerics library (numerics.h):
 * the twins only fix the RTL output encodings on top of it.
 *
 * All functions are pure (no global state) except the accumulator, whose
 * state lives in a caller-owned struct.
 */
#ifndef SPU_NUMERICS_HW_H
#define SPU_NUMERICS_HW_H

#include <stdint.h>
#include <stddef.h>

#include "spu/numerics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* spu_mul_int8: exact int8 x int8 product. */
int16_t spu_hw_mul_int8(int8_t a, int8_t b);

/* Output ports of spu_mul_fp. Finite: value = (-1)^sign * sig * 2^exp with
 * sig the product of the two significands (hidden bit included) and exp
 * the exponent of sig's LSB; zero: sig = 0, exp = 0; inf / nan: sig = 0,
 * exp = 0. sign is the XOR of the operand signs in every case. */
typedef struct spu_hw_fpprod {
    int      sign;
    int32_t  exp;
    uint32_t sig;
    int      zero;
    int      inf;
    int      nan;
} spu_hw_fpprod;

/* spu_mul_fp with A = fa, B = fb (any signed float format except f32:
 * f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1). Returns 0 or SPU_EINVAL. */
int spu_hw_mul_fp(spu_fmt fa, uint32_t a, spu_fmt fb, uint32_t b, spu_hw_fpprod *out);

/* The spu_mul_fp parameters (A_EXP/A_MAN/A_SPEC) of a format: spec 0 =
 * no specials, 1 = IEEE, 2 = OCP E4M3. Returns 0 or SPU_EINVAL. */
int spu_hw_fp_params(spu_fmt f, unsigned *ebits, unsigned *mbits, unsigned *spec);

/* spu_cvt_f32 (E, M, SPEC of fmt; fmt one of bf16, e4m3, e5m2, f16):
 * code_o for f32_i = f32bits, round_i = round, ovf_i = ovf and
 * rand_i = the low sr_bits bits of rbits. This is spu_f32_to_code(). */
uint32_t spu_hw_cvt_f32(spu_fmt fmt, uint32_t f32bits, spu_round round,
                        spu_overflow ovf, uint32_t rbits);

/* spu_fx2f32: f32 bits of RNE(x * 2^e), x a two's-complement integer of
 * w bits (2 <= w <= 128) given as two little-endian 64-bit words (bits of
 * x[] above w are ignored). nan -> 0x7FC00000; else inf -> Inf of
 * inf_sign; x = 0 -> +0; subnormals and overflow to Inf as IEEE RNE. */
uint32_t spu_hw_fx2f32(const uint64_t x[2], unsigned w, int32_t e,
                       int nan, int inf, int inf_sign);

/* State of spu_acc_fx (acc_w <= 128 bits, LSB weight 2^lsb_exp). */
typedef struct spu_hw_acc_fx {
    unsigned acc_w;
    int32_t  lsb_exp;
    uint64_t acc[2];   /* acc_o, two's complement, sign-extended to 128 bits */
    int      nan_q, pinf_q, ninf_q, ovf_q;
} spu_hw_acc_fx;

/* Reset (rst_i) the accumulator and set its parameters. */
void spu_hw_acc_fx_reset(spu_hw_acc_fx *s, unsigned acc_w, int32_t lsb_exp);
/* One clock edge with clr_i = clr, valid_i = valid and the product p
 * (ignored when valid is 0; NULL allowed then). */
void spu_hw_acc_fx_step(spu_hw_acc_fx *s, int clr, int valid, const spu_hw_fpprod *p);
/* Output flags of spu_acc_fx (after the last step). */
int spu_hw_acc_fx_nan(const spu_hw_acc_fx *s);
int spu_hw_acc_fx_inf(const spu_hw_acc_fx *s);
int spu_hw_acc_fx_inf_sign(const spu_hw_acc_fx *s);

/* spu_mx_dot: f32 bits of the block dot product of n element pairs (codes
 * one per byte, formats fa / fb as spu_mul_fp accepts them) with E8M0
 * scales sa, sb. Returns the f32 bits (NaN 0x7FC00000). Invalid formats
 * or n > 1024 give 0x7FC00000 as well. */
uint32_t spu_hw_mx_dot(spu_fmt fa, const uint8_t *a, uint8_t sa,
                       spu_fmt fb, const uint8_t *b, uint8_t sb, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* SPU_NUMERICS_HW_H */
