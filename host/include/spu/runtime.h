/*
 * runtime.h -- the model runner: a network is a graph file (JSON) plus .npy
 * weights; libspu runs it on a device, one batch of images at a time.
 *
 * Every GEMM-shaped op (dense, conv2d through im2col, patch embedding, the
 * QK^T and P.V products of attention) runs as a GEMM on the device in the
 * run's format (int8 -> int32 via spu_gemm_i8, e4m3/e5m2 -> f32 via
 * spu_gemm); everything else runs on the host and is named in
 * spu_net_host_ops(). Per op, the lowering table in host/src/runtime/net.c
 * says which (docs/runtime.md). An fp32 path in plain C is the reference the
 * device runs are measured against.
 *
 * Also here: the idx reader for Fashion-MNIST (.gz or plain).
 */
#ifndef SPU_RUNTIME_H
#define SPU_RUNTIME_H

#include "spu/spu.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- data: idx files (Fashion-MNIST) ---------------------------------------- */
typedef struct spu_dataset {
    uint32_t count;          /* images                                  */
    uint32_t rows, cols;     /* 28 x 28                                 */
    uint8_t *images;         /* count * rows * cols, malloc'ed          */
    uint8_t *labels;         /* count, each < 10, malloc'ed             */
} spu_dataset;

/* Read one idx file (gzip-compressed or plain) of unsigned bytes: checks the
 * magic (0x0000 08 NDIM, NDIM = expect_ndim), that the data is exactly the
 * product of the dimensions (truncated or trailing bytes are errors).
 * dims[0..expect_ndim-1] and *data (malloc'ed) are filled. Returns 0,
 * SPU_EIO (cannot open/read) or SPU_EFORMAT, with a one-line reason in err. */
int spu_idx_load(const char *path, int expect_ndim, uint32_t *dims, uint8_t **data,
                 char *err, size_t errcap);

/* Load DIR/SPLIT-images-idx3-ubyte.gz and DIR/SPLIT-labels-idx1-ubyte.gz
 * (SPLIT "train" or "t10k"); checks counts agree, 28x28 images and labels
 * below 10. dir NULL: /usr/share/datasets/fashion-mnist (Debian's
 * dataset-fashion-mnist). Free with spu_dataset_free. */
int  spu_fmnist_load(const char *dir, const char *split, spu_dataset *ds, char *err, size_t errcap);
void spu_dataset_free(spu_dataset *ds);

#define SPU_FMNIST_DEFAULT_DIR "/usr/share/datasets/fashion-mnist"

/* ---- networks ------------------------------------------------------------------- */
typedef struct spu_net spu_net;

/* Parse a graph file and load the .npy weights it names (paths relative to the
 * graph's directory). Checks every op's attributes, weights' shapes against the
 * shapes flowing through the graph, that every input is defined before use.
 * Returns 0, SPU_EIO, SPU_EPARSE (bad JSON) or SPU_EFORMAT (bad graph or
 * weights) with a one-line reason naming the node in err. Free with spu_net_free. */
int  spu_net_load(spu_net **net, const char *graph_path, char *err, size_t errcap);
void spu_net_free(spu_net *net);

const char *spu_net_name(const spu_net *net);
/* Elements of one input image (C*H*W) and of the output (classes). */
size_t spu_net_input_size(const spu_net *net);
size_t spu_net_output_size(const spu_net *net);
/* Nodes in the graph; name and op of node i (NULL if out of range). */
size_t      spu_net_nodes(const spu_net *net);
const char *spu_net_node_name(const spu_net *net, size_t i);
const char *spu_net_node_op(const spu_net *net, size_t i);
/* 1 if node i runs (its GEMMs) on the device, 0 if wholly on the host. */
int         spu_net_node_on_device(const spu_net *net, size_t i);

/* The host steps of an int8 run, in graph order, "node:step" (e.g.
 * "fc1:quantize", "fc1:requant", "relu1:relu"). Returns the count; fills up
 * to cap pointers (owned by net). */
size_t spu_net_host_ops(const spu_net *net, const char **names, size_t cap);

/* Per-node cost of an int8 run, summed over every call since the stats were
 * zeroed. */
typedef struct spu_net_node_stats {
    uint64_t cycles;         /* device cycles of the node's GEMMs       */
    uint64_t link_bytes;     /* link bytes both ways                    */
    uint64_t macs;           /* M*N*K summed over its GEMMs             */
    uint64_t gemms;          /* spu_gemm_i8 calls                       */
} spu_net_node_stats;

typedef struct spu_net_stats {
    uint64_t cycles, link_bytes, macs, gemms;
    uint64_t images;
    uint64_t result_hash;    /* FNV-1a 64 over every GEMM result (int32 or f32 bits), in order */
    size_t   nnodes;
    spu_net_node_stats *node; /* nnodes entries, owned by the stats     */
} spu_net_stats;

/* Zeroed stats sized for net (free with spu_net_stats_free). */
int  spu_net_stats_init(spu_net_stats *st, const spu_net *net);
void spu_net_stats_free(spu_net_stats *st);

/* fp32 reference: n images (each spu_net_input_size floats, pixel/255) ->
 * n * spu_net_output_size logits. Returns 0 or SPU_ENOMEM. */
int spu_net_run_fp32(const spu_net *net, const float *images, size_t n, float *logits);

