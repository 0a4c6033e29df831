/*
 * perf_internal.h -- helpers shared inside host/src/perf/ (not installed).
 */
#ifndef SPU_PERF_INTERNAL_H
#define SPU_PERF_INTERNAL_H

#include <stddef.h>

/* Columns of a least-squares design matrix (rows of SPU_PERF_NCOL doubles). */
#define SPU_PERF_NCOL 5

/* Non-negative least squares of y ~ X x over the columns with on[j] set
 * (the others, and columns the data drive negative, fixed at 0): normal
 * equations with an active set. on[] is updated. 0 or -1 (singular). */
int spu_perf_nnls(const double *X, const double *y, size_t n, int on[SPU_PERF_NCOL],
                  double x[SPU_PERF_NCOL]);

#endif
