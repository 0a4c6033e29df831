// test_asm.cc -- the assembler and disassembler (host/src/asm/) and the
// `spu asm` / `spu disasm` commands, end to end through build/bin/spu.
#include <gtest/gtest.h>
#include "../model/run_cmd.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <regex>
#include <random>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern "C" {
#include "spu/asm.h"
#include "spu/isa.h"
#include "spu/spu.h"
}

namespace {

struct Result {
    int rc;
    std::vector<uint32_t> words;
    std::string err;
};

Result assemble(const std::string &src, const char *file = "t.s")
{
    Result r;
    spu_image img = {};
    std::vector<char> err(1 << 16);
    r.rc = spu_asm(src.c_str(), file, &img, err.data(), err.size());
    r.err = err.data();
    r.words.assign(img.words, img.words + img.nwords);
    if (r.rc != 0) {
        EXPECT_EQ(img.words, nullptr) << "partial image on error";
        EXPECT_EQ(img.nwords, 0u);
    }
    spu_image_free(&img);
    return r;
}

uint32_t enc(unsigned op, unsigned a, unsigned b, unsigned c, int32_t imm)
{
    spu_insn in = {op, a, b, c, imm};
    uint32_t w = 0;
    EXPECT_EQ(spu_isa_encode(&in, &w), 0) << "op " << op << " imm " << imm;
    return w;
}

// The single error of a source: "t.s:LINE:COL: error: ..." containing `what`.
void expect_error(const std::string &src, int line, int col, const std::string &what)
{
    Result r = assemble(src);
    EXPECT_EQ(r.rc, SPU_EPARSE) << src;
    std::string want = "t.s:" + std::to_string(line) + ":" + std::to_string(col) + ": error: ";
    EXPECT_EQ(r.err.rfind(want, 0), 0u) << "source:\n" << src << "\ngot:\n" << r.err << "want prefix " << want;
    EXPECT_NE(r.err.find(what), std::string::npos) << "source:\n" << src << "\ngot:\n" << r.err << "want " << what;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

std::string disasm_text(const std::vector<uint32_t> &w, int annotate = 0)
{
    char *buf = nullptr;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    EXPECT_EQ(spu_disasm(w.data(), w.size(), f, annotate), 0);
    fclose(f);
    std::string s(buf, len);
    free(buf);
    return s;
}

} // namespace

// ---- encodings -------------------------------------------------------------

TEST(Asm, BasicEncodings)
{
    Result r = assemble(
        "nop\n"
        "add r1, r2, r3\n"
        "addi r15, r0, -131072\n"
        "shli r4, r5, 31\n"
        "li r6, -2097152\n"
        "lui r7, 0xffff\n"
        "st r9\n"
        "halt\n");
    ASSERT_EQ(r.rc, 0) << r.err;
    std::vector<uint32_t> want = {
        enc(SPU_OP_NOP, 0, 0, 0, 0),          enc(SPU_OP_ADD, 1, 2, 3, 0),
        enc(SPU_OP_ADDI, 15, 0, 0, -131072),  enc(SPU_OP_SHLI, 4, 5, 0, 31),
        enc(SPU_OP_LI, 6, 0, 0, -2097152),    enc(SPU_OP_LUI, 7, 0, 0, 0xffff),
        enc(SPU_OP_ST, 9, 0, 0, 0),           enc(SPU_OP_HALT, 0, 0, 0, 0),
    };
    EXPECT_EQ(r.words, want);
}

TEST(Asm, CaseCommentsAndBlankLines)
{
    Result r = assemble("  ; only a comment\n"
                        "\n"
                        "ADD R1, r2, R3   # hash comment\n"
                        "\tsub r1,r2,r3// slash comment\n"
                        "// whole line\n"
                        "nop;tight\n");
    ASSERT_EQ(r.rc, 0) << r.err;
    std::vector<uint32_t> want = {enc(SPU_OP_ADD, 1, 2, 3, 0), enc(SPU_OP_SUB, 1, 2, 3, 0),
                                  enc(SPU_OP_NOP, 0, 0, 0, 0)};
    EXPECT_EQ(r.words, want);
}

TEST(Asm, LabelsForwardAndBackward)
{
    Result r = assemble("start: nop\n"
                        "       bne r1, r2, done\n"
                        "a: b:  jmp start\n"
                        "       blt r1, r2, b\n"
                        "done:\n"
                        "       halt\n");
    ASSERT_EQ(r.rc, 0) << r.err;
    ASSERT_EQ(r.words.size(), 5u);
    EXPECT_EQ(r.words[1], enc(SPU_OP_BNE, 1, 2, 0, 4));
    EXPECT_EQ(r.words[2], enc(SPU_OP_JMP, 0, 0, 0, 0));
    EXPECT_EQ(r.words[3], enc(SPU_OP_BLT, 1, 2, 0, 2));
}

TEST(Asm, EquAliasAndExpressions)
{
    Result r = assemble(".equ N, 10\n"
                        ".equ M, (N + 2) * 3 - 1        ; 35\n"
                        ".equ LATE, end - top           ; forward label in .equ\n"
                        ".alias acc, r9\n"
                        ".alias ptr, acc                ; alias of an alias\n"
                        "top: addi acc, r0, M\n"
                        "     addi ptr, r1, -N\n"
                        "     addi r2, r0, 0x10 | 0b101\n"
                        "     addi r3, r0, 1 << 4 >> 2\n"
                        "     addi r4, r0, ~0 & 0xff\n"
                        "     addi r5, r0, 17 % 5 + 17 / 5 ^ 1\n"
                        "     addi r6, r0, LATE\n"
                        "     addi r7, r0, -(-3)\n"
                        "end: .word N, -1, 0xdeadbeef\n");
    ASSERT_EQ(r.rc, 0) << r.err;
    std::vector<uint32_t> want = {
        enc(SPU_OP_ADDI, 9, 0, 0, 35),   enc(SPU_OP_ADDI, 9, 1, 0, -10),
        enc(SPU_OP_ADDI, 2, 0, 0, 0x15), enc(SPU_OP_ADDI, 3, 0, 0, 4),
        enc(SPU_OP_ADDI, 4, 0, 0, 255),  enc(SPU_OP_ADDI, 5, 0, 0, (2 + 3) ^ 1),
        enc(SPU_OP_ADDI, 6, 0, 0, 8),    enc(SPU_OP_ADDI, 7, 0, 0, 3),
        10u, 0xFFFFFFFFu, 0xDEADBEEFu,
    };
    EXPECT_EQ(r.words, want);
}

TEST(Asm, AliasRebinding)
{
    Result r = assemble(".alias t, r3\nmov t, r1\n.alias t, r4\nmov t, r1\n");
    ASSERT_EQ(r.rc, 0) << r.err;
    std::vector<uint32_t> want = {enc(SPU_OP_ADDI, 3, 1, 0, 0), enc(SPU_OP_ADDI, 4, 1, 0, 0)};
    EXPECT_EQ(r.words, want);
}

TEST(Asm, CfgAndCounters)
{
    Result r = assemble("cfg\n"
                        "cfg in=int8 out=int8 shift=7 round=rna relu=1\n"
                        "cfg relu=1, shift=3\n"
                        "cnt r1, cycles\n"
                        "cnt r2, STALL_DRAIN\n"
                        "cnt r3, 1\n");
    ASSERT_EQ(r.rc, 0) << r.err;
    ASSERT_EQ(r.words.size(), 6u);
    // bare cfg = every field at its default from spu_cfg.def
    uint32_t def = 0;
    for (int i = 0; i < SPU_CFG_FIELD_COUNT; i++)
        def |= spu_cfg_field_table[i].def << spu_cfg_field_table[i].lsb;
    EXPECT_EQ(r.words[0], enc(SPU_OP_CFG, 0, 0, 0, (int32_t)def));
    auto field = [](int f, uint32_t v) { return v << spu_cfg_field_table[f].lsb; };
    uint32_t c1 = field(SPU_CFG_IN, SPU_DTYPE_INT8) | field(SPU_CFG_OUT, SPU_DTYPE_INT8) |
                  field(SPU_CFG_SHIFT, 7) | field(SPU_CFG_ROUND, SPU_ROUND_RNA) | field(SPU_CFG_RELU, 1);
    EXPECT_EQ(r.words[1], enc(SPU_OP_CFG, 0, 0, 0, (int32_t)c1));
    uint32_t c2 = (def & ~field(SPU_CFG_SHIFT, 31) & ~field(SPU_CFG_RELU, 1)) | field(SPU_CFG_SHIFT, 3) |
                  field(SPU_CFG_RELU, 1);
    EXPECT_EQ(r.words[2], enc(SPU_OP_CFG, 0, 0, 0, (int32_t)c2));
    EXPECT_EQ(r.words[3], enc(SPU_OP_CNT, 1, 0, 0, SPU_CNT_CYCLES));
    EXPECT_EQ(r.words[4], enc(SPU_OP_CNT, 2, 0, 0, SPU_CNT_STALL_DRAIN));
    EXPECT_EQ(r.words[5], enc(SPU_OP_CNT, 3, 0, 0, 1));
}

// ---- pseudo-instructions -----------------------------------------------------

namespace {
// Execute lui/addi/li the way docs/isa.md defines them.
uint32_t run_li(const std::vector<uint32_t> &w)
{
    uint32_t reg = 0xAAAAAAAA;
    for (uint32_t word : w) {
        spu_insn in;
        EXPECT_EQ(spu_isa_decode(word, &in), 0);
        if (in.opcode == SPU_OP_LI) reg = (uint32_t)in.imm;
        else if (in.opcode == SPU_OP_LUI) reg = (uint32_t)in.imm << 16;
        else if (in.opcode == SPU_OP_ADDI) { EXPECT_EQ(in.a, in.b); reg = reg + (uint32_t)in.imm; }
        else ADD_FAILURE() << "unexpected opcode " << in.opcode;
    }
    return reg;
}
} // namespace

TEST(Asm, LiPseudoInstruction)
{
    std::vector<int64_t> vals = {0, 1, -1, (1 << 21) - 1, -(1 << 21), 1 << 21, -(1 << 21) - 1,
                                 0x7FFF8000, 0x7FFF7FFF, 0x7FFFFFFF, -0x7FFFFFFFLL - 1, 0xFFFFFFFFLL,
                                 0x80000000LL, 0x12345678, 0x8000, 0xFFFF8000LL, 0x00008000};
    std::mt19937 rng(7);
    for (int i = 0; i < 2000; i++) vals.push_back((int64_t)(int32_t)rng());
    for (int64_t v : vals) {
        Result r = assemble("li r5, " + std::to_string(v) + "\n");
        ASSERT_EQ(r.rc, 0) << v << ": " << r.err;
        bool fits = v >= -(1 << 21) && v < (1 << 21);
        ASSERT_EQ(r.words.size(), fits ? 1u : 2u) << v;
        EXPECT_EQ(run_li(r.words), (uint32_t)v) << v;
        spu_insn in;
        ASSERT_EQ(spu_isa_decode(r.words[0], &in), 0);
        EXPECT_EQ(in.a, 5u);
    }
}

TEST(Asm, LiForwardReferenceUsesTwoWords)
{
    // a forward reference has no value in pass 1: always the two-word form
    Result r = assemble("li r1, later\nli r2, early\nearly: nop\nlater: halt\n");
    ASSERT_EQ(r.rc, 0) << r.err;
    ASSERT_EQ(r.words.size(), 6u);
    EXPECT_EQ(run_li({r.words[0], r.words[1]}), 5u);
    EXPECT_EQ(run_li({r.words[2], r.words[3]}), 4u);
    // a backward reference or an earlier .equ is known: one word
    Result b = assemble(".equ K, 100\nhere: li r1, here\nli r2, K\n");
    ASSERT_EQ(b.rc, 0) << b.err;
    EXPECT_EQ(b.words, (std::vector<uint32_t>{enc(SPU_OP_LI, 1, 0, 0, 0), enc(SPU_OP_LI, 2, 0, 0, 100)}));
}

TEST(Asm, MovPseudoInstruction)
{
    Result r = assemble("mov r3, r12\n");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.words, std::vector<uint32_t>{enc(SPU_OP_ADDI, 3, 12, 0, 0)});
}

