// test_mx.cc -- MX operands (OCP MX v1.0: mxfp8_e4m3, mxfp8_e5m2, mxint8
// with E8M0 block scales of 32 elements along K) on the reference model
// (docs/numerics.md "MX on the array"): GEMMs over a shape sweep (K = 1, not
// a multiple of 32, one element per row) of inputs quantized by the numerics
// library against the independent reference exact_ref::dot_exact_mx
// (tests/common/exact_dot.h: doubles and integers, no model code); the
// block rule on chosen values (exact block sum, one RNE onto the 2^-32 grid
// per block, the register's overflow, NaN scales); the mm cost (K +
// ceil(K/32) word steps); a build without MX refuses it; `spu gemm --dtype
// mxfp8_e4m3|mxfp8_e5m2|mxint8`.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../common/exact_dot.h"
#include "run_cmd.h"

// spu/isa.h and spu/numerics.h share names: the dtype codes come from the
// table itself here (hw/isa/spu_cfg.def)
extern "C" {
#include "spu/gemm.h"
#include "spu/model.h"
#include "spu/npy.h"
#include "spu/numerics.h"
#include "spu/spu.h"
}

namespace {

enum {
#define SPU_DTYPE(n, k, c, b, a) SPU_DTYPE_##n = (c),
#include "spu_cfg.def"
};

const unsigned kMx[] = {SPU_DTYPE_MXFP8_E4M3, SPU_DTYPE_MXFP8_E5M2, SPU_DTYPE_MXINT8,
                        SPU_DTYPE_MXFP6_E3M2, SPU_DTYPE_MXFP6_E2M3, SPU_DTYPE_MXFP4_E2M1};
const unsigned kNarrow[] = {SPU_DTYPE_MXFP6_E3M2, SPU_DTYPE_MXFP6_E2M3, SPU_DTYPE_MXFP4_E2M1};
const uint32_t kAllMx = (1u << SPU_DTYPE_MXFP8_E4M3) | (1u << SPU_DTYPE_MXFP8_E5M2) | (1u << SPU_DTYPE_MXINT8) |
                        (1u << SPU_DTYPE_MXFP6_E3M2) | (1u << SPU_DTYPE_MXFP6_E2M3) | (1u << SPU_DTYPE_MXFP4_E2M1);

exact_ref::MxElem elem_of(unsigned in)
{
    return in == SPU_DTYPE_MXFP8_E4M3 ? exact_ref::MX_E4M3 : in == SPU_DTYPE_MXFP8_E5M2 ? exact_ref::MX_E5M2
         : in == SPU_DTYPE_MXFP6_E3M2 ? exact_ref::MX_E3M2 : in == SPU_DTYPE_MXFP6_E2M3 ? exact_ref::MX_E2M3
         : in == SPU_DTYPE_MXFP4_E2M1 ? exact_ref::MX_E2M1 : exact_ref::MX_INT8;
}
spu_mx_fmt lib_of(unsigned in)
{
    return in == SPU_DTYPE_MXFP8_E4M3 ? SPU_MX_FP8_E4M3 : in == SPU_DTYPE_MXFP8_E5M2 ? SPU_MX_FP8_E5M2
         : in == SPU_DTYPE_MXFP6_E3M2 ? SPU_MX_FP6_E3M2 : in == SPU_DTYPE_MXFP6_E2M3 ? SPU_MX_FP6_E2M3
         : in == SPU_DTYPE_MXFP4_E2M1 ? SPU_MX_FP4_E2M1 : SPU_MX_INT8;
}

// An MX GEMM's operands: A[M][K] codes, SA[M][nb]; B[K][N] codes, SB[nb][N]
struct MxOps {
    uint32_t M, N, K, nb;
    std::vector<uint8_t> A, SA, B, SB;
};

// float32 inputs quantized by the library along K (rows of A, columns of B)
MxOps quantize(unsigned in, uint32_t M, uint32_t N, uint32_t K, std::mt19937 &rng, float range)
{
    MxOps o{M, N, K, (K + 31) / 32, {}, {}, {}, {}};
    std::uniform_real_distribution<float> d(-range, range);
    std::vector<float> a((size_t)M * K), bt((size_t)N * K);
    for (auto &v : a) v = d(rng);
    for (auto &v : bt) v = d(rng);
    o.A.resize(a.size());
    o.SA.resize((size_t)M * o.nb);
    std::vector<uint8_t> bc(bt.size()), bs((size_t)N * o.nb);
    EXPECT_EQ(spu_mx_quantize(lib_of(in), a.data(), M, K, nullptr, o.A.data(), o.SA.data(), nullptr), 0);
    EXPECT_EQ(spu_mx_quantize(lib_of(in), bt.data(), N, K, nullptr, bc.data(), bs.data(), nullptr), 0);
    o.B.resize(bt.size());
    o.SB.resize(bs.size());
    for (uint32_t j = 0; j < N; j++) {
        for (uint32_t k = 0; k < K; k++) o.B[(size_t)k * N + j] = bc[(size_t)j * K + k];
        for (uint32_t g = 0; g < o.nb; g++) o.SB[(size_t)g * N + j] = bs[(size_t)j * o.nb + g];
    }
    return o;
}

std::vector<uint32_t> run(spu_device *dev, unsigned in, unsigned out, const MxOps &o, spu_gemm_stats *st = nullptr,
                          int expect = 0)
{
    const uint32_t ob = out == SPU_DTYPE_F32 ? 4 : 2;
    std::vector<uint8_t> c((size_t)o.M * o.N * ob);
    const spu_gemm_epilogue e = { out, 0, 0, 0, SPU_ROUND_RNE, nullptr };
    EXPECT_EQ(spu_gemm_mx(dev, in, &e, o.M, o.N, o.K, o.A.data(), o.SA.data(), o.B.data(), o.SB.data(), c.data(),
                          nullptr, st), expect);
    std::vector<uint32_t> r((size_t)o.M * o.N);
    for (size_t i = 0; i < r.size(); i++) {
        uint32_t v = 0;
        std::memcpy(&v, &c[i * ob], ob);
        r[i] = v;
    }
    return r;
}

exact_ref::ExactSum ref(unsigned in, const MxOps &o, uint32_t i, uint32_t j)
{
    return exact_ref::dot_exact_mx(elem_of(in), &o.A[(size_t)i * o.K], 1, &o.B[j], o.N, o.K,
                                   &o.SA[(size_t)i * o.nb], 1, &o.SB[j], o.N);
}

TEST(Mx, GemmShapeSweepMatchesExactReference)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    std::mt19937 rng(2026);
    struct S { uint32_t M, N, K; } shapes[] = {{1, 1, 1}, {8, 8, 32}, {3, 5, 31}, {9, 17, 33}, {5, 3, 100},
                                               {1, 13, 64}, {12, 1, 70}};
    int n = 0;
    for (unsigned in : kMx)
        for (const S &s : shapes) {
            MxOps o = quantize(in, s.M, s.N, s.K, rng, n % 3 == 0 ? 1e-6f : n % 3 == 1 ? 4.0f : 3e4f);
            // a NaN scale in some rows / columns
            if (n % 2) o.SA[0] = 0xFF;
            if (n % 3 == 2) o.SB[o.SB.size() - 1] = 0xFF;
            const unsigned out = n % 2 ? SPU_DTYPE_BF16 : SPU_DTYPE_F32;
            spu_gemm_stats st{};
            std::vector<uint32_t> c = run(dev, in, out, o, &st);
            for (uint32_t i = 0; i < s.M; i++)
                for (uint32_t j = 0; j < s.N; j++) {
                    const auto x = ref(in, o, i, j);
                    const uint32_t w = out == SPU_DTYPE_F32 ? exact_ref::round_to(exact_ref::F32, x, -32, false, true)
                                                           : exact_ref::round_to(exact_ref::BF16, x, -32, false, false);
                    ASSERT_EQ(c[(size_t)i * s.N + j], w) << "in " << in << " " << s.M << "x" << s.N << "x" << s.K
                                                         << " C[" << i << "][" << j << "]";
                }
            // cost: K + ceil(K/32) word steps per output block
            const uint64_t blocks = (uint64_t)((s.M + 7) / 8) * ((s.N + 7) / 8);
            EXPECT_EQ(st.mac_active, (s.K + (s.K + 31) / 32) * blocks) << s.M << "x" << s.N << "x" << s.K;
            n++;
        }
    EXPECT_EQ(n, 42);
    spu_close(dev);
}

