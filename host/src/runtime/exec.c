/*
 * exec.c -- run a parsed graph on a batch of images: the fp32 reference path
 * and the device path in one of the formats the array carries (int8, e4m3,
 * e5m2): GEMMs on the device, the rest on the host.
 *
 * Quantization (docs/runtime.md):
 *  - int8: every GEMM input is quantized per tensor, symmetric,
 *    q = clamp(rne(x / s), -127, 127) with the calibrated scale s of the
 *    graph; weights per output channel (scale max|W[n]| / 127). The device
 *    returns int32 sums; the host requantizes them, y = (float)acc *
 *    (s * ws[n]) + bias[n], in float -- a named host step ("node:requant").
 *  - e4m3 / e5m2: inputs divided by a per-tensor power-of-two scale (from the
 *    same calibrated max |x|), weights by a per-output-channel power of two,
 *    then rounded RNE, saturating, to the format by the numerics library; the
 *    device sums exactly and rounds once to f32; the host multiplies by the
 *    product of the two scales (exact) and adds the bias.
 */
#include "runtime_internal.h"
#include "spu/conv.h"
#include "spu/gemm.h"
#include "spu/numerics.h"
#include "spu/vector.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* dtype codes of hw/isa/spu_cfg.def (spu/isa.h's names clash with
 * spu/numerics.h, as in the CLI) */
enum {
#define SPU_DTYPE(n, k, c, b, a) RT_DT_##n = (c),
#include "spu_cfg.def"
    RT_DT_END_
};

static const struct {
    const char *name;
    unsigned    dtype;      /* cfg in of the device's GEMM */
    int         fmt;        /* spu_fmt of the numerics library (-1: int8 path) */
} net_formats[SPU_NET_FORMATS] = {
    [SPU_NET_INT8] = { "int8", RT_DT_INT8, -1 },
    [SPU_NET_E4M3] = { "e4m3", RT_DT_E4M3, SPU_FMT_E4M3 },
    [SPU_NET_E5M2] = { "e5m2", RT_DT_E5M2, SPU_FMT_E5M2 },
};

/* the device's dtype table: the generic formats (SPU_NET_DTYPE) */
static const struct {
    const char *key;
    unsigned    code;
    int         array;      /* operand dtype of the array */
} rt_dtypes[] = {
#define SPU_DTYPE(n, k, c, b, a) { k, c, a },
#include "spu_cfg.def"
};

/* bf16 or an MX format of the table the numerics library quantizes: its
 * row, else NULL */
static const char *generic_key(spu_net_format f)
{
    if ((unsigned)f < SPU_NET_DTYPE_BASE)
        return NULL;
    for (size_t i = 0; i < sizeof rt_dtypes / sizeof rt_dtypes[0]; i++)
        if (rt_dtypes[i].code == (unsigned)f - SPU_NET_DTYPE_BASE && rt_dtypes[i].array &&
            (rt_dtypes[i].code == RT_DT_BF16 || spu_mx_from_name(rt_dtypes[i].key) >= 0))
            return rt_dtypes[i].key;
    return NULL;
}

static int is_generic(spu_net_format f) { return generic_key(f) != NULL; }

int rt_chain_planned(const spu_net *net, spu_net_format fmt)
{
    return fmt == SPU_NET_INT8 ? net->chain : fmt == SPU_NET_E4M3 || fmt == SPU_NET_E5M2 ? net->chain_f8 : 0;
}

const char *spu_net_format_name(spu_net_format f)
{
    const char *g = generic_key(f);
    return (unsigned)f < SPU_NET_FORMATS ? net_formats[f].name : g ? g : "?";
}

int spu_net_format_from_name(const char *name)
{
    for (int i = 0; name && i < SPU_NET_FORMATS; i++)
        if (!strcmp(name, net_formats[i].name))
            return i;
    for (size_t i = 0; name && i < sizeof rt_dtypes / sizeof rt_dtypes[0]; i++)
        if (!strcmp(name, rt_dtypes[i].key) && is_generic(SPU_NET_DTYPE(rt_dtypes[i].code)))
            return (int)SPU_NET_DTYPE(rt_dtypes[i].code);
    /* a unique prefix before '_': "mxfp4" for "mxfp4_e2m1" (not "mxfp6": two rows) */
    int found = SPU_EINVAL, hits = 0;
    const size_t len = name ? strlen(name) : 0;
    for (size_t i = 0; len && i < sizeof rt_dtypes / sizeof rt_dtypes[0]; i++)
        if (!strncmp(name, rt_dtypes[i].key, len) && rt_dtypes[i].key[len] == '_' &&
            is_generic(SPU_NET_DTYPE(rt_dtypes[i].code))) {
            found = (int)SPU_NET_DTYPE(rt_dtypes[i].code);
            hits++;
        }
    return hits == 1 ? found : SPU_EINVAL;
}

unsigned spu_net_format_dtype(spu_net_format f)
{
    return (unsigned)f < SPU_NET_FORMATS ? net_formats[f].dtype
           : is_generic(f)               ? (unsigned)f - SPU_NET_DTYPE_BASE : 0xFu;
}

typedef struct ectx {
    const spu_net *net;
    spu_device    *dev;     /* NULL: fp32 reference */
    spu_net_stats *st;
    size_t         node;
    spu_net_format fmt;
    spu_info_t     info;    /* the device's (the FP8 path splits K by its plan) */
    int            vec;     /* int8 run on a device with the vector unit    */
    int8_t       **q;       /* vec: per tensor, its int8 codes (or NULL)    */
    int            chain;   /* the int8 chain (chain.c) runs the graph      */
} ectx;

static void hash_words(spu_net_stats *st, const void *v, size_t n)
{
    uint64_t h = st->result_hash;
    const uint32_t *w = v;
    for (size_t i = 0; i < n; i++) {
        const uint32_t u = w[i];
        for (int b = 0; b < 4; b++) {
            h ^= (u >> (8 * b)) & 0xffu;
            h *= 0x100000001b3ull;
        }
    }
    st->result_hash = h;
}