// ---- loops -------------------------------------------------------------------

TEST(Asm, LoopsNested)
{
    Result r = assemble("    loop r1, outer_end\n"
                        "    loop r2, inner_end\n"
                        "    nop\n"
                        "inner_end:\n"
                        "    nop\n"
                        "outer_end:\n"
                        "    halt\n");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.words[0], enc(SPU_OP_LOOP, 1, 0, 0, 4));
    EXPECT_EQ(r.words[1], enc(SPU_OP_LOOP, 2, 0, 0, 3));
    // two loops ending at the same address but not nested are fine
    Result s = assemble("loop r1, e\nnop\ne: loop r2, e2\nnop\ne2: halt\n");
    EXPECT_EQ(s.rc, 0) << s.err;
}

TEST(Asm, LoopErrors)
{
    expect_error("nop\nloop r1, next\nnext: halt\n", 2, 10, "loop body is empty");
    expect_error("loop r1, 0\nhalt\n", 1, 10, "loop body is empty");
    expect_error("loop r1, e\n  loop r2, e\n  nop\ne: halt\n", 2, 3, "same address");
}

// ---- errors --------------------------------------------------------------------

TEST(Asm, ErrorPositions)
{
    expect_error("nop\n  frob r1\n", 2, 3, "unknown instruction 'frob'");
    expect_error("add r1, r2\n", 1, 1, "takes 3 operands");
    expect_error("add r1, r2, r3, r4\n", 1, 17, "takes 3 operands");
    expect_error("halt r1\n", 1, 6, "takes no operands");
    expect_error("add r1, r2, r16\n", 1, 13, "bad register 'r16'");
    expect_error("add r1, x, r2\n", 1, 9, "expected a register");
    expect_error("st 5\n", 1, 4, "expected a register");
    expect_error("addi r1, r2, r3\n", 1, 14, "register 'r3' where a value is expected");
    expect_error("addi r1, r2, 131072\n", 1, 14, "out of range");
    expect_error("addi r1, r2, -131073\n", 1, 14, "-131072..131071");
    expect_error("shli r1, r2, 32\n", 1, 14, "0..31");
    expect_error("lui r1, 0x10000\n", 1, 9, "0..65535");
    expect_error("li r1, 0x100000000\n", 1, 8, "out of range");
    expect_error("jmp 0x400000\n", 1, 5, "out of range");
    expect_error("bne r1, r2, 262144\n", 1, 13, "0..262143");
    expect_error("jmp nowhere\n", 1, 5, "undefined symbol 'nowhere'");
    expect_error("x: nop\n x: nop\n", 2, 2, "duplicate symbol 'x'");
    expect_error(".equ x, 1\nx: nop\n", 2, 1, "duplicate symbol 'x'");
    expect_error("r3: nop\n", 1, 1, "is a register");
    expect_error(".equ B, C\nnop\n", 1, 9, "undefined symbol 'C'");
    expect_error("addi r1, r0, 1/0\n", 1, 15, "division by zero");
    expect_error("addi r1, r0, (1+2\n", 1, 18, "expected ')'");
    expect_error("addi r1, r0, 0x1g\n", 1, 14, "malformed number");
    expect_error("add r1, , r2\n", 1, 9, "empty operand");
    expect_error(".bogus 1\n", 1, 1, "unknown directive");
    expect_error(".alias t, r99\n", 1, 11, "bad register");
    expect_error("cfg in=int9\n", 1, 8, "unknown value 'int9'");
    expect_error("cfg bogus=1\n", 1, 5, "unknown cfg key 'bogus'");
    expect_error("cfg shift=32\n", 1, 11, "0..31");
    expect_error("cfg round=3\n", 1, 11, "no rounding mode");
    expect_error("cfg in=int32\n", 1, 8, "cannot be an array input");
    expect_error("cfg relu=1 relu=0\n", 1, 12, "given twice");
    expect_error("cfg shift\n", 1, 5, "expected key=value");
    expect_error("cnt r1, cyclez\n", 1, 9, "unknown counter 'cyclez'");
    expect_error("cnt r1, 999\n", 1, 9, "unknown counter id 999");
    expect_error(".word 0x100000000\n", 1, 7, "32 bits");
    expect_error("nop\n\n   123\n", 3, 4, "expected a label, an instruction or a directive");
}

