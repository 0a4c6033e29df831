// test_datapath.cc -- the float datapath of the reference model (docs/numerics.md
// "Datapath numerics") through the public API: spu_gemm in e4m3 / e5m2 with
// f32 output against an independent exact-rational reference
// (tests/common/exact_dot.h, no model code), over a shape sweep with K not a
// multiple of 32, K = 1 and one element per row; NaN / Inf / subnormal and
// largest-magnitude inputs; the FORMAT trap and INFO formats of a model
// that carries int8 only.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "../common/exact_dot.h"

extern "C" {
#include "spu/gemm.h"
#include "spu/isa.h"
#include "spu/model.h"
#include "spu/spu.h"
}

namespace {

// operand codes: 0 finite, 1 mostly subnormal / zero, 2 largest magnitudes,
// 3 finite with a few NaN / Inf
uint8_t code(std::mt19937 &rng, bool e4, int mode)
{
    auto finite = [&](uint8_t c) { return e4 ? (c & 0x7F) != 0x7F : (c & 0x7C) != 0x7C; };
    uint8_t c = (uint8_t)rng();
    switch (mode) {
    case 1: return (uint8_t)((c & 0x80) | (c & (e4 ? 0x07 : 0x03)));
    case 2: return (uint8_t)((c & 0x80) | (e4 ? 0x78 + (c & 6) : 0x78 + (c & 3)));
    case 3:
        if (rng() % 97 == 0) return e4 ? (uint8_t)(0x7F | (c & 0x80)) : (uint8_t)(0x7C | (c & 0x83));
        [[fallthrough]];
    default:
        while (!finite(c)) c = (uint8_t)rng();
        return c;
    }
}

struct Shape { uint32_t M, N, K; };

TEST(Datapath, FloatGemmMatchesExactReference)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    const Shape shapes[] = {{1, 1, 1}, {8, 8, 1}, {3, 5, 31}, {8, 8, 32}, {9, 7, 33}, {1, 17, 100},
                            {17, 1, 65}, {16, 16, 257}, {5, 3, 2000}};
    int checked = 0;
    for (unsigned dt : {SPU_DTYPE_E4M3, SPU_DTYPE_E5M2}) {
        const bool e4 = dt == SPU_DTYPE_E4M3;
        const exact_ref::Fmt f = e4 ? exact_ref::E4M3 : exact_ref::E5M2;
        for (const Shape &s : shapes)
            for (int mode = 0; mode < 4; mode++) {
                SCOPED_TRACE(::testing::Message() << "dt " << dt << " " << s.M << "x" << s.N << "x" << s.K
                                                  << " mode " << mode);
                std::mt19937 rng(s.M * 131 + s.N * 17 + s.K + mode * 1000 + dt);
                std::vector<uint8_t> A((size_t)s.M * s.K), B((size_t)s.K * s.N);
                for (auto &v : A) v = code(rng, e4, mode);
                for (auto &v : B) v = code(rng, e4, mode);
                std::vector<float> C((size_t)s.M * s.N, 7.0f);
                ASSERT_EQ(spu_gemm(dev, dt, SPU_DTYPE_F32, s.M, s.N, s.K, A.data(), B.data(), C.data(),
                                   nullptr, nullptr), 0);
                for (uint32_t i = 0; i < s.M; i++)
                    for (uint32_t j = 0; j < s.N; j++) {
                        uint32_t got;
                        std::memcpy(&got, &C[(size_t)i * s.N + j], 4);
                        ASSERT_EQ(got, exact_ref::dot_f32(f, &A[(size_t)i * s.K], 1, &B[j], s.N, s.K))
                            << "C[" << i << "][" << j << "]";
                        checked++;
                    }
            }
    }
    EXPECT_GT(checked, 4000);
    spu_close(dev);
}

TEST(Datapath, RoundsOnceNotPerProduct)
{
    // 8 x 8 = 64 first, then 1024 products 2^-9 x 2^-9 = 2^-18 (the e4m3
    // minimum subnormal squared): each is half an ulp of 64 in f32, so a
    // k-order f32 accumulator rounds every add back to 64 (ties to even);
    // the exact accumulator gives 64 + 2^-8, which f32 holds exactly
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    const uint32_t K = 1025;
    std::vector<uint8_t> A(K, 0x01), B(K, 0x01);   // 2^-9 each
    A[0] = 0x50; B[0] = 0x50;                       // 8.0 x 8.0 first
    float c = 0;
    ASSERT_EQ(spu_gemm(dev, SPU_DTYPE_E4M3, SPU_DTYPE_F32, 1, 1, K, A.data(), B.data(), &c, nullptr,
                       nullptr), 0);
    EXPECT_EQ(c, 64.0f + 1024.0f / 262144.0f);
    volatile float seq = 64.0f;   // the k-order f32 sum loses every term
    for (uint32_t k = 1; k < K; k++) seq = seq + 1.0f / 262144.0f;
    EXPECT_EQ(seq, 64.0f);
    spu_close(dev);
}

