/*
 * chain.c -- the int8 chain: a graph of dense / conv2d / relu / maxpool2d /
 * flatten nodes lowered onto the device with int8 codes between its GEMMs
 * (docs/runtime.md "Int8 chain"). Planned once when the graph loads:
 *
 *  - every tensor between GEMMs is int8 codes in [H][W][C] order (channels
 *    innermost, what an im2col GEMM writes: row p = pixel, column = channel),
 *    with a positive scale per channel, value = code * t[c];
 *  - a GEMM reading codes with scales t folds t into its weights
 *    (W'[n][k] = W[n][k] * t[c(k)], in double), in the device's column order
 *    (a flatten of [C][H][W] codes stored HWC permutes the dense columns),
 *    and quantizes W' per output channel;
 *  - the output pipeline turns its int32 sums (bias added on the int32 grid)
 *    into the next codes: q = clamp(rne((acc + bias) / 2^shift)), relu; the
 *    output channel n then has the scale t[n] = 2^shift * s_w'[n]. s_w'[n]
 *    = max(max|W'[n]| / 127, r / (127 * 2^shift)), r the calibrated range
 *    of the output (the in_scale of the GEMM that reads it, * 127): the
 *    first bound keeps the weights within int8, the second the activations;
 *    one shift per GEMM call, the median over n of log2(r / max|W'[n]|)
 *    (minimizes the summed log2 coarsening of weights and codes);
 *  - max-pool commutes with a positive per-channel scale and a monotone
 *    rounding: the vector unit pools the codes (spu_vec_maxpool2_hwc);
 *  - the last GEMM returns int32 sums; logits = acc * s_w'[n] (the output
 *    side of the boundary, as the input's quantization is the input side).
 */
#include "runtime_internal.h"
#include "spu/numerics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_gemm(int kind) { return kind == RT_DENSE || kind == RT_CONV2D; }

/* The node reading tensor t, or -1 (none) / -2 (more than one). */
static long reader(const spu_net *net, int t)
{
    long r = -1;
    for (size_t j = 0; j < net->nnodes; j++) {
        const rt_node *c = &net->nodes[j];
        for (int k = 0; k < rt_ops[c->kind].nin; k++)
            if (c->in[k] == t) {
                if (r != -1)
                    return -2;
                r = (long)j;
            }
    }
    return r;
}

/* The in_scale of the GEMM reading tensor t through relu / maxpool /
 * flatten nodes (their values' range is at most t's), or 0. */
static float next_scale(const spu_net *net, int t)
{
    for (int hops = 0; hops < 64; hops++) {
        const long j = reader(net, t);
        if (j < 0)
            return 0.0f;
        const rt_node *c = &net->nodes[j];
        if (is_gemm(c->kind))
            return c->in_scale;
        t = c->out;
    }
    return 0.0f;
}

