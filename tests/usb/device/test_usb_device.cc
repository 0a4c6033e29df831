// test_usb_device.cc -- the device tests of a board behind a real transport,
// run against $SPU_DEVICE:
//   * `SPU_DEVICE=ftdi://0403:6010 make test-hw` on a real board (each test is
//     SKIPPED, not passed, when SPU_DEVICE is unset);
//   * inside the QEMU guest of `make test-usb`, against the emulated FTDI
//     (ftdi://0403:6001) and the usbredir bridge (usb://1209:0001), both in
//     front of spu-sim (the Verilated RTL) on the host.
// Every byte written is read back and compared; GEMMs are compared bit for bit
// with the plain C reference (and, per piece, with the in-process model).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "spu/gemm.h"
#include "spu/isa.h"
#include "spu/spu.h"
}

namespace {

class UsbDevice : public ::testing::Test {
protected:
    void SetUp() override
    {
        const char *uri = getenv("SPU_DEVICE");
        if (!uri || !*uri)
            GTEST_SKIP() << "no board: set SPU_DEVICE=URI (e.g. ftdi://0403:6010) to run the device tests";
        uri_ = uri;
        int rc = spu_open(&dev_, uri);
        ASSERT_EQ(rc, 0) << "spu_open(" << uri << "): " << spu_strerror(rc) << " (" << spu_error_detail() << ")";
        ASSERT_EQ(spu_info(dev_, &info_), 0);
    }
    void TearDown() override { spu_close(dev_); }
    std::string uri_;
    spu_device *dev_ = nullptr;
    spu_info_t info_{};
};

TEST_F(UsbDevice, InfoAndIsaHash)
{
    EXPECT_GE(info_.rows, 1u);
    EXPECT_GE(info_.cols, 1u);
    EXPECT_EQ(info_.word_bytes, std::max(info_.rows, info_.cols));
    EXPECT_GT(info_.spad_bytes, 0u);
    EXPECT_EQ(info_.isa_hash, spu_isa_hash()) << "the board's bitstream was built from another ISA";
    EXPECT_EQ(spu_ping(dev_), 0);
}

// Write a pseudo-random 64 KiB (or the scratchpad, if smaller) and read it
// back; prints the link throughput both ways.
TEST_F(UsbDevice, WriteReadEveryByte)
{
    const size_t n = std::min<size_t>(65536, info_.spad_bytes);
    std::vector<uint8_t> w(n), r(n, 0);
    std::mt19937 rng(14);
    for (auto &b : w)
        b = (uint8_t)rng();
    w[0] = 0, w[1] = 0, w[n - 1] = 0;   // COBS delimiters at the edges too
    using clk = std::chrono::steady_clock;
    auto t0 = clk::now();
    ASSERT_EQ(spu_write(dev_, 0, w.data(), n), 0);
    auto t1 = clk::now();
    ASSERT_EQ(spu_read(dev_, 0, r.data(), n), 0);
    auto t2 = clk::now();
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += w[i] != r[i];
    EXPECT_EQ(bad, 0u) << "bytes that came back different";
    const double ws = std::chrono::duration<double>(t1 - t0).count();
    const double rs = std::chrono::duration<double>(t2 - t1).count();
    printf("[ link     ] %s WRITE %zu bytes in %.3f s = %.0f B/s; READ %.3f s = %.0f B/s\n",
           uri_.c_str(), n, ws, n / ws, rs, n / rs);
    RecordProperty("write_bytes_per_s", (int)(n / ws));
    RecordProperty("read_bytes_per_s", (int)(n / rs));
}

// Odd lengths and offsets (frames split across USB packets at every phase).
TEST_F(UsbDevice, OddLengths)
{
    std::mt19937 rng(7);
    for (size_t len : { (size_t)1, (size_t)61, (size_t)62, (size_t)63, (size_t)510, (size_t)511,
                        (size_t)512, (size_t)513, (size_t)1023, (size_t)1025, (size_t)3001 }) {
        uint32_t addr = (uint32_t)(rng() % (info_.spad_bytes - len));
        std::vector<uint8_t> w(len), r(len);
        for (auto &b : w)
            b = (uint8_t)rng();
        ASSERT_EQ(spu_write(dev_, addr, w.data(), len), 0) << len;
        ASSERT_EQ(spu_read(dev_, addr, r.data(), len), 0) << len;
        EXPECT_EQ(w, r) << "length " << len << " at " << addr;
    }
}

// A refused request gets an error and the device keeps answering.
TEST_F(UsbDevice, ErrorsLeaveTheLinkUsable)
{
    uint8_t b[16] = {0};
    EXPECT_EQ(spu_read(dev_, info_.spad_bytes - 8, b, sizeof b), SPU_ERANGE);
    EXPECT_EQ(spu_ping(dev_), 0);
    spu_status_t st;
    EXPECT_EQ(spu_status(dev_, &st), 0);
    EXPECT_NE(st.state, SPU_STATE_RUNNING);
    EXPECT_EQ(spu_reset(dev_), 0);
    EXPECT_EQ(spu_ping(dev_), 0);
}

// An idle link is not a broken one: with nothing to send the FTDI chip
// answers reads with status-only packets and QEMU's emulation, the usbredir
// bridge and most bulk bridges NAK, so reads time out -- "no data yet".
TEST_F(UsbDevice, IdleLinkStaysUsable)
{
    for (int i = 0; i < 3; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
        EXPECT_EQ(spu_ping(dev_), 0) << "after " << (i + 1) * 400 << " ms idle";
    }
    uint8_t w[100], r[100];
    for (int i = 0; i < 100; i++)
        w[i] = (uint8_t)(i * 7);
    EXPECT_EQ(spu_write(dev_, 256, w, sizeof w), 0);
    EXPECT_EQ(spu_read(dev_, 256, r, sizeof r), 0);
    EXPECT_EQ(memcmp(w, r, sizeof w), 0);
}

static void gemm_case(spu_device *dev, uint32_t M, uint32_t N, uint32_t K, unsigned seed)
{
    std::mt19937 rng(seed);
    std::vector<int8_t> A((size_t)M * K), B((size_t)K * N);
    for (auto &x : A)
        x = (int8_t)rng();
    for (auto &x : B)
        x = (int8_t)rng();
    A[0] = -128, B[0] = -128;   // the corners of the int8 range
    std::vector<int32_t> C((size_t)M * N, 0x5a5a5a5a), ref((size_t)M * N);
    spu_gemm_opts o{};
    o.check_model = 1;
    spu_gemm_stats s{};
    int rc = spu_gemm_i8(dev, M, N, K, A.data(), B.data(), C.data(), &o, &s);
    ASSERT_EQ(rc, 0) << spu_strerror(rc);
    spu_gemm_i8_reference(M, N, K, A.data(), B.data(), ref.data());
    size_t bad = 0;
    for (size_t i = 0; i < C.size(); i++)
        bad += C[i] != ref[i];
    EXPECT_EQ(bad, 0u) << M << "x" << N << "x" << K;
    EXPECT_NEAR((double)s.cycles, (double)s.model_cycles, 0.02 * (double)s.model_cycles);   // as tests/sim
    printf("[ gemm     ] %ux%ux%u bit-exact, %llu cycles, %u piece(s), %llu link bytes in %.3f s\n", M, N, K,
           (unsigned long long)s.cycles, s.pieces, (unsigned long long)s.link_bytes, s.wall_s);
}

TEST_F(UsbDevice, GemmBitExact)
{
    gemm_case(dev_, 16, 16, 64, 1);
    gemm_case(dev_, 19, 23, 45, 2);   // ragged edges, padded by the kernel
}

}  // namespace
