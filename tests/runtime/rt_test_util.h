// Helpers of the runtime tests that build small graphs on disk: a seeded
// uniform stream and a temporary directory that writes .npy and text files
// (and removes what it wrote).
#ifndef SPU_RT_TEST_UTIL_H
#define SPU_RT_TEST_UTIL_H

#include "spu/npy.h"
#include "spu/runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

// n values uniform in [a, b) from an xorshift32 stream seeded by seed
inline std::vector<float> rnd(size_t n, float a, float b, uint32_t seed)
{
    std::vector<float> v(n);
    uint32_t s = seed * 2654435761u + 1;
    for (auto &x : v) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        x = a + (b - a) * (float)(s >> 8) / (float)(1u << 24);
    }
    return v;
}

struct Dir {
    std::string d;
    std::vector<std::string> written;
    explicit Dir(const char *tag = "rt")
    {
        std::string t = std::string("/tmp/spu_") + tag + "XXXXXX";
        std::vector<char> buf(t.begin(), t.end());
        buf.push_back('\0');
        const char *p = mkdtemp(buf.data());
        d = p ? p : "";
    }
    ~Dir()
    {
        for (const auto &f : written)
            remove(f.c_str());
        if (!d.empty())
            rmdir(d.c_str());
    }
    std::string path(const std::string &f) const { return d + "/" + f; }
    void npy(const std::string &f, const std::vector<size_t> &shape, const std::vector<float> &v)
    {
        spu_tensor t;
        ASSERT_EQ(spu_tensor_alloc(&t, SPU_NPY_FLOAT32, (int)shape.size(), shape.data()), 0);
        ASSERT_EQ(spu_tensor_numel(&t), v.size());
        memcpy(t.data, v.data(), v.size() * 4);
        ASSERT_EQ(spu_npy_save(path(f).c_str(), &t), 0);
        spu_tensor_free(&t);
        written.push_back(path(f));
    }
    void text(const std::string &f, const std::string &s)
    {
        FILE *fp = fopen(path(f).c_str(), "w");
        ASSERT_NE(fp, nullptr);
        fputs(s.c_str(), fp);
        fclose(fp);
        written.push_back(path(f));
    }
};

// A shipped model (models/NAME/graph.json) and the Fashion-MNIST test set,
// freed on scope exit; images() gives test images as floats in [0, 1].
struct LoadedNet {
    spu_net *net = nullptr;
    spu_dataset ds{};
    ~LoadedNet()
    {
        spu_net_free(net);
        spu_dataset_free(&ds);
    }
    void load(const std::string &model)
    {
        char err[512] = "";
        const std::string g = std::string(SPU_SOURCE_DIR "/models/") + model + "/graph.json";
        ASSERT_EQ(spu_net_load(&net, g.c_str(), err, sizeof err), 0) << err;
        ASSERT_EQ(spu_fmnist_load(nullptr, "t10k", &ds, err, sizeof err), 0) << err;
    }
    std::vector<float> images(size_t off, size_t n) const
    {
        std::vector<float> v(n * 784);
        for (size_t i = 0; i < n * 784; i++)
            v[i] = ds.images[off * 784 + i] / 255.0f;
        return v;
    }
};

// round(acc / 2^sh) half to even, clamp to int8 -- the requantizer as
// docs/numerics.md states it, in integer arithmetic
inline int requant(int64_t acc, unsigned sh, bool relu)
{
    int64_t q = acc;
    if (sh) {
        const int64_t d = (int64_t)1 << sh;
        int64_t fl = acc >= 0 ? acc / d : -((-acc + d - 1) / d);   // floor
        const int64_t rem = acc - fl * d;                          // 0 .. d-1
        if (2 * rem > d || (2 * rem == d && (fl & 1)))
            fl++;
        q = fl;
    }
    q = q < -128 ? -128 : q > 127 ? 127 : q;
    return relu && q < 0 ? 0 : (int)q;
}

#endif
