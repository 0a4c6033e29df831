// test_bf16.cc -- bf16 operands on the reference model (docs/numerics.md
// "Datapath numerics"): every exponent pair of single products and random
// GEMMs over a shape sweep against the independent reference
// exact_ref::dot_exact_bf16 (tests/common/exact_dot.h: doubles, no model
// code), the grid rounding and the register's overflow at 2^47 on chosen
// values, the mm cost (2 word steps per k-step), and `spu gemm --dtype bf16`.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../common/exact_dot.h"
#include "run_cmd.h"

extern "C" {
#include "spu/gemm.h"
#include "spu/isa.h"
#include "spu/model.h"
#include "spu/npy.h"
#include "spu/spu.h"
}

namespace {

uint16_t bf(float f)     // exact bf16 values only (the tests' constants)
{
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return (uint16_t)(u >> 16);
}

// C[M][N] = A[M][K] x B[K][N] in bf16 on the model, out f32 or bf16 codes
std::vector<uint32_t> gemm(spu_device *dev, unsigned out, uint32_t M, uint32_t N, uint32_t K,
                           const std::vector<uint16_t> &A, const std::vector<uint16_t> &B, int relu = 0,
                           int ovf = 0, spu_gemm_stats *st = nullptr)
{
    const uint32_t ob = out == SPU_DTYPE_F32 ? 4 : 2;
    std::vector<uint8_t> c((size_t)M * N * ob);
    const spu_gemm_epilogue e = { out, relu, ovf, 0, SPU_ROUND_RNE, nullptr };
    EXPECT_EQ(spu_gemm_epi(dev, SPU_DTYPE_BF16, &e, M, N, K, A.data(), B.data(), c.data(), nullptr, st), 0);
    std::vector<uint32_t> r((size_t)M * N);
    for (size_t i = 0; i < r.size(); i++) {
        uint32_t v = 0;
        std::memcpy(&v, &c[i * ob], ob);
        r[i] = v;
    }
    return r;
}

uint32_t want(unsigned out, const exact_ref::ExactSum &x, bool relu = false, bool ovf = false)
{
    return out == SPU_DTYPE_F32 ? exact_ref::round_to(exact_ref::F32, x, -32, false, true)
                                : exact_ref::round_to(exact_ref::BF16, x, -32, relu, ovf);
}

// Every pair of biased exponents (0 .. 255: zeros / subnormals, normals,
// Inf / NaN) with four mantissas and both signs: 2 x 16 GEMMs of
// 256 x 256 x 1, each element one product.
TEST(Bf16, EveryExponentPairMatchesExactReference)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    const uint16_t mans[] = {0x00, 0x01, 0x40, 0x7F};
    long checked = 0;
    for (unsigned out : {SPU_DTYPE_F32, SPU_DTYPE_BF16})
        for (int ma = 0; ma < 4; ma++)
            for (int mb = 0; mb < 4; mb++) {
                std::vector<uint16_t> A(256), B(256);
                for (unsigned e = 0; e < 256; e++) {
                    A[e] = (uint16_t)((e & 1) << 15 | e << 7 | mans[ma]);
                    B[e] = (uint16_t)((e & 2) << 14 | e << 7 | mans[mb]);
                }
                std::vector<uint32_t> c = gemm(dev, out, 256, 256, 1, A, B);
                for (unsigned i = 0; i < 256; i++)
                    for (unsigned j = 0; j < 256; j++) {
                        const auto x = exact_ref::dot_exact_bf16(&A[i], 1, &B[j], 1, 1);
                        ASSERT_EQ(c[i * 256 + j], want(out, x))
                            << std::hex << "A " << A[i] << " B " << B[j] << " out " << std::dec << out;
                        checked++;
                    }
            }
    EXPECT_EQ(checked, 2L * 16 * 65536);
    spu_close(dev);
}

