/*
 * net.c -- graph files: parse (cJSON), load and check the .npy weights,
 * infer the shapes, and the op lowering table.
 *
 * Graph file (docs/runtime.md has the full schema):
 *   { "format": "spu-graph", "version": 1, "name": "...",
 *     "input": { "name": "image", "shape": [1, 28, 28] }, "output": "logits",
 *     "nodes": [ { "op": "dense", "name": "fc1", "inputs": ["x0"],
 *                  "output": "h1", "weight": "fc1.weight.npy", ... }, ... ] }
 * Nodes run in file order; every input must be the graph input or the output
 * of an earlier node; every tensor is defined once.
 */
#include "runtime_internal.h"
#include "spu/numerics.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The op lowering table: per op, what runs on the device and what on the
 * host. Moving an op to the device (a vector-unit kernel) changes its row
 * and its run function in exec.c, nothing else. */
const rt_op_desc rt_ops[RT_OP_COUNT] = {
    /* kind          name           inputs device host steps of an int8 run  */
    { RT_FLATTEN,    "flatten",     1, 0, { NULL } },             /* a view: no work */
    /* dense / conv2d / patch_embed: bias (and a following relu) on the
     * device; "requant" is the per-output-channel scale the device cannot
     * apply (a float per column), a multiply on the host */
    { RT_DENSE,      "dense",       1, 1, { "quantize", "requant", NULL } },
    { RT_CONV2D,     "conv2d",      1, 1, { "im2col", "quantize", "requant", NULL } },
    { RT_PATCH,      "patch_embed", 1, 1, { "im2col", "quantize", "requant", "pos_add", NULL } },
    { RT_ATTENTION,  "attention",   1, 1, { "quantize", "requant", "split_heads", "softmax", NULL } },
    { RT_RELU,       "relu",        1, 0, { "relu", NULL } },
    { RT_GELU,       "gelu",        1, 0, { "gelu", NULL } },
    { RT_SOFTMAX,    "softmax",     1, 0, { "softmax", NULL } },
    { RT_LAYERNORM,  "layernorm",   1, 0, { "layernorm", NULL } },
    { RT_MAXPOOL,    "maxpool2d",   1, 0, { "maxpool2d", NULL } },
    { RT_ADD,        "add",         2, 0, { "add", NULL } },
    { RT_TOKEN_MEAN, "token_mean",  1, 0, { "token_mean", NULL } },
};

