// spu_conv2d_hwc (host/src/kernels/conv.c, firmware/conv_tap.s,
// docs/runtime.md "Convolution on the device"): a stride-1 convolution of
// HWC codes with the taps accumulated in the array and no im2col anywhere.
// The device's codes must equal, bit for bit, plain loops written here
// (int64 sums, the requantizer's round-half-even shift, clamp, relu); the
// CNN's chain must give the same codes with and without the host im2col in
// every format.
#include "spu/conv.h"
#include "spu/isa.h"
#include "spu/runtime.h"
extern "C" {
#include "runtime/runtime_internal.h"
}

#include <gtest/gtest.h>

#include "rt_test_util.h"

#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

struct Case { uint32_t B, H, W, C, k, pad, N; unsigned shift; bool relu; };

void check_case(spu_device *dev, const Case &c, std::mt19937 &rng)
{
    const uint32_t OH = c.H + 2 * c.pad - c.k + 1, OW = c.W + 2 * c.pad - c.k + 1, K = c.C * c.k * c.k;
    std::uniform_int_distribution<int> code(-128, 127), bd(-3000, 3000);
    std::vector<int8_t> x((size_t)c.B * c.H * c.W * c.C), w((size_t)K * c.N);
    std::vector<double> bias(c.N);
    for (auto &v : x) v = (int8_t)code(rng);
    for (auto &v : w) v = (int8_t)code(rng);
    for (auto &v : bias) v = bd(rng);
    std::vector<int8_t> y((size_t)c.B * OH * OW * c.N, 0x55);
    const spu_gemm_epilogue epi = { SPU_DTYPE_INT8, c.relu ? 1 : 0, 0, c.shift, 0, bias.data() };
    spu_gemm_stats st{};
    ASSERT_EQ(spu_conv2d_hwc(dev, SPU_DTYPE_INT8, &epi, c.B, c.H, c.W, c.C, c.k, c.pad, x.data(), c.N, w.data(),
                             y.data(), &st), 0);
    EXPECT_GT(st.cycles, 0u);
    EXPECT_EQ(st.macs, (uint64_t)c.B * OH * OW * c.N * K);
    size_t bad = 0;
    for (uint32_t b = 0; b < c.B; b++)
        for (uint32_t oh = 0; oh < OH; oh++)
            for (uint32_t ow = 0; ow < OW; ow++)
                for (uint32_t n = 0; n < c.N; n++) {
                    int64_t acc = (int64_t)bias[n];
                    for (uint32_t ch = 0; ch < c.C; ch++)
                        for (uint32_t kh = 0; kh < c.k; kh++)
                            for (uint32_t kw = 0; kw < c.k; kw++) {
                                const long ih = (long)(oh + kh) - (long)c.pad, iw = (long)(ow + kw) - (long)c.pad;
                                if (ih < 0 || iw < 0 || ih >= (long)c.H || iw >= (long)c.W)
                                    continue;
                                acc += (int64_t)x[(((size_t)b * c.H + ih) * c.W + iw) * c.C + ch] *
                                       w[((size_t)(ch * c.k + kh) * c.k + kw) * c.N + n];
                            }
                    const int want = requant(acc, c.shift, c.relu);
                    const int got = y[(((size_t)b * OH + oh) * OW + ow) * c.N + n];
                    if (want != got && bad++ < 5)
                        ADD_FAILURE() << "b " << b << " oh " << oh << " ow " << ow << " n " << n << ": device "
                                      << got << ", loops " << want;
                }
    EXPECT_EQ(bad, 0u) << "B " << c.B << " H " << c.H << " W " << c.W << " C " << c.C << " k " << c.k;
}

} // namespace

// Shapes: one channel (the host writes the shifted views) and C = 8, 16
// (the array transposes), kernels 1/3/5, pads 0..2, several column blocks,
// and a batch large enough to need several scratchpad pieces.
TEST(Conv, DeviceEqualsPlainLoops)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    std::mt19937 rng(11);
    const Case cases[] = {
        { 2, 28, 28, 1, 3, 1, 16, 6, true },   { 3, 14, 14, 16, 3, 1, 32, 9, true },
        { 2, 9, 11, 8, 5, 2, 8, 8, false },    { 1, 7, 6, 16, 1, 0, 24, 7, false },
        { 2, 10, 13, 8, 3, 0, 16, 10, true },  { 1, 5, 5, 1, 5, 2, 8, 0, false },
        { 40, 14, 14, 16, 3, 1, 32, 9, true }, // several pieces
    };
    for (const Case &c : cases)
        check_case(dev, c, rng);
    spu_close(dev);
}

