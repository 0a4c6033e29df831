/*
 * perf_transformer.c -- roofline of a decoder transformer's prefill and
 * decode phases from a Hugging Face style config (docs/perf-model.md
 * "Transformer roofline"): per operator FLOPs, bytes, intensity, time and
 * bound on any hardware file, KV cache included.
 */
#include "spu/perf.h"
#include "perf_internal.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const struct { const char *name; double bytes; const char *family; } fmts[] = {
    { "int8", 1, "int8" },          { "int4", 0.5, "int4" },
    { "fp8", 1, "fp8" },            { "e4m3", 1, "fp8" },          { "e5m2", 1, "fp8" },
    { "bf16", 2, "bf16" },          { "fp16", 2, "fp16" },          { "f16", 2, "fp16" },
    { "fp32", 4, "fp32" },          { "f32", 4, "fp32" },
    { "mxfp8", 33.0 / 32, "fp8" },  { "mxfp8_e4m3", 33.0 / 32, "fp8" }, { "mxfp8_e5m2", 33.0 / 32, "fp8" },
    { "mxfp6", 25.0 / 32, "fp8" },  { "mxfp4", 17.0 / 32, "fp4" },  { "mxfp4_e2m1", 17.0 / 32, "fp4" },
};

static int fmt_index(const char *f)
{
    for (size_t i = 0; f && i < sizeof fmts / sizeof fmts[0]; i++)
        if (!strcmp(fmts[i].name, f))
            return (int)i;
    return -1;
}

double spu_perf_fmt_bytes(const char *fmt)
{
    int i = fmt_index(fmt);
    return i < 0 ? 0 : fmts[i].bytes;
}

/* Peak for computing in fmt: the format itself, else its family (e4m3 ->
 * fp8), bf16 <-> fp16 alike. */
static double peak_for(const spu_perf_hw *hw, const char *fmt)
{
    double p = spu_perf_hw_peak(hw, fmt);
    int i = fmt_index(fmt);
    if (p <= 0 && i >= 0)
        p = spu_perf_hw_peak(hw, fmts[i].family);
    if (p <= 0 && i >= 0 && !strcmp(fmts[i].family, "bf16"))
        p = spu_perf_hw_peak(hw, "fp16");
    if (p <= 0 && i >= 0 && !strcmp(fmts[i].family, "fp16"))
        p = spu_perf_hw_peak(hw, "bf16");
    return p;
}


/* First of several HF key spellings that is a positive integer; 0 if none. */
static uint64_t get_u(cJSON *o, const char *const *keys, int *bad)
{
    for (; *keys; keys++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(o, *keys);
        if (!v || cJSON_IsNull(v))   /* GPT-2's n_inner: null */
            continue;
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 1e12 ||
            v->valuedouble != floor(v->valuedouble)) {
            *bad = 1;
            return 0;
        }
        return (uint64_t)v->valuedouble;
    }
    return 0;
}

int spu_perf_tconfig_load(spu_perf_tconfig *c, const char *path, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    char *txt = spu_perf_read_text(path, 1 << 20);
    if (!txt)
        return spu_perf_fail(err, errlen, "cannot read model config '%s'", path);
    cJSON *o = cJSON_Parse(txt);
    free(txt);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        return spu_perf_fail(err, errlen, "%s: not a JSON object", path);
    }
    static const char *const k_h[] = { "hidden_size", "n_embd", "d_model", NULL };
    static const char *const k_l[] = { "num_hidden_layers", "n_layer", "num_layers", NULL };
    static const char *const k_a[] = { "num_attention_heads", "n_head", NULL };
    static const char *const k_kv[] = { "num_key_value_heads", NULL };
    static const char *const k_f[] = { "intermediate_size", "n_inner", "ffn_dim", NULL };
    static const char *const k_v[] = { "vocab_size", NULL };
    int bad = 0;
    c->hidden = get_u(o, k_h, &bad);
    c->layers = get_u(o, k_l, &bad);
    c->heads = get_u(o, k_a, &bad);
    c->kv_heads = get_u(o, k_kv, &bad);
    c->ffn = get_u(o, k_f, &bad);
    c->vocab = get_u(o, k_v, &bad);
    cJSON *mt = cJSON_GetObjectItemCaseSensitive(o, "model_type");
    cJSON *act = cJSON_GetObjectItemCaseSensitive(o, "hidden_act");
    cJSON *nm = cJSON_GetObjectItemCaseSensitive(o, "_name_or_path");
    const char *type = cJSON_IsString(mt) ? mt->valuestring : "";
    snprintf(c->name, sizeof c->name, "%s", cJSON_IsString(nm) ? nm->valuestring : type);
    /* llama, mistral, qwen2, gemma: gated MLP (SiLU/GELU gate x up); gpt2, opt: up, down */
    c->gated_mlp = (cJSON_IsString(act) && (!strcmp(act->valuestring, "silu") ||
                                             !strcmp(act->valuestring, "swiglu"))) ||
                   !strcmp(type, "llama") || !strcmp(type, "mistral") || !strcmp(type, "qwen2") ||
                   !strcmp(type, "gemma");
    cJSON_Delete(o);
    if (bad)
        return spu_perf_fail(err, errlen, "%s: sizes must be positive integers", path);
    if (!c->hidden || !c->layers || !c->heads || !c->vocab)
        return spu_perf_fail(err, errlen, "%s: needs hidden_size (n_embd), num_hidden_layers (n_layer), "
                    "num_attention_heads (n_head) and vocab_size", path);
    if (!c->kv_heads)
        c->kv_heads = c->heads;
    if (!c->ffn)
        c->ffn = 4 * c->hidden;   /* GPT-2: n_inner null means 4 * n_embd */
    if (c->hidden % c->heads || c->heads % c->kv_heads)
        return spu_perf_fail(err, errlen, "%s: hidden_size must divide by the heads, the heads by the KV heads", path);
    return 0;
}

