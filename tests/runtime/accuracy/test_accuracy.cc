// make test-accuracy: the full 10,000-image Fashion-MNIST test set on the
// model device, per shipped model: int8 and e4m3 each within 1 point of fp32
// (the two device runs go on two threads, each with its own model device).
#include "spu/runtime.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

class FullTestSet : public ::testing::TestWithParam<const char *> {};

namespace {
struct FmtRun {
    spu_net_format fmt;
    std::vector<float> lo;
    spu_net_stats st{};
    int rc = -1;
};

void run_on_model(const spu_net *net, const std::vector<float> *img, size_t n, FmtRun *r)
{
    spu_device *mod = nullptr;
    if ((r->rc = spu_open(&mod, "model")))
        return;
    r->rc = spu_net_run(net, mod, r->fmt, img->data(), n, r->lo.data(), &r->st);
    spu_close(mod);
}
} // namespace

TEST_P(FullTestSet, Int8AndE4m3WithinOnePointOfFp32)
{
    char err[512] = "";
    spu_net *net = nullptr;
    spu_dataset ds{};
    const std::string g = std::string(SPU_SOURCE_DIR "/models/") + GetParam() + "/graph.json";
    ASSERT_EQ(spu_net_load(&net, g.c_str(), err, sizeof err), 0) << err;
    ASSERT_EQ(spu_fmnist_load(nullptr, "t10k", &ds, err, sizeof err), 0) << err;
    const size_t N = ds.count, O = spu_net_output_size(net);
    ASSERT_EQ(N, 10000u);
    std::vector<float> img(N * 784), lf(N * O);
    for (size_t i = 0; i < N * 784; i++)
        img[i] = ds.images[i] / 255.0f;
    FmtRun runs[2];
    runs[0].fmt = SPU_NET_INT8;
    runs[1].fmt = SPU_NET_E4M3;
    for (FmtRun &r : runs) {
        r.lo.resize(N * O);
        ASSERT_EQ(spu_net_stats_init(&r.st, net), 0);
    }
    std::thread t(run_on_model, net, &img, N, &runs[1]);
    run_on_model(net, &img, N, &runs[0]);
    const int frc = spu_net_run_fp32(net, img.data(), N, lf.data());
    t.join();
    ASSERT_EQ(frc, 0);
    size_t cf = 0;
    for (size_t i = 0; i < N; i++)
        cf += spu_argmax(&lf[i * O], O) == ds.labels[i];
    const double af = (double)cf / N;
    EXPECT_GE(af, 0.85) << "fp32 accuracy";
    for (FmtRun &r : runs) {
        const char *fn = spu_net_format_name(r.fmt);
        EXPECT_EQ(r.rc, 0) << fn;
        EXPECT_EQ(r.st.images, N) << fn;
        size_t cq = 0, agree = 0;
        for (size_t i = 0; i < N; i++) {
            const size_t pq = spu_argmax(&r.lo[i * O], O), pf = spu_argmax(&lf[i * O], O);
            cq += pq == ds.labels[i];
            agree += pq == pf;
        }
        const double aq = (double)cq / N;
        printf("%s: %s %.4f fp32 %.4f agreement %.4f cycles/image %.0f\n", GetParam(), fn, aq, af,
               (double)agree / N, (double)r.st.cycles / N);
        EXPECT_LE(std::fabs(aq - af), 0.01) << fn << " " << aq << " vs fp32 " << af;
        spu_net_stats_free(&r.st);
    }
    spu_net_free(net);
    spu_dataset_free(&ds);
}

INSTANTIATE_TEST_SUITE_P(Fmnist, FullTestSet, ::testing::Values("fmnist-mlp", "fmnist-cnn", "fmnist-vit"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                             return std::string(i.param + 7);
                         });