static void account(ectx *e, const spu_gemm_stats *gs, const void *C, size_t n)
{
    if (!e->st)
        return;
    spu_net_node_stats *ns = &e->st->node[e->node];
    ns->cycles += gs->cycles;
    ns->link_bytes += gs->link_bytes;
    ns->macs += gs->macs;
    ns->gemms++;
    e->st->cycles += gs->cycles;
    e->st->link_bytes += gs->link_bytes;
    e->st->macs += gs->macs;
    e->st->gemms++;
    hash_words(e->st, C, n);
}

static void account_vec(ectx *e, const spu_vec_stats *vs, const int8_t *q, size_t n);

/* int8 GEMM on the device + accounting: C = A x B, A [M][K], B [K][N]. */
static int dev_gemm(ectx *e, size_t M, size_t N, size_t K, const int8_t *A, const int8_t *B, int32_t *C)
{
    spu_gemm_stats gs;
    int rc = spu_gemm_i8(e->dev, (uint32_t)M, (uint32_t)N, (uint32_t)K, A, B, C, NULL, &gs);
    if (rc)
        return rc;
    account(e, &gs, C, M * N);
    return 0;
}

/* FP8 GEMM on the device, f32 out: C = A x B. The device rounds each sum
 * once; a K longer than one scratchpad piece of its plan is cut into
 * chunks of the plan's kc, each a device call rounded to f32, summed here
 * in float in k order (docs/runtime.md). */
/* With epi (bias and relu in the output pipeline) when K fits one piece:
 * returns 1 (not 0) when it could not apply epi (K split), for the caller
 * to do the bias and relu on the host. */
static int dev_gemm_f8(ectx *e, size_t M, size_t N, size_t K, const uint8_t *A, const uint8_t *B, float *C,
                       const spu_gemm_epilogue *epi)
{
    spu_gemm_plan p;
    int rc = spu_gemm_plan_make(&e->info, (uint32_t)M, (uint32_t)N, (uint32_t)K, &p);
    if (rc)
        return rc;
    const unsigned dt = net_formats[e->fmt].dtype;
    spu_gemm_stats gs;
    if (p.kc >= K) {
        const spu_gemm_epilogue plain = { RT_DT_F32, 0, 0, 0, 0, NULL };
        if ((rc = spu_gemm_epi(e->dev, dt, epi ? epi : &plain, (uint32_t)M, (uint32_t)N, (uint32_t)K, A, B,
                               C, NULL, &gs)))
            return rc;
        account(e, &gs, C, M * N);
        return 0;
    }
    const size_t kc = p.kc;
    uint8_t *a = malloc(M * kc);
    float *c = malloc(M * N * sizeof *c);
    rc = SPU_ENOMEM;
    if (a && c) {
        rc = 0;
        for (size_t k0 = 0; !rc && k0 < K; k0 += kc) {
            const size_t kn = K - k0 < kc ? K - k0 : kc;
            for (size_t i = 0; i < M; i++)
                memcpy(a + i * kn, A + i * K + k0, kn);
            if ((rc = spu_gemm(e->dev, dt, RT_DT_F32, (uint32_t)M, (uint32_t)N, (uint32_t)kn, a,
                               B + k0 * N, k0 ? c : C, NULL, &gs)))
                break;
            account(e, &gs, k0 ? c : C, M * N);
            if (k0)
                for (size_t i = 0; i < M * N; i++)
                    C[i] += c[i];
        }
    }
    free(a);
    free(c);
    return rc ? rc : epi ? 1 : 0;
}

/* C[M][N] (f32) = A[M][K] x B[K][N] on the device in a generic format:
 * bf16 operands (RNE from f32), or MX (spu_mx_quantize: A's rows and B's
 * columns in 32-element blocks along K, E8M0 scales in the mm stream,
 * spu_gemm_mx); the device sums exactly and rounds once to f32. */
static int dev_gemm_generic(ectx *e, size_t M, size_t N, size_t K, const float *A, const float *B, float *C)
{
    const unsigned dt = spu_net_format_dtype(e->fmt);
    const spu_gemm_epilogue f32 = { RT_DT_F32, 0, 0, 0, 0, NULL };
    spu_gemm_stats gs;
    int rc = SPU_ENOMEM;
    if (dt == RT_DT_BF16) {
        uint16_t *a = malloc(M * K * sizeof *a), *b = malloc(K * N * sizeof *b);
        if (a && b && !(rc = spu_convert_from_f32(SPU_FMT_BF16, A, a, M * K, NULL)) &&
            !(rc = spu_convert_from_f32(SPU_FMT_BF16, B, b, K * N, NULL)) &&
            !(rc = spu_gemm_epi(e->dev, dt, &f32, (uint32_t)M, (uint32_t)N, (uint32_t)K, a, b, C, NULL, &gs)))
            account(e, &gs, C, M * N);
        free(a);
        free(b);
        return rc;
    }
    const int mf = spu_mx_from_name(generic_key(e->fmt));
    const size_t nb = spu_mx_blocks_per_row(K, SPU_MX_BLOCK_DEFAULT);
    uint8_t *a = malloc(M * K), *sa = malloc(M * nb), *bt = malloc(N * K), *st = malloc(N * nb);
    uint8_t *b = malloc(K * N), *sb = malloc(nb * N);
    float *t = malloc(N * K * sizeof *t);
    if (mf >= 0 && a && sa && bt && st && b && sb && t) {
        for (size_t k = 0; k < K; k++)          /* B's columns as rows: blocks along K */
            for (size_t n = 0; n < N; n++)
                t[n * K + k] = B[k * N + n];
        if (!(rc = spu_mx_quantize((spu_mx_fmt)mf, A, M, K, NULL, a, sa, NULL)) &&
            !(rc = spu_mx_quantize((spu_mx_fmt)mf, t, N, K, NULL, bt, st, NULL))) {
            for (size_t n = 0; n < N; n++) {
                for (size_t k = 0; k < K; k++)
                    b[k * N + n] = bt[n * K + k];
                for (size_t g = 0; g < nb; g++)
                    sb[g * N + n] = st[n * nb + g];
            }
            if (!(rc = spu_gemm_mx(e->dev, dt, &f32, (uint32_t)M, (uint32_t)N, (uint32_t)K, a, sa, b, sb, C,
                                   NULL, &gs)))
                account(e, &gs, C, M * N);
        }
    } else if (mf < 0) {
        rc = SPU_EINVAL;
    }
    free(a);
    free(sa);
    free(bt);
    free(st);
    free(b);
    free(sb);
    free(t);
    return rc;
}

