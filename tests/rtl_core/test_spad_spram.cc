// spu_spad with SPRAM = 1 (single-port banks, spu_spram_model): random
// traffic on both read ports and the write port, including reads and writes
// of one bank in the same cycle, against a C++ reference of the documented
// rule (docs/rtl.md "Scratchpad in SPRAM"; hw/rtl/core/spu_spad.v):
//   - every write lands (byte enables), whatever is read in that cycle;
//   - a read of a bank not written in that cycle returns the word one cycle
//     later (port A wins a same-bank pair: B then shows A's word);
//   - a read of a bank written in that cycle is undefined (not checked, only
//     counted: the test asserts such collisions happened).
// At the end every word is read back and compared with the reference.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "Vspu_spad_sp.h"
#include "verilated.h"

namespace {

constexpr uint32_t kWordBytes = 4, kBytes = 131072, kBanks = 2;
constexpr uint32_t kWords = kBytes / kWordBytes, kBankWords = kWords / kBanks;

struct Spad {
    std::unique_ptr<VerilatedContext> ctx{new VerilatedContext};
    std::unique_ptr<Vspu_spad_sp> m{new Vspu_spad_sp(ctx.get())};
    Spad()
    {
        m->clk_i = 0;
        m->eval();
    }
    void tick()
    {
        m->clk_i = 1;
        m->eval();
        m->clk_i = 0;
        m->eval();
    }
    void idle()
    {
        m->a_re_i = 0;
        m->b_re_i = 0;
        m->we_i = 0;
    }
};

TEST(SpadSpram, RandomTrafficWithCollisionsFollowsTheSinglePortRule)
{
    Spad s;
    std::vector<uint32_t> ref(kWords, 0);   // spu_spram_model starts at 0
    std::mt19937 rng(77);
    uint64_t checked = 0, collisions = 0, writes = 0;
    // a small hot set of addresses per bank so reads often see earlier writes
    auto addr = [&](void) -> uint32_t {
        const uint32_t bank = rng() % kBanks;
        return bank * kBankWords + (rng() % 4 == 0 ? rng() % kBankWords : rng() % 64);
    };
    for (int cyc = 0; cyc < 200000; cyc++) {
        const bool are = rng() % 3 != 0, bre = rng() % 3 != 0, we = rng() % 2 != 0;
        const uint32_t aa = addr(), ba = addr(), wa = addr(), wd = rng(), be = rng() & 0xF;
        s.m->a_re_i = are;
        s.m->a_addr_i = aa;
        s.m->b_re_i = bre;
        s.m->b_addr_i = ba;
        s.m->we_i = we;
        s.m->waddr_i = wa;
        s.m->wdata_i = wd;
        s.m->wbe_i = be;
        s.m->eval();
        const uint32_t wbank = wa / kBankWords, abank = aa / kBankWords, bbank = ba / kBankWords;
        // expected read data (memory before this cycle's write)
        const bool a_ok = are && !(we && wbank == abank);
        const uint32_t a_exp = ref[aa];
        const bool b_same = are && abank == bbank;   // port A wins the bank
        const bool b_ok = bre && !(we && wbank == bbank);
        const uint32_t b_exp = b_same ? ref[aa] : ref[ba];
        collisions += (are && we && wbank == abank) + (bre && we && wbank == bbank);
        s.tick();
        if (we) {
            writes++;
            for (uint32_t b = 0; b < kWordBytes; b++)
                if (be >> b & 1)
                    ref[wa] = (ref[wa] & ~(0xFFu << (8 * b))) | (wd & (0xFFu << (8 * b)));
        }
        if (a_ok) {
            ASSERT_EQ(s.m->a_rdata_o, a_exp) << "cycle " << cyc << " port A word " << aa;
            checked++;
        }
        if (b_ok) {
            ASSERT_EQ(s.m->b_rdata_o, b_exp) << "cycle " << cyc << " port B word " << ba;
            checked++;
        }
    }
    EXPECT_GT(collisions, 10000u);
    EXPECT_GT(checked, 100000u);
    EXPECT_GT(writes, 50000u);
    // every write landed: read the whole scratchpad back on port A
    s.idle();
    for (uint32_t w = 0; w < kWords; w++) {
        s.m->a_re_i = 1;
        s.m->a_addr_i = w;
        s.m->eval();
        s.tick();
        ASSERT_EQ(s.m->a_rdata_o, ref[w]) << "word " << w;
    }
}

// rdata holds while its bank is idle (the load unit and the host port rely
// on it), and a write to the bank makes it undefined (the cell's x: the
// model's complement), which the core never relies on.
TEST(SpadSpram, ReadDataHoldsUntilTheBanksNextAccess)
{
    Spad s;
    s.idle();
    s.m->we_i = 1;
    s.m->waddr_i = 5;
    s.m->wdata_i = 0x11223344u;
    s.m->wbe_i = 0xF;
    s.m->eval();
    s.tick();
    s.idle();
    s.m->a_re_i = 1;
    s.m->a_addr_i = 5;
    s.m->eval();
    s.tick();
    s.idle();
    s.m->eval();
    for (int i = 0; i < 5; i++) {
        s.tick();
        EXPECT_EQ(s.m->a_rdata_o, 0x11223344u);
    }
    // a write to the other bank leaves it alone
    s.m->we_i = 1;
    s.m->waddr_i = kBankWords + 3;
    s.m->eval();
    s.tick();
    s.idle();
    s.m->eval();
    EXPECT_EQ(s.m->a_rdata_o, 0x11223344u);
    // a write to its bank does not
    s.m->we_i = 1;
    s.m->waddr_i = 9;
    s.m->eval();
    s.tick();
    s.idle();
    s.m->eval();
    EXPECT_NE(s.m->a_rdata_o, 0x11223344u);
}

}  // namespace
