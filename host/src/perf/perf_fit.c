/*
 * perf_fit.c -- calibration of a hardware file's free parameters from bench
 * measurements (docs/perf-model.md "Calibration"): weighted linear least
 * squares (relative error) of the measured wall time on the model's terms,
 * non-negative by an active set, the polling delay iterated.
 */
#include "spu/perf.h"
#include "perf_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { NP = SPU_PERF_NCOL };   /* s/cycle, s/byte, s/transaction, s/piece, s/call */

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

int spu_perf_nnls(const double *X, const double *y, size_t n, int on[NP], double x[NP])
{
    for (;;) {
        if (lsq(X, y, n, on, x))
            return -1;
        int worst = -1;
        for (int j = 0; j < NP; j++)
            if (on[j] && x[j] < 0 && (worst < 0 || x[j] < x[worst]))
                worst = j;
        if (worst < 0)
            return 0;
        on[worst] = 0;
    }
}

static double rms_of(const spu_perf_hw *hw, const spu_perf_sample *s, size_t n)
{
    double ss = 0;
    for (size_t i = 0; i < n; i++) {
        spu_perf_gemm g;
        if (spu_perf_gemm_predict(hw, s[i].m, s[i].n, s[i].k, &g))
            return INFINITY;
        const double e = (g.wall_s - s[i].wall_s) / s[i].wall_s;
        ss += e * e;
    }
    return sqrt(ss / (double)n);
}

static int fit_from(spu_perf_hw *hw, const spu_perf_sample *s, size_t n, unsigned flags,
                    double status_fix);

/* The fit with the STATUS transaction time held at status_s (so the poll
 * counts, which depend on nothing else of the link, are fixed) and its rms. */
static double fit_at_status(spu_perf_hw *h, const spu_perf_sample *s, size_t n, unsigned flags,
                            double status_s)
{
    return fit_from(h, s, n, flags, status_s) ? INFINITY : rms_of(h, s, n);
}

/* The polling delay makes the problem piecewise linear: the fixed point the
 * iteration reaches depends on where it starts. Start from the given
 * parameters and from a small grid of link rates and latencies, keep the
 * fit whose predictions are closest. */
int spu_perf_fit(spu_perf_hw *hw, const spu_perf_sample *s, size_t n, unsigned flags,
                 double *rms_rel)
{
    if (!hw || !s)
        return SPU_EINVAL;
    spu_perf_hw best = *hw;
    int rc = fit_from(&best, s, n, flags, 0);
    if (rc)
        return rc;
    double best_rms = rms_of(&best, s, n);
    if (hw->link_bytes_per_s > 0) {
        /* When a STATUS poll sees a run end depends on the link only through
         * the time of one STATUS transaction, and the basin of the iteration
         * above around the right poll counts is narrow (under 1 % of that
         * time). So scan that time: a log grid from 1 us to 0.1 s in 5 %
         * steps, the three best refined in 0.1 % steps, each point a linear
         * fit with those poll counts; then iterate freely from the best. */
        double top[3] = { 0, 0, 0 }, top_rms[3] = { INFINITY, INFINITY, INFINITY };
        for (double st = 1e-6; st < 0.1; st *= 1.05) {
            spu_perf_hw h = *hw;
            const double r = fit_at_status(&h, s, n, flags, st);
            for (int t = 0; t < 3; t++)
                if (r < top_rms[t]) {
                    for (int u = 2; u > t; u--) {
                        top[u] = top[u - 1];
                        top_rms[u] = top_rms[u - 1];
                    }
                    top[t] = st;
                    top_rms[t] = r;
                    break;
                }
        }
        for (int t = 0; t < 3 && top[t] > 0; t++)
            for (double st = top[t] / 1.05; st < top[t] * 1.05; st *= 1.001) {
                spu_perf_hw h = *hw;
                const double r = fit_at_status(&h, s, n, flags, st);
                if (r < best_rms) {
                    best_rms = r;
                    best = h;
                }
            }
        spu_perf_hw h = best;
        if (!fit_from(&h, s, n, flags, 0)) {
            const double r = rms_of(&h, s, n);
            if (r < best_rms) {
                best_rms = r;
                best = h;
            }
        }
    }
    *hw = best;
    if (rms_rel)
        *rms_rel = best_rms;
    return 0;
}

static int fit_from(spu_perf_hw *hw, const spu_perf_sample *s, size_t n, unsigned flags,
                    double status_fix)
{
    const int fit_clock = (flags & SPU_PERF_FIT_CLOCK) != 0;
    if (!hw || !s || n < NP || strcmp(hw->kind, "spu") || (!fit_clock && !(hw->wall_clock_hz > 0)))
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
            /* the poll counts: from hw's link, or from a link whose STATUS
             * transaction takes status_fix (the other link terms stay
             * columns of the fit: bytes and transactions do not depend on it) */
            spu_perf_hw hp = *hw;
            if (status_fix > 0 && has_link) {
                hp.txn_latency_s = 0;
                hp.frame_overhead_s = 0;
                hp.link_bytes_per_s = (double)status_b / status_fix;
            }
            spu_perf_gemm g;
            if ((rc = spu_perf_gemm_predict(&hp, s[i].m, s[i].n, s[i].k, &g)))
                break;
            const double w = 1.0 / s[i].wall_s;   /* relative error */
            double *row = X + i * NP;
            row[3] = w * (double)g.pieces;
            row[4] = w;
            if (fit_clock) {
                /* wall = runs at wall_clock_hz + polling delay + other link + host */
                const uint64_t txn_other = g.transactions - g.status_polls;
                row[0] = w * (double)(s[i].cycles ? s[i].cycles : g.cycles);
                row[1] = w * (double)(g.link_bytes - g.status_polls * status_b);
                row[2] = w * (double)txn_other;
                y[i] = w * (s[i].wall_s - g.poll_extra_s - 2.0 * hw->frame_overhead_s * (double)txn_other);
            } else {
                /* the speed measured: a run ends inside spu_wait's poll loop,
                 * wall = naps + every transaction (polls included) + host; the
                 * naps are known once the poll counts are */
                const double wall_hz = hw->wall_clock_hz;
                const double status_s = has_link ? (double)status_b / hp.link_bytes_per_s + hp.txn_latency_s +
                                                       2 * hp.frame_overhead_s
                                                 : 0;
                const double naps = g.poll_extra_s + (double)g.cycles / wall_hz - (double)g.status_polls * status_s;
                row[0] = 0;
                row[1] = w * (double)g.link_bytes;
                row[2] = w * (double)g.transactions;
                y[i] = w * (s[i].wall_s - (has_link ? naps : (double)g.cycles / wall_hz) -
                            2.0 * hw->frame_overhead_s * (double)g.transactions);
            }
        }
        if (rc)
            break;
        int on[NP] = { fit_clock, has_link, has_link, 1, 1 };
        double x[NP];
        if (spu_perf_nnls(X, y, n, on, x)) {
            rc = SPU_EINVAL;
            break;
        }
        /* the polling delay depends on the parameters: iterate to a fixed point */
        int same = iter > 0;
        for (int j = 0; j < NP; j++)
            same &= fabs(x[j] - prev[j]) <= 1e-9 * fabs(x[j]) + 1e-15;
        memcpy(prev, x, sizeof prev);
        if (fit_clock)
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
    free(X);
    free(y);
    return rc;
}
