// test_sim_core_clock.cc -- the 8x8 sim's core clock gate (docs/rtl.md "Core
// clock gate in simulation") is invisible: the same session on a sim whose
// core units rest while only the link works and on one that clocks them every
// cycle (SPU_SIM_CORE_CLOCK=always in spu-sim's environment) gives the same
// results, the same end state (status, every counter, registers,
// scratchpad), the same link counters and the same simulated cycles; and the
// gate does rest the units (fewer core cycles than cycles).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include <random>
#include <string>
#include <tuple>
#include <vector>

extern "C" {
#include "../common/run_program.h"
#include "spu/asm.h"
#include "spu/compare.h"
#include "spu/gemm.h"
#include "spu/isa.h"
#include "spu/spu.h"
#include "spu/vector.h"
}

namespace {

class SimCoreClock : public ::testing::Test {
protected:
    spu_device *gated = nullptr, *always = nullptr;
    void SetUp() override
    {
        unsetenv("SPU_SIM_CORE_CLOCK");
        ASSERT_EQ(spu_open(&gated, "sim"), 0);
        setenv("SPU_SIM_CORE_CLOCK", "always", 1);   // read by the spu-sim spawned now
        ASSERT_EQ(spu_open(&always, "sim"), 0);
        unsetenv("SPU_SIM_CORE_CLOCK");
    }
    void TearDown() override
    {
        if (gated) spu_close(gated);
        if (always) spu_close(always);
    }
    // Everything the host can see, compared; returns the gated sim's time.
    spu_sim_time_t same_everywhere(const std::string &what, uint32_t win = 0, uint32_t len = 4096)
    {
        char diff[256] = "";
        EXPECT_EQ(spu_compare_devices(gated, always, win, len, diff, sizeof diff), 0) << what << ": " << diff;
        spu_counters_t cg, ca;
        EXPECT_EQ(spu_counters(gated, &cg), 0);
        EXPECT_EQ(spu_counters(always, &ca), 0);
        for (int i = 0; i < SPU_CNT_COUNT; i++)
            EXPECT_EQ(cg.v[i], ca.v[i]) << what << ": counter " << i;
        spu_sim_time_t tg{}, ta{};
        EXPECT_EQ(spu_sim_time(gated, &tg), 0);
        EXPECT_EQ(spu_sim_time(always, &ta), 0);
        EXPECT_EQ(tg.cycles, ta.cycles) << what;
        EXPECT_EQ(tg.bytes_in, ta.bytes_in) << what;
        EXPECT_EQ(tg.bytes_out, ta.bytes_out) << what;
        EXPECT_EQ(ta.core_cycles, ta.cycles) << what << ": SPU_SIM_CORE_CLOCK=always clocks every cycle";
        EXPECT_LE(tg.core_cycles, tg.cycles) << what;
        return tg;
    }
    void run_src(const std::string &src, const std::vector<uint32_t> &args, uint32_t watchdog = 1000000)
    {
        spu_image img{};
        char err[2048];
        ASSERT_EQ(spu_asm(src.c_str(), "t.s", &img, err, sizeof err), 0) << err;
        for (spu_device *d : {gated, always}) {
            run_program_on(d, img.words, img.nwords, args, watchdog);
            if (HasFatalFailure()) break;
        }
        spu_image_free(&img);
    }
};

TEST_F(SimCoreClock, GatedAndAlwaysClockedSimsAgree)
{
    // GEMMs in int8 and e4m3: pieces, drains, link traffic in between
    const std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> shapes = {
        {1, 1, 1}, {9, 17, 33}, {65, 7, 3}, {64, 64, 512}};
    for (auto [M, N, K] : shapes) {
        std::mt19937 rng(M * 131 + N * 17 + K);
        std::vector<int8_t> A((size_t)M * K), B((size_t)K * N);
        for (auto &v : A) v = (int8_t)rng();
        for (auto &v : B) v = (int8_t)rng();
        std::vector<int32_t> Cg((size_t)M * N), Ca((size_t)M * N);
        ASSERT_EQ(spu_gemm_i8(gated, M, N, K, A.data(), B.data(), Cg.data(), nullptr, nullptr), 0);
        ASSERT_EQ(spu_gemm_i8(always, M, N, K, A.data(), B.data(), Ca.data(), nullptr, nullptr), 0);
        EXPECT_EQ(Cg, Ca);
        same_everywhere("int8 GEMM " + std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K));
    }
    {
        std::mt19937 rng(7);
        const uint32_t M = 16, N = 24, K = 100;
        std::vector<uint8_t> A((size_t)M * K), B((size_t)K * N);
        for (auto &v : A) v = (uint8_t)(rng() & 0x77);   // finite e4m3 codes
        for (auto &v : B) v = (uint8_t)(rng() & 0xF7);
        std::vector<float> Cg((size_t)M * N), Ca((size_t)M * N);
        ASSERT_EQ(spu_gemm(gated, SPU_DTYPE_E4M3, SPU_DTYPE_F32, M, N, K, A.data(), B.data(), Cg.data(), nullptr,
                           nullptr), 0);
        ASSERT_EQ(spu_gemm(always, SPU_DTYPE_E4M3, SPU_DTYPE_F32, M, N, K, A.data(), B.data(), Ca.data(),
                           nullptr, nullptr), 0);
        EXPECT_EQ(0, std::memcmp(Cg.data(), Ca.data(), Cg.size() * sizeof(float)));
        same_everywhere("e4m3 GEMM");
    }
    {
        // the vector unit: softmax rows (vrmax vsub vlut vrsum vdiv)
        std::mt19937 rng(11);
        const size_t rows = 12, len = 64;
        std::vector<int8_t> x(rows * len), yg(rows * len), ya(rows * len);
        for (auto &v : x) v = (int8_t)rng();
        uint8_t lut[256];
        spu_vec_exp_lut(1.0 / 16, lut);
        ASSERT_EQ(spu_vec_softmax_rows(gated, x.data(), rows, len, lut, yg.data(), nullptr), 0);
        ASSERT_EQ(spu_vec_softmax_rows(always, x.data(), rows, len, lut, ya.data(), nullptr), 0);
        EXPECT_EQ(yg, ya);
        same_everywhere("softmax");
    }
    // registers written by a run, read back (REGS); a trap
    run_src("li r9, 1234\nli r10, -5\nadd r11, r9, r10\ncnt r12, instret\nhalt\n", {7, 8, 9});
    same_everywhere("scalar run");
    run_src("mm r1, r2, r3\nhalt\n", {262144 - 8, 0, 2});   // A beyond the scratchpad
    same_everywhere("trap");
    // the gate rested the core's units through most of the link traffic
    spu_sim_time_t t = same_everywhere("end");
    EXPECT_LT(t.core_cycles * 2, t.cycles) << "core clocked in " << t.core_cycles << " of " << t.cycles
                                           << " cycles: the gate does not rest the units";
    // RESET during a run (the sim's clock runs on while the core does, so the
    // cycle the RESET lands in depends on wall time: compare the state only)
    spu_image img{};
    char err[512];
    ASSERT_EQ(spu_asm("li r1, 100000\nli r2, 100000\nloop r1, e\n  loop r2, f\n    nop\nf:\n  nop\ne:\nhalt\n",
                      "t.s", &img, err, sizeof err), 0) << err;
    for (spu_device *d : {gated, always}) {
        ASSERT_EQ(spu_reset(d), 0);
        spu_program p = {img.words, img.nwords, 0};
        ASSERT_EQ(spu_load_program(d, &p), 0);
        ASSERT_EQ(spu_set_watchdog(d, 0), 0);
        ASSERT_EQ(spu_run(d, nullptr, 0), 0);
        spu_status_t st;
        ASSERT_EQ(spu_status(d, &st), 0);
        EXPECT_EQ(st.state, SPU_STATE_RUNNING);
        ASSERT_EQ(spu_reset(d), 0);
        ASSERT_EQ(spu_status(d, &st), 0);
        EXPECT_EQ(st.state, SPU_STATE_IDLE);
        EXPECT_EQ(spu_ping(d), 0);
    }
    spu_image_free(&img);
    // and the gated sim still runs a GEMM right after
    std::vector<int8_t> A(20 * 30, 3), B(30 * 10, -2);
    std::vector<int32_t> C(20 * 10);
    ASSERT_EQ(spu_gemm_i8(gated, 20, 10, 30, A.data(), B.data(), C.data(), nullptr, nullptr), 0);
    for (int32_t v : C) EXPECT_EQ(v, -180);
}

}  // namespace