TEST(Datapath, IntGemmThroughGeneralApiEqualsI8)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model?spad=16384&banks=2"), 0);   // K split into pieces
    const uint32_t M = 11, N = 13, K = 3000;
    std::mt19937 rng(3);
    std::vector<int8_t> A((size_t)M * K), B((size_t)K * N);
    for (auto &v : A) v = (int8_t)rng();
    for (auto &v : B) v = (int8_t)rng();
    std::vector<int32_t> c1((size_t)M * N), c2((size_t)M * N), ref((size_t)M * N);
    ASSERT_EQ(spu_gemm_i8(dev, M, N, K, A.data(), B.data(), c1.data(), nullptr, nullptr), 0);
    ASSERT_EQ(spu_gemm(dev, SPU_DTYPE_INT8, SPU_DTYPE_INT32, M, N, K, A.data(), B.data(), c2.data(),
                       nullptr, nullptr), 0);
    spu_gemm_i8_reference(M, N, K, A.data(), B.data(), ref.data());
    EXPECT_EQ(c1, ref);
    EXPECT_EQ(c2, ref);
    // int8 -> f32: the exact integer sum rounded once
    std::vector<float> cf((size_t)M * N);
    EXPECT_EQ(spu_gemm(dev, SPU_DTYPE_INT8, SPU_DTYPE_F32, M, N, K, A.data(), B.data(), cf.data(),
                       nullptr, nullptr), SPU_ENOTSUP);   // float K over one piece
    ASSERT_EQ(spu_gemm(dev, SPU_DTYPE_INT8, SPU_DTYPE_F32, M, N, 500, A.data(), B.data(), cf.data(),
                       nullptr, nullptr), 0);
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            int64_t s = 0;
            for (uint32_t k = 0; k < 500; k++) s += A[(size_t)i * 500 + k] * B[(size_t)k * N + j];
            ASSERT_EQ(cf[(size_t)i * N + j], (float)s);
        }
    EXPECT_EQ(spu_gemm(dev, SPU_DTYPE_E4M3, SPU_DTYPE_INT32, M, N, 1, A.data(), B.data(), c2.data(),
                       nullptr, nullptr), SPU_EINVAL);
    EXPECT_EQ(spu_gemm(dev, SPU_DTYPE_INT32, SPU_DTYPE_F32, M, N, 1, A.data(), B.data(), c2.data(),
                       nullptr, nullptr), SPU_EINVAL);
    spu_close(dev);
}

TEST(Datapath, Int8OnlyBuildTrapsFormatAndSaysSo)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model?formats=1"), 0);
    spu_info_t info;
    ASSERT_EQ(spu_info(dev, &info), 0);
    EXPECT_EQ(info.formats, 1u);
    uint8_t a = 0x38, b = 0x38;
    float c = 0;
    EXPECT_EQ(spu_gemm(dev, SPU_DTYPE_E4M3, SPU_DTYPE_F32, 1, 1, 1, &a, &b, &c, nullptr, nullptr),
              SPU_ENOTSUP);
    EXPECT_EQ(spu_gemm(dev, SPU_DTYPE_INT8, SPU_DTYPE_F32, 1, 1, 1, &a, &b, &c, nullptr, nullptr),
              SPU_ENOTSUP);
    spu_close(dev);
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    ASSERT_EQ(spu_info(dev, &info), 0);
    EXPECT_EQ(info.formats, (1u << SPU_DTYPE_INT8) | (1u << SPU_DTYPE_E4M3) | (1u << SPU_DTYPE_E5M2) |
                                (1u << SPU_DTYPE_BF16) | (1u << SPU_DTYPE_MXFP8_E4M3) |
                                (1u << SPU_DTYPE_MXFP8_E5M2) | (1u << SPU_DTYPE_MXINT8) |
                                (1u << SPU_DTYPE_MXFP6_E3M2) | (1u << SPU_DTYPE_MXFP6_E2M3) |
                                (1u << SPU_DTYPE_MXFP4_E2M1));
    spu_close(dev);

    // the program-level trap: cfg in=e5m2 on an int8-only model
    spu_model_config mc;
    spu_model_config_default(&mc);
    mc.formats = 1;
    spu_model *m = nullptr;
    ASSERT_EQ(spu_model_create(&m, &mc), 0);
    spu_insn cfg{SPU_OP_CFG, 0, 0, 0, (int32_t)(SPU_DTYPE_E5M2 | SPU_DTYPE_F32 << 4)}, halt{SPU_OP_HALT, 0, 0, 0, 0};
    uint32_t w[2];
    ASSERT_EQ(spu_isa_encode(&cfg, &w[0]), 0);
    ASSERT_EQ(spu_isa_encode(&halt, &w[1]), 0);
    spu_model_load_ucode(m, 0, w, 2);
    spu_model_run(m, 0, 0);
    spu_status_t st;
    spu_model_status(m, &st);
    EXPECT_EQ(st.state, SPU_STATE_TRAPPED);
    EXPECT_EQ(st.trap, SPU_TRAP_FORMAT);
    EXPECT_STREQ(spu_trap_name(SPU_TRAP_FORMAT), "FORMAT");
    spu_model_free(m);
    mc.formats = 2;   // a mask without int8 is no build
    EXPECT_EQ(spu_model_create(&m, &mc), SPU_EINVAL);
}

}  // namespace

