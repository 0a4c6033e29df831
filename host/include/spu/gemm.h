/*
 * gemm.h -- GEMM kernels that tile any shape onto a device.
 *
 * spu_gemm_i8 computes C[M][N] = A[M][K] x B[K][N] with int8 operands and
 * int32 results (two's-complement wrap-around, as the array does), all
 * row-major. Any M, N, K >= 1 works: edges are padded, problems larger than
 * the scratchpad are split into pieces (K pieces are summed on the host),
 * each piece runs firmware/gemm_int8.s.
 */
#ifndef SPU_GEMM_H
#define SPU_GEMM_H

#include "spu/spu.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spu_gemm_stats {
    uint64_t cycles;        /* device cycles, RUN to halt, summed over pieces   */
    uint64_t model_cycles;  /* same pieces on the reference model (if checked)  */
    uint64_t macs;          /* M*N*K                                           */
    uint64_t mac_active;    /* counters summed over pieces                      */
    uint64_t stall_bank, stall_drain, instret;
    uint64_t link_bytes;    /* link bytes both ways during the call (0: model)  */
    uint32_t pieces;        /* device runs                                      */
    double   wall_s;        /* wall-clock time of the call                      */
} spu_gemm_stats;

typedef struct spu_gemm_opts {
    int check_model;        /* also run every piece on an in-process model of the
                               device's geometry: fills model_cycles and fails
                               with SPU_EMISMATCH if any result byte differs   */
    int timeout_ms;         /* per piece; <= 0: 60000                           */
} spu_gemm_opts;

/* Run the GEMM on dev. stats and opts may be NULL. Returns 0, SPU_ETRAP if
 * the device trapped, SPU_EMISMATCH (check_model), or a transport error. */
int spu_gemm_i8(spu_device *dev, uint32_t M, uint32_t N, uint32_t K,
                const int8_t *A, const int8_t *B, int32_t *C,
                const spu_gemm_opts *opts, spu_gemm_stats *stats);

/* The piece plan spu_gemm_i8 follows (shared with the performance model,
 * host/src/perf/): where A, B and C live in the scratchpad and how many
 * k-steps (kc), row blocks (mb) and column blocks (nb) one piece holds.
 * The GEMM runs pieces for k0 = 0, kc, ..; ib0 = 0, mb, ..; jb0 = 0, nb, ..
 * (k outermost, then row blocks, then column blocks): A is written once per
 * (k0, ib0), B once per (k0, ib0, jb0), C read back once per piece. */
typedef struct spu_gemm_plan {
    uint32_t R, C, wb;      /* rows, cols, word bytes of the device          */
    uint32_t a_base, a_bytes, b_base, b_bytes, c_base, c_bytes;
    uint32_t kc;            /* k-steps per piece                             */
    uint32_t mb, nb;        /* row/col blocks per piece                      */
    uint32_t MB, NB;        /* row/col blocks of the whole GEMM              */
} spu_gemm_plan;

/* Plan an M x N x K GEMM (all >= 1) for a device of that geometry. Returns 0
 * or SPU_ENOTSUP when the scratchpad cannot hold one block. */
int spu_gemm_plan_make(const spu_info_t *info, uint32_t M, uint32_t N, uint32_t K,
                       spu_gemm_plan *p);
/* The GEMM in any dtype the device carries (docs/numerics.md "Datapath
 * numerics"): in_dtype SPU_DTYPE_INT8 | E4M3 | E5M2 (A[M][K], B[K][N] one
 * code per byte, row-major) | BF16 (uint16 codes, little-endian), out_dtype SPU_DTYPE_INT32 (int8 only: int32_t
 * C, K pieces summed with wrap-around as spu_gemm_i8) or SPU_DTYPE_F32
 * (float C: the exact sum rounded once to binary32 on the device; K must fit
 * one piece of the scratchpad plan, else SPU_ENOTSUP). SPU_EINVAL for a pair
 * that is not a GEMM dtype, SPU_ENOTSUP for one the device lacks (INFO
 * formats). Returns as spu_gemm_i8 otherwise. */
