// test_rtl_link.cc -- the link RTL against the C codec of libspu and the
// protocol of docs/protocol.md: CRC-32 and COBS units on random frames, the
// UART PHY in loopback, and the command engine of spu_top through its byte
// port (hw/sim/spu_board.h, the same harness spu-sim uses).
#include "Vspu_link_tb.h"
#include "spu_board.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

extern "C" {
#include "link/link_codec.h"
}
#include "spu/isa.h"
#include "spu/spu.h"

namespace {

enum {
#define SPU_CMD(name, code, req, resp) CMD_##name = (code),
#include "spu_link.def"
};
enum {
#define SPU_LINK_STATUS(name, code, summary) ST_##name = (code),
#include "spu_link.def"
};
enum {
#define SPU_LINK_CONST(name, value) LINK_##name = (value),
#include "spu_link.def"
};

using Bytes = std::vector<uint8_t>;

// ---------------------------------------------------------------- unit bench
struct Tb {
    VerilatedContext ctx;
    Vspu_link_tb t{&ctx, "tb"};
    Tb()
    {
        t.rst_i = 1;
        tick();
        tick();
        t.rst_i = 0;
    }
    void tick()
    {
        t.clk_i = 0;
        t.eval();
        t.clk_i = 1;
        t.eval();
    }
};

Bytes random_frame(std::mt19937 &rng, size_t n, int zero_pct)
{
    Bytes b(n);
    for (auto &x : b)
        x = (int)(rng() % 100) < zero_pct ? 0 : (uint8_t)(1 + rng() % 255);
    return b;
}

Bytes c_encode(const Bytes &raw)
{
    Bytes e(SPU_COBS_MAX(raw.size()) + 1);
    long n = spu_cobs_encode(raw.data(), raw.size(), e.data(), e.size());
    EXPECT_GE(n, 0);
    e.resize((size_t)n);
    e.push_back(0);
    return e;
}

TEST(RtlCrc32, MatchesCOnRandomFramesAndChecksResidue)
{
    Tb tb;
    std::mt19937 rng(1);
    for (int it = 0; it < 200; it++) {
        Bytes b = random_frame(rng, rng() % 300, 10);
        tb.t.crc_clear_i = 1;
        tb.tick();
        tb.t.crc_clear_i = 0;
        tb.t.crc_valid_i = 1;
        for (uint8_t x : b) {
            tb.t.crc_data_i = x;
            tb.tick();
        }
        tb.t.crc_valid_i = 0;
        tb.t.eval();
        uint32_t c = spu_link_crc32(0, b.data(), b.size());
        ASSERT_EQ(tb.t.crc_o, c) << "frame " << it << " len " << b.size();
        // the receiver's check: the frame followed by its CRC, little-endian
        tb.t.crc_valid_i = 1;
        for (int i = 0; i < 4; i++) {
            tb.t.crc_data_i = (uint8_t)(c >> (8 * i));
            tb.tick();
        }
        tb.t.crc_valid_i = 0;
        tb.t.eval();
        ASSERT_TRUE(tb.t.crc_res_ok_o);
    }
    EXPECT_EQ(spu_link_crc32(0, "123456789", 9), 0xCBF43926u);   // the CRC-32 check value
}

TEST(RtlCobs, EncoderMatchesCCodec)
{
    Tb tb;
    std::mt19937 rng(2);
    std::vector<size_t> lens = {1, 2, 253, 254, 255, 256, 508, 509, 1030};
    for (int i = 0; i < 150; i++)
        lens.push_back(1 + rng() % 1030);
    for (size_t k = 0; k < lens.size(); k++) {
        int zp = k % 3 == 0 ? 0 : (k % 3 == 1 ? 2 : 40);
        Bytes raw = random_frame(rng, lens[k], zp);
        if (k == 3)
            raw.back() = 0;   // frame ending in a zero
        Bytes want = c_encode(raw), got;
        size_t i = 0;
        for (int cyc = 0; cyc < 20 * 1100 && (got.empty() || got.back() != 0 || i < raw.size()); cyc++) {
            tb.t.enc_valid_i = i < raw.size();
            tb.t.enc_data_i = i < raw.size() ? raw[i] : 0;
            tb.t.enc_last_i = i + 1 == raw.size();
            tb.t.clk_i = 0;
            tb.t.eval();
            bool in_fire = tb.t.enc_valid_i && tb.t.enc_ready_o;
            if (tb.t.enc_out_valid_o)
                got.push_back(tb.t.enc_out_data_o);
            tb.t.clk_i = 1;
            tb.t.eval();
            i += in_fire;
        }
        ASSERT_EQ(got, want) << "frame " << k << " len " << raw.size();
        tb.tick();
        ASSERT_TRUE(tb.t.enc_idle_o);
    }
}

TEST(RtlCobs, DecoderMatchesCCodecAndFlagsTruncation)
{
    Tb tb;
    std::mt19937 rng(3);
    for (int k = 0; k < 150; k++) {
        Bytes raw = random_frame(rng, 1 + rng() % 1030, k % 2 ? 1 : 30);
        Bytes enc = c_encode(raw), got;
        int ends = 0, bads = 0;
        bool truncate = k % 10 == 9 && enc.size() > 3 && enc[0] > 2;
        if (truncate)
            enc.erase(enc.begin() + 2, enc.end() - 1);   // block cut short by the delimiter
        for (uint8_t x : enc) {
            tb.t.dec_valid_i = 1;
            tb.t.dec_data_i = x;
            tb.t.clk_i = 0;
            tb.t.eval();
            if (tb.t.dec_out_valid_o) {
                if (tb.t.dec_end_o)
                    ends++;
                else if (tb.t.dec_bad_o)
                    bads++;
                else
                    got.push_back(tb.t.dec_out_data_o);
            }
            tb.t.clk_i = 1;
            tb.t.eval();
        }
        tb.t.dec_valid_i = 0;
        if (truncate) {
            ASSERT_EQ(bads, 1);
            ASSERT_EQ(ends, 0);
        } else {
            ASSERT_EQ(ends, 1);
            ASSERT_EQ(got, raw) << "frame " << k;
        }
    }
}

TEST(RtlUart, LoopbackCarriesEveryByte)
{
    Tb tb;
    Bytes got;
    for (int v = 0; v < 256; v++) {
        tb.t.uart_valid_i = 1;
        tb.t.uart_data_i = (uint8_t)(v ^ 0x5A);
        for (int cyc = 0; cyc < 200; cyc++) {
            tb.t.clk_i = 0;
            tb.t.eval();
            bool fire = tb.t.uart_valid_i && tb.t.uart_ready_o;
            if (tb.t.uart_out_valid_o)
                got.push_back(tb.t.uart_out_data_o);
            EXPECT_FALSE(tb.t.uart_ferr_o);
            tb.t.clk_i = 1;
            tb.t.eval();
            if (fire)
                tb.t.uart_valid_i = 0;
            if (got.size() == (size_t)v + 1)
                break;
        }
        ASSERT_EQ(got.size(), (size_t)v + 1);
        ASSERT_EQ(got.back(), (uint8_t)(v ^ 0x5A));
    }
}

// ---------------------------------------------------------------- UART at 4 clocks per bit
// The boards run the UART at 4 clocks per bit (6 Mbaud at 24 MHz, 12 Mbaud
// at 48 MHz). A host UART's bit period differs from the board's by the two
// oscillators' error; `err` is that relative error (+0.02: the host's bits
// are 2 % longer). The line is driven with bit edges at fractional cycle
// times from a random phase, frames back to back (the worst case: no idle
// time between stop bit and next start bit).
struct Uart4Result {
    Bytes got;
    int frame_errors = 0, overruns = 0;
};

// The bench's receiver / transmitter pair at cpb clocks per bit: 4 (u_rx4,
// u_tx4), 3 (u_rx3, u_tx3) or 2 (u_rx2, the receiver that samples on both
// clock edges, and u_tx2).
struct UartPorts {
    uint8_t *line_i, *out_valid_o, *out_data_o, *ferr_o, *ovr_o;
    uint8_t *valid_i, *ready_o, *data_i, *line_o;
};
UartPorts uart_ports(Vspu_link_tb &t, int cpb)
{
    if (cpb == 4)
        return { &t.u4_line_i, &t.u4_out_valid_o, &t.u4_out_data_o, &t.u4_ferr_o, &t.u4_ovr_o,
                 &t.u4_valid_i, &t.u4_ready_o, &t.u4_data_i, &t.u4_line_o };
    if (cpb == 3)
        return { &t.u3_line_i, &t.u3_out_valid_o, &t.u3_out_data_o, &t.u3_ferr_o, &t.u3_ovr_o,
                 &t.u3_valid_i, &t.u3_ready_o, &t.u3_data_i, &t.u3_line_o };
    return { &t.u2_line_i, &t.u2_out_valid_o, &t.u2_out_data_o, &t.u2_ferr_o, &t.u2_ovr_o,
             &t.u2_valid_i, &t.u2_ready_o, &t.u2_data_i, &t.u2_line_o };
}

// At 2 clocks per bit the line is set for the falling edge, half a cycle
// before the rising one, and again for the rising edge; the other
// receivers sample only the rising edge.
Uart4Result uart_receive(int cpb, const Bytes &send, double err, double phase)
{
    Tb tb;
    const UartPorts u = uart_ports(tb.t, cpb);
    const double period = (double)cpb * (1.0 + err);
    const double t0 = 3.0 + phase;                      // first start bit
    const double frame = 10.0 * period;
    const double end = t0 + frame * (double)send.size() + 3.0 * period;
    // the host's line at time t (cycle units)
    auto line_at = [&](double tt) {
        double t = tt - t0;
        if (t < 0.0)
            return 1;
        long f = (long)(t / frame);
        if ((size_t)f >= send.size())
            return 1;
        long bit = (long)((t - (double)f * frame) / period);
        if (bit == 0)
            return 0;
        if (bit <= 8)
            return (send[(size_t)f] >> (bit - 1)) & 1;
        return 1;
    };
    Uart4Result r;
    tb.t.u4_line_i = 1;
    tb.t.u3_line_i = 1;
    tb.t.u2_line_i = 1;
    for (long n = 0; (double)n < end + 8.0; n++) {
        // line value during cycle n: the host's bit at time n
        const int line = line_at((double)n);
        *u.line_i = (uint8_t)(cpb == 2 ? line_at((double)n - 0.5) : line);
        tb.t.clk_i = 0;
        tb.t.eval();
        if (*u.out_valid_o)
            r.got.push_back(*u.out_data_o);
        r.frame_errors += *u.ferr_o;
        r.overruns += *u.ovr_o;
        *u.line_i = (uint8_t)line;
        tb.t.clk_i = 1;
        tb.t.eval();
    }
    return r;
}

// The transmitter at cpb clocks per bit, offered 64 bytes back to back:
// every frame is 10 * cpb cycles with each bit held exactly cpb cycles, no
// gap between frames.
void check_transmitter_back_to_back(int cpb)
{
    Tb tb;
    const UartPorts u = uart_ports(tb.t, cpb);
    Bytes want, line;
    for (int v = 0; v < 64; v++)
        want.push_back((uint8_t)(v * 53 + 7));
    size_t next = 0;
    *u.valid_i = 1;
    *u.data_i = want[0];
    const size_t fc = 10 * (size_t)cpb;   // cycles a frame
    for (size_t n = 0; n < 64 * fc + 50; n++) {
        tb.t.clk_i = 0;
        tb.t.eval();
        line.push_back(*u.line_o);
        bool fire = *u.valid_i && *u.ready_o;
        tb.t.clk_i = 1;
        tb.t.eval();
        if (fire) {
            next++;
            *u.valid_i = next < want.size();
            *u.data_i = next < want.size() ? want[next] : 0;
        }
    }
    ASSERT_EQ(next, want.size());
    // decode: find the first start bit, then frame after frame
    size_t s = 0;
    while (s < line.size() && line[s])
        s++;
    for (size_t f = 0; f < want.size(); f++) {
        size_t b0 = s + f * fc;
        ASSERT_LE(b0 + fc, line.size());
        for (int bit = 0; bit < 10; bit++) {
            int v = bit == 0 ? 0 : bit == 9 ? 1 : (want[f] >> (bit - 1)) & 1;
            for (int c = 0; c < cpb; c++)
                ASSERT_EQ(line[b0 + (size_t)bit * (size_t)cpb + (size_t)c], v)
                    << "cpb " << cpb << " frame " << f << " bit " << bit << " cycle " << c;
        }
    }
}

Uart4Result uart4_receive(const Bytes &send, double err, double phase)
{
    return uart_receive(4, send, err, phase);
}

TEST(RtlUart, ReceiverAt4ClocksPerBitToleratesHostClockError)
{
    std::mt19937 rng(0x4cb);
    Bytes all(256);
    for (int v = 0; v < 256; v++)
        all[(size_t)v] = (uint8_t)v;
    // FT2232H at 6 or 12 Mbaud divides its 120 MHz exactly; the real error
    // is the two crystals' (tens of ppm). +/-2 % is a wide margin over that.
    for (double err : { -0.02, -0.01, 0.0, 0.01, 0.02 }) {
        for (int rep = 0; rep < 4; rep++) {
            std::shuffle(all.begin(), all.end(), rng);
            double phase = (double)(rng() % 1000) / 1000.0;
            Uart4Result r = uart4_receive(all, err, phase);
            EXPECT_EQ(r.frame_errors, 0) << "err " << err << " phase " << phase;
            EXPECT_EQ(r.overruns, 0);
            ASSERT_EQ(r.got, all) << "err " << err << " phase " << phase;
        }
    }
}

TEST(RtlUart, ReceiverAt4ClocksPerBitFailsVisiblyBeyondItsTolerance)
{
    // the same bench must see broken bytes or frame errors when the host's
    // clock is far off: the test above can fail
    Bytes all(256);
    for (int v = 0; v < 256; v++)
        all[(size_t)v] = (uint8_t)(v * 37 + 11);
    for (double err : { -0.10, 0.10 }) {
        Uart4Result r = uart4_receive(all, err, 0.5);
        EXPECT_TRUE(r.got != all || r.frame_errors > 0) << "err " << err;
    }
}

TEST(RtlUart, TransmitterAt4ClocksPerBitSendsBackToBackFrames)
{
    check_transmitter_back_to_back(4);
}

// ---------------------------------------------------------------- UART at 3 clocks per bit
// The boards' default since issue 13: 8 Mbaud at 24 MHz (the FT2232H's
// 120 MHz / 15, exact). The receiver detects the start edge 0..1 clock after
// it (synchroniser delay cancels: the samples go through the same flops),
// confirms the start bit 1 clock later and samples bit k (k = 0..7 data,
// 8 = stop) 4 + 3k clocks after detection, i.e. 4 + 3k + [0, 1) clocks after
// the host's edge: the stop bit at [28, 29) against its host window
// [27, 30) x (1 + err). That holds for err in (-3.3 %, +3.7 %)
// (docs/fpga.md "UART rate"); the test requires +/-2 % and +/-3 %.
TEST(RtlUart, ReceiverAt3ClocksPerBitToleratesHostClockError)
{
    std::mt19937 rng(0x3cb);
    Bytes all(256);
    for (int v = 0; v < 256; v++)
        all[(size_t)v] = (uint8_t)v;
    for (double err : { -0.03, -0.02, -0.01, 0.0, 0.01, 0.02, 0.03 }) {
        for (int rep = 0; rep < 4; rep++) {
            std::shuffle(all.begin(), all.end(), rng);
            double phase = (double)(rng() % 1000) / 1000.0;
            Uart4Result r = uart_receive(3, all, err, phase);
            EXPECT_EQ(r.frame_errors, 0) << "err " << err << " phase " << phase;
            EXPECT_EQ(r.overruns, 0);
            ASSERT_EQ(r.got, all) << "err " << err << " phase " << phase;
        }
    }
}

TEST(RtlUart, ReceiverAt3ClocksPerBitFailsVisiblyBeyondItsTolerance)
{
    // beyond the analysis' bound the same bench sees broken bytes or frame
    // errors: the test above can fail
    Bytes all(256);
    for (int v = 0; v < 256; v++)
        all[(size_t)v] = (uint8_t)(v * 37 + 11);
    // the failure needs a start edge detected early (small delay) for a slow
    // host, late for a fast one: several phases, one of them must break
    for (double err : { -0.05, 0.05 }) {
        bool broken = false;
        for (double phase : { 0.1, 0.3, 0.5, 0.7, 0.9 }) {
            Uart4Result r = uart_receive(3, all, err, phase);
            broken = broken || r.got != all || r.frame_errors > 0;
        }
        EXPECT_TRUE(broken) << "err " << err;
    }
}

TEST(RtlUart, TransmitterAt3ClocksPerBitSendsBackToBackFrames)
{
    check_transmitter_back_to_back(3);
}

// ---------------------------------------------------------------- the engine
struct Reply {
    bool ok = false;   // a reply frame arrived with a good CRC
    uint8_t type = 0, seq = 0, status = 0xFF;
    Bytes body;
};

class Engine : public ::testing::Test {
protected:
    explicit Engine(bool uart = false) : board(uart) {}
    SpuBoard board;
    uint8_t seq = 0;

