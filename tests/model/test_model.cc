// test_model.cc -- the reference model against docs/isa.md: semantics of
// every instruction, traps, loop rules and the cycle/counter timeline.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "spu/asm.h"
#include "spu/isa.h"
#include "spu/model.h"
}

namespace {

// The tests below check the two-cycle issue's costs (docs/isa.md "Tensor
// unit"): their models are built without overlapped issue unless they say so
// (overlap = 1: ModelOverlap.*; the RTL's: rtl_core OverlapFollowsTheIssueRule).
struct Model {
    spu_model *m = nullptr;
    explicit Model(uint32_t rows = 8, uint32_t cols = 8, uint32_t spad = 262144, uint32_t banks = 4,
                   uint32_t lanes = 0, uint32_t chain = 1, uint32_t bus = 1, uint32_t overlap = 0)
    {
        spu_model_config c;
        spu_model_config_default(&c);
        c.rows = rows;
        c.cols = cols;
        c.spad_bytes = spad;
        c.spad_banks = banks;
        c.drain_lanes = lanes;
        c.chain = chain;
        c.bus = bus;
        c.overlap = overlap;
        EXPECT_EQ(spu_model_create(&m, &c), 0);
    }
    explicit Model(const spu_model_config &c) { EXPECT_EQ(spu_model_create(&m, &c), 0); }
    ~Model() { spu_model_free(m); }

