/*
 * perf_link.c -- the link side of the model in board time
 * (docs/perf-model.md "Simulated board time"): what a board whose clock
 * stops while it waits for the host spends on one GEMM call, and the fit of
 * the link rate and the device's per-transaction turnaround to simulated
 * time measured on sim?board= (spu bench gemm --calibrate).
 */
#include "spu/perf.h"
#include "perf_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* STATUS request + reply (14 bytes of status after the status byte) */
static uint64_t status_bytes(void) { return spu_perf_frame_bytes(0) + spu_perf_frame_bytes(1 + 14); }

void spu_perf_board_terms(const spu_perf_gemm *g, uint64_t *bytes, uint64_t *transactions)
{
    if (!g->link_bytes) {   /* no link (the in-process model) */
        *bytes = *transactions = 0;
        return;
    }
    /* spu_perf_gemm_predict counts the first COUNTERS reply and the closing
     * COUNTERS request (the device's link counters see those); the window
     * also holds the first request and the closing reply */
    const uint64_t window = spu_perf_frame_bytes(0) + spu_perf_frame_bytes(2 + 8 * SPU_CNT_COUNT);
    *bytes = g->link_bytes - g->status_polls * status_bytes() + g->pieces * status_bytes() + window;
    *transactions = g->transactions - g->status_polls + g->pieces + 1;
}

double spu_perf_board_time(const spu_perf_hw *hw, const spu_perf_gemm *g)
{
    if (!hw || !g || !(hw->clock_hz > 0))
        return 0;
    double t = (double)g->cycles / hw->clock_hz;
    if (!(hw->link_bytes_per_s > 0))
        return t;
    uint64_t bytes, txn;
    spu_perf_board_terms(g, &bytes, &txn);
    return t + (double)bytes / hw->link_bytes_per_s +
           (double)txn * (hw->turnaround_s + 2 * hw->frame_overhead_s);
}

int spu_perf_fit_board(spu_perf_hw *hw, const spu_perf_sample *s, size_t n, double *rms_rel)
{
    if (!hw || !s || n < 2 || strcmp(hw->kind, "spu") || !(hw->clock_hz > 0) ||
        !(hw->link_bytes_per_s > 0))
        return SPU_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!(s[i].sim_s > 0) || !s[i].m || !s[i].n || !s[i].k)
            return SPU_EINVAL;
    double *X = calloc(n * SPU_PERF_NCOL, sizeof *X), *y = calloc(n, sizeof *y);
    spu_perf_gemm *g = calloc(n, sizeof *g);
    int rc = X && y && g ? 0 : SPU_ENOMEM;
    /* sim_s - cycles / clock = bytes * (1 / rate) + txn * turnaround + 2 txn frame_overhead:
     * linear; the rows divided by sim_s (relative error) */
    for (size_t i = 0; i < n && !rc; i++) {
        if (spu_perf_gemm_predict(hw, s[i].m, s[i].n, s[i].k, &g[i])) {
            rc = SPU_EINVAL;
            break;
        }
        uint64_t bytes, txn;
        spu_perf_board_terms(&g[i], &bytes, &txn);
        const double w = 1.0 / s[i].sim_s;
        const double cyc = (double)(s[i].cycles ? s[i].cycles : g[i].cycles);
        X[i * SPU_PERF_NCOL + 0] = w * (double)bytes;
        X[i * SPU_PERF_NCOL + 1] = w * (double)txn;
        y[i] = w * (s[i].sim_s - cyc / hw->clock_hz - 2.0 * hw->frame_overhead_s * (double)txn);
    }
    int on[SPU_PERF_NCOL] = { 1, 1, 0, 0, 0 };
    double x[SPU_PERF_NCOL];
    if (!rc && (spu_perf_nnls(X, y, n, on, x) || !(x[0] > 0)))
        rc = SPU_EINVAL;
    if (!rc) {
        hw->link_bytes_per_s = hw->mem_bytes_per_s = 1.0 / x[0];
        hw->turnaround_s = x[1];
        double ss = 0;
        for (size_t i = 0; i < n; i++) {
            const double e = (spu_perf_board_time(hw, &g[i]) - s[i].sim_s) / s[i].sim_s;
            ss += e * e;
        }
        if (rms_rel)
            *rms_rel = sqrt(ss / (double)n);
    }
    free(X);
    free(y);
    free(g);
    return rc;
}