    static Bytes frame(uint8_t type, uint8_t s, const Bytes &pl, bool corrupt = false)
    {
        Bytes raw = {type, s};
        raw.insert(raw.end(), pl.begin(), pl.end());
        uint32_t c = spu_link_crc32(0, raw.data(), raw.size());
        if (corrupt)
            c ^= 0x100;
        for (int i = 0; i < 4; i++)
            raw.push_back((uint8_t)(c >> (8 * i)));
        return c_encode(raw);
    }
    // clock until a complete reply is out or the board is idle with none
    Reply wait_reply(uint64_t max_cycles = 2000000)
    {
        Reply r;
        auto &out = board.received();
        for (uint64_t n = 0; n < max_cycles; n++) {
            auto z = std::find(out.begin(), out.end(), 0);
            if (z != out.end()) {
                Bytes enc(out.begin(), z);
                out.erase(out.begin(), z + 1);
                Bytes dec(enc.size() + 2);
                long d = spu_cobs_decode(enc.data(), enc.size(), dec.data(), dec.size());
                if (d < 7)
                    return r;
                uint32_t c = 0;
                for (int i = 0; i < 4; i++)
                    c |= (uint32_t)dec[d - 4 + i] << (8 * i);
                r.ok = spu_link_crc32(0, dec.data(), (size_t)d - 4) == c;
                r.type = dec[0];
                r.seq = dec[1];
                r.status = dec[2];
                r.body.assign(dec.begin() + 3, dec.begin() + (d - 4));
                return r;
            }
            if (board.idle() && !board.pending_in())
                return r;
            board.step();
        }
        return r;
    }
    Reply cmd(uint8_t type, const Bytes &pl = {}, int use_seq = -1)
    {
        uint8_t s = use_seq >= 0 ? (uint8_t)use_seq : ++seq;
        Bytes f = frame(type, s, pl);
        board.send(f.data(), f.size());
        Reply r = wait_reply();
        EXPECT_TRUE(r.ok) << "no reply to command " << (int)type;
        EXPECT_EQ(r.type, type | LINK_RESP_BIT);
        EXPECT_EQ(r.seq, s);
        return r;
    }
    static void put32(Bytes &b, uint32_t v)
    {
        for (int i = 0; i < 4; i++)
            b.push_back((uint8_t)(v >> (8 * i)));
    }
    static uint32_t get32(const Bytes &b, size_t at)
    {
        return b[at] | b[at + 1] << 8 | b[at + 2] << 16 | (uint32_t)b[at + 3] << 24;
    }
    static uint32_t enc(const char *mn, unsigned a = 0, unsigned b = 0, unsigned c = 0, int32_t imm = 0)
    {
        const spu_insn_desc *d = spu_isa_by_mnemonic(mn);
        EXPECT_NE(d, nullptr) << mn;
        spu_insn in = {d ? d->opcode : 0, a, b, c, imm};
        uint32_t w = 0;
        EXPECT_EQ(spu_isa_encode(&in, &w), 0) << mn;
        return w;
    }
    // li r1, iters; loop r1, 3; nop; halt -- about 2*iters + 6 cycles
    void load_loop(uint32_t iters)
    {
        Bytes pl;
        put32(pl, 0);
        put32(pl, enc("li", 1, 0, 0, (int32_t)iters));
        put32(pl, enc("loop", 1, 0, 0, 3));
        put32(pl, enc("nop"));
        put32(pl, enc("halt"));
        EXPECT_EQ(cmd(CMD_UCODE, pl).status, ST_OK);
    }
    uint8_t state()
    {
        Reply r = cmd(CMD_STATUS);
        EXPECT_EQ(r.body.size(), 14u);
        return r.body.empty() ? 0xFF : r.body[0];
    }
    Bytes run_pl(uint32_t pc = 0, uint32_t wd = 0)
    {
        Bytes pl;
        put32(pl, pc);
        put32(pl, wd);
        return pl;
    }
};

TEST_F(Engine, PingAndInfo)
{
    Reply r = cmd(CMD_PING);
    EXPECT_EQ(r.status, ST_OK);
    EXPECT_TRUE(r.body.empty());
    r = cmd(CMD_INFO);
    ASSERT_EQ(r.status, ST_OK);
    ASSERT_EQ(r.body.size(), 56u);
    EXPECT_EQ(get32(r.body, 0), (uint32_t)SPU_SIM_ROWS);
    EXPECT_EQ(get32(r.body, 4), (uint32_t)SPU_SIM_COLS);
    EXPECT_EQ(get32(r.body, 8), 8u);
    EXPECT_EQ(get32(r.body, 12), 262144u);
    EXPECT_EQ(get32(r.body, 16), 4u);
    EXPECT_EQ(get32(r.body, 20), 1024u);
    EXPECT_EQ(get32(r.body, 24) & 1u, 1u);
    EXPECT_EQ(get32(r.body, 28), spu_isa_hash());
    EXPECT_EQ(get32(r.body, 40), 4u);
    EXPECT_EQ(get32(r.body, 44), (uint32_t)SPU_SIM_LANES);
    EXPECT_EQ(get32(r.body, 48), get32(r.body, 36) / SPU_SIM_CLKS_PER_BIT);   // link_baud
    // features: the sim's vector unit, chained streams, row / column buses and
    // overlapped issue
    EXPECT_EQ(get32(r.body, 52),
              (uint32_t)(SPU_FEATURE_VECTOR | SPU_FEATURE_CHAIN | SPU_FEATURE_BUS | SPU_FEATURE_OVERLAP));
}

// Requests queued back to back: each one waits in the PHY while the reply to
// the one before is computed and sent. Receive and transmit share one CRC
// unit, so every request must still check and every reply carry its CRC.
TEST_F(Engine, BackToBackRequestsWhileRepliesAreSent)
{
    Bytes data(700);
    for (size_t i = 0; i < data.size(); i++)
        data[i] = (uint8_t)(i * 7 + (i >> 3));
    Bytes wr;
    put32(wr, 100);
    wr.insert(wr.end(), data.begin(), data.end());
    Bytes rd;
    put32(rd, 100);
    rd.push_back((uint8_t)(data.size() & 0xFF));
    rd.push_back((uint8_t)(data.size() >> 8));
    struct Req { uint8_t type; Bytes pl; };
    std::vector<Req> reqs = {{CMD_WRITE, wr}, {CMD_READ, rd}, {CMD_PING, {}},
                             {CMD_INFO, {}}, {CMD_READ, rd}, {CMD_STATUS, {}}};
    Bytes all;
    for (size_t i = 0; i < reqs.size(); i++) {
        Bytes f = frame(reqs[i].type, (uint8_t)(0x40 + i), reqs[i].pl);
        all.insert(all.end(), f.begin(), f.end());
    }
    board.send(all.data(), all.size());
    for (size_t i = 0; i < reqs.size(); i++) {
        Reply r = wait_reply();
        ASSERT_TRUE(r.ok) << "reply " << i;
        EXPECT_EQ(r.type, reqs[i].type | LINK_RESP_BIT) << "reply " << i;
        EXPECT_EQ(r.seq, 0x40 + i);
        EXPECT_EQ(r.status, ST_OK) << "reply " << i;
        if (reqs[i].type == CMD_READ) {
            EXPECT_EQ(r.body, data) << "reply " << i;
        }
    }
}

TEST_F(Engine, WriteReadRoundTripAtTheEdges)
{
    std::mt19937 rng(4);
    const uint32_t spad = 262144;
    for (uint32_t addr : {0u, 1u, 4095u, spad - 1020u}) {
        Bytes data = random_frame(rng, 1020, 5);
        Bytes pl;
        put32(pl, addr);
        pl.insert(pl.end(), data.begin(), data.end());
        ASSERT_EQ(cmd(CMD_WRITE, pl).status, ST_OK);
        Bytes rd;
        put32(rd, addr);
        rd.push_back(1020 & 0xFF);
        rd.push_back(1020 >> 8);
        Reply r = cmd(CMD_READ, rd);
        ASSERT_EQ(r.status, ST_OK);
        ASSERT_EQ(r.body, data) << "addr " << addr;
    }
    // last byte, then one past the end
    Bytes pl;
    put32(pl, spad - 1);
    pl.push_back(0xA5);
    EXPECT_EQ(cmd(CMD_WRITE, pl).status, ST_OK);
    pl.clear();
    put32(pl, spad - 1);
    pl.push_back(0xA5);
    pl.push_back(0x5A);
    EXPECT_EQ(cmd(CMD_WRITE, pl).status, ST_BAD_ADDR);
    Bytes rd;
    put32(rd, spad - 1);
    rd.push_back(2);
    rd.push_back(0);
    EXPECT_EQ(cmd(CMD_READ, rd).status, ST_BAD_ADDR);
    rd.clear();
    put32(rd, 0xFFFFFFFFu);
    rd.push_back(1);
    rd.push_back(0);
    EXPECT_EQ(cmd(CMD_READ, rd).status, ST_BAD_ADDR);   // no 32-bit wrap
    rd.clear();
    put32(rd, 0);
    rd.push_back(1024 & 0xFF);
    rd.push_back(1024 >> 8);
    EXPECT_EQ(cmd(CMD_READ, rd).status, ST_BAD_LEN);    // reply would exceed MAX_PAYLOAD
    rd.clear();
    put32(rd, spad - 1);
    rd.push_back(1);
    rd.push_back(0);
    Reply r = cmd(CMD_READ, rd);
    ASSERT_EQ(r.status, ST_OK);
    EXPECT_EQ(r.body, Bytes({0xA5}));
}

TEST_F(Engine, BadCommandAndBadLengths)
{
    EXPECT_EQ(cmd(0x55).status, ST_BAD_CMD);
    EXPECT_EQ(cmd(0x00).status, ST_BAD_CMD);
    EXPECT_EQ(cmd(CMD_PING, {1}).status, ST_BAD_LEN);
    EXPECT_EQ(cmd(CMD_INFO, {1, 2}).status, ST_BAD_LEN);
    EXPECT_EQ(cmd(CMD_WRITE, {1, 2, 3}).status, ST_BAD_LEN);
    EXPECT_EQ(cmd(CMD_READ, {0, 0, 0, 0, 1}).status, ST_BAD_LEN);
    EXPECT_EQ(cmd(CMD_UCODE, {0, 0, 0, 0, 1, 2}).status, ST_BAD_LEN);
    EXPECT_EQ(cmd(CMD_ARGS, Bytes(36, 1)).status, ST_BAD_LEN);
    EXPECT_EQ(cmd(CMD_ARGS, Bytes(5, 1)).status, ST_BAD_LEN);
    EXPECT_EQ(cmd(CMD_RUN, Bytes(4, 0)).status, ST_BAD_LEN);
    EXPECT_EQ(cmd(CMD_STATUS, {0}).status, ST_BAD_LEN);
    EXPECT_EQ(cmd(CMD_COUNTERS, {0}).status, ST_BAD_LEN);
    EXPECT_EQ(cmd(CMD_RESET, {0}).status, ST_BAD_LEN);
    Bytes pl;
    put32(pl, 1023);
    put32(pl, 0);
    put32(pl, 0);
    EXPECT_EQ(cmd(CMD_UCODE, pl).status, ST_BAD_ADDR);   // words 1023..1024
    EXPECT_EQ(cmd(CMD_RUN, run_pl(1024)).status, ST_BAD_ADDR);
    EXPECT_EQ(cmd(CMD_ARGS, Bytes(32, 1)).status, ST_OK);
    EXPECT_EQ(cmd(CMD_PING).status, ST_OK);
}

TEST_F(Engine, BadCrcGarbageAndOversizeFramesAreDropped)
{
    // bad CRC: no reply at all
    Bytes f = frame(CMD_PING, 7, {}, true);
    board.send(f.data(), f.size());
    EXPECT_FALSE(wait_reply().ok);
    // garbage (no delimiter), then a delimiter, then a good frame
    std::mt19937 rng(5);
    Bytes g = random_frame(rng, 3000, 0);
    g.push_back(0);
    board.send(g.data(), g.size());
    EXPECT_FALSE(wait_reply().ok);
    EXPECT_EQ(cmd(CMD_PING).status, ST_OK);
    // garbage right before a frame, separated by a delimiter only
    g.resize(17);
    g.push_back(0);
    Bytes p = frame(CMD_PING, 99, {});
    g.insert(g.end(), p.begin(), p.end());
    board.send(g.data(), g.size());
    Reply r = wait_reply();
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.seq, 99);
    // oversize: MAX_PAYLOAD + 1 bytes of payload with a valid CRC
    Bytes big;
    put32(big, 0);
    big.resize(LINK_MAX_PAYLOAD + 1, 0x11);
    f = frame(CMD_WRITE, 8, big);
    board.send(f.data(), f.size());
    EXPECT_FALSE(wait_reply().ok);
    // exactly MAX_PAYLOAD is fine
    big.resize(LINK_MAX_PAYLOAD);
    EXPECT_EQ(cmd(CMD_WRITE, big).status, ST_OK);
    // two frames back to back are both answered, in order
    Bytes a = frame(CMD_PING, 200, {}), b = frame(CMD_STATUS, 201, {});
    a.insert(a.end(), b.begin(), b.end());
    board.send(a.data(), a.size());
    Reply r1 = wait_reply(), r2 = wait_reply();
    EXPECT_EQ(r1.seq, 200);
    EXPECT_EQ(r2.seq, 201);
    EXPECT_EQ(r2.body.size(), 14u);
}

