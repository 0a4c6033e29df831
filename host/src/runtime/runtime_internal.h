/*
 * runtime_internal.h -- the model runner's private structures (net.c parses
 * a graph into them, exec.c runs them).
 */
#ifndef SPU_RUNTIME_INTERNAL_H
#define SPU_RUNTIME_INTERNAL_H

#include "spu/npy.h"
#include "spu/runtime.h"

enum rt_kind {
    RT_FLATTEN, RT_DENSE, RT_CONV2D, RT_PATCH, RT_ATTENTION, RT_RELU, RT_GELU,
    RT_SOFTMAX, RT_LAYERNORM, RT_MAXPOOL, RT_ADD, RT_TOKEN_MEAN, RT_OP_COUNT
};

/* A row of the op lowering table. */
typedef struct rt_op_desc {
    int         kind;
    const char *name;       /* "op" in the graph file                        */
    int         nin;        /* inputs                                        */
    int         device;     /* 1: its GEMMs run on the device (spu_gemm*)    */
    const char *host[6];    /* host steps of a device run, NULL-terminated   */
} rt_op_desc;

extern const rt_op_desc rt_ops[RT_OP_COUNT];

/* Weights of one GEMM: out[M][N] = in[M][K] x W^T + bias. */
typedef struct rt_gemm_w {
    size_t  N, K;
    float  *wt;             /* fp32 W^T [K][N]                          */
    int8_t *wq;             /* int8 W^T [K][N]                          */
    float  *ws;             /* per-output-channel weight scale [N]      */
    float  *sc;             /* in_scale * ws[n]: the requant factor [N] */
    float  *bias;           /* [N]                                      */
    /* FP8 (index RT_F8_E4M3, RT_F8_E5M2): codes of W^T [K][N] with a
     * power-of-two scale per output channel (docs/runtime.md) */
    uint8_t *wf[2];         /* FP8 codes of W^T / wsf[n]                */
    float   *wsf[2];        /* per-channel scale, a power of two [N]    */
    float   *scf[2];        /* act scale * wsf[n] (exact: two powers of two) [N] */
} rt_gemm_w;

enum { RT_F8_E4M3, RT_F8_E5M2 };

/* The power of two s with amax / s <= fmax > amax / (2 s): the FP8 scale of a
 * tensor whose largest magnitude is amax (1 for amax = 0). */
float rt_pow2_scale(float amax, float fmax);
/* Largest finite value of the FP8 format (448, 57344). */
float rt_f8_max(int f8);

typedef struct rt_tensor {
    char  *name;
    int    ndim;
    size_t shape[3];
    size_t numel;           /* per image */
} rt_tensor;

typedef struct rt_node {
    int    kind;
    char  *name;
    int    in[2], out;      /* tensor indices */
    /* attributes */
    size_t k, kw, stride, pad, heads;
    size_t C, H, W, OH, OW, T, D;
    float  eps;
    float  in_scale, q_scale, k_scale, v_scale, p_scale, o_scale;
    float  s_scale;         /* attention: calibrated max |score| / 127 (optional, 0: none);
                               with it an int8 run on a vector device runs softmax there */
    /* weights */
    rt_gemm_w g[2];         /* dense/conv/patch: g[0]; attention: qkv g[0], proj g[1] */
    float *gamma, *beta;    /* layernorm */
    float *pos;             /* patch_embed: [T][D] */
    /* dense / conv2d followed by a relu that only it feeds: the device run
     * adds the bias and applies the relu in the output pipeline (st), and
     * the relu node (fused_relu = -1 there) does nothing (docs/runtime.md) */
    int    fused_relu;
    /* host steps "name:step" */
    size_t nhost;
    char  *host_names;
    /* lowering on a device with the vector unit, int8 (docs/runtime.md):
     * vec_relu: this relu runs on the device on the int8 codes its
     * consumers would quantize (vec_scale, their in_scale); q_pre: this
     * dense takes those codes (no quantize of its own) */
    int    vec_relu, q_pre;
    float  vec_scale;
    /* the int8 chain (chain.c; docs/runtime.md "Int8 chain"): this GEMM's
     * weights with the per-channel scales of its input codes folded in, in
     * the device's column order; its output is int8 codes from the output
     * pipeline (shift ch_shift, RNE, bias ch_bias, relu) or, for the last
     * GEMM, int32 sums dequantized by ch_deq[n] */
    int8_t *ch_wq;          /* W'^T [K][N]                              */
    double *ch_bias;        /* [N], on the int32 grid                   */
    float  *ch_deq;         /* [N], the last GEMM only                  */
    unsigned ch_shift;
    int    ch_last;
    /* the same for e4m3 / e5m2 (RT_F8_*): codes of W'^T / a power of two
     * per channel, the bias on that scale, the last GEMM's f32 factor */
    uint8_t *ch_wf[2];
    double  *ch_biasf[2];
    float   *ch_deqf[2];
} rt_node;

struct spu_net {
    char      *name;
    rt_tensor *tensors;     /* [0] is the input */
    size_t     ntensors;
    rt_node   *nodes;
    size_t     nnodes;
    int        output;
    const char **host_list;
    size_t     nhost;
    const char **host_list_vec;  /* the same with the vector unit (int8) */
    size_t     nhost_vec;
    char      *host_vec_names;
    /* the int8 chain (chain.c): every node lowered onto the device with
     * int8 codes between the GEMMs; ch_C/H/W per tensor: its codes are
     * [H][W][C] (channels innermost); ch_in_scale: the input's quantization */
    int        chain, chain_f8;    /* int8; e4m3 and e5m2 */
    size_t    *ch_C, *ch_H, *ch_W;
    float      ch_in_scale;
    float      ch_in_scalef[2];     /* e4m3 / e5m2: a power of two */
    const char **host_list_chain;
    size_t     nhost_chain;
    char      *host_chain_names;
};

/* Plan the int8 chain of a loaded graph (sets net->chain when the graph
 * qualifies; chain.c). Returns 0 or SPU_ENOMEM. */
int  rt_chain_plan(spu_net *net);
void rt_chain_free(spu_net *net);
/* Does a run in fmt on a device with this INFO take the chain? (exec.c) */
int  rt_chain_fits(const spu_net *net, spu_net_format fmt, const spu_info_t *info);
/* Is there a chain plan for fmt (int8: net->chain; e4m3/e5m2: chain_f8;
 * bf16 / MX: none)? */
int  rt_chain_planned(const spu_net *net, spu_net_format fmt);
/* Does the chain run conv2d node n on the device with no host im2col
 * (spu_conv2d_hwc: stride 1, square kernel, the device's geometry)? */
int  rt_conv_on_device(const spu_net *net, const rt_node *n, spu_net_format fmt, const spu_info_t *info);

#endif