// mxfp6 / mxfp4 elements are widened to e4m3 codes (spu_load_unit, the
// model's spu_dp_mx_widen): every product of two byte values (high bits
// included, which the device ignores) in a 256 x 256 GEMM of K = 1, and
// every code times 1.0 against the library's decode -- each against the
// exact reference, which decodes the formats from their definitions.
TEST(Mx, NarrowElementsEveryCodePair)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    for (unsigned in : kNarrow) {
        MxOps o{256, 256, 1, 1, std::vector<uint8_t>(256), std::vector<uint8_t>(256, 127),
                std::vector<uint8_t>(256), std::vector<uint8_t>(256, 127)};
        for (uint32_t i = 0; i < 256; i++) o.A[i] = o.B[i] = (uint8_t)i;
        std::vector<uint32_t> c = run(dev, in, SPU_DTYPE_F32, o);
        int nonzero = 0;
        for (uint32_t i = 0; i < 256; i++)
            for (uint32_t j = 0; j < 256; j++) {
                const uint32_t w = exact_ref::round_to(exact_ref::F32, ref(in, o, i, j), -32, false, true);
                ASSERT_EQ(c[(size_t)i * 256 + j], w) << "in " << in << " codes " << i << " x " << j;
                nonzero += (w & 0x7FFFFFFFu) != 0;
            }
        EXPECT_GT(nonzero, 256 * 190) << in;     // most pairs are no zero products (e2m1: 196/256)
        // the library's value of each code (the high bits masked): code x 1.0
        const unsigned bits = in == SPU_DTYPE_MXFP4_E2M1 ? 4 : 6;
        const uint8_t one = in == SPU_DTYPE_MXFP6_E3M2 ? 0x0C : in == SPU_DTYPE_MXFP6_E2M3 ? 0x08 : 0x02;   // 1.0
        ASSERT_EQ(exact_ref::decode_mx(elem_of(in), one), 1.0);
        for (uint32_t i = 0; i < 256; i++) {
            const float lib = spu_mx_dequant(lib_of(in), i & ((1u << bits) - 1u), 127);
            uint32_t got;
            std::memcpy(&got, &c[(size_t)i * 256 + one], 4);
            float g;
            std::memcpy(&g, &got, 4);
            EXPECT_EQ(g, lib) << "in " << in << " code " << i;
        }
    }
    spu_close(dev);
}

