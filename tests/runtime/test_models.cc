// The three shipped Fashion-MNIST models: int8 on the RTL (sim) bit for bit
// and cycle for cycle equal to the model, and an accuracy smoke check on a
// few hundred test images (the full test set: make test-accuracy).
#include "spu/runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

struct Fixture {
    spu_net *net = nullptr;
    spu_dataset ds{};
    std::vector<float> img;
    ~Fixture()
    {
        spu_net_free(net);
        spu_dataset_free(&ds);
    }
    void load(const std::string &model, size_t off, size_t n)
    {
        char err[512] = "";
        const std::string g = std::string(SPU_SOURCE_DIR "/models/") + model + "/graph.json";
        ASSERT_EQ(spu_net_load(&net, g.c_str(), err, sizeof err), 0) << err;
        ASSERT_EQ(spu_fmnist_load(nullptr, "t10k", &ds, err, sizeof err), 0) << err;
        img.resize(n * 784);
        for (size_t i = 0; i < n * 784; i++)
            img[i] = ds.images[off * 784 + i] / 255.0f;
    }
};

// The same images through one format on the RTL (sim) and on the model:
// results, GEMM count and cycles equal, bit for bit.
struct SimVsModel {
    spu_device *sim = nullptr, *mod = nullptr;
    spu_net_stats ss{}, sm{};
    std::vector<float> ls, lm;
    ~SimVsModel()
    {
        spu_net_stats_free(&ss);
        spu_net_stats_free(&sm);
        spu_close(sim);
        spu_close(mod);
    }
    void run(const Fixture &f, spu_net_format fmt, size_t n)
    {
        const size_t o = spu_net_output_size(f.net);
        ls.resize(n * o);
        lm.resize(n * o);
        int rc = spu_open(&sim, "sim");
        ASSERT_EQ(rc, 0) << spu_error_name(rc);
        ASSERT_EQ(spu_open(&mod, "model"), 0);
        ASSERT_EQ(spu_net_stats_init(&ss, f.net), 0);
        ASSERT_EQ(spu_net_stats_init(&sm, f.net), 0);
        EXPECT_EQ(spu_net_run(f.net, sim, fmt, f.img.data(), n, ls.data(), &ss), 0);
        EXPECT_EQ(spu_net_run(f.net, mod, fmt, f.img.data(), n, lm.data(), &sm), 0);
        EXPECT_EQ(ss.gemms, sm.gemms);
        EXPECT_EQ(ss.result_hash, sm.result_hash);
        EXPECT_EQ(0, memcmp(ls.data(), lm.data(), ls.size() * sizeof(float)));
        EXPECT_EQ(ss.cycles, sm.cycles);
        EXPECT_GT(ss.link_bytes, 0u);     // the sim is reached over the link protocol
    }
};

class Models : public ::testing::TestWithParam<const char *> {};

} // namespace

TEST_P(Models, Int8OnSimBitExactWithModel)
{
    const size_t N = 6, OFF = 1234;
    Fixture f;
    f.load(GetParam(), OFF, N);
    SimVsModel r;
    r.run(f, SPU_NET_INT8, N);
    for (size_t i = 0; i < r.ss.nnodes; i++)
        EXPECT_EQ(r.ss.node[i].cycles, r.sm.node[i].cycles) << spu_net_node_name(f.net, i);
    EXPECT_EQ(r.sm.link_bytes, 0u);
}

// The FP8 path (f32 results from the device, summed and scaled on the host)
// on the RTL, bit for bit and cycle for cycle equal to the model.
TEST_P(Models, E4m3OnSimBitExactWithModel)
{
    const size_t N = 3, OFF = 4321;
    Fixture f;
    f.load(GetParam(), OFF, N);
    SimVsModel r;
    r.run(f, SPU_NET_E4M3, N);
    EXPECT_GT(r.ss.gemms, 0u);
    // and not the int8 run: the same images give other GEMM results
    spu_net_stats si;
    ASSERT_EQ(spu_net_stats_init(&si, f.net), 0);
    std::vector<float> li(N * spu_net_output_size(f.net));
    EXPECT_EQ(spu_net_run(f.net, r.mod, SPU_NET_INT8, f.img.data(), N, li.data(), &si), 0);
    EXPECT_NE(si.result_hash, r.sm.result_hash);
    spu_net_stats_free(&si);
}

TEST_P(Models, AccuracySmokeOnModel)
{
    const size_t N = 300;
    Fixture f;
    f.load(GetParam(), 0, N);
    const size_t O = spu_net_output_size(f.net);
    ASSERT_EQ(O, 10u);
    std::vector<float> lq(N * O), lf(N * O);
    spu_device *mod = nullptr;
    ASSERT_EQ(spu_open(&mod, "model"), 0);
    ASSERT_EQ(spu_net_run_int8(f.net, mod, f.img.data(), N, lq.data(), nullptr), 0);
    spu_close(mod);
    ASSERT_EQ(spu_net_run_fp32(f.net, f.img.data(), N, lf.data()), 0);
    size_t cq = 0, cf = 0, agree = 0;
    for (size_t i = 0; i < N; i++) {
        const size_t pq = spu_argmax(&lq[i * O], O), pf = spu_argmax(&lf[i * O], O);
        cq += pq == f.ds.labels[i];
        cf += pf == f.ds.labels[i];
        agree += pq == pf;
    }
    // trained models score 0.87-0.91 on the test set; a broken op, a wrong
    // layout or a bad scale falls far below
    EXPECT_GE(cf, N * 80 / 100) << "fp32 accuracy " << (double)cf / N;
    EXPECT_GE(cq, N * 80 / 100) << "int8 accuracy " << (double)cq / N;
    EXPECT_GE(agree, N * 95 / 100) << "int8/fp32 agreement " << (double)agree / N;
}

