/*
 * vector.h -- int8 kernels on the device's vector unit (docs/isa.md
 * "Vector unit"): elementwise ops, lookup tables, row reductions and the
 * 2x2 max-pool, for the ops between GEMMs. Each call streams its operands
 * through the scratchpad in pieces (firmware/vec_ops.s,
 * firmware/vec_maxpool2.s) and returns the device's result; nothing is
 * computed on the host. A device without the unit (INFO features bit 0
 * clear: the iCE40 boards) gives SPU_ENOTSUP.
 */
#ifndef SPU_VECTOR_H
#define SPU_VECTOR_H

#include "spu/spu.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum spu_vec_op {
    SPU_VEC_ADD = 0,   /* y = sat8(a + b)                                   */
    SPU_VEC_SUB = 1,   /* y = sat8(a - b)                                   */
    SPU_VEC_MUL = 2,   /* y = sat8(rne(a * b / 128)) (vmul, cfg shift 7)    */
    SPU_VEC_MAX = 3,   /* y = max(a, b)                                     */
    SPU_VEC_LUT = 6    /* y = lut[(uint8_t)a]                               */
} spu_vec_op;

typedef struct spu_vec_stats {
    uint64_t cycles;        /* device cycles, RUN to halt, summed over runs  */
    uint64_t vec_busy;      /* VEC_BUSY counter, summed                      */
    uint64_t link_bytes;    /* link bytes both ways (0 on model)             */
    uint32_t runs;          /* device runs                                   */
} spu_vec_stats;

/* y[i] = op(a[i], b[i]) for i < n, on the device. b: n elements, or NULL
 * with `scalar` broadcast (ADD/SUB/MUL/MAX; e.g. ReLU = MAX with 0, a scale
 * by m/128 = MUL with m); LUT takes a and the 256-entry table `lut` (b
 * unused). y may equal a (in place). stats may be NULL (else accumulated).
 * Returns 0, SPU_EINVAL, SPU_ENOTSUP (no vector unit), SPU_ETRAP or a
 * transport error. */
int spu_vec_map(spu_device *dev, spu_vec_op op, const int8_t *a, const int8_t *b, int8_t scalar,
                const uint8_t lut[256], int8_t *y, size_t n, spu_vec_stats *stats);

/* Row reductions of x (rows x len, row-major): out_max[r] = max of row r,
 * out_sum[r] = its sum (int32); either output may be NULL. */
int spu_vec_rows(spu_device *dev, const int8_t *x, size_t rows, size_t len, int8_t *out_max,
                 int32_t *out_sum, spu_vec_stats *stats);

/* 2x2 max-pool, stride 2, of x (H x W x C, channels innermost) into y
 * (H/2 x W/2 x C). C must be a multiple of the device's word_bytes, H and
 * W even (else SPU_EINVAL). */
int spu_vec_maxpool2_hwc(spu_device *dev, const int8_t *x, size_t C, size_t H, size_t W, int8_t *y,
                         spu_vec_stats *stats);

/* Softmax of int8 rows on the device (firmware/vec_softmax.s; docs/runtime.md
 * "Device softmax"): x is rows x len codes (len a multiple of the device's
 * word_bytes, else SPU_EINVAL), lut the exp table of spu_vec_exp_lut. Per
 * row: m = max, d = sat8(x - m), e = lut[(uint8_t)d], S = sum of e (int32),
 * y = sat8(round(e * 128 / S)) (ties away from zero; vdiv with shift 7):
 * probabilities on the 1/128 grid. y may equal x. */
int spu_vec_softmax_rows(spu_device *dev, const int8_t *x, size_t rows, size_t len, const uint8_t lut[256],
                         int8_t *y, spu_vec_stats *stats);
/* The exp table of spu_vec_softmax_rows for codes of step `step` (the real
 * value of one code): lut[u] = round(127 * exp(d * step)) for d = (int8_t)u
 * <= 0 (in double, ties away from zero), 127 for d > 0 (never indexed: d =
 * x - max). */
void spu_vec_exp_lut(double step, uint8_t lut[256]);

#ifdef __cplusplus
}
#endif
#endif