static int perr(char *err, size_t cap, int rc, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static void shape_str(const size_t *s, int nd, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = 0;
    o += (size_t)snprintf(buf + o, cap - o, "[");
    for (int i = 0; i < nd && o < cap; i++)
        o += (size_t)snprintf(buf + o, cap - o, i ? " x %zu" : "%zu", s[i]);
    if (o < cap)
        snprintf(buf + o, cap - o, "]");
}

static void gemm_weights_free(rt_gemm_w *g)
{
    free(g->wt);
    free(g->wq);
    free(g->ws);
    free(g->sc);
    free(g->bias);
    for (int f = 0; f < 2; f++) {
        free(g->wf[f]);
        free(g->wsf[f]);
        free(g->scf[f]);
    }
    memset(g, 0, sizeof *g);
}

void spu_net_free(spu_net *net)
{
    if (!net)
        return;
    for (size_t i = 0; i < net->nnodes; i++) {
        rt_node *n = &net->nodes[i];
        free(n->name);
        gemm_weights_free(&n->g[0]);
        gemm_weights_free(&n->g[1]);
        free(n->gamma);
        free(n->beta);
        free(n->pos);
        free(n->host_names);
    }
    free(net->nodes);
    for (size_t i = 0; i < net->ntensors; i++)
        free(net->tensors[i].name);
    free(net->tensors);
    free(net->host_list);
    free(net->host_list_vec);
    free(net->host_vec_names);
    rt_chain_free(net);
    free(net->name);
    free(net);
}

/* ---- loading helpers ---------------------------------------------------------- */
typedef struct pctx {
    spu_net *net;
    const char *path;       /* graph file, for messages */
    char dir[4096];
    char *err;
    size_t cap;
} pctx;

static int find_tensor(const spu_net *net, const char *name)
{
    for (size_t i = 0; i < net->ntensors; i++)
        if (!strcmp(net->tensors[i].name, name))
            return (int)i;
    return -1;
}

static int add_tensor(pctx *c, const char *name, int nd, const size_t *shape)
{
    spu_net *net = c->net;
    rt_tensor *t = realloc(net->tensors, (net->ntensors + 1) * sizeof *t);
    if (!t)
        return -1;
    net->tensors = t;
    t = &net->tensors[net->ntensors];
    memset(t, 0, sizeof *t);
    t->name = strdup(name);
    if (!t->name)
        return -1;
    t->ndim = nd;
    t->numel = 1;
    for (int i = 0; i < nd; i++) {
        t->shape[i] = shape[i];
        t->numel *= shape[i];
    }
    return (int)net->ntensors++;
}

/* Load a float32 .npy named by key of node jn; checks the shape (0 = any). */
static int load_weight(pctx *c, const rt_node *n, const cJSON *jn, const char *key, int nd,
                       const size_t *want, spu_tensor *t)
{
    const cJSON *f = cJSON_GetObjectItemCaseSensitive(jn, key);
    if (!cJSON_IsString(f) || !f->valuestring[0])
        return perr(c->err, c->cap, SPU_EFORMAT, "%s: node '%s' (%s): missing \"%s\" (a .npy file name)",
                    c->path, n->name, rt_ops[n->kind].name, key);
    char path[8192], why[256];
    if (f->valuestring[0] == '/')
        snprintf(path, sizeof path, "%s", f->valuestring);
    else
        snprintf(path, sizeof path, "%s/%s", c->dir, f->valuestring);
    int rc = spu_npy_load(path, t, why, sizeof why);
    if (rc)
        return perr(c->err, c->cap, rc == SPU_EIO ? SPU_EIO : SPU_EFORMAT,
                    "%s: node '%s' (%s): %s %s", c->path, n->name, rt_ops[n->kind].name, key,
                    why[0] ? why : path);   /* why names the file */
    if (t->dtype != SPU_NPY_FLOAT32) {
        rc = perr(c->err, c->cap, SPU_EFORMAT, "%s: node '%s': %s %s is %s, expected float32",
                  c->path, n->name, key, path, spu_npy_dtype_name(t->dtype));
        spu_tensor_free(t);
        return rc;
    }
    int ok = t->ndim == nd;
    for (int i = 0; ok && i < nd; i++)
        if (want[i] && t->shape[i] != want[i])
            ok = 0;
    if (!ok) {
        char got[96], exp[96];
        shape_str(t->shape, t->ndim, got, sizeof got);
        shape_str(want, nd, exp, sizeof exp);
        for (char *p = exp; *p; p++)       /* a 0 in want means "any": show it as N */
            if (*p == '0' && (p == exp + 1 || p[-1] == ' ') && (p[1] == ' ' || p[1] == ']'))
                *p = 'N';
        rc = perr(c->err, c->cap, SPU_EFORMAT, "%s: node '%s' (%s): %s %s has shape %s, expected %s",
                  c->path, n->name, rt_ops[n->kind].name, key, path, got, exp);
        spu_tensor_free(t);
        return rc;
    }
    for (size_t i = 0, e = spu_tensor_numel(t); i < e; i++)
        if (!isfinite(((const float *)t->data)[i])) {
            rc = perr(c->err, c->cap, SPU_EFORMAT, "%s: node '%s': %s %s holds a NaN or Inf",
                      c->path, n->name, key, path);
            spu_tensor_free(t);
            return rc;
        }
    return 0;
}

/* Take ownership of a tensor's data as a float array. */
static float *take(spu_tensor *t)
{
    float *p = t->data;
    t->data = NULL;
    return p;
}

float rt_f8_max(int f8)
{
    return (float)spu_fmt_get(f8 == RT_F8_E4M3 ? SPU_FMT_E4M3 : SPU_FMT_E5M2)->max_value;
}

float rt_pow2_scale(float amax, float fmax)
{
    if (!(amax > 0.0f) || !isfinite(amax))
        return 1.0f;
    int e;
    const float m = frexpf(amax / fmax, &e);     /* amax / fmax = m 2^e, m in [0.5, 1) */
    return ldexpf(1.0f, m == 0.5f ? e - 1 : e);
}

/* GEMM weights from a [N][K] weight (PyTorch layout; conv weights are
 * flattened to [OC][C*KH*KW]) and a [N] bias: fp32 W^T, int8 W^T with a
 * per-output-channel scale max|W[n][:]| / 127, RNE; e4m3 and e5m2 W^T with
 * a per-output-channel power-of-two scale (rt_pow2_scale of max|W[n][:]|),
 * RNE, saturating, by the numerics library. */
static int make_gemm_w(rt_gemm_w *g, const float *w, size_t N, size_t K, float *bias, float in_scale)
{
    g->N = N;
    g->K = K;
    g->bias = bias;
    g->wt = malloc(N * K * sizeof *g->wt);
    g->wq = malloc(N * K);
    g->ws = malloc(N * sizeof *g->ws);
    g->sc = malloc(N * sizeof *g->sc);
    if (!g->wt || !g->wq || !g->ws || !g->sc)
        return SPU_ENOMEM;
    for (size_t n = 0; n < N; n++) {
        float m = 0.0f;
        for (size_t k = 0; k < K; k++) {
            const float v = fabsf(w[n * K + k]);
            if (v > m)
                m = v;
        }
        g->ws[n] = m > 0.0f ? m / 127.0f : 1.0f;
        g->sc[n] = in_scale * g->ws[n];
        const float inv = 1.0f / g->ws[n];
        for (size_t k = 0; k < K; k++) {
            g->wt[k * N + n] = w[n * K + k];
            float q = rintf(w[n * K + k] * inv);
            g->wq[k * N + n] = (int8_t)(q > 127.0f ? 127.0f : q < -127.0f ? -127.0f : q);
        }
    }
    float *tmp = malloc(N * K * sizeof *tmp), *amax = calloc(N, sizeof *amax);
    if (!tmp || !amax) {
        free(tmp);
        free(amax);
        return SPU_ENOMEM;
    }
    for (size_t k = 0; k < K; k++)
        for (size_t n = 0; n < N; n++)
            if (fabsf(g->wt[k * N + n]) > amax[n])
                amax[n] = fabsf(g->wt[k * N + n]);
    for (int f = 0; f < 2; f++) {
        const spu_fmt fmt = f == RT_F8_E4M3 ? SPU_FMT_E4M3 : SPU_FMT_E5M2;
        const float fmax = rt_f8_max(f), sx = rt_pow2_scale(in_scale * 127.0f, fmax);
        g->wf[f] = malloc(N * K);
        g->wsf[f] = malloc(N * sizeof *g->wsf[f]);
        g->scf[f] = malloc(N * sizeof *g->scf[f]);
        if (!g->wf[f] || !g->wsf[f] || !g->scf[f]) {
            free(tmp);
            free(amax);
            return SPU_ENOMEM;
        }
        for (size_t n = 0; n < N; n++) {
            g->wsf[f][n] = rt_pow2_scale(amax[n], fmax);
            g->scf[f][n] = sx * g->wsf[f][n];
        }
        for (size_t k = 0; k < K; k++)
            for (size_t n = 0; n < N; n++)          /* exact: a power-of-two divide */
                tmp[k * N + n] = g->wt[k * N + n] / g->wsf[f][n];
        spu_convert_from_f32(fmt, tmp, g->wf[f], N * K, NULL);
    }
    free(tmp);
    free(amax);
    return 0;
}

static int get_scale(pctx *c, const rt_node *n, const cJSON *jn, const char *key, float *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(jn, key);
    if (!cJSON_IsNumber(v) || !(v->valuedouble > 0.0) || !isfinite(v->valuedouble))
        return perr(c->err, c->cap, SPU_EFORMAT,
                    "%s: node '%s' (%s): \"%s\" must be a positive number (the calibrated int8 scale)",
                    c->path, n->name, rt_ops[n->kind].name, key);
    *out = (float)v->valuedouble;
    return 0;
}

static int get_uint(pctx *c, const rt_node *n, const cJSON *jn, const char *key, size_t dflt,
                    size_t lo, size_t hi, size_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(jn, key);
    if (!v) {
        if (dflt == (size_t)-1)
            return perr(c->err, c->cap, SPU_EFORMAT, "%s: node '%s' (%s): missing \"%s\"", c->path,
                        n->name, rt_ops[n->kind].name, key);
        *out = dflt;
        return 0;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < (double)lo ||
        v->valuedouble > (double)hi)
        return perr(c->err, c->cap, SPU_EFORMAT, "%s: node '%s' (%s): \"%s\" must be an integer in %zu..%zu",
                    c->path, n->name, rt_ops[n->kind].name, key, lo, hi);
    *out = (size_t)v->valuedouble;
    return 0;
}

static int shape_err(pctx *c, const rt_node *n, const rt_tensor *in, const char *want)
{
    char got[96];
    shape_str(in->shape, in->ndim, got, sizeof got);
    return perr(c->err, c->cap, SPU_EFORMAT, "%s: node '%s' (%s): input '%s' has shape %s, expected %s",
                c->path, n->name, rt_ops[n->kind].name, in->name, got, want);
}

/* Parse one node's attributes and weights; sets *nd/out_shape. */
static int parse_node(pctx *c, rt_node *n, const cJSON *jn, int *ond, size_t *os)
{
    const rt_tensor *in = &c->net->tensors[n->in[0]];
    spu_tensor w = { 0 }, b = { 0 }, w2 = { 0 }, b2 = { 0 };
    int rc = 0;
    *ond = in->ndim;
    memcpy(os, in->shape, sizeof in->shape);
    switch (n->kind) {
    case RT_FLATTEN:
        *ond = 1;
        os[0] = in->numel;
        break;
    case RT_RELU: case RT_GELU:
        break;
    case RT_SOFTMAX:
        n->D = in->shape[in->ndim - 1];
        break;
    case RT_ADD: {
        const rt_tensor *in2 = &c->net->tensors[n->in[1]];
        if (in2->ndim != in->ndim || memcmp(in2->shape, in->shape, sizeof in->shape)) {
            char a[96], bb[96];
            shape_str(in->shape, in->ndim, a, sizeof a);
            shape_str(in2->shape, in2->ndim, bb, sizeof bb);
            return perr(c->err, c->cap, SPU_EFORMAT, "%s: node '%s' (add): inputs '%s' %s and '%s' %s differ in shape",
                        c->path, n->name, in->name, a, in2->name, bb);
        }
        break;
    }
    case RT_TOKEN_MEAN:
        if (in->ndim != 2)
            return shape_err(c, n, in, "[T x D] tokens");
        *ond = 1;
        os[0] = in->shape[1];
        break;
    case RT_MAXPOOL:
        if (in->ndim != 3)
            return shape_err(c, n, in, "[C x H x W]");
        if ((rc = get_uint(c, n, jn, "kernel", (size_t)-1, 1, 64, &n->k)) ||
            (rc = get_uint(c, n, jn, "stride", n->k, 1, 64, &n->stride)))
            return rc;
        if (n->k > in->shape[1] || n->k > in->shape[2])
            return shape_err(c, n, in, "H, W >= kernel");
        os[1] = (in->shape[1] - n->k) / n->stride + 1;
        os[2] = (in->shape[2] - n->k) / n->stride + 1;
        break;
    case RT_LAYERNORM: {
        n->D = in->shape[in->ndim - 1];
        size_t want[1] = { n->D };
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(jn, "eps");
        n->eps = 1e-5f;
        if (e) {
            if (!cJSON_IsNumber(e) || !(e->valuedouble > 0))
                return perr(c->err, c->cap, SPU_EFORMAT, "%s: node '%s' (layernorm): \"eps\" must be a positive number",
                            c->path, n->name);
            n->eps = (float)e->valuedouble;
        }
        if ((rc = load_weight(c, n, jn, "weight", 1, want, &w)) ||
            (rc = load_weight(c, n, jn, "bias", 1, want, &b)))
            break;
        n->gamma = take(&w);
        n->beta = take(&b);
        break;
    }
    case RT_DENSE: {
        const size_t K = in->shape[in->ndim - 1];
        size_t ww[2] = { 0, K };
        if ((rc = get_scale(c, n, jn, "in_scale", &n->in_scale)) ||
            (rc = load_weight(c, n, jn, "weight", 2, ww, &w)))
            break;
        size_t bw[1] = { w.shape[0] };
        if ((rc = load_weight(c, n, jn, "bias", 1, bw, &b)))
            break;
        if ((rc = make_gemm_w(&n->g[0], w.data, w.shape[0], K, take(&b), n->in_scale)))
            break;
        os[in->ndim - 1] = w.shape[0];
        break;
    }
    case RT_CONV2D: case RT_PATCH: {
        if (in->ndim != 3)
            return shape_err(c, n, in, "[C x H x W]");
        size_t ww[4] = { 0, in->shape[0], 0, 0 };
        if (n->kind == RT_PATCH) {
            if ((rc = get_uint(c, n, jn, "patch", (size_t)-1, 1, 64, &n->k)))
                return rc;
            ww[2] = ww[3] = n->k;
            n->stride = n->k;
            n->pad = 0;
            if (in->shape[1] % n->k || in->shape[2] % n->k)
                return shape_err(c, n, in, "H and W multiples of the patch size");
        } else if ((rc = get_uint(c, n, jn, "stride", 1, 1, 64, &n->stride)) ||
                   (rc = get_uint(c, n, jn, "pad", 0, 0, 64, &n->pad)))
            return rc;
        if ((rc = get_scale(c, n, jn, "in_scale", &n->in_scale)) ||
            (rc = load_weight(c, n, jn, "weight", 4, ww, &w)))
            break;
        n->k = w.shape[2];
        n->kw = w.shape[3];
        if (in->shape[1] + 2 * n->pad < n->k || in->shape[2] + 2 * n->pad < n->kw) {
            rc = shape_err(c, n, in, "an image at least as large as the kernel");
            break;
        }
        size_t bw[1] = { w.shape[0] };
        if ((rc = load_weight(c, n, jn, "bias", 1, bw, &b)))
            break;
        n->C = in->shape[0];
        n->H = in->shape[1];
        n->W = in->shape[2];
        n->OH = (n->H + 2 * n->pad - n->k) / n->stride + 1;
        n->OW = (n->W + 2 * n->pad - n->kw) / n->stride + 1;
        if ((rc = make_gemm_w(&n->g[0], w.data, w.shape[0], w.shape[1] * n->k * n->kw, take(&b), n->in_scale)))
            break;
        if (n->kind == RT_PATCH) {
            size_t pw[2] = { n->OH * n->OW, w.shape[0] };
            if ((rc = load_weight(c, n, jn, "pos", 2, pw, &w2)))
                break;
            n->pos = take(&w2);
            *ond = 2;
            os[0] = n->OH * n->OW;
            os[1] = w.shape[0];
        } else {
            os[0] = w.shape[0];
            os[1] = n->OH;
            os[2] = n->OW;
        }
        break;
    }
    case RT_ATTENTION: {
        if (in->ndim != 2)
            return shape_err(c, n, in, "[T x D] tokens");
        const size_t T = in->shape[0], D = in->shape[1];
        if ((rc = get_uint(c, n, jn, "heads", (size_t)-1, 1, 64, &n->heads)))
            return rc;
        if (D % n->heads)
            return perr(c->err, c->cap, SPU_EFORMAT, "%s: node '%s' (attention): %zu heads do not divide the width %zu",
                        c->path, n->name, n->heads, D);
        n->T = T;
        n->D = D;
        size_t qw[2] = { 3 * D, D }, qb[1] = { 3 * D }, pw[2] = { D, D }, pb[1] = { D };
        if ((rc = get_scale(c, n, jn, "in_scale", &n->in_scale)) ||
            (rc = get_scale(c, n, jn, "q_scale", &n->q_scale)) ||
            (rc = get_scale(c, n, jn, "k_scale", &n->k_scale)) ||
            (rc = get_scale(c, n, jn, "v_scale", &n->v_scale)) ||
            (rc = get_scale(c, n, jn, "p_scale", &n->p_scale)) ||
            (rc = get_scale(c, n, jn, "o_scale", &n->o_scale)) ||
            (cJSON_GetObjectItemCaseSensitive(jn, "s_scale") &&
             (rc = get_scale(c, n, jn, "s_scale", &n->s_scale))) ||
            (rc = load_weight(c, n, jn, "qkv_weight", 2, qw, &w)) ||
            (rc = load_weight(c, n, jn, "qkv_bias", 1, qb, &b)) ||
            (rc = load_weight(c, n, jn, "proj_weight", 2, pw, &w2)) ||
            (rc = load_weight(c, n, jn, "proj_bias", 1, pb, &b2)))
            break;
        if ((rc = make_gemm_w(&n->g[0], w.data, 3 * D, D, take(&b), n->in_scale)) ||
            (rc = make_gemm_w(&n->g[1], w2.data, D, D, take(&b2), n->o_scale)))
            break;
        break;
    }
    default:
        break;
    }
    spu_tensor_free(&w);
    spu_tensor_free(&b);
    spu_tensor_free(&w2);
    spu_tensor_free(&b2);
    if (rc == SPU_ENOMEM)
        perr(c->err, c->cap, rc, "%s: node '%s': out of memory", c->path, n->name);
    return rc;
}

/* dense / conv2d -> relu with the GEMM's output read by the relu alone:
 * the device's output pipeline applies the relu (exec.c gemm_w). */
static void fuse_relus(spu_net *net)
{
    for (size_t i = 0; i + 1 < net->nnodes; i++) {
        rt_node *g = &net->nodes[i], *r = &net->nodes[i + 1];
        if ((g->kind != RT_DENSE && g->kind != RT_CONV2D) || r->kind != RT_RELU ||
            r->in[0] != g->out || g->out == net->output)
            continue;
        int readers = 0;
        for (size_t j = 0; j < net->nnodes; j++)
            for (int k = 0; k < rt_ops[net->nodes[j].kind].nin; k++)
                readers += net->nodes[j].in[k] == g->out;
        if (readers == 1) {
            g->fused_relu = 1;
            r->fused_relu = -1;
        }
    }
}

static int build_host_list(spu_net *net)
{
    size_t total = 0;
    for (size_t i = 0; i < net->nnodes; i++) {
        const rt_op_desc *d = &rt_ops[net->nodes[i].kind];
        size_t cnt = 0;
        while (d->host[cnt])
            cnt++;
        rt_node *n = &net->nodes[i];
        if (n->fused_relu < 0)
            cnt = 0;            /* done by the GEMM before it, on the device */
        n->nhost = cnt;
        if (!cnt)
            continue;
        size_t len = 0;
        for (size_t j = 0; j < cnt; j++)
            len += strlen(n->name) + strlen(d->host[j]) + 2;
        n->host_names = malloc(len);
        if (!n->host_names)
            return SPU_ENOMEM;
        total += cnt;
    }
    net->host_list = calloc(total ? total : 1, sizeof *net->host_list);
    if (!net->host_list)
        return SPU_ENOMEM;
    net->nhost = 0;
    for (size_t i = 0; i < net->nnodes; i++) {
        rt_node *n = &net->nodes[i];
        char *p = n->host_names;
        for (size_t j = 0; j < n->nhost; j++) {
            int w = sprintf(p, "%s:%s", n->name, rt_ops[n->kind].host[j]);
            net->host_list[net->nhost++] = p;
            p += w + 1;
        }
    }
    return 0;
}

/* The vector-unit lowering (int8 runs on a device with the unit): a relu
 * whose only readers are dense nodes with one in_scale s runs on the device
 * on the int8 codes q(x) = clamp(rne(x / s), -127, 127) that those nodes
 * would quantize anyway -- relu and q commute exactly (q is monotone and
 * q(0) = 0), so the codes and every later result are unchanged; the
 * quantize step moves from the dense nodes to the relu node. */
static void plan_vector(spu_net *net)
{
    for (size_t i = 0; i < net->nnodes; i++) {
        rt_node *r = &net->nodes[i];
        if (r->kind != RT_RELU || r->out == net->output || r->fused_relu < 0)
            continue;       /* fused_relu < 0: the GEMM before it applies it */
        size_t readers = 0;
        int ok = 1;
        float s = 0.0f;
        for (size_t j = 0; j < net->nnodes; j++) {
            const rt_node *c = &net->nodes[j];
            const int reads = c->in[0] == r->out || (rt_ops[c->kind].nin > 1 && c->in[1] == r->out);
            if (!reads)
                continue;
            if (c->kind != RT_DENSE || (readers && c->in_scale != s))
                ok = 0;
            s = c->in_scale;
            readers++;
        }
        if (!ok || !readers)
            continue;
        r->vec_relu = 1;
        r->vec_scale = s;
        for (size_t j = 0; j < net->nnodes; j++)
            if (net->nodes[j].in[0] == r->out)
                net->nodes[j].q_pre = 1;
    }
}

/* host_list_vec: host_list with the steps plan_vector moves. */
static int build_host_list_vec(spu_net *net)
{
    size_t len = 1, total = 0;
    for (size_t i = 0; i < net->nnodes; i++) {
        const rt_node *n = &net->nodes[i];
        for (const char *const *h = rt_ops[n->kind].host; *h; h++)
            len += strlen(n->name) + strlen(*h) + 2;
        len += strlen(n->name) + 16;
        total += n->nhost + 1;
    }
    net->host_vec_names = malloc(len);
    net->host_list_vec = calloc(total ? total : 1, sizeof *net->host_list_vec);
    if (!net->host_vec_names || !net->host_list_vec)
        return SPU_ENOMEM;
    char *p = net->host_vec_names;
    net->nhost_vec = 0;
    for (size_t i = 0; i < net->nnodes; i++) {
        const rt_node *n = &net->nodes[i];
        if (n->fused_relu < 0)
            continue;       /* done by the GEMM before it, on the device */
        static const char *const relu_steps[] = { "quantize", NULL };
        const char *const *steps = n->vec_relu ? relu_steps : rt_ops[n->kind].host;
        for (; *steps; steps++) {
            if (n->q_pre && !strcmp(*steps, "quantize"))
                continue;   /* the relu before it delivers the codes */
            if (n->kind == RT_ATTENTION && n->s_scale > 0.0f && !strcmp(*steps, "softmax"))
                continue;   /* the device softmax (exec.c; a device whose word does not divide T
                               runs it on the host and names it: rt_attn_host_softmax) */
            int w = sprintf(p, "%s:%s", n->name, *steps);
            net->host_list_vec[net->nhost_vec++] = p;
            p += w + 1;
        }
    }
    return 0;
}

int spu_net_load(spu_net **out, const char *graph_path, char *err, size_t errcap)
{
    if (!out || !graph_path)
        return perr(err, errcap, SPU_EINVAL, "invalid arguments");
    *out = NULL;
    FILE *f = fopen(graph_path, "rb");
    if (!f)
        return perr(err, errcap, SPU_EIO, "%s: cannot open the graph file", graph_path);
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            char *t = realloc(text, cap);
            if (!t) {
                free(text);
                fclose(f);
                return perr(err, errcap, SPU_ENOMEM, "out of memory");
            }
            text = t;
        }
        size_t r = fread(text + len, 1, 4096, f);
        len += r;
        if (r < 4096)
            break;
    }
    const int ferr = ferror(f);
    fclose(f);
    if (ferr) {
        free(text);
        return perr(err, errcap, SPU_EIO, "%s: read error", graph_path);
    }
    text[len] = 0;
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {
        const char *at = cJSON_GetErrorPtr();
        size_t off = at && at >= text && at <= text + len ? (size_t)(at - text) : len;
        size_t line = 1;
        for (size_t i = 0; i < off; i++)
            line += text[i] == '\n';
        free(text);
        return perr(err, errcap, SPU_EPARSE, "%s: invalid JSON near line %zu (byte %zu)", graph_path, line, off);
    }
    free(text);

    spu_net *net = calloc(1, sizeof *net);
    pctx c = { .net = net, .path = graph_path, .err = err, .cap = errcap };
    int rc = 0;
    if (!net) {
        rc = perr(err, errcap, SPU_ENOMEM, "out of memory");
        goto out;
    }
    snprintf(c.dir, sizeof c.dir, "%s", graph_path);
    char *slash = strrchr(c.dir, '/');
    if (slash)
        *slash = 0;
    else
        snprintf(c.dir, sizeof c.dir, ".");

    const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(root, "version");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "name");
    const cJSON *input = cJSON_GetObjectItemCaseSensitive(root, "input");
    const cJSON *output = cJSON_GetObjectItemCaseSensitive(root, "output");
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(root, "nodes");
    if (!cJSON_IsObject(root) || !cJSON_IsString(fmt) || strcmp(fmt->valuestring, "spu-graph")) {
        rc = perr(err, errcap, SPU_EFORMAT, "%s: not an spu-graph file (\"format\": \"spu-graph\" missing)", graph_path);
        goto out;
    }
    if (!cJSON_IsNumber(ver) || ver->valuedouble != 1) {
        rc = perr(err, errcap, SPU_EFORMAT, "%s: graph version %g not supported (this build reads version 1)",
                  graph_path, cJSON_IsNumber(ver) ? ver->valuedouble : 0.0);
        goto out;
    }
    net->name = strdup(cJSON_IsString(name) ? name->valuestring : "graph");
    const cJSON *iname = cJSON_GetObjectItemCaseSensitive(input, "name");
    const cJSON *ishape = cJSON_GetObjectItemCaseSensitive(input, "shape");
    size_t shp[3];
    int nd = cJSON_GetArraySize(ishape);
    if (!net->name || !cJSON_IsString(iname) || !cJSON_IsArray(ishape) || nd < 1 || nd > 3) {
        rc = perr(err, errcap, SPU_EFORMAT, "%s: \"input\" must be {\"name\": ..., \"shape\": [1 to 3 sizes]}", graph_path);
        goto out;
    }
    for (int i = 0; i < nd; i++) {
        const cJSON *d = cJSON_GetArrayItem(ishape, i);
        if (!cJSON_IsNumber(d) || d->valuedouble < 1 || d->valuedouble > 65536 || d->valuedouble != floor(d->valuedouble)) {
            rc = perr(err, errcap, SPU_EFORMAT, "%s: input shape entry %d is not a size in 1..65536", graph_path, i);
            goto out;
        }
        shp[i] = (size_t)d->valuedouble;
    }
    if (add_tensor(&c, iname->valuestring, nd, shp) < 0) {
        rc = perr(err, errcap, SPU_ENOMEM, "out of memory");
        goto out;
    }
    if (!cJSON_IsArray(nodes) || cJSON_GetArraySize(nodes) == 0) {
        rc = perr(err, errcap, SPU_EFORMAT, "%s: \"nodes\" must be a non-empty array", graph_path);
        goto out;
    }
    const size_t nn = (size_t)cJSON_GetArraySize(nodes);
    net->nodes = calloc(nn, sizeof *net->nodes);
    if (!net->nodes) {
        rc = perr(err, errcap, SPU_ENOMEM, "out of memory");
        goto out;
    }
    const cJSON *jn;
    size_t idx = 0;
    cJSON_ArrayForEach(jn, nodes) {
        rt_node *n = &net->nodes[idx];
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(jn, "op");
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(jn, "name");
        const cJSON *ins = cJSON_GetObjectItemCaseSensitive(jn, "inputs");
        const cJSON *o = cJSON_GetObjectItemCaseSensitive(jn, "output");
        if (!cJSON_IsObject(jn) || !cJSON_IsString(op) || !cJSON_IsString(nm) || !nm->valuestring[0]) {
            rc = perr(err, errcap, SPU_EFORMAT, "%s: node %zu needs \"op\" and \"name\" strings", graph_path, idx);
            goto out;
        }
        n->name = strdup(nm->valuestring);
        if (!n->name) {
            rc = perr(err, errcap, SPU_ENOMEM, "out of memory");
            goto out;
        }
        net->nnodes = idx + 1;
        for (size_t j = 0; j < idx; j++)
            if (!strcmp(net->nodes[j].name, n->name)) {
                rc = perr(err, errcap, SPU_EFORMAT, "%s: node name '%s' used twice", graph_path, n->name);
                goto out;
            }
        n->kind = RT_OP_COUNT;
        for (int k = 0; k < RT_OP_COUNT; k++)
            if (!strcmp(rt_ops[k].name, op->valuestring))
                n->kind = k;
        if (n->kind == RT_OP_COUNT) {
            rc = perr(err, errcap, SPU_EFORMAT, "%s: node '%s': unknown op \"%s\"", graph_path, n->name, op->valuestring);
            goto out;
        }
        const int nin = rt_ops[n->kind].nin;
        if (!cJSON_IsArray(ins) || cJSON_GetArraySize(ins) != nin) {
            rc = perr(err, errcap, SPU_EFORMAT, "%s: node '%s' (%s): \"inputs\" must list %d tensor name%s",
                      graph_path, n->name, op->valuestring, nin, nin > 1 ? "s" : "");
            goto out;
        }
        for (int j = 0; j < nin; j++) {
            const cJSON *s = cJSON_GetArrayItem(ins, j);
            n->in[j] = cJSON_IsString(s) ? find_tensor(net, s->valuestring) : -1;
            if (n->in[j] < 0) {
                rc = perr(err, errcap, SPU_EFORMAT, "%s: node '%s': input '%s' is not defined by an earlier node",
                          graph_path, n->name, cJSON_IsString(s) ? s->valuestring : "?");
                goto out;
            }
        }
        if (!cJSON_IsString(o) || !o->valuestring[0] || find_tensor(net, o->valuestring) >= 0) {
            rc = perr(err, errcap, SPU_EFORMAT, "%s: node '%s': \"output\" must name a new tensor%s%s",
                      graph_path, n->name, cJSON_IsString(o) ? ", not " : "", cJSON_IsString(o) ? o->valuestring : "");
            goto out;
        }
        int ond;
        size_t os[3];
        if ((rc = parse_node(&c, n, jn, &ond, os)))
            goto out;
        if ((n->out = add_tensor(&c, o->valuestring, ond, os)) < 0) {
            rc = perr(err, errcap, SPU_ENOMEM, "out of memory");
            goto out;
        }
        idx++;
    }
    if (!cJSON_IsString(output) || (net->output = find_tensor(net, output->valuestring)) < 0) {
        rc = perr(err, errcap, SPU_EFORMAT, "%s: \"output\" must name a tensor of the graph", graph_path);
        goto out;
    }
    const cJSON *classes = cJSON_GetObjectItemCaseSensitive(root, "classes");
    if (classes && (!cJSON_IsNumber(classes) || (size_t)classes->valuedouble != net->tensors[net->output].numel)) {
        rc = perr(err, errcap, SPU_EFORMAT, "%s: output '%s' has %zu values but \"classes\" says %g", graph_path,
                  output->valuestring, net->tensors[net->output].numel,
                  cJSON_IsNumber(classes) ? classes->valuedouble : -1.0);
        goto out;
    }
    fuse_relus(net);    /* before plan_vector: a fused relu needs no vector unit */
    plan_vector(net);
    if ((rc = build_host_list(net)) || (rc = build_host_list_vec(net)) || (rc = rt_chain_plan(net)))
        perr(err, errcap, rc, "out of memory");
