/*
 * numerics.h -- bit-exact software model of the SPU number formats:
 * f32, f16, bf16, OCP OFP8 (E4M3, E5M2), OCP MX element types (E3M2, E2M3,
 * E2M1), the E8M0 scale, int8, and the OCP MX block formats built on them.
 *
 * docs/numerics.md is the specification ("Semantics"); this header is its C
 * contract. Every function here is pure (no global state, thread-safe).
 *
 * Codes: an element of a format of <= 8 bits is one uint8_t holding the code
 * in its low bits (sign in bit bits-1 for the signed floats, two's complement
 * for int8). f16/bf16 codes are uint16_t, f32 codes uint32_t (IEEE bits).
 * Scalar functions take and return codes as uint32_t.
 */
#ifndef SPU_NUMERICS_H
#define SPU_NUMERICS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- formats ---------------------------------------------------------- */
typedef enum spu_fmt {
    SPU_FMT_F32,    /* IEEE binary32                                   */
    SPU_FMT_F16,    /* IEEE binary16, max 65504                        */
    SPU_FMT_BF16,   /* bfloat16 (top half of f32)                      */
    SPU_FMT_E4M3,   /* OCP OFP8 E4M3: bias 7, no Inf, NaN S.1111.111, max 448 */
    SPU_FMT_E5M2,   /* OCP OFP8 E5M2: bias 15, IEEE-like, max 57344     */
    SPU_FMT_E3M2,   /* OCP MX FP6 E3M2: bias 3, no Inf/NaN, max 28      */
    SPU_FMT_E2M3,   /* OCP MX FP6 E2M3: bias 1, no Inf/NaN, max 7.5     */
    SPU_FMT_E2M1,   /* OCP MX FP4 E2M1: bias 1, no Inf/NaN, max 6       */
    SPU_FMT_E8M0,   /* OCP MX scale: unsigned 2^(code-127), 0xFF = NaN  */
    SPU_FMT_INT8,   /* two's complement integer -128..127               */
    SPU_FMT_COUNT
} spu_fmt;

/* Rounding modes. Codes 0..2 equal the `round` field of cfg (spu_cfg.def). */
typedef enum spu_round {
    SPU_ROUND_RNE = 0,  /* nearest, ties to even (default)            */
    SPU_ROUND_RTZ = 1,  /* toward zero (truncate the magnitude)        */
    SPU_ROUND_RNA = 2,  /* nearest, ties away from zero                */
    SPU_ROUND_SR  = 3,  /* stochastic, explicit random bits (see below) */
    SPU_ROUND_COUNT
} spu_round;

/* What a finite value beyond the largest finite code becomes. */
typedef enum spu_overflow {
    SPU_OVF_SAT = 0,    /* +-max finite (default); +-Inf inputs too    */
    SPU_OVF_OVF = 1,    /* +-Inf if the format has Inf, else NaN if it
                           has NaN (E4M3, E8M0), else +-max (E3M2, E2M3,
                           E2M1, int8: no special codes)                */
    SPU_OVF_COUNT
} spu_overflow;

/* Class of a decoded code. */
typedef enum spu_fclass {
    SPU_FCLASS_ZERO,
    SPU_FCLASS_SUBNORMAL,
    SPU_FCLASS_NORMAL,
    SPU_FCLASS_INF,
    SPU_FCLASS_NAN
} spu_fclass;

/* Static description of a format (one table, never NULL for a valid fmt). */
typedef struct spu_fmt_info {
    const char *name;      /* "f32", "f16", "bf16", "e4m3", ... "int8"       */
    unsigned bits;         /* storage bits of one code                       */
    unsigned ebits;        /* exponent field bits (0 for int8)               */
    unsigned mbits;        /* mantissa field bits (int8: 7 magnitude bits)   */
    int      bias;         /* exponent bias                                  */
    int      has_inf;      /* 1 for f32 f16 bf16 e5m2                        */
    int      has_nan;      /* 1 for f32 f16 bf16 e5m2 e4m3 e8m0              */
    int      is_signed;    /* 0 only for e8m0                                */
    int      emax;         /* floor(log2(max finite)): the MX "emax_elem"    */
    unsigned sr_bits;      /* N, random bits used by SPU_ROUND_SR            */
    uint32_t max_code;     /* code of +max finite                            */
    double   max_value;    /* +max finite value                              */
} spu_fmt_info;