/* x / s (s a power of two: exact) rounded RNE, saturating, to the FP8
 * format of the run. */
static int quantize_f8(const ectx *e, const float *x, uint8_t *q, size_t n, float s)
{
    float *t = malloc(n * sizeof *t);
    if (!t)
        return SPU_ENOMEM;
    for (size_t i = 0; i < n; i++)
        t[i] = x[i] / s;
    int rc = spu_convert_from_f32((spu_fmt)net_formats[e->fmt].fmt, t, q, n, NULL);
    free(t);
    return rc;
}

static void gemm_fp32(const float *A, const float *B, size_t M, size_t N, size_t K, float *out)
{
    for (size_t i = 0; i < M; i++) {
        float *o = out + i * N;
        for (size_t n = 0; n < N; n++)
            o[n] = 0.0f;
        for (size_t k = 0; k < K; k++) {
            const float a = A[i * K + k];
            const float *b = B + k * N;
            for (size_t n = 0; n < N; n++)
                o[n] += a * b[n];
        }
    }
}

/* out[M][N] = in[M][K] x W^T + bias (then max(0, .) when relu), fp32 or on
 * the device. On the device the bias and the relu are in the output
 * pipeline: the bias divided by the column's requant factor (int8: rounded
 * to the int32 grid; FP8: the factor is a power of two, exact) is added to
 * the exact sum before the rounding, the relu follows; the host multiplies
 * by the per-channel factor ("requant", a positive scale: relu commutes). */
static int gemm_w_q(ectx *e, const rt_gemm_w *g, float in_scale, const float *in, const int8_t *qin,
                    size_t M, float *out, int relu);
static int gemm_w(ectx *e, const rt_gemm_w *g, float in_scale, const float *in, size_t M, float *out, int relu)
{
    return gemm_w_q(e, g, in_scale, in, NULL, M, out, relu);
}

/* gemm_w; qin (int8 runs): the input's codes, already quantized with
 * in_scale (the vector unit's relu delivered them), or NULL. */
static int gemm_w_q(ectx *e, const rt_gemm_w *g, float in_scale, const float *in, const int8_t *qin,
                    size_t M, float *out, int relu)
{
    const size_t N = g->N, K = g->K;
    if (!e->dev) {
        gemm_fp32(in, g->wt, M, N, K, out);
        for (size_t i = 0; i < M; i++)
            for (size_t n = 0; n < N; n++) {
                float v = out[i * N + n] + g->bias[n];
                out[i * N + n] = relu && v < 0.0f ? 0.0f : v;
            }
        return 0;
    }
    int rc = SPU_ENOMEM;
    if (is_generic(e->fmt)) {       /* host: quantize (bf16 / MX), requant (the bias, the relu) */
        if ((rc = dev_gemm_generic(e, M, N, K, in, g->wt, out)))
            return rc;
        for (size_t i = 0; i < M; i++)
            for (size_t n = 0; n < N; n++) {
                const float v = out[i * N + n] + g->bias[n];
                out[i * N + n] = relu && v < 0.0f ? 0.0f : v;
            }
        return 0;
    }
    const int f8 = e->fmt != SPU_NET_INT8;
    const float *scale = f8 ? g->scf[e->fmt == SPU_NET_E4M3 ? RT_F8_E4M3 : RT_F8_E5M2] : g->sc;
    double *db = malloc(N * sizeof *db);
    if (!db)
        return SPU_ENOMEM;
    /* an int8-only device (the boards) has no bias registers: the host adds
     * the bias and applies the relu, as before */
    int host_bias = !(e->info.formats & ~(1u << RT_DT_INT8));
    for (size_t n = 0; n < N; n++) {
        db[n] = (double)g->bias[n] / scale[n];
        if (!f8)
            db[n] = nearbyint(db[n]);
        if (!(fabs(db[n]) < 0x1p31))
            host_bias = 1;        /* beyond the device's bias range: the host adds it */
    }
    spu_gemm_epilogue epi = { f8 ? RT_DT_F32 : RT_DT_INT32, relu && !host_bias, 0, 0, 0,
                              host_bias ? NULL : db };
    if (f8) {
        const int f = e->fmt == SPU_NET_E4M3 ? RT_F8_E4M3 : RT_F8_E5M2;
        uint8_t *qa = malloc(M * K);
        if (qa && !(rc = quantize_f8(e, in, qa, M * K,                  /* host: quantize */
                                     rt_pow2_scale(in_scale * 127.0f, rt_f8_max(f))))) {
            rc = dev_gemm_f8(e, M, N, K, qa, g->wf[f], out, &epi);
            if (rc == 1)
                host_bias = 1;    /* K split into pieces: no epilogue on the device */
            if (rc >= 0) {
                rc = 0;
                for (size_t i = 0; i < M; i++)                          /* host: requant  */
                    for (size_t n = 0; n < N; n++) {
                        float v = out[i * N + n] * scale[n] + (host_bias ? g->bias[n] : 0.0f);
                        out[i * N + n] = relu && host_bias && v < 0.0f ? 0.0f : v;
                    }
            }
        }
        free(qa);
        free(db);
        return rc;
    }
    int8_t *qa = malloc(M * K);
    int32_t *acc = malloc(M * N * sizeof *acc);
    if (qa && acc) {
        if (qin)
            memcpy(qa, qin, M * K);                                     /* codes from the device */
        else
            spu_op_quantize(in, qa, M * K, in_scale);                   /* host: quantize */
        spu_gemm_stats gs;
        if (!(rc = spu_gemm_epi(e->dev, RT_DT_INT8, &epi, (uint32_t)M, (uint32_t)N, (uint32_t)K, qa, g->wq,
                                acc, NULL, &gs))) {
            account(e, &gs, acc, M * N);
            for (size_t i = 0; i < M; i++)                              /* host: requant  */
                for (size_t n = 0; n < N; n++) {
                    float v = (float)acc[i * N + n] * g->sc[n] + (host_bias ? g->bias[n] : 0.0f);
                    out[i * N + n] = relu && host_bias && v < 0.0f ? 0.0f : v;
                }
        }
    }
    free(qa);
    free(acc);
    free(db);
    return rc;
}

