/*
 * perf_internal.h -- helpers shared inside host/src/perf/ (not installed).
 */
#ifndef SPU_PERF_INTERNAL_H
#define SPU_PERF_INTERNAL_H

#include "spu/perf.h"

#include <stddef.h>

/* Columns of a least-squares design matrix (rows of SPU_PERF_NCOL doubles). */
#define SPU_PERF_NCOL 5

/* Non-negative least squares of y ~ X x over the columns with on[j] set
 * (the others, and columns the data drive negative, fixed at 0): normal
 * equations with an active set. on[] is updated. 0 or -1 (singular). */
int spu_perf_nnls(const double *X, const double *y, size_t n, int on[SPU_PERF_NCOL],
                  double x[SPU_PERF_NCOL]);

/* The whole text file at path (NUL-terminated, malloc'd), NULL if it cannot be
 * read or is longer than max bytes (perf_util.c). */
char *spu_perf_read_text(const char *path, size_t max);

/* Format a message into err (when err and n), return SPU_EINVAL: the error
 * path of the hardware-file and model-config readers (perf_util.c). */
int spu_perf_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The link and time of one host call (perf_gemm.c), built transaction by
 * transaction in the order the host library sends them (docs/perf-model.md
 * "Link, host and end to end"): begin (the first COUNTERS reply), the
 * microcode, writes, runs (ARGS, RUN, STATUS polls, COUNTERS), reads, end
 * (the closing COUNTERS request; times, roofline). */
typedef struct spu_perf_call {
    const spu_perf_hw *hw;
    spu_perf_gemm *out;
    int has_link;
    double wall_hz, status_s, seen_s, seen_board_s;
    uint64_t status_b, bytes, txn;
} spu_perf_call;
void spu_perf_call_begin(spu_perf_call *c, const spu_perf_hw *hw, spu_perf_gemm *out);
void spu_perf_call_ucode(spu_perf_call *c, uint64_t nwords);
void spu_perf_call_write(spu_perf_call *c, uint64_t n, uint64_t times);
void spu_perf_call_read(spu_perf_call *c, uint64_t n, uint64_t times);
void spu_perf_call_run(spu_perf_call *c, uint64_t cycles, uint64_t times);
void spu_perf_call_end(spu_perf_call *c);

#endif