INSTANTIATE_TEST_SUITE_P(Fmnist, Models, ::testing::Values("fmnist-mlp", "fmnist-cnn", "fmnist-vit"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                             std::string s = i.param + 7;   // "mlp", "cnn", "vit"
                             return s;
                         });

// The vector-unit lowering (docs/runtime.md "Op lowering table"): an int8 run
// on a device with the unit (relu on the device on the codes the next dense
// quantizes) gives exactly the logits of the run without it (every op on
// the host), moves the named host steps, and costs device cycles.
TEST_P(Models, VectorLoweringIsExactAndNamesItsHostOps)
{
    const size_t N = 40, OFF = 77;
    Fixture f;
    f.load(GetParam(), OFF, N);
    const size_t O = spu_net_output_size(f.net);
    std::vector<float> lv(N * O), lh(N * O);
    spu_device *vec = nullptr, *novec = nullptr;
    ASSERT_EQ(spu_open(&vec, "model"), 0);
    ASSERT_EQ(spu_open(&novec, "model?vector=0"), 0);
    spu_net_stats sv, sh;
    ASSERT_EQ(spu_net_stats_init(&sv, f.net), 0);
    ASSERT_EQ(spu_net_stats_init(&sh, f.net), 0);
    ASSERT_EQ(spu_net_run_int8(f.net, vec, f.img.data(), N, lv.data(), &sv), 0);
    ASSERT_EQ(spu_net_run_int8(f.net, novec, f.img.data(), N, lh.data(), &sh), 0);
    EXPECT_EQ(sv.gemms, sh.gemms);
    if (std::string(GetParam()) != "fmnist-vit") {
        // the MLP and the CNN run as the int8 chain on a device with the
        // unit (test_chain.cc); the host-op names are checked there
        EXPECT_LT(spu_net_host_ops_on(f.net, SPU_NET_INT8, SPU_FEATURE_VECTOR, nullptr, 0),
                  spu_net_host_ops_on(f.net, SPU_NET_INT8, 0, nullptr, 0));
        spu_net_stats_free(&sv);
        spu_net_stats_free(&sh);
        spu_close(vec);
        spu_close(novec);
        return;
    }
    // the ViT's attention runs its softmax on the vector unit (s_scale in the
    // graph; Graph.DeviceSoftmaxAttentionEqualsPlainLoop checks its
    // arithmetic): a different rounding, the same predictions but a few
    size_t same = 0;
    for (size_t i = 0; i < N; i++) {
        size_t av = 0, ah = 0;
        for (size_t c = 1; c < O; c++) {
            if (lv[i * O + c] > lv[i * O + av]) av = c;
            if (lh[i * O + c] > lh[i * O + ah]) ah = c;
        }
        same += av == ah;
    }
    EXPECT_GE(same, N - 2);
    EXPECT_NE(0, memcmp(lv.data(), lh.data(), lv.size() * sizeof(float)));
    const size_t hv = spu_net_host_ops_on(f.net, SPU_NET_INT8, SPU_FEATURE_VECTOR, nullptr, 0);
    const size_t hh = spu_net_host_ops_on(f.net, SPU_NET_INT8, 0, nullptr, 0);
    EXPECT_EQ(hh, spu_net_host_ops(f.net, nullptr, 0));
    EXPECT_EQ(spu_net_host_ops_on(f.net, SPU_NET_E4M3, SPU_FEATURE_VECTOR, nullptr, 0), hh);
    std::vector<const char *> names(hv);
    spu_net_host_ops_on(f.net, SPU_NET_INT8, SPU_FEATURE_VECTOR, names.data(), hv);
    size_t relus_on_host = 0, softmax_on_host = 0;
    for (const char *s : names) relus_on_host += strstr(s, ":relu") != nullptr;
    for (const char *s : names) softmax_on_host += strstr(s, ":softmax") != nullptr;
    // every relu of the shipped models follows a dense or conv2d that reads
    // nothing else, so its GEMM's output pipeline applies it (fuse_relus)
    // and none is left for the vector unit (Graph.VectorReluOnUnfusedRelu
    // covers that lowering)
    EXPECT_EQ(hv + 2, hh);                 // l0.attn:softmax, l1.attn:softmax
    EXPECT_EQ(relus_on_host, 0u);
    EXPECT_EQ(softmax_on_host, 0u);
    EXPECT_NE(sv.cycles, sh.cycles);
    spu_net_stats_free(&sv);
    spu_net_stats_free(&sh);
    spu_close(vec);
    spu_close(novec);
}
