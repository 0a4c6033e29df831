// test_isa.cc -- the ISA encoder/decoder (host/src/isa/isa.c) against the
// encoding rules of docs/isa.md, and docs/isa.md's opcode table against
// hw/isa/spu_isa.def.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "spu/isa.h"
#include "spu/spu.h"
}

namespace {

// Immediate range of each instruction, as docs/isa.md states it.
struct Range { int64_t lo, hi; };
Range imm_range(const spu_insn_desc &d)
{
    switch (d.format) {
    case SPU_FMT_RRI:
        if (d.opcode == SPU_OP_SHLI) return {0, 31};
        return {-(1 << 17), (1 << 17) - 1};
    case SPU_FMT_BR: case SPU_FMT_LOOP: case SPU_FMT_CNT:
        return {0, (1 << 18) - 1};
    case SPU_FMT_LI:
        if (d.opcode == SPU_OP_LUI) return {0, 0xFFFF};
        return {-(1 << 21), (1 << 21) - 1};
    case SPU_FMT_J: case SPU_FMT_CFG:
        return {0, (1 << 22) - 1};
    default:
        return {0, 0};
    }
}
bool has_imm(int f) { return f != SPU_FMT_N && f != SPU_FMT_R && f != SPU_FMT_RR && f != SPU_FMT_RRR; }
int nregs(int f)
{
    switch (f) {
    case SPU_FMT_R: case SPU_FMT_LOOP: case SPU_FMT_CNT: case SPU_FMT_LI: return 1;
    case SPU_FMT_RRI: case SPU_FMT_BR: case SPU_FMT_RR: return 2;
    case SPU_FMT_RRR: return 3;
    default: return 0;
    }
}

void expect_roundtrip(const spu_insn &in, const spu_insn_desc &d)
{
    uint32_t w = 0;
    ASSERT_EQ(spu_isa_encode(&in, &w), 0) << d.mnemonic << " imm=" << in.imm;
    EXPECT_EQ(w >> 26, d.opcode) << d.mnemonic;
    EXPECT_EQ(w & 0x03FFFFFFu & ~spu_format_table[d.format].mask, 0u) << d.mnemonic << " sets reserved bits";
    spu_insn out;
    ASSERT_EQ(spu_isa_decode(w, &out), 0) << d.mnemonic << std::hex << " w=0x" << w;
    EXPECT_EQ(out.opcode, in.opcode);
    int n = nregs(d.format);
    if (n >= 1) { EXPECT_EQ(out.a, in.a) << d.mnemonic; }
    if (n >= 2) { EXPECT_EQ(out.b, in.b) << d.mnemonic; }
    if (n >= 3) { EXPECT_EQ(out.c, in.c) << d.mnemonic; }
    if (has_imm(d.format)) { EXPECT_EQ(out.imm, in.imm) << d.mnemonic; }
}

} // namespace

TEST(Isa, TableIsConsistent)
{
    ASSERT_GT(spu_isa_table_len, 0u);
    std::set<unsigned> ops;
    std::set<std::string> names;
    for (size_t i = 0; i < spu_isa_table_len; i++) {
        const spu_insn_desc &d = spu_isa_table[i];
        EXPECT_LT(d.opcode, 64u);
        EXPECT_TRUE(ops.insert(d.opcode).second) << "duplicate opcode " << d.opcode;
        EXPECT_TRUE(names.insert(d.mnemonic).second) << "duplicate mnemonic " << d.mnemonic;
        EXPECT_EQ(spu_isa_by_opcode(d.opcode), &d);
        EXPECT_EQ(spu_isa_by_mnemonic(d.mnemonic), &d);
        EXPECT_GE(d.format, 0);
        EXPECT_LT(d.format, SPU_FMT_COUNT);
        EXPECT_EQ(spu_format_table[d.format].mask & 0xFC000000u, 0u);
    }
}

