/*
 * model.h -- the SPU reference model: a C functional + cycle model of the
 * machine in docs/isa.md. It is the golden reference every other device is
 * compared with, and the "model" device of spu_open() runs on it.
 *
 * Timing follows docs/isa.md exactly (instruction costs, mm stream + skew,
 * bank conflicts, background drain), so its counters predict the RTL's.
 */
#ifndef SPU_MODEL_H
#define SPU_MODEL_H

#include "spu/spu.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spu_model_config {
    uint32_t rows, cols;        /* tile array (1..64 each)           */
    uint32_t spad_bytes;        /* multiple of spad_banks*word_bytes */
    uint32_t spad_banks;        /* power of two, >= 1                 */
    uint32_t ucode_words;
    uint32_t loop_depth;
    uint32_t drain_lanes;       /* accumulators drained per cycle: a
                                   divisor of cols; 0 = cols (a row)  */
    uint32_t formats;           /* FORMATS: bit d = dtype code d can be
                                   cfg `in`; 0 = every array dtype of
                                   spu_cfg.def (int8 e4m3 e5m2)       */
    uint32_t vector;            /* 1: the vector unit (vadd ... vlutld,
                                   docs/isa.md) is carried; 0: its
                                   opcodes trap ILLEGAL               */
    uint32_t spram;             /* 1: single-port banks (the UP5K's
                                   SPRAM, SPU_FEATURE_SPRAM): an mm
                                   launches only after every write of
                                   an earlier st; needs vector = 0    */
    uint32_t chain;             /* 1: chained streams (SPU_FEATURE_CHAIN,
                                   docs/isa.md "Chained streams"): a
                                   two-entry queue, an mm launches in
                                   the last step of the mm before it,
                                   and an st / zacc token travels with
                                   the next mm's first step; needs
                                   spram = 0                          */
    uint32_t bus;               /* 1: the array's operands on row and
                                   column buses (SPU_FEATURE_BUS, RTL
                                   BROADCAST = 1): a step's products and
                                   a token's wave reach every tile 2
                                   cycles after the read, no skew;
                                   0: systolic, ROWS + COLS cycles      */
    uint32_t pair;              /* 1: k-step pairs (SPU_FEATURE_PAIR,
                                   docs/isa.md "k-step pairs"): two
                                   k-steps of an mm in one cycle when
                                   the rule allows, the wave span 3;
                                   needs spram = 1, bus = 1, chain = 0
                                   and formats = int8 only            */
    uint32_t overlap;           /* 1: overlapped issue (SPU_FEATURE_OVERLAP,
                                   docs/isa.md "Overlapped issue"): an
                                   instruction's FETCH shares the last
                                   EXEC cycle of the one before it
                                   unless the rule says otherwise     */
} spu_model_config;

/* Defaults: 8x8, 256 KiB in 4 banks, 1024 microcode words, 4 loops, a row
 * drained per cycle, the vector unit, chained streams, buses (the 8x8 sim). */
void spu_model_config_default(spu_model_config *cfg);
/* The configuration of a device as its INFO describes it (loop_depth 0 is
 * taken as 4, drain_lanes 0 as cols). */
void spu_model_config_from_info(spu_model_config *cfg, const spu_info_t *info);

typedef struct spu_model spu_model;

/* One retired instruction, for traces (compare with the RTL's trace). */
typedef struct spu_model_trace {
    uint64_t cycle;             /* start cycle T_n relative to RUN   */
    uint32_t pc, word;
    int      rd;                /* register written, -1 if none      */
    uint32_t rd_value;
} spu_model_trace;
typedef void (*spu_model_trace_fn)(void *ctx, const spu_model_trace *t);

/* Create / free a model. SPU_EINVAL for an impossible configuration. */
int  spu_model_create(spu_model **m, const spu_model_config *cfg);
void spu_model_free(spu_model *m);                 /* accepts NULL */
const spu_model_config *spu_model_get_config(const spu_model *m);

/* Direct scratchpad access (spad_bytes bytes, owned by the model). */
uint8_t *spu_model_spad(spu_model *m);
/* Write microcode words at a word offset. SPU_ERANGE if outside. */
int  spu_model_load_ucode(spu_model *m, uint32_t offset, const uint32_t *w, size_t n);
/* Set r1..r{n}. */
int  spu_model_set_args(spu_model *m, const uint32_t *args, int n);
/* Start at pc with a cycle budget (0 = none) and run until halt or trap.
 * Returns 0 (check the status for a trap). */
int  spu_model_run(spu_model *m, uint32_t pc, uint32_t watchdog);
/* Prepare a run without executing; then spu_model_step() one instruction at
 * a time. step returns 1 while running, 0 once halted or trapped. */
int  spu_model_start(spu_model *m, uint32_t pc, uint32_t watchdog);
int  spu_model_step(spu_model *m);
/* Stop and return to IDLE (memories kept). */
void spu_model_stop(spu_model *m);
void spu_model_status(const spu_model *m, spu_status_t *st);
void spu_model_counters(const spu_model *m, spu_counters_t *c);
/* Count link bytes (used by transports that front a model). */
void spu_model_count_link(spu_model *m, uint64_t rx, uint64_t tx);
uint32_t spu_model_reg(const spu_model *m, int r);
/* Called for every retired instruction (NULL to disable). */
void spu_model_set_trace(spu_model *m, spu_model_trace_fn fn, void *ctx);

/* Cycles the drain unit needs for one st with this output dtype:
 * rows * (cols / lanes), one group of lanes accumulators per cycle, the same
 * for every out (docs/isa.md `st`). */
uint32_t spu_model_drain_cycles(const spu_model_config *cfg, unsigned out_dtype);
/* Chained streams: cycles from an st's token (its wave's slot W) to the
 * first cycle the next st may launch, 1 + max(D, cols + (rows - 1) * (cols /
 * lanes - 1)) (the drain starts when row 0 is captured; docs/isa.md
 * "Chained streams"); with buses 1 + D. */
uint32_t spu_model_st_gap(const spu_model_config *cfg);
/* Cycles from a read (or a token's slot) to its products (its wave) in the
 * last tile: rows + cols, or 2 with buses, 3 with k-step pairs (a pair's
 * second step lands half a cycle after a single step's; docs/isa.md
 * "Tensor unit"). */
uint32_t spu_model_wave_span(const spu_model_config *cfg);
/* Requantize one accumulator as st does with out=int8 (docs/isa.md). */
int8_t spu_requant_int8(int32_t acc, unsigned shift, unsigned round, int relu);

/* The tile accumulator of docs/numerics.md "Datapath numerics": an
 * SPU_ACC_W-bit two's-complement register (low 32 bits = the int32 sum of
 * int8 products) plus sticky flags; float products land on the fixed-point
 * grid of LSB 2^SPU_ACC_FP_LSB. */
#define SPU_ACC_W      80
#define SPU_ACC_FP_LSB (-32)
/* FORMATS of the model when the config says 0: every array dtype. */
uint32_t spu_model_all_formats(void);
/* Does a build with this FORMATS mask take `cfg in=in_code out=out_code`?
 * 0 yes, else the trap cause (SPU_TRAP_ILLEGAL for codes that are no
 * input / output dtype at all, SPU_TRAP_FORMAT for ones the build lacks). */
int spu_model_cfg_check(uint32_t formats, unsigned in_code, unsigned out_code);

#ifdef __cplusplus
}
#endif
#endif