TEST_F(Engine, CountersReplyCarriesEveryCounter)
{
    Reply r = cmd(CMD_COUNTERS);
    ASSERT_EQ(r.status, ST_OK);
    ASSERT_GE(r.body.size(), 1u);
    EXPECT_EQ(r.body[0], SPU_CNT_COUNT);
    EXPECT_EQ(r.body.size(), 1u + 8u * r.body[0]);
    uint64_t rx = 0;
    for (int i = 0; i < 8; i++)
        rx |= (uint64_t)r.body[1 + 8 * SPU_CNT_LINK_RX + i] << (8 * i);
    EXPECT_GT(rx, 0u);   // at least this request's bytes
}

TEST_F(Engine, RunBusyAndIdempotentRetry)
{
    load_loop(20000);
    EXPECT_EQ(cmd(CMD_ARGS, Bytes(8, 0)).status, ST_OK);
    const uint8_t run_seq = ++seq;
    EXPECT_EQ(cmd(CMD_RUN, run_pl(), run_seq).status, ST_OK);
    EXPECT_EQ(state(), SPU_STATE_RUNNING);
    // memory commands are refused while it runs
    Bytes pl;
    put32(pl, 0);
    pl.push_back(1);
    EXPECT_EQ(cmd(CMD_WRITE, pl).status, ST_BUSY);
    EXPECT_EQ(cmd(CMD_UCODE, {0, 0, 0, 0, 1, 2, 3, 4}).status, ST_BUSY);
    EXPECT_EQ(cmd(CMD_ARGS, Bytes(4, 0)).status, ST_BUSY);
    EXPECT_EQ(cmd(CMD_RUN, run_pl()).status, ST_BUSY);
    // the link stays alive
    EXPECT_EQ(cmd(CMD_PING).status, ST_OK);
    // a retry of the RUN itself (same seq, nothing in between) is answered OK
    const uint8_t run2 = ++seq;
    EXPECT_EQ(cmd(CMD_RESET, {}, run2).status, ST_OK);
    EXPECT_NE(state(), SPU_STATE_RUNNING);
    const uint8_t run3 = ++seq;
    EXPECT_EQ(cmd(CMD_RUN, run_pl(), run3).status, ST_OK);
    EXPECT_EQ(cmd(CMD_RUN, run_pl(), run3).status, ST_OK);   // retry while running: not BUSY
    // wait for the halt, then retry again: must not start a second run
    int polls = 0;
    while (state() == SPU_STATE_RUNNING && polls++ < 1000)
        for (int i = 0; i < 2000; i++)
            board.step();
    ASSERT_EQ(state(), SPU_STATE_HALTED);
    Bytes f = frame(CMD_RUN, run3, run_pl());
    board.send(f.data(), f.size());
    Reply r = wait_reply();
    EXPECT_EQ(r.status, ST_OK);
    // run3 was not the last frame (STATUS came after), so this one is a new RUN
    EXPECT_EQ(state(), SPU_STATE_RUNNING);
    // a true retry: RUN, reply lost, RUN with the same seq again
    EXPECT_EQ(cmd(CMD_RESET).status, ST_OK);
    const uint8_t run4 = ++seq;
    f = frame(CMD_RUN, run4, run_pl());
    board.send(f.data(), f.size());
    (void)wait_reply();   // "lost"
    for (int i = 0; i < 100000; i++)   // let it finish: about 40000 cycles
        board.step();
    board.send(f.data(), f.size());
    r = wait_reply();
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.status, ST_OK);
    EXPECT_EQ(state(), SPU_STATE_HALTED);   // not re-executed
    (void)run_seq;
}