/* out[M][N] = A[M][K] x B[K][N] of two activations (attention), each
 * quantized per tensor with its own scale on the device path. */
static int gemm_aa(ectx *e, const float *A, float sa, const float *B, float sb, size_t M, size_t N,
                   size_t K, float *out)
{
    if (!e->dev) {
        gemm_fp32(A, B, M, N, K, out);
        return 0;
    }
    int rc = SPU_ENOMEM;
    if (is_generic(e->fmt))
        return dev_gemm_generic(e, M, N, K, A, B, out);
    if (e->fmt != SPU_NET_INT8) {
        const float fmax = rt_f8_max(e->fmt == SPU_NET_E4M3 ? RT_F8_E4M3 : RT_F8_E5M2);
        const float pa = rt_pow2_scale(sa * 127.0f, fmax), pb = rt_pow2_scale(sb * 127.0f, fmax);
        uint8_t *qa = malloc(M * K), *qb = malloc(K * N);
        if (qa && qb && !(rc = quantize_f8(e, A, qa, M * K, pa)) && !(rc = quantize_f8(e, B, qb, K * N, pb)) &&
            !(rc = dev_gemm_f8(e, M, N, K, qa, qb, out, NULL))) {
            const float s = pa * pb;
            for (size_t i = 0; i < M * N; i++)
                out[i] *= s;
        }
        free(qa);
        free(qb);
        return rc;
    }
    int8_t *qa = malloc(M * K), *qb = malloc(K * N);
    int32_t *acc = malloc(M * N * sizeof *acc);
    if (qa && qb && acc) {
        spu_op_quantize(A, qa, M * K, sa);
        spu_op_quantize(B, qb, K * N, sb);
        if (!(rc = dev_gemm(e, M, N, K, qa, qb, acc))) {
            const float s = sa * sb;
            for (size_t i = 0; i < M * N; i++)
                out[i] = (float)acc[i] * s;
        }
    }
    free(qa);
    free(qb);
    free(acc);
    return rc;
}

static int run_conv(ectx *e, const rt_node *n, const float *x, size_t B, float *y)
{
    const size_t Kd = n->g[0].K, P = n->OH * n->OW, OC = n->g[0].N;
    const size_t in_sz = n->C * n->H * n->W;
    float *cols = malloc(B * P * Kd * sizeof *cols);
    float *o = malloc(B * P * OC * sizeof *o);
    int rc = SPU_ENOMEM;
    if (cols && o) {
        for (size_t b = 0; b < B; b++)                                  /* host: im2col */
            spu_op_im2col(x + b * in_sz, cols + b * P * Kd, n->C, n->H, n->W, n->k, n->kw,
                          n->stride, n->pad);
        if (!(rc = gemm_w(e, &n->g[0], n->in_scale, cols, B * P, o, n->fused_relu > 0))) {
            for (size_t b = 0; b < B; b++) {
                const float *ob = o + b * P * OC;
                float *yb = y + b * P * OC;
                if (n->kind == RT_PATCH) {       /* tokens [T][D] + pos (host: pos_add) */
                    for (size_t i = 0; i < P * OC; i++)
                        yb[i] = ob[i] + n->pos[i];
                } else {                         /* [P][OC] -> [OC][OH][OW]            */
                    for (size_t p = 0; p < P; p++)
                        for (size_t c = 0; c < OC; c++)
                            yb[c * P + p] = ob[p * OC + c];
                }
            }
        }
    }
    free(cols);
    free(o);
    return rc;
}

/* Attention with the softmax on the vector unit (int8 runs on a device with
 * the unit, the node calibrated with s_scale; docs/runtime.md "Device
 * softmax"). Per image and head, the score GEMM Q K^T (Q, K quantized per
 * tensor on the host, as before) writes int8 codes through the output
 * pipeline, c = clamp(rne(acc / 2^sh)), one code = d = q_scale * k_scale /
 * sqrt(dh) * 2^sh, sh the smallest shift with d >= s_scale (the calibrated
 * max |score| / 127 fits); one device softmax over all B * H * T rows
 * (firmware/vec_softmax.s, exp table of step d) gives P on the 1/128 grid;
 * P's codes are the A operand of P V (V quantized on the host). */
