/*
 * ops.c -- the host-side kernels of the model runner, plain C on floats.
 * They serve the fp32 reference path and every op of the int8 path that the
 * device does not run yet (docs/runtime.md, "Op lowering"). Each is a
 * straightforward loop whose float operation order is fixed, so two runs on
 * the same inputs give the same bits.
 */
#include "spu/runtime.h"

#include <math.h>
#include <string.h>

void spu_op_relu(const float *x, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void spu_op_gelu(const float *x, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = 0.5f * x[i] * (1.0f + erff(x[i] * 0.70710678118654752f));
}

void spu_op_softmax(const float *x, float *out, size_t rows, size_t len)
{
    for (size_t r = 0; r < rows; r++) {
        const float *a = x + r * len;
        float *o = out + r * len;
        float m = a[0];
        for (size_t i = 1; i < len; i++)
            if (a[i] > m)
                m = a[i];
        float s = 0.0f;
        for (size_t i = 0; i < len; i++) {
            o[i] = expf(a[i] - m);
            s += o[i];
        }
        const float inv = 1.0f / s;
        for (size_t i = 0; i < len; i++)
            o[i] *= inv;
    }
}

void spu_op_layernorm(const float *x, float *out, size_t rows, size_t len,
                      const float *gamma, const float *beta, float eps)
{
    for (size_t r = 0; r < rows; r++) {
        const float *a = x + r * len;
        float *o = out + r * len;
        float mean = 0.0f;
        for (size_t i = 0; i < len; i++)
            mean += a[i];
        mean /= (float)len;
        float var = 0.0f;
        for (size_t i = 0; i < len; i++)
            var += (a[i] - mean) * (a[i] - mean);
        var /= (float)len;
        const float inv = 1.0f / sqrtf(var + eps);
        for (size_t i = 0; i < len; i++)
            o[i] = (a[i] - mean) * inv * gamma[i] + beta[i];
    }
}

void spu_op_maxpool2d(const float *x, float *out, size_t C, size_t H, size_t W, size_t k, size_t s)
{
    const size_t OH = (H - k) / s + 1, OW = (W - k) / s + 1;
    for (size_t c = 0; c < C; c++)
        for (size_t oh = 0; oh < OH; oh++)
            for (size_t ow = 0; ow < OW; ow++) {
                const float *p = x + (c * H + oh * s) * W + ow * s;
                float m = p[0];
                for (size_t i = 0; i < k; i++)
                    for (size_t j = 0; j < k; j++)
                        if (p[i * W + j] > m)
                            m = p[i * W + j];
                out[(c * OH + oh) * OW + ow] = m;
            }
}

void spu_op_im2col(const float *x, float *out, size_t C, size_t H, size_t W, size_t KH, size_t KW,
                   size_t stride, size_t pad)
{
    const size_t OH = (H + 2 * pad - KH) / stride + 1, OW = (W + 2 * pad - KW) / stride + 1;
    const size_t K = C * KH * KW;
    for (size_t oh = 0; oh < OH; oh++)
        for (size_t ow = 0; ow < OW; ow++) {
            float *row = out + (oh * OW + ow) * K;
            for (size_t c = 0; c < C; c++)
                for (size_t i = 0; i < KH; i++)
                    for (size_t j = 0; j < KW; j++) {
                        const long h = (long)(oh * stride + i) - (long)pad;
                        const long w = (long)(ow * stride + j) - (long)pad;
                        *row++ = (h < 0 || w < 0 || h >= (long)H || w >= (long)W)
                                     ? 0.0f : x[(c * H + (size_t)h) * W + (size_t)w];
                    }
        }
}

void spu_op_quantize(const float *x, int8_t *q, size_t n, float scale)
{
    const float inv = 1.0f / scale;
    for (size_t i = 0; i < n; i++) {
        float v = rintf(x[i] * inv);          /* round half to even (default mode) */
        if (!(v >= -127.0f))                  /* also catches NaN */
            v = -127.0f;
        if (v > 127.0f)
            v = 127.0f;
        q[i] = (int8_t)v;
    }
}

size_t spu_argmax(const float *v, size_t n)
{
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (v[i] > v[best])
            best = i;
    return best;
}