out:
    cJSON_Delete(root);
    if (rc) {
        spu_net_free(net);
        return rc;
    }
    *out = net;
    return 0;
}

const char *spu_net_name(const spu_net *net) { return net ? net->name : NULL; }
size_t spu_net_input_size(const spu_net *net) { return net ? net->tensors[0].numel : 0; }
size_t spu_net_output_size(const spu_net *net) { return net ? net->tensors[net->output].numel : 0; }
size_t spu_net_nodes(const spu_net *net) { return net ? net->nnodes : 0; }

const char *spu_net_node_name(const spu_net *net, size_t i)
{
    return net && i < net->nnodes ? net->nodes[i].name : NULL;
}

const char *spu_net_node_op(const spu_net *net, size_t i)
{
    return net && i < net->nnodes ? rt_ops[net->nodes[i].kind].name : NULL;
}

int spu_net_node_on_device(const spu_net *net, size_t i)
{
    /* a fused relu runs in the output pipeline of the GEMM before it */
    return net && i < net->nnodes ? rt_ops[net->nodes[i].kind].device || net->nodes[i].fused_relu < 0 : 0;
}

int spu_net_node_on_device_dev(const spu_net *net, size_t i, spu_net_format fmt, const spu_info_t *info)
{
    if (!net || i >= net->nnodes)
        return 0;
    if (info && rt_chain_fits(net, fmt, info))
        return 1;       /* every node of the chain: GEMMs, fused relus, pools, flatten (a view) */
    if (info && fmt == SPU_NET_INT8 && (info->features & SPU_FEATURE_VECTOR) && net->nodes[i].vec_relu)
        return 1;
    return spu_net_node_on_device(net, i);
}