/* int8 run on dev: every GEMM on the device, the rest on the host. Adds the
 * costs to st (may be NULL). The result depends only on the GEMMs' int32
 * results, so two devices that agree bit for bit give the same logits.
 * Returns 0 or the first error of spu_gemm_i8 (SPU_ETRAP, link errors). */
int spu_net_run_int8(const spu_net *net, spu_device *dev, const float *images, size_t n,
                     float *logits, spu_net_stats *st);

/* The formats a network runs in on a device: the GEMM operands' dtype (the
 * device's cfg in); see docs/runtime.md "Quantization". */
typedef enum spu_net_format {
    SPU_NET_INT8,            /* int8 x int8 -> int32 sums, requant on the host   */
    SPU_NET_E4M3,            /* OCP FP8 e4m3, exact sums rounded once to f32     */
    SPU_NET_E5M2,            /* OCP FP8 e5m2, same                               */
    SPU_NET_FORMATS
} spu_net_format;
/* The other formats the device's dtype table carries (hw/isa/spu_cfg.def,
 * "supported by the array"): bf16 and the MX formats the numerics library
 * quantizes (every row spu_mx_from_name knows), as SPU_NET_DTYPE(cfg code);
 * spu_net_format_from_name("bf16" | "mxfp8_e4m3" | ...) returns them. They
 * take the per-op path: each GEMM's operands quantized on the host (bf16 by
 * RNE; MX per 32-element block along K by spu_mx_quantize, the scales in the
 * mm stream as spu_gemm_mx), f32 results, the bias on the host. */
#define SPU_NET_DTYPE_BASE 0x100
#define SPU_NET_DTYPE(code) ((spu_net_format)(SPU_NET_DTYPE_BASE + (code)))

/* The same for a run in fmt on a device with this INFO (what `spu infer
 * --layers` prints): the int8 chain's pools (vector unit) and flatten (a
 * view: the next GEMM's column order) and a relu on the vector unit count
 * as the device's. */
int         spu_net_node_on_device_dev(const spu_net *net, size_t i, spu_net_format fmt,
                                       const spu_info_t *info);

/* "int8" "e4m3" "e5m2" (or "?") and back (SPU_EINVAL for another name). */
const char *spu_net_format_name(spu_net_format f);
int         spu_net_format_from_name(const char *name);
/* The dtype code (hw/isa/spu_cfg.def) of the format's GEMM operands: bit
 * (1 << code) of spu_info_t.formats says whether a device carries it. */
unsigned    spu_net_format_dtype(spu_net_format f);

/* The run in format fmt on dev: every GEMM on the device, the rest on the
 * host. SPU_ENOTSUP if the device's INFO formats lack fmt; otherwise as
 * spu_net_run_int8. For e4m3/e5m2 result_hash covers the f32 GEMM results. */
int spu_net_run(const spu_net *net, spu_device *dev, spu_net_format fmt, const float *images,
                size_t n, float *logits, spu_net_stats *st);

/* The host steps of a run in format fmt on a device with INFO `features`:
 * with the vector unit (SPU_FEATURE_VECTOR) and int8, the relu nodes whose
 * readers are dense layers run on the device (docs/runtime.md "Op lowering
 * table"); otherwise spu_net_host_ops. Same ownership and count rules. */
size_t spu_net_host_ops_on(const spu_net *net, spu_net_format fmt, uint32_t features,
                           const char **names, size_t cap);
/* The host steps of a run in fmt on a device with this INFO (its features
 * and its geometry: the int8 chain needs every GEMM's K in one scratchpad
 * piece and every pool's C a multiple of the word, docs/runtime.md "Int8
 * chain"); what spu_net_run does on that device. */
size_t spu_net_host_ops_dev(const spu_net *net, spu_net_format fmt, const spu_info_t *info,
                            const char **names, size_t cap);

/* Index of the largest of n values (the first on ties). */
size_t spu_argmax(const float *v, size_t n);

/* ---- host-op kernels (plain C, public so they can be tested one by one) ---- */
/* out[i] = max(x[i], 0) */
void spu_op_relu(const float *x, float *out, size_t n);
/* GELU with erf (PyTorch's default): 0.5 x (1 + erf(x / sqrt 2)) */
void spu_op_gelu(const float *x, float *out, size_t n);
/* softmax over each of rows rows of len values (max-subtracted, float) */
void spu_op_softmax(const float *x, float *out, size_t rows, size_t len);
/* layernorm over each row: (x - mean) / sqrt(var + eps) * gamma + beta,
 * biased variance as PyTorch. */
void spu_op_layernorm(const float *x, float *out, size_t rows, size_t len,
                      const float *gamma, const float *beta, float eps);
/* max pooling of [C][H][W] with a k x k window and stride s (no padding) */
void spu_op_maxpool2d(const float *x, float *out, size_t C, size_t H, size_t W, size_t k, size_t s);
/* im2col of [C][H][W] for a KHxKW kernel, stride, zero padding: out is
 * [OH*OW][C*KH*KW], column order (c, kh, kw) as a PyTorch weight [OC][C][KH][KW]. */
void spu_op_im2col(const float *x, float *out, size_t C, size_t H, size_t W, size_t KH, size_t KW,
                   size_t stride, size_t pad);
/* Symmetric int8 quantization: q = clamp(rne(x / scale), -127, 127). */
void spu_op_quantize(const float *x, int8_t *q, size_t n, float scale);

#ifdef __cplusplus
}
#endif
#endif