TEST(Asm, AllErrorsCollectedInOrderNoImage)
{
    Result r = assemble("bad1\nnop\nadd r1\njmp missing\ndup: nop\ndup: nop\n", "prog.s");
    EXPECT_EQ(r.rc, SPU_EPARSE);
    EXPECT_TRUE(r.words.empty());
    EXPECT_EQ(r.err,
              "prog.s:1:1: error: unknown instruction 'bad1'\n"
              "prog.s:3:1: error: 'add' takes 3 operands (rA, rB, rC), got 1\n"
              "prog.s:4:5: error: undefined symbol 'missing'\n"
              "prog.s:6:1: error: duplicate symbol 'dup' (first defined at line 5)\n");
}

TEST(Asm, CircularEqu)
{
    Result r = assemble(".equ A, B\n.equ B, A * 2\nnop\n");
    EXPECT_EQ(r.rc, SPU_EPARSE);
    EXPECT_EQ(r.err, "t.s:1:9: error: circular .equ definition of 'A'\n"
                     "t.s:2:9: error: circular .equ definition of 'B'\n");
}

TEST(Asm, ErrorBufferTruncatesSafely)
{
    std::string src;
    for (int i = 0; i < 50; i++) src += "frob\n";
    spu_image img = {};
    char err[40];
    memset(err, 'x', sizeof err);
    EXPECT_EQ(spu_asm(src.c_str(), "t.s", &img, err, sizeof err), SPU_EPARSE);
    EXPECT_LT(strlen(err), sizeof err);
    EXPECT_EQ(std::string(err).rfind("t.s:1:1: error:", 0), 0u);
    EXPECT_EQ(spu_asm(src.c_str(), "t.s", &img, nullptr, 0), SPU_EPARSE);
    EXPECT_EQ(img.words, nullptr);
}