TEST(Isa, EveryInstructionAllRegistersAndImmediateEdges)
{
    for (size_t i = 0; i < spu_isa_table_len; i++) {
        const spu_insn_desc &d = spu_isa_table[i];
        Range r = imm_range(d);
        std::vector<int64_t> imms = {r.lo, r.hi, 0};
        if (r.lo < 0) imms.push_back(-1);
        if (r.hi >= 1) imms.push_back(1);
        if (r.hi > 2) imms.push_back(r.hi / 2);
        if (!has_imm(d.format)) imms = {0};
        int n = nregs(d.format);
        for (int64_t imm : imms)
            for (unsigned a = 0; a < (n >= 1 ? 16u : 1u); a++)
                for (unsigned b = 0; b < (n >= 2 ? 16u : 1u); b++)
                    for (unsigned c = 0; c < (n >= 3 ? 16u : 1u); c++) {
                        spu_insn in = {d.opcode, a, b, c, (int32_t)imm};
                        expect_roundtrip(in, d);
                        if (HasFatalFailure()) return;
                    }
    }
}

TEST(Isa, ImmediatesOutsideTheFieldAreRejected)
{
    for (size_t i = 0; i < spu_isa_table_len; i++) {
        const spu_insn_desc &d = spu_isa_table[i];
        if (!has_imm(d.format)) continue;
        Range r = imm_range(d);
        uint32_t w;
        spu_insn lo = {d.opcode, 1, 2, 0, (int32_t)(r.lo - 1)};
        spu_insn hi = {d.opcode, 1, 2, 0, (int32_t)(r.hi + 1)};
        EXPECT_EQ(spu_isa_encode(&lo, &w), SPU_EINVAL) << d.mnemonic << " " << r.lo - 1;
        EXPECT_EQ(spu_isa_encode(&hi, &w), SPU_EINVAL) << d.mnemonic << " " << r.hi + 1;
        spu_insn big = {d.opcode, 1, 2, 0, INT32_MAX}, small = {d.opcode, 1, 2, 0, INT32_MIN};
        EXPECT_EQ(spu_isa_encode(&big, &w), SPU_EINVAL) << d.mnemonic;
        EXPECT_EQ(spu_isa_encode(&small, &w), SPU_EINVAL) << d.mnemonic;
    }
    uint32_t w;
    spu_insn badreg = {SPU_OP_ADD, 16, 0, 0, 0};
    EXPECT_EQ(spu_isa_encode(&badreg, &w), SPU_EINVAL);
    spu_insn badop = {0x3F, 0, 0, 0, 0};
    ASSERT_EQ(spu_isa_by_opcode(0x3F), nullptr) << "test assumes 0x3f is unused";
    EXPECT_EQ(spu_isa_encode(&badop, &w), SPU_EINVAL);
}

TEST(Isa, RandomOperandsRoundTrip)
{
    std::mt19937_64 rng(12345);
    for (size_t i = 0; i < spu_isa_table_len; i++) {
        const spu_insn_desc &d = spu_isa_table[i];
        Range r = imm_range(d);
        std::uniform_int_distribution<int64_t> imm(r.lo, r.hi);
        for (int k = 0; k < 2000; k++) {
            spu_insn in = {d.opcode, (unsigned)(rng() & 15), (unsigned)(rng() & 15),
                           (unsigned)(rng() & 15), (int32_t)imm(rng)};
            int n = nregs(d.format);
            if (n < 3) in.c = 0;
            if (n < 2) in.b = 0;
            if (n < 1) in.a = 0;
            expect_roundtrip(in, d);
            if (HasFatalFailure()) return;
        }
    }
}

TEST(Isa, ReservedBitsAndUndefinedOpcodesFailToDecode)
{
    spu_insn out;
    for (unsigned op = 0; op < 64; op++) {
        const spu_insn_desc *d = spu_isa_by_opcode(op);
        if (!d) {
            EXPECT_EQ(spu_isa_decode(op << 26, &out), SPU_EINVAL) << "opcode " << op;
            EXPECT_EQ(spu_isa_decode(op << 26 | 0x123, &out), SPU_EINVAL) << "opcode " << op;
            continue;
        }
        uint32_t mask = spu_format_table[d->format].mask;
        EXPECT_EQ(spu_isa_decode(op << 26, &out), 0) << d->mnemonic;
        for (unsigned bit = 0; bit < 26; bit++) {
            uint32_t w = op << 26 | 1u << bit;
            if (mask & (1u << bit)) continue;
            EXPECT_EQ(spu_isa_decode(w, &out), SPU_EINVAL) << d->mnemonic << " bit " << bit;
        }
    }
    // value restrictions inside used fields (docs/isa.md): shli imm18[17:5], lui imm22[21:16]
    EXPECT_EQ(spu_isa_decode((uint32_t)SPU_OP_SHLI << 26 | 32, &out), SPU_EINVAL);
    EXPECT_EQ(spu_isa_decode((uint32_t)SPU_OP_SHLI << 26 | 31, &out), 0);
    EXPECT_EQ(spu_isa_decode((uint32_t)SPU_OP_LUI << 26 | 0x10000, &out), SPU_EINVAL);
    EXPECT_EQ(spu_isa_decode((uint32_t)SPU_OP_LUI << 26 | 0xFFFF, &out), 0);
}