TEST_F(Engine, ResetStopsARun)
{
    load_loop(100000);
    EXPECT_EQ(cmd(CMD_RUN, run_pl()).status, ST_OK);
    EXPECT_EQ(state(), SPU_STATE_RUNNING);
    EXPECT_EQ(cmd(CMD_RESET).status, ST_OK);
    EXPECT_EQ(state(), SPU_STATE_IDLE);
}

class EngineUart : public Engine {
protected:
    EngineUart() : Engine(true) {}
};

TEST_F(EngineUart, CommandsOverTheUartPhy)
{
    EXPECT_EQ(cmd(CMD_PING).status, ST_OK);
    Reply r = cmd(CMD_INFO);
    ASSERT_EQ(r.body.size(), 56u);
    EXPECT_EQ(get32(r.body, 28), spu_isa_hash());
    Bytes pl;
    put32(pl, 100);
    for (int i = 0; i < 300; i++)
        pl.push_back((uint8_t)(i * 7));
    EXPECT_EQ(cmd(CMD_WRITE, pl).status, ST_OK);
    Bytes rd;
    put32(rd, 100);
    rd.push_back(300 & 0xFF);
    rd.push_back(300 >> 8);
    r = cmd(CMD_READ, rd);
    ASSERT_EQ(r.status, ST_OK);
    EXPECT_EQ(r.body, Bytes(pl.begin() + 4, pl.end()));
}

}   // namespace