/* Table entry of fmt, or NULL if fmt is out of range. */
const spu_fmt_info *spu_fmt_get(spu_fmt fmt);
/* Format name ("e4m3"), or "?" if out of range. */
const char *spu_fmt_name(spu_fmt fmt);
/* Look up a format by name (case-sensitive: "f32" "f16" "bf16" "e4m3"
 * "e5m2" "e3m2" "e2m3" "e2m1" "e8m0" "int8"; "fp32" "fp16" "fp8_e4m3"
 * "fp8_e5m2" "fp6_e3m2" "fp6_e2m3" "fp4_e2m1" are aliases). Returns the
 * format (>= 0) or SPU_EINVAL. */
int spu_fmt_from_name(const char *name);
/* "rne" "rtz" "rna" "sr" -> spu_round, or SPU_EINVAL. */
int spu_round_from_name(const char *name);
const char *spu_round_name(spu_round r);

/* ---- exact decode -------------------------------------------------------- */
/* value = (-1)^sign * sig * 2^exp, sig a non-negative integer. For ZERO
 * sig = 0, exp = 0; for INF and NAN sig = 0, exp = 0 and the value is
 * meaningless. Normal codes give sig with the implicit bit set
 * (2^mbits <= sig < 2^(mbits+1)); int8 gives sig = |v|, exp = 0. */
typedef struct spu_num {
    int        sign;       /* 0 or 1                                         */
    spu_fclass cls;
    uint32_t   sig;
    int32_t    exp;
} spu_num;

/* Decode one code (only the low `bits` bits of code are used). Returns 0,
 * or SPU_EINVAL for an invalid fmt. */
int spu_num_decode(spu_fmt fmt, uint32_t code, spu_num *out);
/* The code as an f32 value (exact: every format fits in f32). NaN codes
 * give a quiet NaN with the code's sign. */
float spu_num_to_f32(spu_fmt fmt, uint32_t code);

/* ---- conversion f32 -> format --------------------------------------------- */
/* Random bits for stochastic rounding of the element with flat index
 * `index` of a stream seeded with `seed` (splitmix64, docs/numerics.md):
 *   z = seed + 0x9E3779B97F4A7C15 * (index + 1)            (mod 2^64)
 *   z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
 *   z = (z ^ (z >> 27)) * 0x94D049BB133111EB
 *   z =  z ^ (z >> 31);   return (uint32_t)(z >> 32)
 * The converters use the low sr_bits (N) bits of this word. */
uint32_t spu_sr_random(uint64_t seed, uint64_t index);

/* Convert one f32 (given as its IEEE bits) to a code of fmt.
 * rbits: random word for SPU_ROUND_SR (its low N = sr_bits bits are used;
 * ignored by the other modes). Precisely (docs/numerics.md "Rounding"):
 * the magnitude |x| is rounded to the target grid (ulp of its binade in the
 * target, or the subnormal ulp) with an unbounded exponent range; for SR,
 * R = rbits mod 2^N is added at the N bit positions just below the kept LSB
 * and the sum is truncated; then the overflow rule applies (RTZ never
 * overflows a finite input: it gives +-max). NaN -> the format's NaN
 * (sign kept, f16/bf16/e5m2 keep the top payload bits and set the quiet
 * bit; formats without NaN give +0). For e8m0 the sign is ignored and
 * zero/underflow give code 0x00 (2^-127). An invalid fmt returns 0. */
uint32_t spu_f32_to_code(spu_fmt fmt, uint32_t f32bits, spu_round round,
                         spu_overflow ovf, uint32_t rbits);
/* Same for a float value. */
uint32_t spu_from_f32(spu_fmt fmt, float x, spu_round round, spu_overflow ovf,
                      uint32_t rbits);

/* Options of the bulk conversions. A zeroed struct = rne, sat, seed 0. */
typedef struct spu_cvt_opts {
    spu_round    round;
    spu_overflow overflow;
    uint64_t     seed;    /* SR stream seed                                   */
    uint64_t     index0;  /* SR stream index of element 0 (for chunking)      */
} spu_cvt_opts;

