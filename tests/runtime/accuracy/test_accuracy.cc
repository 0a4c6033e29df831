// make test-accuracy: the full 10,000-image Fashion-MNIST test set on the
// model device, per shipped model: int8 within 1 point of fp32.
#include "spu/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

class FullTestSet : public ::testing::TestWithParam<const char *> {};

TEST_P(FullTestSet, Int8WithinOnePointOfFp32)
{
    char err[512] = "";
    spu_net *net = nullptr;
    spu_dataset ds{};
    const std::string g = std::string(SPU_SOURCE_DIR "/models/") + GetParam() + "/graph.json";
    ASSERT_EQ(spu_net_load(&net, g.c_str(), err, sizeof err), 0) << err;
    ASSERT_EQ(spu_fmnist_load(nullptr, "t10k", &ds, err, sizeof err), 0) << err;
    const size_t N = ds.count, O = spu_net_output_size(net);
    ASSERT_EQ(N, 10000u);
    std::vector<float> img(N * 784), lq(N * O), lf(N * O);
    for (size_t i = 0; i < N * 784; i++)
        img[i] = ds.images[i] / 255.0f;
    spu_device *mod = nullptr;
    ASSERT_EQ(spu_open(&mod, "model"), 0);
    spu_net_stats st;
    ASSERT_EQ(spu_net_stats_init(&st, net), 0);
    ASSERT_EQ(spu_net_run_int8(net, mod, img.data(), N, lq.data(), &st), 0);
    ASSERT_EQ(spu_net_run_fp32(net, img.data(), N, lf.data()), 0);
    size_t cq = 0, cf = 0, agree = 0;
    for (size_t i = 0; i < N; i++) {
        const size_t pq = spu_argmax(&lq[i * O], O), pf = spu_argmax(&lf[i * O], O);
        cq += pq == ds.labels[i];
        cf += pf == ds.labels[i];
        agree += pq == pf;
    }
    const double aq = (double)cq / N, af = (double)cf / N;
    printf("%s: int8 %.4f fp32 %.4f agreement %.4f cycles/image %.0f\n", GetParam(), aq, af,
           (double)agree / N, (double)st.cycles / N);
    EXPECT_GE(af, 0.85) << "fp32 accuracy";
    EXPECT_LE(std::fabs(aq - af), 0.01) << "int8 " << aq << " vs fp32 " << af;
    spu_net_stats_free(&st);
    spu_close(mod);
    spu_net_free(net);
    spu_dataset_free(&ds);
}

INSTANTIATE_TEST_SUITE_P(Fmnist, FullTestSet, ::testing::Values("fmnist-mlp", "fmnist-cnn", "fmnist-vit"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                             return std::string(i.param + 7);
                         });