// docs/protocol.md: BAD_ADDR only if addr + n > SPAD_BYTES, so a zero-length
// READ or WRITE at addr = SPAD_BYTES (and UCODE of no words at UCODE_WORDS)
// is in range; one byte further is not.
TEST_F(Engine, ZeroLengthAccessAtTheVeryEndIsInRange)
{
    const uint32_t spad = 262144, ucode = 1024;
    Bytes pl;
    put32(pl, spad);
    pl.push_back(0);
    pl.push_back(0);
    EXPECT_EQ(cmd(CMD_READ, pl).status, ST_OK);
    pl[4] = 1;
    EXPECT_EQ(cmd(CMD_READ, pl).status, ST_BAD_ADDR);
    pl.clear();
    put32(pl, spad - 1);
    pl.push_back(1);
    pl.push_back(0);
    Reply r = cmd(CMD_READ, pl);
    EXPECT_EQ(r.status, ST_OK);
    EXPECT_EQ(r.body.size(), 1u);
    pl.clear();
    put32(pl, spad);
    EXPECT_EQ(cmd(CMD_WRITE, pl).status, ST_OK);
    pl.push_back(7);
    EXPECT_EQ(cmd(CMD_WRITE, pl).status, ST_BAD_ADDR);
    pl.clear();
    put32(pl, spad + 1);
    EXPECT_EQ(cmd(CMD_WRITE, pl).status, ST_BAD_ADDR);
    pl.clear();
    put32(pl, 2 * spad);   // the bit just above the new width
    EXPECT_EQ(cmd(CMD_WRITE, pl).status, ST_BAD_ADDR);
    pl.clear();
    put32(pl, 0x80000000u + spad);
    pl.push_back(0);
    pl.push_back(0);
    EXPECT_EQ(cmd(CMD_READ, pl).status, ST_BAD_ADDR);
    pl.clear();
    put32(pl, ucode);
    EXPECT_EQ(cmd(CMD_UCODE, pl).status, ST_OK);
    put32(pl, enc("halt"));
    EXPECT_EQ(cmd(CMD_UCODE, pl).status, ST_BAD_ADDR);
    EXPECT_EQ(cmd(CMD_RUN, run_pl(ucode)).status, ST_BAD_ADDR);
    EXPECT_EQ(cmd(CMD_PING).status, ST_OK);
}