int spu_gemm(spu_device *dev, unsigned in_dtype, unsigned out_dtype,
             uint32_t M, uint32_t N, uint32_t K, const void *A, const void *B, void *C,
             const spu_gemm_opts *opts, spu_gemm_stats *stats);

/* What st does to the accumulators (docs/numerics.md "Output pipeline"). */
typedef struct spu_gemm_epilogue {
    unsigned out_dtype;     /* SPU_DTYPE_INT32 | INT8 | F32 | BF16 | F16 | E4M3 | E5M2 */
    int relu;               /* negative outputs become +0                          */
    int ovf;                /* bf16/f16/e4m3/e5m2: 0 saturate, 1 Inf (e4m3 NaN)    */
    unsigned shift, round;  /* out=int8: requantizer shift and rounding (SPU_ROUND_*) */
    const double *bias;     /* NULL, or N values added to column j before the
                               rounding (docs/isa.md `bias`): int8 inputs take
                               integers in int32 range; float inputs are put on
                               the 2^-32 grid (RNE), |bias| < 2^31            */
} spu_gemm_epilogue;

/* Why a device (its INFO) cannot run spu_gemm_epi's in_dtype -> out_dtype
 * (with a bias when `bias`) at all: a short reason, or NULL when it can
 * (spu_gemm_epi's SPU_ENOTSUP for those cases; a K beyond one piece is the
 * other). */
const char *spu_gemm_epi_lacks(const spu_info_t *info, unsigned in_dtype, unsigned out_dtype, int bias);
/* spu_gemm with the whole output pipeline: C holds M*N elements of
 * bytes(out) each (int32/f32 4, bf16/f16 2 little-endian uint16 codes,
 * int8/e4m3/e5m2 1), row-major. Every out except int32 is computed on the
 * device from the exact sum, so K must fit one scratchpad piece
 * (SPU_ENOTSUP otherwise); int32 without relu or bias sums K pieces as
 * spu_gemm. With a bias the kernel is firmware/gemm_bias.s (the bias loaded
 * once per column block). SPU_EINVAL for a bad dtype pair, field or bias
 * value, SPU_ENOTSUP for a format the device lacks. */
int spu_gemm_epi(spu_device *dev, unsigned in_dtype, const spu_gemm_epilogue *epi,
                 uint32_t M, uint32_t N, uint32_t K, const void *A, const void *B, void *C,
                 const spu_gemm_opts *opts, spu_gemm_stats *stats);

/* MX GEMM (in_dtype SPU_DTYPE_MXFP8_E4M3 | MXFP8_E5M2 | MXINT8 | MXFP6_E3M2 |
 * MXFP6_E2M3 | MXFP4_E2M1; OCP MX v1.0
 * with 32-element blocks along K, docs/numerics.md "MX on the array"):
 * A[M][K] and B[K][N] element codes (one per byte -- fp6 / fp4 in the low
 * 6 / 4 bits -- row-major, as
 * spu_mx_quantize writes them), SA[M][ceil(K/32)] the E8M0 scale of row i's
 * block g, SB[ceil(K/32)][N] that of column j's. epi as spu_gemm_epi (out
 * f32 | bf16 | f16 | e4m3 | e5m2). K + ceil(K/32) words must fit one piece
 * (SPU_ENOTSUP otherwise). Returns as spu_gemm_epi. */
int spu_gemm_mx(spu_device *dev, unsigned in_dtype, const spu_gemm_epilogue *epi,
                uint32_t M, uint32_t N, uint32_t K, const uint8_t *A, const uint8_t *SA,
                const uint8_t *B, const uint8_t *SB, void *C,
                const spu_gemm_opts *opts, spu_gemm_stats *stats);
/* Plain reference: a triple loop that shares no code with the device path. */
void spu_gemm_i8_reference(uint32_t M, uint32_t N, uint32_t K,
                           const int8_t *A, const int8_t *B, int32_t *C);

#ifdef __cplusplus
}
#endif
#endif
