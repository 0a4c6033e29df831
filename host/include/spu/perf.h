/*
 * perf.h -- the analytical performance model of the SPU (docs/perf-model.md).
 *
 * Closed form, no instruction-level simulation: device cycles of a GEMM from
 * the per-instruction costs of docs/isa.md and the host's piece plan
 * (spu_gemm_plan_make), link bytes and time from the frames that plan moves,
 * end-to-end time and a roofline whose memory roof is the link. A hardware
 * file (JSON) holds a configuration and its calibrated link/host parameters;
 * spu_perf_fit() calibrates them by least squares from bench measurements.
 * The model depends on the ISA tables and the gemm plan, never on a transport.
 */
#ifndef SPU_PERF_H
#define SPU_PERF_H

#include "spu/spu.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPU_PERF_MAX_PEAKS 8

/* A hardware description. kind "spu": an SPU configuration (geometry as in
 * INFO, device clock, link and host parameters). kind "roofline": any other
 * accelerator, given by peak throughput per compute format and memory
 * bandwidth (datasheet figures, cited in `source`). */
typedef struct spu_perf_hw {
    char     name[64];
    char     kind[16];           /* "spu" | "roofline"                                    */
    char     source[256];        /* where the figures come from                           */
    /* spu geometry (INFO) */
    uint32_t rows, cols, word_bytes, spad_bytes, spad_banks, ucode_words, drain_lanes;
    uint32_t spram;              /* 1: single-port banks (INFO features bit 1): an mm
                                    launches after the last st's drain (docs/isa.md)      */
    uint32_t chain;              /* 1: chained streams (INFO features bit 2, docs/isa.md) */
    uint32_t bus;                /* 1: row / column buses, no skew (INFO features bit 3,
                                    docs/isa.md "Tensor unit"); 0: a systolic array     */
    uint32_t pair;               /* 1: k-step pairs (INFO features bit 4, docs/isa.md
                                    "k-step pairs"): two k-steps a cycle where the rule
                                    allows; needs spram = 1, bus = 1, chain = 0          */
    uint32_t overlap;            /* 1: overlapped issue (INFO features bit 5, docs/isa.md
                                    "Overlapped issue"): an instruction's FETCH shares the
                                    last EXEC cycle of the one before it where the rule
                                    allows (the kernels' cycles, instruction by instruction) */
    uint32_t idle_flag;          /* 1: the host sees a run end by the device's idle flag,
                                    no link traffic (a simulator's stats page): one STATUS
                                    per run; 0: spu_wait polls STATUS (a board)           */
    double   clock_hz;           /* clock the configuration is built for: device_s        */
    double   wall_clock_hz;      /* device cycles per wall-clock second (board: clock_hz;
                                    a simulator: its simulation speed)                     */
    /* link: stop-and-wait request/reply transactions */
    double   link_bytes_per_s;   /* bytes per second on the wire (UART 8N1: baud / 10)    */
    double   frame_overhead_s;   /* fixed cost per frame either way (input, not fitted)   */
    double   txn_latency_s;      /* per request/reply turnaround (fitted)                 */
    double   turnaround_s;       /* the device's own time per transaction in board time
                                    (engine, UART quiet); fitted on simulated time by
                                    spu_perf_fit_board; used by spu_perf_board_time only  */
    /* host */
    double   host_s_per_piece;   /* packing, unpacking, calls per piece (fitted)          */
    double   host_s_per_call;    /* fixed per GEMM call (fitted)                          */
    /* roofline: peak operations per second by compute format, memory roof */
    int      npeaks;
    char     peak_fmt[SPU_PERF_MAX_PEAKS][16];
    double   peak_ops[SPU_PERF_MAX_PEAKS];   /* ops/s (1 MAC = 2 ops)                     */
    double   mem_bytes_per_s;    /* memory roof; for "spu" the link rate                  */
} spu_perf_hw;

/* The hardware of a device's INFO: geometry and clock from INFO (clock_hz = 0
 * in INFO: 12 MHz for "model"/"sim" as their docs state, else the default
 * board clock 24 MHz), link defaults of a 3 Mbaud UART, peak int8 =
 * 2*rows*cols*clock. A hardware file (spu_perf_hw_load) overrides these. */
void spu_perf_hw_from_info(spu_perf_hw *hw, const spu_info_t *info);
/* The hardware when neither a device nor a file is named: the sim's 8x8
 * default geometry (docs/isa.md) at 12 MHz behind a 3 Mbaud UART. */