// Device-side fuzz: random byte streams (plain noise, noise rich in 0x00,
// valid frames with random payloads and lengths, valid frames with flipped
// bits, truncated frames) pushed into the byte port; after each the device
// must answer a PING, and a scratchpad pattern written first must be intact
// (frames that fail their CRC must never execute). Seeded, 300 streams.
TEST_F(Engine, FuzzRandomStreamsThenPingAnswers)
{
    std::mt19937 rng(0xF022);
    Bytes pattern(256);
    for (size_t i = 0; i < pattern.size(); i++)
        pattern[i] = (uint8_t)(i * 37 + 11);
    Bytes wp;
    put32(wp, 200000);
    wp.insert(wp.end(), pattern.begin(), pattern.end());
    ASSERT_EQ(cmd(CMD_WRITE, wp).status, ST_OK);
    for (int it = 0; it < 300; it++) {
        Bytes s;
        const int kind = it % 5;
        if (kind == 0) {   // noise
            s = random_frame(rng, 1 + rng() % 2000, 0);
        } else if (kind == 1) {   // noise with many delimiters
            s = random_frame(rng, 1 + rng() % 600, 20);
        } else {   // a frame of a random command with a random payload
            Bytes pl = random_frame(rng, rng() % 40, 10);
            uint8_t type = (uint8_t)(rng() % 16);
            if (type == CMD_RESET || type == CMD_RUN)
                type = CMD_PING;   // keep the sequencer out of it
            if ((type == CMD_WRITE || type == CMD_UCODE) && pl.size() >= 4)
                pl[3] = pl[2] = 0xFF;   // an address far out of range: nothing is written
            s = frame(type, (uint8_t)rng(), pl);
            if (kind == 3) {   // flip bits in the encoded frame (the CRC must catch it)
                for (int f = 0; f < 1 + (int)(rng() % 3); f++) {
                    size_t at = rng() % (s.size() - 1);
                    s[at] ^= (uint8_t)(1u << (rng() % 8));
                }
            } else if (kind == 4) {   // truncated: the rest never comes
                s.resize(rng() % s.size());
            }
        }
        board.send(s.data(), s.size());
        for (int d = 0; d < 8; d++)   // drain whatever it answered
            if (!wait_reply(200000).type && board.idle())
                break;
        const uint8_t z = 0;   // end any partial frame, as a host resyncs
        board.send(&z, 1);
        Reply r = cmd(CMD_PING);
        ASSERT_TRUE(r.ok) << "no PING answer after stream " << it << " (kind " << kind << ")";
        ASSERT_EQ(r.status, ST_OK);
    }
    Bytes rp;
    put32(rp, 200000);
    rp.push_back(0);
    rp.push_back(1);
    Reply r = cmd(CMD_READ, rp);
    ASSERT_EQ(r.status, ST_OK);
    EXPECT_EQ(r.body, pattern);
}

