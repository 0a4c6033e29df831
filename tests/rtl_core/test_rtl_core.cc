// test_rtl_core.cc -- spu_core (Verilated, driven at its ports) against plain
// C++ references, the docs/isa.md timing formula, and the C reference model.
// Every test runs on both geometries: 8x8 (sim default) and 4x4 (iCE40).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

#include "rtl_core_harness.h"
#include "../common/exact_dot.h"

extern "C" {
#include "spu/asm.h"
}

namespace {

class RtlCore : public ::testing::TestWithParam<int> {
  protected:
    void SetUp() override
    {
        core = make_core(GetParam());
        g = core->geom();
        WB = g.word_bytes();
        BANK = g.spad_bytes / g.banks;
    }
    std::unique_ptr<CoreBase> core;
    Geom g{};
    uint32_t WB = 0, BANK = 0;

    // docs/isa.md "Tensor unit": cycles from a read (a token's slot) to its
    // products (its wave) in the last tile: ROWS + COLS, 2 with buses (3
    // with k-step pairs)
    uint32_t Z() const { return g.bus ? (g.pair ? 3 : 2) : g.rows + g.cols; }
    // docs/isa.md "mm", "k-step pairs": the cycles an mm's stream of k steps
    // takes from A at a and B at b with one-word strides (the programs'
    // default), counting the same-bank steps in *conf: 1 a step, 2 when A
    // and B share a bank; with pairs, steps s and s+1 in one cycle when A
    // and B are on even words in different banks and s+1 < k
    uint64_t stream(uint32_t a, uint32_t b, uint32_t k, uint64_t *conf = nullptr) const
    {
        uint64_t cyc = 0, c = 0;
        for (uint32_t s = 0; s < k; s++) {
            const uint32_t pa = a + s * WB, pb = b + s * WB;
            const bool same = pa / BANK == pb / BANK;
            if (g.pair && !same && (pa / WB) % 2 == 0 && (pb / WB) % 2 == 0 && s + 1 < k) s++;
            cyc += same ? 2 : 1;
            c += same;
        }
        if (conf) *conf = c;
        return cyc;
    }
    // the stream of k steps from A at 0 and B at BANK (the tests' panels)
    uint64_t S(uint32_t k) const { return stream(0, BANK, k); }
    // docs/isa.md `st`: a group of drain_lanes accumulators per cycle, one
    // write of all its bytes, for every out (the 8x8's row of int32 is 4 words)
    uint32_t drain_cycles(unsigned out) const
    {
        (void)out;
        return g.rows * (g.cols / g.drain_lanes);
    }
    // A fresh reference model with this geometry.
    spu_model *new_model()
    {
        spu_model_config c;
        spu_model_config_default(&c);
        c.rows = g.rows; c.cols = g.cols; c.spad_bytes = g.spad_bytes; c.spad_banks = g.banks;
        c.ucode_words = g.ucode_words; c.loop_depth = g.loop_depth;
        c.drain_lanes = g.drain_lanes;
        c.formats = g.formats;
        c.vector = g.vector;
        c.spram = g.spram;
        c.chain = g.chain;
        c.bus = g.bus;
        c.pair = g.pair;
        c.overlap = g.overlap;
        spu_model *m = nullptr;
        EXPECT_EQ(spu_model_create(&m, &c), 0);
        return m;
    }
    void run_prog(const std::vector<uint32_t> &p, const std::vector<uint32_t> &args = {},
                  uint32_t pc = 0, uint32_t wd = 0)
    {
        core->load_ucode(p);
        if (!args.empty()) core->set_args(args);
        core->run(pc, wd);
        last_ = {p, args, pc, wd};
    }
    struct LastRun { std::vector<uint32_t> p, args; uint32_t pc = 0, wd = 0; } last_;
    // The last run_prog's program on the model (timing does not depend on
    // the scratchpad's contents), for issue() below.
    spu_model *last_on_model()
    {
        spu_model *m = new_model();
        EXPECT_EQ(spu_model_load_ucode(m, 0, last_.p.data(), last_.p.size()), 0);
        spu_model_set_args(m, last_.args.data(), (int)last_.args.size());
        spu_model_run(m, last_.pc, last_.wd);
        return m;
    }
    // A value the test derives by hand from the two-cycle issue (docs/isa.md
    // "Tensor unit"): that formula on builds without overlapped issue; on an
    // OVERLAP build, the model's value of the last run_prog (counter `cnt`,
    // or register `reg`) -- the overlap rule itself is checked by hand in
    // OverlapFollowsTheIssueRule, and RTL = model everywhere by differential.
    uint64_t issue(uint64_t two_cycle, int cnt)
    {
        if (!g.overlap) return two_cycle;
        spu_model *m = last_on_model();
        spu_counters_t c;
        spu_model_counters(m, &c);
        spu_model_free(m);
        return c.v[cnt];
    }
    uint32_t issue_reg(uint32_t two_cycle, int reg)
    {
        if (!g.overlap) return two_cycle;
        spu_model *m = last_on_model();
        const uint32_t v = spu_model_reg(m, reg);
        spu_model_free(m);
        return v;
    }
    // Runs the same program on the RTL and the model (memory initialised with
    // `init` at 0) and compares state, trap, pc, registers, counters 0..6 and
    // the scratchpad bytes [0, cmp_len).
    // hi / hi_addr: a second region (e.g. in another bank), written and
    // compared as well
    void differential(const std::vector<uint32_t> &p, const std::vector<uint8_t> &init,
                      const std::vector<uint32_t> &args, uint32_t cmp_len, uint32_t wd = 0,
                      const char *what = "", const std::vector<uint8_t> *hi = nullptr,
                      uint32_t hi_addr = 0)
    {
        last_ = {p, args, 0, wd};
        spu_model *m = new_model();
        std::memcpy(spu_model_spad(m), init.data(), init.size());
        if (hi) {
            std::memcpy(spu_model_spad(m) + hi_addr, hi->data(), hi->size());
            core->spad_write(hi_addr, *hi);
        }
        ASSERT_EQ(spu_model_load_ucode(m, 0, p.data(), p.size()), 0);
        spu_model_set_args(m, args.data(), (int)args.size());
        spu_model_run(m, 0, wd);
        core->spad_write(0, init);
        core->load_ucode(p);
        core->set_args(args);
        core->run(0, wd);
        spu_status_t st;
        spu_model_status(m, &st);
        ASSERT_EQ(core->state(), st.state) << what;
        ASSERT_EQ(core->trap(), st.trap) << what;
        ASSERT_EQ(core->pc(), st.pc) << what;
        for (int r = 1; r < 16; r++) ASSERT_EQ(core->reg(r), spu_model_reg(m, r)) << what << " r" << r;
        spu_counters_t c;
        spu_model_counters(m, &c);
        for (int i = 0; i <= SPU_CNT_DRAIN_BUSY; i++)
            if (i == SPU_CNT_CYCLES && st.state == SPU_STATE_TRAPPED) {
                // docs/isa.md: a trapped run's cycle count may include the
                // faulting instruction's EXEC (1 or 2 cycles), no more
                ASSERT_GE(core->counter(i), c.v[i]) << what << " cycles";
                ASSERT_LE(core->counter(i), c.v[i] + 2) << what << " cycles";
            } else {
                ASSERT_EQ(core->counter(i), c.v[i]) << what << " counter " << i;
            }
        if (st.state != SPU_STATE_TRAPPED) {
            for (int i : {SPU_CNT_VEC_BUSY, SPU_CNT_VEC_STALL})
                ASSERT_EQ(core->counter(i), c.v[i]) << what << " counter " << i;
        }
        std::vector<uint8_t> got = core->spad_read(0, cmp_len);
        for (uint32_t i = 0; i < cmp_len; i++)
            ASSERT_EQ(got[i], spu_model_spad(m)[i]) << what << " spad byte " << i;
        if (hi) {
            got = core->spad_read(hi_addr, hi->size());
            for (size_t i = 0; i < hi->size(); i++)
                ASSERT_EQ(got[i], spu_model_spad(m)[hi_addr + i]) << what << " spad byte " << hi_addr + i;
        }
        spu_model_free(m);
    }
    void expect_trap(int cause, uint32_t pc)
    {
        EXPECT_EQ(core->state(), SPU_STATE_TRAPPED);
        EXPECT_EQ(core->trap(), cause);
        EXPECT_EQ(core->pc(), pc);
        // the core accepts a new run afterwards
        core->load_ucode({LI(9, 1234), HALT()}, g.ucode_words - 2);
        core->run(g.ucode_words - 2);
        EXPECT_EQ(core->state(), SPU_STATE_HALTED);
        EXPECT_EQ(core->trap(), SPU_TRAP_NONE);
        EXPECT_EQ(core->reg(9), 1234u);
    }
};

// Independent requantization reference (docs/isa.md), in 64-bit arithmetic.
int8_t ref_requant(int32_t acc, unsigned shift, unsigned round, bool relu)
{
    int64_t q;
    if (shift == 0) {
        q = acc;
    } else {
        int64_t d = (int64_t)1 << shift;
        int64_t fl = acc >= 0 ? acc / d : -((-(int64_t)acc + d - 1) / d);   // floor
        int64_t rem = (int64_t)acc - fl * d;                                 // 0 <= rem < d
        if (round == SPU_ROUND_RTZ) q = acc >= 0 ? fl : (rem ? fl + 1 : fl);
        else if (2 * rem > d) q = fl + 1;
        else if (2 * rem < d) q = fl;
        else q = round == SPU_ROUND_RNE ? fl + (fl & 1) : (acc >= 0 ? fl + 1 : fl);
    }
    q = std::min<int64_t>(127, std::max<int64_t>(-128, q));
    if (relu && q < 0) q = 0;
    return (int8_t)q;
}

// ---------------------------------------------------------------------------
TEST_P(RtlCore, ScalarOps)
{
    run_prog({LI(1, -5), LUI(2, 0x1234), ADDI(3, 1, 100), ADD(4, 2, 3), SUB(5, 1, 2), SHLI(6, 3, 7),
              MUL(7, 2, 1), LI(8, 0x1FFFFF), MUL(9, 8, 8), ADDI(0, 1, 5), ADDI(10, 0, -131072),
              LI(11, -2097152), SHLI(12, 1, 31), HALT()});
    ASSERT_EQ(core->state(), SPU_STATE_HALTED);
    uint32_t r1 = (uint32_t)-5, r2 = 0x12340000u, r3 = r1 + 100;
    EXPECT_EQ(core->reg(0), 0u);
    EXPECT_EQ(core->reg(1), r1);
    EXPECT_EQ(core->reg(2), r2);
    EXPECT_EQ(core->reg(3), r3);
    EXPECT_EQ(core->reg(4), r2 + r3);
    EXPECT_EQ(core->reg(5), r1 - r2);
    EXPECT_EQ(core->reg(6), r3 << 7);
    EXPECT_EQ(core->reg(7), r2 * r1);
    EXPECT_EQ(core->reg(9), 0x1FFFFFu * 0x1FFFFFu);
    EXPECT_EQ(core->reg(10), (uint32_t)-131072);
    EXPECT_EQ(core->reg(11), (uint32_t)-2097152);
    EXPECT_EQ(core->reg(12), r1 << 31);
    EXPECT_EQ(core->pc(), 13u);
    EXPECT_EQ(core->counter(SPU_CNT_INSTRET), 14u);
    EXPECT_EQ(core->counter(SPU_CNT_CYCLES), issue(92, SPU_CNT_CYCLES));   // 2 each, shli and mul 18 (iterative)
}

TEST_P(RtlCore, BranchesAndJumps)
{
    run_prog({/*0*/ LI(1, 0), /*1*/ LI(2, 5), /*2*/ ADDI(1, 1, 1), /*3*/ BLT(1, 2, 2),
              /*4*/ BNE(1, 2, 7), /*5*/ LI(4, -1), /*6*/ BLT(2, 4, 9), /*7*/ JMP(10),
              /*8*/ HALT(), /*9*/ LI(3, 99), /*10*/ LI(3, 7), /*11*/ HALT()});
    ASSERT_EQ(core->state(), SPU_STATE_HALTED);
    EXPECT_EQ(core->reg(1), 5u);
    EXPECT_EQ(core->reg(3), 7u);   // signed blt 5 < -1 not taken, jmp taken
    EXPECT_EQ(core->pc(), 11u);
}

TEST_P(RtlCore, NestedLoopsAndZeroCount)
{
    run_prog({/*0*/ LI(1, 3), /*1*/ LI(2, 4), /*2*/ LOOP(1, 7), /*3*/ LOOP(2, 5), /*4*/ ADDI(5, 5, 1),
              /*5*/ ADDI(6, 6, 1), /*6*/ NOP(), /*7*/ LI(3, 0), /*8*/ LOOP(3, 10), /*9*/ ADDI(4, 4, 1),
              /*10*/ HALT()});
    ASSERT_EQ(core->state(), SPU_STATE_HALTED);
    EXPECT_EQ(core->reg(5), 12u);
    EXPECT_EQ(core->reg(6), 3u);
    EXPECT_EQ(core->reg(4), 0u);
    // back edges are free: 3 + 3*7 + 3 instructions, 2 cycles each
    EXPECT_EQ(core->counter(SPU_CNT_INSTRET), 27u);
    EXPECT_EQ(core->counter(SPU_CNT_CYCLES), issue(54, SPU_CNT_CYCLES));
}

// docs/isa.md `halt`: halt waits for the tensor unit, not for the last st's
// drain writes; they finish in the background while the host port waits, and
// a RUN arriving then is held (state RUNNING) until they are done, so the next
// run starts with the drain idle, cycle for cycle as the model's.
TEST_P(RtlCore, HaltLeavesTheLastDrainToTheBackgroundAndHoldsTheNextRun)
{
    const uint32_t R = g.rows, C = g.cols, K = 5, CB = 1024, CB2 = 2048;
    std::mt19937 rng(13);
    std::vector<uint8_t> mem(CB2 + R * C * 4, 0), bmem(K * WB);
    for (uint32_t k = 0; k < K; k++) {
        for (uint32_t i = 0; i < R; i++) mem[k * WB + i] = (uint8_t)rng();
        for (uint32_t j = 0; j < C; j++) bmem[k * WB + j] = (uint8_t)rng();
    }
    // A at 0, B in the next bank, C at CB: mm; st; halt (cycles = the model's,
    // the drain's D cycles not included)
    const std::vector<uint32_t> p1 = {LI(1, 0), LI(2, (int32_t)BANK), LI(3, (int32_t)K), LI(4, (int32_t)CB),
                                      MM(1, 2, 3), ST(4), HALT()};
    differential(p1, mem, {}, (uint32_t)mem.size(), 0, "mm st halt", &bmem, BANK);
    if (HasFatalFailure()) return;
    // a second program, RUN at once: st of the zeroed accumulators to CB2.
    // Its drain is still writing right after the first halt; the model's
    // counters for the second run are those of a drain-idle start.
    const std::vector<uint32_t> p2 = {LI(5, (int32_t)CB2), ST(5), HALT()};
    spu_model *m = new_model();
    ASSERT_EQ(spu_model_load_ucode(m, 0, p2.data(), p2.size()), 0);
    spu_model_run(m, 0, 0);
    spu_counters_t mc;
    spu_model_counters(m, &mc);
    core->load_ucode(p1);
    core->spad_write(CB2, std::vector<uint8_t>(R * C * 4, 0xA5));
    core->run(0, 0);                               // p1 again (same operands)
    ASSERT_EQ(core->state(), SPU_STATE_HALTED);
    EXPECT_FALSE(core->spad_port_ready()) << "halted with the drain still writing";
    core->load_ucode(p2);                          // (microcode port: not held)
    core->run(0, 0);                               // held until the drain is done
    ASSERT_EQ(core->state(), SPU_STATE_HALTED);
    for (int i = 0; i <= SPU_CNT_DRAIN_BUSY; i++)
        EXPECT_EQ(core->counter(i), mc.v[i]) << "second run, counter " << i;
    // li@0; st@2 taken at 3, launches at 4, G = 4 + Z; halt@4 waits from 5
    // until the tensor unit is idle at G + 1: Z cycles (not the drain's)
    // (overlapped issue: st overlaps halt, FETCH 3: Z + 1)
    EXPECT_EQ(mc.v[SPU_CNT_STALL_DRAIN], (uint64_t)Z() + (g.overlap ? 1 : 0));
    spu_model_free(m);
    // the first run's block landed whole, then the second run's zeros
    std::vector<uint8_t> got = core->spad_read(CB, R * C * 4);
    for (uint32_t i = 0; i < R; i++)
        for (uint32_t j = 0; j < C; j++) {
            int32_t want = 0, v;
            for (uint32_t k = 0; k < K; k++) want += (int8_t)mem[k * WB + i] * (int8_t)bmem[k * WB + j];
            std::memcpy(&v, &got[(i * C + j) * 4], 4);
            ASSERT_EQ(v, want) << "C[" << i << "][" << j << "]";
        }
    got = core->spad_read(CB2, R * C * 4);
    for (uint32_t i = 0; i < R * C * 4; i++) ASSERT_EQ(got[i], 0u) << "zero block byte " << i;
}

TEST_P(RtlCore, CntReadsCountersAtInstructionStart)
{
    run_prog({NOP(), NOP(), CNT(1, SPU_CNT_CYCLES), CNT(2, SPU_CNT_INSTRET), CNT(3, SPU_CNT_LINK_RX), HALT()});
    EXPECT_EQ(core->reg(1), issue_reg(4, 1));
    EXPECT_EQ(core->reg(2), 3u);
    EXPECT_EQ(core->reg(3), 0u);
}

TEST_P(RtlCore, ArgsAreRestoredByRun)
{
    core->load_ucode({ADDI(1, 1, 1), ADDI(9, 9, 1), HALT()});
    core->set_args({41, 2, 3, 4, 5, 6, 7, 8});
    core->run();
    EXPECT_EQ(core->reg(1), 42u);
    EXPECT_EQ(core->reg(8), 8u);
    core->run();
    EXPECT_EQ(core->reg(1), 42u);   // r1 reloaded from the argument, r9 cleared
    EXPECT_EQ(core->reg(9), 1u);
}

// ---- traps -----------------------------------------------------------------
TEST_P(RtlCore, TrapIllegal)
{
    const uint32_t bad[] = {
        0xFCu << 24,                                         // undefined opcode 0x3F
        NOP() | 1u,                                          // reserved bit
        ST(1) | (1u << 18),                                  // reserved field of R format
        enc(SPU_OP_CFG, 0, 0, 0, 0x10) | 1u,                 // cfg in = 1 (int32 input)
        enc(SPU_OP_CFG, 0, 0, 0, 0x70),                      // cfg out = 7 (reserved)
        enc(SPU_OP_CFG, 0, 0, 0, 3 << 13),                   // round = 3
        enc(SPU_OP_CFG, 0, 0, 0, 0) | (1u << 17),            // cfg reserved bits (16 is ovf)
        (uint32_t)SPU_OP_LUI << 26 | (1u << 16),             // lui imm22[21:16]
        (uint32_t)SPU_OP_SHLI << 26 | (1u << 5),             // shli imm18[17:5]
        CNT(1, SPU_CNT_COUNT),                               // unknown counter
    };
    for (uint32_t w : bad) {
        SCOPED_TRACE(::testing::Message() << std::hex << w);
        run_prog({NOP(), w, HALT()});
        expect_trap(SPU_TRAP_ILLEGAL, 1);
    }
    run_prog({LI(1, 2), NOP(), LOOP(1, 3), NOP(), HALT()});   // empty loop body
    expect_trap(SPU_TRAP_ILLEGAL, 2);
}

// ---- datapath formats (docs/numerics.md "Datapath numerics") -----------------
TEST_P(RtlCore, CfgFormatsTrapAsTheModelSays)
{
    // every in x out code: legal, ILLEGAL (not a dtype of that role) or
    // FORMAT (a dtype this build does not carry), as spu_model_cfg_check
    int n_fmt = 0, n_ok = 0;
    for (unsigned in = 0; in < 16; in++)
        for (unsigned out = 0; out < 16; out++) {
            SCOPED_TRACE(::testing::Message() << "in " << in << " out " << out);
            int want = spu_model_cfg_check(g.formats, in, out);
            run_prog({NOP(), CFGI(in, out), HALT()});
            if (want == 0) {
                EXPECT_EQ(core->state(), SPU_STATE_HALTED);
                n_ok++;
            } else {
                expect_trap(want, 1);
                n_fmt += want == SPU_TRAP_FORMAT;
            }
        }
    if (g.formats == 1) {
        EXPECT_EQ(n_ok, 2);     // int8 -> int8 / int32
        EXPECT_EQ(n_fmt, 68);   // e4m3, e5m2, bf16, 6 MX x 7 outs; int8 -> f32 bf16 f16 e4m3 e5m2
    } else {
        EXPECT_EQ(n_ok, 70);    // 10 ins (int8 e4m3 e5m2 bf16 + 6 MX) x 7 outs
        EXPECT_EQ(n_fmt, 0);
    }
}

// Operand codes for the float sweeps: 0 any code, 1 finite only, 2 mostly
// subnormal / zero, 3 mostly the largest finite magnitudes, 4 finite with a
// few NaN / Inf.
static uint8_t fp_code(std::mt19937 &rng, unsigned fmt, int mode)
{
    const bool e4 = fmt == SPU_DTYPE_E4M3;
    auto finite = [&](uint8_t c) {
        return e4 ? (c & 0x7F) != 0x7F : (c & 0x7C) != 0x7C;
    };
    uint8_t c = (uint8_t)rng();
    switch (mode) {
    case 1: while (!finite(c)) c = (uint8_t)rng(); return c;
    case 2: return (uint8_t)((c & 0x80) | (c & (e4 ? 0x07 : 0x03)));
    case 3: return (uint8_t)((c & 0x80) | (e4 ? 0x78 + (c & 6) : 0x78 + (c & 3)));
    case 4:
        if (rng() % 64 == 0) return e4 ? (uint8_t)(0x7F | (c & 0x80)) : (uint8_t)(0x7C | (c & 0x83));
        while (!finite(c)) c = (uint8_t)rng();
        return c;
    default: return c;
    }
}

TEST_P(RtlCore, FloatGemmMatchesModelAndExactReference)
{
    const uint32_t R = g.rows, C = g.cols;
    std::mt19937 rng(77 + GetParam());
    int runs = 0;
    for (unsigned fmt : {SPU_DTYPE_E4M3, SPU_DTYPE_E5M2}) {
        if (!(g.formats & (1u << fmt))) continue;
        const exact_ref::Fmt nf = fmt == SPU_DTYPE_E4M3 ? exact_ref::E4M3 : exact_ref::E5M2;
        for (uint32_t K : {1u, 2u, 7u, 31u, 32u, 33u, 64u, 97u})
            for (int mode = 0; mode < 5; mode++) {
                if (mode == 0 && K > 7) continue;   // random codes: mostly NaN beyond
                SCOPED_TRACE(::testing::Message() << "fmt " << fmt << " K " << K << " mode " << mode);
                // A panel at 0 (word k byte i = A[i][k]), B at 2048, C at 4096
                std::vector<uint8_t> mem(4096 + R * C * 4, 0);
                for (uint32_t k = 0; k < K; k++) {
                    for (uint32_t i = 0; i < R; i++) mem[k * WB + i] = fp_code(rng, fmt, mode);
                    for (uint32_t j = 0; j < C; j++) mem[2048 + k * WB + j] = fp_code(rng, fmt, mode);
                }
                std::vector<uint32_t> p = {CFGI(fmt, SPU_DTYPE_F32), LI(1, 0), LI(2, 2048),
                                           LI(3, (int32_t)K), LI(4, 4096), MM(1, 2, 3), ST(4), HALT()};
                differential(p, mem, {}, (uint32_t)mem.size(), 0, "fp gemm");
                if (HasFatalFailure()) return;
                std::vector<uint8_t> got = core->spad_read(4096, R * C * 4);
                for (uint32_t i = 0; i < R; i++)
                    for (uint32_t j = 0; j < C; j++) {
                        uint32_t v;
                        std::memcpy(&v, &got[(i * C + j) * 4], 4);
                        ASSERT_EQ(v, exact_ref::dot_f32(nf, &mem[i], WB, &mem[2048 + j], WB, K))
                            << "C[" << i << "][" << j << "]";
                    }
                runs++;
            }
    }
    if (g.formats != 1) {
        EXPECT_GT(runs, 50);
    }
}

// bf16 operands (docs/numerics.md "Datapath numerics", docs/isa.md "mm"): a
// k-step is two words, the low bytes then the high bytes; random GEMMs in
// six operand regimes (any code; |x| in [2^-10, 2^11); products around the
// 2^-32 grid with subnormals and zeros; products near and beyond the
// register's 2^47; a few NaN / Inf / zeros; 2^-40 .. 2^40), A and B in one
// bank (every word step stalls: the load unit's held first word) and in two
// banks, out f32 and bf16 (relu, sat / ovf) -- RTL vs the model bit and
// cycle exact, and vs exact_ref::dot_exact_bf16 (the documented semantics
// from doubles) rounded straight to the out format.
static uint16_t bf_code(std::mt19937 &rng, int mode)
{
    const uint16_t s = (uint16_t)((rng() & 1) << 15), m = (uint16_t)(rng() & 0x7F);
    unsigned e;
    switch (mode) {
    case 0: return (uint16_t)rng();
    case 1: e = 117 + rng() % 21; break;
    case 2: e = rng() % 4 == 0 ? 0 : 100 + rng() % 20; break;
    case 3: e = 143 + rng() % 9; break;
    case 4:
        if (rng() % 40 == 0) return (uint16_t)(s | 0x7F80 | (rng() % 2 ? m : 0));
        if (rng() % 40 == 0) return s;
        e = 117 + rng() % 21;
        break;
    default: e = 87 + rng() % 80; break;
    }
    return (uint16_t)(s | e << 7 | m);
}

TEST_P(RtlCore, Bf16GemmMatchesModelAndExactReference)
{
    // C's base: clear of a split B at BANK (c4f's 8 KiB scratchpad: BANK = 4096)
    const uint32_t CB = BANK > 4096 ? 4096 : 3072;
    if (!(g.formats & (1u << SPU_DTYPE_BF16))) {
        // a build without bf16: cfg in=bf16 traps FORMAT
        run_prog({NOP(), CFGI(SPU_DTYPE_BF16, SPU_DTYPE_F32), HALT()});
        expect_trap(SPU_TRAP_FORMAT, 1);
        return;
    }
    const uint32_t R = g.rows, C = g.cols;
    std::mt19937 rng(4242 + GetParam());
    int runs = 0;
    for (uint32_t K : {1u, 2u, 3u, 8u, 33u, 64u})
        for (int mode = 0; mode < 6; mode++)
            for (int split = 0; split < 2; split++) {
                if (mode == 0 && K > 3) continue;   // random codes: mostly NaN beyond
                const unsigned out = (mode + split + K) % 3 == 0 ? SPU_DTYPE_BF16 : SPU_DTYPE_F32;
                const unsigned relu = out == SPU_DTYPE_BF16 ? (K & 1) : 0, ovf = out == SPU_DTYPE_BF16 ? (mode & 1) : 0;
                SCOPED_TRACE(::testing::Message() << "K " << K << " mode " << mode << " split " << split
                                                  << " out " << out);
                // A at 0, C at CB; B at 2048 (the same bank) or at BANK (split)
                std::vector<uint16_t> a(R * K), b(C * K);
                for (auto &v : a) v = bf_code(rng, mode);
                for (auto &v : b) v = bf_code(rng, mode);
                const uint32_t bbase = split ? BANK : 2048;
                std::vector<uint8_t> mem(CB + R * C * 4, 0), hi(2 * K * WB, 0);
                uint8_t *bm = split ? hi.data() : &mem[2048];
                for (uint32_t k = 0; k < K; k++)
                    for (uint32_t h = 0; h < 2; h++) {
                        for (uint32_t i = 0; i < R; i++) mem[(2 * k + h) * WB + i] = (uint8_t)(a[k * R + i] >> (8 * h));
                        for (uint32_t j = 0; j < C; j++) bm[(2 * k + h) * WB + j] = (uint8_t)(b[k * C + j] >> (8 * h));
                    }
                std::vector<uint32_t> p = {CFGI(SPU_DTYPE_BF16, out, 0, 0, relu, ovf), LI(1, 0), LI(2, (int32_t)bbase),
                                           LI(3, (int32_t)K), LI(4, (int32_t)CB), MM(1, 2, 3), ST(4), HALT()};
                differential(p, mem, {}, (uint32_t)mem.size(), 0, "bf16 gemm", split ? &hi : nullptr,
                             split ? BANK : 0);
                if (HasFatalFailure()) return;
                const uint32_t ob = out == SPU_DTYPE_F32 ? 4 : 2;     // rows strideC = COLS*4 apart
                std::vector<uint8_t> got = core->spad_read(CB, R * C * 4);
                for (uint32_t i = 0; i < R; i++)
                    for (uint32_t j = 0; j < C; j++) {
                        uint32_t v = 0;
                        std::memcpy(&v, &got[i * C * 4 + j * ob], ob);
                        const exact_ref::ExactSum x = exact_ref::dot_exact_bf16(&a[i], R, &b[j], C, K);
                        const uint32_t want = out == SPU_DTYPE_F32 ? exact_ref::round_to(exact_ref::F32, x, -32, false, true)
                                                                   : exact_ref::round_to(exact_ref::BF16, x, -32, relu, ovf);
                        ASSERT_EQ(v, want) << "C[" << i << "][" << j << "] relu " << relu << " ovf " << ovf << std::hex << " a0 " << a[i] << " b0 " << b[j];
                    }
                runs++;
            }
    EXPECT_GT(runs, 50);
}

// bf16 mm in random programs: strides (0, 1 or 2 words; a k-step's two
// words are one stride apart), K, bases near the end of the scratchpad (the
// range trap may fall between the two words of a k-step), back-to-back mm
// with and without st, zacc -- RTL vs the model: state, trap, pc, counters,
// scratchpad.
TEST_P(RtlCore, Bf16RandomStreamsMatchModel)
{
    if (!(g.formats & (1u << SPU_DTYPE_BF16))) GTEST_SKIP() << "no bf16 in this build";
    std::mt19937 rng(99 + GetParam());
    auto rnd = [&](uint32_t n) { return (uint32_t)(rng() % n); };
    const uint32_t region = 4096, top = g.spad_bytes;
    std::vector<uint8_t> tail(2048);
    for (int iter = 0; iter < 60; iter++) {
        std::vector<uint8_t> mem(region);
        // bytes that are moderate bf16 values as high bytes, with some random
        for (auto &v : mem) v = (uint8_t)(rng() % 3 ? 0x38 + rng() % 16 : rng());
        for (auto &v : tail) v = (uint8_t)(rng() % 3 ? 0x38 + rng() % 16 : rng());
        const uint32_t sa = rnd(3) * WB, sb = rnd(3) * WB;
        // A and B below 512 (same bank) or in the last 2 KiB (written: the
        // tail, another bank on the 8x8; an mm there may run off the end)
        const uint32_t a0 = rnd(3) == 0 ? top - (1 + rnd(40)) * WB : rnd(512 / WB) * WB;
        const uint32_t b0 = rnd(2) ? top - 2048 + rnd(1024 / WB) * WB : rnd(512 / WB) * WB;
        std::vector<uint32_t> p = {CFGI(SPU_DTYPE_BF16, rnd(2) ? SPU_DTYPE_F32 : SPU_DTYPE_BF16),
                                   LI(1, (int32_t)a0), LI(2, (int32_t)b0), LI(3, (int32_t)rnd(20)),
                                   LI(5, (int32_t)sa), LI(6, (int32_t)sb), LI(7, (int32_t)(g.cols * 4)), STRIDE(5, 6, 7),
                                   LI(4, 2048)};
        for (int n = 1 + (int)rnd(4); n-- > 0;) {
            p.push_back(MM(1, 2, 3));
            if (rnd(3) == 0) p.push_back(ZACC());
            if (rnd(2)) p.push_back(ST(4));
            p.push_back(ADDI(3, 3, (int32_t)rnd(5)));
        }
        p.push_back(ST(4));
        p.push_back(HALT());
        differential(p, mem, {}, region, 0, ("bf16 program " + std::to_string(iter)).c_str(), &tail,
                     top - (uint32_t)tail.size());
        if (HasFatalFailure()) {
            spu_disasm(p.data(), p.size(), stderr, 1);
            return;
        }
    }
}

// The output pipeline (docs/numerics.md "Output pipeline"): every out dtype
// x relu x sat/ovf, for int8 and FP8 inputs, RTL vs the model bit for bit
// (and cycles), and the narrow float outs vs an exact-rational reference
// rounded straight to the target (exact_ref::round_to, no f32 step).
namespace {
// C[i][j] of a GEMM whose A columns and B rows are WB-byte words at mem[0]
// and mem[2048] (k-th word at k * WB), exact, on the 2^-60 grid
exact_ref::ExactSum exact_elem(uint32_t in, const std::vector<uint8_t> &mem, uint32_t WB, uint32_t K,
                               uint32_t i, uint32_t j)
{
    exact_ref::ExactSum x;
    if (in == SPU_DTYPE_INT8) {
        for (uint32_t k = 0; k < K; k++)
            x.s += (exact_ref::i128)((int8_t)mem[k * WB + i] * (int8_t)mem[2048 + k * WB + j]) << 60;
        return x;
    }
    return exact_ref::dot_exact(in == SPU_DTYPE_E4M3 ? exact_ref::E4M3 : exact_ref::E5M2,
                                &mem[i], WB, &mem[2048 + j], WB, K);
}

} // namespace

TEST_P(RtlCore, OutputPipelineEveryOutDtypeMatchesModelAndExactReference)
{
    const uint32_t R = g.rows, C = g.cols;
    std::mt19937 rng(4242 + GetParam());
    const unsigned outs[] = {SPU_DTYPE_INT8, SPU_DTYPE_INT32, SPU_DTYPE_F32, SPU_DTYPE_BF16,
                             SPU_DTYPE_F16, SPU_DTYPE_E4M3, SPU_DTYPE_E5M2};
    int checked = 0;
    for (unsigned in : {SPU_DTYPE_INT8, SPU_DTYPE_E4M3, SPU_DTYPE_E5M2}) {
        if (!(g.formats & (1u << in))) continue;
        for (unsigned out : outs) {
            const bool fout = out != SPU_DTYPE_INT8 && out != SPU_DTYPE_INT32;
            if (fout && g.formats == 1) continue;   // traps FORMAT (CfgFormatsTrapAsTheModelSays)
            // (relu, ovf, operand mode): finite, with NaN/Inf, near the largest magnitudes
            static const int combos[][3] = {{0, 0, 1}, {1, 0, 4}, {0, 1, 3}, {1, 1, 3}, {0, 0, 3}, {1, 1, 4}};
            for (const auto &cb : combos) {
                        const unsigned relu = (unsigned)cb[0], ovf = (unsigned)cb[1];
                        const int mode = cb[2];
                        const uint32_t K = mode == 3 ? 33u : 7u;
                        SCOPED_TRACE(::testing::Message() << "in " << in << " out " << out << " relu " << relu
                                                          << " ovf " << ovf << " mode " << mode);
                        std::vector<uint8_t> mem(4096 + R * C * 4, 0);
                        for (uint32_t k = 0; k < K; k++) {
                            for (uint32_t i = 0; i < R; i++)
                                mem[k * WB + i] = in == SPU_DTYPE_INT8 ? (uint8_t)(rng() | (mode == 3 ? 0x70 : 0))
                                                                       : fp_code(rng, in, mode);
                            for (uint32_t j = 0; j < C; j++)
                                mem[2048 + k * WB + j] = in == SPU_DTYPE_INT8 ? (uint8_t)rng() : fp_code(rng, in, mode);
                        }
                        std::vector<uint32_t> p = {CFGI(in, out, 3, 0, relu, ovf), LI(1, 0), LI(2, 2048),
                                                   LI(3, (int32_t)K), LI(4, 4096), MM(1, 2, 3), ST(4), HALT()};
                        differential(p, mem, {}, (uint32_t)mem.size(), 0, "out pipe");
                        if (HasFatalFailure()) return;
                        checked++;
                        exact_ref::Target t;
                        switch (out) {
                        case SPU_DTYPE_BF16: t = exact_ref::BF16; break;
                        case SPU_DTYPE_F16:  t = exact_ref::F16; break;
                        case SPU_DTYPE_E4M3: t = exact_ref::T_E4M3; break;
                        case SPU_DTYPE_E5M2: t = exact_ref::T_E5M2; break;
                        default: continue;
                        }
                        const uint32_t ob = (out == SPU_DTYPE_BF16 || out == SPU_DTYPE_F16) ? 2 : 1;
                        // rows at the default strideC = COLS*4, element j at j*ob
                        std::vector<uint8_t> got = core->spad_read(4096, R * C * 4);
                        for (uint32_t i = 0; i < R; i++)
                            for (uint32_t j = 0; j < C; j++) {
                                const exact_ref::ExactSum x = exact_elem(in, mem, WB, K, i, j);
                                const uint32_t e = i * C * 4 + j * ob;
                                uint32_t v = got[e] | (ob == 2 ? got[e + 1] << 8 : 0);
                                ASSERT_EQ(v, exact_ref::round_to(t, x, -60, relu, ovf)) << "C[" << i << "][" << j << "]";
                            }
                    }
        }
    }
    EXPECT_GT(checked, g.formats == 1 ? 10 : 100);
}

// bias: loaded once, added by every st before the one rounding (docs/isa.md
// `bias`, docs/numerics.md "Output pipeline"); a bias right after an st
// waits for that drain; RUN clears it. RTL vs model (bits, cycles,
// counters) and vs the exact reference with the bias in the exact sum.
TEST_P(RtlCore, BiasIsAddedBeforeTheRoundingAndMatchesModel)
{
    const uint32_t R = g.rows, C = g.cols;
    std::mt19937 rng(99 + GetParam());
    int checked = 0;
    for (unsigned in : {SPU_DTYPE_INT8, SPU_DTYPE_E4M3, SPU_DTYPE_E5M2}) {
        if (!(g.formats & (1u << in)) || g.formats == 1) continue;
        const uint32_t bb = in == SPU_DTYPE_INT8 ? 4 : 8;
        std::vector<unsigned> outs = {SPU_DTYPE_INT32, SPU_DTYPE_INT8};
        if (g.formats != 1) outs = {SPU_DTYPE_INT32, SPU_DTYPE_INT8, SPU_DTYPE_F32, SPU_DTYPE_BF16, SPU_DTYPE_E4M3};
        if (in != SPU_DTYPE_INT8) outs.erase(outs.begin(), outs.begin() + 2);
        for (unsigned out : outs)
            for (unsigned relu = 0; relu < 2; relu++) {
                SCOPED_TRACE(::testing::Message() << "in " << in << " out " << out << " relu " << relu);
                const uint32_t K = 9, BA = 3072, BA2 = 3072 + 512;
                std::vector<uint8_t> mem(4096 + 2 * R * C * 4, 0);
                for (uint32_t k = 0; k < K; k++) {
                    for (uint32_t i = 0; i < R; i++)
                        mem[k * WB + i] = in == SPU_DTYPE_INT8 ? (uint8_t)rng() : fp_code(rng, in, 1);
                    for (uint32_t j = 0; j < C; j++)
                        mem[2048 + k * WB + j] = in == SPU_DTYPE_INT8 ? (uint8_t)rng() : fp_code(rng, in, 1);
                }
                // two biases: random, magnitudes like the sums (int8: ~2^14;
                // floats: ~2^6 on the 2^-32 grid, some with low bits set)
                std::vector<int64_t> bias[2];
                for (int t = 0; t < 2; t++)
                    for (uint32_t j = 0; j < C; j++) {
                        int64_t v = in == SPU_DTYPE_INT8 ? (int64_t)(int32_t)(rng() % 65536) - 32768
                                                         : ((int64_t)(int32_t)rng() << 7) + (rng() % 3 ? 0 : (int64_t)(rng() & 0xFFF));
                        bias[t].push_back(v);
                        for (uint32_t b = 0; b < bb; b++)
                            mem[(t ? BA2 : BA) + j * bb + b] = (uint8_t)((uint64_t)v >> (8 * b));
                    }
                const uint32_t blk = R * C * 4;
                // block 0 with bias 0; block 1 (same sums) with bias 1 loaded right after the st
                std::vector<uint32_t> p = {CFGI(in, out, 4, 0, relu), LI(1, 0), LI(2, 2048), LI(3, (int32_t)K),
                                           LI(4, 4096), LI(5, BA), LI(6, BA2), BIAS(5), MM(1, 2, 3), ST(4),
                                           BIAS(6), MM(1, 2, 3), ADDI(4, 4, (int32_t)blk), ST(4), HALT()};
                differential(p, mem, {}, (uint32_t)mem.size(), 0, "bias");
                if (HasFatalFailure()) return;
                checked++;
                exact_ref::Target t;
                bool fl = true;
                switch (out) {
                case SPU_DTYPE_BF16: t = exact_ref::BF16; break;
                case SPU_DTYPE_E4M3: t = exact_ref::T_E4M3; break;
                case SPU_DTYPE_F32:  t = exact_ref::Target{8, 23, false}; break;
                default: fl = false; break;
                }
                const uint32_t ob = out == SPU_DTYPE_BF16 ? 2 : (out == SPU_DTYPE_E4M3 || out == SPU_DTYPE_INT8) ? 1 : 4;
                std::vector<uint8_t> got = core->spad_read(4096, 2 * blk);
                for (int tb = 0; tb < 2; tb++)
                    for (uint32_t i = 0; i < R; i++)
                        for (uint32_t j = 0; j < C; j++) {
                            exact_ref::ExactSum x = exact_elem(in, mem, WB, K, i, j);
                            // the bias: int32 units, or the 2^-32 grid (float in), to 2^-60
                            x.s += (exact_ref::i128)bias[tb][j] << (in == SPU_DTYPE_INT8 ? 60 : 28);
                            const uint32_t e = tb * blk + i * C * 4 + j * ob;
                            uint32_t v = 0;
                            for (uint32_t b = 0; b < ob; b++) v |= (uint32_t)got[e + b] << (8 * b);
                            uint32_t want;
                            if (fl) {
                                want = exact_ref::round_to(t, x, -60, relu, out == SPU_DTYPE_F32);
                            } else {
                                int32_t s32 = (int32_t)(uint32_t)(uint64_t)(x.s >> 60);
                                if (relu && s32 < 0) s32 = 0;
                                want = out == SPU_DTYPE_INT32 ? (uint32_t)s32 : (uint8_t)ref_requant(s32, 4, 0, false);
                            }
                            ASSERT_EQ(v, want) << "block " << tb << " C[" << i << "][" << j << "]";
                        }
            }
    }
    EXPECT_GE(checked, g.formats == 1 ? 0 : 14);
    if (g.formats == 1) {
        // int8-only builds have no bias registers (the UP5K has no room): FORMAT
        run_prog({LI(1, 0), BIAS(1), HALT()});
        expect_trap(SPU_TRAP_FORMAT, 1);
        return;
    }
    // traps before any effect: misaligned, out of range (int8: COLS*4 bytes)
    run_prog({LI(1, 1), BIAS(1), HALT()});
    expect_trap(SPU_TRAP_MISALIGNED, 1);
    run_prog({LI(1, (int32_t)(g.spad_bytes - g.cols * 4 + WB)), BIAS(1), HALT()});
    expect_trap(SPU_TRAP_SPAD_RANGE, 1);
    run_prog({LI(1, (int32_t)(g.spad_bytes - g.cols * 4)), BIAS(1), HALT()});
    EXPECT_EQ(core->state(), SPU_STATE_HALTED);
}

TEST_P(RtlCore, FloatAccumulatesAcrossMmAndZacc)
{
    // two mm into one block (one rounding at st), zacc, e5m2 after e4m3 on
    // the same accumulators, and int8 -> f32 (the exact integer sum rounded)
    if (g.formats == 1) GTEST_SKIP() << "int8-only build";
    std::mt19937 rng(9);
    std::vector<uint8_t> mem(8192, 0);
    for (uint32_t i = 0; i < 4096; i++) mem[i] = fp_code(rng, SPU_DTYPE_E4M3, 1);
    const uint32_t blk = g.rows * g.cols * 4;
    std::vector<uint32_t> p = {LI(1, 0), LI(2, 1024), LI(3, 40), LI(4, 4096), LI(5, 3000),
                               CFGI(SPU_DTYPE_E4M3, SPU_DTYPE_F32), MM(1, 2, 3), MM(2, 5, 3), ST(4),
                               MM(1, 2, 3), ZACC(), MM(5, 1, 3), CFGI(SPU_DTYPE_E5M2, SPU_DTYPE_F32),
                               MM(2, 1, 3), ADDI(4, 4, (int32_t)blk), ST(4),
                               CFGI(SPU_DTYPE_INT8, SPU_DTYPE_F32), MM(1, 2, 3), MM(1, 1, 3),
                               ADDI(4, 4, (int32_t)blk), ST(4),
                               CFGI(SPU_DTYPE_E4M3, SPU_DTYPE_INT32), MM(1, 2, 3),
                               ADDI(4, 4, (int32_t)blk), ST(4), HALT()};
    differential(p, mem, {}, (uint32_t)mem.size(), 0, "fp accumulate");
    if (HasFatalFailure()) return;
    // block 2 (int8 -> f32): the exact integer sum, rounded to nearest even
    std::vector<uint8_t> got = core->spad_read(4096 + 2 * blk, blk);
    for (uint32_t i = 0; i < g.rows; i++)
        for (uint32_t j = 0; j < g.cols; j++) {
            int64_t s = 0;
            for (uint32_t k = 0; k < 40; k++)
                s += (int64_t)(int8_t)mem[k * WB + i] * (int8_t)mem[1024 + k * WB + j] +
                     (int64_t)(int8_t)mem[k * WB + i] * (int8_t)mem[k * WB + j];
            float f = (float)s;
            uint32_t want, v;
            std::memcpy(&want, &f, 4);
            std::memcpy(&v, &got[(i * g.cols + j) * 4], 4);
            ASSERT_EQ(v, want) << i << "," << j;
        }
}

TEST_P(RtlCore, TrapRangeAndAlignment)
{
    const int32_t S = (int32_t)g.spad_bytes;
    // mm: A's last word outside
    run_prog({LI(1, S - (int32_t)WB), LI(2, 0), LI(3, 2), MM(1, 2, 3), HALT()});
    expect_trap(SPU_TRAP_SPAD_RANGE, 3);
    // mm: B outside, K = 1
    run_prog({LI(1, 0), LI(2, S), LI(3, 1), MM(1, 2, 3), HALT()});
    expect_trap(SPU_TRAP_SPAD_RANGE, 3);
    // mm: huge K with a non-zero stride (no 32-bit wrap)
    run_prog({LI(1, 0), LI(2, 0), LUI(3, 0x8000), MM(1, 2, 3), HALT()});
    expect_trap(SPU_TRAP_SPAD_RANGE, 3);
    // mm: misaligned address, misaligned stride
    run_prog({LI(1, 1), LI(2, 0), LI(3, 1), MM(1, 2, 3), HALT()});
    expect_trap(SPU_TRAP_MISALIGNED, 3);
    run_prog({LI(4, (int32_t)WB + 2), STRIDE(0, 4, 0), LI(3, 1), MM(0, 0, 3), HALT()});
    expect_trap(SPU_TRAP_MISALIGNED, 3);
    // mm with K = 0 is a no-op, even misaligned
    run_prog({LI(1, 1), MM(1, 1, 0), HALT()});
    EXPECT_EQ(core->state(), SPU_STATE_HALTED);
    // st: int32 rows past the end; misaligned; misaligned stride
    run_prog({LI(1, S - (int32_t)(g.cols * 4)), ST(1), HALT()});
    expect_trap(SPU_TRAP_SPAD_RANGE, 1);
    run_prog({LI(1, (int32_t)WB / 2), ST(1), HALT()});
    expect_trap(SPU_TRAP_MISALIGNED, 1);
    run_prog({LI(4, 3), STRIDE(0, 0, 4), ST(0), HALT()});
    expect_trap(SPU_TRAP_MISALIGNED, 2);
    // int8 rows fit where int32 rows would not
    run_prog({CFG(SPU_DTYPE_INT8, 0, 0, 0), LI(1, S - (int32_t)((g.rows - 1) * g.cols * 4 + WB)), ST(1), HALT()});
    EXPECT_EQ(core->state(), SPU_STATE_HALTED);
}

// mm's range check is decided in its first MM cycle (spu_sequencer header):
// a failing mm must still leave every counter, the pc and the registers as
// the model has them -- after good mms that streamed, inside a loop, with
// K = 1 (shortest stream) and with a same-bank (stalling) first step.
// mm checks each k-step as the stream reaches it (docs/isa.md): the steps
// before the first one outside the scratchpad run and are counted
// (mac_active, stall_bank, mm_cycles), the mm is not retired. The RTL keeps
// a sticky carry per address (spu_load_unit); these cases cross 2^AW at
// different steps, with and without bank conflicts, from bases and strides
// far beyond the scratchpad, and must trap exactly where the model does.
TEST_P(RtlCore, MmRangeTrapAtTheFirstStepOutside)
{
    const int32_t S = (int32_t)g.spad_bytes;
    const int32_t W = (int32_t)WB;
    const int32_t BANK = (int32_t)(g.spad_bytes / g.banks);
    std::vector<uint8_t> mem(4096);
    for (size_t i = 0; i < mem.size(); i++) mem[i] = (uint8_t)(i * 5 + 1);
    struct Case { const char *what; std::vector<uint32_t> p; };
    const std::vector<Case> cases = {
        {"A crosses at step 5", {LI(1, S - 5 * W), LI(2, 0), LI(3, 9), MM(1, 2, 3), HALT()}},
        {"B crosses at step 3, same bank as A first",
         {LI(1, S - BANK), LI(2, S - 3 * W), LI(3, 7), MM(1, 2, 3), HALT()}},
        {"A and B cross together at step 2",
         {LI(5, W * 4), STRIDE(5, 5, 0), LI(1, S - 8 * W), LI(2, S - 8 * W), LI(3, 4), MM(1, 2, 3), HALT()}},
        {"stride of 2^AW: step 1", {LI(5, S), STRIDE(5, 0, 0), LI(1, 0), LI(2, 0), LI(3, 3), MM(1, 2, 3), HALT()}},
        {"stride of 2^31: step 1", {LUI(5, 0x8000), STRIDE(0, 5, 0), LI(3, 2), MM(0, 0, 3), HALT()}},
        {"base near 2^32: step 0", {LI(1, -W), LI(3, 1), MM(1, 0, 3), HALT()}},
        {"K huge, crosses after 64 steps",
         {LI(1, S - 64 * W), LI(3, -1), MM(1, 0, 3), HALT()}},
        {"crossing after a complete mm, in a loop",
         {LI(1, S - 6 * W), LI(2, 0), LI(3, 4), LI(4, 3), LOOP(4, 8), MM(1, 2, 3), ADDI(1, 1, 2 * W), NOP(),
          HALT()}},
    };
    for (const Case &c : cases) {
        differential(c.p, mem, {}, 2048, 0, c.what);
        EXPECT_EQ(core->state(), SPU_STATE_TRAPPED) << c.what;
        EXPECT_EQ(core->trap(), SPU_TRAP_SPAD_RANGE) << c.what;
    }
}

TEST_P(RtlCore, MmRangeTrapCasesMatchModel)
{
    const int32_t S = (int32_t)g.spad_bytes;
    const int32_t W = (int32_t)WB;
    std::vector<uint8_t> mem(4096);
    for (size_t i = 0; i < mem.size(); i++) mem[i] = (uint8_t)(i * 7 + 3);
    struct Case { const char *what; std::vector<uint32_t> p; };
    const std::vector<Case> cases = {
        {"K=1, A out", {LI(1, S), LI(2, 0), LI(3, 1), MM(1, 2, 3), HALT()}},
        {"after good mms, in a loop", {LI(1, 0), LI(2, 64 * W), LI(3, 5), LI(4, 3), LOOP(4, 8),
                                       MM(1, 2, 3), SHLI(3, 3, 8), NOP(), HALT()}},
        {"same bank, B out", {LI(1, 0), LI(2, S - W), LI(3, 2), MM(1, 2, 3), HALT()}},
        {"stride makes it out", {LI(5, S / 2), STRIDE(5, 0, 0), LI(3, 3), LI(1, 0), MM(1, 1, 3), HALT()}},
        {"after a st drain", {LI(3, 4), MM(0, 0, 3), LI(1, 1024), ST(1), LI(2, S), MM(0, 2, 3), HALT()}},
    };
    for (const Case &c : cases) {
        differential(c.p, mem, {}, 2048, 0, c.what);
        EXPECT_EQ(core->state(), SPU_STATE_TRAPPED) << c.what;
        EXPECT_EQ(core->trap(), SPU_TRAP_SPAD_RANGE) << c.what;
    }
}

// st's range check compares the base with a room precomputed from strideC and
// cfg `out` (spu_sequencer): around the exact boundary, for both out types,
// several strides (incl. one of 2^32 - WB), right after the stride / cfg that
// changes the room, the RTL must trap exactly where the model does.
TEST_P(RtlCore, StRangeBoundaryMatchesModel)
{
    const int64_t S = g.spad_bytes, W = WB, R = g.rows, C = g.cols;
    std::vector<uint8_t> mem(64);
    int traps = 0, halts = 0;
    for (unsigned out : {SPU_DTYPE_INT8, SPU_DTYPE_INT32}) {
        const int64_t span = out == SPU_DTYPE_INT32 ? 4 * C : C;
        for (int64_t stride : {C * 4, 8 * W, S / 4, S / 2 + W}) {
            const int64_t last_ok = S - (R - 1) * stride - span;   // may be negative
            for (int64_t d : {-2 * W, -W, (int64_t)0, W, 2 * W}) {
                const int64_t base = ((last_ok + d) / W) * W;
                if (base < 0 || base > 0x1FFFFF) continue;
                std::vector<uint32_t> p = {LI(1, (int32_t)base), LI(2, (int32_t)stride),
                                           STRIDE(0, 0, 2), CFG(out, 0, 0, 0), ST(1), HALT()};
                differential(p, mem, {}, 0, 0, "st boundary");
                (core->state() == SPU_STATE_TRAPPED ? traps : halts)++;
            }
        }
        // a huge strideC (2^32 - WB): out of range for any base when ROWS > 1
        std::vector<uint32_t> p = {LI(2, -(int32_t)W), STRIDE(0, 0, 2), CFG(out, 0, 0, 0), ST(0), HALT()};
        differential(p, mem, {}, 0, 0, "st huge stride");
    }
    EXPECT_GT(traps, 0);
    EXPECT_GT(halts, 0);
}

// The loop stack's dec / pop lands one cycle after the EXEC that decides it
// and the next FETCH looks past it (spu_sequencer): nested loops that end on
// the same instruction, one-instruction bodies, counts 1 and 2, a loop ending
// on an mm or a mul, and pops on consecutive instructions, against the model.
TEST_P(RtlCore, LoopShapesMatchModel)
{
    std::vector<uint8_t> mem(256);
    for (size_t i = 0; i < mem.size(); i++) mem[i] = (uint8_t)(i * 13 + 1);
    const std::vector<std::vector<uint32_t>> progs = {
        // nested, same end (pc 5): inner 3, outer 2
        {LI(1, 2), LI(2, 3), LOOP(1, 6), LOOP(2, 6), ADDI(3, 3, 1), ADDI(4, 4, 7), HALT()},
        // one-instruction bodies, count 1 and 2, back to back
        {LI(1, 1), LI(2, 2), LOOP(1, 4), ADDI(3, 3, 1), LOOP(2, 6), ADDI(3, 3, 10), LOOP(1, 8), ADDI(3, 3, 100), HALT()},
        // three levels, inner ends one before the outer ones (pops on consecutive instructions)
        {LI(1, 2), LI(2, 2), LI(5, 3), LOOP(1, 9), LOOP(2, 9), LOOP(5, 8), ADDI(3, 3, 1), ADDI(4, 4, 1), ADDI(6, 6, 1), HALT()},
        // a loop ending on an mm, and one ending on a mul
        {LI(1, 3), LI(7, 2), LOOP(1, 5), ADDI(3, 3, 1), MM(0, 0, 7), LI(8, 3), LI(9, 5), LOOP(8, 9), MUL(9, 9, 8), HALT()},
        // branch taken on the last instruction of a body (no back edge), then the loop again
        {LI(1, 3), LI(2, 0), LOOP(1, 6), ADDI(2, 2, 1), NOP(), BNE(0, 0, 7), LI(3, 1), HALT()},
    };
    for (size_t i = 0; i < progs.size(); i++) {
        differential(progs[i], mem, {}, 0, 0, "loop shape");
        EXPECT_EQ(core->state(), SPU_STATE_HALTED) << "program " << i;
    }
}

// The next pc is the microcode read address: taken (branch / jmp / loop skip)
// ? target : fall_q, with fall_q prepared in FETCH -- pc + 1 with the back
// edge, or just pc + 1 after a `loop` (spu_sequencer). Control transfers as the
// last instruction of a loop body, against the model.
TEST_P(RtlCore, NextPcShapesMatchModel)
{
    std::vector<uint8_t> mem(64);
    const std::vector<std::vector<uint32_t>> progs = {
        // blt at the end of a body: taken once (out of the loop, back in by jmp), then not (back edge)
        {LI(1, 4), LI(2, 0), LI(3, 2), LOOP(1, 6), ADDI(2, 2, 1), BLT(2, 3, 7), HALT(), ADDI(4, 4, 1), JMP(4)},
        // bne taken at the end of a body (never the back edge), blt back into the body
        {LI(1, 3), LOOP(1, 4), ADDI(2, 2, 1), BNE(2, 0, 5), HALT(), ADDI(3, 3, 1), BLT(3, 1, 2), HALT()},
        // a counted loop as the last instruction of an outer body (no back edge
        // on the outer), then a loop with count 0 (skip)
        {LI(1, 2), LI(2, 2), LI(5, 0), LOOP(1, 6), ADDI(3, 3, 1), LOOP(2, 8), ADDI(4, 4, 1), ADDI(6, 6, 1),
         LOOP(5, 10), ADDI(7, 7, 1), HALT()},
        // a skipping loop (count 0) as the last instruction of a body
        {LI(1, 3), LOOP(1, 4), ADDI(3, 3, 1), LOOP(0, 5), HALT(), ADDI(4, 4, 1), BLT(4, 1, 2), HALT()},
        // a taken branch to the loop end (no back edge, no pop), then the end reached sequentially
        {LI(1, 3), LOOP(1, 4), BNE(1, 0, 4), ADDI(3, 3, 1), ADDI(4, 4, 1), LOOP(1, 8), ADDI(5, 5, 1), ADDI(6, 6, 1),
         HALT()},
        // a jmp at the end of a body right after an inner loop's pop
        {LI(1, 2), LI(2, 3), LOOP(1, 7), LOOP(2, 5), ADDI(3, 3, 1), ADDI(4, 4, 1), JMP(8), HALT(), ADDI(5, 5, 1),
         BLT(5, 1, 3), HALT()},
    };
    for (size_t i = 0; i < progs.size(); i++) {
        differential(progs[i], mem, {}, 0, 2000, ("next-pc shape " + std::to_string(i)).c_str());
        EXPECT_EQ(core->state(), SPU_STATE_HALTED) << "program " << i;
    }
}

TEST_P(RtlCore, TrapPcRangeLoopStackWatchdog)
{
    run_prog({JMP((int32_t)g.ucode_words)});
    expect_trap(SPU_TRAP_PC_RANGE, g.ucode_words);
    core->load_ucode({NOP()}, g.ucode_words - 1);   // run off the end
    core->run(g.ucode_words - 1);
    expect_trap(SPU_TRAP_PC_RANGE, g.ucode_words);
    core->run(g.ucode_words + 5);
    expect_trap(SPU_TRAP_PC_RANGE, g.ucode_words + 5);
    // five nested loops
    run_prog({LI(1, 2), LOOP(1, 12), LOOP(1, 11), LOOP(1, 10), LOOP(1, 9), LOOP(1, 8), NOP(), NOP(),
              NOP(), NOP(), NOP(), NOP(), HALT()});
    expect_trap(SPU_TRAP_LOOP_STACK, 5);
    // watchdog: an endless loop with a 100-cycle budget stops before the
    // instruction starting at cycle 100 (the model's count; docs/isa.md lets
    // the RTL add the trap's own EXEC cycle(s), at most 2: it raises FETCH's
    // traps one cycle later, from an EXEC that does nothing)
    run_prog({NOP(), JMP(0)}, {}, 0, 100);
    EXPECT_GE(core->counter(SPU_CNT_CYCLES), 100u);
    EXPECT_LE(core->counter(SPU_CNT_CYCLES), issue(100, SPU_CNT_CYCLES) + 2);
    EXPECT_EQ(core->counter(SPU_CNT_INSTRET), issue(50, SPU_CNT_INSTRET));   // 25 nop + 25 jmp, the 51st not retired
    // (overlapped issue: nop at 3k, jmp at 3k + 1: the jmp at 100 stops)
    expect_trap(SPU_TRAP_WATCHDOG, g.overlap ? 1 : 0);
}

// Every way a pc leaves the microcode store through a target: jmp, a taken
// bne / blt and a loop with a zero count (skip) trap PC_RANGE at the target;
// the same branches not taken go on to the fall-through. The sequencer keeps
// the verdict as two registered candidates and a branch-decision flip-flop
// (spu_sequencer g_pc_bad_ff): a wrong decision either way shows here.
TEST_P(RtlCore, TrapPcRangeThroughEveryTakenTarget)
{
    const int32_t out = (int32_t)g.ucode_words + 3;
    struct Case { std::vector<uint32_t> prog; bool taken; };
    const std::vector<Case> cases = {
        {{LI(1, 1), LI(2, 2), BLT(1, 2, out), HALT()}, true},
        {{LI(1, 2), LI(2, 1), BLT(1, 2, out), HALT()}, false},
        {{LI(1, 1), LI(2, 2), BNE(1, 2, out), HALT()}, true},
        {{LI(1, 2), LI(2, 2), BNE(1, 2, out), HALT()}, false},
        {{LI(1, 0), LOOP(1, out), HALT()}, true},
        {{LI(1, -1), LI(2, 0), BLT(1, 2, out), HALT()}, true},     // signed compare
        {{LI(1, 0), LI(2, -1), BLT(1, 2, out), HALT()}, false},
    };
    for (size_t i = 0; i < cases.size(); i++) {
        run_prog(cases[i].prog);
        if (cases[i].taken) {
            expect_trap(SPU_TRAP_PC_RANGE, (uint32_t)out);
        } else {
            EXPECT_EQ(core->state(), SPU_STATE_HALTED) << "case " << i;
        }
        differential(cases[i].prog, {}, {}, 0, 200, ("pc-range case " + std::to_string(i)).c_str());
    }
}

// The decoder against the model's (spu_isa_decode, cfg's value checks, the
// counter ids, the vector opcodes of builds without the unit): random words,
// one bit set in every opcode's body, then every opcode four times and
// more at random, with bodies from dense to sparse (so that
// both reserved-bit traps and well-formed instructions occur), each run as
// the first word of a store otherwise full of halt and compared whole
// (state, trap, pc, registers, counters). spu_decoder's checks are parallel
// terms (timing, docs/fpga.md); any term lost or widened shows here.
TEST_P(RtlCore, RandomWordsDecodeAsTheModel)
{
    std::mt19937 rng(20261203);
    std::vector<uint32_t> prog(g.ucode_words, HALT());
    int n_illegal = 0, n_format = 0, n_ran = 0;
    // first every opcode up to the last defined one with one body bit set
    // (each reserved bit and each value check's lowest bit), then random
    const int n_single = (SPU_OP_VDIV + 1) * 26;
    for (int i = 0; i < n_single + 768; i++) {
        if (i < n_single) {
            prog[0] = (uint32_t)(i / 26) << 26 | 1u << (i % 26);
        } else {
            const int j = i - n_single;
            const uint32_t op = j < 256 ? (uint32_t)(j % 64) : (uint32_t)(rng() % 64);
            uint32_t body = rng() & 0x3FFFFFFu;
            for (int k = 0; k < (j % 4) * 2; k++) body &= rng();   // 1, 1/4, 1/16, 1/64 per bit
            prog[0] = op << 26 | body;
        }
        char what[64];
        std::snprintf(what, sizeof what, "word 0x%08x", prog[0]);
        differential(prog, {}, {}, 0, 400, what);
        if (HasFatalFailure()) return;
        if (core->state() == SPU_STATE_TRAPPED && core->pc() == 0 && core->trap() == SPU_TRAP_ILLEGAL)
            n_illegal++;
        else if (core->state() == SPU_STATE_TRAPPED && core->pc() == 0 && core->trap() == SPU_TRAP_FORMAT)
            n_format++;
        else
            n_ran++;
    }
    std::printf("[ decode   ] %d illegal, %d format, %d ran\n", n_illegal, n_format, n_ran);
    EXPECT_GT(n_illegal, 200);
    EXPECT_GT(n_ran, 100);
    if (g.formats == 1) EXPECT_GT(n_format, 0);   // cfg of a float in, bias
}

// ---- mm + st ---------------------------------------------------------------
struct Gemm {
    std::vector<int8_t> a, b;   // a[i*K+k], b[k*C+j]
    std::vector<int32_t> c;
};

TEST_P(RtlCore, GemmAgainstTripleLoop)
{
    std::mt19937 rng(42 + GetParam());
    const uint32_t R = g.rows, C = g.cols;
    for (uint32_t K : {1u, 2u, 7u, 64u, 1000u}) {
        SCOPED_TRACE(K);
        // A panel k-major at 0, B panel behind it, C after both (int32)
        uint32_t a_addr = 0, b_addr = K * WB, c_addr = 2 * K * WB;
        ASSERT_LE(c_addr + R * C * 4, g.spad_bytes);
        std::vector<uint8_t> mem(c_addr, 0);
        Gemm t;
        t.a.resize(R * K); t.b.resize(K * C); t.c.assign(R * C, 0);
        for (auto &v : t.a) v = (int8_t)(rng() & 0xFF);
        for (auto &v : t.b) v = (int8_t)(rng() & 0xFF);
        if (K == 1000) { std::fill(t.a.begin(), t.a.end(), -128); std::fill(t.b.begin(), t.b.begin() + C, -128); }
        for (uint32_t k = 0; k < K; k++) {
            for (uint32_t i = 0; i < R; i++) mem[a_addr + k * WB + i] = (uint8_t)t.a[i * K + k];
            for (uint32_t j = 0; j < C; j++) mem[b_addr + k * WB + j] = (uint8_t)t.b[k * C + j];
        }
        for (uint32_t i = 0; i < R; i++)
            for (uint32_t j = 0; j < C; j++) {
                int64_t s = 0;
                for (uint32_t k = 0; k < K; k++) s += t.a[i * K + k] * t.b[k * C + j];
                t.c[i * C + j] = (int32_t)s;
            }
        core->spad_write(0, mem);
        run_prog({LI(1, (int32_t)a_addr), LI(2, (int32_t)b_addr), LI(3, (int32_t)K), LI(4, (int32_t)c_addr),
                  MM(1, 2, 3), ST(4), HALT()});
        ASSERT_EQ(core->state(), SPU_STATE_HALTED);
        std::vector<uint8_t> out = core->spad_read(c_addr, R * C * 4);
        for (uint32_t e = 0; e < R * C; e++) {
            int32_t v;
            std::memcpy(&v, &out[e * 4], 4);
            ASSERT_EQ(v, t.c[e]) << "element " << e;
        }
        // timing: docs/isa.md "Tensor unit": mm (FETCH 8) taken at 9, launches
        // at 10, last step at 10 + stream; st (FETCH 10) taken at 11, launches
        // after the stream; its wave reaches the last tile Z later, the
        // drain writes d words after that; halt (FETCH 12) waits for the wave
        // (the tensor unit idle at G + 1), not for the drain's writes
        uint64_t conflicts = 0;
        for (uint32_t k = 0; k < K; k++) conflicts += (a_addr + k * WB) / BANK == (b_addr + k * WB) / BANK;
        const uint64_t stream = K + conflicts, d = drain_cycles(SPU_DTYPE_INT32);
        const uint64_t L_st = 10 + stream + 1, G = L_st + Z();
        const uint64_t ready = G + 1, wait = ready > 13 ? ready - 13 : 0;
        EXPECT_EQ(core->counter(SPU_CNT_CYCLES), issue(12 + 2 + wait, SPU_CNT_CYCLES));
        EXPECT_EQ(core->counter(SPU_CNT_MM_CYCLES), stream);
        EXPECT_EQ(core->counter(SPU_CNT_STALL_BANK), conflicts);
        EXPECT_EQ(core->counter(SPU_CNT_MAC_ACTIVE), K);
        EXPECT_EQ(core->counter(SPU_CNT_STALL_DRAIN), issue(wait, SPU_CNT_STALL_DRAIN));
        EXPECT_EQ(core->counter(SPU_CNT_DRAIN_BUSY), d);
        EXPECT_GE(core->counter(SPU_CNT_MAC_ACTIVE) * R * C, (uint64_t)K * R * C);
    }
}

TEST_P(RtlCore, BankConflictCostsOneCyclePerStep)
{
    const uint32_t K = 50;
    uint64_t cyc[2], stall[2];
    for (int same = 0; same < 2; same++) {
        uint32_t b_addr = same ? BANK / 2 : BANK;   // bank 0 / bank 1
        run_prog({LI(1, 0), LI(2, (int32_t)b_addr), LI(3, (int32_t)K), MM(1, 2, 3), HALT()});
        ASSERT_EQ(core->state(), SPU_STATE_HALTED);
        cyc[same] = core->counter(SPU_CNT_CYCLES);
        stall[same] = core->counter(SPU_CNT_STALL_BANK);
        EXPECT_EQ(core->counter(SPU_CNT_MM_CYCLES), same ? 2 * K : S(K));
    }
    EXPECT_EQ(stall[0], 0u);
    EXPECT_EQ(stall[1], K);
    EXPECT_EQ(cyc[1] - cyc[0], 2 * K - S(K));
    // mm (FETCH 6) launches at 8, its last step reads at 8 + S(K) (K without
    // pairs); halt (FETCH 8) waits until the last product has landed: idle =
    // 8 + S(K) + Z + 1
    // (overlapped issue: li r1 and li r2 overlap, li r3 not (mm names r3), mm
    // overlaps halt: mm FETCH 4, launch 6)
    EXPECT_EQ(cyc[0], (g.overlap ? 6 : 8) + S(K) + Z() + 2);
}

// ---- tensor unit: queue, back-to-back streams, token wave (docs/isa.md) ----
// Memory for these tests: A panels at 0, B panels at BANK (another bank),
// C blocks at 1024; every byte the programs read is initialised (RTL and model).
static std::vector<uint8_t> tu_mem(uint32_t bank, uint32_t seed)
{
    std::vector<uint8_t> mem(bank + 4096);   // B panels of up to 4 KiB (<= SPAD_BYTES)
    std::mt19937 rng(seed);
    for (auto &v : mem) v = (uint8_t)rng();
    return mem;
}

// The GEMM inner loop `mm; st; add; add` over N blocks: the streams run back
// to back (launch + K per mm, one slot per st), the scalar loop hides behind
// them, the skew is paid once, at the end. The old design
// (every mm waiting for its skew, halt for the drain) took
// N * (K + R + C + 8) + ...; this is 17 + (N-1)(K+2) + K + Z + 2 (the
// last drain writes after the halt).
TEST_P(RtlCore, GemmLoopStreamsBlocksBackToBack)
{
    const uint32_t K = 100, N = 4, R = g.rows, C = g.cols, Zs = Z();
    const uint64_t D = drain_cycles(SPU_DTYPE_INT32);
    ASSERT_GE(K + 2, R + C + D - 1);          // the drain keeps up: steady state
    if (g.chain) ASSERT_GE(K, R + C + D);     // ... with chained streams (a block every K cycles)
    auto mem = tu_mem(BANK, 7);
    const std::vector<uint32_t> p = {
        LI(1, 0), LI(2, (int32_t)BANK), LI(3, (int32_t)K), LI(4, 1024), LI(5, (int32_t)N),
        LI(6, (int32_t)(R * C * 4)),
        LOOP(5, 11),                            // 6
        MM(1, 2, 3), ST(4), ADD(4, 4, 6), ADDI(9, 9, 1),
        HALT(),                                 // 11
    };
    differential(p, mem, {}, 1024 + N * R * C * 4, 0, "gemm loop");
    ASSERT_EQ(core->state(), SPU_STATE_HALTED);
    if (g.spram)   // single-port banks: the next mm launches at the drain's end,
                   // G + D + 2 = (L + K + 1) + Z + D + 2 (docs/isa.md)
        EXPECT_EQ(core->counter(SPU_CNT_CYCLES), issue(17 + (N - 1) * (S(K) + Zs + D + 3) + S(K) + Zs + 2, SPU_CNT_CYCLES));
    else if (g.chain)   // a block every K cycles: each st's token travels with
                        // the next mm's first step (docs/isa.md "Chained streams")
        EXPECT_EQ(core->counter(SPU_CNT_CYCLES), issue(17 + (N - 1) * K + K + Zs + 2, SPU_CNT_CYCLES));
    else   // the last st's wave, then halt (its drain writes after the halt)
        EXPECT_EQ(core->counter(SPU_CNT_CYCLES), issue(17 + (N - 1) * (K + 2) + K + Zs + 2, SPU_CNT_CYCLES));
    EXPECT_EQ(core->counter(SPU_CNT_MAC_ACTIVE), N * K);
    EXPECT_EQ(core->counter(SPU_CNT_MM_CYCLES), N * S(K));
    EXPECT_EQ(core->counter(SPU_CNT_INSTRET), 7 + 4 * N + 1);
    // every block accumulated its own K steps (the swap between blocks lost
    // nothing and let nothing through): block b = A x B with the same panels
    for (uint32_t i = 0; i < R; i++)
        for (uint32_t j = 0; j < C; j++) {
            int32_t ref = 0;
            for (uint32_t k = 0; k < K; k++)
                ref += (int8_t)mem[k * WB + i] * (int8_t)mem[BANK + k * WB + j];
            std::vector<uint8_t> out = core->spad_read(1024 + (N - 1) * R * C * 4 + (i * C + j) * 4, 4);
            int32_t got;
            std::memcpy(&got, out.data(), 4);
            ASSERT_EQ(got, ref) << i << "," << j;
        }
}

// mm; mm accumulates into one block (the second mm queues behind the first
// and streams right after it); with zacc between, only the second counts.
TEST_P(RtlCore, BackToBackMmWithAndWithoutSt)
{
    const uint32_t K1 = 9, K2 = 13, R = g.rows, C = g.cols;
    auto mem = tu_mem(BANK, 11);
    for (int z = 0; z < 2; z++) {
        std::vector<uint32_t> p = {LI(1, 0), LI(2, (int32_t)BANK), LI(3, (int32_t)K1), LI(4, (int32_t)K2),
                                   MM(1, 2, 3)};
        if (z) p.push_back(ZACC());
        p.insert(p.end(), {MM(1, 2, 4), LI(5, 1024), ST(5), HALT()});
        differential(p, mem, {}, 1024 + R * C * 4, 0, z ? "mm zacc mm st" : "mm mm st");
        ASSERT_EQ(core->state(), SPU_STATE_HALTED);
        for (uint32_t i = 0; i < R; i++)
            for (uint32_t j = 0; j < C; j++) {
                int32_t ref = 0;
                for (uint32_t k = z ? 0 : 0; k < K2; k++)
                    ref += (int8_t)mem[k * WB + i] * (int8_t)mem[BANK + k * WB + j];
                if (!z)
                    for (uint32_t k = 0; k < K1; k++)
                        ref += (int8_t)mem[k * WB + i] * (int8_t)mem[BANK + k * WB + j];
                std::vector<uint8_t> out = core->spad_read(1024 + (i * C + j) * 4, 4);
                int32_t got;
                std::memcpy(&got, out.data(), 4);
                ASSERT_EQ(got, ref) << (z ? "zacc " : "") << i << "," << j;
            }
        if (!z) {
            // mm1 (FETCH 8) launches at 10, streams 11..10+K1; mm2 (FETCH 10)
            // is taken at 11 and launches at 11+K1; li (FETCH 12, EXEC 13)
            // overlaps; st (FETCH 14) waits for mm2's launch, launches at
            // 12+K1+K2; halt waits for the wave (Z) and ends a cycle later,
            // the drain (D) writing after it. Chained streams: mm2 launches
            // with mm1's last step (10+K1), the st's token goes alone (no mm
            // behind it) at 11+K1+K2: a cycle less
            EXPECT_EQ(core->counter(SPU_CNT_CYCLES), issue(12 + S(K1) + S(K2) + Z() + 2 - (g.chain ? 1 : 0), SPU_CNT_CYCLES));
        }
    }
}

// k-step pairs (docs/isa.md "k-step pairs"; the iCEBreaker's ARRAY_2X build,
// g4x4_spram): an mm pairs steps s and s+1 in one cycle when both strides are
// one word, A and B are on even words in different banks and two steps are
// left. Each case: an mm from A and B starts on even and odd words, with K
// odd and even, a stride that forbids pairs, a same-bank stream, streams
// that cross into the other bank midway and one that leaves the scratchpad
// inside a paired run; then an st (its wave 3 cycles behind a pair's second
// step), a zacc right behind it and a second mm. RTL against the model
// (words, registers, every counter, the trap) and the block against an exact
// reference; on every geometry (no pairs there: the same programs, their
// plain cost).
TEST_P(RtlCore, PairedStreamsMatchModelAndExactReference)
{
    const uint32_t R = g.rows, C = g.cols, W = WB;
    auto mem = tu_mem(BANK, 29);
    std::vector<uint8_t> top(4096);
    std::mt19937 rng(31);
    for (auto &v : top) v = (uint8_t)rng();
    const uint32_t top_addr = g.spad_bytes - (uint32_t)top.size();
    struct Case { const char *what; uint32_t a, b, k, sa, sb; bool trap; };
    const std::vector<Case> cases = {
        {"even words, K 8", 0, BANK, 8, W, W, false},
        {"even words, K 7", 2 * W, BANK + 4 * W, 7, W, W, false},
        {"K 1", 0, BANK, 1, W, W, false},
        {"K 2", 0, BANK, 2, W, W, false},
        {"odd words", W, BANK + 3 * W, 9, W, W, false},
        {"unlike parity", W, BANK, 8, W, W, false},
        {"A stride 2 words", 0, BANK, 6, 2 * W, W, false},
        {"same bank", 0, 64 * W, 6, W, W, false},
        {"A crosses into B's bank", BANK - 6 * W, BANK + 40 * W, 11, W, W, false},
        {"B crosses into A's bank", BANK + 40 * W, BANK - 5 * W, 10, W, W, false},
        {"B first, A in bank 1", BANK + 8 * W, 16 * W, 12, W, W, false},
        {"leaves the scratchpad", top_addr + (uint32_t)top.size() - 6 * W, BANK, 10, W, W, true},
    };
    for (const Case &c : cases) {
        const std::vector<uint32_t> p = {
            LI(1, (int32_t)c.a), LI(2, (int32_t)c.b), LI(3, (int32_t)c.k), LI(4, 1024),
            LI(5, (int32_t)c.sa), LI(6, (int32_t)c.sb), LI(7, (int32_t)(C * 4)), STRIDE(5, 6, 7),
            MM(1, 2, 3), ST(4), ZACC(), LI(8, 3), MM(1, 2, 8), LI(9, 2048), ST(9), HALT(),
        };
        // (the panels cover the whole 8 KiB scratchpad of g4x4: no top part)
        const bool hi = top_addr >= mem.size();
        differential(p, mem, {}, 2048 + R * C * 4, 0, c.what, hi ? &top : nullptr, top_addr);
        if (c.trap) {
            ASSERT_EQ(core->state(), SPU_STATE_TRAPPED) << c.what;
            ASSERT_EQ(core->trap(), SPU_TRAP_SPAD_RANGE) << c.what;
            continue;
        }
        ASSERT_EQ(core->state(), SPU_STATE_HALTED) << c.what;
        auto byte = [&](uint32_t addr) {
            return addr < mem.size() ? mem[addr] : top[addr - top_addr];
        };
        for (int blk = 0; blk < 2; blk++)
            for (uint32_t i = 0; i < R; i++)
                for (uint32_t j = 0; j < C; j++) {
                    int32_t ref = 0;
                    for (uint32_t k = 0; k < (blk ? 3u : c.k); k++)
                        ref += (int8_t)byte(c.a + k * c.sa + i) * (int8_t)byte(c.b + k * c.sb + j);
                    int32_t got;
                    std::memcpy(&got, core->spad_read((blk ? 2048 : 1024) + (i * C + j) * 4, 4).data(), 4);
                    ASSERT_EQ(got, ref) << c.what << ": block " << blk << " " << i << "," << j;
                }
        // the first stream's cycles, by the rule (the counters above are the
        // model's; this pins the rule itself on the pair build)
        if (c.sa == W && c.sb == W && g.pair) {
            uint64_t conf = 0;
            const uint64_t cyc = stream(c.a, c.b, c.k, &conf) + stream(c.a, c.b, 3);
            EXPECT_EQ(core->counter(SPU_CNT_MM_CYCLES), cyc) << c.what;
            EXPECT_EQ(core->counter(SPU_CNT_MAC_ACTIVE), c.k + 3u) << c.what;
        }
    }
}

// zacc around a drain: before the st it clears the block the st then writes
// (zeros); after the st, at every distance across the drain, it must leave
// the st's words alone and the next block must start from zero. On the
// iCEBreaker's shape (g4x4_spram) the drain reads the tiles in place and
// spu_core holds back a zacc wave that meets it (docs/rtl.md "The drain
// reads the tiles in place"); elsewhere the shadow buffer has the words.
// RTL against the model (words, registers, counters) and an exact reference.
TEST_P(RtlCore, ZaccAroundADrainClearsOnlyTheNextBlock)
{
    const uint32_t K1 = 7, K2 = 11, R = g.rows, C = g.cols;
    const int D = (int)drain_cycles(0);
    auto mem = tu_mem(BANK, 23);
    auto ref = [&](uint32_t K, uint32_t i, uint32_t j) {
        int32_t v = 0;
        for (uint32_t k = 0; k < K; k++) v += (int8_t)mem[k * WB + i] * (int8_t)mem[BANK + k * WB + j];
        return v;
    };
    // the zacc before the st, then after it: near the capture, mid-drain,
    // and around the drain's last writes (D: the drain's length)
    std::vector<int> gaps = {-1, 0, 1, 2, 3, D / 2};
    for (int gap = D - 3; gap <= D + 3; gap++)
        if (gap > 3 && gap != D / 2) gaps.push_back(gap);
    for (int gap : gaps) {
        std::vector<uint32_t> p = {LI(1, 0), LI(2, (int32_t)BANK), LI(3, (int32_t)K1), LI(4, (int32_t)K2),
                                   LI(5, 1024), LI(6, 2048), MM(1, 2, 3)};
        if (gap < 0) p.push_back(ZACC());
        p.push_back(ST(5));
        for (int n = 0; n < gap; n++) p.push_back(NOP());
        if (gap >= 0) p.push_back(ZACC());
        p.insert(p.end(), {MM(1, 2, 4), ST(6), HALT()});
        std::string what = "zacc " + std::string(gap < 0 ? "before the st" : std::to_string(gap) + " nops after the st");
        differential(p, mem, {}, 2048 + R * C * 4, 0, what.c_str());
        ASSERT_EQ(core->state(), SPU_STATE_HALTED) << what;
        for (uint32_t i = 0; i < R; i++)
            for (uint32_t j = 0; j < C; j++) {
                int32_t w1, w2;
                std::memcpy(&w1, core->spad_read(1024 + (i * C + j) * 4, 4).data(), 4);
                std::memcpy(&w2, core->spad_read(2048 + (i * C + j) * 4, 4).data(), 4);
                ASSERT_EQ(w1, gap < 0 ? 0 : ref(K1, i, j)) << what << ": first block " << i << "," << j;
                ASSERT_EQ(w2, ref(K2, i, j)) << what << ": second block " << i << "," << j;
            }
    }
}

// Chained streams (docs/isa.md "Chained streams"): an st's token travels
// with the next mm's first step when that mm is queued before the token
// would go alone, so two blocks take 2K cycles, not 2K + 2; an instruction
// that waits for the tensor unit in between (sync) sends the token alone,
// and then the timing is the one-entry queue's. K = 100 >= R + C + D: the
// drain never holds a token back.
//   no sync: mm1 launches 10, last step 10+K; chained: the st's token and mm2
//   launch at 10+K, mm2's last step 10+2K, st2 alone at 11+2K, halt after
//   its wave: 13 + 2K + R + C (one-entry queue: st1 11+K, mm2 12+K, st2
//   13+2K: 15 + 2K + R + C).
//   sync: st1 alone at 11+K, G1 = 11+K+R+C; sync ends at G1 + D - 1 (with
//   chained streams max(G1 + 1, G1 - R + D): the drain starts at G1 - R + 1);
//   mm2 launches 3 later; st2 after its last step: 16 + 2K + 2(R + C) + D
//   (chained: 19 + 2K + 2(R + C) + max(1, D - R)).
TEST_P(RtlCore, TokenTravelsWithTheNextMmUnlessSomethingWaitsBetween)
{
    const uint32_t K = 100, R = g.rows, C = g.cols;
    const uint64_t D = drain_cycles(SPU_DTYPE_INT32);
    ASSERT_GE(K, R + C + D);
    auto mem = tu_mem(BANK, 13);
    for (int with_sync = 0; with_sync < 2; with_sync++) {
        std::vector<uint32_t> p = {LI(1, 0), LI(2, (int32_t)BANK), LI(3, (int32_t)K), LI(4, 1024),
                                   MM(1, 2, 3), ST(4)};
        if (with_sync) p.push_back(SYNC());
        p.insert(p.end(), {ADDI(4, 4, (int32_t)(R * C * 4)), MM(2, 1, 3), ST(4), HALT()});
        // (no sync: the addi keeps mm2's FETCH at 14 as with the sync's 2 cycles gone)
        differential(p, mem, {}, 1024 + 2 * R * C * 4, 0, with_sync ? "mm st sync mm st" : "mm st mm st");
        ASSERT_EQ(core->state(), SPU_STATE_HALTED);
        const uint64_t cyc = core->counter(SPU_CNT_CYCLES);
        // the sync ends at G1 + D - 1; with chained streams (systolic) the
        // drain starts when row 0 is captured, R - 1 cycles before G1, and the
        // sync ends at max(G1 + 1, G1 - R + D); with buses every row is
        // captured at G1
        const uint64_t sync_end = g.chain && !g.bus ? std::max<uint64_t>(1, D > R ? D - R : 0) : D - 1;
        if (with_sync)
            EXPECT_EQ(cyc, issue(19 + 2 * S(K) + 2 * Z() + sync_end, SPU_CNT_CYCLES));   // (the addi after the sync: 2 more)
        else if (!g.spram)
            EXPECT_EQ(cyc, issue(2 * K + Z() + (g.chain ? 13 : 15), SPU_CNT_CYCLES));
        // both blocks: A x B and B x A of the same panels
        for (uint32_t blk = 0; blk < 2; blk++)
            for (uint32_t i = 0; i < R; i++)
                for (uint32_t j = 0; j < C; j++) {
                    int32_t ref = 0;
                    for (uint32_t k = 0; k < K; k++)
                        ref += blk ? (int8_t)mem[BANK + k * WB + i] * (int8_t)mem[k * WB + j]
                                   : (int8_t)mem[k * WB + i] * (int8_t)mem[BANK + k * WB + j];
                    std::vector<uint8_t> out = core->spad_read(1024 + blk * R * C * 4 + (i * C + j) * 4, 4);
                    int32_t got;
                    std::memcpy(&got, out.data(), 4);
                    ASSERT_EQ(got, ref) << blk << ": " << i << "," << j;
                }
    }
}

// st goes to the queue and returns at once while a long mm streams: the
// scalar loop after it runs during the stream; cnt waits until the tensor
// unit is idle and reads that cycle.
TEST_P(RtlCore, StQueuesBehindARunningMmAndScalarCodeOverlaps)
{
    const uint32_t K = 200, R = g.rows, C = g.cols;
    auto mem = tu_mem(BANK, 3);
    const std::vector<uint32_t> p = {
        LI(1, 0), LI(2, (int32_t)BANK), LI(3, (int32_t)K), LI(4, 1024), LI(5, 20),
        MM(1, 2, 3),            // 5: FETCH 10, launches 12, last step 12 + K
        ST(4),                  // 6: FETCH 12, taken at 13: no wait; launches 13 + K
        LOOP(5, 9),             // 7: FETCH 14
        ADDI(9, 9, 3),          // 8: 20 x 2 cycles, all while the mm streams
        CNT(10, SPU_CNT_CYCLES),   // 9: FETCH 56, waits until idle = 13 + K + Z + 1
        CNT(11, SPU_CNT_STALL_DRAIN),
        HALT(),
    };
    differential(p, mem, {}, 1024 + R * C * 4, 0, "st behind mm");
    ASSERT_EQ(core->state(), SPU_STATE_HALTED);
    EXPECT_EQ(core->reg(9), 60u);
    EXPECT_EQ(core->reg(10), issue_reg(14 + S(K) + Z(), 10));
    EXPECT_EQ(core->reg(11), issue_reg(14 + S(K) + Z() - 56, 11));   // cnt's own FETCH wait, nothing else
}

// An mm whose stream leaves the scratchpad while the sequencer has moved on:
// the trap comes when the stream reaches the step; pc = that mm; the scalar
// instructions whose EXEC ended before it took effect, later ones did not;
// the st queued before the mm drained its block.
TEST_P(RtlCore, TrapInTheMiddleOfOverlappedBlocks)
{
    const int32_t S = (int32_t)g.spad_bytes, W = (int32_t)WB;
    auto mem = tu_mem(BANK, 5);
    const std::vector<uint32_t> p = {
        LI(1, 0), LI(2, (int32_t)BANK), LI(3, 20), LI(4, 1024), LI(7, S - 5 * W),
        MM(1, 2, 3),            // 5: FETCH 10, launches 12, last step 32
        ST(4),                  // 6: launches 33
        MM(7, 1, 3),            // 7: FETCH 14, taken at 33, launches 34, step 5 at 40
        ADDI(9, 0, 1),          // 8: FETCH 34, EXEC 35
        ADDI(10, 0, 2),         // 9: EXEC 37
        ADDI(11, 0, 3),         // 10: EXEC 39
        ADDI(12, 0, 4),         // 11: FETCH 40: cancelled
        ADDI(13, 0, 5), ADDI(14, 0, 6), HALT(),
    };
    differential(p, mem, {}, 1024 + g.rows * g.cols * 4, 0, "trap behind st");
    EXPECT_EQ(core->state(), SPU_STATE_TRAPPED);
    EXPECT_EQ(core->trap(), SPU_TRAP_SPAD_RANGE);
    EXPECT_EQ(core->pc(), 7u);
    EXPECT_EQ(core->reg(9), 1u);
    EXPECT_EQ(core->reg(10), 2u);
    EXPECT_EQ(core->reg(11), 3u);
    if (g.spram || g.chain) {
        // single-port banks: the second mm launches after the st's drain
        // (G + D + 2 = 33 + R + C + 16 + 2 = 59), its step 5 at 65, while
        // halt waits: every scalar instruction before it has run.
        // Chained streams: the second mm is taken at 15 (two entries) and
        // launches with the st's token at 32, its step 5 at 38: halt (FETCH
        // 28) waits, every scalar instruction has run
        EXPECT_EQ(core->reg(12), issue_reg(4, 12));
        EXPECT_EQ(core->reg(14), issue_reg(6, 14));
    } else {
        EXPECT_EQ(core->reg(12), issue_reg(0, 12));
    }
    EXPECT_EQ(core->counter(SPU_CNT_MAC_ACTIVE), 25u);
}

TEST_P(RtlCore, ConflictingStepsStillComputeCorrectly)
{
    std::mt19937 rng(7);
    const uint32_t K = 9;
    std::vector<uint8_t> mem(2 * K * WB);
    for (auto &v : mem) v = (uint8_t)rng();
    std::vector<uint32_t> p = {LI(1, 0), LI(2, (int32_t)(K * WB)), LI(3, (int32_t)K), MM(1, 2, 3),
                               LI(4, (int32_t)(4 * K * WB)), ST(4), HALT()};
    differential(p, mem, {}, 4 * K * WB + g.rows * g.cols * 4, 0, "same-bank gemm");
    EXPECT_EQ(core->counter(SPU_CNT_STALL_BANK), K);
}

TEST_P(RtlCore, RequantizationAllModes)
{
    std::mt19937 rng(99);
    const uint32_t R = g.rows, C = g.cols, K = 40;
    std::vector<uint8_t> mem(2 * K * WB);
    for (auto &v : mem) v = (uint8_t)rng();
    // make row 0 of A and column 0 of B extreme to reach saturation
    for (uint32_t k = 0; k < K; k++) { mem[k * WB] = 0x80; mem[K * WB + k * WB] = 0x80; }
    std::vector<int32_t> acc(R * C, 0);
    for (uint32_t i = 0; i < R; i++)
        for (uint32_t j = 0; j < C; j++)
            for (uint32_t k = 0; k < K; k++)
                acc[i * C + j] += (int8_t)mem[k * WB + i] * (int8_t)mem[K * WB + k * WB + j];
    core->spad_write(0, mem);
    const uint32_t out_addr = 2 * K * WB;
    for (unsigned round : {0u, 1u, 2u})
        for (unsigned relu : {0u, 1u})
            for (unsigned shift : {0u, 1u, 2u, 3u, 5u, 8u, 11u, 16u, 31u}) {
                SCOPED_TRACE(::testing::Message() << "round " << round << " relu " << relu << " shift " << shift);
                run_prog({LI(1, 0), LI(2, (int32_t)(K * WB)), LI(3, (int32_t)K), LI(4, (int32_t)out_addr),
                          CFG(SPU_DTYPE_INT8, shift, round, relu), MM(1, 2, 3), ST(4), HALT()});
                ASSERT_EQ(core->state(), SPU_STATE_HALTED);
                std::vector<uint8_t> out = core->spad_read(out_addr, (R - 1) * C * 4 + WB);
                for (uint32_t i = 0; i < R; i++)
                    for (uint32_t j = 0; j < C; j++) {
                        int8_t want = ref_requant(acc[i * C + j], shift, round, relu);
                        ASSERT_EQ((int8_t)out[i * C * 4 + j], want) << "acc " << acc[i * C + j];
                        ASSERT_EQ(want, spu_requant_int8(acc[i * C + j], shift, round, (int)relu));
                    }
                EXPECT_EQ(core->counter(SPU_CNT_DRAIN_BUSY), drain_cycles(SPU_DTYPE_INT8));
            }
}

TEST(RtlCoreRequant, ReferenceAgreesWithModelOnTies)
{
    // the test's reference and the model on hand-picked ties / extremes
    const int32_t vals[] = {0, 1, -1, 2, -2, 3, -3, 5, -5, 6, -6, 7, -7, 255, 256, -256, 257, -257,
                            INT32_MAX, INT32_MIN, 32767, -32768, 384, -384, 640, -640};
    for (int32_t v : vals)
        for (unsigned s = 0; s < 32; s++)
            for (unsigned r = 0; r < 3; r++)
                for (int relu = 0; relu < 2; relu++)
                    ASSERT_EQ(ref_requant(v, s, r, relu), spu_requant_int8(v, s, r, relu)) << v << " " << s << " " << r;
}

// ---- timing of straight-line programs and drain overlap ---------------------
// docs/isa.md "Overlapped issue", case by case: each program's cycles as the
// rule gives them by hand, with overlap (OVERLAP = 1 builds) and without (two
// cycles an instruction), and the RTL equal to the model in everything
// (differential: state, registers, counters).
TEST_P(RtlCore, OverlapFollowsTheIssueRule)
{
    struct Case { const char *what; std::vector<uint32_t> p; uint64_t ovl, plain; };
    const std::vector<Case> cases = {
        {"independent li", {LI(1, 1), LI(2, 2), LI(3, 3), HALT()}, 5, 8},
        {"rB written the cycle before", {LI(1, 1), ADDI(2, 1, 1), HALT()}, 5, 6},
        {"rA named, not read", {LI(5, 1), LI(5, 2), HALT()}, 5, 6},
        {"r0 is never a hazard", {LI(0, 7), ADD(1, 0, 0), HALT()}, 4, 6},
        {"taken bne", {LI(1, 1), NOP(), BNE(1, 0, 5), NOP(), NOP(), HALT()}, 6, 8},
        {"bne not taken", {LI(1, 1), NOP(), BNE(1, 1, 5), NOP(), HALT()}, 7, 10},
        {"jmp", {JMP(2), NOP(), LI(1, 1), HALT()}, 5, 6},
        {"cnt waits for its own FETCH", {LI(1, 1), CNT(2, SPU_CNT_CYCLES), HALT()}, 5, 6},
        {"cfg", {CFG(SPU_DTYPE_INT32, 0, 0, 0), NOP(), HALT()}, 5, 6},
        {"mul after its operand", {LI(1, 3), LI(2, 5), MUL(3, 1, 2), HALT()}, 22, 24},
        {"loop body and back edge overlapped", {LI(1, 3), LOOP(1, 4), ADDI(2, 2, 1), ADDI(3, 3, 1), HALT()}, 12, 18},
        {"one-word body naming what it writes", {LI(1, 3), LOOP(1, 3), ADDI(2, 2, 1), HALT()}, 11, 12},
        {"one-word body overlapping itself", {LI(1, 4), LOOP(1, 3), NOP(), HALT()}, 10, 14},
        {"bne at a loop's end", {LI(1, 2), LOOP(1, 4), NOP(), BNE(0, 0, 7), HALT()}, 12, 14},
    };
    for (const Case &c : cases) {
        differential(c.p, std::vector<uint8_t>(8, 0), {}, 8, 0, c.what);
        EXPECT_EQ(core->counter(SPU_CNT_CYCLES), g.overlap ? c.ovl : c.plain) << c.what;
        core->reset();
    }
    // cnt reads T_n - T_0: its FETCH follows li's two cycles either way
    run_prog({LI(1, 1), CNT(2, SPU_CNT_CYCLES), HALT()});
    EXPECT_EQ(core->reg(2), 2u);
}

TEST_P(RtlCore, StraightLineTimingMatchesFormula)
{
    const uint32_t R = g.rows, C = g.cols;
    // independent cost model of docs/isa.md, fed the same instruction list
    struct Op { int kind; uint32_t k, a, b; unsigned out; };   // 0 plain, 1 mm, 2 st, 3 sync, 4 cfg, 5 halt
    std::vector<uint32_t> p;
    std::vector<Op> ops;
    auto plain = [&](uint32_t w) { p.push_back(w); ops.push_back({0, 0, 0, 0, 0}); };
    const uint32_t a0 = 0, b0 = BANK, b1 = 16 * WB;   // b1 shares bank 0 with a0
    plain(LI(1, (int32_t)a0)); plain(LI(2, (int32_t)b0)); plain(LI(5, (int32_t)b1));
    plain(LI(3, 3)); plain(LI(6, 1)); plain(LI(4, (int32_t)(b0 + 32 * WB)));   // works with 2 banks
    p.push_back(MM(1, 2, 3)); ops.push_back({1, 3, a0, b0, 0});
    p.push_back(ST(4)); ops.push_back({2, 0, 0, 0, SPU_DTYPE_INT32});
    p.push_back(MM(1, 5, 6)); ops.push_back({1, 1, a0, b1, 0});
    p.push_back(ST(4)); ops.push_back({2, 0, 0, 0, SPU_DTYPE_INT32});   // waits for the first drain
    p.push_back(CFG(SPU_DTYPE_INT8, 2, 0, 1)); ops.push_back({4, 0, 0, 0, 0});
    p.push_back(ST(4)); ops.push_back({2, 0, 0, 0, SPU_DTYPE_INT8});
    p.push_back(SYNC()); ops.push_back({3, 0, 0, 0, 0});
    p.push_back(MM(1, 2, 3)); ops.push_back({1, 3, a0, b0, 0});
    p.push_back(ST(4)); ops.push_back({2, 0, 0, 0, SPU_DTYPE_INT8});
    p.push_back(HALT()); ops.push_back({5, 0, 0, 0, 0});
    // docs/isa.md "Tensor unit": queue, launch, stream, token, waits; with
    // chained streams ("Chained streams") a two-entry queue, an mm from the
    // last step of the mm before, and an st's token travelling with the next
    // mm when that mm is queued before the token would go alone
    uint64_t T = 0, stall = 0, busy = 0, macs = 0;
    uint64_t launch = 0, launch_prev = 0, engine = 0, mm_free = 0, last = 0, idle = 0, st_ready = 0,
             drain_done = 0, drain_idle = 0;
    bool pend = false;               // an st's token whose launch is not decided yet
    uint64_t pend_alone = 0, pend_base = 0, pend_D = 0;
    auto queued = [&](uint64_t L) { launch_prev = launch; launch = L; };
    // an st's token in slot W; its drain starts at S (chained streams: when
    // row 0 is captured) and the next st launches from W + 1 + max(D, C +
    // (R - 1) * (C / lanes - 1)) ("Chained streams")
    auto wave = [&](uint64_t W, uint64_t D) {
        const uint64_t G = W + Z(), S = g.chain && !g.bus ? W + C + 1 : G;
        const uint64_t gr = C / g.drain_lanes, h = g.bus ? D : C + (R - 1) * (gr - 1);
        idle = std::max(idle, G + 1);
        st_ready = g.chain ? W + 1 + std::max(D, h) : std::max(G + 1, G + D - 1);
        drain_done = S + D - 1;
        drain_idle = S + D + 2;
    };
    auto settle = [&]() {                       // the pending token goes alone
        if (!pend) return;
        pend = false;
        queued(pend_alone);
        engine = mm_free = pend_alone + 1;
        wave(pend_alone, pend_D);
    };
    for (const Op &o : ops) {
        const uint64_t e0 = T + 1;
        uint64_t wait = 0;
        if (o.kind == 1 || o.kind == 2) {
            const uint64_t e = std::max(e0, !g.chain || pend ? launch : launch_prev);
            wait = e - e0;
            if (o.kind == 1) {
                uint64_t conf = 0;
                const uint64_t run = stream(o.a, o.b, o.k, &conf);   // o.k + conf without pairs
                uint64_t L;
                if (pend && e + 1 <= pend_alone) {   // the token travels with this mm
                    L = std::max(pend_base, e + 1);
                    pend = false;
                    queued(L);
                    queued(L);
                    // with the last step of the stream before: the token rides with the
                    // first step; the engine free: it takes the slot L
                    wave(L == last ? L + 1 + (o.a / BANK == o.b / BANK ? 1 : 0) : L, pend_D);
                } else {
                    settle();
                    L = std::max(e + 1, g.chain ? mm_free : engine);
                    // single-port SPRAM banks: an mm also waits for the last drain write
                    if (g.spram) L = std::max(L, drain_idle);
                    queued(L);
                }
                engine = L + run + 1;
                mm_free = last = L + run;
                idle = std::max(idle, L + run + Z() + 1);
                macs += (uint64_t)o.k * R * C;
            } else {
                const uint64_t D = drain_cycles(o.out);
                busy += D;
                if (g.chain) {
                    settle();
                    pend = true;
                    pend_alone = std::max({e + 1, engine, st_ready});
                    pend_base = std::max({e + 1, mm_free, st_ready});
                    pend_D = D;
                } else {
                    const uint64_t L = std::max({e + 1, engine, st_ready});
                    queued(L);
                    engine = L + 1;
                    wave(L, D);
                }
            }
        } else if (o.kind == 3) {
            settle();
            const uint64_t ready = std::max(idle, drain_done);
            wait = ready > e0 ? ready - e0 : 0;
        } else if (o.kind == 4 || o.kind == 5) {   // cfg; halt (not the drain's writes)
            settle();
            wait = idle > e0 ? idle - e0 : 0;
        }
        stall += wait;
        T += 2 + wait;
    }
    run_prog(p);
    ASSERT_EQ(core->state(), SPU_STATE_HALTED);
    EXPECT_EQ(core->counter(SPU_CNT_CYCLES), issue(T, SPU_CNT_CYCLES));
    EXPECT_EQ(core->counter(SPU_CNT_INSTRET), ops.size());
    EXPECT_EQ(core->counter(SPU_CNT_STALL_DRAIN), issue(stall, SPU_CNT_STALL_DRAIN));
    EXPECT_GT(stall, 0u);
    EXPECT_EQ(core->counter(SPU_CNT_DRAIN_BUSY), busy);
    EXPECT_GE(core->counter(SPU_CNT_MAC_ACTIVE) * R * C, macs);
}

// Chained streams: the drain starts when the wave has captured row 0 and
// the next st's token may follow 1 + max(D, C + (R-1)(C/L - 1)) cycles after
// the last (docs/isa.md "Chained streams"), so with K = 2 two st waves are in
// the array at once and the drain writes one block while the next wave
// captures the tiles it has already read. Results, counters and cycles
// against the model; the blocks come faster than the old rule's one st per
// R + C + D - 1 cycles would allow.
TEST_P(RtlCore, ChainedDrainOverlapsTheNextWave)
{
    if (!g.chain) GTEST_SKIP() << "no chained streams in this build";
    const uint32_t R = g.rows, C = g.cols, N = 12, K = 2;
    std::mt19937 rng(99);
    std::vector<uint8_t> mem(2048 + N * R * C * 4);
    for (auto &v : mem) v = (uint8_t)rng();
    std::vector<uint8_t> hi(N * K * WB);
    for (auto &v : hi) v = (uint8_t)rng();
    for (unsigned out : {SPU_DTYPE_INT32, SPU_DTYPE_INT8}) {
        std::vector<uint32_t> p = {CFG(out, 3, 0, 0), LI(1, 0), LI(2, (int32_t)BANK), LI(3, (int32_t)K),
                                   LI(4, 2048), LI(5, (int32_t)N), /*6*/ LOOP(5, 11), MM(1, 2, 3), ST(4),
                                   ADDI(4, 4, (int32_t)(R * C * 4)), ADDI(2, 2, (int32_t)(K * WB)),
                                   /*11*/ HALT()};
        differential(p, mem, {}, (uint32_t)mem.size(), 0, "mm K=2; st", &hi, BANK);
        ASSERT_EQ(core->state(), SPU_STATE_HALTED);
        const uint64_t D = drain_cycles(out);
        // (with buses the wave takes 2 cycles: one st per 1 + D cycles is the
        // drain's own pace on either rule, nothing to overlap)
        if (!g.bus) {
            EXPECT_LT(core->counter(SPU_CNT_CYCLES), (uint64_t)N * (R + C + D - 1));
        }
        EXPECT_EQ(core->counter(SPU_CNT_DRAIN_BUSY), N * D);
    }
}

TEST_P(RtlCore, DoubleBufferedBlocksMatchModel)
{
    // several blocks, each st overlapping the next mm; int8 and int32 outputs
    std::mt19937 rng(5);
    std::vector<uint8_t> mem(4096);
    for (auto &v : mem) v = (uint8_t)rng();
    std::vector<uint32_t> p = {LI(1, 0), LI(2, 1024), LI(3, 20), LI(4, 2048), LI(5, 3),
                               LI(6, (int32_t)(g.cols * 4)), /*6*/ LOOP(5, 11), MM(1, 2, 3), ST(4),
                               ADDI(4, 4, (int32_t)(g.rows * g.cols * 4)), ADDI(1, 1, (int32_t)WB),
                               /*11*/ CFG(SPU_DTYPE_INT8, 4, 2, 0), MM(2, 1, 3), ZACC(), MM(1, 2, 3),
                               LI(4, 3072), ST(4), HALT()};
    differential(p, mem, {}, 4096, 0, "blocks");
}

// ---- randomized differential against the model ------------------------------
TEST_P(RtlCore, RandomProgramsMatchModel)
{
    std::mt19937 rng(1234 + GetParam());
    const uint32_t region = 4096;
    auto rnd = [&](uint32_t n) { return (uint32_t)(rng() % n); };
    for (int iter = 0; iter < 150; iter++) {
        std::vector<uint32_t> p;
        // r1..r3: mm operands in [0, 1024); r4..r6: st targets in [2048, 3584)
        // (the drain's writes are only defined to be visible to mm after a
        // sync/halt, docs/isa.md, so mm never reads what st writes); r7 = K,
        // r10/r11 strides
        for (unsigned r = 1; r <= 3; r++) p.push_back(LI(r, (int32_t)(rnd(1024 / WB) * WB)));
        for (unsigned r = 4; r <= 6; r++) p.push_back(LI(r, (int32_t)(2048 + rnd(1536 / WB) * WB)));
        p.push_back(LI(7, (int32_t)rnd(24)));
        p.push_back(LI(10, (int32_t)(rnd(3) * WB)));
        p.push_back(LI(11, (int32_t)((1 + rnd(3)) * WB)));
        int n = 10 + (int)rnd(25);
        auto body_op = [&]() -> uint32_t {
            switch (rnd(14)) {
            case 0: return LI(8 + rnd(8), (int32_t)rnd(4000000) - 2000000);
            case 1: return ADDI(8 + rnd(8), rnd(16), (int32_t)rnd(1000) - 500);
            case 2: return ADD(8 + rnd(4), rnd(16), rnd(16));
            case 3: return SUB(8 + rnd(4), rnd(16), rnd(16));
            case 4: return MUL(12 + rnd(4), rnd(16), rnd(16));
            case 5: return SHLI(12 + rnd(4), rnd(16), (int32_t)rnd(32));
            case 6: {   // every in / out pair (c4 lacks the floats: FORMAT traps)
                static const unsigned ins[] = {SPU_DTYPE_INT8, SPU_DTYPE_INT8, SPU_DTYPE_E4M3, SPU_DTYPE_E5M2};
                static const unsigned outs[] = {SPU_DTYPE_INT8, SPU_DTYPE_INT32, SPU_DTYPE_F32};
                return rnd(2) ? CFG(rnd(2), rnd(32), rnd(3), rnd(2))
                              : CFGI(ins[rnd(4)], outs[rnd(3)], rnd(32), rnd(3), rnd(2));
            }
            case 7: return STRIDE(10 + rnd(2), 10 + rnd(2), 11);
            case 8: return MM(1 + rnd(3), 1 + rnd(3), rnd(2) ? 7 : 0);
            case 9: return ST(4 + rnd(3));
            case 10: return rnd(2) ? SYNC() : ZACC();
            case 11: return CNT(12 + rnd(4), (int32_t)rnd(7));
            case 12: return MM(1 + rnd(3), 1 + rnd(3), 7);
            default: return NOP();
            }
        };
        for (int i = 0; i < n; i++) {
            uint32_t kind = rnd(10);
            if (kind == 0 && n - i > 4) {   // a loop of 1..3 body instructions, count 0..3
                uint32_t len = 1 + rnd(3);
                p.push_back(LI(9, (int32_t)rnd(4)));
                uint32_t end = (uint32_t)p.size() + 1 + len;
                p.push_back(LOOP(9, (int32_t)end));
                for (uint32_t j = 0; j < len; j++) p.push_back(body_op());
            } else if (kind == 1) {         // forward branch over one instruction
                uint32_t tgt = (uint32_t)p.size() + 2;
                p.push_back(rnd(2) ? BNE(8 + rnd(8), rnd(16), (int32_t)tgt) : BLT(8 + rnd(8), rnd(16), (int32_t)tgt));
                p.push_back(body_op());
            } else {
                p.push_back(body_op());
            }
        }
        p.push_back(HALT());
        std::vector<uint8_t> mem(region);
        for (auto &v : mem) v = (uint8_t)rng();
        std::vector<uint32_t> args(8);
        for (auto &a : args) a = (uint32_t)rng();
        differential(p, mem, args, region, rnd(4) == 0 ? 150 + rnd(300) : 0,
                     ("program " + std::to_string(iter)).c_str());
        if (HasFatalFailure()) {
            std::fprintf(stderr, "failing program:\n");
            spu_disasm(p.data(), p.size(), stderr, 1);
            return;
        }
    }
}

// ---- vector unit (docs/isa.md "Vector unit") ---------------------------------
// Independent reference of one streaming vector instruction over the
// scratchpad image `mem` (docs/isa.md semantics, written apart from the model).
static void ref_vector(std::vector<uint8_t> &mem, unsigned op, uint32_t d, uint32_t s1, uint32_t s2,
                       uint32_t vl, uint32_t sd, uint32_t ss1, uint32_t ss2, uint32_t wb,
                       const uint8_t lut[256], unsigned shift, unsigned round, bool relu)
{
    auto sat = [](int v) { return (uint8_t)(int8_t)std::min(127, std::max(-128, v)); };
    int mx = -128;
    int64_t sum = 0;
    for (uint32_t i = 0; i < vl; i++)
        for (uint32_t j = 0; j < wb; j++) {
            int a = (int8_t)mem[s1 + i * ss1 + j], b = (int8_t)mem[s2 + i * ss2 + j];
            uint8_t &y = mem[d + i * sd + j];
            switch (op) {
            case SPU_OP_VADD: y = sat(a + b); break;
            case SPU_OP_VSUB: y = sat(a - b); break;
            case SPU_OP_VMUL: y = (uint8_t)ref_requant(a * b, shift, round, relu); break;
            case SPU_OP_VMAX: y = (uint8_t)(int8_t)std::max(a, b); break;
            case SPU_OP_VLUT: y = lut[(uint8_t)a]; break;
            case SPU_OP_VRMAX: mx = std::max(mx, a); break;
            case SPU_OP_VRSUM: sum += a; break;
            }
        }
    if (op == SPU_OP_VRMAX && vl)
        for (uint32_t j = 0; j < wb; j++) mem[d + j] = (uint8_t)(int8_t)mx;
    if (op == SPU_OP_VRSUM && vl)
        for (uint32_t j = 0; j < wb; j++) mem[d + j] = j < 4 ? (uint8_t)((uint64_t)sum >> (8 * j)) : 0;
}

TEST_P(RtlCore, VectorOpsMatchReferenceAndModel)
{
    if (!g.vector) {   // the boards' build: the opcodes are undefined
        for (unsigned op = SPU_OP_VLEN; op <= SPU_OP_VLUTLD; op++) {
            run_prog({NOP(), enc(op), HALT()});
            expect_trap(SPU_TRAP_ILLEGAL, 1);
        }
        return;
    }
    std::mt19937 rng(77);
    const uint32_t region = 3 * BANK > 65536 ? 65536 : 3 * BANK;
    static const unsigned ops[] = {SPU_OP_VADD, SPU_OP_VSUB, SPU_OP_VMUL, SPU_OP_VMAX,
                                   SPU_OP_VRMAX, SPU_OP_VRSUM, SPU_OP_VLUT};
    for (unsigned op : ops)
        for (int same_bank = 0; same_bank < 2; same_bank++) {
            SCOPED_TRACE(::testing::Message() << "op 0x" << std::hex << op << " same_bank " << same_bank);
            std::vector<uint8_t> mem(4096), hi(64);     // src2 at BANK: hi
            for (auto &v : mem) v = (uint8_t)rng();
            for (auto &v : hi) v = (uint8_t)rng();
            // extremes that saturate / tie
            for (uint32_t i = 0; i < 64; i++) mem[i] = (uint8_t)(i & 1 ? 0x80 : 0x7F);
            const uint32_t vl = 7, s1 = 0, s2 = same_bank ? 1024 : BANK, d = 2048, lut = 3072;
            const unsigned shift = 3, round = SPU_ROUND_RNE;
            std::vector<uint8_t> want(BANK + hi.size());   // the whole image, for the reference
            std::copy(mem.begin(), mem.end(), want.begin());
            std::copy(hi.begin(), hi.end(), want.begin() + BANK);
            ref_vector(want, op, d, s1, s2, vl, WB, WB, WB, WB, &mem[lut], shift, round, false);
            std::vector<uint32_t> p = {LI(1, (int32_t)d), LI(2, (int32_t)s1), LI(3, (int32_t)s2), LI(4, (int32_t)vl),
                                       LI(5, (int32_t)lut), CFG(SPU_DTYPE_INT32, shift, round, 0), VLEN(4),
                                       VLUTLD(5), CNT(12, SPU_CNT_CYCLES)};
            const bool rr = op == SPU_OP_VRMAX || op == SPU_OP_VRSUM || op == SPU_OP_VLUT;
            p.push_back(rr ? VOP(op, 1, 2) : VOP(op, 1, 2, 3));
            p.push_back(CNT(13, SPU_CNT_CYCLES));
            p.push_back(HALT());
            differential(p, mem, {}, (uint32_t)mem.size(), 0, "vector op", &hi, BANK);
            if (HasFatalFailure()) return;
            std::vector<uint8_t> got = core->spad_read(0, mem.size());
            for (size_t i = 0; i < mem.size(); i++) ASSERT_EQ(got[i], want[i]) << "byte " << i;
            // cost: cnt (2) + 3 + one cycle per word, two for a same-bank pair
            const bool binary = !rr;
            EXPECT_EQ(core->reg(13) - core->reg(12), issue_reg(2u + 3u + vl * ((binary && same_bank) ? 2 : 1), 13) -
                                                     issue_reg(0, 12));
            EXPECT_EQ(core->counter(SPU_CNT_VEC_STALL), (binary && same_bank) ? vl : 0u);
            EXPECT_EQ(core->counter(SPU_CNT_VEC_BUSY),
                      1 + vl * ((binary && same_bank) ? 2 : 1) + 1 + (256 + WB - 1) / WB);
            (void)region;
        }
}

TEST_P(RtlCore, VectorWaitsForTheTensorUnitAndTraps)
{
    if (!g.vector) GTEST_SKIP() << "no vector unit in this build";
    std::vector<uint8_t> mem(4096);
    for (size_t i = 0; i < mem.size(); i++) mem[i] = (uint8_t)(i * 13 + 5);
    // a GEMM block, its st, then a vector op on the block's output without a
    // sync: the vector op waits for the drain (as sync) and sees its bytes
    const int32_t vl = (int32_t)(g.rows * g.cols * 4 / WB);   // the st's rows, strideC = COLS*4
    std::vector<uint32_t> p = {LI(1, 0), LI(2, (int32_t)BANK), LI(3, 16), LI(4, 2048),
                               LI(5, vl), LI(6, 3000 / (int32_t)WB * (int32_t)WB),
                               CFG(SPU_DTYPE_INT8, 6, SPU_ROUND_RNE, 0), MM(1, 2, 3), ST(4),
                               VLEN(5), VOP(SPU_OP_VADD, 4, 4, 4), VOP(SPU_OP_VRMAX, 6, 4), HALT()};
    std::vector<uint8_t> hi(256);                    // the B panel, in the next bank
    for (size_t i = 0; i < hi.size(); i++) hi[i] = (uint8_t)(i * 29 + 1);
    differential(p, mem, {}, 4096, 0, "vector after st", &hi, BANK);
    // traps: misaligned (address, stride), out of range at a later word
    const uint32_t last = g.spad_bytes - WB;
    struct Case { std::vector<uint32_t> p; int trap; uint32_t pc; };
    std::vector<Case> cases = {
        {{LI(1, 1), LI(2, 1), VLEN(2), VOP(SPU_OP_VADD, 1, 0, 0), HALT()}, SPU_TRAP_MISALIGNED, 3},
        {{LI(1, 1), LI(2, 0), VLEN(2), VOP(SPU_OP_VADD, 2, 2, 2), HALT()}, SPU_TRAP_NONE, 0},
        {{LI(1, 1), LI(2, 3), VLEN(1), VSTRIDE(2, 0, 0), VOP(SPU_OP_VMAX, 0, 0, 0), HALT()}, SPU_TRAP_MISALIGNED, 4},
        {{LI(1, 0), VLEN(1), VOP(SPU_OP_VADD, 0, 0, 0), LI(3, 1), VLUTLD(3), HALT()}, SPU_TRAP_MISALIGNED, 4},
        {{LUI(1, (int32_t)(last >> 16)), ADDI(1, 1, (int32_t)(last & 0xFFFF) - 0), LI(2, 3), VLEN(2),
          VOP(SPU_OP_VADD, 1, 0, 0), HALT()}, SPU_TRAP_SPAD_RANGE, 4},
        {{LUI(1, (int32_t)(last >> 16)), ADDI(1, 1, (int32_t)(last & 0xFFFF)), LI(2, 2), VLEN(2),
          VOP(SPU_OP_VRSUM, 0, 1), HALT()}, SPU_TRAP_SPAD_RANGE, 4},
        {{LUI(1, (int32_t)(last >> 16)), ADDI(1, 1, (int32_t)(last & 0xFFFF)), VLUTLD(1), HALT()},
         SPU_TRAP_SPAD_RANGE, 2},
    };
    for (size_t k = 0; k < cases.size(); k++) {
        auto &c = cases[k];
        // (ADDI's immediate is 18-bit signed: keep the low half small)
        differential(c.p, mem, {}, 4096, 0, ("vector trap case " + std::to_string(k)).c_str());
        if (HasFatalFailure()) return;
        if (c.trap != SPU_TRAP_NONE) expect_trap(c.trap, c.pc);
    }
}

TEST_P(RtlCore, RandomVectorProgramsMatchModel)
{
    if (!g.vector) GTEST_SKIP() << "no vector unit in this build";
    std::mt19937 rng(4321 + GetParam());
    const uint32_t region = 8192;
    auto rnd = [&](uint32_t n) { return (uint32_t)(rng() % n); };
    std::vector<uint8_t> mem(region), hi(4096);   // [0, 8192) and [BANK, BANK + 4096)
    for (int iter = 0; iter < 60; iter++) {
        std::vector<uint32_t> p;
        // r1..r3 vector / mm sources in [0, 2048) or the next bank; r4..r6
        // destinations in [4096, 8192); r7 VL; r10, r11 strides
        for (unsigned r = 1; r <= 3; r++)
            p.push_back(LI(r, (int32_t)((rnd(2) ? BANK : 0) + rnd(2048 / WB) * WB)));
        for (unsigned r = 4; r <= 6; r++) p.push_back(LI(r, (int32_t)(4096 + rnd(3072 / WB) * WB)));
        p.push_back(LI(7, (int32_t)rnd(12)));
        p.push_back(LI(10, (int32_t)(rnd(3) * WB)));
        p.push_back(LI(11, (int32_t)((1 + rnd(3)) * WB)));
        p.push_back(VLEN(7));
        int n = 6 + (int)rnd(14);
        for (int i = 0; i < n; i++) {
            switch (rnd(12)) {
            case 0: p.push_back(VLEN(7 + 0 * rnd(2))); break;
            case 1: p.push_back(VSTRIDE(11, 10 + rnd(2), 10 + rnd(2))); break;
            case 2: p.push_back(CFG(rnd(2), rnd(16), rnd(3), rnd(2))); break;
            case 3: p.push_back(VLUTLD(1 + rnd(3))); break;
            case 4: p.push_back(MM(1 + rnd(3), 1 + rnd(3), 7)); break;
            case 5: p.push_back(ST(4 + rnd(3))); break;
            case 6: p.push_back(CNT(12 + rnd(4), (int32_t)rnd(SPU_CNT_COUNT - 2))); break;
            case 7: p.push_back(VOP(SPU_OP_VRMAX + rnd(2), 4 + rnd(3), 1 + rnd(6))); break;
            case 8: p.push_back(VOP(SPU_OP_VLUT, 4 + rnd(3), 1 + rnd(6))); break;
            case 9: p.push_back(ADDI(7, 7, 1)); break;
            default: p.push_back(VOP(SPU_OP_VADD + rnd(4), 4 + rnd(3), 1 + rnd(6), 1 + rnd(6))); break;
            }
        }
        p.push_back(HALT());
        for (auto &v : mem) v = (uint8_t)rng();
        for (auto &v : hi) v = (uint8_t)rng();
        differential(p, mem, {}, (uint32_t)mem.size(), 0, ("vector program " + std::to_string(iter)).c_str(),
                     &hi, BANK);
        if (HasFatalFailure()) {
            std::fprintf(stderr, "failing program:\n");
            spu_disasm(p.data(), p.size(), stderr, 1);
            return;
        }
    }
}

// vsplat (register -> every lane of VL words) and vget (a lane -> register,
// sign-extended): against a reference written here and the model, cost
// 3 + VL and 3 + 1 cycles, traps, and random programs mixing them with the
// other vector ops and GEMM blocks.
TEST_P(RtlCore, VsplatVgetMatchReferenceAndModel)
{
    if (!g.vector) {   // the boards' build: the opcodes are undefined
        for (unsigned op : {SPU_OP_VSPLAT, SPU_OP_VGET}) {
            run_prog({NOP(), enc(op), HALT()});
            expect_trap(SPU_TRAP_ILLEGAL, 1);
        }
        return;
    }
    std::vector<uint8_t> mem(4096);
    for (size_t i = 0; i < mem.size(); i++) mem[i] = (uint8_t)(i * 37 + 11);
    const uint32_t vl = 5, d = 2048, sd = 2 * WB;
    const int32_t val = -77 + 256 * 3;               // only the low byte counts: 0xB3
    const uint32_t a_neg = 1000 + 3, a_pos = 1000 + 4;   // any byte address (not aligned)
    mem[a_neg] = 0x85;                               // -123
    mem[a_pos] = 0x42;
    std::vector<uint32_t> p = {LI(1, (int32_t)d), LI(2, val), LI(4, (int32_t)vl), LI(5, (int32_t)sd),
                               LI(6, (int32_t)a_neg), LI(8, (int32_t)a_pos), VLEN(4), VSTRIDE(5, 0, 0),
                               CNT(12, SPU_CNT_CYCLES), VOP(SPU_OP_VSPLAT, 1, 2), CNT(13, SPU_CNT_CYCLES),
                               VOP(SPU_OP_VGET, 7, 6), CNT(14, SPU_CNT_CYCLES), VOP(SPU_OP_VGET, 9, 8),
                               VOP(SPU_OP_VGET, 0, 8), HALT()};
    differential(p, mem, {}, (uint32_t)mem.size(), 0, "vsplat / vget");
    if (HasFatalFailure()) return;
    std::vector<uint8_t> want = mem;
    for (uint32_t i = 0; i < vl; i++)
        for (uint32_t j = 0; j < WB; j++) want[d + i * sd + j] = 0xB3;
    std::vector<uint8_t> got = core->spad_read(0, mem.size());
    for (size_t i = 0; i < mem.size(); i++) ASSERT_EQ(got[i], want[i]) << "byte " << i;
    EXPECT_EQ(core->reg(7), (uint32_t)-123);
    EXPECT_EQ(core->reg(9), 0x42u);
    EXPECT_EQ(core->reg(13) - core->reg(12), issue_reg(2u + 3u + vl, 13) - issue_reg(0, 12));   // cnt + vsplat
    EXPECT_EQ(core->reg(14) - core->reg(13), issue_reg(2u + 3u + 1u, 14) - issue_reg(0, 13));   // cnt + vget
    // traps: vsplat's destination misaligned / beyond the scratchpad at a
    // later word; vget of a byte beyond it; VL = 0: vsplat does nothing, vget
    // still reads
    const uint32_t last = g.spad_bytes - WB;
    struct Case { std::vector<uint32_t> p; int trap; uint32_t pc; };
    std::vector<Case> cases = {
        {{LI(1, 1), LI(2, 1), VLEN(2), VOP(SPU_OP_VSPLAT, 1, 2), HALT()}, SPU_TRAP_MISALIGNED, 3},
        {{LI(1, 0), LI(2, 3), VLEN(2), VSTRIDE(2, 0, 0), VOP(SPU_OP_VSPLAT, 1, 2), HALT()}, SPU_TRAP_MISALIGNED, 4},
        {{LUI(1, (int32_t)(last >> 16)), ADDI(1, 1, (int32_t)(last & 0xFFFF)), LI(2, 2), VLEN(2),
          VOP(SPU_OP_VSPLAT, 1, 2), HALT()}, SPU_TRAP_SPAD_RANGE, 4},
        {{LUI(1, (int32_t)(g.spad_bytes >> 16)), ADDI(1, 1, (int32_t)(g.spad_bytes & 0xFFFF) + 1), LI(3, 9),
          VOP(SPU_OP_VGET, 3, 1), HALT()}, SPU_TRAP_SPAD_RANGE, 3},
        {{LI(1, 1), LI(2, 5), VOP(SPU_OP_VSPLAT, 1, 2), LI(3, 7), VOP(SPU_OP_VGET, 3, 3), HALT()}, SPU_TRAP_NONE, 0},
    };
    for (size_t k = 0; k < cases.size(); k++) {
        auto &c = cases[k];
        differential(c.p, mem, {}, 4096, 0, ("vsplat/vget trap case " + std::to_string(k)).c_str());
        if (HasFatalFailure()) return;
        if (c.trap != SPU_TRAP_NONE) expect_trap(c.trap, c.pc);
    }
    // random programs: vsplat / vget among vector ops, GEMM blocks and st
    std::mt19937 rng(99 + GetParam());
    auto rnd = [&](uint32_t n) { return (uint32_t)(rng() % n); };
    std::vector<uint8_t> m2(8192), hi(4096);
    for (int iter = 0; iter < 30; iter++) {
        std::vector<uint32_t> q;
        for (unsigned r = 1; r <= 3; r++)
            q.push_back(LI(r, (int32_t)((rnd(2) ? BANK : 0) + rnd(2048 / WB) * WB)));
        for (unsigned r = 4; r <= 6; r++) q.push_back(LI(r, (int32_t)(4096 + rnd(3072 / WB) * WB)));
        q.push_back(LI(7, (int32_t)rnd(10)));
        q.push_back(LI(11, (int32_t)((1 + rnd(3)) * WB)));
        q.push_back(VLEN(7));
        const int n = 6 + (int)rnd(12);
        for (int i = 0; i < n; i++) {
            switch (rnd(8)) {
            case 0: q.push_back(VOP(SPU_OP_VSPLAT, 4 + rnd(3), 8 + rnd(4))); break;
            case 1: q.push_back(VOP(SPU_OP_VGET, 8 + rnd(3), 1 + rnd(6))); break;
            case 2: q.push_back(ADDI(1 + rnd(6), 1 + rnd(6), (int32_t)rnd(7))); break;   // unaligned too
            case 3: q.push_back(VSTRIDE(11, 11, 11)); break;
            case 4: q.push_back(MM(1 + rnd(3), 1 + rnd(3), 7)); break;
            case 5: q.push_back(ST(4 + rnd(3))); break;
            case 6: q.push_back(VOP(SPU_OP_VRSUM, 4 + rnd(3), 1 + rnd(6))); break;
            default: q.push_back(VOP(SPU_OP_VADD + rnd(4), 4 + rnd(3), 1 + rnd(6), 1 + rnd(6))); break;
            }
        }
        q.push_back(HALT());
        for (auto &v : m2) v = (uint8_t)rng();
        for (auto &v : hi) v = (uint8_t)rng();
        differential(q, m2, {}, (uint32_t)m2.size(), 0, ("vsplat/vget program " + std::to_string(iter)).c_str(),
                     &hi, BANK);
        if (HasFatalFailure()) {
            std::fprintf(stderr, "failing program:\n");
            spu_disasm(q.data(), q.size(), stderr, 1);
            return;
        }
    }
}

// vdiv (per lane a * 2^shift / S, S the int32 of one word, rounded half away
// from zero, saturated; S <= 0 gives 0): against a reference written here
// (quotient and remainder, not the unit's formula) and the model, for many
// divisors, every shift class, both bank placements; cost as a binary op,
// src2 stride ignored, traps, and random programs with the other vector ops.
static int8_t ref_vdiv(int a, int64_t S, unsigned shift)
{
    if (S <= 0) return 0;
    const int64_t num = (int64_t)a * ((int64_t)1 << shift);
    const int64_t mag = num < 0 ? -num : num;
    int64_t q = mag / S;
    if (2 * (mag % S) >= S) q++;                 // half away from zero
    const int64_t v = num < 0 ? -q : q;
    return (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
}

TEST_P(RtlCore, VdivMatchesReferenceAndModel)
{
    if (!g.vector) {   // the boards' build: the opcode is undefined
        run_prog({NOP(), enc(SPU_OP_VDIV), HALT()});
        expect_trap(SPU_TRAP_ILLEGAL, 1);
        return;
    }
    std::mt19937 rng(4242 + GetParam());
    const uint32_t sb = WB < 4 ? WB : 4;           // bytes of S a word holds
    const int64_t divisors[] = {1, 2, 3, 7, 127, 128, 255, 1000, 2032, 65535, 1 << 20, 0x7FFFFFFF,
                                0, -1, -1000, (int64_t)INT32_MIN};
    const unsigned shifts[] = {0, 7, 15, 31};
    int checked = 0;
    for (int64_t S0 : divisors)
        for (unsigned shift : shifts)
            for (int same_bank = 0; same_bank < 2; same_bank++) {
                // a word narrower than 4 bytes holds only the low bytes of S
                int64_t S = S0;
                if (sb < 4) {
                    const uint32_t u = (uint32_t)S0 & ((1u << (8 * sb)) - 1);
                    S = (u >> (8 * sb - 1)) ? (int64_t)u - ((int64_t)1 << (8 * sb)) : (int64_t)u;
                }
                SCOPED_TRACE(::testing::Message() << "S " << S << " shift " << shift << " same_bank " << same_bank);
                std::vector<uint8_t> mem(4096), hi(64);
                for (auto &v : mem) v = (uint8_t)rng();
                for (auto &v : hi) v = (uint8_t)rng();
                for (uint32_t i = 0; i < 16; i++) mem[i] = (uint8_t)(i & 1 ? 0x80 : 0x7F);   // extremes
                mem[16] = 0; mem[17] = 1; mem[18] = 0xFF;
                const uint32_t vl = 6, s1 = 0, sd = 2048;
                const uint32_t sa = same_bank ? 1024 : BANK;   // the word of S
                uint8_t *sw = same_bank ? &mem[sa] : &hi[0];
                for (uint32_t j = 0; j < 4 && j < WB; j++) sw[j] = (uint8_t)((uint64_t)S0 >> (8 * j));
                std::vector<uint8_t> want = mem;
                for (uint32_t i = 0; i < vl * WB; i++) want[sd + i] = (uint8_t)ref_vdiv((int8_t)mem[s1 + i], S, shift);
                // vs2 = 3 (misaligned, not used by vdiv): no trap, S read once per step
                std::vector<uint32_t> p = {LI(1, (int32_t)sd), LI(2, (int32_t)s1), LI(3, (int32_t)sa),
                                           LI(4, (int32_t)vl), LI(5, (int32_t)WB), LI(6, 3),
                                           CFG(SPU_DTYPE_INT32, shift, SPU_ROUND_RNE, 0), VLEN(4), VSTRIDE(5, 5, 6),
                                           CNT(12, SPU_CNT_CYCLES), VOP(SPU_OP_VDIV, 1, 2, 3),
                                           CNT(13, SPU_CNT_CYCLES), HALT()};
                differential(p, mem, {}, (uint32_t)mem.size(), 0, "vdiv", &hi, BANK);
                if (HasFatalFailure()) return;
                std::vector<uint8_t> got = core->spad_read(0, mem.size());
                for (size_t i = 0; i < mem.size(); i++) ASSERT_EQ(got[i], want[i]) << "byte " << i;
                EXPECT_EQ(core->reg(13) - core->reg(12), issue_reg(2u + 3u + vl * (same_bank ? 2 : 1), 13) -
                                                         issue_reg(0, 12));
                EXPECT_EQ(core->counter(SPU_CNT_VEC_STALL), same_bank ? vl : 0u);
                checked++;
            }
    EXPECT_EQ(checked, 16 * 4 * 2);
    // traps: rC misaligned; the S word beyond the scratchpad (at step 0);
    // VL = 0: nothing, no checks
    const uint32_t last = g.spad_bytes - WB;
    struct Case { std::vector<uint32_t> p; int trap; uint32_t pc; };
    std::vector<Case> cases = {
        {{LI(1, 0), LI(2, 1), LI(3, 1), VLEN(2), VOP(SPU_OP_VDIV, 1, 1, 3), HALT()},
         WB > 1 ? SPU_TRAP_MISALIGNED : SPU_TRAP_NONE, 4},
        {{LUI(3, (int32_t)(g.spad_bytes >> 16)), ADDI(3, 3, (int32_t)(g.spad_bytes & 0xFFFF)), LI(2, 2), VLEN(2),
          VOP(SPU_OP_VDIV, 0, 0, 3), HALT()}, SPU_TRAP_SPAD_RANGE, 4},
        {{LUI(1, (int32_t)(last >> 16)), ADDI(1, 1, (int32_t)(last & 0xFFFF)), LI(2, 3), VLEN(2),
          VOP(SPU_OP_VDIV, 1, 0, 0), HALT()}, SPU_TRAP_SPAD_RANGE, 4},
        {{LI(1, 1), VOP(SPU_OP_VDIV, 1, 1, 1), HALT()}, SPU_TRAP_NONE, 0},
    };
    std::vector<uint8_t> mem(4096);
    for (size_t i = 0; i < mem.size(); i++) mem[i] = (uint8_t)(i * 37 + 11);
    for (size_t k = 0; k < cases.size(); k++) {
        auto &c = cases[k];
        differential(c.p, mem, {}, 4096, 0, ("vdiv trap case " + std::to_string(k)).c_str());
        if (HasFatalFailure()) return;
        if (c.trap != SPU_TRAP_NONE) expect_trap(c.trap, c.pc);
    }
    // random programs: vdiv among vrsum (its divisor), vector ops, GEMM blocks, st
    std::vector<uint8_t> m2(8192), hi(4096);
    auto rnd = [&](uint32_t n) { return (uint32_t)(rng() % n); };
    for (int iter = 0; iter < 30; iter++) {
        std::vector<uint32_t> q;
        for (unsigned r = 1; r <= 3; r++)
            q.push_back(LI(r, (int32_t)((rnd(2) ? BANK : 0) + rnd(2048 / WB) * WB)));
        for (unsigned r = 4; r <= 6; r++) q.push_back(LI(r, (int32_t)(4096 + rnd(3072 / WB) * WB)));
        q.push_back(LI(7, (int32_t)rnd(10)));
        q.push_back(LI(11, (int32_t)((1 + rnd(3)) * WB)));
        q.push_back(VLEN(7));
        const int n = 6 + (int)rnd(12);
        for (int i = 0; i < n; i++) {
            switch (rnd(8)) {
            case 0: case 1: q.push_back(VOP(SPU_OP_VDIV, 4 + rnd(3), 1 + rnd(6), 1 + rnd(6))); break;
            case 2: q.push_back(CFG(rnd(2), rnd(32), rnd(3), rnd(2))); break;
            case 3: q.push_back(VSTRIDE(11, 11, 11)); break;
            case 4: q.push_back(MM(1 + rnd(3), 1 + rnd(3), 7)); break;
            case 5: q.push_back(ST(4 + rnd(3))); break;
            case 6: q.push_back(VOP(SPU_OP_VRSUM, 4 + rnd(3), 1 + rnd(6))); break;
            default: q.push_back(VOP(SPU_OP_VADD + rnd(4), 4 + rnd(3), 1 + rnd(6), 1 + rnd(6))); break;
            }
        }
        q.push_back(HALT());
        for (auto &v : m2) v = (uint8_t)rng();
        for (auto &v : hi) v = (uint8_t)(rnd(4) ? rng() : rnd(3));   // small bytes: small divisors too
        differential(q, m2, {}, (uint32_t)m2.size(), 0, ("vdiv program " + std::to_string(iter)).c_str(),
                     &hi, BANK);
        if (HasFatalFailure()) {
            std::fprintf(stderr, "failing program:\n");
            spu_disasm(q.data(), q.size(), stderr, 1);
            return;
        }
    }
}

// MX operands (docs/numerics.md "MX on the array", docs/isa.md "mm"): an mm
// of K element k-steps streams K + ceil(K/32) words, a scale word (A byte i:
// row i's E8M0 scale, B byte j: column j's) after every 32 element words and
// after the last. Random GEMMs per MX dtype in operand regimes (moderate
// codes with usual scales; scales that push block sums below the 2^-32 grid
// (RNE) and to the register's 2^47 (overflow); some NaN scales and element
// specials), K not a multiple of 32, A and B in one bank and in two, out f32
// and bf16 -- RTL vs the model bit and cycle exact, and vs
// exact_ref::dot_exact_mx rounded straight to the out format.
static uint8_t mx_elem(std::mt19937 &rng, unsigned in, int mode)
{
    if (in == SPU_DTYPE_MXINT8) return (uint8_t)rng();
    uint8_t c = (uint8_t)rng();
    if (mode != 3)      // no element NaN / Inf outside mode 3
        while ((in == SPU_DTYPE_MXFP8_E4M3 && (c & 0x7F) == 0x7F) ||
               (in == SPU_DTYPE_MXFP8_E5M2 && (c & 0x7C) == 0x7C))
            c = (uint8_t)rng();
    return c;
}
static uint8_t mx_scale(std::mt19937 &rng, int mode)
{
    switch (mode) {
    case 0: return (uint8_t)(120 + rng() % 15);            // 2^-7 .. 2^7
    case 1: return (uint8_t)(rng() % 40 + 90);             // below the grid: RNE, zeros
    case 2: return (uint8_t)(rng() % 30 + 150);            // up to and past 2^47: overflow
    default: return rng() % 8 == 0 ? 0xFF : (uint8_t)(rng() % 256);
    }
}

// mxfp6 / mxfp4 (the load unit widens them to e4m3 codes): every byte value,
// high bits included (ignored by the device and the reference alike).
static exact_ref::MxElem mx_ref_elem(unsigned in)
{
    return in == SPU_DTYPE_MXFP8_E4M3 ? exact_ref::MX_E4M3 : in == SPU_DTYPE_MXFP8_E5M2 ? exact_ref::MX_E5M2
         : in == SPU_DTYPE_MXFP6_E3M2 ? exact_ref::MX_E3M2 : in == SPU_DTYPE_MXFP6_E2M3 ? exact_ref::MX_E2M3
         : in == SPU_DTYPE_MXFP4_E2M1 ? exact_ref::MX_E2M1 : exact_ref::MX_INT8;
}

TEST_P(RtlCore, MxGemmMatchesModelAndExactReference)
{
    // C's base: clear of a split B at BANK (c4f's 8 KiB scratchpad: BANK = 4096)
    const uint32_t CB = BANK > 4096 ? 4096 : 3072;
    const unsigned ins[] = {SPU_DTYPE_MXFP8_E4M3, SPU_DTYPE_MXFP8_E5M2, SPU_DTYPE_MXINT8,
                            SPU_DTYPE_MXFP6_E3M2, SPU_DTYPE_MXFP6_E2M3, SPU_DTYPE_MXFP4_E2M1};
    const uint32_t R = g.rows, C = g.cols;
    std::mt19937 rng(777 + GetParam());
    int runs = 0;
    for (unsigned in : ins) {
        if (!(g.formats & (1u << in))) {
            // a build without it: cfg in=<mx> traps FORMAT
            run_prog({NOP(), CFGI(in, SPU_DTYPE_F32), HALT()});
            expect_trap(SPU_TRAP_FORMAT, 1);
            continue;
        }
        const exact_ref::MxElem ef = mx_ref_elem(in);
        for (uint32_t K : {1u, 5u, 32u, 33u, 64u, 100u})
            for (int mode = 0; mode < 4; mode++) {
                const int split = (int)((K + mode) & 1);
                const unsigned out = (mode + K) % 3 == 0 ? SPU_DTYPE_BF16 : SPU_DTYPE_F32;
                const unsigned relu = out == SPU_DTYPE_BF16 ? (K & 1) : 0, ovf = out == SPU_DTYPE_BF16 ? (mode & 1) : 0;
                SCOPED_TRACE(::testing::Message() << "in " << in << " K " << K << " mode " << mode << " split " << split
                                                  << " out " << out);
                const uint32_t nb = (K + 31) / 32, W = K + nb;
                std::vector<uint8_t> a(R * K), b(C * K), sa(R * nb), sb(C * nb);   // a[k*R+i], sa[g*R+i]
                for (auto &v : a) v = mx_elem(rng, in, mode);
                for (auto &v : b) v = mx_elem(rng, in, mode);
                for (auto &v : sa) v = mx_scale(rng, mode);
                for (auto &v : sb) v = mx_scale(rng, mode);
                const uint32_t bbase = split ? BANK : 2048;
                std::vector<uint8_t> mem(CB + R * C * 4, 0), hi(W * WB, 0);
                uint8_t *bm = split ? hi.data() : &mem[2048];
                for (uint32_t k = 0; k < K; k++) {
                    for (uint32_t i = 0; i < R; i++) mem[(k + k / 32) * WB + i] = a[k * R + i];
                    for (uint32_t j = 0; j < C; j++) bm[(k + k / 32) * WB + j] = b[k * C + j];
                }
                for (uint32_t gg = 0; gg < nb; gg++) {
                    const uint32_t w = std::min(32 * (gg + 1), K) + gg;
                    for (uint32_t i = 0; i < R; i++) mem[w * WB + i] = sa[gg * R + i];
                    for (uint32_t j = 0; j < C; j++) bm[w * WB + j] = sb[gg * C + j];
                }
                std::vector<uint32_t> p = {CFGI(in, out, 0, 0, relu, ovf), LI(1, 0), LI(2, (int32_t)bbase),
                                           LI(3, (int32_t)K), LI(4, (int32_t)CB), MM(1, 2, 3), ST(4), HALT()};
                differential(p, mem, {}, (uint32_t)mem.size(), 0, "mx gemm", split ? &hi : nullptr,
                             split ? BANK : 0);
                if (HasFatalFailure()) return;
                // the mm costs what the int8 mm of K + ceil(K/32) steps costs
                ASSERT_EQ(core->counter(SPU_CNT_MAC_ACTIVE), W);
                const uint32_t ob = out == SPU_DTYPE_F32 ? 4 : 2;
                std::vector<uint8_t> got = core->spad_read(CB, R * C * 4);
                for (uint32_t i = 0; i < R; i++)
                    for (uint32_t j = 0; j < C; j++) {
                        uint32_t v = 0;
                        std::memcpy(&v, &got[i * C * 4 + j * ob], ob);
                        const exact_ref::ExactSum x =
                            exact_ref::dot_exact_mx(ef, &a[i], R, &b[j], C, K, &sa[i], R, &sb[j], C);
                        const uint32_t want = out == SPU_DTYPE_F32 ? exact_ref::round_to(exact_ref::F32, x, -32, false, true)
                                                                   : exact_ref::round_to(exact_ref::BF16, x, -32, relu, ovf);
                        ASSERT_EQ(v, want) << "C[" << i << "][" << j << "] relu " << relu << " ovf " << ovf;
                    }
                runs++;
            }
    }
    if (g.formats != 1) {
        EXPECT_GT(runs, 100);
    }
}

// MX mm in random programs: strides, K (0..70, across block boundaries),
// bases near the end of the scratchpad (the range trap may fall on an element
// or a scale word), back-to-back mm with and without st, zacc, cfg changes
// between MX dtypes -- RTL vs the model: state, trap, pc, counters, scratchpad.
TEST_P(RtlCore, MxRandomStreamsMatchModel)
{
    if (!(g.formats & (1u << SPU_DTYPE_MXFP8_E4M3))) GTEST_SKIP() << "no MX in this build";
    const unsigned ins[] = {SPU_DTYPE_MXFP8_E4M3, SPU_DTYPE_MXFP8_E5M2, SPU_DTYPE_MXINT8,
                            SPU_DTYPE_MXFP6_E3M2, SPU_DTYPE_MXFP6_E2M3, SPU_DTYPE_MXFP4_E2M1};
    std::mt19937 rng(4711 + GetParam());
    auto rnd = [&](uint32_t n) { return (uint32_t)(rng() % n); };
    const uint32_t region = 4096, top = g.spad_bytes;
    std::vector<uint8_t> tail(2048);
    for (int iter = 0; iter < 60; iter++) {
        std::vector<uint8_t> mem(region);
        // moderate codes and scales, some random bytes (NaN scales, specials)
        for (auto &v : mem) v = (uint8_t)(rng() % 3 ? 0x70 + rng() % 32 : rng());
        for (auto &v : tail) v = (uint8_t)(rng() % 3 ? 0x70 + rng() % 32 : rng());
        const uint32_t sa = rnd(3) * WB, sb = rnd(3) * WB;
        const uint32_t a0 = rnd(3) == 0 ? top - (1 + rnd(40)) * WB : rnd(512 / WB) * WB;
        const uint32_t b0 = rnd(2) ? top - 2048 + rnd(1024 / WB) * WB : rnd(512 / WB) * WB;
        std::vector<uint32_t> p = {CFGI(ins[rnd(6)], rnd(2) ? SPU_DTYPE_F32 : SPU_DTYPE_BF16),
                                   LI(1, (int32_t)a0), LI(2, (int32_t)b0), LI(3, (int32_t)rnd(70)),
                                   LI(5, (int32_t)sa), LI(6, (int32_t)sb), LI(7, (int32_t)(g.cols * 4)), STRIDE(5, 6, 7),
                                   LI(4, 2048)};
        for (int n = 1 + (int)rnd(4); n-- > 0;) {
            p.push_back(MM(1, 2, 3));
            if (rnd(3) == 0) p.push_back(ZACC());
            if (rnd(2)) p.push_back(ST(4));
            if (rnd(4) == 0) p.push_back(CFGI(ins[rnd(6)], SPU_DTYPE_F32));
            p.push_back(ADDI(3, 3, (int32_t)rnd(40)));
        }
        p.push_back(ST(4));
        p.push_back(HALT());
        differential(p, mem, {}, region, 0, ("mx program " + std::to_string(iter)).c_str(), &tail,
                     top - (uint32_t)tail.size());
        if (HasFatalFailure()) {
            spu_disasm(p.data(), p.size(), stderr, 1);
            return;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Geometry, RtlCore, ::testing::Values(8, 4, 1, 5, 6),
                         [](const ::testing::TestParamInfo<int> &i) { return core_name(i.param); });

}  // namespace

// ---- counter reads (the EBR counter store of the 4x4 build) ------------------
namespace {

class RtlCnt : public RtlCore {
  protected:
    // rA = cnt id; rC = rC * 3 + rA (a checksum of every read, compared with
    // the model through the registers)
    static void cnt_sum(std::vector<uint32_t> &p, unsigned id, unsigned a = 12)
    {
        p.push_back(CNT(a, (int32_t)id));
        p.push_back(ADD(15, 15, 15));
        p.push_back(ADD(15, 15, a));
    }
    std::vector<uint8_t> mem() const
    {
        std::vector<uint8_t> m(4096);
        for (size_t i = 0; i < m.size(); i++) m[i] = (uint8_t)(i * 7 + 3);
        return m;
    }
};

// `cnt` of every counter in tight sequences, right after RUN, in loops, after a
// st with a long drain, after drain and bank stalls and a mul, against the model.
TEST_P(RtlCnt, CntEverywhereMatchesModel)
{
    const unsigned ids = SPU_CNT_LINK_TX + 1;
    // right after RUN: each counter as the first instruction, and back to back
    for (unsigned id = 0; id < ids; id++) {
        std::vector<uint32_t> p = {CNT(1, (int32_t)id), CNT(2, (int32_t)id), CNT(3, (int32_t)((id + 1) % ids)),
                                   HALT()};
        differential(p, mem(), {}, 0, 0, ("first cnt " + std::to_string(id)).c_str());
        if (HasFatalFailure()) return;
    }
    // all ids back to back, twice, into different registers
    {
        std::vector<uint32_t> p;
        for (unsigned k = 0; k < 2; k++)
            for (unsigned id = 0; id < ids; id++) p.push_back(CNT(1 + (id + k) % 14, (int32_t)id));
        p.push_back(HALT());
        differential(p, mem(), {}, 0, 0, "tight");
        if (HasFatalFailure()) return;
    }
    // st with a long drain, then reads during the drain, st waiting (stall),
    // sync, bank conflicts, mul, all in a loop with zero-overhead back edges
    for (unsigned variant = 0; variant < 4; variant++) {
        std::vector<uint32_t> p = {LI(1, 0), LI(2, (int32_t)(WB * 16)), LI(3, (int32_t)(BANK + 1024)), LI(4, 2048),
                                   LI(7, 5), LI(8, (int32_t)(3 + variant * 7)), LI(15, 0), LI(9, 7)};
        uint32_t loop_at = (uint32_t)p.size();
        p.push_back(LOOP(8, 0));   // end patched below
        p.push_back(MM(1, variant & 1 ? 3 : 2, 7));   // same bank when variant is odd (B = BANK)
        for (unsigned id = 0; id < ids; id++) cnt_sum(p, (id + variant) % ids);
        p.push_back(ST(4));
        cnt_sum(p, SPU_CNT_DRAIN_BUSY);
        cnt_sum(p, SPU_CNT_CYCLES);
        p.push_back(ST(4));                           // waits for the first drain
        cnt_sum(p, SPU_CNT_STALL_DRAIN);
        cnt_sum(p, SPU_CNT_DRAIN_BUSY);
        p.push_back(MUL(13, 9, 7));
        cnt_sum(p, SPU_CNT_CYCLES);
        cnt_sum(p, SPU_CNT_INSTRET);
        if (variant >= 2) p.push_back(SYNC());
        cnt_sum(p, SPU_CNT_STALL_BANK);
        cnt_sum(p, SPU_CNT_MAC_ACTIVE);
        p.push_back(CNT(14, SPU_CNT_MM_CYCLES));       // last instruction of the body
        uint32_t end = (uint32_t)p.size();
        p[loop_at] = LOOP(8, (int32_t)end);
        for (unsigned id = 0; id < ids; id++) p.push_back(CNT(1 + id, (int32_t)id));
        p.push_back(HALT());
        differential(p, mem(), {}, 4096, 0, ("loop variant " + std::to_string(variant)).c_str());
        if (HasFatalFailure()) {
            spu_disasm(p.data(), p.size(), stderr, 1);
            return;
        }
    }
}

// random cnt-heavy programs (every id, loops up to 40 iterations) against the model
TEST_P(RtlCnt, RandomCntHeavyProgramsMatchModel)
{
    std::mt19937 rng(777 + GetParam());
    auto rnd = [&](uint32_t n) { return (uint32_t)(rng() % n); };
    for (int iter = 0; iter < 40; iter++) {
        std::vector<uint32_t> p = {LI(1, 0), LI(2, (int32_t)(WB * 8)), LI(3, (int32_t)(BANK + 1024)), LI(4, 2048),
                                   LI(5, 2560), LI(7, (int32_t)rnd(9)), LI(15, 0), LI(9, 3)};
        auto op = [&]() {
            switch (rnd(9)) {
            case 0: p.push_back(MM(1 + rnd(3), 1 + rnd(3), 7)); break;
            case 1: p.push_back(ST(4 + rnd(2))); break;
            case 2: p.push_back(SYNC()); break;
            case 3: p.push_back(MUL(13, 9, 7)); break;
            case 4: p.push_back(CFG(rnd(2), 0, 0, 0)); break;
            case 5: p.push_back(NOP()); break;
            default: cnt_sum(p, rnd(SPU_CNT_LINK_TX + 1), 12 + rnd(2)); break;
            }
        };
        int n = 4 + (int)rnd(12);
        for (int i = 0; i < n; i++) {
            if (rnd(4) == 0) {
                p.push_back(LI(10, (int32_t)rnd(40)));
                uint32_t at = (uint32_t)p.size();
                p.push_back(NOP());
                int len = 1 + (int)rnd(5);
                for (int j = 0; j < len; j++) op();
                p[at] = LOOP(10, (int32_t)p.size());
            } else {
                op();
            }
        }
        p.push_back(HALT());
        differential(p, mem(), {}, 0, rnd(5) == 0 ? 100 + rnd(2000) : 0,
                     ("cnt program " + std::to_string(iter)).c_str());
        if (HasFatalFailure()) {
            spu_disasm(p.data(), p.size(), stderr, 1);
            return;
        }
    }
}

// link counters pulsed in every cycle (the highest event rate) while `cnt`
// reads them: LINK_RX - CYCLES read one instruction apart stays constant.
TEST_P(RtlCnt, LinkCountersAtFullRateStayExact)
{
    // r5 = first difference; r6 = 1 once a later difference differs
    std::vector<uint32_t> p = {LI(6, 0), LI(8, 60), LI(1, 0), LI(2, (int32_t)WB * 4), LI(7, 3),
                               CNT(11, SPU_CNT_CYCLES), CNT(12, SPU_CNT_LINK_RX), SUB(5, 12, 11)};
    uint32_t loop_at = (uint32_t)p.size();
    p.push_back(NOP());
    p.push_back(CNT(11, SPU_CNT_CYCLES));
    p.push_back(CNT(12, SPU_CNT_LINK_RX));
    p.push_back(SUB(13, 12, 11));
    p.push_back(BNE(13, 5, 0));   // patched: to the bad halt
    p.push_back(CNT(11, SPU_CNT_CYCLES));
    p.push_back(CNT(12, SPU_CNT_LINK_TX));
    p.push_back(SUB(13, 12, 11));
    p.push_back(BNE(13, 5, 0));
    p.push_back(MM(1, 2, 7));
    p.push_back(CNT(14, SPU_CNT_LINK_TX));
    uint32_t end = (uint32_t)p.size();
    p[loop_at] = LOOP(8, (int32_t)end);
    p.push_back(HALT());
    uint32_t bad = (uint32_t)p.size();
    p.push_back(HALT());
    p[loop_at + 4] = BNE(13, 5, (int32_t)bad);
    p[loop_at + 8] = BNE(13, 5, (int32_t)bad);
    core->load_ucode(p);
    core->set_link(true, true);
    core->start_run();
    uint64_t n = 0;
    while (core->state() == SPU_STATE_RUNNING && n < 100000) { core->tick(); n++; }
    core->set_link(false, false);
    ASSERT_EQ(core->state(), SPU_STATE_HALTED);
    EXPECT_EQ(core->pc(), bad - 1) << "a LINK_RX/TX - CYCLES difference changed";
    // the link counters count since reset: RX == TX, and equal to the ticks pulsed
    uint64_t rx = core->counter(SPU_CNT_LINK_RX), tx = core->counter(SPU_CNT_LINK_TX);
    EXPECT_EQ(rx, tx);
    EXPECT_EQ(rx, n + 1);
}

// the host path (cnt_sel/cnt_value/cnt_fresh) while a kernel runs and after it:
// fresh values never go backwards, LINK_RX lies between the pulses counted 40
// cycles before it was selected (re-selecting the same id is fresh at once with
// a value up to one refresh round old; a `cnt` delays a load) and now, and after the halt every counter equals the model.
TEST_P(RtlCnt, HostReadsWhileAndAfterRunning)
{
    std::vector<uint32_t> p = {LI(1, 0), LI(2, (int32_t)WB * 4), LI(4, 2048), LI(7, 5), LI(8, 30), LI(9, 3)};
    p.push_back(LOOP(8, (int32_t)p.size() + 6));
    p.push_back(MM(1, 2, 7));
    p.push_back(ST(4));
    p.push_back(MUL(13, 9, 9));
    p.push_back(CNT(12, SPU_CNT_DRAIN_BUSY));
    p.push_back(SYNC());
    p.push_back(CNT(12, SPU_CNT_STALL_DRAIN));
    p.push_back(HALT());
    spu_model *m = new_model();
    ASSERT_EQ(spu_model_load_ucode(m, 0, p.data(), p.size()), 0);
    spu_model_run(m, 0, 0);
    spu_counters_t c;
    spu_model_counters(m, &c);
    spu_model_free(m);

    core->load_ucode(p);
    uint64_t rx_before = core->counter(SPU_CNT_LINK_RX);
    core->start_run();
    std::mt19937 rng(99 + GetParam());
    std::vector<uint64_t> last(SPU_CNT_LINK_TX + 1, 0);
    uint64_t pulses = rx_before, reads = 0;
    unsigned id = 0;
    std::vector<uint64_t> hist;   // pulses before each tick
    uint64_t sel_pulses = pulses;
    bool waiting = false;
    for (int guard = 0; core->state() == SPU_STATE_RUNNING && guard < 200000; guard++) {
        if (!waiting) {
            id = (unsigned)(rng() % (SPU_CNT_LINK_TX + 1));
            core->set_cnt_sel(id);
            sel_pulses = hist.size() < 40 ? rx_before : hist[hist.size() - 40];
            waiting = true;
        }
        bool rx = (rng() % 3) != 0;
        core->set_link(rx, false);
        hist.push_back(pulses);
        core->tick();
        if (rx) pulses++;
        if (waiting && core->cnt_fresh()) {
            uint64_t v = core->cnt_value();
            EXPECT_GE(v, last[id]) << "counter " << id << " went backwards";
            last[id] = v;
            if (id == SPU_CNT_LINK_RX) {
                EXPECT_GE(v, sel_pulses);
                EXPECT_LE(v, pulses);
            }
            waiting = false;
            reads++;
        }
    }
    core->set_link(false, false);
    ASSERT_EQ(core->state(), SPU_STATE_HALTED);
    EXPECT_GT(reads, 20u);
    for (int i = 0; i <= SPU_CNT_DRAIN_BUSY; i++) {
        EXPECT_GE(c.v[i], last[i]) << "counter " << i;
        EXPECT_EQ(core->counter(i), c.v[i]) << "counter " << i;
    }
    EXPECT_EQ(core->counter(SPU_CNT_LINK_RX), pulses);
    EXPECT_EQ(core->counter(SPU_CNT_LINK_TX), 0u);
    // the same counters again, in reverse order, a while later
    for (int k = 0; k < 50; k++) core->tick();
    for (int i = SPU_CNT_DRAIN_BUSY; i >= 0; i--) EXPECT_EQ(core->counter(i), c.v[i]) << "counter " << i;
    EXPECT_EQ(core->counter(15), 0u);
}

INSTANTIATE_TEST_SUITE_P(Geometry, RtlCnt, ::testing::Values(8, 4, 1, 5),
                         [](const ::testing::TestParamInfo<int> &i) { return core_name(i.param); });

}  // namespace
