// Networks in the FP8 formats the array carries (e4m3, e5m2): a dense layer
// bit for bit against a reference written here (power-of-two scales, exact
// sum on a 2^-32 grid, one RNE rounding per device call, the device plan's K
// pieces summed in float), on the default 8x8 model and on a 4x4 model with
// an 8 KiB scratchpad (K split); a device whose INFO formats lack the format
// is refused.
#include "spu/gemm.h"
#include "spu/npy.h"
#include "spu/numerics.h"
#include "spu/runtime.h"
#include "rt_test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// the power of two s with amax / s <= fmax, written as a search
double pow2_scale(double amax, double fmax)
{
    if (amax <= 0)
        return 1;
    double s = 1;
    while (amax / s > fmax)
        s *= 2;
    while (amax / (s / 2) <= fmax)
        s /= 2;
    return s;
}

__extension__ typedef __int128 i128;

// One device call of the docs: the exact sum of products of decoded FP8
// values on the 2^-32 grid (every e4m3/e5m2 value is a multiple of 2^-16),
// rounded once to float (GCC's __int128 -> float conversion rounds to nearest
// even).
// bias: an extra term on the 2^-32 grid (the device's bias register)
float exact_dot(const std::vector<double> &a, const std::vector<double> &b, size_t k0, size_t k1, i128 bias = 0)
{
    i128 s = bias;
    for (size_t k = k0; k < k1; k++)
        s += (i128)std::ldexp(a[k], 16) * (i128)std::ldexp(b[k], 16);
    return std::ldexp((float)s, -32);
}

struct Case {
    const char *fmt;          // runtime format name
    spu_fmt nfmt;             // numerics library format
    const char *uri;
};
void PrintTo(const Case &c, std::ostream *os) { *os << c.fmt << " on " << c.uri; }

class DenseFp8 : public ::testing::TestWithParam<Case> {};

} // namespace