static int run_attention_vec(ectx *e, const rt_node *n, const float *x, size_t B, float *y)
{
    const size_t T = n->T, D = n->D, H = n->heads, dh = D / H;
    float *qkv = malloc(B * T * 3 * D * sizeof *qkv);
    float *o = malloc(B * T * D * sizeof *o);
    int8_t *q = malloc(T * dh), *kt = malloc(dh * T), *v = malloc(T * dh);
    int8_t *sc = malloc(B * H * T * T);
    int32_t *acc = malloc(T * dh * sizeof *acc);
    float *f = malloc(T * dh * sizeof *f);
    int rc = SPU_ENOMEM;
    if (!qkv || !o || !q || !kt || !v || !sc || !acc || !f)
        goto out;
    if ((rc = gemm_w(e, &n->g[0], n->in_scale, x, B * T, qkv, 0)))
        goto out;
    const double unit = (double)n->q_scale * (double)n->k_scale / sqrt((double)dh);
    unsigned sh = 0;
    while (sh < 31 && ldexp(unit, (int)sh) < (double)n->s_scale)
        sh++;
    const spu_gemm_epilogue epi_s = { RT_DT_INT8, 0, 0, sh, 0, NULL };
    const spu_gemm_epilogue epi_o = { RT_DT_INT32, 0, 0, 0, 0, NULL };
    spu_gemm_stats gs;
    /* the scores of every image and head, as int8 codes */
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < H; h++) {
            const float *r = qkv + b * T * 3 * D;
            for (size_t t = 0; t < T; t++)                              /* host: split_heads */
                for (size_t j = 0; j < dh; j++)
                    f[t * dh + j] = r[t * 3 * D + h * dh + j];
            spu_op_quantize(f, q, T * dh, n->q_scale);                  /* host: quantize */
            for (size_t t = 0; t < T; t++)
                for (size_t j = 0; j < dh; j++)
                    f[j * T + t] = r[t * 3 * D + D + h * dh + j];
            spu_op_quantize(f, kt, dh * T, n->k_scale);
            int8_t *sr = sc + (b * H + h) * T * T;
            if ((rc = spu_gemm_epi(e->dev, RT_DT_INT8, &epi_s, (uint32_t)T, (uint32_t)T, (uint32_t)dh, q, kt, sr,
                                   NULL, &gs)))
                goto out;
            account(e, &gs, NULL, 0);
            account_vec(e, &(spu_vec_stats){ 0 }, sr, T * T);
        }
    /* softmax of all B * H * T rows on the vector unit, in place */
    uint8_t lut[256];
    spu_vec_exp_lut(ldexp(unit, (int)sh), lut);
    spu_vec_stats vs = { 0 };
    if ((rc = spu_vec_softmax_rows(e->dev, sc, B * H * T, T, lut, sc, &vs)))
        goto out;
    account_vec(e, &vs, sc, B * H * T * T);
    /* P V: P's codes (1/128) from the device, V quantized on the host */
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < H; h++) {
            const float *r = qkv + b * T * 3 * D;
            for (size_t t = 0; t < T; t++)                              /* host: split_heads */
                for (size_t j = 0; j < dh; j++)
                    f[t * dh + j] = r[t * 3 * D + 2 * D + h * dh + j];
            spu_op_quantize(f, v, T * dh, n->v_scale);                  /* host: quantize */
            if ((rc = spu_gemm_epi(e->dev, RT_DT_INT8, &epi_o, (uint32_t)T, (uint32_t)dh, (uint32_t)T,
                                   sc + (b * H + h) * T * T, v, acc, NULL, &gs)))
                goto out;
            account(e, &gs, acc, T * dh);
            const float s = n->v_scale / 128.0f;                        /* host: requant */
            for (size_t t = 0; t < T; t++)
                for (size_t j = 0; j < dh; j++)
                    o[(b * T + t) * D + h * dh + j] = (float)acc[t * dh + j] * s;
        }
    rc = gemm_w(e, &n->g[1], n->o_scale, o, B * T, y, 0);
out:
    free(qkv);
    free(o);
    free(q);
    free(kt);
    free(v);
    free(sc);
    free(acc);
    free(f);
    return rc;
}

static int run_attention(ectx *e, const rt_node *n, const float *x, size_t B, float *y)
{
    const size_t T = n->T, D = n->D, H = n->heads, dh = D / H;
    float *qkv = malloc(B * T * 3 * D * sizeof *qkv);
    float *o = malloc(B * T * D * sizeof *o);
    float *q = malloc(T * dh * sizeof *q), *kt = malloc(dh * T * sizeof *kt);
    float *v = malloc(T * dh * sizeof *v), *s = malloc(T * T * sizeof *s);
    float *oh = malloc(T * dh * sizeof *oh);
    int rc = SPU_ENOMEM;
    if (!qkv || !o || !q || !kt || !v || !s || !oh)
        goto out;
    if ((rc = gemm_w(e, &n->g[0], n->in_scale, x, B * T, qkv, 0)))
        goto out;
    const float inv_sqrt = 1.0f / sqrtf((float)dh);
    for (size_t b = 0; b < B; b++)
        for (size_t h = 0; h < H; h++) {
            const float *r = qkv + b * T * 3 * D;
            for (size_t t = 0; t < T; t++)                              /* host: split_heads */
                for (size_t j = 0; j < dh; j++) {
                    q[t * dh + j] = r[t * 3 * D + h * dh + j];
                    kt[j * T + t] = r[t * 3 * D + D + h * dh + j];
                    v[t * dh + j] = r[t * 3 * D + 2 * D + h * dh + j];
                }
            if ((rc = gemm_aa(e, q, n->q_scale, kt, n->k_scale, T, T, dh, s)))
                goto out;
            for (size_t i = 0; i < T * T; i++)
                s[i] *= inv_sqrt;
            spu_op_softmax(s, s, T, T);                                 /* host: softmax */
            if ((rc = gemm_aa(e, s, n->p_scale, v, n->v_scale, T, dh, T, oh)))
                goto out;
            for (size_t t = 0; t < T; t++)
                memcpy(o + (b * T + t) * D + h * dh, oh + t * dh, dh * sizeof *oh);
        }
    rc = gemm_w(e, &n->g[1], n->o_scale, o, B * T, y, 0);
out:
    free(qkv);
    free(o);
    free(q);
    free(kt);
    free(v);
    free(s);
    free(oh);
    return rc;
}

/* relu on the vector unit (docs/runtime.md): quantize with the readers'
 * scale (host), then max(q, 0) on the device; the codes go to the readers. */