    // Assemble and load src, set args, run; returns the final status.
    spu_status_t run(const std::string &src, std::vector<uint32_t> args = {}, uint32_t watchdog = 0)
    {
        spu_image img{};
        char err[2048] = "";
        int rc = spu_asm(src.c_str(), "test.s", &img, err, sizeof err);
        EXPECT_EQ(rc, 0) << err;
        load(std::vector<uint32_t>(img.words, img.words + img.nwords));
        spu_image_free(&img);
        return run_loaded(args, watchdog);
    }
    void load(const std::vector<uint32_t> &w) { ASSERT_EQ(spu_model_load_ucode(m, 0, w.data(), w.size()), 0); }
    spu_status_t run_loaded(std::vector<uint32_t> args = {}, uint32_t watchdog = 0)
    {
        spu_model_set_args(m, args.data(), (int)args.size());
        spu_model_run(m, 0, watchdog);
        spu_status_t st;
        spu_model_status(m, &st);
        return st;
    }
    uint32_t reg(int r) const { return spu_model_reg(m, r); }
    uint64_t cnt(int id) const
    {
        spu_counters_t c;
        spu_model_counters(m, &c);
        return c.v[id];
    }
    uint8_t *spad() { return spu_model_spad(m); }
};

uint32_t enc(unsigned op, unsigned a = 0, unsigned b = 0, unsigned c = 0, int32_t imm = 0)
{
    spu_insn in{op, a, b, c, imm};
    uint32_t w = 0;
    EXPECT_EQ(spu_isa_encode(&in, &w), 0);
    return w;
}

TEST(ModelScalar, ArithmeticAndR0)
{
    Model m;
    auto st = m.run(R"(
        li r1, -5
        lui r2, 0x1234
        addi r3, r1, 100
        add r4, r2, r3
        sub r5, r1, r3
        shli r6, r3, 4
        mul r7, r1, r3
        li r0, 77          ; r0 stays zero
        addi r8, r0, 1
        li r9, 0x1fffff
        halt
    )");
    EXPECT_EQ(st.state, SPU_STATE_HALTED);
    EXPECT_EQ(m.reg(1), (uint32_t)-5);
    EXPECT_EQ(m.reg(2), 0x12340000u);
    EXPECT_EQ(m.reg(3), 95u);
    EXPECT_EQ(m.reg(4), 0x12340000u + 95u);
    EXPECT_EQ(m.reg(5), (uint32_t)-100);
    EXPECT_EQ(m.reg(6), 95u << 4);
    EXPECT_EQ(m.reg(7), (uint32_t)(-5 * 95));
    EXPECT_EQ(m.reg(0), 0u);
    EXPECT_EQ(m.reg(8), 1u);
    EXPECT_EQ(m.reg(9), 0x1fffffu);
    EXPECT_EQ(m.cnt(SPU_CNT_INSTRET), 11u);
    EXPECT_EQ(st.cycles, 54u);  // 2 cycles each, shli and mul 18, no tensor work
    EXPECT_EQ(st.pc, 10u);      // the halt
}

TEST(ModelScalar, ArgsAndClearedRegisters)
{
    Model m;
    auto st = m.run("add r9, r1, r8\nhalt\n", {10, 2, 3, 4, 5, 6, 7, 8});
    EXPECT_EQ(st.state, SPU_STATE_HALTED);
    EXPECT_EQ(m.reg(9), 18u);
    // A second run starts with r9..r15 cleared and the same args.
    st = m.run("add r10, r9, r1\nhalt\n", {10});
    EXPECT_EQ(m.reg(10), 10u);
}

TEST(ModelControl, BranchesSumLoop)
{
    Model m;
    auto st = m.run(R"(
            li r9, 0          ; i
            li r10, 0         ; sum
    top:    add r10, r10, r9
            addi r9, r9, 1
            blt r9, r1, top
            li r11, 3
            bne r11, r0, skip
            li r12, 99        ; skipped
    skip:   jmp end
            li r12, 98        ; skipped
    end:    halt
    )", {10});
    EXPECT_EQ(st.state, SPU_STATE_HALTED);
    EXPECT_EQ(m.reg(10), 45u);
    EXPECT_EQ(m.reg(12), 0u);
}

TEST(ModelControl, NestedLoopsAndZeroCount)
{
    Model m;
    auto st = m.run(R"(
            li r9, 0
            loop r1, outer_end
              loop r2, inner_end
                addi r9, r9, 1
    inner_end:
              addi r10, r10, 1
    outer_end:
            loop r0, never     ; count 0 skips the body
              addi r11, r11, 1
    never:  halt
    )", {3, 5});
    EXPECT_EQ(st.state, SPU_STATE_HALTED);
    EXPECT_EQ(m.reg(9), 15u);
    EXPECT_EQ(m.reg(10), 3u);
    EXPECT_EQ(m.reg(11), 0u);
    // retired: li, loop, 3*(loop + 5*addi + addi), loop, halt = 1+1+3*7+1+1
    EXPECT_EQ(m.cnt(SPU_CNT_INSTRET), 25u);
    EXPECT_EQ(st.cycles, 50u);  // back edges are free
}

TEST(ModelControl, LoopWithTakenBranchInside)
{
    Model m;
    auto st = m.run(R"(
            loop r1, done
              addi r9, r9, 1
              bne r9, r0, next   ; taken branch to the next line: no back edge
    next:   nop
    done:   halt
    )", {4});
    EXPECT_EQ(st.state, SPU_STATE_HALTED);
    EXPECT_EQ(m.reg(9), 4u);
}

TEST(ModelTraps, EveryCause)
{
    struct Case { std::vector<uint32_t> prog; int trap; uint32_t pc; std::vector<uint32_t> args; uint32_t wd; };
    const uint32_t halt = enc(SPU_OP_HALT);
    std::vector<Case> cases = {
        {{0xFC000000u}, SPU_TRAP_ILLEGAL, 0, {}, 0},                                   // undefined opcode
        {{enc(SPU_OP_NOP) | 1u}, SPU_TRAP_ILLEGAL, 0, {}, 0},                         // reserved bit
        {{enc(SPU_OP_NOP), enc(SPU_OP_LOOP, 1, 0, 0, 2), halt}, SPU_TRAP_ILLEGAL, 1, {1}, 0},  // empty body
        {{enc(SPU_OP_CFG, 0, 0, 0, 1)}, SPU_TRAP_ILLEGAL, 0, {}, 0},                  // in=int32 not an array type
        {{enc(SPU_OP_CFG, 0, 0, 0, 3 << 13)}, SPU_TRAP_ILLEGAL, 0, {}, 0},            // round=3
        {{enc(SPU_OP_CFG, 0, 0, 0, 1 << 17)}, SPU_TRAP_ILLEGAL, 0, {}, 0},            // reserved cfg bit
        {{enc(SPU_OP_CNT, 9, 0, 0, SPU_CNT_COUNT)}, SPU_TRAP_ILLEGAL, 0, {}, 0},      // unknown counter
        {{enc(SPU_OP_MM, 1, 2, 3)}, SPU_TRAP_SPAD_RANGE, 0, {262144 - 8, 0, 2}, 0},   // A runs off the end
        {{enc(SPU_OP_MM, 1, 2, 3)}, SPU_TRAP_MISALIGNED, 0, {4, 0, 1}, 0},            // A misaligned
        {{enc(SPU_OP_ST, 1)}, SPU_TRAP_MISALIGNED, 0, {3}, 0},
        {{enc(SPU_OP_ST, 1)}, SPU_TRAP_SPAD_RANGE, 0, {262144 - 8}, 0},
        {{enc(SPU_OP_JMP, 0, 0, 0, 5000)}, SPU_TRAP_PC_RANGE, 5000, {}, 0},
        {{enc(SPU_OP_JMP, 0, 0, 0, 0)}, SPU_TRAP_WATCHDOG, 0, {}, 100},               // endless loop
    };
    // nested loops deeper than LOOP_DEPTH
    std::vector<uint32_t> deep;
    for (int i = 0; i < 5; i++) deep.push_back(enc(SPU_OP_LOOP, 1, 0, 0, 10));
    deep.push_back(enc(SPU_OP_NOP));
    cases.push_back({deep, SPU_TRAP_LOOP_STACK, 4, {2}, 0});
    for (size_t i = 0; i < cases.size(); i++) {
        Model m;
        m.load(cases[i].prog);
        auto st = m.run_loaded(cases[i].args, cases[i].wd);
        EXPECT_EQ(st.state, SPU_STATE_TRAPPED) << "case " << i;
        EXPECT_EQ(st.trap, cases[i].trap) << "case " << i;
        EXPECT_EQ(st.pc, cases[i].pc) << "case " << i;
        // the machine starts afresh after a trap
        m.load({enc(SPU_OP_LI, 9, 0, 0, 7), halt});
        st = m.run_loaded();
        EXPECT_EQ(st.state, SPU_STATE_HALTED) << "case " << i;
        EXPECT_EQ(m.reg(9), 7u);
    }
}

TEST(ModelTraps, RunningOffTheEndOfTheStore)
{
    spu_model_config c;
    spu_model_config_default(&c);
    c.ucode_words = 4;
    spu_model *m;
    ASSERT_EQ(spu_model_create(&m, &c), 0);
    spu_model_run(m, 0, 0);  // all nops
    spu_status_t st;
    spu_model_status(m, &st);
    EXPECT_EQ(st.trap, SPU_TRAP_PC_RANGE);
    EXPECT_EQ(st.pc, 4u);
    spu_model_free(m);
}

// mm + st on random data against a plain loop, for several geometries.
// lanes: accumulators drained per cycle (0 = a row, C); bus: row / column
// buses (1) or a systolic array (0).
void check_block(uint32_t R, uint32_t C, uint32_t K, uint32_t banks, uint32_t lanes = 0, uint32_t bus = 1)
{
    Model m(R, C, 65536, banks, lanes, 1, bus);
    const uint32_t wb = std::max(R, C);
    std::mt19937 rng(R * 1000 + C * 10 + K);
    const uint32_t bank = 65536 / banks;
    const uint32_t abase = 0, bbase = banks > 1 ? bank : 16384, cbase = banks > 2 ? 2 * bank : 32768;
    std::vector<int8_t> A(R * K), B(K * C);
    for (auto &v : A) v = (int8_t)rng();
    for (auto &v : B) v = (int8_t)rng();
    for (uint32_t k = 0; k < K; k++) {
        for (uint32_t i = 0; i < R; i++) m.spad()[abase + k * wb + i] = (uint8_t)A[i * K + k];
        for (uint32_t j = 0; j < C; j++) m.spad()[bbase + k * wb + j] = (uint8_t)B[k * C + j];
    }
    auto st = m.run("mm r1, r2, r3\nst r4\nhalt\n", {abase, bbase, K, cbase});
    ASSERT_EQ(st.state, SPU_STATE_HALTED);
    for (uint32_t i = 0; i < R; i++)
        for (uint32_t j = 0; j < C; j++) {
            int32_t ref = 0;
            for (uint32_t k = 0; k < K; k++) ref += A[i * K + k] * B[k * C + j];
            int32_t got;
            memcpy(&got, m.spad() + cbase + (i * C + j) * 4, 4);
            ASSERT_EQ(got, ref) << R << "x" << C << " K=" << K << " (" << i << "," << j << ")";
        }
    const uint64_t conflicts = bbase / (65536 / banks) == 0 ? K : 0;
    const uint64_t mm_stream = K + conflicts;
    const uint32_t L = lanes ? lanes : C;
    // one group of L accumulators per cycle, whatever its bytes (docs/isa.md `st`)
    const uint64_t drain = R * (C / L);
    EXPECT_EQ(spu_model_drain_cycles(spu_model_get_config(m.m), SPU_DTYPE_INT32), drain);
    EXPECT_EQ(spu_model_drain_cycles(spu_model_get_config(m.m), SPU_DTYPE_INT8), drain);
    EXPECT_EQ(spu_model_drain_cycles(spu_model_get_config(m.m), SPU_DTYPE_BF16), drain);
    EXPECT_EQ(m.cnt(SPU_CNT_MM_CYCLES), mm_stream);
    EXPECT_EQ(m.cnt(SPU_CNT_STALL_BANK), conflicts);
    EXPECT_EQ(m.cnt(SPU_CNT_MAC_ACTIVE), K);
    EXPECT_EQ(m.cnt(SPU_CNT_DRAIN_BUSY), drain);
    // docs/isa.md "Tensor unit": mm at 0 is taken at 1 and launches at 2,
    // its last step reads at 2 + stream; st (at 2) is taken at 3 and launches
    // right after it; its wave reaches the last tile R + C later (2 with
    // buses), the drain writes after that; halt (at 4, EXEC from 5) waits for
    // the wave only (G + 1: the tensor unit idle), not for the drain's writes
    const uint64_t L_st = 2 + mm_stream + 1, G = L_st + (bus ? 2 : R + C);
    const uint64_t ready = G + 1;
    const uint64_t wait = ready > 5 ? ready - 5 : 0;
    EXPECT_EQ(m.cnt(SPU_CNT_STALL_DRAIN), wait);
    EXPECT_EQ(st.cycles, 4 + 2 + wait);
}

TEST(ModelTensor, MmStMatchesLoop)
{
    for (uint32_t K : {1u, 2u, 7u, 64u, 1000u}) check_block(8, 8, K, 4);
    for (uint32_t K : {1u, 7u, 64u}) check_block(8, 8, K, 4, 0, 0);   // systolic
    check_block(4, 4, 33, 4, 1, 0);
    check_block(4, 4, 33, 4);
    check_block(2, 8, 17, 4);
    check_block(8, 2, 17, 2);
    check_block(8, 8, 50, 1);  // one bank: every k-step conflicts
}

// A narrower drain (drain_lanes < cols) writes the same bytes, only slower:
// rows * (cols / lanes) * ceil(lanes * bytes / word_bytes) cycles.
TEST(ModelTensor, NarrowDrainSameResultsLongerDrain)
{
    for (uint32_t lanes : {1u, 2u, 4u, 8u}) check_block(8, 8, 40, 4, lanes);
    check_block(4, 4, 3, 2, 1);    // the boards: an int32 element per word, an st longer than mm
    check_block(4, 4, 33, 2, 2);
    check_block(2, 8, 17, 4, 1);   // 8-byte words, two int32 elements per word
    check_block(16, 4, 9, 4, 1);   // 16-byte words, 4 int32 elements per word
    check_block(16, 4, 9, 4, 2);
    // lanes must divide cols
    spu_model_config c;
    spu_model_config_default(&c);
    spu_model *m = nullptr;
    c.drain_lanes = 3;
    EXPECT_EQ(spu_model_create(&m, &c), SPU_EINVAL);
    c.drain_lanes = 16;
    EXPECT_EQ(spu_model_create(&m, &c), SPU_EINVAL);
    c.drain_lanes = 8;
    ASSERT_EQ(spu_model_create(&m, &c), 0);
    spu_model_free(m);
}

TEST(ModelTensor, AccumulateZaccAndSwap)
{
    Model m(2, 2, 4096, 4);
    // A words at 0 and 2 (wb = 2), B words at 1024
    int8_t a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    memcpy(m.spad(), a, 4);
    memcpy(m.spad() + 1024, b, 4);
    auto st = m.run(R"(
        li r9, 1
        mm r1, r2, r9     ; acc = a0 (x) b0
        mm r1, r2, r9     ; accumulates: 2 * a0 (x) b0
        st r3             ; drains, new buffer is zero
        mm r1, r2, r9
        zacc
        mm r4, r5, r9     ; only this one counts: a1 (x) b1
        st r6
        halt
    )", {0, 1024, 2048, 2, 1026, 2064});
    ASSERT_EQ(st.state, SPU_STATE_HALTED);
    int32_t c[4];
    memcpy(c, m.spad() + 2048, 16);
    EXPECT_EQ(c[0], 2 * 1 * 5); EXPECT_EQ(c[1], 2 * 1 * 6);
    EXPECT_EQ(c[2], 2 * 2 * 5); EXPECT_EQ(c[3], 2 * 2 * 6);
    memcpy(c, m.spad() + 2064, 16);
    EXPECT_EQ(c[0], 3 * 7); EXPECT_EQ(c[1], 3 * 8);
    EXPECT_EQ(c[2], 4 * 7); EXPECT_EQ(c[3], 4 * 8);
}

TEST(ModelTensor, BackToBackStoresStallOnTheDrain)
{
    const uint64_t d = 8;      // 8 rows, a row (4 words of int32) per cycle
    // `st r1; st r2; sync; halt` on an 8 x 8 with chain and bus as given:
    // the wave span and st gap, the sync's wait and the run's cycles
    auto check = [&](uint32_t chain, uint32_t bus, uint32_t span, uint32_t gap, uint64_t stall, uint64_t cycles) {
        Model m(8, 8, 262144, 4, 0, chain, bus);
        auto st = m.run("st r1\nst r2\nsync\nhalt\n", {0, 512});
        ASSERT_EQ(st.state, SPU_STATE_HALTED);
        EXPECT_EQ(spu_model_wave_span(spu_model_get_config(m.m)), span) << chain << bus;
        if (chain) {
            EXPECT_EQ(spu_model_st_gap(spu_model_get_config(m.m)), gap) << bus;
        }
        EXPECT_EQ(m.cnt(SPU_CNT_STALL_DRAIN), stall) << chain << bus;
        EXPECT_EQ(m.cnt(SPU_CNT_DRAIN_BUSY), 2 * d);
        EXPECT_EQ(st.cycles, cycles) << chain << bus;
    };
    // The default model: row / column buses (the wave span Z = 2) and chained
    // streams. st@0 is taken at 1 and goes alone at W1 = 2 (nothing behind it
    // is an mm); every row is captured at W1 + 2, where the drain starts, S1
    // = G1 = 4, writing 5..12; the second st is taken at 3 and launches at
    // st_ready = W1 + 1 + d = 11 (its wave captures at 13, after the drain's
    // last read at 12), S2 = G2 = 13, drain_done = S2 + d - 1 = 20: sync@4
    // waits until max(G2 + 1, 20) = 20 (EXEC from 5: 15 cycles); halt@21.
    check(1, 1, 2, 1 + d, 15, 23);
    // docs/isa.md "Tensor unit", "Chained streams" on the systolic array
    // (Z = R + C = 16): st@0 goes alone at W1 = 2; its drain starts when row
    // 0 is captured, S1 = W1 + 8 + 1 = 11, and writes 12..19; the second st
    // is taken at 3 and launches at st_ready = W1 + 1 + max(d, 8) = 11, S2 =
    // 20, drain_done = S2 + d - 1 = 27, its wave passes the last tile at G2 =
    // 11 + 16 = 27: sync@4 waits until max(G2 + 1, 27) = 28 (EXEC from 5: 23
    // cycles); halt@29.
    check(1, 0, 16, 9, 23, 31);
    // systolic without chained streams the drain starts when the wave has
    // passed the last tile: st@0 launches 2, G1 = 18, writes 19..26; the
    // second st launches at st_ready = G1 + d - 1 = 25, G2 = 41; sync waits
    // until drain_done = G2 + d - 1 = 48 (43 cycles); halt@49
    check(0, 0, 16, 0, 43, 51);
}

// Single-port SPRAM banks (spram = 1, INFO features bit 1): an mm launches
// only after the last st's drain writes (docs/isa.md "Tensor unit"). 4x4,
// one drain lane (D = 16), K = 10, A in bank 0 and B in bank 1:
//   mm@0 launches 2, streams 3..12; st@2 launches 13, G = 21, st_ready =
//   drain_done = 36, drain_idle = 39; mm@4 taken at 13 (wait 8).
//   spram = 0: it launches 14; st@14 launches 36 (st_ready), G = 44;
//   halt@16 waits until the tensor unit is idle, G + 1 = 45: 46 cycles (the
//   drain writes 45..60 after it).
//   spram = 1: it launches 39 (drain_idle); st@14 is taken at 39 (wait 24),
//   launches 50, G = 58; halt@40 waits until 59: 60 cycles.
// That is the systolic array (G = L + R + C); with the boards' buses (G = L
// + 2): the first st's G = 15, st_ready = drain_done = 30, drain_idle = 33.
//   spram = 0: the second mm launches 14, its st launches 30, G = 32; halt@16
//   waits until 33: 34 cycles.
//   spram = 1: the second mm launches 33, streams 34..43; st@14 is taken at
//   33 (wait 18), launches 44, G = 46; halt@34 waits until 47: 48 cycles.
TEST(ModelTensor, SpramMmWaitsForTheDrainWrites)
{
    for (uint32_t cfgi = 0; cfgi < 4; cfgi++) {
        const uint32_t spram = cfgi & 1, bus = cfgi >> 1;
        spu_model_config c;
        spu_model_config_default(&c);
        c.rows = 4; c.cols = 4; c.spad_bytes = 131072; c.spad_banks = 2; c.drain_lanes = 1;
        c.vector = 0; c.spram = spram; c.chain = 0; c.bus = bus;
        spu_model *m = nullptr;
        ASSERT_EQ(spu_model_create(&m, &c), 0);
        spu_image img{};
        char err[2048] = "";
        ASSERT_EQ(spu_asm("mm r1, r2, r3\nst r4\nmm r1, r2, r3\nst r4\nhalt\n", "t.s", &img, err, sizeof err), 0) << err;
        ASSERT_EQ(spu_model_load_ucode(m, 0, img.words, img.nwords), 0);
        spu_image_free(&img);
        const uint32_t args[4] = {0, 65536, 10, 1024};
        spu_model_set_args(m, args, 4);
        spu_model_run(m, 0, 0);
        spu_status_t st;
        spu_model_status(m, &st);
        EXPECT_EQ(st.state, SPU_STATE_HALTED);
        EXPECT_EQ(st.cycles, bus ? (spram ? 48u : 34u) : (spram ? 60u : 46u)) << "spram " << spram << " bus " << bus;
        spu_model_free(m);
    }
    // the vector unit reads and writes every cycle: not with single-port banks
    spu_model_config c;
    spu_model_config_default(&c);
    c.spram = 1;
    c.chain = 0;
    spu_model *m = nullptr;
    EXPECT_EQ(spu_model_create(&m, &c), SPU_EINVAL);
    c.vector = 0;
    EXPECT_EQ(spu_model_create(&m, &c), 0);
    spu_model_free(m);
    // chained streams need dual-port banks (docs/isa.md "Chained streams")
    c.chain = 1;
    m = nullptr;
    EXPECT_EQ(spu_model_create(&m, &c), SPU_EINVAL);
}

// k-step pairs (pair = 1, INFO features bit 4, docs/isa.md "k-step pairs")
// on the iCEBreaker's SPRAM shape: 4x4, 128 KiB in 2 banks of 64 KiB, one
// drain lane, int8 only. Every case runs on pair = 0 too: pairs change the
// cycles and nothing else.
spu_model_config pair_config(uint32_t pair)
{
    spu_model_config c;
    spu_model_config_default(&c);
    c.rows = 4; c.cols = 4; c.spad_bytes = 131072; c.spad_banks = 2; c.ucode_words = 256; c.drain_lanes = 1;
    c.vector = 0; c.spram = 1; c.chain = 0; c.bus = 1; c.formats = 1u << SPU_DTYPE_INT8; c.pair = pair;
    c.overlap = 0;   // (the iCEBreaker's build: two-cycle issue)
    return c;
}

TEST(ModelPair, ConfigNeedsTheBoardsSpramBusInt8Build)
{
    auto bad = [](void (*edit)(spu_model_config &)) {
        spu_model_config c = pair_config(1);
        edit(c);
        spu_model *m = nullptr;
        const int rc = spu_model_create(&m, &c);
        spu_model_free(m);
        return rc == SPU_EINVAL && m == nullptr;
    };
    EXPECT_TRUE(bad([](spu_model_config &c) { c.pair = 2; }));
    EXPECT_TRUE(bad([](spu_model_config &c) { c.spram = 0; }));
    EXPECT_TRUE(bad([](spu_model_config &c) { c.bus = 0; }));
    EXPECT_TRUE(bad([](spu_model_config &c) { c.spram = 0; c.chain = 1; }));   // (chain needs spram = 0)
    EXPECT_TRUE(bad([](spu_model_config &c) { c.formats = 0; }));      // 0 = every array dtype
    EXPECT_TRUE(bad([](spu_model_config &c) { c.formats = (1u << SPU_DTYPE_INT8) | (1u << SPU_DTYPE_E4M3); }));
    EXPECT_FALSE(bad([](spu_model_config &) {}));
    spu_model *m = nullptr;
    spu_model_config c = pair_config(1);
    ASSERT_EQ(spu_model_create(&m, &c), 0);
    EXPECT_EQ(spu_model_wave_span(spu_model_get_config(m)), 3u);    // 2 without pairs
    spu_model_free(m);
    // from INFO: features bit 4
    spu_info_t in{};
    in.rows = 4; in.cols = 4; in.word_bytes = 4; in.spad_bytes = 131072; in.spad_banks = 2; in.ucode_words = 256;
    in.formats = 1; in.drain_lanes = 1;
    in.features = SPU_FEATURE_SPRAM | SPU_FEATURE_BUS | SPU_FEATURE_PAIR;
    spu_model_config_from_info(&c, &in);
    EXPECT_EQ(c.pair, 1u);
    in.features &= ~SPU_FEATURE_PAIR;
    spu_model_config_from_info(&c, &in);
    EXPECT_EQ(c.pair, 0u);
}

struct PairRun {
    spu_status_t st;
    uint64_t mm, mac, bank, stall;
    std::vector<uint8_t> c;     // the st's block
};

// `stride sa, sb, 16; mm a, b, K; st C; halt` on pair_config(pair), A and B
// words random (the same for both configs).
PairRun pair_run(uint32_t pair, uint32_t a, uint32_t b, uint32_t K, uint32_t sa, uint32_t sb)
{
    Model m(pair_config(pair));
    std::mt19937 rng(a * 7 + b + K);
    for (uint32_t k = 0; k < K; k++)
        for (uint32_t i = 0; i < 4; i++) {
            m.spad()[a + k * sa + i] = (uint8_t)rng();
            m.spad()[b + k * sb + i] = (uint8_t)rng();
        }
    const uint32_t C = 98304;
    PairRun r;
    r.st = m.run("li r9, " + std::to_string(sa) + "\nli r10, " + std::to_string(sb) +
                 "\nli r11, 16\nstride r9, r10, r11\nmm r1, r2, r3\nst r4\nhalt\n", {a, b, K, C});
    r.mm = m.cnt(SPU_CNT_MM_CYCLES);
    r.mac = m.cnt(SPU_CNT_MAC_ACTIVE);
    r.bank = m.cnt(SPU_CNT_STALL_BANK);
    r.stall = m.cnt(SPU_CNT_STALL_DRAIN);
    r.c.assign(m.spad() + C, m.spad() + C + 64);
    return r;
}

// The rule, issue by issue: steps s and s+1 in one cycle when both strides
// are one word (4 bytes), A and B are on even words in different banks and
// two steps are left; else a step 1 cycle, 2 on a bank conflict. A at 0 is
// bank 0, B at 65536 bank 1. The run: 4 instructions (8 cycles), the mm at
// 8 launches at 10 and its last step reads at 10 + S; the st's slot is 11 +
// S and its wave reaches the last tile 3 cycles later (2 without pairs),
// halt at 12 ends at the idle S + 15: S + 16 cycles (S + 15 without pairs).
TEST(ModelPair, MmCyclesFollowTheRule)
{
    struct Case {
        const char *what;
        uint32_t a, b, K, sa, sb;
        uint64_t s1, s0, bank;   // stream cycles with and without pairs, conflicts
    } cases[] = {
        {"even words, other banks: 4 pairs", 0, 65536, 8, 4, 4, 4, 8, 0},
        {"K odd: 3 pairs, then a single", 0, 65536, 7, 4, 4, 4, 7, 0},
        {"K = 2: one pair", 0, 65536, 2, 4, 4, 1, 2, 0},
        {"K = 1: a single (one step left)", 0, 65536, 1, 4, 4, 1, 1, 0},
        {"A and B on odd words: a single, 3 pairs, a single", 4, 65540, 8, 4, 4, 5, 8, 0},
        {"A odd, B even: never both even, no pairs", 4, 65536, 8, 4, 4, 8, 8, 0},
        {"A even, B odd: no pairs", 0, 65540, 8, 4, 4, 8, 8, 0},
        {"strides of two words: no pairs", 0, 65536, 8, 8, 8, 8, 8, 0},
        {"B stride two words: no pairs", 0, 65536, 8, 4, 8, 8, 8, 0},
        {"one bank: conflicts, no pairs", 0, 1024, 8, 4, 4, 16, 16, 8},
        // A's steps 0..3 in bank 0 (2 pairs), steps 4..9 in B's bank 1 (6 conflicts)
        {"A crosses into B's bank", 65520, 66560, 10, 4, 4, 2 + 12, 4 + 12, 6},
        {"long stream, even words", 256, 65536 + 512, 1000, 4, 4, 500, 1000, 0},
    };
    for (const Case &c : cases) {
        const PairRun p = pair_run(1, c.a, c.b, c.K, c.sa, c.sb), q = pair_run(0, c.a, c.b, c.K, c.sa, c.sb);
        ASSERT_EQ(p.st.state, SPU_STATE_HALTED) << c.what;
        ASSERT_EQ(q.st.state, SPU_STATE_HALTED) << c.what;
        EXPECT_EQ(p.mm, c.s1) << c.what;
        EXPECT_EQ(q.mm, c.s0) << c.what;
        EXPECT_EQ(p.mac, c.K) << c.what;          // k-steps: a pair counts 2
        EXPECT_EQ(q.mac, c.K) << c.what;
        EXPECT_EQ(p.bank, c.bank) << c.what;
        EXPECT_EQ(q.bank, c.bank) << c.what;
        EXPECT_EQ(p.st.cycles, c.s1 + 16) << c.what;
        EXPECT_EQ(q.st.cycles, c.s0 + 15) << c.what;
        EXPECT_EQ(p.stall, c.s1 + 2) << c.what;   // halt's wait: EXEC from 13 to the idle S + 15
        EXPECT_EQ(p.c, q.c) << c.what;            // the same sums
        // and the sums are A x B
        std::vector<uint8_t> ref(64);
        std::mt19937 rng(c.a * 7 + c.b + c.K);
        std::vector<int8_t> A(4 * c.K), B(4 * c.K);
        for (uint32_t k = 0; k < c.K; k++)
            for (uint32_t i = 0; i < 4; i++) {
                A[k * 4 + i] = (int8_t)rng();
                B[k * 4 + i] = (int8_t)rng();
            }
        for (uint32_t i = 0; i < 4; i++)
            for (uint32_t j = 0; j < 4; j++) {
                int32_t sum = 0;
                for (uint32_t k = 0; k < c.K; k++) sum += A[k * 4 + i] * B[k * 4 + j];
                memcpy(&ref[(i * 4 + j) * 4], &sum, 4);
            }
        EXPECT_EQ(p.c, ref) << c.what;
    }
}

// A paired stream that runs off the scratchpad: B at 131056 (word 32764,
// even, bank 1) has steps 0..3 inside, step 4 traps SPAD_RANGE. With pairs
// steps 0..3 issue in 2 cycles from 3, so the stream reaches step 4 at X =
// 5 (7 without pairs): the li at 2 (EXEC 3) takes effect, the one at 4 (EXEC
// 5) does not; cycles = X - 1.
TEST(ModelPair, RangeTrapInAPairedStream)
{
    for (uint32_t pair : {1u, 0u}) {
        Model m(pair_config(pair));
        auto st = m.run("mm r1, r2, r3\nli r9, 1\nli r10, 1\nli r11, 1\nhalt\n", {0, 131056, 8});
        ASSERT_EQ(st.state, SPU_STATE_TRAPPED) << pair;
        EXPECT_EQ(st.trap, SPU_TRAP_SPAD_RANGE) << pair;
        EXPECT_EQ(st.pc, 0u) << pair;
        EXPECT_EQ(m.cnt(SPU_CNT_MAC_ACTIVE), 4u) << pair;
        EXPECT_EQ(m.cnt(SPU_CNT_MM_CYCLES), pair ? 2u : 4u);
        EXPECT_EQ(m.cnt(SPU_CNT_STALL_BANK), 0u);
        EXPECT_EQ(st.cycles, pair ? 4u : 6u);
        EXPECT_EQ(m.reg(9), 1u) << pair;
        EXPECT_EQ(m.reg(10), pair ? 0u : 1u);
        EXPECT_EQ(m.reg(11), 0u) << pair;
    }
}

// The wave span 3 moves an st's drain: `mm; st; mm; st; halt`, K = 10 (as
// ModelTensor.SpramMmWaitsForTheDrainWrites, D = 16). With pairs the first
// mm launches at 2 and reads its last step at 7 (5 pairs); the st's slot is
// 8, its wave reaches the last tile at G = 11, the drain writes 12..27 and
// is idle from 29; the second mm (at 4, taken at 8) launches at 29, reads
// its last step at 34; the second st (at 9, taken at 29) has slot 35, G =
// 38; halt at 30 ends at the idle 39: 40 cycles (48 without pairs; 38 with
// pairs and a span of 2).
TEST(ModelPair, WaveSpanThreeMovesTheDrain)
{
    for (uint32_t pair : {1u, 0u}) {
        Model m(pair_config(pair));
        auto st = m.run("mm r1, r2, r3\nst r4\nmm r1, r2, r3\nst r4\nhalt\n", {0, 65536, 10, 1024});
        ASSERT_EQ(st.state, SPU_STATE_HALTED) << pair;
        EXPECT_EQ(st.cycles, pair ? 40u : 48u);
        EXPECT_EQ(m.cnt(SPU_CNT_MM_CYCLES), pair ? 10u : 20u);
        EXPECT_EQ(m.cnt(SPU_CNT_MAC_ACTIVE), 20u) << pair;
        EXPECT_EQ(m.cnt(SPU_CNT_DRAIN_BUSY), 32u) << pair;
    }
}

// docs/isa.md "Overlapped issue": a loop of two independent adds issues in 2
// cycles an iteration (4 without), its back edge included; the loop and the
// li before it (which names the count register li writes) do not overlap.
TEST(ModelOverlap, LoopOfIndependentAddsIssuesOneACycle)
{
    const char *src = R"(
            li r1, 10
            loop r1, e
              add r2, r2, r3
              add r4, r4, r3
    e:      halt
    )";
    for (uint32_t ov : {0u, 1u}) {
        Model m(8, 8, 262144, 4, 0, 1, 1, ov);
        spu_status_t st = m.run(src, {0, 0, 7});
        EXPECT_EQ(st.state, SPU_STATE_HALTED);
        EXPECT_EQ(m.reg(2), 70u);
        EXPECT_EQ(m.cnt(SPU_CNT_INSTRET), 23u);
        EXPECT_EQ(st.cycles, ov ? 2u + 2u + 10u * 2u + 2u : 2u + 2u + 10u * 4u + 2u) << "overlap " << ov;
    }
}