// The block rule on chosen values (mxint8: element code c is c x 2^-6, so
// a product of codes 1 and 1 is 2^-12; scales 127 = 2^0).
TEST(Mx, BlockSumExactThenOneRoundingPerBlock)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    auto one = [&](std::vector<uint8_t> a, std::vector<uint8_t> b, std::vector<uint8_t> sa, std::vector<uint8_t> sb) {
        MxOps o{1, 1, (uint32_t)a.size(), (uint32_t)sa.size(), a, sa, b, sb};
        std::vector<uint32_t> c = run(dev, SPU_DTYPE_MXINT8, SPU_DTYPE_F32, o);
        float f;
        std::memcpy(&f, &c[0], 4);
        return f;
    };
    // 2^-12 x 2^(106 + 127 - 254 = -21) = 2^-33: a tie below the grid -> 0 (even)
    EXPECT_EQ(one({1}, {1}, {106}, {127}), 0.0f);
    // 3 x 2^-33 = 1.5 grid units -> 2 (RNE)
    EXPECT_EQ(one({3}, {1}, {106}, {127}), std::ldexp(1.0f, -31));
    // two 2^-33 products in ONE block: the exact block sum 2^-32, rounded once
    // (a per-product rounding would give 0)
    EXPECT_EQ(one({1, 1}, {1, 1}, {106}, {127}), std::ldexp(1.0f, -32));
    // the same products in two blocks: each rounds to 0
    std::vector<uint8_t> a33(33, 0), b33(33, 0);
    a33[0] = a33[32] = 1;
    b33[0] = b33[32] = 1;
    EXPECT_EQ(one(a33, b33, {106, 106}, {127, 127}), 0.0f);
    // 127 x 127 x 2^-12 x 2^45 = 16129 x 2^33 < 2^47 fits; x 2 does not: the
    // register's overflow -> NaN
    EXPECT_EQ(one({127}, {127}, {127 + 45}, {127}), 16129.0f * std::ldexp(1.0f, 33));
    EXPECT_TRUE(std::isnan(one({127}, {127}, {127 + 46}, {127})));
    EXPECT_TRUE(std::isnan(one({127}, {127}, {254}, {254})));
    // a NaN scale (0xFF) is NaN even for a zero block
    EXPECT_TRUE(std::isnan(one({0}, {0}, {0xFF}, {127})));
    EXPECT_TRUE(std::isnan(one({5}, {5}, {127}, {0xFF})));
    // scales far below: 0
    EXPECT_EQ(one({127}, {127}, {0}, {0}), 0.0f);
    spu_close(dev);
}