static int run_vec_relu(ectx *e, const rt_node *n, const float *x, size_t ni)
{
    int8_t *q = malloc(ni ? ni : 1);
    if (!q)
        return SPU_ENOMEM;
    spu_op_quantize(x, q, ni, n->vec_scale);                            /* host: quantize */
    spu_vec_stats vs = { 0 };
    int rc = spu_vec_map(e->dev, SPU_VEC_MAX, q, NULL, 0, NULL, q, ni, &vs);
    if (rc) {
        free(q);
        return rc;
    }
    free(e->q[n->out]);
    e->q[n->out] = q;
    if (e->st) {
        spu_net_node_stats *ns = &e->st->node[e->node];
        ns->cycles += vs.cycles;
        ns->link_bytes += vs.link_bytes;
        e->st->cycles += vs.cycles;
        e->st->link_bytes += vs.link_bytes;
        uint64_t h = e->st->result_hash;          /* the device's codes, in order */
        for (size_t i = 0; i < ni; i++) {
            h ^= (uint8_t)q[i];
            h *= 0x100000001b3ull;
        }
        e->st->result_hash = h;
    }
    return 0;
}

static int run_node(ectx *e, const rt_node *n, float *const *buf, size_t B)
{
    const spu_net *net = e->net;
    const rt_tensor *ti = &net->tensors[n->in[0]], *to = &net->tensors[n->out];
    const float *x = buf[n->in[0]];
    float *y = buf[n->out];
    const size_t ni = ti->numel * B;
    switch (n->kind) {
    case RT_FLATTEN:
        memcpy(y, x, ni * sizeof *x);
        return 0;
    case RT_RELU:
        if (n->fused_relu < 0)  /* the GEMM before applied it (on the device, or fp32) */
            memcpy(y, x, ni * sizeof *x);
        else if (e->vec && n->vec_relu)
            return run_vec_relu(e, n, x, ni);
        else
            spu_op_relu(x, y, ni);
        return 0;
    case RT_GELU:
        spu_op_gelu(x, y, ni);
        return 0;
    case RT_SOFTMAX:
        spu_op_softmax(x, y, ni / n->D, n->D);
        return 0;
    case RT_LAYERNORM:
        spu_op_layernorm(x, y, ni / n->D, n->D, n->gamma, n->beta, n->eps);
        return 0;
    case RT_ADD: {
        const float *x2 = buf[n->in[1]];
        for (size_t i = 0; i < ni; i++)
            y[i] = x[i] + x2[i];
        return 0;
    }
    case RT_MAXPOOL:
        for (size_t b = 0; b < B; b++)
            spu_op_maxpool2d(x + b * ti->numel, y + b * to->numel, ti->shape[0], ti->shape[1],
                             ti->shape[2], n->k, n->stride);
        return 0;
    case RT_TOKEN_MEAN: {
        const size_t T = ti->shape[0], D = ti->shape[1];
        for (size_t b = 0; b < B; b++)
            for (size_t d = 0; d < D; d++) {
                float s = 0.0f;
                for (size_t t = 0; t < T; t++)
                    s += x[(b * T + t) * D + d];
                y[b * D + d] = s / (float)T;
            }
        return 0;
    }
    case RT_DENSE:
        return gemm_w_q(e, &n->g[0], n->in_scale, x, e->vec && n->q_pre ? e->q[n->in[0]] : NULL,
                        ni / n->g[0].K, y, n->fused_relu > 0);
    case RT_CONV2D: case RT_PATCH:
        return run_conv(e, n, x, B, y);
    case RT_ATTENTION:
        if (e->vec && n->s_scale > 0.0f && e->info.word_bytes && n->T % e->info.word_bytes == 0)
            return run_attention_vec(e, n, x, B, y);
        return run_attention(e, n, x, B, y);
    default:
        return SPU_EINVAL;
    }
}


/* ---- the int8 chain (chain.c; docs/runtime.md "Int8 chain") ------------------ */

static void account_vec(ectx *e, const spu_vec_stats *vs, const int8_t *q, size_t n)
{
    if (!e->st)
        return;
    spu_net_node_stats *ns = &e->st->node[e->node];
    ns->cycles += vs->cycles;
    ns->link_bytes += vs->link_bytes;
    e->st->cycles += vs->cycles;
    e->st->link_bytes += vs->link_bytes;
    uint64_t h = e->st->result_hash;          /* the device's codes, in order */
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)q[i];
        h *= 0x100000001b3ull;
    }
    e->st->result_hash = h;
}

/* One GEMM node of the chain: codes in (HWC), codes out (HWC) through the
 * output pipeline, or (the last) int32 sums dequantized into logits. */
