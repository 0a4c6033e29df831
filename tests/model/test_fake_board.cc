// test_fake_board.cc -- libspu's serial transport against a scripted board on
// a pty (a thread of this test speaking the link protocol with libspu's own
// codec): what the host does with an ISA it does not share, with stale and
// corrupted replies, and with line noise between frames (docs/protocol.md).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <asm/ioctls.h>
#include <asm/termbits.h>   /* termios2 (no <termios.h> in this file) */
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

extern "C" {
#include "link/link_codec.h"
#include "spu/isa.h"
#include "spu/spu.h"
}

namespace {

// A board with 8x8 geometry that answers PING, INFO (with isa_hash), WRITE,
// READ, UCODE, ARGS, RUN, STATUS; it records every command type it executed.
// mischief: 1 = before each reply send a stale reply (previous seq) and a
// copy with a broken CRC, and some noise bytes.
class FakeBoard {
public:
    FakeBoard(uint32_t isa_hash, int mischief) : hash_(isa_hash), mischief_(mischief)
    {
        m_ = posix_openpt(O_RDWR | O_NOCTTY);
        EXPECT_GE(m_, 0);
        grantpt(m_);
        unlockpt(m_);
        path_ = ptsname(m_);
        th_ = std::thread([this] { loop(); });
    }
    ~FakeBoard()
    {
        stop_ = true;
        th_.join();
        close(m_);
    }
    std::string uri() const { return "serial:" + path_; }
    std::vector<uint8_t> seen;   // command types executed

private:
    // one reply frame, appended to `to` (written to the pty by reply())
    void send(std::vector<uint8_t> &to, uint8_t type, uint8_t seq, uint8_t status, const uint8_t *p, size_t n,
              bool bad_crc)
    {
        std::vector<uint8_t> raw = {type, seq, status};
        raw.insert(raw.end(), p, p + n);
        uint32_t c = spu_link_crc32(0, raw.data(), raw.size()) ^ (bad_crc ? 0x100u : 0u);
        for (int i = 0; i < 4; i++)
            raw.push_back((uint8_t)(c >> (8 * i)));
        std::vector<uint8_t> e(SPU_COBS_MAX(raw.size()) + 1);
        long k = spu_cobs_encode(raw.data(), raw.size(), e.data(), e.size());
        e[k++] = 0;
        to.insert(to.end(), e.begin(), e.begin() + k);
    }
    void reply(const uint8_t *f, size_t n)
    {
        uint8_t type = f[0], seq = f[1];
        const uint8_t *pl = f + 2;
        size_t plen = n - 6;
        std::vector<uint8_t> out;
        seen.push_back(type);
        switch (type) {
        case 0x02: {   // INFO
            uint32_t w[12] = {8, 8, 8, 262144, 4, 1024, 1, hash_, 0x000100, 25000000, 4, 8};
            for (uint32_t v : w)
                for (int i = 0; i < 4; i++)
                    out.push_back((uint8_t)(v >> (8 * i)));
            break;
        }
        case 0x03: {   // WRITE
            uint32_t a = pl[0] | pl[1] << 8 | pl[2] << 16 | (uint32_t)pl[3] << 24;
            memcpy(&spad_[a], pl + 4, plen - 4);
            break;
        }
        case 0x04: {   // READ
            uint32_t a = pl[0] | pl[1] << 8 | pl[2] << 16 | (uint32_t)pl[3] << 24;
            size_t len = pl[4] | pl[5] << 8;
            out.assign(&spad_[a], &spad_[a] + len);
            break;
        }
        case 0x08:   // STATUS: idle
            out.assign(14, 0);
            break;
        default:
            break;
        }
        // the mischief and the good reply in one write: a host that reads
        // the bad-CRC copy alone resends at once (link_client.c), and a
        // reply split there by the scheduler would make this test about
        // timing instead of about dropping bad frames
        std::vector<uint8_t> wire;
        if (mischief_) {
            static const uint8_t noise[] = {0x55, 0x13, 0x00, 0x07, 0xFF, 0x00};
            wire.insert(wire.end(), noise, noise + sizeof noise);
            send(wire, type | 0x80, (uint8_t)(seq - 1), 0, out.data(), out.size(), false);   // stale
            send(wire, type | 0x80, seq, 0, out.data(), out.size(), true);                   // bad CRC
        }
        send(wire, type | 0x80, seq, 0, out.data(), out.size(), false);
        for (size_t off = 0; off < wire.size();) {
            const ssize_t k = write(m_, wire.data() + off, wire.size() - off);
            ASSERT_GT(k, 0);
            off += (size_t)k;
        }
    }
    void loop()
    {
        // keep a slave fd open so the master never sees a hang-up meanwhile
        int s = open(path_.c_str(), O_RDWR | O_NOCTTY);
        std::vector<uint8_t> acc;
        uint8_t buf[4096], dec[4096];
        while (!stop_) {
            struct pollfd p = {m_, POLLIN, 0};
            if (poll(&p, 1, 20) <= 0 || !(p.revents & POLLIN))
                continue;
            ssize_t n = read(m_, buf, sizeof buf);
            for (ssize_t i = 0; i < n; i++) {
                if (buf[i]) {
                    acc.push_back(buf[i]);
                    continue;
                }
                long d = spu_cobs_decode(acc.data(), acc.size(), dec, sizeof dec);
                acc.clear();
                if (d < 6 || spu_link_crc32(0, dec, d) != 0x2144DF1Cu)   // residue, not inverted
                    continue;
                reply(dec, (size_t)d);
            }
        }
        if (s >= 0)
            close(s);
    }
    int m_ = -1;
    std::string path_;
    uint32_t hash_;
    int mischief_;
    std::atomic<bool> stop_{false};
    std::thread th_;
    uint8_t spad_[262144 + 1024] = {};
};

uint32_t halt_word()
{
    const spu_insn_desc *d = spu_isa_by_mnemonic("halt");
    spu_insn in = {d->opcode, 0, 0, 0, 0};
    uint32_t w = 0;
    spu_isa_encode(&in, &w);
    return w;
}

}  // namespace

