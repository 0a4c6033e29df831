/*
 * numerics_internal.h -- private parameters of the format converters shared
 * by the scalar and AVX2 paths (host/src/numerics/).
 */
#ifndef SPU_NUMERICS_INTERNAL_H
#define SPU_NUMERICS_INTERNAL_H

#include "spu/numerics.h"

#include <stdint.h>
#include <string.h>

/* Converter parameters: the target magnitude grid is
 *   code_mag = ((et + bias - 1) << m) + K,  |value| = K * 2^(et - m),
 * et = max(floor(log2|x|), emin), emin = 1 - bias. */
typedef struct spu_cvt_param {
    int      kind;        /* CVT_FLOAT, CVT_INT8, CVT_E8M0                     */
    int      m;           /* mantissa bits                                     */
    int      bias;        /* bias of the grid formula (e8m0: 128, int8: -6)    */
    int      emin;        /* 1 - bias                                          */
    unsigned bits;        /* code bits                                         */
    unsigned nsr;         /* SR random bits                                    */
    uint32_t maxmag;      /* largest finite magnitude code                     */
    uint32_t infmag;      /* magnitude code of Inf (0 if none)                 */
    int      has_inf, has_nan;
    int      nan_payload; /* 1: NaN keeps top payload bits (f16 bf16 e5m2)     */
    uint32_t nanmag;      /* NaN magnitude code for e4m3 / e8m0                */
} spu_cvt_param;

enum { CVT_FLOAT = 0, CVT_INT8 = 1, CVT_E8M0 = 2 };

const spu_cvt_param *spu_cvt_param_get(spu_fmt fmt);

/* Core: convert f32 bits x scaled by 2^-eoff to a code of the format.
 * maxmag_neg overrides the negative saturation magnitude (int8: 128 or 127). */
uint32_t spu_cvt_core(const spu_cvt_param *p, uint32_t x, int32_t eoff,
                      spu_round round, spu_overflow ovf, uint32_t rbits,
                      uint32_t maxmag_neg);

static inline uint32_t spu_f2u_(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float spu_u2f_(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* AVX2 kernels (convert_avx2.c); return the number of elements done (a
 * prefix; the caller finishes the rest with the scalar path). */
size_t spu_cvt_avx2(spu_fmt fmt, const float *in, void *out, size_t n,
                    spu_round round, spu_overflow ovf);
/* One MX block of len (multiple of 8) elements with scale exponent X (not NaN);
 * returns 1 if done, 0 if the block needs the scalar path. */
int spu_mx_block_avx2(spu_mx_fmt f, const float *x, size_t len, int X,
                      spu_round round, uint8_t *codes, float *deq);
/* Max of |x| bits over len elements (len multiple of 8). */
uint32_t spu_amax_bits_avx2(const float *x, size_t len);
int spu_avx2_ok_(void);
/* MX RNE quantization of whole rows (float element formats, block % 8 == 0);
 * returns 0 if not applicable (nothing written). */
int spu_mx_rows_avx2(spu_mx_fmt f, const float *x, size_t rows, size_t cols,
                     size_t block, spu_mx_scale_rule rule, uint8_t *codes,
                     uint8_t *scales, float *deq);
/* One block with the scalar path (mx.c); returns its scale code. */
uint8_t spu_mx_block_scalar_(spu_mx_fmt f, const float *x, size_t len,
                             spu_mx_scale_rule rule, spu_round round, uint64_t seed,
                             uint64_t idx0, uint8_t *codes, float *deq);

#endif