TEST(Asm, EmptySource)
{
    Result r = assemble("");
    EXPECT_EQ(r.rc, 0);
    EXPECT_TRUE(r.words.empty());
    Result c = assemble("; nothing\n\n");
    EXPECT_EQ(c.rc, 0);
    EXPECT_TRUE(c.words.empty());
}

// ---- disassembly re-assembles to the same words --------------------------------

namespace {
struct Range { int64_t lo, hi; };
// Legal operand values the assembler accepts for each instruction.
std::vector<uint32_t> random_legal_words(std::mt19937_64 &rng, int per_insn, size_t prog_len)
{
    std::vector<uint32_t> out;
    for (size_t i = 0; i < spu_isa_table_len; i++) {
        const spu_insn_desc &d = spu_isa_table[i];
        for (int k = 0; k < per_insn; k++) {
            spu_insn in = {d.opcode, (unsigned)(rng() & 15), (unsigned)(rng() & 15),
                           (unsigned)(rng() & 15), 0};
            switch (d.format) {
            case SPU_FMT_RRI:
                in.imm = d.opcode == SPU_OP_SHLI ? (int32_t)(rng() % 32)
                                                 : (int32_t)(rng() % (1 << 18)) - (1 << 17);
                break;
            case SPU_FMT_BR: in.imm = (int32_t)(rng() % (1 << 18)); break;
            case SPU_FMT_J: in.imm = (int32_t)(rng() % (1 << 22)); break;
            case SPU_FMT_LOOP: in.imm = (int32_t)(prog_len + 2 + rng() % 1000); break;  // non-empty body
            case SPU_FMT_CNT: in.imm = (int32_t)(rng() % SPU_CNT_COUNT); break;
            case SPU_FMT_LI:
                in.imm = d.opcode == SPU_OP_LUI ? (int32_t)(rng() % 65536)
                                                : (int32_t)(rng() % (1 << 22)) - (1 << 21);
                break;
            case SPU_FMT_CFG: {
                uint32_t v = 0;
                for (int f = 0; f < SPU_CFG_FIELD_COUNT; f++) {
                    const spu_cfg_field_desc &fd = spu_cfg_field_table[f];
                    uint32_t x = (uint32_t)(rng() % (1u << fd.width));
                    if (f == SPU_CFG_IN) x = SPU_DTYPE_INT8;
                    if (f == SPU_CFG_OUT) x = rng() & 1 ? SPU_DTYPE_INT8 : SPU_DTYPE_INT32;
                    if (f == SPU_CFG_ROUND) x = (uint32_t)(rng() % 3);
                    v |= x << fd.lsb;
                }
                in.imm = (int32_t)v;
                break;
            }
            default: break;
            }
            uint32_t w = 0;
            EXPECT_EQ(spu_isa_encode(&in, &w), 0) << d.mnemonic;
            spu_insn dec;
            EXPECT_EQ(spu_isa_decode(w, &dec), 0);
            out.push_back(w);
        }
    }
    return out;
}
} // namespace

