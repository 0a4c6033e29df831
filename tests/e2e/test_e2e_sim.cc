// test_e2e_sim.cc -- end to end through the public API only: libspu spawns
// spu-sim (the Verilated board) for the "sim" URI and speaks the link
// protocol to it over a pty. A real board is tested when $SPU_SERIAL names
// one (e.g. "serial:/dev/ttyUSB1?baud=12000000"); otherwise those tests SKIP.
#include "spu/isa.h"
#include "spu/spu.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

namespace {

uint32_t enc(const char *mn, unsigned a = 0, unsigned b = 0, unsigned c = 0, int32_t imm = 0)
{
    const spu_insn_desc *d = spu_isa_by_mnemonic(mn);
    EXPECT_NE(d, nullptr) << mn;
    spu_insn in = {d ? d->opcode : 0, a, b, c, imm};
    uint32_t w = 0;
    EXPECT_EQ(spu_isa_encode(&in, &w), 0) << mn;
    return w;
}

// li r9, n; loop r9, 4; addi r10, r10, 1; nop; halt  (entry 0)
std::vector<uint32_t> loop_program(int32_t n)
{
    return {enc("li", 9, 0, 0, n), enc("loop", 9, 0, 0, 4), enc("addi", 10, 10, 0, 1), enc("nop"),
            enc("halt")};
}

class Device : public ::testing::Test {
protected:
    spu_device *dev = nullptr;
    spu_info_t info{};
    virtual const char *uri() { return "sim"; }
    void SetUp() override
    {
        int rc = spu_open(&dev, uri());
        ASSERT_EQ(rc, 0) << spu_error_name(rc) << " opening " << uri();
        ASSERT_EQ(spu_info(dev, &info), 0);
    }
    void TearDown() override { spu_close(dev); }
    void load(const std::vector<uint32_t> &w)
    {
        spu_program p = {w.data(), w.size(), 0};
        ASSERT_EQ(spu_load_program(dev, &p), 0);
    }
};

class Sim : public Device {};

TEST_F(Sim, PingAndInfoGeometry)
{
    EXPECT_EQ(spu_ping(dev), 0);
    EXPECT_EQ(info.rows, 8u);
    EXPECT_EQ(info.cols, 8u);
    EXPECT_EQ(info.word_bytes, 8u);
    EXPECT_EQ(info.spad_bytes, 262144u);
    EXPECT_EQ(info.spad_banks, 4u);
    EXPECT_EQ(info.ucode_words, 1024u);
    EXPECT_EQ(info.loop_depth, 4u);
    EXPECT_EQ(info.drain_lanes, 8u);
    EXPECT_TRUE(info.formats & 1u);
    EXPECT_EQ(info.isa_hash, spu_isa_hash());
    EXPECT_STREQ(info.device, "sim");
    spu_status_t st;
    ASSERT_EQ(spu_status(dev, &st), 0);
    EXPECT_EQ(st.state, SPU_STATE_IDLE);
}

TEST_F(Sim, ScratchpadRoundTripsAtTheEdges)
{
    std::mt19937 rng(7);
    const uint32_t spad = info.spad_bytes;
    struct Case { uint32_t addr; size_t len; };
    // sizes around the frame limits (1020 per WRITE, 1023 per READ)
    const Case cases[] = {{0, 1}, {0, 1020}, {1, 1021}, {4093, 1023}, {7, 1024},
                          {100, 5000}, {spad - 1, 1}, {spad - 3000, 3000}};
    for (const Case &c : cases) {
        std::vector<uint8_t> w(c.len), r(c.len, 0xEE);
        for (auto &x : w)
            x = (uint8_t)rng();
        ASSERT_EQ(spu_write(dev, c.addr, w.data(), w.size()), 0) << c.addr << "+" << c.len;
        ASSERT_EQ(spu_read(dev, c.addr, r.data(), r.size()), 0) << c.addr << "+" << c.len;
        ASSERT_EQ(w, r) << c.addr << "+" << c.len;
    }
    uint8_t b[2] = {1, 2};
    EXPECT_EQ(spu_write(dev, spad, b, 1), SPU_ERANGE);
    EXPECT_EQ(spu_write(dev, spad - 1, b, 2), SPU_ERANGE);
    EXPECT_EQ(spu_read(dev, spad - 1, b, 2), SPU_ERANGE);
    EXPECT_EQ(spu_read(dev, 0xFFFFFFFFu, b, 1), SPU_ERANGE);
    EXPECT_EQ(spu_ping(dev), 0);
}

TEST_F(Sim, ProgramRunsAndCountersMatchTheModel)
{
    const auto prog = loop_program(100);
    load(prog);
    ASSERT_EQ(spu_run(dev, nullptr, 0), 0);
    spu_status_t st;
    ASSERT_EQ(spu_wait(dev, 10000, &st), 0) << "trap " << st.trap << " pc " << st.pc;
    EXPECT_EQ(st.state, SPU_STATE_HALTED);
    EXPECT_EQ(st.pc, 4u);
    spu_counters_t c;
    ASSERT_EQ(spu_counters(dev, &c), 0);
    EXPECT_EQ(c.v[SPU_CNT_INSTRET], 2u + 2u * 100u + 1u);   // li, loop, 100 x (addi, nop), halt
    EXPECT_EQ(c.v[SPU_CNT_CYCLES], st.cycles);
    EXPECT_GT(c.v[SPU_CNT_LINK_RX], 0u);
    EXPECT_GT(c.v[SPU_CNT_LINK_TX], 0u);

    // the same program on the reference model
    spu_device *m = nullptr;
    ASSERT_EQ(spu_open(&m, "model"), 0);
    spu_program p = {prog.data(), prog.size(), 0};
    ASSERT_EQ(spu_load_program(m, &p), 0);
    ASSERT_EQ(spu_run(m, nullptr, 0), 0);
    spu_status_t ms;
    ASSERT_EQ(spu_wait(m, 10000, &ms), 0);
    spu_counters_t mc;
    ASSERT_EQ(spu_counters(m, &mc), 0);
    EXPECT_EQ(ms.pc, st.pc);
    EXPECT_EQ(mc.v[SPU_CNT_INSTRET], c.v[SPU_CNT_INSTRET]);
    EXPECT_EQ(mc.v[SPU_CNT_CYCLES], c.v[SPU_CNT_CYCLES]);
    spu_close(m);
}

TEST_F(Sim, TrapLeavesTheLinkAlive)
{
    load({enc("nop"), 0xFFFFFFFFu});   // undefined opcode
    ASSERT_EQ(spu_run(dev, nullptr, 0), 0);
    spu_status_t st;
    EXPECT_EQ(spu_wait(dev, 10000, &st), SPU_ETRAP);
    EXPECT_EQ(st.state, SPU_STATE_TRAPPED);
    EXPECT_EQ(st.trap, SPU_TRAP_ILLEGAL);
    EXPECT_EQ(st.pc, 1u);
    EXPECT_EQ(spu_ping(dev), 0);
    // and a new run starts afresh
    load(loop_program(3));
    ASSERT_EQ(spu_run(dev, nullptr, 0), 0);
    EXPECT_EQ(spu_wait(dev, 10000, &st), 0);
}

TEST_F(Sim, BusyWhileRunningAndResetStops)
{
    load(loop_program(1000000));
    ASSERT_EQ(spu_run(dev, nullptr, 0), 0);
    spu_status_t st;
    ASSERT_EQ(spu_status(dev, &st), 0);
    EXPECT_EQ(st.state, SPU_STATE_RUNNING);
    uint8_t b = 1;
    EXPECT_EQ(spu_write(dev, 0, &b, 1), SPU_EBUSY);
    EXPECT_EQ(spu_read(dev, 0, &b, 1), SPU_EBUSY);
    EXPECT_EQ(spu_wait(dev, 10, &st), SPU_ETIMEDOUT);
    EXPECT_EQ(spu_reset(dev), 0);
    ASSERT_EQ(spu_status(dev, &st), 0);
    EXPECT_EQ(st.state, SPU_STATE_IDLE);
    EXPECT_EQ(spu_write(dev, 0, &b, 1), 0);
}

TEST_F(Sim, WatchdogTraps)
{
    load(loop_program(1000000));
    ASSERT_EQ(spu_set_watchdog(dev, 500), 0);
    ASSERT_EQ(spu_run(dev, nullptr, 0), 0);
    spu_status_t st;
    EXPECT_EQ(spu_wait(dev, 10000, &st), SPU_ETRAP);
    EXPECT_EQ(st.trap, SPU_TRAP_WATCHDOG);
    EXPECT_EQ(spu_ping(dev), 0);
}

// Link throughput host <-> sim, printed for docs/protocol.md.
TEST_F(Sim, LinkThroughput)
{
    std::vector<uint8_t> w(info.spad_bytes), r(info.spad_bytes);
    for (size_t i = 0; i < w.size(); i++)
        w[i] = (uint8_t)(i * 131 + 7);
    auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(spu_write(dev, 0, w.data(), w.size()), 0);
    auto t1 = std::chrono::steady_clock::now();
    ASSERT_EQ(spu_read(dev, 0, r.data(), r.size()), 0);
    auto t2 = std::chrono::steady_clock::now();
    ASSERT_EQ(w, r);
    double ws = std::chrono::duration<double>(t1 - t0).count();
    double rs = std::chrono::duration<double>(t2 - t1).count();
    printf("[ link     ] sim WRITE %zu bytes in %.3f s = %.0f B/s; READ %.3f s = %.0f B/s\n",
           w.size(), ws, w.size() / ws, rs, r.size() / rs);
    RecordProperty("write_bytes_per_s", (int)(w.size() / ws));
    RecordProperty("read_bytes_per_s", (int)(r.size() / rs));
}

TEST(SimUri, GeometryNotBuiltAndOtherSchemes)
{
    spu_device *d = nullptr;
    EXPECT_EQ(spu_open(&d, "sim?rows=4&cols=4"), SPU_ENOTSUP);
    EXPECT_EQ(d, nullptr);
    EXPECT_EQ(spu_open(&d, "ftdi://0403:6010/2"), SPU_ENODEV);   // no board here
    EXPECT_EQ(spu_open(&d, "usb://0403:6010"), SPU_ENODEV);
    EXPECT_EQ(spu_open(&d, "serial:/nonexistent/tty?baud=115200"), SPU_ENODEV);
    ASSERT_EQ(spu_open(&d, "sim?rows=8&cols=8&uart=1"), 0);   // the UART PHY at bit level
    EXPECT_EQ(spu_ping(d), 0);
    uint8_t w[300], r[300];
    for (int i = 0; i < 300; i++)
        w[i] = (uint8_t)(i ^ 0xA5);
    EXPECT_EQ(spu_write(d, 1000, w, sizeof w), 0);
    EXPECT_EQ(spu_read(d, 1000, r, sizeof r), 0);
    EXPECT_EQ(memcmp(w, r, sizeof w), 0);
    spu_close(d);
}

// ---- a real board --------------------------------------------------------------
class Board : public Device {
protected:
    const char *uri() override { return getenv("SPU_SERIAL"); }
    void SetUp() override
    {
        if (!uri() || !*uri())
            GTEST_SKIP() << "no board: set SPU_SERIAL=serial:/dev/ttyUSB1";
        Device::SetUp();
    }
    void TearDown() override
    {
        if (dev)
            Device::TearDown();
    }
};

TEST_F(Board, PingInfoAndRoundTrip)
{
    EXPECT_EQ(spu_ping(dev), 0);
    EXPECT_EQ(info.isa_hash, spu_isa_hash());
    std::vector<uint8_t> w(4096), r(4096);
    for (size_t i = 0; i < w.size(); i++)
        w[i] = (uint8_t)(i * 13);
    ASSERT_EQ(spu_write(dev, 0, w.data(), w.size()), 0);
    ASSERT_EQ(spu_read(dev, 0, r.data(), r.size()), 0);
    EXPECT_EQ(w, r);
}

}   // namespace
