// The host-op kernels of the runner, each against a plain double-precision
// reference written here (no shared code).
#include "spu/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace {
std::vector<float> ramp(size_t n, float a, float b, uint32_t seed = 1)
{
    std::vector<float> v(n);
    uint32_t s = seed;
    for (auto &x : v) {
        s = s * 1664525u + 1013904223u;
        x = a + (b - a) * (float)(s >> 8) / (float)(1u << 24);
    }
    return v;
}
} // namespace

TEST(Ops, ReluAndGelu)
{
    auto x = ramp(1000, -6, 6);
    std::vector<float> r(x.size()), g(x.size());
    spu_op_relu(x.data(), r.data(), x.size());
    spu_op_gelu(x.data(), g.data(), x.size());
    for (size_t i = 0; i < x.size(); i++) {
        EXPECT_EQ(r[i], x[i] > 0 ? x[i] : 0.0f);
        const double ref = 0.5 * x[i] * (1.0 + std::erf(x[i] / std::sqrt(2.0)));
        EXPECT_NEAR(g[i], ref, 1e-6 + 1e-6 * std::fabs(ref)) << x[i];
    }
}

TEST(Ops, SoftmaxRows)
{
    const size_t R = 7, L = 33;
    auto x = ramp(R * L, -30, 30);
    x[5] = 80.0f;   // large values must not overflow (max is subtracted)
    std::vector<float> y(R * L);
    spu_op_softmax(x.data(), y.data(), R, L);
    for (size_t r = 0; r < R; r++) {
        double m = -1e300, s = 0;
        for (size_t i = 0; i < L; i++)
            m = std::max(m, (double)x[r * L + i]);
        for (size_t i = 0; i < L; i++)
            s += std::exp(x[r * L + i] - m);
        for (size_t i = 0; i < L; i++)
            EXPECT_NEAR(y[r * L + i], std::exp(x[r * L + i] - m) / s, 1e-6);
    }
}

TEST(Ops, LayerNorm)
{
    const size_t R = 5, L = 64;
    auto x = ramp(R * L, -3, 5), g = ramp(L, 0.5, 1.5, 2), b = ramp(L, -1, 1, 3);
    std::vector<float> y(R * L);
    spu_op_layernorm(x.data(), y.data(), R, L, g.data(), b.data(), 1e-5f);
    for (size_t r = 0; r < R; r++) {
        double mu = 0, var = 0;
        for (size_t i = 0; i < L; i++)
            mu += x[r * L + i];
        mu /= L;
        for (size_t i = 0; i < L; i++)
            var += (x[r * L + i] - mu) * (x[r * L + i] - mu);
        var /= L;
        for (size_t i = 0; i < L; i++) {
            const double ref = (x[r * L + i] - mu) / std::sqrt(var + 1e-5) * g[i] + b[i];
            EXPECT_NEAR(y[r * L + i], ref, 1e-5);
        }
    }
}

TEST(Ops, MaxPool)
{
    const size_t C = 3, H = 6, W = 8;
    auto x = ramp(C * H * W, -1, 1);
    std::vector<float> y(C * 3 * 4);
    spu_op_maxpool2d(x.data(), y.data(), C, H, W, 2, 2);
    for (size_t c = 0; c < C; c++)
        for (size_t i = 0; i < 3; i++)
            for (size_t j = 0; j < 4; j++) {
                float m = -1e9f;
                for (size_t a = 0; a < 2; a++)
                    for (size_t b = 0; b < 2; b++)
                        m = std::max(m, x[(c * H + 2 * i + a) * W + 2 * j + b]);
                EXPECT_EQ(y[(c * 3 + i) * 4 + j], m);
            }
}

// conv2d as im2col x W^T against a direct convolution loop
TEST(Ops, Im2colConvolutionMatchesDirect)
{
    const size_t C = 2, H = 7, W = 5, OC = 3, K = 3, S = 2, P = 1;
    const size_t OH = (H + 2 * P - K) / S + 1, OW = (W + 2 * P - K) / S + 1;
    auto x = ramp(C * H * W, -1, 1), w = ramp(OC * C * K * K, -1, 1, 9);
    std::vector<float> cols(OH * OW * C * K * K);
    spu_op_im2col(x.data(), cols.data(), C, H, W, K, K, S, P);
    for (size_t oc = 0; oc < OC; oc++)
        for (size_t oh = 0; oh < OH; oh++)
            for (size_t ow = 0; ow < OW; ow++) {
                double direct = 0, viacols = 0;
                for (size_t c = 0; c < C; c++)
                    for (size_t i = 0; i < K; i++)
                        for (size_t j = 0; j < K; j++) {
                            long h = (long)(oh * S + i) - (long)P, ww = (long)(ow * S + j) - (long)P;
                            if (h >= 0 && ww >= 0 && h < (long)H && ww < (long)W)
                                direct += (double)x[(c * H + h) * W + ww] * w[((oc * C + c) * K + i) * K + j];
                        }
                for (size_t k = 0; k < C * K * K; k++)
                    viacols += (double)cols[(oh * OW + ow) * C * K * K + k] * w[oc * C * K * K + k];
                EXPECT_NEAR(viacols, direct, 1e-9);
            }
}

TEST(Ops, QuantizeRoundsHalfToEvenAndSaturates)
{
    const float x[] = { 0.5f, 1.5f, 2.5f, -0.5f, -1.5f, 126.5f, 200.0f, -300.0f, 0.49f, NAN };
    const int8_t want[] = { 0, 2, 2, 0, -2, 126, 127, -127, 0, -127 };
    int8_t q[10];
    spu_op_quantize(x, q, 10, 1.0f);
    for (int i = 0; i < 10; i++)
        EXPECT_EQ(q[i], want[i]) << "x = " << x[i];
    const float y[] = { 0.25f, -0.75f };
    spu_op_quantize(y, q, 2, 0.5f);
    EXPECT_EQ(q[0], 0);    // 0.5 -> 0 (even)
    EXPECT_EQ(q[1], -2);   // -1.5 -> -2
}

TEST(Ops, Argmax)
{
    const float v[] = { 1, 5, 5, -2 };
    EXPECT_EQ(spu_argmax(v, 4), 1u);
    EXPECT_EQ(spu_argmax(v, 1), 0u);
}