TEST(Disasm, EveryOpcodeRandomLegalOperandsReassembles)
{
    std::mt19937_64 rng(99);
    std::vector<uint32_t> words = random_legal_words(rng, 300, 300 * spu_isa_table_len);
    // each word on its own, at its pc
    for (size_t pc = 0; pc < words.size(); pc++) {
        char buf[256];
        ASSERT_EQ(spu_disasm_word(words[pc], (uint32_t)pc, buf, sizeof buf), 0) << buf;
        EXPECT_EQ(strstr(buf, ".word"), nullptr) << buf;
    }
    // the whole program
    std::string text = disasm_text(words);
    Result r = assemble(text);
    ASSERT_EQ(r.rc, 0) << r.err;
    ASSERT_EQ(r.words.size(), words.size());
    size_t diffs = 0;
    for (size_t i = 0; i < words.size() && diffs < 10; i++)
        if (r.words[i] != words[i]) {
            diffs++;
            ADD_FAILURE() << "pc " << i << std::hex << ": 0x" << words[i] << " -> 0x" << r.words[i];
        }
    // with --addr annotations as well
    Result a = assemble(disasm_text(words, 1));
    ASSERT_EQ(a.rc, 0) << a.err;
    EXPECT_EQ(a.words, words);
}

TEST(Disasm, RandomWordSweepReassembles)
{
    std::mt19937_64 rng(2024);
    std::vector<uint32_t> words;
    size_t valid = 0;
    for (int i = 0; i < 60000; i++) {
        uint32_t w;
        if (i % 2) {
            w = (uint32_t)rng();   // anything
        } else {                   // a defined opcode with a random legal-shape body
            const spu_insn_desc &d = spu_isa_table[rng() % spu_isa_table_len];
            w = (uint32_t)d.opcode << 26 | ((uint32_t)rng() & spu_format_table[d.format].mask);
        }
        words.push_back(w);
        char buf[256];
        spu_insn in;
        int dec = spu_isa_decode(w, &in);
        int rc = spu_disasm_word(w, (uint32_t)i, buf, sizeof buf);
        if (dec != 0) {
            EXPECT_EQ(rc, SPU_EINVAL);
            EXPECT_EQ(std::string(buf).rfind(".word 0x", 0), 0u) << buf;
        }
        valid += rc == 0;
        // every single line re-assembles to its word (pc matters only for loops)
        if (i < 4000 && !(rc == 0 && in.opcode == SPU_OP_LOOP)) {
            Result r = assemble(std::string(buf) + "\n");
            ASSERT_EQ(r.rc, 0) << buf << "\n" << r.err;
            ASSERT_EQ(r.words.size(), 1u) << buf;
            EXPECT_EQ(r.words[0], w) << buf;
        }
    }
    EXPECT_GT(valid, 20000u) << "the sweep should hit many valid instructions";
    Result r = assemble(disasm_text(words));
    ASSERT_EQ(r.rc, 0) << r.err.substr(0, 2000);
    EXPECT_EQ(r.words, words);
}