// The documented edges, on values: the grid (2^-32, RNE below it) and the
// register's range (a term or running sum of 2^47 or more: NaN).
TEST(Bf16, GridRoundingAndRegisterOverflow)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    auto one = [&](std::vector<float> a, std::vector<float> b) {
        std::vector<uint16_t> A, B;
        for (float v : a) A.push_back(bf(v));
        for (float v : b) B.push_back(bf(v));
        uint32_t u = gemm(dev, SPU_DTYPE_F32, 1, 1, (uint32_t)A.size(), A, B)[0];
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    };
    EXPECT_EQ(one({0x1p-20f}, {0x1p-12f}), 0x1p-32f);                 // on the grid
    EXPECT_EQ(one({0x1p-20f}, {0x1p-13f}), 0.0f);                     // 2^-33: a tie, to even (0)
    EXPECT_EQ(one({0x1.8p-20f}, {0x1p-13f}), 0x1p-32f);               // 1.5 x 2^-33: up
    EXPECT_EQ(one({0x1.8p-20f}, {0x1p-12f}), 0x1p-31f);               // 1.5 x 2^-32: a tie, to even (2)
    EXPECT_EQ(one({0x1p-20f, 1.0f}, {0x1p-13f, 1.0f}), 1.0f);         // the small term is gone
    EXPECT_EQ(one({0x1.fep23f}, {0x1p23f}), 0x1.fep46f);              // below 2^47: exact
    EXPECT_TRUE(std::isnan(one({0x1p24f}, {0x1p23f})));               // 2^47: does not fit
    EXPECT_TRUE(std::isnan(one({0x1.fep23f, 0x1.fep23f}, {0x1p23f, 0x1p23f})));   // the sum wraps
    EXPECT_EQ(one({0x1.fep23f, -0x1.fep23f}, {0x1p23f, 0x1p23f}), 0.0f);
    EXPECT_TRUE(std::isinf(one({INFINITY}, {0x1p-130f})));            // Inf x tiny: Inf, not 0
    EXPECT_TRUE(std::isnan(one({INFINITY}, {0.0f})));
    EXPECT_TRUE(std::isnan(one({INFINITY, -INFINITY}, {1.0f, 1.0f})));
    EXPECT_EQ(one({0x1p-127f}, {0x1p100f}), 0x1p-27f);                // a subnormal operand, exact
    spu_close(dev);
}

// Random GEMMs over shapes with K = 1, K not a multiple of 32, one row /
// column, several blocks; moderate values with some NaN / Inf / zeros /
// subnormals; f32 and bf16 outs (relu, sat / ovf). And the mm cost: 2
// word steps per k-step (mac_active 2 x K per block).
TEST(Bf16, GemmShapeSweepMatchesExactReference)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    std::mt19937 rng(11);
    struct Shape { uint32_t M, N, K; };
    int n = 0;
    for (Shape s : {Shape{1, 1, 1}, Shape{8, 8, 1}, Shape{3, 17, 33}, Shape{17, 1, 100}, Shape{9, 9, 31},
                    Shape{16, 24, 64}, Shape{1, 40, 257}})
        for (unsigned out : {SPU_DTYPE_F32, SPU_DTYPE_BF16}) {
            std::vector<uint16_t> A((size_t)s.M * s.K), B((size_t)s.K * s.N);
            auto gen = [&]() -> uint16_t {
                const uint16_t sg = (uint16_t)((rng() & 1) << 15), m = (uint16_t)(rng() & 0x7F);
                switch (rng() % 64) {
                case 0: return (uint16_t)(sg | 0x7F80);                 // Inf
                case 1: return (uint16_t)(sg | 0x7F80 | (m | 1));       // NaN
                case 2: return sg;                                       // zero
                case 3: return (uint16_t)(sg | m);                      // subnormal
                default: return (uint16_t)(sg | (112 + rng() % 30) << 7 | m);   // 2^-15 .. 2^15
                }
            };
            // mostly finite: specials in one operand of one block only
            for (auto &v : A) { v = gen(); if ((v & 0x7F80) == 0x7F80 && rng() % 4) v &= 0x3FFF; }
            for (auto &v : B) { v = gen(); if ((v & 0x7F80) == 0x7F80 && rng() % 4) v &= 0x3FFF; }
            const int relu = (int)(rng() & 1), ovf = (int)(rng() & 1);
            spu_gemm_stats st{};
            std::vector<uint32_t> c = gemm(dev, out, s.M, s.N, s.K, A, B, out == SPU_DTYPE_BF16 ? relu : 0,
                                           out == SPU_DTYPE_BF16 ? ovf : 0, &st);
            for (uint32_t i = 0; i < s.M; i++)
                for (uint32_t j = 0; j < s.N; j++) {
                    const auto x = exact_ref::dot_exact_bf16(&A[(size_t)i * s.K], 1, &B[j], s.N, s.K);
                    ASSERT_EQ(c[(size_t)i * s.N + j], want(out, x, out == SPU_DTYPE_BF16 && relu, ovf))
                        << s.M << "x" << s.N << "x" << s.K << " C[" << i << "][" << j << "] out " << out;
                }
            const uint64_t blocks = (uint64_t)((s.M + 7) / 8) * ((s.N + 7) / 8);
            EXPECT_EQ(st.mac_active, 2 * s.K * blocks) << s.M << "x" << s.N << "x" << s.K;
            n++;
        }
    EXPECT_EQ(n, 14);
    spu_close(dev);
}