static void add(spu_perf_phase *ph, const char *name, uint64_t count, double flops, double bytes)
{
    spu_perf_op *op = &ph->ops[ph->nops++];
    snprintf(op->name, sizeof op->name, "%s", name);
    op->count = count;
    op->flops = flops * (double)count;
    op->bytes = bytes * (double)count;
}

int spu_perf_transformer(const spu_perf_tconfig *c, const spu_perf_hw *hw, uint64_t batch,
                         uint64_t seq, int decode, const char *wfmt, const char *afmt,
                         const char *kvfmt, spu_perf_phase *ph)
{
    if (!c || !hw || !ph || !batch || !seq || !c->heads || !c->kv_heads)
        return SPU_EINVAL;
    const double wb = spu_perf_fmt_bytes(wfmt), ab = spu_perf_fmt_bytes(afmt),
                 kb = spu_perf_fmt_bytes(kvfmt);
    if (wb <= 0 || ab <= 0 || kb <= 0)
        return SPU_EINVAL;
    const double peak = peak_for(hw, afmt), bw = hw->mem_bytes_per_s;
    if (peak <= 0 || bw <= 0)
        return SPU_ENOTSUP;
    memset(ph, 0, sizeof *ph);
    ph->peak_ops_s = peak;
    const double h = (double)c->hidden, d = h / (double)c->heads, H = (double)c->heads,
                 KV = (double)c->kv_heads * d, F = (double)c->ffn, V = (double)c->vocab,
                 B = (double)batch, S = (double)seq;
    const double T = decode ? B : B * S;        /* tokens through the projections */
    const double Sq = decode ? 1 : S, Sk = S;   /* queries, keys per sequence     */
    const double g = c->gated_mlp ? 2 : 1;
    const uint64_t L = c->layers;
    /* per layer, FLOPs = 2 per multiply-add; bytes = weights once + activations
     * in and out + KV cache read/written */
    add(ph, "attn_norm", L, 5 * T * h, 2 * T * h * ab + h * wb);
    add(ph, "qkv_proj", L, 2 * T * h * (h + 2 * KV),
        h * (h + 2 * KV) * wb + T * h * ab + T * h * ab + 2 * T * KV * kb);
    add(ph, "attn_qk", L, 2 * B * H * Sq * Sk * d,
        B * Sq * h * ab + B * Sk * KV * kb + B * H * Sq * Sk * ab);
    add(ph, "softmax", L, 5 * B * H * Sq * Sk, 2 * B * H * Sq * Sk * ab);
    add(ph, "attn_v", L, 2 * B * H * Sq * Sk * d,
        B * H * Sq * Sk * ab + B * Sk * KV * kb + B * Sq * h * ab);
    add(ph, "o_proj", L, 2 * T * h * h, h * h * wb + 2 * T * h * ab);
    add(ph, "mlp_norm", L, 5 * T * h, 2 * T * h * ab + h * wb);
    add(ph, "mlp_up", L, 2 * T * h * F * g, h * F * g * wb + T * h * ab + T * F * g * ab);
    add(ph, "mlp_act", L, 4 * T * F, (g + 1) * T * F * ab);
    add(ph, "mlp_down", L, 2 * T * F * h, F * h * wb + T * F * ab + T * h * ab);
    add(ph, "final_norm", 1, 5 * T * h, 2 * T * h * ab + h * wb);
    add(ph, "lm_head", 1, 2 * T * h * V, h * V * wb + T * h * ab + T * V * ab);
    for (int i = 0; i < ph->nops; i++) {
        spu_perf_op *op = &ph->ops[i];
        const double tc = op->flops / peak, tm = op->bytes / bw;
        op->intensity = op->flops / op->bytes;
        op->time_s = tc > tm ? tc : tm;
        op->bound = tc >= tm ? "compute" : "memory";
        ph->flops += op->flops;
        ph->bytes += op->bytes;
        ph->time_s += op->time_s;
    }
    ph->kv_cache_bytes = 2.0 * (double)L * B * S * KV * kb;
    ph->weight_bytes = ((double)L * (h * (h + 2 * KV) + h * h + g * h * F + F * h + 2 * h) + h + h * V) * wb;
    ph->tokens = T;
    return 0;
}