// ---------------------------------------------------------------- UART at 2 clocks per bit
// The boards' default since session 21: 12 Mbaud at 24 MHz (the FT2232H's
// maximum, 120 MHz / 10, exact). spu_uart_rx_ddr samples the line on both
// clock edges (4 samples a bit), detects the start edge 0..1 sample after it
// and samples bit k (0 = start, 9 = stop) 2 + 4k samples after detection:
// the stop bit at [38, 39) samples against the host's [36, 40) x (1 + err),
// so err in [-2.5 %, +5.5 %] (docs/fpga.md "UART rate"). The random phases
// put the host's edges at either half of a clock, so both sample phases run.
TEST(RtlUart, ReceiverAt2ClocksPerBitSamplesBothEdgesAndToleratesHostClockError)
{
    std::mt19937 rng(0x2cb);
    Bytes all(256);
    for (int v = 0; v < 256; v++)
        all[(size_t)v] = (uint8_t)v;
    for (double err : { -0.02, -0.01, 0.0, 0.01, 0.02, 0.03, 0.05 }) {
        for (int rep = 0; rep < 6; rep++) {
            std::shuffle(all.begin(), all.end(), rng);
            double phase = rep == 0 ? 0.0 : rep == 1 ? 0.5 : (double)(rng() % 1000) / 1000.0;
            Uart4Result r = uart_receive(2, all, err, phase);
            EXPECT_EQ(r.frame_errors, 0) << "err " << err << " phase " << phase;
            EXPECT_EQ(r.overruns, 0);
            ASSERT_EQ(r.got, all) << "err " << err << " phase " << phase;
        }
    }
}