// A build without MX (formats=0x1D) refuses it: SPU_ENOTSUP from the gemm, a
// cfg in=mxint8 traps FORMAT; the default model carries all three.
TEST(Mx, BuildWithoutMxRefusesIt)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model?formats=29"), 0);
    MxOps o{1, 1, 1, 1, {1}, {127}, {1}, {127}};
    run(dev, SPU_DTYPE_MXINT8, SPU_DTYPE_F32, o, nullptr, SPU_ENOTSUP);
    for (unsigned in : kMx) {
        EXPECT_EQ(spu_model_cfg_check(0x1Du, in, SPU_DTYPE_F32), SPU_TRAP_FORMAT);
        EXPECT_EQ(spu_model_cfg_check(0x1Du | kAllMx, in, SPU_DTYPE_F32), 0);
        EXPECT_EQ(spu_model_cfg_check(0x1Du | (kAllMx & ~(1u << in)), in, SPU_DTYPE_F32), SPU_TRAP_FORMAT);
        EXPECT_EQ(spu_model_cfg_check(0x1Du | kAllMx, SPU_DTYPE_F32, in), SPU_TRAP_ILLEGAL);   // no out
    }
    // the non-MX entry points refuse MX (they have no scales)
    uint8_t a = 1, b = 1;
    float c = 0;
    EXPECT_EQ(spu_gemm(dev, SPU_DTYPE_MXINT8, SPU_DTYPE_F32, 1, 1, 1, &a, &b, &c, nullptr, nullptr), SPU_EINVAL);
    spu_close(dev);
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    spu_info_t info;
    ASSERT_EQ(spu_info(dev, &info), 0);
    for (unsigned in : kMx) EXPECT_TRUE(info.formats & (1u << in)) << info.formats;
    spu_close(dev);
}

// `spu gemm --dtype mxfp8_e4m3|mxfp8_e5m2|mxint8`: float32 operands quantized
// by the library along K (bit-exact vs the CLI's own exact reference, SQNR
// of 8-bit elements with shared scales), --codes with uint8 codes and scale
// files, float32 .npy out, and bad input.
const std::string kSpu = std::string(SPU_BUILD_DIR) + "/bin/spu";
std::string tmp(const char *name) { return std::string(::testing::TempDir()) + "spu_mx_" + name; }

