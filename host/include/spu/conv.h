/*
 * conv.h -- a convolution on the device from activation codes in HWC order,
 * with no im2col matrix on the host or the device (firmware/conv_tap.s,
 * docs/runtime.md "Convolution on the device"): the array transposes the
 * input's WORD_BYTES x WORD_BYTES blocks into shifted copies (an identity
 * GEMM), then every output block is the sum of the k*k taps' GEMMs,
 * accumulated in the array, through the output pipeline.
 */
#ifndef SPU_CONV_H
#define SPU_CONV_H

#include "spu/gemm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y = conv2d(x, w) (stride 1, zero padding `pad`, OH = H + 2*pad - k + 1,
 * OW likewise) through the output pipeline epi, on dev.
 *   dt   SPU_DTYPE_INT8 | E4M3 | E5M2 (one-byte codes); epi->out_dtype = dt
 *   x    B x H x W x C codes (channels innermost)
 *   w    B[K][N] as spu_gemm takes it: K = C*k*k in (c, kh, kw) order
 *   y    B x OH x OW x N codes
 * The device needs the vector unit's build (`features`), a square array
 * (ROWS = COLS = WORD_BYTES), bias registers, N a multiple of COLS and C = 1
 * or a multiple of WORD_BYTES; else SPU_ENOTSUP (the caller keeps its
 * im2col path). stats (may be NULL) accumulates cycles, link bytes, MACs
 * (B*OH*OW*N*K) and pieces. Returns 0, SPU_EINVAL, SPU_ENOTSUP, SPU_ETRAP or
 * a transport error. */
int spu_conv2d_hwc(spu_device *dev, unsigned dt, const spu_gemm_epilogue *epi, uint32_t B, uint32_t H,
                   uint32_t W, uint32_t C, uint32_t k, uint32_t pad, const void *x, uint32_t N,
                   const void *w, void *y, spu_gemm_stats *stats);

/* Can spu_conv2d_hwc run this shape on a device with this INFO? */
int spu_conv2d_hwc_supported(const spu_info_t *info, unsigned dt, uint32_t C, uint32_t k, uint32_t N);

#ifdef __cplusplus
}
#endif
#endif