// A build without bf16 (formats=13: int8 e4m3 e5m2) refuses it: the gemm
// says SPU_ENOTSUP, a cfg in=bf16 traps FORMAT.
TEST(Bf16, BuildWithoutBf16RefusesIt)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model?formats=13"), 0);
    spu_info_t info;
    ASSERT_EQ(spu_info(dev, &info), 0);
    EXPECT_EQ(info.formats, 13u);
    uint16_t a = 0x3F80, b = 0x3F80;
    float c = 0;
    EXPECT_EQ(spu_gemm(dev, SPU_DTYPE_BF16, SPU_DTYPE_F32, 1, 1, 1, &a, &b, &c, nullptr, nullptr), SPU_ENOTSUP);
    EXPECT_EQ(spu_model_cfg_check(13u, SPU_DTYPE_BF16, SPU_DTYPE_F32), SPU_TRAP_FORMAT);
    EXPECT_EQ(spu_model_cfg_check(0x1Du, SPU_DTYPE_BF16, SPU_DTYPE_F32), 0);
    spu_close(dev);
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    ASSERT_EQ(spu_info(dev, &info), 0);
    EXPECT_TRUE(info.formats & (1u << SPU_DTYPE_BF16)) << info.formats;
    spu_close(dev);
}

// `spu gemm --dtype bf16`: random float32 operands quantized by the library
// (bit-exact vs the CLI's own exact reference, SQNR of bf16's 8 bits),
// --codes with uint16 .npy, float32 .npy out.
const std::string kSpu = std::string(SPU_BUILD_DIR) + "/bin/spu";
std::string tmp(const char *name) { return std::string(::testing::TempDir()) + "spu_bf16_" + name; }

TEST(Bf16Cli, GemmJsonCodesAndErrors)
{
    std::string o;
    ASSERT_EQ(run_cmd(kSpu + " gemm --device model --dtype bf16 --m 13 --n 11 --k 45 --seed 5 --json", &o, true), 0)
        << o;
    for (const char *key : {"\"dtype\":\"bf16\"", "\"bitexact\":true", "\"out_dtype\":\"f32\"", "\"max_abs_err\":",
                            "\"rel_rms_err\":", "\"sqnr_db\":"})
        EXPECT_NE(o.find(key), std::string::npos) << key << " in " << o;
    const double sqnr = std::atof(o.c_str() + o.find("\"sqnr_db\":") + 10);
    EXPECT_GT(sqnr, 45.0) << o;     // 8 significant bits per operand
    EXPECT_LT(sqnr, 70.0) << o;
    // uint16 codes: A = 1.5 (0x3FC0) and -2^-3 (0xBE00), B = 2.0 (0x4000)
    const uint32_t M = 2, K = 3, N = 2;
    spu_tensor a{}, b{};
    size_t sa[2] = {M, K}, sb[2] = {K, N};
    ASSERT_EQ(spu_tensor_alloc(&a, SPU_NPY_UINT16, 2, sa), 0);
    ASSERT_EQ(spu_tensor_alloc(&b, SPU_NPY_UINT16, 2, sb), 0);
    for (uint32_t i = 0; i < M * K; i++) ((uint16_t *)a.data)[i] = i < K ? 0x3FC0 : 0xBE00;
    for (uint32_t i = 0; i < K * N; i++) ((uint16_t *)b.data)[i] = 0x4000;
    ASSERT_EQ(spu_npy_save(tmp("a.npy").c_str(), &a), 0);
    ASSERT_EQ(spu_npy_save(tmp("b.npy").c_str(), &b), 0);
    ASSERT_EQ(run_cmd(kSpu + " gemm --device model --dtype bf16 --codes --a " + tmp("a.npy") + " --b " +
                      tmp("b.npy") + " --out " + tmp("c.npy") + " --json", &o, true), 0) << o;
    EXPECT_NE(o.find("\"bitexact\":true"), std::string::npos) << o;
    spu_tensor c{};
    char err[256];
    ASSERT_EQ(spu_npy_load(tmp("c.npy").c_str(), &c, err, sizeof err), 0) << err;
    ASSERT_EQ(c.dtype, SPU_NPY_FLOAT32);
    EXPECT_EQ(((float *)c.data)[0], 9.0f);      // 3 x 1.5 x 2
    EXPECT_EQ(((float *)c.data)[3], -0.75f);    // 3 x -0.125 x 2
    spu_tensor_free(&c);
    // int32 out needs int8 inputs (usage); uint16 codes are not e4m3 codes;
    // a device without bf16
    EXPECT_EQ(run_cmd(kSpu + " gemm --device model --dtype bf16 --codes --a " + tmp("a.npy") + " --b " +
                      tmp("b.npy") + " --out-dtype int32", &o, true), 2) << o;
    EXPECT_EQ(run_cmd(kSpu + " gemm --device model --dtype e4m3 --codes --a " + tmp("a.npy") + " --b " +
                      tmp("b.npy"), &o, true), 1) << o;
    EXPECT_EQ(run_cmd(kSpu + " gemm --device 'model?formats=13' --dtype bf16 --m 2 --n 2 --k 2", &o, false), 1)
        << o;
    EXPECT_NE(o.find("does not carry bf16"), std::string::npos) << o;
    spu_tensor_free(&a);
    spu_tensor_free(&b);
}

}  // namespace