/* Bytes of one stored element (1, 2 or 4): codes of <= 8 bits take a byte. */
size_t spu_fmt_elem_bytes(spu_fmt fmt);

/* Convert n f32 values to codes of fmt, written as n elements of
 * spu_fmt_elem_bytes(fmt) bytes (host order). Element i uses the random word
 * spu_sr_random(seed, index0 + i) under SR. Uses AVX2 when the CPU has it
 * (bit-identical to the scalar path). opts may be NULL (rne, sat).
 * Returns 0 or SPU_EINVAL. */
int spu_convert_from_f32(spu_fmt fmt, const float *in, void *out, size_t n,
                         const spu_cvt_opts *opts);
/* Same, forcing the portable scalar path (for tests and benchmarks). */
int spu_convert_from_f32_scalar(spu_fmt fmt, const float *in, void *out, size_t n,
                                const spu_cvt_opts *opts);
/* Decode n elements of fmt (layout as above) to f32, exactly. */
int spu_convert_to_f32(spu_fmt fmt, const void *in, float *out, size_t n);
/* Any format to any format: decode to f32 (exact) then convert. in and out
 * must not overlap. */
int spu_convert(spu_fmt from, const void *in, spu_fmt to, void *out, size_t n,
                const spu_cvt_opts *opts);

/* Non-zero when the AVX2 paths are compiled in and the CPU supports them. */
int spu_numerics_have_avx2(void);

/* ---- exact products --------------------------------------------------------- */
/* Exact product of two codes (formats may differ): sign xor, sig_a*sig_b
 * (fits in 64 bits for every pair of formats), exp_a+exp_b. Class: NAN if
 * either is NaN or 0 * Inf; INF if either is Inf; ZERO if either is zero;
 * otherwise NORMAL (sig != 0; the value is exact, not normalized). */
typedef struct spu_prod {
    int        sign;
    spu_fclass cls;
    uint64_t   sig;
    int32_t    exp;
} spu_prod;
int spu_num_mul_exact(spu_fmt fa, uint32_t a, spu_fmt fb, uint32_t b, spu_prod *out);

/* ---- OCP MX block formats ------------------------------------------------------ */
typedef enum spu_mx_fmt {
    SPU_MX_FP8_E4M3,  /* "mxfp8_e4m3" */
    SPU_MX_FP8_E5M2,  /* "mxfp8_e5m2" */
    SPU_MX_FP6_E3M2,  /* "mxfp6_e3m2" */
    SPU_MX_FP6_E2M3,  /* "mxfp6_e2m3" */
    SPU_MX_FP4_E2M1,  /* "mxfp4_e2m1" */
    SPU_MX_INT8,      /* "mxint8": int8 codes, element value code * 2^-6 */
    SPU_MX_COUNT
} spu_mx_fmt;

#define SPU_MX_BLOCK_DEFAULT 32
#define SPU_E8M0_NAN 0xFFu

typedef enum spu_mx_scale_rule {
    SPU_MX_SCALE_FLOOR = 0,  /* OCP MX v1.0: floor(log2(amax)) - emax_elem */
    SPU_MX_SCALE_CEIL  = 1   /* smallest X with amax <= max_elem * 2^X     */
} spu_mx_scale_rule;

const char *spu_mx_name(spu_mx_fmt f);      /* "?" if out of range           */
int  spu_mx_from_name(const char *name);    /* spu_mx_fmt or SPU_EINVAL      */
spu_fmt spu_mx_elem(spu_mx_fmt f);          /* element format (int8 for mxint8) */
/* emax_elem of the scale rule: 8 15 4 2 2 and 0 for mxint8 (max 127/64). */
int  spu_mx_emax(spu_mx_fmt f);

/* Shared scale (E8M0 code) of a block whose largest magnitude is amax
 * (f32 bits, sign ignored): 0xFF if amax is NaN or Inf; 0x00 if amax is 0
 * (all-zero block: X = -127); else X = floor(log2(amax)) - emax_elem
 * (FLOOR) or ceil(log2(amax / max_elem)) (CEIL), clamped to [-127, 127],
 * code X + 127. */
