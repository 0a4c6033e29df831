// bf16 and the MX formats in spu_net_run / `spu infer --format`
// (docs/runtime.md "bf16 and MX"): names from the device's dtype table, the
// per-op path with operands quantized by the numerics library, f32 results.
// MX logits must equal, bit for bit, a host reference built on
// spu_mx_dot_exact (the exact block dot product rounded once to f32, as the
// array does); bf16 must keep the predictions; sim must equal the model.
#include "spu/numerics.h"
#include "spu/runtime.h"
extern "C" {
#include "runtime/runtime_internal.h"
}

#include <gtest/gtest.h>

#include "rt_test_util.h"

#include <cstring>
#include <string>
#include <vector>

namespace {

enum {
#define SPU_DTYPE(n, k, c, b, a) DT_##n = (c),
#include "spu_cfg.def"
    DT_END_
};


// The MLP (flatten, dense, relu) in an MX format on the host: every dense
// layer's input rows and weight columns quantized in 32-element blocks along
// K, each output the exact block dot product rounded once to f32, plus the
// bias in float, the relu in float.
std::vector<float> mx_reference(const spu_net *net, spu_mx_fmt f, const float *img)
{
    std::vector<float> x(img, img + 784);
    for (size_t i = 0; i < net->nnodes; i++) {
        const rt_node *n = &net->nodes[i];
        if (n->kind == RT_RELU) {
            for (float &v : x) v = v < 0.0f ? 0.0f : v;
        } else if (n->kind == RT_DENSE) {
            const size_t K = n->g[0].K, N = n->g[0].N, nb = (K + 31) / 32;
            std::vector<uint8_t> a(K), sa(nb), b(K), sb(nb);
            std::vector<float> col(K), y(N);
            EXPECT_EQ(spu_mx_quantize(f, x.data(), 1, K, nullptr, a.data(), sa.data(), nullptr), 0);
            for (size_t o = 0; o < N; o++) {
                for (size_t k = 0; k < K; k++) col[k] = n->g[0].wt[k * N + o];
                EXPECT_EQ(spu_mx_quantize(f, col.data(), 1, K, nullptr, b.data(), sb.data(), nullptr), 0);
                // the array sums all of K exactly, then rounds once to f32
                float acc = 0.0f;
                if (nb == 1) {
                    acc = spu_mx_dot_exact(f, a.data(), sa[0], f, b.data(), sb[0], K);
                } else {
                    // the products (8 significant bits, block scales a few
                    // binades apart in one row) summed in long double (64-bit
                    // mantissa): exact for these layers, then one rounding
                    long double s = 0.0L;
                    for (size_t g = 0; g < nb; g++) {
                        const size_t len = K - g * 32 < 32 ? K - g * 32 : 32;
                        for (size_t k = 0; k < len; k++)
                            s += (long double)spu_mx_dequant(f, a[g * 32 + k], sa[g]) *
                                 (long double)spu_mx_dequant(f, b[g * 32 + k], sb[g]);
                    }
                    acc = (float)s;
                }
                y[o] = acc + n->g[0].bias[o];
            }
            x = y;
        }
    }
    return x;
}

} // namespace

TEST(GenericFormats, NamesComeFromTheDtypeTable)
{
    EXPECT_EQ(spu_net_format_from_name("bf16"), (int)SPU_NET_DTYPE(DT_BF16));
    EXPECT_EQ(spu_net_format_from_name("mxfp8_e4m3"), (int)SPU_NET_DTYPE(DT_MXFP8_E4M3));
    EXPECT_EQ(spu_net_format_from_name("mxint8"), (int)SPU_NET_DTYPE(DT_MXINT8));
    EXPECT_STREQ(spu_net_format_name(SPU_NET_DTYPE(DT_MXFP8_E5M2)), "mxfp8_e5m2");
    EXPECT_EQ(spu_net_format_dtype(SPU_NET_DTYPE(DT_BF16)), (unsigned)DT_BF16);
    // a unique prefix before '_' names its row; an ambiguous one does not
    EXPECT_EQ(spu_net_format_from_name("mxint8"), spu_net_format_from_name("mxint8"));
    EXPECT_LT(spu_net_format_from_name("mxfp8"), 0);             // e4m3 or e5m2
    // not operand formats of the array: refused
    for (const char *s : { "int32", "f32", "f16", "mxfp9", "" })
        EXPECT_LT(spu_net_format_from_name(s), 0) << s;
    EXPECT_STREQ(spu_net_format_name(SPU_NET_DTYPE(DT_F32)), "?");
}

