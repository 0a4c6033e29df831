// test_gemm.cc -- GEMM of many shapes through the public API on the model
// device, against a plain loop written here; plus scratchpad plans of
// other geometries.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <tuple>
#include <vector>

extern "C" {
#include "spu/gemm.h"
#include "spu/isa.h"
#include "spu/spu.h"
}

namespace {

void run_shape(const char *uri, uint32_t M, uint32_t N, uint32_t K, spu_gemm_stats *out = nullptr)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, uri), 0) << uri;
    std::mt19937 rng(M * 7919 + N * 104729 + K);
    std::vector<int8_t> A((size_t)M * K), B((size_t)K * N);
    for (auto &v : A) v = (int8_t)rng();
    for (auto &v : B) v = (int8_t)rng();
    std::vector<int32_t> C((size_t)M * N, 12345);
    spu_gemm_stats s;
    ASSERT_EQ(spu_gemm_i8(dev, M, N, K, A.data(), B.data(), C.data(), nullptr, &s), 0);
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            int64_t ref = 0;
            for (uint32_t k = 0; k < K; k++) ref += A[(size_t)i * K + k] * B[(size_t)k * N + j];
            ASSERT_EQ(C[(size_t)i * N + j], (int32_t)ref) << uri << " " << M << "x" << N << "x" << K << " at " << i << "," << j;
        }
    spu_info_t info;
    spu_info(dev, &info);
    EXPECT_EQ(s.macs, (uint64_t)M * N * K);
    EXPECT_GE(s.mac_active * info.rows * info.cols, s.macs);
    EXPECT_GT(s.cycles, s.mac_active);
    if (out) *out = s;
    spu_close(dev);
}

TEST(GemmModel, ShapeSweep)
{
    const std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> shapes = {
        {1, 1, 1}, {1, 1, 7}, {7, 1, 1}, {1, 13, 1}, {2, 3, 5}, {7, 11, 13}, {8, 8, 8},
        {9, 9, 9}, {16, 16, 1}, {17, 31, 1}, {37, 29, 300}, {64, 64, 512}, {3, 5, 1000},
        {13, 17, 1031}, {100, 3, 64}, {3, 100, 64},
    };
    for (auto [m, n, k] : shapes) run_shape("model", m, n, k);
}

// Chained streams (docs/isa.md "Chained streams") never make a GEMM slower:
// a token that would go later riding with the next mm takes its own slot
// instead. Same results; cycles <= those of the one-entry queue on every
// shape, strictly fewer when several blocks stream back to back (K + conflicts
// instead of K + conflicts + 2 per block), and far fewer on a drain-bound one
// (the chained drain starts as soon as row 0 is captured).
TEST(GemmModel, ChainedStreamsAreNeverSlower)
{
    const std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> shapes = {
        {8, 8, 8}, {16, 16, 64}, {37, 29, 300}, {64, 64, 512}, {100, 3, 64}, {512, 64, 4}, {40, 300, 24},
        {17, 31, 1}, {24, 24, 47}, {24, 24, 48}, {24, 24, 49}, {13, 17, 1031}, {200, 200, 8},
    };
    const std::string sys = "bus=0&";   // the systolic 8 x 8
    for (std::string geo : {std::string(""), sys, std::string("rows=4&cols=4&spad=8192&banks=2&ucode=256&lanes=1&")}) {
        for (auto [m, n, k] : shapes) {
            spu_gemm_stats one{}, two{};
            run_shape(("model?" + geo + "chain=0").c_str(), m, n, k, &one);
            run_shape(("model?" + geo + "chain=1").c_str(), m, n, k, &two);
            EXPECT_LE(two.cycles, one.cycles) << geo << m << "x" << n << "x" << k;
            if (m == 16 && k == 64 && geo == sys) {
                EXPECT_EQ(one.cycles, 289u);   // 4 blocks of K + 2, the skew R + C once
                EXPECT_EQ(two.cycles, 283u);   // 4 blocks of K, 2 once
            }
            if (m == 16 && k == 64 && geo.empty()) {   // buses: 2 instead of R + C
                EXPECT_EQ(one.cycles, 275u);
                EXPECT_EQ(two.cycles, 269u);
            }
            // drain-bound without chaining (K = 4 < R + C + D - 1: a block every
            // 23 cycles); chained, the drain starts when row 0 is captured and
            // the next st launches 9 cycles after the last: under half. With
            // buses a block is drain-bound either way (an st every 1 + D = 9
            // cycles), so the two are equal there
            if (m == 512 && geo == sys) {
                EXPECT_LT(2 * two.cycles, one.cycles);
            }
            if (m == 512 && geo.empty()) {
                EXPECT_EQ(two.cycles, one.cycles);
            }
        }
    }
}

// A GEMM of one output block runs firmware/gemm_int8_block.s (cfg, mm, st,
// halt): K + 9 cycles with buses (the mm launches at 4, the st's slot is
// K + 5, its wave leaves the tiles at K + 7, halt ends at the idle K + 8),
// K + 7 + R + C on the systolic array; 4 instructions; one piece up to half
// the scratchpad of K (A and B each in half the banks). Results against the
// plain loop (run_shape).
TEST(GemmModel, OneBlockTakesTheShortKernel)
{
    const std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> shapes = {
        {1, 1, 1}, {8, 8, 8}, {3, 5, 7}, {8, 1, 64}, {8, 8, 512}, {8, 8, 8200}, {2, 7, 16000},
    };
    for (const char *uri : {"model", "model?bus=0", "model?chain=0"}) {
        const uint64_t over = std::string(uri) == "model?bus=0" ? 7 + 16 : 9;
        for (auto [m, n, k] : shapes) {
            spu_gemm_stats s{};
            run_shape(uri, m, n, k, &s);
            EXPECT_EQ(s.pieces, 1u) << uri << " " << m << "x" << n << "x" << k;
            EXPECT_EQ(s.cycles, k + over) << uri << " " << m << "x" << n << "x" << k;
            EXPECT_EQ(s.instret, 4u) << uri;
            EXPECT_EQ(s.stall_bank, 0u) << uri;
        }
    }
    // two blocks: the loops of gemm_int8.s (11 instructions before halt for one)
    spu_gemm_stats s{};
    run_shape("model", 9, 8, 8, &s);
    EXPECT_EQ(s.instret, 2u + 2 * (1 + 5 * 1 + 3) + 1);
}