TEST(Disasm, NotAssemblableWordsBecomeDotWord)
{
    char buf[256];
    // unknown counter id
    uint32_t w = enc(SPU_OP_CNT, 1, 0, 0, 200);
    EXPECT_EQ(spu_disasm_word(w, 0, buf, sizeof buf), SPU_EINVAL);
    EXPECT_NE(strstr(buf, "unknown counter"), nullptr) << buf;
    // cfg round = 3
    w = enc(SPU_OP_CFG, 0, 0, 0, (int32_t)(3u << spu_cfg_field_table[SPU_CFG_ROUND].lsb));
    EXPECT_EQ(spu_disasm_word(w, 0, buf, sizeof buf), SPU_EINVAL);
    // empty loop body at pc 5
    w = enc(SPU_OP_LOOP, 1, 0, 0, 6);
    EXPECT_EQ(spu_disasm_word(w, 5, buf, sizeof buf), SPU_EINVAL);
    EXPECT_EQ(spu_disasm_word(w, 4, buf, sizeof buf), 0);
    EXPECT_STREQ(buf, "loop r1, 6");
    // nested loops ending together: the inner one is printed as .word
    std::vector<uint32_t> prog = {enc(SPU_OP_LOOP, 1, 0, 0, 4), enc(SPU_OP_LOOP, 2, 0, 0, 4),
                                  enc(SPU_OP_NOP, 0, 0, 0, 0), enc(SPU_OP_NOP, 0, 0, 0, 0),
                                  enc(SPU_OP_HALT, 0, 0, 0, 0)};
    std::string text = disasm_text(prog);
    EXPECT_NE(text.find(".word"), std::string::npos) << text;
    Result r = assemble(text);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.words, prog);
}

TEST(Disasm, Text)
{
    char buf[128];
    ASSERT_EQ(spu_disasm_word(enc(SPU_OP_MM, 9, 10, 4, 0), 0, buf, sizeof buf), 0);
    EXPECT_STREQ(buf, "mm r9, r10, r4");
    ASSERT_EQ(spu_disasm_word(enc(SPU_OP_CNT, 3, 0, 0, SPU_CNT_INSTRET), 0, buf, sizeof buf), 0);
    EXPECT_STREQ(buf, "cnt r3, instret");
    ASSERT_EQ(spu_disasm_word(enc(SPU_OP_ADDI, 1, 2, 0, -7), 0, buf, sizeof buf), 0);
    EXPECT_STREQ(buf, "addi r1, r2, -7");
    EXPECT_EQ(spu_disasm_word(0xFFFFFFFFu, 0, buf, sizeof buf), SPU_EINVAL);
    EXPECT_EQ(std::string(buf).rfind(".word 0xffffffff", 0), 0u) << buf;
}

// ---- the CLI -------------------------------------------------------------------