TEST(MxCli, GemmJsonCodesAndErrors)
{
    std::string o;
    for (const char *dt : {"mxfp8_e4m3", "mxfp8_e5m2", "mxint8"}) {
        ASSERT_EQ(run_cmd(kSpu + " gemm --device model --dtype " + dt + " --m 13 --n 11 --k 45 --seed 5 --json", &o,
                          true), 0) << o;
        for (const char *key : {"\"bitexact\":true", "\"out_dtype\":\"f32\"", "\"max_abs_err\":", "\"rel_rms_err\":",
                                "\"sqnr_db\":"})
            EXPECT_NE(o.find(key), std::string::npos) << key << " in " << o;
        EXPECT_NE(o.find(std::string("\"dtype\":\"") + dt + "\""), std::string::npos) << o;
        const double sqnr = std::atof(o.c_str() + o.find("\"sqnr_db\":") + 10);
        EXPECT_GT(sqnr, 15.0) << dt << " " << o;
        EXPECT_LT(sqnr, 60.0) << dt << " " << o;
    }
    // codes: mxint8 A = [64, 64 | 32] (1.0, 1.0, 0.5 at scale 2^0), B = 2.0 (code 64, scale 2^1)
    const uint32_t M = 1, K = 33, N = 2, nb = 2;
    spu_tensor a{}, b{}, sa{}, sb{};
    size_t da[2] = {M, K}, db[2] = {K, N}, dsa[2] = {M, nb}, dsb[2] = {nb, N};
    ASSERT_EQ(spu_tensor_alloc(&a, SPU_NPY_UINT8, 2, da), 0);
    ASSERT_EQ(spu_tensor_alloc(&b, SPU_NPY_UINT8, 2, db), 0);
    ASSERT_EQ(spu_tensor_alloc(&sa, SPU_NPY_UINT8, 2, dsa), 0);
    ASSERT_EQ(spu_tensor_alloc(&sb, SPU_NPY_UINT8, 2, dsb), 0);
    for (uint32_t k = 0; k < K; k++) ((uint8_t *)a.data)[k] = k < 32 ? 64 : 32;
    for (uint32_t i = 0; i < K * N; i++) ((uint8_t *)b.data)[i] = 64;
    ((uint8_t *)sa.data)[0] = 127;
    ((uint8_t *)sa.data)[1] = 127;
    for (uint32_t i = 0; i < nb * N; i++) ((uint8_t *)sb.data)[i] = 128;
    ((uint8_t *)sb.data)[3] = 0xFF;     // column 1's second block: NaN
    for (auto [t, n] : {std::pair{&a, "a.npy"}, {&b, "b.npy"}, {&sa, "sa.npy"}, {&sb, "sb.npy"}})
        ASSERT_EQ(spu_npy_save(tmp(n).c_str(), t), 0);
    const std::string files = " --a " + tmp("a.npy") + " --b " + tmp("b.npy");
    const std::string scales = " --a-scales " + tmp("sa.npy") + " --b-scales " + tmp("sb.npy");
    ASSERT_EQ(run_cmd(kSpu + " gemm --device model --dtype mxint8 --codes" + files + scales + " --out " + tmp("c.npy") +
                      " --json", &o, true), 0) << o;
    EXPECT_NE(o.find("\"bitexact\":true"), std::string::npos) << o;
    spu_tensor c{};
    char err[256];
    ASSERT_EQ(spu_npy_load(tmp("c.npy").c_str(), &c, err, sizeof err), 0) << err;
    ASSERT_EQ(c.dtype, SPU_NPY_FLOAT32);
    EXPECT_EQ(((float *)c.data)[0], 65.0f);     // 32 x 1 x 2 + 0.5 x 2
    EXPECT_TRUE(std::isnan(((float *)c.data)[1]));
    spu_tensor_free(&c);
    // codes without scales, scales without codes, wrong scale shape, a device without MX
    EXPECT_EQ(run_cmd(kSpu + " gemm --device model --dtype mxint8 --codes" + files, &o, true), 2) << o;
    EXPECT_EQ(run_cmd(kSpu + " gemm --device model --dtype mxint8 --m 2 --n 2 --k 2" + scales, &o, true), 2) << o;
    EXPECT_EQ(run_cmd(kSpu + " gemm --device model --dtype mxint8 --codes" + files + " --a-scales " + tmp("sb.npy") +
                      " --b-scales " + tmp("sb.npy"), &o, false), 1) << o;
    EXPECT_NE(o.find("MX scales"), std::string::npos) << o;
    EXPECT_EQ(run_cmd(kSpu + " gemm --device 'model?formats=29' --dtype mxfp8_e4m3 --m 2 --n 2 --k 2", &o, false), 1)
        << o;
    EXPECT_NE(o.find("does not carry mxfp8_e4m3"), std::string::npos) << o;
    for (spu_tensor *t : {&a, &b, &sa, &sb}) spu_tensor_free(t);
}