TEST(ModelTensor, CntReadsCountersAtInstructionStart)
{
    Model m;
    auto st = m.run("nop\nnop\ncnt r9, cycles\ncnt r10, instret\nhalt\n");
    ASSERT_EQ(st.state, SPU_STATE_HALTED);
    EXPECT_EQ(m.reg(9), 4u);
    EXPECT_EQ(m.reg(10), 3u);
}

// The requantizer against an independent formulation with long double.
int8_t requant_reference(int32_t acc, unsigned s, unsigned round, int relu)
{
    long double x = (long double)acc / (long double)(1ull << s);
    long double fl = floorl(x), frac = x - fl, q;
    switch (round) {
    case SPU_ROUND_RNE: q = frac > 0.5L ? fl + 1 : frac < 0.5L ? fl : (fmodl(fl, 2) == 0 ? fl : fl + 1); break;
    case SPU_ROUND_RTZ: q = truncl(x); break;
    default: q = frac > 0.5L ? fl + 1 : frac < 0.5L ? fl : (x > 0 ? fl + 1 : fl); break;
    }
    if (q > 127) q = 127;
    if (q < -128) q = -128;
    if (relu && q < 0) q = 0;
    return (int8_t)q;
}

TEST(ModelTensor, RequantizeAllModes)
{
    std::mt19937 rng(5);
    std::vector<int32_t> vals = {0, 1, -1, 2, -2, 3, -3, 5, -5, 6, -6, 127, 128, -128, -129,
                                 255, 256, -256, 384, -384, INT32_MAX, INT32_MIN, 1 << 20, -(1 << 20)};
    for (int i = 0; i < 20000; i++) vals.push_back((int32_t)rng() >> (rng() % 31));
    for (int32_t v : vals)
        for (unsigned s = 0; s < 32; s++)
            for (unsigned r = 0; r < 3; r++)
                for (int relu = 0; relu < 2; relu++)
                    ASSERT_EQ(spu_requant_int8(v, s, r, relu), requant_reference(v, s, r, relu))
                        << "acc " << v << " shift " << s << " round " << r << " relu " << relu;
}

TEST(ModelTensor, StInt8OutputThroughTheProgram)
{
    Model m;
    // A column of 1s against B row of (-7, -6, ..., 0) with K=1: acc = B[j]
    for (int i = 0; i < 8; i++) m.spad()[i] = 1;
    for (int j = 0; j < 8; j++) m.spad()[65536 + j] = (uint8_t)(int8_t)(j * 37 - 150);
    auto st = m.run(R"(
        cfg in=int8 out=int8 shift=2 round=rna relu=1
        li r9, 8
        li r10, 8
        li r11, 8
        stride r9, r10, r11
        li r12, 1
        mm r1, r2, r12
        st r3
        halt
    )", {0, 65536, 131072});
    ASSERT_EQ(st.state, SPU_STATE_HALTED);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++)
            EXPECT_EQ((int8_t)m.spad()[131072 + i * 8 + j], requant_reference((int8_t)(j * 37 - 150), 2, SPU_ROUND_RNA, 1));
    EXPECT_EQ(m.cnt(SPU_CNT_DRAIN_BUSY), 8u);  // one 8-byte word per row
}

}  // namespace