uint8_t spu_mx_scale(spu_mx_fmt f, uint32_t amax_bits, spu_mx_scale_rule rule);

/* Element code of x (f32 bits) in a block with scale code `scale`: the
 * element format conversion of x * 2^-X (exact scaling, one rounding), with
 * overflow SAT. mxint8: round(x * 2^(6-X)) clamped to [-127, 127]. With
 * scale 0xFF the code is 0. rbits as in spu_f32_to_code. */
uint32_t spu_mx_elem_code(spu_mx_fmt f, uint32_t x_bits, uint8_t scale,
                          spu_round round, uint32_t rbits);
/* Value of an element: elem(code) * 2^X (NaN when scale is 0xFF). */
float spu_mx_dequant(spu_mx_fmt f, uint32_t code, uint8_t scale);

typedef struct spu_mx_opts {
    size_t            block;   /* elements per block along the last axis; 0 = 32 */
    spu_mx_scale_rule scale;
    spu_round         round;   /* element rounding (RNE default)              */
    uint64_t          seed;    /* SR: element i of the tensor (flat index)
                                  uses spu_sr_random(seed, i)                  */
} spu_mx_opts;

/* Number of blocks per row: ceil(cols / block). The last block of a row may
 * be shorter; blocks never span rows. */
size_t spu_mx_blocks_per_row(size_t cols, size_t block);

/* Quantize a rows x cols row-major f32 matrix along its last axis.
 * Outputs (each may be NULL): codes[rows*cols] one code per byte,
 * scales[rows*blocks_per_row] E8M0 codes, deq[rows*cols] the dequantized
 * values (fake-quant; deq may alias x). opts may be NULL (defaults).
 * Returns 0 or SPU_EINVAL. */
int spu_mx_quantize(spu_mx_fmt f, const float *x, size_t rows, size_t cols,
                    const spu_mx_opts *opts, uint8_t *codes, uint8_t *scales,
                    float *deq);
/* Same, forcing the scalar path. */
int spu_mx_quantize_scalar(spu_mx_fmt f, const float *x, size_t rows, size_t cols,
                           const spu_mx_opts *opts, uint8_t *codes,
                           uint8_t *scales, float *deq);

/* Exact MX block dot product: sum_i a_i * b_i over n element pairs (codes
 * one per byte, element values as spu_mx_dequant with scale 2^0, so mxint8
 * elements are code * 2^-6), times 2^(Xa + Xb), computed exactly and
 * rounded once to f32 (RNE, IEEE overflow to Inf; an exact zero sum gives
 * +0). NaN if a scale is 0xFF, an element is NaN, or Inf - Inf / 0 * Inf
 * occurs; +-Inf if an element product is infinite. The two operands may use
 * different MX formats. Returns the f32 result. */
float spu_mx_dot_exact(spu_mx_fmt fa, const uint8_t *a, uint8_t scale_a,
                       spu_mx_fmt fb, const uint8_t *b, uint8_t scale_b, size_t n);

/* ---- packing of sub-byte codes (quantize --codes) ------------------------------- */
/* Bytes to pack n codes of fmt: 4-bit: ceil(n/2) (two per byte, element 2i
 * in the low nibble); 6-bit: ceil(6n/8) (little-endian bit stream: code i
 * occupies bits 6i..6i+5, bit k of the stream is bit k%8 of byte k/8);
 * 8-bit: n; 16/32-bit: 2n/4n little-endian. */
size_t spu_pack_bytes(spu_fmt fmt, size_t n);
/* Pack n codes (one per byte, or 16/32-bit host-order elements) into out
 * (spu_pack_bytes bytes, padding bits zero). Returns bytes written. */
size_t spu_pack_codes(spu_fmt fmt, const void *codes, size_t n, uint8_t *out);
/* Inverse of spu_pack_codes. Returns bytes consumed. */
size_t spu_unpack_codes(spu_fmt fmt, const uint8_t *in, size_t n, void *codes);

#ifdef __cplusplus
}
#endif
#endif /* SPU_NUMERICS_H */