static double median(double *v, size_t n)
{
    for (size_t i = 1; i < n; i++)      /* insertion sort: N <= a few hundred */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            const double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Fold the input scales into node n's weights and quantize them; t_out[N]
 * receives the scales of its output codes (unless last). f = -1: int8
 * (shift and per-channel scales as above); RT_F8_E4M3 / RT_F8_E5M2: every
 * scale a power of two (exact folding), s_w'[n] = the larger of the powers
 * of two that fit max|W'[n]| and the output range r into the format, the
 * output pipeline rounds the exact sum once to the format's codes. */
static int plan_gemm(spu_net *net, rt_node *n, const double *t_in, double *t_out, int f)
{
    const rt_gemm_w *g = &n->g[0];
    const size_t N = g->N, K = g->K;
    const int in_t = n->in[0];
    const size_t C = net->ch_C[in_t], H = net->ch_H[in_t], W = net->ch_W[in_t];
    double *wf = malloc(K * N * sizeof *wf), *wmax = calloc(N, sizeof *wmax), *lg = malloc(N * sizeof *lg);
    double *sw = malloc(N * sizeof *sw);
    float *wt = f >= 0 ? malloc(K * N * sizeof *wt) : NULL;
    double **bias = f < 0 ? &n->ch_bias : &n->ch_biasf[f];
    float **deq = f < 0 ? &n->ch_deq : &n->ch_deqf[f];
    if (f < 0)
        n->ch_wq = malloc(K * N);
    else
        n->ch_wf[f] = malloc(K * N);
    *bias = malloc(N * sizeof **bias);
    int rc = SPU_ENOMEM;
    if (!wf || !wmax || !lg || !sw || (f < 0 ? !n->ch_wq : !n->ch_wf[f] || !wt) || !*bias)
        goto out;
    /* W'^T [j][n]: j the device's column of the input codes */
    for (size_t k = 0; k < K; k++) {
        size_t j, c;
        if (n->kind == RT_DENSE) {      /* k = c*H*W + h*W + w  ->  j = (h*W + w)*C + c */
            c = k / (H * W);
            j = (k % (H * W)) * C + c;
        } else {                        /* im2col of HWC codes keeps the (c, kh, kw) order */
            c = k / (n->k * n->kw);
            j = k;
        }
        for (size_t o = 0; o < N; o++) {
            const double v = (double)g->wt[k * N + o] * t_in[c];
            wf[j * N + o] = v;
            if (fabs(v) > wmax[o])
                wmax[o] = fabs(v);
        }
    }
    n->ch_last = n->out == net->output;
    const float fmax = f >= 0 ? rt_f8_max(f) : 127.0f;
    unsigned shift = 0;
    double r = 0.0;
    if (!n->ch_last) {
        r = (double)next_scale(net, n->out) * 127.0;
        size_t m = 0;
        for (size_t o = 0; o < N; o++)
            if (wmax[o] > 0.0)
                lg[m++] = log2(r / wmax[o]);
        const double md = m ? nearbyint(median(lg, m)) : 0.0;
        shift = f >= 0 || md < 0.0 ? 0u : md > 31.0 ? 31u : (unsigned)md;
    }
    if (f < 0)
        n->ch_shift = shift;
    if (n->ch_last && !(*deq = malloc(N * sizeof **deq)))
        goto out;
    for (size_t o = 0; o < N; o++) {
        double s;
        if (f >= 0) {
            s = rt_pow2_scale((float)wmax[o], fmax);
            if (!n->ch_last && rt_pow2_scale((float)r, fmax) > s)
                s = rt_pow2_scale((float)r, fmax);
        } else {
            s = wmax[o] / 127.0;
            if (!n->ch_last && r / (127.0 * ldexp(1.0, (int)shift)) > s)
                s = r / (127.0 * ldexp(1.0, (int)shift));
            if (!(s > 0.0))
                s = 1.0;
        }
        sw[o] = s;
        (*bias)[o] = f >= 0 ? (double)g->bias[o] / s : nearbyint((double)g->bias[o] / s);
        if (n->ch_last)
            (*deq)[o] = (float)s;
        else
            t_out[o] = ldexp(s, (int)shift);
    }
    for (size_t j = 0; j < K; j++)
        for (size_t o = 0; o < N; o++) {
            if (f >= 0) {
                wt[j * N + o] = (float)(wf[j * N + o] / sw[o]);
                continue;
            }
            double q = nearbyint(wf[j * N + o] / sw[o]);
            n->ch_wq[j * N + o] = (int8_t)(q > 127.0 ? 127.0 : q < -127.0 ? -127.0 : q);
        }
    rc = f >= 0 ? spu_convert_from_f32(f == RT_F8_E4M3 ? SPU_FMT_E4M3 : SPU_FMT_E5M2, wt, n->ch_wf[f], K * N, NULL)
                : 0;
out:
    free(wf);
    free(wmax);
    free(lg);
    free(sw);
    free(wt);
    return rc;
}

/* Does the graph qualify? dense / conv2d / fused relu / maxpool 2x2 /
 * flatten only, one reader per tensor, the output a dense's or conv2d's. */
static int qualifies(const spu_net *net)
{
    const rt_tensor *in = &net->tensors[0];
    if (in->ndim != 1 && in->ndim != 3)
        return 0;
    int saw_gemm = 0;
    for (size_t i = 0; i < net->nnodes; i++) {
        const rt_node *n = &net->nodes[i];
        if (reader(net, n->out) == -2 || (n->out == net->output && !is_gemm(n->kind)))
            return 0;
        switch (n->kind) {
        case RT_DENSE:
        case RT_CONV2D:
            if (!(n->in_scale > 0.0f) || (n->out != net->output && !(next_scale(net, n->out) > 0.0f)))
                return 0;
            saw_gemm = 1;
            break;
        case RT_RELU:
            if (n->fused_relu >= 0)
                return 0;
            break;
        case RT_MAXPOOL:
            if (n->k != 2 || n->stride != 2)
                return 0;
            break;
        case RT_FLATTEN:
            break;
        default:
            return 0;
        }
    }
    return saw_gemm && reader(net, 0) >= 0;
}

int rt_chain_plan(spu_net *net)
{
    net->chain = net->chain_f8 = 0;
    if (!qualifies(net))
        return 0;
    const size_t T = net->ntensors;
    net->ch_C = calloc(T, sizeof *net->ch_C);
    net->ch_H = calloc(T, sizeof *net->ch_H);
    net->ch_W = calloc(T, sizeof *net->ch_W);
    double **ts = calloc(T, sizeof *ts);        /* per tensor, its channel scales */
    int *flat = calloc(T, sizeof *flat), *relud = calloc(T, sizeof *relud);
    int rc = SPU_ENOMEM, ok = 1, f8ok = 1;
    if (!net->ch_C || !net->ch_H || !net->ch_W || !ts || !flat || !relud)
        goto out;
    const rt_tensor *in = &net->tensors[0];
    /* one pass per format: int8 (f = -1), e4m3, e5m2 */
    for (int f = -1; ok && f < 2; f++) {
    for (size_t i = 0; i < T; i++) {
        free(ts[i]);
        ts[i] = NULL;
        flat[i] = relud[i] = 0;
    }
    net->ch_C[0] = in->shape[0];
    net->ch_H[0] = in->ndim == 3 ? in->shape[1] : 1;
    net->ch_W[0] = in->ndim == 3 ? in->shape[2] : 1;
    net->ch_in_scale = next_scale(net, 0);
    if (f >= 0)
        net->ch_in_scalef[f] = rt_pow2_scale(net->ch_in_scale * 127.0f, rt_f8_max(f));
    if (!(ts[0] = malloc(net->ch_C[0] * sizeof **ts)))
        goto out;
    for (size_t c = 0; c < net->ch_C[0]; c++)
        ts[0][c] = f >= 0 ? net->ch_in_scalef[f] : net->ch_in_scale;
    for (size_t i = 0; ok && i < net->nnodes; i++) {
        rt_node *n = &net->nodes[i];
        const int a = n->in[0], o = n->out;
        switch (n->kind) {
        case RT_FLATTEN:
        case RT_RELU:           /* fused: the GEMM before applied it */
            net->ch_C[o] = net->ch_C[a];
            net->ch_H[o] = net->ch_H[a];
            net->ch_W[o] = net->ch_W[a];
            flat[o] = flat[a] || n->kind == RT_FLATTEN;
            relud[o] = relud[a] || n->kind == RT_RELU;
            ts[o] = ts[a];
            ts[a] = NULL;
            break;
        case RT_MAXPOOL:
            if (flat[a] || net->ch_H[a] % 2 || net->ch_W[a] % 2) {
                ok = 0;
                break;
            }
            net->ch_C[o] = net->ch_C[a];
            net->ch_H[o] = net->ch_H[a] / 2;
            net->ch_W[o] = net->ch_W[a] / 2;
            /* FP8: vmax on the codes is the max of the values only when no
             * code is negative (sign bit clear: a relu before) */
            if (f >= 0 && !relud[a])
                f8ok = 0;
            relud[o] = relud[a];
            ts[o] = ts[a];
            ts[a] = NULL;
            break;
        case RT_DENSE:
        case RT_CONV2D: {
            /* dense: a vector (or a flattened tensor); conv2d: [C][H][W] codes */
            if (n->kind == RT_DENSE ? !(flat[a] || (net->ch_H[a] == 1 && net->ch_W[a] == 1))
                                    : flat[a] || net->ch_H[a] != n->H || net->ch_W[a] != n->W) {
                ok = 0;
                break;
            }
            const size_t N = n->g[0].N;
            net->ch_C[o] = N;
            net->ch_H[o] = n->kind == RT_CONV2D ? n->OH : 1;
            net->ch_W[o] = n->kind == RT_CONV2D ? n->OW : 1;
            if (!(ts[o] = malloc(N * sizeof **ts)))
                goto out;
            if ((rc = plan_gemm(net, n, ts[a], ts[o], f)))
                goto out;
            break;
        }
        default:
            ok = 0;
        }
    }
    }
    /* host steps of the chain: the im2col of each conv2d */
    size_t len = 1, cnt = 0;
    for (size_t i = 0; i < net->nnodes; i++)
        if (net->nodes[i].kind == RT_CONV2D) {
            len += strlen(net->nodes[i].name) + 8;
            cnt++;
        }
    net->host_chain_names = malloc(len);
    net->host_list_chain = calloc(cnt ? cnt : 1, sizeof *net->host_list_chain);
    rc = SPU_ENOMEM;
    if (!net->host_chain_names || !net->host_list_chain)
        goto out;
    char *p = net->host_chain_names;
    net->nhost_chain = 0;
    for (size_t i = 0; i < net->nnodes; i++)
        if (net->nodes[i].kind == RT_CONV2D) {
            const int w = sprintf(p, "%s:im2col", net->nodes[i].name);
            net->host_list_chain[net->nhost_chain++] = p;
            p += w + 1;
        }
    net->chain = ok;
    net->chain_f8 = ok && f8ok;
    rc = 0;
out:
    if (ts)
        for (size_t i = 0; i < T; i++)
            free(ts[i]);
    free(ts);
    free(flat);
    free(relud);
    return rc;
}

void rt_chain_free(spu_net *net)
{
    for (size_t i = 0; i < net->nnodes; i++) {
        rt_node *n = &net->nodes[i];
        free(n->ch_wq);
        free(n->ch_bias);
        free(n->ch_deq);
        for (int f = 0; f < 2; f++) {
            free(n->ch_wf[f]);
            free(n->ch_biasf[f]);
            free(n->ch_deqf[f]);
        }
    }
    free(net->ch_C);
    free(net->ch_H);
    free(net->ch_W);
    free(net->host_list_chain);
    free(net->host_chain_names);
}