/* The chain's host steps: the im2col of each conv2d the device does not
 * convolve itself (rt_conv_on_device; with no INFO, features only: a
 * stride-1 square kernel is taken to run there, as on the 8x8 sim / model) */
static size_t chain_host_ops(const spu_net *net, spu_net_format fmt, const spu_info_t *info,
                             const char **names, size_t cap)
{
    size_t j = 0, cnt = 0;
    for (size_t i = 0; i < net->nnodes; i++) {
        const rt_node *n = &net->nodes[i];
        if (n->kind != RT_CONV2D)
            continue;
        const char *nm = net->host_list_chain[j++];
        const char *env = getenv("SPU_INFER_HOST_IM2COL");
        const int dev = info ? rt_conv_on_device(net, n, fmt, info)
                             : n->stride == 1 && n->k == n->kw && !n->ch_last && !(env && *env && strcmp(env, "0"));
        if (!dev) {
            if (cnt < cap)
                names[cnt] = nm;
            cnt++;
        }
    }
    return cnt;
}

size_t spu_net_host_ops_on(const spu_net *net, spu_net_format fmt, uint32_t features,
                           const char **names, size_t cap)
{
    if (!net)
        return 0;
    if ((features & SPU_FEATURE_VECTOR) && rt_chain_planned(net, fmt))       /* the int8 chain (chain.c) */
        return chain_host_ops(net, fmt, NULL, names, cap);
    if (fmt != SPU_NET_INT8 || !(features & SPU_FEATURE_VECTOR))
        return spu_net_host_ops(net, names, cap);
    for (size_t i = 0; i < net->nhost_vec && i < cap; i++)
        names[i] = net->host_list_vec[i];
    return net->nhost_vec;
}

size_t spu_net_host_ops_dev(const spu_net *net, spu_net_format fmt, const spu_info_t *info,
                            const char **names, size_t cap)
{
    if (!net || !info)
        return 0;
    if (rt_chain_fits(net, fmt, info))
        return chain_host_ops(net, fmt, info, names, cap);
    if ((info->features & SPU_FEATURE_VECTOR) == 0)
        return spu_net_host_ops_on(net, fmt, info->features, names, cap);
    /* the unit is there but the chain does not fit this geometry: the
     * per-op lowering (the vector relu where it applies) */
    if (fmt != SPU_NET_INT8)
        return spu_net_host_ops(net, names, cap);
    for (size_t i = 0; i < net->nhost_vec && i < cap; i++)
        names[i] = net->host_list_vec[i];
    return net->nhost_vec;
}

size_t spu_net_host_ops(const spu_net *net, const char **names, size_t cap)
{
    if (!net)
        return 0;
    for (size_t i = 0; i < net->nhost && i < cap; i++)
        names[i] = net->host_list[i];
    return net->nhost;
}
