// test_vector_kernels.cc -- the vector-unit kernels of spu/vector.h on the
// in-process model, against plain C++ references of docs/isa.md "Vector
// unit" (the model itself is checked against the RTL in tests/rtl_core).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
#include "spu/spu.h"
#include "spu/vector.h"
}

namespace {

struct Dev {
    spu_device *d = nullptr;
    explicit Dev(const char *uri) { EXPECT_EQ(spu_open(&d, uri), 0) << uri; }
    ~Dev() { spu_close(d); }
};

int8_t sat(int v) { return (int8_t)std::min(127, std::max(-128, v)); }
int8_t rne_div128(int p)   // round(p / 128), ties to even, then clamp
{
    int fl = (p >= 0) ? p / 128 : -((-p + 127) / 128);
    int rem = p - fl * 128;
    int q = fl + (rem > 64 || (rem == 64 && (fl & 1)));
    return sat(q);
}

std::vector<int8_t> rnd_vec(std::mt19937 &rng, size_t n)
{
    std::vector<int8_t> v(n);
    for (auto &x : v) x = (int8_t)rng();
    return v;
}

class VecKernels : public ::testing::TestWithParam<const char *> {};

TEST_P(VecKernels, MapMatchesReference)
{
    Dev dev(GetParam());
    ASSERT_NE(dev.d, nullptr);
    std::mt19937 rng(5);
    // lengths: empty, one byte, not a word multiple, more than one piece
    for (size_t n : {size_t(0), size_t(1), size_t(37), size_t(5000), size_t(70001)}) {
        SCOPED_TRACE(n);
        auto a = rnd_vec(rng, n), b = rnd_vec(rng, n);
        uint8_t lut[256];
        for (auto &v : lut) v = (uint8_t)rng();
        std::vector<int8_t> y(n), want(n);
        for (int op : {SPU_VEC_ADD, SPU_VEC_SUB, SPU_VEC_MUL, SPU_VEC_MAX, SPU_VEC_LUT}) {
            for (size_t i = 0; i < n; i++) {
                int x = a[i], z = b[i];
                want[i] = op == SPU_VEC_ADD ? sat(x + z) : op == SPU_VEC_SUB ? sat(x - z)
                        : op == SPU_VEC_MUL ? rne_div128(x * z) : op == SPU_VEC_MAX ? (int8_t)std::max(x, z)
                        : (int8_t)lut[(uint8_t)x];
            }
            spu_vec_stats st{};
            ASSERT_EQ(spu_vec_map(dev.d, (spu_vec_op)op, a.data(), b.data(), 0, lut, y.data(), n, &st), 0)
                << "op " << op;
            EXPECT_EQ(y, want) << "op " << op;
            if (n) {
                EXPECT_GT(st.vec_busy, 0u);
            }
        }
        // broadcast: ReLU (max with 0) and a scale by 96/128, in place
        std::vector<int8_t> r(a);
        ASSERT_EQ(spu_vec_map(dev.d, SPU_VEC_MAX, r.data(), nullptr, 0, nullptr, r.data(), n, nullptr), 0);
        for (size_t i = 0; i < n; i++) ASSERT_EQ(r[i], std::max<int8_t>(a[i], 0)) << i;
        ASSERT_EQ(spu_vec_map(dev.d, SPU_VEC_MUL, a.data(), nullptr, 96, nullptr, y.data(), n, nullptr), 0);
        for (size_t i = 0; i < n; i++) ASSERT_EQ(y[i], rne_div128(a[i] * 96)) << i;
    }
}

TEST_P(VecKernels, RowReductionsAndMaxPool)
{
    Dev dev(GetParam());
    std::mt19937 rng(6);
    const size_t rows = 5, len = 45;
    auto x = rnd_vec(rng, rows * len);
    x[3] = 127;                                  // a row whose max is the extreme
    std::vector<int8_t> mx(rows);
    std::vector<int32_t> sm(rows);
    ASSERT_EQ(spu_vec_rows(dev.d, x.data(), rows, len, mx.data(), sm.data(), nullptr), 0);
    for (size_t r = 0; r < rows; r++) {
        int m = -128, s = 0;
        for (size_t i = 0; i < len; i++) { m = std::max<int>(m, x[r * len + i]); s += x[r * len + i]; }
        EXPECT_EQ(mx[r], m) << r;
        EXPECT_EQ(sm[r], s) << r;
    }
    // all -128: the max padding must not win
    std::vector<int8_t> neg(len, -128);
    ASSERT_EQ(spu_vec_rows(dev.d, neg.data(), 1, len, mx.data(), sm.data(), nullptr), 0);
    EXPECT_EQ(mx[0], -128);
    EXPECT_EQ(sm[0], -128 * (int)len);

    spu_info_t in;
    ASSERT_EQ(spu_info(dev.d, &in), 0);
    const size_t C = 2 * in.word_bytes, H = 28, W = 28;
    auto t = rnd_vec(rng, H * W * C);
    std::vector<int8_t> y(H / 2 * W / 2 * C), want(y.size());
    for (size_t i = 0; i < H / 2; i++)
        for (size_t j = 0; j < W / 2; j++)
            for (size_t c = 0; c < C; c++) {
                int m = -128;
                for (size_t di = 0; di < 2; di++)
                    for (size_t dj = 0; dj < 2; dj++)
                        m = std::max<int>(m, t[((2 * i + di) * W + 2 * j + dj) * C + c]);
                want[(i * (W / 2) + j) * C + c] = (int8_t)m;
            }
    spu_vec_stats st{};
    ASSERT_EQ(spu_vec_maxpool2_hwc(dev.d, t.data(), C, H, W, y.data(), &st), 0);
    EXPECT_EQ(y, want);
    EXPECT_GT(st.cycles, 0u);
    EXPECT_EQ(spu_vec_maxpool2_hwc(dev.d, t.data(), C + 1, H, W, y.data(), nullptr), SPU_EINVAL);
    EXPECT_EQ(spu_vec_maxpool2_hwc(dev.d, t.data(), C, H - 1, W, y.data(), nullptr), SPU_EINVAL);
}

// Device softmax (firmware/vec_softmax.s): the plain loop of the documented
// arithmetic (docs/runtime.md "Device softmax"), bit for bit, and within
// the int8 grid of the float softmax of the same codes.
int8_t ref_div_away(int e, int64_t S)   // round(e * 128 / S), ties away, e >= 0
{
    if (S <= 0) return 0;
    const int64_t num = (int64_t)e * 128, q = num / S + (2 * (num % S) >= S);
    return (int8_t)std::min<int64_t>(127, q);
}

TEST_P(VecKernels, SoftmaxRowsEqualPlainLoop)
{
    Dev dev(GetParam());
    spu_info_t in;
    ASSERT_EQ(spu_info(dev.d, &in), 0);
    std::mt19937 rng(11);
    const double step = 0.07;
    uint8_t lut[256];
    spu_vec_exp_lut(step, lut);
    EXPECT_EQ(lut[0], 127);
    EXPECT_EQ(lut[(uint8_t)-128], 0);
    EXPECT_EQ(lut[(uint8_t)-10], (uint8_t)std::lround(127.0 * std::exp(-0.7)));
    for (size_t len : {size_t(in.word_bytes), size_t(2 * in.word_bytes), size_t(16 * in.word_bytes)})
        for (size_t rows : {size_t(1), size_t(7), size_t(600)}) {
            SCOPED_TRACE(::testing::Message() << "len " << len << " rows " << rows);
            auto x = rnd_vec(rng, rows * len);
            x[0] = -128;                                       // extremes in the first row
            if (rows > 1) std::fill(x.begin() + len, x.begin() + 2 * len, (int8_t)-128);   // a flat row
            std::vector<int8_t> y(rows * len), want(rows * len);
            for (size_t r = 0; r < rows; r++) {
                const int8_t *xr = &x[r * len];
                int m = -128;
                for (size_t i = 0; i < len; i++) m = std::max<int>(m, xr[i]);
                int64_t S = 0;
                std::vector<int> e(len);
                for (size_t i = 0; i < len; i++) { e[i] = lut[(uint8_t)sat(xr[i] - m)]; S += e[i]; }
                double fs = 0;
                for (size_t i = 0; i < len; i++) fs += std::exp((xr[i] - m) * step);
                for (size_t i = 0; i < len; i++) {
                    want[r * len + i] = ref_div_away(e[i], S);
                    // the int8 path against the float softmax: e's rounding
                    // (1/254 relative to the max lane) and p's (1/256)
                    const double pf = std::exp((xr[i] - m) * step) / fs;
                    EXPECT_NEAR(want[r * len + i] / 128.0, pf, 0.5 / 128 + 0.5 / 127 + 0.01) << r << " " << i;
                }
            }
            spu_vec_stats st{};
            ASSERT_EQ(spu_vec_softmax_rows(dev.d, x.data(), rows, len, lut, y.data(), &st), 0);
            ASSERT_EQ(y, want);
            EXPECT_GT(st.vec_busy, 0u);
            // in place
            std::vector<int8_t> z(x);
            ASSERT_EQ(spu_vec_softmax_rows(dev.d, z.data(), rows, len, lut, z.data(), nullptr), 0);
            ASSERT_EQ(z, want);
        }
    std::vector<int8_t> x(3 * in.word_bytes), y(x.size());
    EXPECT_EQ(spu_vec_softmax_rows(dev.d, x.data(), 1, in.word_bytes + 1, lut, y.data(), nullptr), SPU_EINVAL);
    EXPECT_EQ(spu_vec_softmax_rows(dev.d, x.data(), 1, in.word_bytes, nullptr, y.data(), nullptr), SPU_EINVAL);
}

INSTANTIATE_TEST_SUITE_P(Devices, VecKernels,
                         ::testing::Values("model", "model?rows=4&cols=4&spad=8192&banks=2&ucode=256&lanes=1"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                             return std::string(i.index == 0 ? "model8x8" : "model4x4");
                         });

TEST(VecKernels, DeviceWithoutTheUnitSaysSo)
{
    Dev dev("model?vector=0");
    int8_t a[4] = {1, 2, 3, 4}, y[4];
    EXPECT_EQ(spu_vec_map(dev.d, SPU_VEC_ADD, a, a, 0, nullptr, y, 4, nullptr), SPU_ENOTSUP);
    uint8_t lut[256] = {0};
    EXPECT_EQ(spu_vec_softmax_rows(dev.d, a, 1, 4, lut, y, nullptr), SPU_ENOTSUP);
    spu_info_t in;
    ASSERT_EQ(spu_info(dev.d, &in), 0);
    EXPECT_EQ(in.features & SPU_FEATURE_VECTOR, 0u);
}

}  // namespace