void spu_perf_hw_default(spu_perf_hw *hw);
/* The geometry part of hw as an spu_info_t (for spu_gemm_plan_make). */
void spu_perf_hw_to_info(const spu_perf_hw *hw, spu_info_t *info);
/* Read / write a hardware file (JSON). Load starts from defaults (the sim
 * 8x8 configuration) and takes every field present; unknown fields are
 * ignored, wrong types and impossible values are SPU_EINVAL. err (may be
 * NULL) receives a message. Save writes every field; extra_json (may be
 * NULL), a JSON object, is merged in (e.g. the calibration record). */
int  spu_perf_hw_load(spu_perf_hw *hw, const char *path, char *err, size_t errlen);
int  spu_perf_hw_save(const spu_perf_hw *hw, const char *path, const char *extra_json);
/* Peak ops/s of hw for a compute format name ("int8", "bf16", ...); 0 if none. */
double spu_perf_hw_peak(const spu_perf_hw *hw, const char *fmt);

/* Prediction of one GEMM on an SPU configuration. */
typedef struct spu_perf_gemm {
    uint64_t macs;               /* M*N*K                                              */
    uint64_t cycles;             /* device cycles (the CYCLES counter summed over pieces) */
    uint64_t mac_active;         /* k-steps entering the array                         */
    uint64_t stall_bank, stall_drain, instret;
    uint64_t pieces;             /* device runs                                        */
    uint64_t link_bytes;         /* link_rx + link_tx bytes the call moves             */
    uint64_t payload_bytes;      /* operand and result bytes (A, B written; C read)    */
    uint64_t transactions;       /* request/reply pairs                                */
    uint64_t status_polls;       /* STATUS requests while waiting for pieces           */
    double   device_s;           /* cycles / clock_hz                                  */
    double   link_s;             /* link time                                          */
    double   host_s;             /* host overhead                                      */
    double   total_s;            /* end to end (stop-and-wait: the sum, plus the time
                                    the host polls past the end of each run)            */
    double   wall_s;             /* like total_s but device time at wall_clock_hz      */
    double   board_s;            /* time on a board whose clock stops while it waits for
                                    the host (the simulated board, sim?board=): runs at
                                    clock_hz + every link byte at the link rate except
                                    the STATUS polls that overlap a run; no latency, no
                                    host time                                         */
    double   poll_extra_s;       /* of wall_s: time the host sees runs end after they
                                    ended (spu_wait's polling naps)                    */
    double   utilization;        /* macs / (cycles * rows * cols); up to 2 with pairs   */
    double   intensity;          /* ops (2*macs) per link byte                         */
    double   peak_ops_s;         /* compute roof, ops/s                                */
    double   roof_ops_s;         /* min(peak, intensity * link rate)                   */
    const char *bound;           /* "compute" | "link"                                 */
} spu_perf_gemm;

/* Predict an int8 M x N x K GEMM (spu_gemm_i8) on hw. Returns 0, SPU_EINVAL
 * (a zero size, hw not "spu"), or SPU_ENOTSUP (no plan fits). O(1) in the
 * shape. */
int spu_perf_gemm_predict(const spu_perf_hw *hw, uint32_t M, uint32_t N, uint32_t K,
                          spu_perf_gemm *out);

/* The GEMM kernels as spu_gemm_epi runs them (spu/gemm.h): in_dtype
 * SPU_DTYPE_INT8 | E4M3 | E5M2, out_dtype any output (its drain cycles:
 * docs/isa.md `st`; C is read back as whole 4-byte blocks for every out),
 * bias: firmware/gemm_bias.s (column blocks outer, a `bias` per column
 * block, the bias written per piece), relu: with int32 out, K is then not
 * split. {INT8, INT32, 0, 0} is spu_gemm_i8. */
typedef struct spu_perf_gemm_kind {
    unsigned in_dtype, out_dtype;
    int bias, relu;
} spu_perf_gemm_kind;

/* spu_perf_gemm_predict for any kind. SPU_ENOTSUP also when the kind needs K
 * in one piece and it does not fit (as spu_gemm_epi). */
int spu_perf_gemm_predict_ex(const spu_perf_hw *hw, const spu_perf_gemm_kind *kind,
                             uint32_t M, uint32_t N, uint32_t K, spu_perf_gemm *out);