static int chain_gemm(ectx *e, const rt_node *n, const int8_t *x, size_t B, int8_t *y, float *logits)
{
    const spu_net *net = e->net;
    const size_t N = n->g[0].N, K = n->g[0].K;
    size_t M = B;
    int8_t *cols = NULL;
    const int8_t *A = x;
    if (rt_conv_on_device(net, n, e->fmt, &e->info)) {
        /* the device: taps accumulated in the array from the HWC codes
         * (firmware/conv_tap.s; docs/runtime.md "Convolution on the device") */
        const int f = e->fmt == SPU_NET_E4M3 ? RT_F8_E4M3 : RT_F8_E5M2, f8 = e->fmt != SPU_NET_INT8;
        const unsigned dt = net_formats[e->fmt].dtype;
        const spu_gemm_epilogue epi = { dt, n->fused_relu > 0, 0, f8 ? 0 : n->ch_shift, 0,
                                        f8 ? n->ch_biasf[f] : n->ch_bias };
        spu_gemm_stats gs = { 0 };
        const int rc = spu_conv2d_hwc(e->dev, dt, &epi, (uint32_t)B, (uint32_t)n->H, (uint32_t)n->W,
                                      (uint32_t)n->C, (uint32_t)n->k, (uint32_t)n->pad, x, (uint32_t)N,
                                      f8 ? (const void *)n->ch_wf[f] : (const void *)n->ch_wq, y, &gs);
        if (!rc) {
            account(e, &gs, NULL, 0);
            account_vec(e, &(spu_vec_stats){ 0 }, y, B * n->OH * n->OW * N);
        }
        return rc;
    }
    if (n->kind == RT_CONV2D) {             /* host: im2col of the HWC codes, K in (c, kh, kw) order */
        const size_t C = n->C, H = n->H, W = n->W, P = n->OH * n->OW;
        M = B * P;
        if (!(cols = malloc(M * K)))
            return SPU_ENOMEM;
        for (size_t b = 0; b < B; b++)
            for (size_t oh = 0; oh < n->OH; oh++)
                for (size_t ow = 0; ow < n->OW; ow++) {
                    int8_t *r = cols + ((b * n->OH + oh) * n->OW + ow) * K;
                    for (size_t c = 0; c < C; c++)
                        for (size_t kh = 0; kh < n->k; kh++)
                            for (size_t kw = 0; kw < n->kw; kw++) {
                                const long ih = (long)(oh * n->stride + kh) - (long)n->pad;
                                const long iw = (long)(ow * n->stride + kw) - (long)n->pad;
                                *r++ = ih < 0 || iw < 0 || ih >= (long)H || iw >= (long)W
                                           ? 0
                                           : x[((b * H + (size_t)ih) * W + (size_t)iw) * C + c];
                            }
                }
        A = cols;
    }
    spu_gemm_stats gs;
    int rc;
    const int f = e->fmt == SPU_NET_E4M3 ? RT_F8_E4M3 : RT_F8_E5M2, f8 = e->fmt != SPU_NET_INT8;
    const unsigned dt = net_formats[e->fmt].dtype;
    const void *Wq = f8 ? (const void *)n->ch_wf[f] : (const void *)n->ch_wq;
    const double *bias = f8 ? n->ch_biasf[f] : n->ch_bias;
    if (n->ch_last) {
        int32_t *acc = malloc(M * N * sizeof *acc);     /* int32 sums, or f32 (FP8) */
        const spu_gemm_epilogue epi = { f8 ? RT_DT_F32 : RT_DT_INT32, 0, 0, 0, 0, bias };
        rc = acc ? spu_gemm_epi(e->dev, dt, &epi, (uint32_t)M, (uint32_t)N, (uint32_t)K, A, Wq, acc, NULL, &gs)
                 : SPU_ENOMEM;
        if (!rc) {
            account(e, &gs, acc, M * N);
            const float *deq = f8 ? n->ch_deqf[f] : n->ch_deq;
            for (size_t i = 0; i < M; i++)  /* the output boundary: logits = acc * s_w'[n] */
                for (size_t o = 0; o < N; o++) {
                    float v;
                    if (f8)
                        memcpy(&v, &acc[i * N + o], sizeof v);
                    else
                        v = (float)acc[i * N + o];
                    logits[i * N + o] = v * deq[o];
                }
        }
        free(acc);
    } else {
        const spu_gemm_epilogue epi = { dt, n->fused_relu > 0, 0, f8 ? 0 : n->ch_shift, 0, bias };
        rc = spu_gemm_epi(e->dev, dt, &epi, (uint32_t)M, (uint32_t)N, (uint32_t)K, A, Wq, y, NULL, &gs);
        if (!rc) {
            account(e, &gs, NULL, 0);
            account_vec(e, &(spu_vec_stats){ 0 }, y, M * N);
        }
    }
    (void)net;
    free(cols);
    return rc;
}

static int run_batch_chain(ectx *e, const float *images, size_t B, float *logits)
{
    const spu_net *net = e->net;
    int8_t **q = calloc(net->ntensors, sizeof *q);
    int rc = q ? 0 : SPU_ENOMEM;
    for (size_t i = 0; !rc && i < net->ntensors; i++)
        if (!(q[i] = malloc(net->tensors[i].numel * B)))
            rc = SPU_ENOMEM;
    if (!rc) {          /* the input boundary: pixel/255 -> codes, [C][H][W] -> [H][W][C] */
        const size_t C = net->ch_C[0], HW = net->ch_H[0] * net->ch_W[0], isz = C * HW;
        int8_t *t = malloc(isz);
        if (!t)
            rc = SPU_ENOMEM;
        for (size_t b = 0; !rc && b < B; b++) {
            if (e->fmt == SPU_NET_INT8)
                spu_op_quantize(images + b * isz, t, isz, net->ch_in_scale);
            else
                rc = quantize_f8(e, images + b * isz, (uint8_t *)t, isz,
                                 net->ch_in_scalef[e->fmt == SPU_NET_E4M3 ? RT_F8_E4M3 : RT_F8_E5M2]);
            for (size_t c = 0; c < C; c++)
                for (size_t p = 0; p < HW; p++)
                    q[0][b * isz + p * C + c] = t[c * HW + p];
        }
        free(t);
    }
    for (size_t i = 0; !rc && i < net->nnodes; i++) {
        const rt_node *n = &net->nodes[i];
        const int a = n->in[0], o = n->out;
        const size_t ni = net->tensors[a].numel * B;
        e->node = i;
        switch (n->kind) {
        case RT_FLATTEN: case RT_RELU:  /* a view; a fused relu ran in the GEMM's output pipeline */
            memcpy(q[o], q[a], ni);
            break;
        case RT_MAXPOOL: {              /* the vector unit; B images stacked as B*H rows */
            spu_vec_stats vs = { 0 };
            rc = spu_vec_maxpool2_hwc(e->dev, q[a], net->ch_C[a], B * net->ch_H[a], net->ch_W[a], q[o], &vs);
            if (!rc)
                account_vec(e, &vs, q[o], net->tensors[o].numel * B);
            break;
        }
        default:
            rc = chain_gemm(e, n, q[a], B, q[o], logits);
        }
    }
    if (q)
        for (size_t i = 0; i < net->ntensors; i++)
            free(q[i]);
    free(q);
    return rc;
}