// Exhaustive over the low 16 bits of every defined opcode with a = 5, b = 10
// (2^16 words each): decode succeeds exactly when no reserved bit is set and
// re-encoding gives the same word.
TEST(Isa, DecodeEncodeLow16Exhaustive)
{
    for (size_t i = 0; i < spu_isa_table_len; i++) {
        const spu_insn_desc &d = spu_isa_table[i];
        uint32_t mask = spu_format_table[d.format].mask;
        int bad = 0;
        for (uint32_t lo = 0; lo < 0x10000 && bad < 5; lo++) {
            uint32_t w = (uint32_t)d.opcode << 26 | ((5u << 22 | 10u << 18 | lo) & mask);
            if (w != ((uint32_t)d.opcode << 26 | (5u << 22 | 10u << 18 | lo)))
                continue;   // sets a reserved bit: covered above
            spu_insn in;
            if (spu_isa_decode(w, &in) != 0) {
                // only shli / lui restrict values inside their fields
                bool ok = (d.opcode == SPU_OP_SHLI && (w & 0x3FFFF) > 31) ||
                          (d.opcode == SPU_OP_LUI && (w & 0x3FFFFF) > 0xFFFF);
                EXPECT_TRUE(ok) << d.mnemonic << std::hex << " 0x" << w;
                bad += !ok;
                continue;
            }
            uint32_t w2 = 0;
            EXPECT_EQ(spu_isa_encode(&in, &w2), 0);
            EXPECT_EQ(w2, w) << d.mnemonic;
            bad += w2 != w;
        }
    }
}

namespace {
std::string trim(const std::string &s)
{
    size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
} // namespace

TEST(Isa, DocsOpcodeTableMatchesDef)
{
    std::ifstream f(SPU_SOURCE_DIR "/docs/isa.md");
    ASSERT_TRUE(f.good()) << "cannot open docs/isa.md";
    std::string line;
    bool in = false, seen_begin = false, seen_end = false;
    std::vector<std::vector<std::string>> rows;
    while (std::getline(f, line)) {
        if (line.rfind("<!-- opcode-table", 0) == 0) { in = true; seen_begin = true; continue; }
        if (line.rfind("<!-- /opcode-table", 0) == 0) { in = false; seen_end = true; continue; }
        if (!in || line.empty() || line[0] != '|') continue;
        std::vector<std::string> cells;
        std::stringstream ss(line.substr(1));
        std::string cell;
        while (std::getline(ss, cell, '|')) cells.push_back(trim(cell));
        if (cells.size() < 4 || cells[0] == "mnemonic" || cells[0].rfind("---", 0) == 0) continue;
        rows.push_back(cells);
    }
    ASSERT_TRUE(seen_begin && seen_end) << "opcode-table markers missing in docs/isa.md";
    ASSERT_EQ(rows.size(), spu_isa_table_len) << "docs/isa.md lists a different number of instructions";
    for (size_t i = 0; i < rows.size(); i++) {
        const spu_insn_desc &d = spu_isa_table[i];
        char op[8];
        snprintf(op, sizeof op, "0x%02x", d.opcode);
        EXPECT_EQ(rows[i][0], std::string("`") + d.mnemonic + "`") << "row " << i;
        EXPECT_EQ(rows[i][1], op) << d.mnemonic;
        EXPECT_EQ(rows[i][2], spu_format_table[d.format].name) << d.mnemonic;
        EXPECT_EQ(rows[i][3], d.summary) << d.mnemonic;
    }
}
