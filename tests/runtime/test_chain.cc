// The int8 chain (host/src/runtime/chain.c, docs/runtime.md "Int8 chain"):
// the MLP and the CNN run with int8 codes between their GEMMs -- the output
// pipeline requantizes, the vector unit pools. The device's logits must equal,
// bit for bit, plain loops written here over the chain's planned weights
// (int64 sums, the requantizer's round-half-even shift, clamp, relu, 2x2 max
// of HWC codes, flatten as a view); the plan itself must keep the network's
// predictions (agreement with fp32 and with the all-host int8 path).
#include "spu/runtime.h"
extern "C" {
#include "runtime/runtime_internal.h"
}

#include <gtest/gtest.h>

#include "rt_test_util.h"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The chain of one image on the host, from the plan (codes HWC).
std::vector<float> reference(const spu_net *net, const float *img)
{
    std::vector<std::vector<int8_t>> q(net->ntensors);
    const size_t C0 = net->ch_C[0], HW0 = net->ch_H[0] * net->ch_W[0];
    q[0].resize(C0 * HW0);
    for (size_t c = 0; c < C0; c++)
        for (size_t p = 0; p < HW0; p++) {
            double r = std::nearbyint((double)img[c * HW0 + p] / (double)net->ch_in_scale);
            q[0][p * C0 + c] = (int8_t)std::max(-127.0, std::min(127.0, r));
        }
    std::vector<float> logits;
    for (size_t i = 0; i < net->nnodes; i++) {
        const rt_node *n = &net->nodes[i];
        const int a = n->in[0], o = n->out;
        const std::vector<int8_t> &x = q[a];
        if (n->kind == RT_FLATTEN || n->kind == RT_RELU) {
            q[o] = x;
        } else if (n->kind == RT_MAXPOOL) {
            const size_t C = net->ch_C[a], H = net->ch_H[a], W = net->ch_W[a];
            q[o].assign(C * (H / 2) * (W / 2), 0);
            for (size_t h = 0; h < H / 2; h++)
                for (size_t w = 0; w < W / 2; w++)
                    for (size_t c = 0; c < C; c++) {
                        int m = -128;
                        for (int dy = 0; dy < 2; dy++)
                            for (int dx = 0; dx < 2; dx++)
                                m = std::max(m, (int)x[((2 * h + dy) * W + 2 * w + dx) * C + c]);
                        q[o][(h * (W / 2) + w) * C + c] = (int8_t)m;
                    }
        } else {
            const size_t N = n->g[0].N, K = n->g[0].K;
            const size_t P = n->kind == RT_CONV2D ? n->OH * n->OW : 1;
            std::vector<int8_t> col(K);
            q[o].resize(P * N);
            for (size_t p = 0; p < P; p++) {
                if (n->kind == RT_CONV2D) {     // the receptive field, (c, kh, kw) order, zero padding
                    const size_t oh = p / n->OW, ow = p % n->OW;
                    size_t k = 0;
                    for (size_t c = 0; c < n->C; c++)
                        for (size_t kh = 0; kh < n->k; kh++)
                            for (size_t kw = 0; kw < n->kw; kw++, k++) {
                                const long ih = (long)(oh * n->stride + kh) - (long)n->pad;
                                const long iw = (long)(ow * n->stride + kw) - (long)n->pad;
                                col[k] = ih < 0 || iw < 0 || ih >= (long)n->H || iw >= (long)n->W
                                             ? 0 : x[((size_t)ih * n->W + (size_t)iw) * n->C + c];
                            }
                } else {
                    col.assign(x.begin(), x.end());
                }
                for (size_t m = 0; m < N; m++) {
                    int64_t acc = (int64_t)n->ch_bias[m];
                    for (size_t k = 0; k < K; k++)
                        acc += (int64_t)col[k] * n->ch_wq[k * N + m];
                    if (n->ch_last)
                        logits.push_back((float)(int32_t)acc * n->ch_deq[m]);
                    else
                        q[o][p * N + m] = (int8_t)requant(acc, n->ch_shift, n->fused_relu > 0);
                }
            }
        }
    }
    return logits;
}

class Chain : public ::testing::TestWithParam<const char *> {};

} // namespace

TEST_P(Chain, DeviceEqualsPlainLoopsAndNamesItsHostOps)
{
    LoadedNet L;
    L.load(GetParam());
    ASSERT_TRUE(L.net->chain);
    const size_t N = 70, OFF = 500, O = spu_net_output_size(L.net);   // 70: two batches
    auto img = L.images(OFF, N);
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    std::vector<float> y(N * O);
    spu_net_stats st;
    ASSERT_EQ(spu_net_stats_init(&st, L.net), 0);
    ASSERT_EQ(spu_net_run_int8(L.net, dev, img.data(), N, y.data(), &st), 0);
    for (size_t i = 0; i < N; i++) {
        const auto r = reference(L.net, &img[i * 784]);
        ASSERT_EQ(r.size(), O);
        EXPECT_EQ(0, memcmp(r.data(), &y[i * O], O * sizeof(float))) << "image " << i;
    }
    // every node that is not a view costs device cycles (the pools included)
    for (size_t i = 0; i < st.nnodes; i++) {
        const int k = L.net->nodes[i].kind;
        if (k == RT_DENSE || k == RT_CONV2D || k == RT_MAXPOOL) {
            EXPECT_GT(st.node[i].cycles, 0u) << spu_net_node_name(L.net, i);
        }
    }
    // host ops: none (the CNN's convolutions run on the device, spu_conv2d_hwc)
    const size_t h = spu_net_host_ops_on(L.net, SPU_NET_INT8, SPU_FEATURE_VECTOR, nullptr, 0);
    std::vector<const char *> names(h);
    spu_net_host_ops_on(L.net, SPU_NET_INT8, SPU_FEATURE_VECTOR, names.data(), h);
    std::string all;
    for (const char *s : names) all += std::string(s) + " ";
    EXPECT_EQ(all, "");
    spu_net_stats_free(&st);
    spu_close(dev);
}