TEST(Conv, RefusesWhatTheDeviceCannotDo)
{
    spu_device *dev = nullptr, *novec = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    ASSERT_EQ(spu_open(&novec, "model?vector=0"), 0);
    std::vector<int8_t> x(4 * 4 * 16), w(16 * 9 * 16), y(4 * 4 * 16);
    const spu_gemm_epilogue epi = { SPU_DTYPE_INT8, 0, 0, 0, 0, nullptr };
    // C not a multiple of the word (and not 1), N not a multiple of COLS, no vector unit
    EXPECT_EQ(spu_conv2d_hwc(dev, SPU_DTYPE_INT8, &epi, 1, 4, 4, 3, 3, 1, x.data(), 16, w.data(), y.data(), nullptr),
              SPU_ENOTSUP);
    EXPECT_EQ(spu_conv2d_hwc(dev, SPU_DTYPE_INT8, &epi, 1, 4, 4, 8, 3, 1, x.data(), 12, w.data(), y.data(), nullptr),
              SPU_ENOTSUP);
    EXPECT_EQ(spu_conv2d_hwc(novec, SPU_DTYPE_INT8, &epi, 1, 4, 4, 8, 3, 1, x.data(), 8, w.data(), y.data(),
                             nullptr), SPU_ENOTSUP);
    // bad arguments: out dtype differs from in, kernel larger than the padded input, NULL
    const spu_gemm_epilogue e32 = { SPU_DTYPE_INT32, 0, 0, 0, 0, nullptr };
    EXPECT_EQ(spu_conv2d_hwc(dev, SPU_DTYPE_INT8, &e32, 1, 4, 4, 8, 3, 1, x.data(), 8, w.data(), y.data(), nullptr),
              SPU_EINVAL);
    EXPECT_EQ(spu_conv2d_hwc(dev, SPU_DTYPE_INT8, &epi, 1, 2, 2, 8, 5, 0, x.data(), 8, w.data(), y.data(), nullptr),
              SPU_EINVAL);
    EXPECT_EQ(spu_conv2d_hwc(dev, SPU_DTYPE_INT8, &epi, 1, 4, 4, 8, 3, 1, nullptr, 8, w.data(), y.data(), nullptr),
              SPU_EINVAL);
    // the device keeps answering: a good call after the refusals
    EXPECT_EQ(spu_conv2d_hwc(dev, SPU_DTYPE_INT8, &epi, 1, 4, 4, 8, 3, 1, x.data(), 8, w.data(), y.data(), nullptr),
              0);
    spu_close(dev);
    spu_close(novec);
}

// The CNN's chain in every format: the same codes (result_hash over every
// GEMM's and pool's codes and the logits) and logits with the device
// convolution and with the host im2col (SPU_INFER_HOST_IM2COL=1), and the
// host ops say which ran.
class ConvChain : public ::testing::TestWithParam<spu_net_format> {};

TEST_P(ConvChain, SameCodesAsTheHostIm2colPath)
{
    char err[512] = "";
    spu_net *net = nullptr;
    spu_dataset ds{};
    ASSERT_EQ(spu_net_load(&net, SPU_SOURCE_DIR "/models/fmnist-cnn/graph.json", err, sizeof err), 0) << err;
    ASSERT_EQ(spu_fmnist_load(nullptr, "t10k", &ds, err, sizeof err), 0) << err;
    const size_t N = 70;
    std::vector<float> img(N * 784), a(N * 10), b(N * 10);
    for (size_t i = 0; i < img.size(); i++)
        img[i] = ds.images[1000 * 784 + i] / 255.0f;
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    spu_info_t info{};
    ASSERT_EQ(spu_info(dev, &info), 0);
    spu_net_stats sa, sb;
    ASSERT_EQ(spu_net_stats_init(&sa, net), 0);
    ASSERT_EQ(spu_net_stats_init(&sb, net), 0);
    unsetenv("SPU_INFER_HOST_IM2COL");
    EXPECT_EQ(spu_net_host_ops_dev(net, GetParam(), &info, nullptr, 0), 0u);
    ASSERT_EQ(spu_net_run(net, dev, GetParam(), img.data(), N, a.data(), &sa), 0);
    setenv("SPU_INFER_HOST_IM2COL", "1", 1);
    EXPECT_EQ(spu_net_host_ops_dev(net, GetParam(), &info, nullptr, 0), 2u);
    ASSERT_EQ(spu_net_run(net, dev, GetParam(), img.data(), N, b.data(), &sb), 0);
    unsetenv("SPU_INFER_HOST_IM2COL");
    EXPECT_EQ(sa.result_hash, sb.result_hash);
    EXPECT_EQ(0, memcmp(a.data(), b.data(), a.size() * sizeof(float)));
    EXPECT_NE(sa.cycles, sb.cycles);        // another kernel ran
    spu_net_stats_free(&sa);
    spu_net_stats_free(&sb);
    spu_close(dev);
    spu_dataset_free(&ds);
    spu_net_free(net);
}

INSTANTIATE_TEST_SUITE_P(Formats, ConvChain, ::testing::Values(SPU_NET_INT8, SPU_NET_E4M3, SPU_NET_E5M2),
                         [](const ::testing::TestParamInfo<spu_net_format> &i) {
                             return std::string(spu_net_format_name(i.param));
                         });

// `spu infer --layers` labels: on a device that runs the chain every node of
// the CNN is the device's (pools on the vector unit, flatten a view); on
// one without the vector unit the pools and flatten are the host's.
TEST(ConvChainLabels, PoolsAndFlattenRunOnTheDeviceInTheChain)
{
    char err[512] = "";
    spu_net *net = nullptr;
    ASSERT_EQ(spu_net_load(&net, SPU_SOURCE_DIR "/models/fmnist-cnn/graph.json", err, sizeof err), 0) << err;
    spu_device *dev = nullptr, *novec = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    ASSERT_EQ(spu_open(&novec, "model?vector=0"), 0);
    spu_info_t iv{}, in{};
    ASSERT_EQ(spu_info(dev, &iv), 0);
    ASSERT_EQ(spu_info(novec, &in), 0);
    size_t pools = 0;
    for (size_t i = 0; i < spu_net_nodes(net); i++) {
        const std::string op = spu_net_node_op(net, i);
        for (spu_net_format f : { SPU_NET_INT8, SPU_NET_E4M3 }) {
            EXPECT_EQ(spu_net_node_on_device_dev(net, i, f, &iv), 1) << spu_net_node_name(net, i);
            if (op == "maxpool2d" || op == "flatten") {
                EXPECT_EQ(spu_net_node_on_device_dev(net, i, f, &in), 0) << spu_net_node_name(net, i);
            }
        }
        pools += op == "maxpool2d";
    }
    EXPECT_EQ(pools, 2u);
    spu_close(dev);
    spu_close(novec);
    spu_net_free(net);
}