/* The vector kernels (spu/vector.h, firmware/vec_ops.s and vec_maxpool2.s):
 * device cycles instruction by instruction from hw/isa (docs/isa.md "Vector
 * unit": 3 + wait + steps, a binary step 2 cycles when its sources share a
 * bank), the host's pieces (host/src/kernels/vector.c) and their link bytes;
 * macs = 0. op as spu_vec_op (0 add, 1 sub, 2 mul, 3 max, 6 lut); broadcast:
 * b is one scalar. Returns 0, SPU_EINVAL or SPU_ENOTSUP (no piece fits). */
int spu_perf_vec_map(const spu_perf_hw *hw, int op, int broadcast, uint64_t n, spu_perf_gemm *out);
/* spu_vec_rows: rows x len, the max and / or the sum of each row */
int spu_perf_vec_rows(const spu_perf_hw *hw, uint64_t rows, uint64_t len, int want_max, int want_sum,
                      spu_perf_gemm *out);
/* spu_vec_maxpool2_hwc: C x H x W int8 (HWC), 2x2 stride 2 */
int spu_perf_vec_maxpool2(const spu_perf_hw *hw, uint64_t C, uint64_t H, uint64_t W, spu_perf_gemm *out);

/* Device cycles of one piece of firmware/gemm_int8.s with mbi row blocks, nbi
 * column blocks and kc k-steps, A panels from a_base and B panels from b_base
 * (bank conflicts from the addresses), on hw. Exposed for tests. */
uint64_t spu_perf_gemm_piece_cycles(const spu_perf_hw *hw, uint32_t mbi, uint32_t nbi,
                                    uint32_t kc, uint32_t a_base, uint32_t b_base,
                                    uint32_t panel_bytes);

/* Bytes a request (payload plen) or reply (payload rlen, status byte
 * included by the function) occupies on the wire: COBS of type, seq,
 * payload, CRC-32, plus the 0x00 delimiter (the COBS overhead of a frame
 * with a zero at least every 254 bytes). */
uint64_t spu_perf_frame_bytes(uint64_t payload);

/* One measurement of the calibration (spu bench gemm --sweep). */
typedef struct spu_perf_sample {
    uint32_t m, n, k;
    double   wall_s;             /* measured wall time                                 */
    uint64_t cycles;             /* measured device cycles                             */
    uint64_t link_bytes;         /* measured link bytes                                */
    double   sim_s;              /* simulated board time of the call (spu_sim_time
                                    difference; 0: not a simulator)                    */
} spu_perf_sample;

/* Fit hw's free parameters (link_bytes_per_s, txn_latency_s,
 * host_s_per_piece, host_s_per_call; with SPU_PERF_FIT_CLOCK also
 * wall_clock_hz, else hw->wall_clock_hz is taken as measured) to the samples'
 * wall times by least squares of the relative error (non-negative: a
 * parameter the data drive negative is fixed at 0 and the rest refitted; the
 * polling delay computed from the model and iterated). Needs >= 5 samples.
 * Returns 0 or SPU_EINVAL. rms_rel (may be NULL): root mean square relative
 * error of the fit. */
#define SPU_PERF_FIT_CLOCK 1u
int spu_perf_fit(spu_perf_hw *hw, const spu_perf_sample *s, size_t n, unsigned flags,
                 double *rms_rel);

/* ---- link and simulated board time (perf_link.c) --------------------------- */
/* Time of one GEMM call on a board whose clock stops while it waits for the
 * host -- what a simulated board (sim?board=) counts between two
 * spu_sim_time() reads around the call: the device cycles at clock_hz, every
 * byte of the call's window (the first COUNTERS request to the closing
 * COUNTERS reply) at link_bytes_per_s except the STATUS polls that overlap a
 * run (one STATUS exchange per piece counts), and per transaction
 * turnaround_s + 2 * frame_overhead_s. No host latency, no host time. g is
 * the prediction of the same GEMM on hw (spu_perf_gemm_predict). */
double spu_perf_board_time(const spu_perf_hw *hw, const spu_perf_gemm *g);
/* Link bytes and transactions of that window (the terms of the formula). */
void   spu_perf_board_terms(const spu_perf_gemm *g, uint64_t *bytes, uint64_t *transactions);
/* Fit link_bytes_per_s and turnaround_s of hw to the samples' sim_s (least
 * squares of the relative error, non-negative; frame_overhead_s is an
 * input). Needs >= 2 samples with sim_s > 0 and a link. 0 or SPU_EINVAL;
 * rms_rel (may be NULL) gets the root mean square relative error. */