TEST_P(DenseFp8, BitExactAgainstReference)
{
    const Case c = GetParam();
    const size_t T = 7, K = 700, N = 19;
    Dir d{"rt_fmt"};
    auto w = rnd(N * K, -0.5, 0.5, 11), b = rnd(N, -0.2, 0.2, 12), x = rnd(T * K, -1, 1, 13);
    for (size_t k = 0; k < K; k += 5)
        w[3 * K + k] *= 1e-3f;                // small values: the subnormal range of the format
    d.npy("w.npy", { N, K }, w);
    d.npy("b.npy", { N }, b);
    const double in_scale = 0.75 / 127;       // calibrated max |x| = 0.75: the rest saturates
    char g[512];
    snprintf(g, sizeof g,
             "{\"format\": \"spu-graph\", \"version\": 1, \"name\": \"t\", \"input\": {\"name\": \"x\", "
             "\"shape\": [7, 700]}, \"output\": \"y\", \"nodes\": [{\"op\": \"dense\", \"name\": \"fc\", "
             "\"inputs\": [\"x\"], \"output\": \"y\", \"weight\": \"w.npy\", \"bias\": \"b.npy\", "
             "\"in_scale\": %.17g}]}", in_scale);
    d.text("g.json", g);
    spu_net *net = nullptr;
    char err[512] = "";
    ASSERT_EQ(spu_net_load(&net, d.path("g.json").c_str(), err, sizeof err), 0) << err;
    const int f = spu_net_format_from_name(c.fmt);
    ASSERT_GE(f, 0);
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, c.uri), 0) << c.uri;
    spu_info_t info;
    ASSERT_EQ(spu_info(dev, &info), 0);
    spu_gemm_plan plan;
    ASSERT_EQ(spu_gemm_plan_make(&info, T, N, K, &plan), 0);
    std::vector<float> y(T * N);
    spu_net_stats st;
    ASSERT_EQ(spu_net_stats_init(&st, net), 0);
    ASSERT_EQ(spu_net_run(net, dev, (spu_net_format)f, x.data(), 1, y.data(), &st), 0);
    const size_t pieces = (K + plan.kc - 1) / plan.kc;
    EXPECT_EQ(st.gemms, pieces);
    EXPECT_EQ(st.macs, T * N * K);

    // the reference: quantize (numerics library, RNE, saturating) after
    // dividing by power-of-two scales, per tensor for x, per row for W
    const double fmax = spu_fmt_get(c.nfmt)->max_value;
    const double sx = pow2_scale((float)in_scale * 127.0f, fmax);
    std::vector<double> xq(T * K), wq(N * K), sw(N);
    for (size_t i = 0; i < T * K; i++)
        xq[i] = spu_num_to_f32(c.nfmt, spu_from_f32(c.nfmt, (float)(x[i] / sx), SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    for (size_t n = 0; n < N; n++) {
        double m = 0;
        for (size_t k = 0; k < K; k++)
            m = std::max(m, (double)std::fabs(w[n * K + k]));
        sw[n] = pow2_scale(m, fmax);
        for (size_t k = 0; k < K; k++)
            wq[n * K + k] = spu_num_to_f32(c.nfmt, spu_from_f32(c.nfmt, (float)(w[n * K + k] / sw[n]),
                                                               SPU_ROUND_RNE, SPU_OVF_SAT, 0));
    }
    size_t saturated = 0;
    for (size_t i = 0; i < T * K; i++)
        saturated += std::fabs(xq[i]) == fmax;
    EXPECT_GT(saturated, 0u);                 // the clamp is exercised
    for (size_t t = 0; t < T; t++)
        for (size_t n = 0; n < N; n++) {
            std::vector<double> a(xq.begin() + t * K, xq.begin() + (t + 1) * K),
                bb(wq.begin() + n * K, wq.begin() + (n + 1) * K);
            // one piece: the bias divided by the (power-of-two) scale goes on
            // the device's 2^-32 grid and into the one rounding (docs/runtime.md);
            // K in pieces: the host adds it after the float sum of the pieces
            const float scale = (float)(sx * sw[n]);
            const i128 bgrid = (i128)std::nearbyint(std::ldexp((double)b[n] / scale, 32));
            float acc = 0;
            for (size_t k0 = 0; k0 < K; k0 += plan.kc)
                acc += exact_dot(a, bb, k0, std::min(K, k0 + (size_t)plan.kc), pieces == 1 ? bgrid : 0);
            const float want = pieces == 1 ? acc * scale : acc * scale + b[n];
            uint32_t gw, gy;
            memcpy(&gw, &want, 4);
            memcpy(&gy, &y[t * N + n], 4);
            EXPECT_EQ(gy, gw) << c.fmt << " " << c.uri << " t=" << t << " n=" << n << ": " << y[t * N + n]
                              << " vs " << want;
        }
    spu_net_stats_free(&st);
    spu_close(dev);
    spu_net_free(net);
}

INSTANTIATE_TEST_SUITE_P(
    Formats, DenseFp8,
    ::testing::Values(Case{ "e4m3", SPU_FMT_E4M3, "model" }, Case{ "e5m2", SPU_FMT_E5M2, "model" },
                      // a 4x4 array with 8 KiB of scratchpad: K = 700 needs two pieces
                      Case{ "e4m3", SPU_FMT_E4M3, "model?rows=4&cols=4&spad=8192&banks=2&ucode=256&lanes=1&formats=13" },
                      Case{ "e5m2", SPU_FMT_E5M2, "model?rows=4&cols=4&spad=8192&banks=2&ucode=256&lanes=1&formats=13" }),
    [](const ::testing::TestParamInfo<Case> &i) {
        return std::string(i.param.fmt) + (strchr(i.param.uri, '?') ? "_small" : "_8x8");
    });

TEST(NetFormats, NamesAndDtypes)
{
    EXPECT_EQ(spu_net_format_from_name("int8"), SPU_NET_INT8);
    EXPECT_EQ(spu_net_format_from_name("e4m3"), SPU_NET_E4M3);
    EXPECT_EQ(spu_net_format_from_name("e5m2"), SPU_NET_E5M2);
    EXPECT_LT(spu_net_format_from_name("fp32"), 0);
    EXPECT_LT(spu_net_format_from_name("int4"), 0);
    EXPECT_STREQ(spu_net_format_name(SPU_NET_E5M2), "e5m2");
    // the model's INFO formats mask has the bit of each
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    spu_info_t info;
    ASSERT_EQ(spu_info(dev, &info), 0);
    for (int f = 0; f < SPU_NET_FORMATS; f++)
        EXPECT_TRUE(info.formats & (1u << spu_net_format_dtype((spu_net_format)f))) << f;
    spu_close(dev);
}

TEST(NetFormats, DeviceWithoutTheFormatIsRefused)
{
    spu_net *net = nullptr;
    char err[512] = "";
    ASSERT_EQ(spu_net_load(&net, SPU_SOURCE_DIR "/models/fmnist-mlp/graph.json", err, sizeof err), 0) << err;
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model?formats=1"), 0);     // int8 only, as the iCE40 boards
    std::vector<float> img(2 * 784, 0.5f), lo(2 * 10);
    EXPECT_EQ(spu_net_run(net, dev, SPU_NET_E4M3, img.data(), 2, lo.data(), nullptr), SPU_ENOTSUP);
    EXPECT_EQ(spu_net_run(net, dev, SPU_NET_E5M2, img.data(), 2, lo.data(), nullptr), SPU_ENOTSUP);
    EXPECT_EQ(spu_net_run(net, dev, SPU_NET_INT8, img.data(), 2, lo.data(), nullptr), 0);
    EXPECT_EQ(spu_net_run(net, dev, (spu_net_format)7, img.data(), 2, lo.data(), nullptr), SPU_EINVAL);
    spu_close(dev);
    spu_net_free(net);
}