// A device whose INFO names another ISA opens (spu info shows it) but is
// never sent microcode or a RUN: SPU_EISA before anything reaches it.
TEST(FakeBoard, IsaHashMismatchRefusesProgramAndRun)
{
    FakeBoard b(spu_isa_hash() ^ 0x5A5A5A5Au, 0);
    spu_device *dev = nullptr;
    int rc = spu_open(&dev, (b.uri() + "?timeout=500").c_str());
    ASSERT_EQ(rc, 0) << spu_error_name(rc);
    spu_info_t info;
    ASSERT_EQ(spu_info(dev, &info), 0);
    EXPECT_EQ(info.isa_hash, spu_isa_hash() ^ 0x5A5A5A5Au);
    uint32_t w = halt_word();
    spu_program p = {&w, 1, 0};
    EXPECT_EQ(spu_load_program(dev, &p), SPU_EISA);
    uint32_t args[1] = {1};
    EXPECT_EQ(spu_run(dev, args, 1), SPU_EISA);
    EXPECT_EQ(spu_ping(dev), 0);   // the link itself is fine
    spu_close(dev);
    for (uint8_t t : b.seen) {
        EXPECT_NE(t, 0x05) << "UCODE reached a device of another ISA";
        EXPECT_NE(t, 0x07) << "RUN reached a device of another ISA";
    }
    EXPECT_STRNE(spu_strerror(SPU_EISA), spu_strerror(SPU_EPROTO));
}

TEST(FakeBoard, MatchingIsaHashLoadsAndRuns)
{
    FakeBoard b(spu_isa_hash(), 0);
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, (b.uri() + "?timeout=500").c_str()), 0);
    uint32_t w = halt_word();
    spu_program p = {&w, 1, 0};
    EXPECT_EQ(spu_load_program(dev, &p), 0);
    spu_close(dev);
}

// Noise between frames, a stale reply (the previous seq) and a reply with a
// broken CRC before every good one: the host takes only the good one and
// every byte read back is right.
TEST(FakeBoard, StaleCorruptAndNoisyRepliesAreDropped)
{
    FakeBoard b(spu_isa_hash(), 1);
    spu_device *dev = nullptr;
    int rc = spu_open(&dev, (b.uri() + "?timeout=500&retries=5").c_str());
    ASSERT_EQ(rc, 0) << spu_error_name(rc);
    std::vector<uint8_t> w(3000), r(3000);
    for (size_t i = 0; i < w.size(); i++)
        w[i] = (uint8_t)(i * 7 + 1);
    ASSERT_EQ(spu_write(dev, 100, w.data(), w.size()), 0);
    ASSERT_EQ(spu_read(dev, 100, r.data(), r.size()), 0);
    EXPECT_EQ(w, r);
    spu_link_stats_t ls;
    ASSERT_EQ(spu_link_stats(dev, &ls), 0);
    EXPECT_GT(ls.bad_frames, 0u);
    spu_close(dev);
}

// serial: opens the tty at the boards' UART rate (12 Mbaud: hw/rtl/board,
// SPU_LINK_BOARD_BAUD) unless the URI says baud=N; the rate is read back
// from the pty with TCGETS2 while the device is open.
extern "C" int ioctl(int fd, unsigned long request, ...);
TEST(FakeBoard, SerialOpensAtTheBoardsBaudUnlessTold)
{
    FakeBoard b(spu_isa_hash(), 0);
    for (const char *q : {"?timeout=500", "?timeout=500&baud=115200"}) {
        spu_device *dev = nullptr;
        ASSERT_EQ(spu_open(&dev, (b.uri() + q).c_str()), 0) << q;
        std::string path = b.uri().substr(7);
        int fd = open(path.c_str(), O_RDWR | O_NOCTTY);
        ASSERT_GE(fd, 0);
        struct termios2 t;
        ASSERT_EQ(ioctl(fd, TCGETS2, &t), 0);
        EXPECT_EQ(t.c_cflag & CBAUD, (unsigned)BOTHER) << q;
        EXPECT_EQ(t.c_ospeed, strchr(q, '&') ? 115200u : 12000000u) << q;
        close(fd);
        spu_close(dev);
    }
}
