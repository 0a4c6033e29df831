/*
 * perf_fit.c -- calibration of a hardware file's free parameters from bench
 * measurements (docs/perf-model.md "Calibration"): weighted linear least
 * squares (relative error) of the measured wall time on the model's terms,
 * non-negative by an active set, the polling delay iterated.
 */
#include "spu/perf.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NP = 5 };   /* s/cycle, s/byte, s/transaction, s/piece, s/call */

/* Solve the normal equations of the columns in `on` (others fixed at 0). */
static int lsq(const double *X, const double *y, size_t n, const int on[NP], double x[NP])
{
    double A[NP][NP + 1], scale[NP];
    int idx[NP], m = 0;
    for (int j = 0; j < NP; j++) {
        x[j] = 0;
        if (!on[j])
            continue;
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s = fmax(s, fabs(X[i * NP + j]));
        if (s == 0)
            continue;
        scale[m] = s;
        idx[m++] = j;
    }
    for (int a = 0; a < m; a++) {
        for (int b = 0; b < m; b++) {
            double s = 0;
            for (size_t i = 0; i < n; i++)
                s += X[i * NP + idx[a]] / scale[a] * X[i * NP + idx[b]] / scale[b];
            A[a][b] = s;
        }
        double s = 0;
        for (size_t i = 0; i < n; i++)
            s += X[i * NP + idx[a]] / scale[a] * y[i];
        A[a][m] = s;
    }
    /* a whisker of ridge: collinear terms (e.g. one piece per call in every
     * sample) share their coefficient instead of making the system singular */
    for (int a = 0; a < m; a++)
        A[a][a] += 1e-10 * (A[a][a] > 0 ? A[a][a] : 1);
    for (int c = 0; c < m; c++) {
        int piv = c;
        for (int r = c + 1; r < m; r++)
            if (fabs(A[r][c]) > fabs(A[piv][c]))
                piv = r;
        if (fabs(A[piv][c]) < 1e-12)
            return -1;
        for (int k = 0; k <= m; k++) {
            double t = A[c][k];
            A[c][k] = A[piv][k];
            A[piv][k] = t;
        }
        for (int r = 0; r < m; r++) {
            if (r == c)
                continue;
            const double f = A[r][c] / A[c][c];
            for (int k = c; k <= m; k++)
                A[r][k] -= f * A[c][k];
        }
    }
    for (int a = 0; a < m; a++)
        x[idx[a]] = A[a][m] / A[a][a] / scale[a];
    return 0;
}

int spu_perf_fit(spu_perf_hw *hw, const spu_perf_sample *s, size_t n, double *rms_rel)
{
    if (!hw || !s || n < NP || strcmp(hw->kind, "spu"))
        return SPU_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!(s[i].wall_s > 0) || !s[i].m || !s[i].n || !s[i].k)
            return SPU_EINVAL;
    double *X = calloc(n * NP, sizeof *X), *y = calloc(n, sizeof *y);
    if (!X || !y) {
        free(X);
        free(y);
        return SPU_ENOMEM;
    }
    const uint64_t status_b = spu_perf_frame_bytes(0) + spu_perf_frame_bytes(1 + 14);
    const int has_link = hw->link_bytes_per_s > 0;   /* 0: no link, stays 0 */
    int rc = 0;
    double prev[NP] = { 0 };
    for (int iter = 0; iter < 100 && !rc; iter++) {
        for (size_t i = 0; i < n && !rc; i++) {
            spu_perf_gemm g;
            if ((rc = spu_perf_gemm_predict(hw, s[i].m, s[i].n, s[i].k, &g)))
                break;
            const double w = 1.0 / s[i].wall_s;   /* relative error */
            const uint64_t txn_other = g.transactions - g.status_polls;
            double *row = X + i * NP;
            row[0] = w * (double)(s[i].cycles ? s[i].cycles : g.cycles);
            row[1] = w * (double)(g.link_bytes - g.status_polls * status_b);
            row[2] = w * (double)txn_other;
            row[3] = w * (double)g.pieces;
            row[4] = w;
            y[i] = w * (s[i].wall_s - g.poll_extra_s - 2.0 * hw->frame_overhead_s * (double)txn_other);
        }
        if (rc)
            break;
        int on[NP] = { 1, has_link, has_link, 1, 1 };
        double x[NP];
        for (;;) {
            if (lsq(X, y, n, on, x)) {
                rc = SPU_EINVAL;
                break;
            }
            int worst = -1;
            for (int j = 0; j < NP; j++)
                if (on[j] && x[j] < 0 && (worst < 0 || x[j] < x[worst]))
                    worst = j;
            if (worst < 0)
                break;
            on[worst] = 0;
        }
        if (rc)
            break;
        /* the polling delay depends on the parameters: iterate to a fixed point */
        int same = iter > 0;
        for (int j = 0; j < NP; j++)
            same &= fabs(x[j] - prev[j]) <= 1e-9 * fabs(x[j]) + 1e-15;
        memcpy(prev, x, sizeof prev);
        hw->wall_clock_hz = x[0] > 0 ? 1.0 / x[0] : 1e12;
        if (has_link) {
            hw->link_bytes_per_s = x[1] > 0 ? 1.0 / x[1] : 1e12;
            hw->txn_latency_s = x[2];
        }
        hw->host_s_per_piece = x[3];
        hw->host_s_per_call = x[4];
        hw->mem_bytes_per_s = hw->link_bytes_per_s;
        if (same)
            break;
    }
    if (!rc && rms_rel) {
        double ss = 0;
        for (size_t i = 0; i < n; i++) {
            spu_perf_gemm g;
            spu_perf_gemm_predict(hw, s[i].m, s[i].n, s[i].k, &g);
            const double e = (g.wall_s - s[i].wall_s) / s[i].wall_s;
            ss += e * e;
        }
        *rms_rel = sqrt(ss / (double)n);
    }
    free(X);
    free(y);
    return rc;
}
