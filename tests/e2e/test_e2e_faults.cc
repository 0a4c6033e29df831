// test_e2e_faults.cc -- the link under injected faults (docs/protocol.md,
// "Fault injection" and "Retries and idempotency"): spu-sim flips bits and
// drops, duplicates and inserts bytes in both directions (sim?ber=&drop=&seed=),
// and libspu must still move every byte right or fail with a clear error.
// Public API only; every byte read back is checked against a shadow copy.
#include "spu/gemm.h"
#include "spu/isa.h"
#include "spu/spu.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <random>
#include <string>
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

// BER 1e-3 per bit and 1e-4 per byte for each of drop / duplicate / insert,
// both directions. A short per-attempt timeout keeps a lost frame cheap; the
// budget is generous because a small frame still fails ~1 time in 3.
const char *kNoisy = "sim?ber=1e-3&drop=1e-4&seed=%u&timeout=15&retries=60";

std::string noisy_uri(unsigned seed)
{
    char u[128];
    snprintf(u, sizeof u, kNoisy, seed);
    return u;
}

}  // namespace

// 10^4 mixed WRITE / READ / RUN requests (each RUN also ARGS, STATUS polls
// and REGS); every READ is compared with a
// shadow of the scratchpad, every RUN's result (r10 = r1 + r2) with the sum.
TEST(LinkFaults, TenThousandMixedRequestsAtBer1e3NoUndetectedCorruption)
{
    spu_device *dev = nullptr;
    const std::string uri = noisy_uri(11);
    int rc = spu_open(&dev, uri.c_str());
    ASSERT_EQ(rc, 0) << spu_error_name(rc) << " opening " << uri;
    spu_info_t info;
    ASSERT_EQ(spu_info(dev, &info), 0);

    // add r10, r1, r2; halt
    const std::vector<uint32_t> prog = {enc("add", 10, 1, 2), enc("halt")};
    spu_program p = {prog.data(), prog.size(), 0};
    ASSERT_EQ(spu_load_program(dev, &p), 0);

    const uint32_t window = 16384;   // the part of the scratchpad exercised
    std::vector<uint8_t> shadow(window, 0), buf(256);
    ASSERT_EQ(spu_write(dev, 0, shadow.data(), window), 0);

    std::mt19937 rng(2026);
    int writes = 0, reads = 0, runs = 0;
    uint64_t bytes_checked = 0, bad_bytes = 0, bad_runs = 0;
    spu_link_stats_t ls{};
    for (int op = 0; op < 10000; op++) {
        const unsigned kind = rng() % 10;
        const size_t len = 1 + rng() % 96;
        const uint32_t addr = rng() % (window - len + 1);
        if (kind < 5) {
            for (size_t i = 0; i < len; i++)
                buf[i] = (uint8_t)rng();
            rc = spu_write(dev, addr, buf.data(), len);
            ASSERT_EQ(rc, 0) << "write #" << writes << ": " << spu_error_name(rc);
            memcpy(&shadow[addr], buf.data(), len);
            writes++;
        } else if (kind < 9) {
            rc = spu_read(dev, addr, buf.data(), len);
            ASSERT_EQ(rc, 0) << "read #" << reads << ": " << spu_error_name(rc);
            for (size_t i = 0; i < len; i++)
                bad_bytes += buf[i] != shadow[addr + i];
            bytes_checked += len;
            reads++;
        } else {
            uint32_t args[2] = {(uint32_t)rng(), (uint32_t)rng()};
            rc = spu_run(dev, args, 2);
            ASSERT_EQ(rc, 0) << "run #" << runs << ": " << spu_error_name(rc);
            spu_status_t st;
            rc = spu_wait(dev, 60000, &st);
            ASSERT_EQ(rc, 0) << "run #" << runs << ": " << spu_error_name(rc);
            ASSERT_EQ(st.state, SPU_STATE_HALTED);
            uint32_t regs[16];
            ASSERT_EQ(spu_regs(dev, regs), 0);
            bad_runs += regs[10] != args[0] + args[1];
            runs++;
        }
    }
    // the whole window once more, in large transfers (the adaptive frame size)
    std::vector<uint8_t> all(window);
    ASSERT_EQ(spu_read(dev, 0, all.data(), window), 0);
    for (uint32_t i = 0; i < window; i++)
        bad_bytes += all[i] != shadow[i];
    bytes_checked += window;
    ASSERT_EQ(spu_ping(dev), 0);
    ASSERT_EQ(spu_link_stats(dev, &ls), 0);
    printf("[ faults ] %d writes, %d reads, %d runs; %llu link requests, %llu retries, "
           "%llu timeouts, %llu bad frames; %llu bytes checked\n",
           writes, reads, runs, (unsigned long long)ls.requests, (unsigned long long)ls.retries,
           (unsigned long long)ls.timeouts, (unsigned long long)ls.bad_frames,
           (unsigned long long)bytes_checked);
    EXPECT_EQ(bad_bytes, 0u);
    EXPECT_EQ(bad_runs, 0u);
    EXPECT_EQ(writes + reads + runs, 10000);
    EXPECT_GT(ls.requests, 10000u);
    EXPECT_GT(runs, 700);
    // the faults really happened and were recovered from
    EXPECT_GT(ls.retries, 100u);
    EXPECT_GT(ls.bad_frames + ls.timeouts, 100u);
    spu_close(dev);
}

TEST(LinkFaults, GemmOverANoisyLinkStaysBitExact)
{
    spu_device *dev = nullptr;
    const std::string uri = noisy_uri(5);
    int rc = spu_open(&dev, uri.c_str());
    ASSERT_EQ(rc, 0) << spu_error_name(rc);
    const uint32_t M = 20, N = 19, K = 70;
    std::mt19937 rng(3);
    std::vector<int8_t> A(M * K), B(K * N);
    for (auto &x : A) x = (int8_t)rng();
    for (auto &x : B) x = (int8_t)rng();
    std::vector<int32_t> C(M * N), R(M * N);
    spu_gemm_opts go = {1, 0};   // every piece also replayed on the model
    spu_gemm_stats s;
    rc = spu_gemm_i8(dev, M, N, K, A.data(), B.data(), C.data(), &go, &s);
    ASSERT_EQ(rc, 0) << spu_error_name(rc);
    spu_gemm_i8_reference(M, N, K, A.data(), B.data(), R.data());
    EXPECT_EQ(C, R);
    spu_link_stats_t ls;
    ASSERT_EQ(spu_link_stats(dev, &ls), 0);
    EXPECT_GT(ls.retries, 0u);   // it did meet faults
    spu_close(dev);
}

// A link that loses almost everything: a clear SPU_ETIMEDOUT after the
// budget, not a hang and not garbage.
TEST(LinkFaults, HopelessLinkGivesUpWithTimeout)
{
    spu_device *dev = nullptr;
    EXPECT_EQ(spu_open(&dev, "sim?ber=0.2&seed=1&timeout=20&retries=3"), SPU_ETIMEDOUT);
    EXPECT_EQ(dev, nullptr);
}

TEST(LinkFaults, ModelDeviceReportsNoLinkStats)
{
    spu_device *dev = nullptr;
    ASSERT_EQ(spu_open(&dev, "model"), 0);
    spu_link_stats_t ls;
    memset(&ls, 0xFF, sizeof ls);
    ASSERT_EQ(spu_link_stats(dev, &ls), 0);
    EXPECT_EQ(ls.requests, 0u);
    EXPECT_EQ(ls.retries, 0u);
    spu_close(dev);
}