// spu gemm --dtype mxfp6_e3m2|mxfp6_e2m3|mxfp4_e2m1: float32 quantized along K
// (bitexact, errors vs fp64 in the range of their element bits), raw codes
// with scales (a chosen result), a code with bits above the format refused,
// a device without the format refused by name.
TEST(MxCli, NarrowGemmJsonCodesAndErrors)
{
    std::string o;
    double sq[3];
    int n = 0;
    for (const char *dt : {"mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1"}) {
        ASSERT_EQ(run_cmd(kSpu + " gemm --device model --dtype " + dt + " --m 9 --n 14 --k 70 --seed 3 --json", &o,
                          true), 0) << o;
        for (const char *key : {"\"bitexact\":true", "\"mismatches\":0", "\"max_abs_err\":", "\"sqnr_db\":"})
            EXPECT_NE(o.find(key), std::string::npos) << key << " in " << o;
        EXPECT_NE(o.find(std::string("\"dtype\":\"") + dt + "\""), std::string::npos) << o;
        sq[n++] = std::atof(o.c_str() + o.find("\"sqnr_db\":") + 10);
    }
    // more mantissa bits, more SQNR: e2m3 (3) > e3m2 (2) > e2m1 (1)
    EXPECT_GT(sq[1], sq[0] + 3) << sq[0] << " " << sq[1];
    EXPECT_GT(sq[0], sq[2] + 3) << sq[0] << " " << sq[2];
    EXPECT_GT(sq[2], 5.0);
    // codes: mxfp4_e2m1 A = [1.0 x 32 | 0.5] (codes 0x2, 0x1; scale 2^0), B = 2.0 (code 0x4) x 2^1 = 4
    const uint32_t K = 33, N = 2, nb = 2;
    spu_tensor a{}, b{}, sa{}, sb{};
    size_t da[2] = {1, K}, db[2] = {K, N}, dsa[2] = {1, nb}, dsb[2] = {nb, N};
    ASSERT_EQ(spu_tensor_alloc(&a, SPU_NPY_UINT8, 2, da), 0);
    ASSERT_EQ(spu_tensor_alloc(&b, SPU_NPY_UINT8, 2, db), 0);
    ASSERT_EQ(spu_tensor_alloc(&sa, SPU_NPY_UINT8, 2, dsa), 0);
    ASSERT_EQ(spu_tensor_alloc(&sb, SPU_NPY_UINT8, 2, dsb), 0);
    for (uint32_t k = 0; k < K; k++) ((uint8_t *)a.data)[k] = k < 32 ? 0x2 : 0x1;
    for (uint32_t i = 0; i < K * N; i++) ((uint8_t *)b.data)[i] = i % 2 ? 0xC : 0x4;   // column 1: -2.0
    ((uint8_t *)sa.data)[0] = ((uint8_t *)sa.data)[1] = 127;
    for (uint32_t i = 0; i < nb * N; i++) ((uint8_t *)sb.data)[i] = 128;
    for (auto [t, nm] : {std::pair{&a, "na.npy"}, {&b, "nb.npy"}, {&sa, "nsa.npy"}, {&sb, "nsb.npy"}})
        ASSERT_EQ(spu_npy_save(tmp(nm).c_str(), t), 0);
    const std::string files = " --a " + tmp("na.npy") + " --b " + tmp("nb.npy");
    const std::string scales = " --a-scales " + tmp("nsa.npy") + " --b-scales " + tmp("nsb.npy");
    ASSERT_EQ(run_cmd(kSpu + " gemm --device model --dtype mxfp4_e2m1 --codes" + files + scales + " --out " +
                      tmp("nc.npy") + " --json", &o, true), 0) << o;
    EXPECT_NE(o.find("\"bitexact\":true"), std::string::npos) << o;
    spu_tensor c{};
    char err[256];
    ASSERT_EQ(spu_npy_load(tmp("nc.npy").c_str(), &c, err, sizeof err), 0) << err;
    EXPECT_EQ(((float *)c.data)[0], 130.0f);     // 32 x 1 x 4 + 0.5 x 4
    EXPECT_EQ(((float *)c.data)[1], -130.0f);
    spu_tensor_free(&c);
    // the same bytes as mxfp6_e2m3 are other values: 0x2 = 0.25, 0x1 = 0.125, 0x4 = 0.5, 0xC = 1.5
    ASSERT_EQ(run_cmd(kSpu + " gemm --device model --dtype mxfp6_e2m3 --codes" + files + scales + " --out " +
                      tmp("nc.npy") + " --json", &o, true), 0) << o;
    ASSERT_EQ(spu_npy_load(tmp("nc.npy").c_str(), &c, err, sizeof err), 0) << err;
    EXPECT_EQ(((float *)c.data)[0], 8.125f);     // 32 x 0.25 x 1 + 0.125 x 1
    EXPECT_EQ(((float *)c.data)[1], 24.375f);    // 32 x 0.25 x 3 + 0.125 x 3
    spu_tensor_free(&c);
    // a byte with a bit above fp4's 4 bits: refused, exit 1, named
    ((uint8_t *)a.data)[5] = 0x12;
    ASSERT_EQ(spu_npy_save(tmp("na.npy").c_str(), &a), 0);
    EXPECT_EQ(run_cmd(kSpu + " gemm --device model --dtype mxfp4_e2m1 --codes" + files + scales, &o, false), 1) << o;
    EXPECT_NE(o.find("is no mxfp4_e2m1 code"), std::string::npos) << o;
    // ... but fits fp6's 6 bits
    EXPECT_EQ(run_cmd(kSpu + " gemm --device model --dtype mxfp6_e3m2 --codes" + files + scales, &o, false), 0) << o;
    // a device with the mxfp8 / mxint8 formats but not the narrow ones (0x39D = 925)
    EXPECT_EQ(run_cmd(kSpu + " gemm --device 'model?formats=925' --dtype mxfp6_e3m2 --m 2 --n 2 --k 2", &o, false), 1)
        << o;
    EXPECT_NE(o.find("does not carry mxfp6_e3m2"), std::string::npos) << o;
    for (spu_tensor *t : {&a, &b, &sa, &sb}) spu_tensor_free(t);
}

}  // namespace