namespace {

// The output pipeline rounds the exact sum once (docs/numerics.md "Output
// pipeline"): 8*8 + 0.5*0.5 + 2^-9*2^-9 = 64.25 + 2^-18 is above the bf16
// tie 64.25 between 64 and 64.5, so bf16 out is 64.5 (0x4281). Rounding
// through an RNE binary32 first would give 64.25 (2^-18 is a binary32 tie
// there, to even) and then bf16 64 (0x4280): this fails if the pipeline
// double-rounds. With relu, -(that) is +0; with a bias of -64.5 the bf16
// result is the exact -0.25 + 2^-18 rounded once: -0.25 (0xBE80).
TEST(OutputPipeline, RoundsOnceNotThroughF32)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    const uint8_t A[3] = {0x50, 0x30, 0x01}, B[3] = {0x50, 0x30, 0x01}, An[3] = {0xD0, 0xB0, 0x81};
    uint16_t c = 0;
    spu_gemm_epilogue e = {SPU_DTYPE_BF16, 0, 0, 0, SPU_ROUND_RNE, nullptr};
    ASSERT_EQ(spu_gemm_epi(dev, SPU_DTYPE_E4M3, &e, 1, 1, 3, A, B, &c, nullptr, nullptr), 0);
    EXPECT_EQ(c, 0x4281);
    e.relu = 1;
    ASSERT_EQ(spu_gemm_epi(dev, SPU_DTYPE_E4M3, &e, 1, 1, 3, An, B, &c, nullptr, nullptr), 0);
    EXPECT_EQ(c, 0x0000);
    e.relu = 0;
    const double bias = -64.5;
    e.bias = &bias;
    ASSERT_EQ(spu_gemm_epi(dev, SPU_DTYPE_E4M3, &e, 1, 1, 3, A, B, &c, nullptr, nullptr), 0);
    EXPECT_EQ(c, 0xBE80);
    // f32 out of the same sum: 64.25 + 2^-18 is exact in binary32
    float f = 0;
    e = {SPU_DTYPE_F32, 0, 0, 0, SPU_ROUND_RNE, nullptr};
    ASSERT_EQ(spu_gemm_epi(dev, SPU_DTYPE_E4M3, &e, 1, 1, 3, A, B, &f, nullptr, nullptr), 0);
    EXPECT_EQ(f, 64.25f + 0x1p-18f);
    // bad epilogues: int32 out of float inputs, a non-integer bias for int8
    e = {SPU_DTYPE_INT32, 0, 0, 0, SPU_ROUND_RNE, nullptr};
    EXPECT_EQ(spu_gemm_epi(dev, SPU_DTYPE_E4M3, &e, 1, 1, 3, A, B, &f, nullptr, nullptr), SPU_EINVAL);
    const double half = 0.5;
    e.bias = &half;
    EXPECT_EQ(spu_gemm_epi(dev, SPU_DTYPE_INT8, &e, 1, 1, 3, A, B, &f, nullptr, nullptr), SPU_EINVAL);
    spu_close(dev);
}

}  // namespace