TEST(RtlUart, ReceiverAt2ClocksPerBitFailsVisiblyBeyondItsTolerance)
{
    // beyond the bounds the same bench sees broken bytes or frame errors, at
    // some phase: the test above can fail. (A receiver that ignored the
    // falling-edge sample would know the start edge to a clock only, taking
    // the stop bit at [38, 40) samples: it fails the test above at -1 %.)
    Bytes all(256);
    for (int v = 0; v < 256; v++)
        all[(size_t)v] = (uint8_t)(v * 37 + 11);
    for (double err : { -0.05, 0.08 }) {
        bool broken = false;
        for (double phase : { 0.1, 0.3, 0.5, 0.7, 0.9 }) {
            Uart4Result r = uart_receive(2, all, err, phase);
            broken = broken || r.got != all || r.frame_errors > 0;
        }
        EXPECT_TRUE(broken) << "err " << err;
    }
}

TEST(RtlUart, TransmitterAt2ClocksPerBitSendsBackToBackFrames)
{
    check_transmitter_back_to_back(2);
}

TEST(RtlUart, LoopbackAt2ClocksPerBitCarriesEveryByte)
{
    // the transmitter's line into the receiver as the board simulators and
    // a host at the same rate see it: the line changes after a rising edge,
    // so both samples of a clock read the same value
    Tb tb;
    Bytes want, got;
    for (int v = 0; v < 256; v++)
        want.push_back((uint8_t)(v ^ 0xA5));
    size_t next = 0;
    tb.t.u2_valid_i = 1;
    tb.t.u2_data_i = want[0];
    int ferr = 0, ovr = 0;
    for (int n = 0; n < 256 * 20 + 60 && got.size() < want.size(); n++) {
        tb.t.u2_line_i = tb.t.u2_line_o;
        tb.t.clk_i = 0;
        tb.t.eval();
        bool fire = tb.t.u2_valid_i && tb.t.u2_ready_o;
        if (tb.t.u2_out_valid_o)
            got.push_back(tb.t.u2_out_data_o);
        ferr += tb.t.u2_ferr_o;
        ovr += tb.t.u2_ovr_o;
        tb.t.clk_i = 1;
        tb.t.eval();
        if (fire) {
            next++;
            tb.t.u2_valid_i = next < want.size();
            tb.t.u2_data_i = next < want.size() ? want[next] : 0;
        }
    }
    EXPECT_EQ(ferr, 0);
    EXPECT_EQ(ovr, 0);
    ASSERT_EQ(got, want);
}