// The plan keeps the network: predictions agree with fp32 and with the
// all-host path of a device without the vector unit (int8, and e4m3, whose
// chain has power-of-two scales and FP8 codes between the GEMMs).
static void keeps(const char *model, spu_net_format fmt, size_t pct)
{
    LoadedNet L;
    L.load(model);
    ASSERT_EQ(spu_net_host_ops_on(L.net, fmt, SPU_FEATURE_VECTOR, nullptr, 0), 0u);
    const size_t N = 200, O = 10;
    auto img = L.images(0, N);
    spu_device *vec = nullptr, *novec = nullptr;
    ASSERT_EQ(spu_open(&vec, "model"), 0);
    ASSERT_EQ(spu_open(&novec, "model?vector=0"), 0);
    std::vector<float> yc(N * O), yh(N * O), yf(N * O);
    ASSERT_EQ(spu_net_run(L.net, vec, fmt, img.data(), N, yc.data(), nullptr), 0);
    ASSERT_EQ(spu_net_run(L.net, novec, fmt, img.data(), N, yh.data(), nullptr), 0);
    ASSERT_EQ(spu_net_run_fp32(L.net, img.data(), N, yf.data()), 0);
    size_t af = 0, ah = 0, ok = 0;
    double err = 0.0, mag = 0.0;
    for (size_t i = 0; i < N; i++) {
        const size_t pc = spu_argmax(&yc[i * O], O);
        af += pc == spu_argmax(&yf[i * O], O);
        ah += pc == spu_argmax(&yh[i * O], O);
        ok += pc == L.ds.labels[i];
        for (size_t j = 0; j < O; j++) {
            err += std::fabs(yc[i * O + j] - yf[i * O + j]);
            mag += std::fabs(yf[i * O + j]);
        }
    }
    EXPECT_GE(af, N * pct / 100);
    EXPECT_GE(ah, N * pct / 100);
    EXPECT_GE(ok, N * 85 / 100);
    EXPECT_LT(err / mag, 0.05);     // logits within a few per cent of fp32 on average
    EXPECT_NE(0, memcmp(yc.data(), yh.data(), yc.size() * sizeof(float)));   // another path
    spu_close(vec);
    spu_close(novec);
}

TEST_P(Chain, KeepsThePredictions) { keeps(GetParam(), SPU_NET_INT8, 98); }
TEST_P(Chain, KeepsThePredictionsE4m3) { keeps(GetParam(), SPU_NET_E4M3, 96); }

INSTANTIATE_TEST_SUITE_P(Fmnist, Chain, ::testing::Values("fmnist-mlp", "fmnist-cnn"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                             return std::string(i.param + 7);
                         });

// A device with the vector unit but without bias registers (int8 only, as
// the boards' INFO) cannot run the chain: it takes the per-op path, and
// spu_net_host_ops_dev (what `spu infer` prints) says so.
TEST(ChainGeometry, NoBiasRegistersTakesThePerOpPathAndSaysSo)
{
    LoadedNet L;
    L.load("fmnist-mlp");
    const char *geo = "model?rows=4&cols=4&spad=8192&banks=2&ucode=256&lanes=1&formats=1";
    spu_device *small = nullptr, *small_novec = nullptr, *big = nullptr;
    ASSERT_EQ(spu_open(&small, (std::string(geo) + "&vector=1").c_str()), 0);
    ASSERT_EQ(spu_open(&small_novec, (std::string(geo) + "&vector=0").c_str()), 0);
    ASSERT_EQ(spu_open(&big, "model"), 0);
    spu_info_t is{}, ib{};
    ASSERT_EQ(spu_info(small, &is), 0);
    ASSERT_EQ(spu_info(big, &ib), 0);
    ASSERT_TRUE(is.features & SPU_FEATURE_VECTOR);
    EXPECT_EQ(spu_net_host_ops_dev(L.net, SPU_NET_INT8, &ib, nullptr, 0), 0u);
    EXPECT_EQ(spu_net_host_ops_dev(L.net, SPU_NET_INT8, &is, nullptr, 0), 6u);
    // the features alone would promise the chain
    EXPECT_EQ(spu_net_host_ops_on(L.net, SPU_NET_INT8, is.features, nullptr, 0), 0u);
    const size_t N = 8;
    auto img = L.images(0, N);
    std::vector<float> a(N * 10), b(N * 10);
    ASSERT_EQ(spu_net_run_int8(L.net, small, img.data(), N, a.data(), nullptr), 0);
    ASSERT_EQ(spu_net_run_int8(L.net, small_novec, img.data(), N, b.data(), nullptr), 0);
    EXPECT_EQ(0, memcmp(a.data(), b.data(), a.size() * sizeof(float)));   // the same per-op path
    spu_close(small);
    spu_close(small_novec);
    spu_close(big);
}
