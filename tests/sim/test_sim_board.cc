// test_sim_board.cc -- the board-shaped simulators (spu-sim-icebreaker,
// spu-sim-hx8k: spu_board_spu with the board's parameters, UART at the
// board's clocks per bit) and the simulated-time side channel (docs/sim.md):
// INFO says the board's geometry, clock and baud; a GEMM is bit- and
// cycle-exact with the reference model of the same shape; every link byte
// costs the board 10 bit times of its clock, and nothing else is hidden.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "spu/asm.h"
#include "spu/compare.h"
#include "spu/gemm.h"
#include "spu/spu.h"
}

namespace {

// The board tops' defaults (hw/rtl/board/spu_board_*.v, docs/fpga.md): the
// iCEBreaker's scratchpad is its SPRAM (128 KiB, single-port banks: docs/rtl.md
// "Scratchpad in SPRAM"; two nested loops), the HX8K's 8 KiB of EBR;
// icebreaker-ebr is the iCEBreaker's SPAD_SPRAM=0 build (8 KiB of EBR, four loops).
// The SPRAM build has the second clock and k-step pairs (SPAD_2X, ARRAY_2X:
// docs/isa.md "k-step pairs"), int8 only. The HX8K has overlapped issue
// (OVERLAP: docs/isa.md "Overlapped issue").
bool is_spram(const std::string &b) { return b == "icebreaker"; }
uint32_t board_spad(const std::string &b) { return is_spram(b) ? 131072u : 8192u; }
std::string board_model(const std::string &b)
{
    return is_spram(b) ? "model?rows=4&cols=4&spad=131072&banks=2&ucode=256&lanes=1&vector=0&spram=1&loops=2&pair=1&formats=1"
                         "&overlap=0"
         : b == "hx8k" ? "model?rows=4&cols=4&spad=8192&banks=2&ucode=256&lanes=1&chain=0&overlap=1"
                       : "model?rows=4&cols=4&spad=8192&banks=2&ucode=256&lanes=1&chain=0&overlap=0";
}
// the boards' clocks (the tops' CLK_MHZ defaults): the HX8K at 48 MHz, the
// iCEBreaker's builds at 24; the UART at 12 Mbaud on all: 4 and 2 clocks per bit
uint32_t board_clock(const std::string &b) { return b == "hx8k" ? 48000000u : 24000000u; }
constexpr uint32_t kBoardBaud = 12000000;
uint32_t board_cpb(const std::string &b) { return board_clock(b) / kBoardBaud; }

struct Dev {
    spu_device *d = nullptr;
    explicit Dev(const std::string &uri) { EXPECT_EQ(spu_open(&d, uri.c_str()), 0) << uri; }
    ~Dev() { spu_close(d); }
};

class BoardSim : public ::testing::TestWithParam<const char *> {};

TEST_P(BoardSim, InfoReportsTheBoardShapeClockAndBaud)
{
    Dev s(std::string("sim?board=") + GetParam());
    ASSERT_NE(s.d, nullptr);
    spu_info_t in;
    ASSERT_EQ(spu_info(s.d, &in), 0);
    EXPECT_EQ(in.rows, 4u);
    EXPECT_EQ(in.cols, 4u);
    EXPECT_EQ(in.spad_bytes, board_spad(GetParam()));
    EXPECT_EQ(in.spad_banks, 2u);
    EXPECT_EQ((in.features & SPU_FEATURE_SPRAM) != 0, is_spram(GetParam()));
    EXPECT_EQ(in.features & SPU_FEATURE_CHAIN, 0u);   // the boards' CHAIN = 0 (docs/fpga.md)
    EXPECT_EQ((in.features & SPU_FEATURE_PAIR) != 0, is_spram(GetParam()));
    EXPECT_EQ((in.features & SPU_FEATURE_OVERLAP) != 0, GetParam() == std::string("hx8k"));
    EXPECT_EQ(in.ucode_words, 256u);
    EXPECT_EQ(in.drain_lanes, 1u);
    // the HX8K and the iCEBreaker's SPRAM build carry two loop-stack
    // entries fewer than its EBR build (area, docs/fpga.md)
    EXPECT_EQ(in.loop_depth, std::string(GetParam()) == "icebreaker-ebr" ? 4u : 2u);
    EXPECT_EQ(in.clock_hz, board_clock(GetParam()));
    EXPECT_EQ(in.link_baud, kBoardBaud);
    spu_sim_time_t t;
    ASSERT_EQ(spu_sim_time(s.d, &t), 0);
    EXPECT_EQ(t.clock_hz, board_clock(GetParam()));
    EXPECT_EQ(t.clks_per_bit, board_cpb(GetParam()));
    EXPECT_GT(t.cycles, 0u);
}

// GEMMs on the board simulator against the reference model built with the
// board's geometry: same result bytes, same device cycles, same end state
// (status, every counter, the whole scratchpad).
TEST_P(BoardSim, GemmIsBitAndCycleExactWithTheBoardShapedModel)
{
    Dev s(std::string("sim?board=") + GetParam()), m(board_model(GetParam()));
    ASSERT_NE(s.d, nullptr);
    ASSERT_NE(m.d, nullptr);
    std::mt19937 rng(12);
    const uint32_t shapes[][3] = {{4, 4, 4}, {7, 5, 13}, {20, 12, 33}, {40, 36, 70}};
    for (auto &sh : shapes) {
        const uint32_t M = sh[0], N = sh[1], K = sh[2];
        std::vector<int8_t> A(M * K), B(K * N);
        for (auto &x : A)
            x = (int8_t)rng();
        for (auto &x : B)
            x = (int8_t)rng();
        std::vector<int32_t> cs(M * N), cm(M * N), cr(M * N);
        spu_gemm_stats ss{}, ms{};
        spu_gemm_opts o{};
        o.check_model = 1;
        ASSERT_EQ(spu_gemm_i8(s.d, M, N, K, A.data(), B.data(), cs.data(), &o, &ss), 0);
        ASSERT_EQ(spu_gemm_i8(m.d, M, N, K, A.data(), B.data(), cm.data(), nullptr, &ms), 0);
        spu_gemm_i8_reference(M, N, K, A.data(), B.data(), cr.data());
        EXPECT_EQ(cs, cr) << M << "x" << N << "x" << K;
        EXPECT_EQ(cm, cr);
        EXPECT_EQ(ss.cycles, ms.cycles) << M << "x" << N << "x" << K;
        EXPECT_EQ(ss.cycles, ss.model_cycles);
        EXPECT_EQ(ss.pieces, ms.pieces);
        char what[256] = "";
        EXPECT_EQ(spu_compare_devices(s.d, m.d, 0, board_spad(GetParam()), what, sizeof what), 0) << what;
    }
}

// A GEMM whose operands (A 64x256 and B 256x64: 32 KiB) need more than
// 8 KiB: one piece on the iCEBreaker's SPRAM scratchpad (the host's
// plan follows INFO), several on the HX8K's 8 KiB; bit- and cycle-exact with
// the board-shaped model either way (icebreaker: the model with
// spram=1, so the single-port rule is checked), and the same end state.
TEST_P(BoardSim, GemmBeyond8KiBIsOnePieceOnSpramAndExact)
{
    const std::string b = GetParam();
    Dev s("sim?board=" + b), m(board_model(b));
    ASSERT_NE(s.d, nullptr);
    ASSERT_NE(m.d, nullptr);
    std::mt19937 rng(99);
    const uint32_t M = 64, N = 64, K = 256;
    std::vector<int8_t> A(M * K), B(K * N);
    for (auto &x : A)
        x = (int8_t)rng();
    for (auto &x : B)
        x = (int8_t)rng();
    std::vector<int32_t> cs(M * N), cm(M * N), cr(M * N);
    spu_gemm_stats ss{}, ms{};
    spu_gemm_opts o{};
    o.check_model = 1;
    ASSERT_EQ(spu_gemm_i8(s.d, M, N, K, A.data(), B.data(), cs.data(), &o, &ss), 0);
    ASSERT_EQ(spu_gemm_i8(m.d, M, N, K, A.data(), B.data(), cm.data(), nullptr, &ms), 0);
    spu_gemm_i8_reference(M, N, K, A.data(), B.data(), cr.data());
    EXPECT_EQ(cs, cr);
    EXPECT_EQ(cm, cr);
    EXPECT_EQ(ss.cycles, ms.cycles);
    EXPECT_EQ(ss.cycles, ss.model_cycles);
    EXPECT_EQ(ss.pieces, ms.pieces);
    if (is_spram(b))
        EXPECT_EQ(ss.pieces, 1u);
    else
        EXPECT_GT(ss.pieces, 1u);
    char what[256] = "";
    EXPECT_EQ(spu_compare_devices(s.d, m.d, 0, board_spad(b), what, sizeof what), 0) << what;
}

// The simulated time of a transaction is the board's: 10 bit times for
// every link byte each way (8N1 at 12 Mbaud: 2 clocks a bit at 24 MHz, 4 on
// the HX8K at 48 MHz), plus the
// engine's own few cycles. Checked on WRITE/READ (bytes dominate) and on a
// GEMM (link + RUN-to-halt cycles + a bounded per-transaction overhead).
TEST_P(BoardSim, LinkCyclesAreAccountedFor)
{
    Dev s(std::string("sim?board=") + GetParam());
    ASSERT_NE(s.d, nullptr);
    spu_sim_time_t t0, t1;
    std::vector<uint8_t> data(1000);
    for (size_t i = 0; i < data.size(); i++)
        data[i] = (uint8_t)(i * 13 + 1);
    ASSERT_EQ(spu_sim_time(s.d, &t0), 0);
    ASSERT_EQ(spu_write(s.d, 100, data.data(), data.size()), 0);
    ASSERT_EQ(spu_sim_time(s.d, &t1), 0);
    uint64_t in = t1.bytes_in - t0.bytes_in, out = t1.bytes_out - t0.bytes_out;
    // frame: type, seq, addr u32, 1000 data, crc u32 -> COBS (+1..+5) and the 0 delimiter
    EXPECT_GE(in, 1011u);
    EXPECT_LE(in, 1017u);
    EXPECT_GE(out, 8u);   // reply: type, seq, status, crc, COBS, delimiter
    EXPECT_LE(out, 10u);
    uint64_t dc = t1.cycles - t0.cycles, line = 10 * board_cpb(GetParam()) * (in + out);
    EXPECT_GE(dc, line);
    EXPECT_LE(dc, line + 2 * (in + out) + 200) << "cycles beyond the bytes' bit times";
    std::printf("[ info     ] %s WRITE 1000: %llu cycles, %llu + %llu link bytes (%llu bit-time cycles)\n",
                GetParam(), (unsigned long long)dc, (unsigned long long)in, (unsigned long long)out,
                (unsigned long long)line);
    EXPECT_DOUBLE_EQ(t1.seconds, (double)t1.cycles / board_clock(GetParam()));

    std::vector<uint8_t> back(data.size());
    ASSERT_EQ(spu_sim_time(s.d, &t0), 0);
    ASSERT_EQ(spu_read(s.d, 100, back.data(), back.size()), 0);
    ASSERT_EQ(spu_sim_time(s.d, &t1), 0);
    EXPECT_EQ(back, data);
    in = t1.bytes_in - t0.bytes_in;
    out = t1.bytes_out - t0.bytes_out;
    EXPECT_GE(out, 1008u);
    dc = t1.cycles - t0.cycles;
    line = 10 * board_cpb(GetParam()) * (in + out);
    EXPECT_GE(dc, line);
    EXPECT_LE(dc, line + 4 * (in + out) + 200);
    std::printf("[ info     ] %s READ 1000: %llu cycles, %llu + %llu link bytes (%llu bit-time cycles)\n",
                GetParam(), (unsigned long long)dc, (unsigned long long)in, (unsigned long long)out,
                (unsigned long long)line);

    // a GEMM: every cycle is a link bit time, a device cycle (RUN to halt) or
    // one of a few engine cycles per transaction
    std::vector<int8_t> A(24 * 40, 3), B(40 * 20, -5);
    std::vector<int32_t> C(24 * 20);
    spu_gemm_stats gs{};
    ASSERT_EQ(spu_sim_time(s.d, &t0), 0);
    ASSERT_EQ(spu_gemm_i8(s.d, 24, 20, 40, A.data(), B.data(), C.data(), nullptr, &gs), 0);
    ASSERT_EQ(spu_sim_time(s.d, &t1), 0);
    EXPECT_EQ(C[0], 40 * 3 * -5);
    in = t1.bytes_in - t0.bytes_in;
    out = t1.bytes_out - t0.bytes_out;
    EXPECT_GE(in + out, gs.link_bytes) << "the board saw fewer bytes than the host counted";
    dc = t1.cycles - t0.cycles;
    line = 10 * board_cpb(GetParam()) * (in + out);
    EXPECT_GE(dc, line + gs.cycles);
    EXPECT_LE(dc, line + gs.cycles + 4 * (in + out) + 200 * gs.pieces * 8) << "unaccounted cycles";
    std::printf("[ info     ] %s GEMM 24x20x40: %llu cycles = %llu bit-time + %llu device + %lld other\n",
                GetParam(), (unsigned long long)dc, (unsigned long long)line,
                (unsigned long long)gs.cycles, (long long)(dc - line - gs.cycles));
}

INSTANTIATE_TEST_SUITE_P(Boards, BoardSim, ::testing::Values("icebreaker", "hx8k", "icebreaker-ebr"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                             std::string n = i.param;
                             for (auto &c : n)
                                 if (c == '-') c = '_';
                             return n;
                         });

// The 8x8 simulator keeps its byte port and says its own numbers.
TEST(Sim8x8, InfoAndSimTime)
{
    Dev s("sim");
    ASSERT_NE(s.d, nullptr);
    spu_info_t in;
    ASSERT_EQ(spu_info(s.d, &in), 0);
    EXPECT_EQ(in.rows, 8u);
    EXPECT_EQ(in.clock_hz, 12000000u);
    EXPECT_EQ(in.link_baud, 3000000u);   // its UART (--uart): 4 clocks per bit
    EXPECT_NE(in.features & SPU_FEATURE_CHAIN, 0u);   // chained streams (docs/isa.md)
    EXPECT_NE(in.features & SPU_FEATURE_OVERLAP, 0u); // overlapped issue (docs/isa.md)
    spu_sim_time_t t;
    ASSERT_EQ(spu_sim_time(s.d, &t), 0);
    EXPECT_EQ(t.clks_per_bit, 0u);   // byte port: one byte per cycle at most
    EXPECT_GT(t.bytes_out, 0u);
}

// spu_wait on a simulator waits for the board's idle flag (the stats page)
// before it asks STATUS: a run costs one STATUS exchange however long it runs
// and however fast the host polls, so a session's link counters do not
// depend on wall time (docs/sim.md).
TEST(Sim8x8, ARunCostsOneStatusExchangeHoweverLongItRuns)
{
    Dev s("sim");
    ASSERT_NE(s.d, nullptr);
    auto link_bytes_of_run = [&](const char *src) {
        spu_image img{};
        char err[512];
        EXPECT_EQ(spu_asm(src, "t.s", &img, err, sizeof err), 0) << err;
        spu_program p = {img.words, img.nwords, 0};
        EXPECT_EQ(spu_load_program(s.d, &p), 0);
        EXPECT_EQ(spu_set_watchdog(s.d, 50000000), 0);
        spu_sim_time_t t0{}, t1{};
        EXPECT_EQ(spu_sim_time(s.d, &t0), 0);
        EXPECT_EQ(spu_run(s.d, nullptr, 0), 0);
        spu_status_t st;
        EXPECT_EQ(spu_wait(s.d, 60000, &st), 0);
        EXPECT_EQ(spu_sim_time(s.d, &t1), 0);
        spu_image_free(&img);
        return std::make_pair(t1.bytes_in - t0.bytes_in, t1.cycles - t0.cycles);
    };
    auto shortrun = link_bytes_of_run("halt\n");
    // about 2 M cycles: a second or so of simulation, dozens of polls before
    auto longrun = link_bytes_of_run("li r1, 1000\nli r2, 1000\nloop r1, e\n  loop r2, f\n    nop\nf:\n  nop\ne:\nhalt\n");
    EXPECT_GT(longrun.second, 1000000u);
    EXPECT_EQ(longrun.first, shortrun.first) << "link bytes into the board for RUN + wait";
}

// Host writes of any length at any offset change exactly the bytes written:
// the scratchpad banks' byte enables (the 8x8 sim's banks write a whole word
// under a byte mask, docs/rtl.md "Core clock gate in simulation"), in every
// bank, checked against a copy kept on the host.
TEST(Sim8x8, PartialWritesChangeOnlyTheirBytes)
{
    for (const char *uri : {"sim", "sim?board=icebreaker"}) {
        Dev s(uri);
        ASSERT_NE(s.d, nullptr) << uri;
        spu_info_t in;
        ASSERT_EQ(spu_info(s.d, &in), 0);
        std::mt19937 rng(in.spad_bytes);
        const uint32_t win = 512, bank = in.spad_bytes / in.spad_banks;
        for (uint32_t b = 0; b < in.spad_banks; b++) {
            const uint32_t base = b * bank + bank / 2;
            std::vector<uint8_t> shadow(win), got(win);
            for (auto &v : shadow) v = (uint8_t)rng();
            ASSERT_EQ(spu_write(s.d, base, shadow.data(), win), 0);
            for (int i = 0; i < 60; i++) {
                const uint32_t off = rng() % (win - 16), len = 1 + rng() % 15;
                std::vector<uint8_t> data(len);
                for (auto &v : data) v = (uint8_t)rng();
                ASSERT_EQ(spu_write(s.d, base + off, data.data(), len), 0);
                std::copy(data.begin(), data.end(), shadow.begin() + off);
            }
            ASSERT_EQ(spu_read(s.d, base, got.data(), win), 0);
            EXPECT_EQ(got, shadow) << uri << ": bank " << b;
        }
    }
}

TEST(SimTime, OtherDevicesSayNotSupported)
{
    Dev m("model");
    spu_sim_time_t t;
    EXPECT_EQ(spu_sim_time(m.d, &t), SPU_ENOTSUP);
    spu_device *d = nullptr;
    EXPECT_EQ(spu_open(&d, "sim?board=nosuchboard"), SPU_EINVAL);
    EXPECT_EQ(spu_open(&d, "sim?board=icebreaker&trace=/tmp/x.fst"), SPU_ENOTSUP);
}

}  // namespace