/* Does the chain run this node as a convolution on the device
 * (spu_conv2d_hwc), with no im2col on the host? */
int rt_conv_on_device(const spu_net *net, const rt_node *n, spu_net_format fmt, const spu_info_t *info)
{
    const char *env = getenv("SPU_INFER_HOST_IM2COL");     /* before/after measurements, tests */
    if (env && *env && strcmp(env, "0"))
        return 0;
    return n->kind == RT_CONV2D && !n->ch_last && n->stride == 1 && n->k == n->kw &&
           rt_chain_planned(net, fmt) &&
           spu_conv2d_hwc_supported(info, net_formats[fmt].dtype, (uint32_t)n->C, (uint32_t)n->k,
                                    (uint32_t)n->g[0].N);
}

/* Can the chain run on this device? The plan exists (chain.c) for the
 * run's format, the device has the vector unit and bias registers, every GEMM's K
 * fits one scratchpad piece (int8 outputs need the whole sum), every pool's
 * C is a multiple of the word. */
int rt_chain_fits(const spu_net *net, spu_net_format fmt, const spu_info_t *info)
{
    if (!rt_chain_planned(net, fmt) || !(info->features & SPU_FEATURE_VECTOR) ||
        !(info->formats & ~(1u << RT_DT_INT8)) || !(info->formats & (1u << net_formats[fmt].dtype)))
        return 0;
    for (size_t i = 0; i < net->nnodes; i++) {
        const rt_node *n = &net->nodes[i];
        spu_gemm_plan p;
        if ((n->kind == RT_DENSE || n->kind == RT_CONV2D) &&
            (spu_gemm_plan_make(info, 64, (uint32_t)n->g[0].N, (uint32_t)n->g[0].K, &p) || p.kc < n->g[0].K))
            return 0;
        if (n->kind == RT_MAXPOOL && (!info->word_bytes || net->ch_C[n->in[0]] % info->word_bytes))
            return 0;
    }
    return 1;
}

static int run_batch(ectx *e, const float *images, size_t B, float *logits)
{
    if (e->chain)
        return run_batch_chain(e, images, B, logits);
    const spu_net *net = e->net;
    float **buf = calloc(net->ntensors, sizeof *buf);
    int rc = buf ? 0 : SPU_ENOMEM;
    for (size_t i = 1; !rc && i < net->ntensors; i++)
        if (!(buf[i] = malloc(net->tensors[i].numel * B * sizeof **buf)))
            rc = SPU_ENOMEM;
    if (!rc && e->vec && !(e->q = calloc(net->ntensors, sizeof *e->q)))
        rc = SPU_ENOMEM;
    if (!rc) {
        buf[0] = (float *)images;
        for (size_t i = 0; !rc && i < net->nnodes; i++) {
            e->node = i;
            rc = run_node(e, &net->nodes[i], buf, B);
        }
        if (!rc)
            memcpy(logits, buf[net->output], net->tensors[net->output].numel * B * sizeof *logits);
    }
    if (buf)
        for (size_t i = 1; i < net->ntensors; i++)
            free(buf[i]);
    free(buf);
    if (e->q)
        for (size_t i = 0; i < net->ntensors; i++)
            free(e->q[i]);
    free(e->q);
    e->q = NULL;
    return rc;
}

/* Images per batch: the GEMMs' M grows with it (fewer device runs per image),
 * memory stays small. */
#define RT_BATCH 64

static int run_all(ectx *e, const float *images, size_t n, float *logits)
{
    if (!e->net || (n && (!images || !logits)))
        return SPU_EINVAL;
    const size_t isz = spu_net_input_size(e->net), osz = spu_net_output_size(e->net);
    for (size_t i = 0; i < n; i += RT_BATCH) {
        const size_t B = n - i < RT_BATCH ? n - i : RT_BATCH;
        int rc = run_batch(e, images + i * isz, B, logits + i * osz);
        if (rc)
            return rc;
        if (e->st)
            e->st->images += B;
    }
    return 0;
}

int spu_net_run_fp32(const spu_net *net, const float *images, size_t n, float *logits)
{
    ectx e = { .net = net };
    return run_all(&e, images, n, logits);
}

int spu_net_run(const spu_net *net, spu_device *dev, spu_net_format fmt, const float *images,
                size_t n, float *logits, spu_net_stats *st)
{
    if (!dev || ((unsigned)fmt >= SPU_NET_FORMATS && !is_generic(fmt)))
        return SPU_EINVAL;
    if (st && st->nnodes != spu_net_nodes(net))
        return SPU_EINVAL;
    ectx e = { .net = net, .dev = dev, .st = st, .fmt = fmt };
    int rc = spu_info(dev, &e.info);
    if (rc)
        return rc;
    if (!(e.info.formats & (1u << spu_net_format_dtype(fmt))))
        return SPU_ENOTSUP;     /* the device does not carry the format (INFO) */
    e.vec = fmt == SPU_NET_INT8 && (e.info.features & SPU_FEATURE_VECTOR);
    e.chain = rt_chain_fits(net, fmt, &e.info);
    return run_all(&e, images, n, logits);
}

int spu_net_run_int8(const spu_net *net, spu_device *dev, const float *images, size_t n,
                     float *logits, spu_net_stats *st)
{
    return spu_net_run(net, dev, SPU_NET_INT8, images, n, logits, st);
}

int spu_net_stats_init(spu_net_stats *st, const spu_net *net)
{
    if (!st || !net)
        return SPU_EINVAL;
    memset(st, 0, sizeof *st);
    st->result_hash = 0xcbf29ce484222325ull;
    st->nnodes = net->nnodes;
    st->node = calloc(net->nnodes, sizeof *st->node);
    return st->node ? 0 : SPU_ENOMEM;
}

void spu_net_stats_free(spu_net_stats *st)
{
    if (!st)
        return;
    free(st->node);
    memset(st, 0, sizeof *st);
}