TEST(GenericFormats, MxLogitsEqualExactBlockDotProducts)
{
    LoadedNet L;
    L.load("fmnist-mlp");
    const size_t N = 12, OFF = 300;
    auto img = L.images(OFF, N);
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    for (spu_mx_fmt f : { SPU_MX_FP8_E4M3, SPU_MX_INT8 }) {
        const int fmt = spu_net_format_from_name(spu_mx_name(f));
        ASSERT_GE(fmt, 0);
        std::vector<float> y(N * 10);
        spu_net_stats st;
        ASSERT_EQ(spu_net_stats_init(&st, L.net), 0);
        ASSERT_EQ(spu_net_run(L.net, dev, (spu_net_format)fmt, img.data(), N, y.data(), &st), 0);
        EXPECT_GT(st.cycles, 0u);
        EXPECT_EQ(st.gemms, 3u);
        for (size_t i = 0; i < N; i++) {
            const auto r = mx_reference(L.net, f, &img[i * 784]);
            ASSERT_EQ(r.size(), 10u);
            EXPECT_EQ(0, memcmp(r.data(), &y[i * 10], 10 * sizeof(float))) << spu_mx_name(f) << " image " << i;
        }
        spu_net_stats_free(&st);
    }
    spu_close(dev);
}

TEST(GenericFormats, Bf16AndMxKeepThePredictions)
{
    LoadedNet L;
    L.load("fmnist-mlp");
    const size_t N = 200;
    auto img = L.images(0, N);
    std::vector<float> yf(N * 10), y(N * 10);
    ASSERT_EQ(spu_net_run_fp32(L.net, img.data(), N, yf.data()), 0);
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    for (const char *name : { "bf16", "mxfp8_e4m3", "mxfp8_e5m2", "mxint8" }) {
        const int fmt = spu_net_format_from_name(name);
        ASSERT_GE(fmt, 0) << name;
        ASSERT_EQ(spu_net_run(L.net, dev, (spu_net_format)fmt, img.data(), N, y.data(), nullptr), 0) << name;
        size_t agree = 0;
        for (size_t i = 0; i < N; i++)
            agree += spu_argmax(&y[i * 10], 10) == spu_argmax(&yf[i * 10], 10);
        EXPECT_GE(agree, N * 97 / 100) << name;
        EXPECT_NE(0, memcmp(y.data(), yf.data(), y.size() * sizeof(float))) << name;   // quantized
    }
    spu_close(dev);
}

TEST(GenericFormats, RefusedWhereTheDeviceLacksTheFormat)
{
    LoadedNet L;
    L.load("fmnist-mlp");
    auto img = L.images(0, 2);
    std::vector<float> y(20);
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model?formats=1"), 0);       // int8 only, as the boards
    EXPECT_EQ(spu_net_run(L.net, dev, SPU_NET_DTYPE(DT_BF16), img.data(), 2, y.data(), nullptr),
              SPU_ENOTSUP);
    EXPECT_EQ(spu_net_run(L.net, dev, SPU_NET_DTYPE(DT_MXFP8_E4M3), img.data(), 2, y.data(), nullptr),
              SPU_ENOTSUP);
    EXPECT_EQ(spu_net_run(L.net, dev, SPU_NET_DTYPE(DT_F32), img.data(), 2, y.data(), nullptr),
              SPU_EINVAL);
    EXPECT_EQ(spu_net_run(L.net, dev, SPU_NET_INT8, img.data(), 2, y.data(), nullptr), 0);   // still answers
    spu_close(dev);
}

TEST(GenericFormats, MxAndBf16OnSimBitExactWithModel)
{
    LoadedNet L;
    L.load("fmnist-mlp");
    const size_t N = 3;
    auto img = L.images(77, N);
    spu_device *sim = nullptr, *mod = nullptr;
    int rc = spu_open(&sim, "sim");
    ASSERT_EQ(rc, 0) << spu_error_name(rc);
    ASSERT_EQ(spu_open(&mod, "model"), 0);
    for (const char *name : { "bf16", "mxfp8_e4m3" }) {
        const spu_net_format fmt = (spu_net_format)spu_net_format_from_name(name);
        spu_net_stats ss, sm;
        ASSERT_EQ(spu_net_stats_init(&ss, L.net), 0);
        ASSERT_EQ(spu_net_stats_init(&sm, L.net), 0);
        std::vector<float> ls(N * 10), lm(N * 10);
        EXPECT_EQ(spu_net_run(L.net, sim, fmt, img.data(), N, ls.data(), &ss), 0) << name;
        EXPECT_EQ(spu_net_run(L.net, mod, fmt, img.data(), N, lm.data(), &sm), 0) << name;
        EXPECT_EQ(ss.result_hash, sm.result_hash) << name;
        EXPECT_EQ(0, memcmp(ls.data(), lm.data(), ls.size() * sizeof(float))) << name;
        EXPECT_EQ(ss.cycles, sm.cycles) << name;
        EXPECT_GT(ss.link_bytes, 0u);
        spu_net_stats_free(&ss);
        spu_net_stats_free(&sm);
    }
    spu_close(sim);
    spu_close(mod);
}