TEST(GemmModel, PiecesWhenOperandsExceedTheScratchpad)
{
    spu_gemm_stats s;
    run_shape("model", 9, 10, 20000, &s);     // K split into pieces summed on the host
    EXPECT_GT(s.pieces, 1u);
    run_shape("model", 300, 301, 40, &s);     // too many C blocks for one piece
    EXPECT_GT(s.pieces, 1u);
}

TEST(GemmModel, OtherGeometriesAndBankPlans)
{
    run_shape("model?rows=4&cols=4&spad=8192", 23, 19, 77);
    run_shape("model?rows=4&cols=4&spad=8192&banks=2", 23, 19, 77);
    run_shape("model?rows=4&cols=4&spad=6144&banks=1", 23, 19, 77);
    run_shape("model?rows=2&cols=8", 11, 12, 13);
    run_shape("model?rows=16&cols=16", 33, 35, 40);
}

TEST(GemmModel, UtilizationOfALargeBlockIsHigh)
{
    spu_gemm_stats s;
    run_shape("model", 64, 64, 512, &s);
    const double util = (double)s.macs / ((double)s.cycles * 64);
    EXPECT_GT(util, 0.90) << "cycles " << s.cycles;
    EXPECT_EQ(s.stall_bank, 0u);
}

TEST(GemmModel, CheckModelOnTheModelItself)
{
    spu_device *dev;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    std::vector<int8_t> A(5 * 6, 3), B(6 * 7, -2);
    std::vector<int32_t> C(5 * 7);
    spu_gemm_opts o = {1, 0};
    spu_gemm_stats s;
    ASSERT_EQ(spu_gemm_i8(dev, 5, 7, 6, A.data(), B.data(), C.data(), &o, &s), 0);
    EXPECT_EQ(s.model_cycles, s.cycles);
    for (int32_t v : C) EXPECT_EQ(v, 6 * 3 * -2);
    spu_close(dev);
}

// A narrow out (bf16: 2 bytes, e4m3: 1) leaves the rest of each 4-byte C
// slot as the scratchpad held it. On a device used before, those bytes are
// the last run's; the fresh model behind check_model has zeros there. The
// check compares what st wrote, so it passes after a run that left other
// bytes behind (before, it reported SPU_EMISMATCH here).
TEST(GemmModel, CheckModelComparesTheBytesANarrowOutWrites)
{
    spu_device *dev;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    const uint32_t M = 9, N = 11, K = 20;
    std::vector<int8_t> A(M * K), B(K * N);
    for (size_t i = 0; i < A.size(); i++) A[i] = (int8_t)(0x31 + (i * 7) % 40);   // finite e4m3 codes
    for (size_t i = 0; i < B.size(); i++) B[i] = (int8_t)(0x28 + (i * 5) % 40);
    std::vector<int32_t> C32(M * N);
    spu_gemm_opts o = {1, 0};
    spu_gemm_epilogue e32 = {SPU_DTYPE_F32, 0, 0, 0, SPU_ROUND_RNE, nullptr};
    ASSERT_EQ(spu_gemm_epi(dev, SPU_DTYPE_E4M3, &e32, M, N, K, A.data(), B.data(), C32.data(), &o, nullptr), 0);
    for (unsigned out : {SPU_DTYPE_BF16, SPU_DTYPE_E4M3}) {
        std::vector<uint8_t> C(M * N * 2, 0xAA), D(M * N * 2, 0x55);
        spu_gemm_epilogue e = {out, 0, 0, 0, SPU_ROUND_RNE, nullptr};
        spu_gemm_stats s;
        EXPECT_EQ(spu_gemm_epi(dev, SPU_DTYPE_E4M3, &e, M, N, K, A.data(), B.data(), C.data(), &o, &s), 0)
            << "out " << out;
        EXPECT_EQ(s.model_cycles, s.cycles);
        // the same run without the check gives the same elements
        ASSERT_EQ(spu_gemm_epi(dev, SPU_DTYPE_E4M3, &e, M, N, K, A.data(), B.data(), D.data(), nullptr, nullptr), 0);
        const size_t ob = out == SPU_DTYPE_BF16 ? 2 : 1;
        EXPECT_EQ(0, memcmp(C.data(), D.data(), M * N * ob));
    }
    spu_close(dev);
}

TEST(GemmModel, WrapsLikeInt32)
{
    // K large enough that sums leave int32: 128*128*140000 > 2^31
    const uint32_t K = 140000;
    spu_device *dev;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    std::vector<int8_t> A(K, -128), B(K, -128);
    int32_t C = 0;
    ASSERT_EQ(spu_gemm_i8(dev, 1, 1, K, A.data(), B.data(), &C, nullptr, nullptr), 0);
    EXPECT_EQ(C, (int32_t)(uint32_t)(16384ull * K));
    spu_close(dev);
}

}  // namespace