int    spu_perf_fit_board(spu_perf_hw *hw, const spu_perf_sample *s, size_t n, double *rms_rel);

/* ---- transformer roofline ------------------------------------------------- */
/* A decoder transformer, from a Hugging Face style config.json. */
typedef struct spu_perf_tconfig {
    char     name[64];
    uint64_t hidden, layers, heads, kv_heads, ffn, vocab;
    int      gated_mlp;          /* 1: gate+up+down (llama), 0: up+down (gpt2)          */
} spu_perf_tconfig;

int spu_perf_tconfig_load(spu_perf_tconfig *c, const char *path, char *err, size_t errlen);

/* Bytes per element of a format name (int8 1, fp8/e4m3/e5m2 1, bf16/fp16 2,
 * fp32 4, int4 0.5, mxfp8 33/32, mxfp6 25/32, mxfp4 17/32); 0 if unknown. */
double spu_perf_fmt_bytes(const char *fmt);

typedef struct spu_perf_op {
    char     name[24];
    uint64_t count;              /* instances in the phase (e.g. per layer x layers)    */
    double   flops;              /* total over the instances                           */
    double   bytes;              /* total memory traffic (weights, activations, KV)    */
    double   intensity;          /* flops / bytes                                      */
    double   time_s;             /* max(flops / peak, bytes / memory roof)             */
    const char *bound;           /* "compute" | "memory"                               */
} spu_perf_op;

#define SPU_PERF_MAX_OPS 16
typedef struct spu_perf_phase {
    int         nops;
    spu_perf_op ops[SPU_PERF_MAX_OPS];
    double      flops, bytes, time_s;
    double      kv_cache_bytes;  /* KV cache held after the phase                      */
    double      weight_bytes;
    double      tokens;          /* tokens produced/processed by the phase             */
    double      peak_ops_s;      /* compute roof used (acts format)                    */
} spu_perf_phase;

/* Roofline of one phase (decode = 0: prefill of seq tokens; decode = 1: one
 * new token per sequence with seq tokens of context) on hw, with weights,
 * activations and KV cache in the given formats (compute runs in acts).
 * Returns 0, SPU_EINVAL (bad argument, unknown format) or SPU_ENOTSUP (hw
 * has no peak for the acts format). */
int spu_perf_transformer(const spu_perf_tconfig *c, const spu_perf_hw *hw, uint64_t batch,
                         uint64_t seq, int decode, const char *wfmt, const char *afmt,
                         const char *kvfmt, spu_perf_phase *out);

/* ---- SCALE-Sim v2 export --------------------------------------------------- */
/* Write DIR/spu.cfg (architecture: array ROWSxCOLS, os dataflow, SRAM sizes
 * from the plan's A/B/C regions) and DIR/gemm.csv (one GEMM layer M, N, K),
 * creating DIR. Returns 0, SPU_EINVAL or SPU_EIO. */
int spu_perf_export_scalesim(const spu_perf_hw *hw, uint32_t M, uint32_t N, uint32_t K,
                             const char *dir);
/* The compute cycles SCALE-Sim v2's output-stationary model reports for the
 * same GEMM: ceil(M/R)*ceil(N/C) folds of (2R + C + KS - 2) cycles, KS the
 * array steps the K dimension takes (spu_perf_gemm_k_words: K for int8 /
 * e4m3 / e5m2, 2K for bf16, K + ceil(K/32) for MX). */
uint64_t spu_perf_scalesim_cycles(const spu_perf_hw *hw, uint32_t M, uint32_t N, uint32_t KS);
/* The scratchpad words -- array steps -- one output's K-long dot product
 * streams in input dtype in_dtype (spu_dtype code): K for int8 / e4m3 / e5m2,
 * 2K for bf16 (two words a step), K + ceil(K/32) for MX (a scale word after
 * every 32 elements and after the last). The perf model costs a GEMM's mm as
 * an int8 mm of that many steps. */
uint64_t spu_perf_gemm_k_words(unsigned in_dtype, uint32_t K);

/* The project's git commit baked in at build time ("unknown" outside git). */
const char *spu_perf_git_commit(void);

#ifdef __cplusplus
}
#endif
#endif