namespace {
const std::string SPU = SPU_BUILD_DIR "/bin/spu";

struct TmpDir {
    std::string path;
    TmpDir()
    {
        char t[] = "/tmp/spu_asm_test_XXXXXX";
        EXPECT_NE(mkdtemp(t), nullptr);
        path = t;
    }
    ~TmpDir() { std::string cmd = "rm -rf '" + path + "'"; (void)!system(cmd.c_str()); }
    std::string operator/(const std::string &n) const { return path + "/" + n; }
};

void write_file(const std::string &p, const std::string &s)
{
    std::ofstream f(p, std::ios::binary);
    f << s;
}
std::string read_file(const std::string &p)
{
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}
bool exists(const std::string &p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0;
}
// Run a shell command; returns the exit status, stdout and stderr in out/err.
int run(const std::string &cmd, const TmpDir &d, std::string *out = nullptr, std::string *err = nullptr)
{
    std::string full = cmd + " >'" + (d / "stdout") + "' 2>'" + (d / "stderr") + "'";
    int st = system(full.c_str());
    if (out) *out = read_file(d / "stdout");
    if (err) *err = read_file(d / "stderr");
    spu_test::san_check(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
} // namespace

TEST(AsmCli, AssembleDisassembleRoundTrip)
{
    ASSERT_TRUE(exists(SPU)) << SPU << " not built";
    TmpDir d;
    const std::string src = ".equ N, 3\nstart: li r1, N\n  loop r1, e\n  addi r2, r2, 1\ne: cfg out=int8 shift=2\n"
                            "  cnt r3, cycles\n  li r4, 0x12345678\n  bne r2, r0, start\n  halt\n";
    write_file(d / "p.s", src);
    std::string out, err;
    ASSERT_EQ(run(SPU + " asm '" + (d / "p.s") + "' -o '" + (d / "p.bin") + "' --json", d, &out, &err), 0) << err;
    Result lib = assemble(src);
    ASSERT_EQ(lib.rc, 0);
    std::string bin = read_file(d / "p.bin");
    ASSERT_EQ(bin.size(), lib.words.size() * 4);
    for (size_t i = 0; i < lib.words.size(); i++) {
        uint32_t w = (uint8_t)bin[4 * i] | (uint8_t)bin[4 * i + 1] << 8 | (uint8_t)bin[4 * i + 2] << 16 |
                     (uint32_t)(uint8_t)bin[4 * i + 3] << 24;
        EXPECT_EQ(w, lib.words[i]) << "little-endian word " << i;
    }
    EXPECT_NE(out.find("\"words\":" + std::to_string(lib.words.size())), std::string::npos) << out;
    EXPECT_NE(out.find("\"entry\":0"), std::string::npos) << out;

    ASSERT_EQ(run(SPU + " disasm '" + (d / "p.bin") + "'", d, &out, &err), 0) << err;
    write_file(d / "q.s", out);
    ASSERT_EQ(run(SPU + " asm '" + (d / "q.s") + "' -o '" + (d / "q.bin") + "'", d, nullptr, &err), 0) << err;
    EXPECT_EQ(read_file(d / "q.bin"), bin);

    ASSERT_EQ(run(SPU + " disasm --addr '" + (d / "p.bin") + "'", d, &out, &err), 0) << err;
    write_file(d / "r.s", out);
    ASSERT_EQ(run(SPU + " asm '" + (d / "r.s") + "' -o '" + (d / "r.bin") + "'", d, nullptr, &err), 0) << err;
    EXPECT_EQ(read_file(d / "r.bin"), bin);

    ASSERT_EQ(run(SPU + " disasm --json '" + (d / "p.bin") + "'", d, &out, &err), 0) << err;
    EXPECT_NE(out.find("\"text\":"), std::string::npos) << out;
    EXPECT_NE(out.find("\"pc\":"), std::string::npos) << out;
}

TEST(AsmCli, ErrorsExitOneAndLeaveNoOutput)
{
    ASSERT_TRUE(exists(SPU)) << SPU << " not built";
    TmpDir d;
    write_file(d / "bad.s", "nop\n  frob r1\njmp nowhere\n");
    std::string out, err;
    EXPECT_EQ(run(SPU + " asm '" + (d / "bad.s") + "' -o '" + (d / "bad.bin") + "'", d, &out, &err), 1);
    EXPECT_NE(err.find(d / "bad.s" + ":2:3: error: unknown instruction 'frob'"), std::string::npos) << err;
    EXPECT_NE(err.find(":3:5: error: undefined symbol 'nowhere'"), std::string::npos) << err;
    EXPECT_FALSE(exists(d / "bad.bin"));
    // an existing output file is left untouched on error
    write_file(d / "keep.bin", "KEEP");
    EXPECT_EQ(run(SPU + " asm '" + (d / "bad.s") + "' -o '" + (d / "keep.bin") + "'", d), 1);
    EXPECT_EQ(read_file(d / "keep.bin"), "KEEP");
    // nothing else left behind in the directory (no temp files)
    std::string ls;
    run("ls '" + d.path + "'", d, &ls);
    EXPECT_EQ(ls.find("tmp"), std::string::npos) << ls;
    // usage errors and help
    EXPECT_EQ(run(SPU + " asm", d), 2);
    EXPECT_EQ(run(SPU + " asm '" + (d / "bad.s") + "'", d), 2);
    EXPECT_EQ(run(SPU + " asm '" + (d / "missing.s") + "' -o '" + (d / "m.bin") + "'", d), 1);
    EXPECT_FALSE(exists(d / "m.bin"));
    EXPECT_EQ(run(SPU + " asm --help", d, &out), 0);
    EXPECT_NE(out.find("usage: spu asm"), std::string::npos);
    EXPECT_EQ(run(SPU + " disasm --help", d, &out), 0);
    EXPECT_NE(out.find("usage: spu disasm"), std::string::npos);
}

TEST(AsmCli, DisasmRejectsPartialWords)
{
    ASSERT_TRUE(exists(SPU)) << SPU << " not built";
    TmpDir d;
    write_file(d / "odd.bin", std::string("\x00\x00\x00\x00\x01", 5));
    std::string out, err;
    EXPECT_EQ(run(SPU + " disasm '" + (d / "odd.bin") + "'", d, &out, &err), 1);
    EXPECT_NE(err.find("not a multiple of 4"), std::string::npos) << err;
    EXPECT_TRUE(out.empty()) << out;
    // undecodable words come out as .word with a comment
    write_file(d / "junk.bin", std::string("\xff\xff\xff\xff", 4));
    EXPECT_EQ(run(SPU + " disasm '" + (d / "junk.bin") + "'", d, &out, &err), 0) << err;
    EXPECT_NE(out.find(".word 0xffffffff ;"), std::string::npos) << out;
}

// Every kernel in firmware/ and every example in firmware/examples/
// assembles, and its disassembly re-assembles to the same words.
TEST(AsmFirmware, KernelsAssembleAndRoundTrip)
{
    std::string list;
    TmpDir d;
    run(std::string("ls '") + SPU_SOURCE_DIR "/firmware/'*.s '" SPU_SOURCE_DIR "/firmware/examples/'*.s", d, &list);
    std::stringstream ss(list);
    std::string path;
    int n = 0;
    while (std::getline(ss, path)) {
        if (path.empty()) continue;
        n++;
        Result r = assemble(read_file(path), path.c_str());
        ASSERT_EQ(r.rc, 0) << r.err;
        EXPECT_FALSE(r.words.empty()) << path;
        Result back = assemble(disasm_text(r.words));
        ASSERT_EQ(back.rc, 0) << path << ": " << back.err;
        EXPECT_EQ(back.words, r.words) << path;
    }
    EXPECT_GE(n, 1) << "no firmware found";
}

// Garbage and mutated programs never crash the assembler: the result is an
// image or SPU_EPARSE with at least one positioned message.
TEST(Asm, RobustAgainstMutatedInput)
{
    const std::string base = ".equ N, 4\n.alias p, r9\nstart: li p, N*2\n loop r1, e\n addi p, p, -1\n"
                             " cfg out=int8 shift=3\n cnt r2, cycles\ne: nop\n bne p, r0, start\n halt\n";
    const char alphabet[] = "r0123456789abcxyz,.:;#/=()+-*%<>&|^~ \t\n\r_\x01\xff";
    std::mt19937 rng(31337);
    for (int it = 0; it < 3000; it++) {
        std::string s = base;
        int edits = 1 + (int)(rng() % 6);
        for (int e = 0; e < edits; e++) {
            size_t pos = rng() % (s.size() + 1);
            switch (rng() % 3) {
            case 0: s.insert(pos, 1, alphabet[rng() % (sizeof alphabet - 1)]); break;
            case 1: if (pos < s.size()) s.erase(pos, 1); break;
            default: if (pos < s.size()) s[pos] = alphabet[rng() % (sizeof alphabet - 1)]; break;
            }
        }
        Result r = assemble(s);
        ASSERT_TRUE(r.rc == 0 || r.rc == SPU_EPARSE) << r.rc;
        if (r.rc) {
            EXPECT_EQ(r.err.rfind("t.s:", 0), 0u) << r.err;
        }
    }
}

TEST(Asm, CrLfLineEndings)
{
    Result r = assemble("x: add r1, r2, r3\r\n  jmp x\r\n.equ K, 3\r\ncfg shift=K\r\n");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.words.size(), 3u);
}

// `spu --help` lists every command and every second word (`bench gemm`) of
// host/cli/commands.def, read here from the table itself, and each parent
// dispatches each of its rows (`spu bench gemm --help` answers 0).
TEST(Cli, HelpListsEveryRowOfCommandsDef)
{
    ASSERT_TRUE(exists(SPU)) << SPU << " not built";
    TmpDir d;
    std::string out, err;
    ASSERT_EQ(run(SPU + " --help", d, &out, &err), 0) << err;
    std::ifstream def(SPU_SOURCE_DIR "/host/cli/commands.def");
    ASSERT_TRUE(def.good());
    std::string line;
    int commands = 0, subs = 0;
    while (std::getline(def, line)) {
        std::smatch m;
        static const std::regex cmd_re("^SPU_COMMAND\\((\\w+),");
        static const std::regex sub_re("^SPU_SUBCOMMAND\\((\\w+), *(\\w+),");
        if (std::regex_search(line, m, cmd_re)) {
            commands++;
            EXPECT_NE(out.find("  " + m[1].str() + " "), std::string::npos) << m[1];
        } else if (std::regex_search(line, m, sub_re)) {
            subs++;
            std::string both = m[1].str() + " " + m[2].str();
            EXPECT_NE(out.find("    " + both + " "), std::string::npos) << both << "\n" << out;
            EXPECT_EQ(run(SPU + " " + both + " --help", d, &out, &err), 0) << both << ": " << err;
            ASSERT_EQ(run(SPU + " --help", d, &out, &err), 0);
        }
    }
    EXPECT_GE(commands, 10);
    EXPECT_GE(subs, 5);
    EXPECT_NE(out.find("bench gemm"), std::string::npos);
    EXPECT_EQ(run(SPU + " bench nosuchbench", d, &out, &err), 2);
    EXPECT_NE(err.find("unknown bench"), std::string::npos) << err;
}
