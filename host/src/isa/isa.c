/*
 * isa.c -- tables and encoder/decoder generated from hw/isa/ tables.
 */
#include "spu/isa.h"
#include "spu/spu.h"

#include <string.h>

const spu_insn_desc spu_isa_table[] = {
#define SPU_INSN(name, mn, op, fmt, cyc, sum) { #name, mn, op, SPU_FMT_##fmt, cyc, sum },
#include "spu_isa.def"
#undef SPU_INSN
};
const size_t spu_isa_table_len = sizeof spu_isa_table / sizeof spu_isa_table[0];

const spu_format_desc spu_format_table[SPU_FMT_COUNT] = {
#define SPU_FORMAT(name, ops, mask) { #name, ops, mask },
#include "spu_formats.def"
#undef SPU_FORMAT
};

const spu_cfg_field_desc spu_cfg_field_table[SPU_CFG_FIELD_COUNT] = {
#define SPU_CFG_FIELD(name, key, lsb, width, def, sum) { #name, key, lsb, width, def, sum },
#include "spu_cfg.def"
};
const spu_dtype_desc spu_dtype_table[] = {
#define SPU_DTYPE(name, key, code, bytes, arr) { #name, key, code, bytes, arr },
#include "spu_cfg.def"
};
const size_t spu_dtype_table_len = sizeof spu_dtype_table / sizeof spu_dtype_table[0];

const spu_insn_desc *spu_isa_by_opcode(unsigned opcode)
{
    for (size_t i = 0; i < spu_isa_table_len; i++)
        if (spu_isa_table[i].opcode == opcode)
            return &spu_isa_table[i];
    return NULL;
}

unsigned spu_format_regs(int format)
{
    if (format < 0 || format >= SPU_FMT_COUNT)
        return 0;
    const char *ops = spu_format_table[format].operands;
    return (strstr(ops, "rA") ? 1u : 0u) | (strstr(ops, "rB") ? 2u : 0u) | (strstr(ops, "rC") ? 4u : 0u);
}

const spu_insn_desc *spu_isa_by_mnemonic(const char *mnemonic)
{
    for (size_t i = 0; i < spu_isa_table_len; i++)
        if (strcmp(spu_isa_table[i].mnemonic, mnemonic) == 0)
            return &spu_isa_table[i];
    return NULL;
}

const spu_dtype_desc *spu_dtype_by_code(unsigned code)
{
    for (size_t i = 0; i < spu_dtype_table_len; i++)
        if (spu_dtype_table[i].code == code)
            return &spu_dtype_table[i];
    return NULL;
}

const spu_dtype_desc *spu_dtype_by_key(const char *key)
{
    for (size_t i = 0; i < spu_dtype_table_len; i++)
        if (strcmp(spu_dtype_table[i].key, key) == 0)
            return &spu_dtype_table[i];
    return NULL;
}

static int fits_signed(int32_t v, unsigned bits)
{
    int32_t lo = -(1 << (bits - 1)), hi = (1 << (bits - 1)) - 1;
    return v >= lo && v <= hi;
}

static int fits_unsigned(int32_t v, unsigned bits)
{
    return v >= 0 && (uint32_t)v < (1u << bits);
}

int spu_isa_encode(const spu_insn *in, uint32_t *word)
{
    const spu_insn_desc *d = spu_isa_by_opcode(in->opcode);
    if (!d || in->a > 15 || in->b > 15 || in->c > 15)
        return SPU_EINVAL;
    uint32_t w = (uint32_t)in->opcode << SPU_ISA_OP_SHIFT;
    uint32_t a = (uint32_t)in->a << SPU_ISA_A_SHIFT;
    uint32_t b = (uint32_t)in->b << SPU_ISA_B_SHIFT;
    uint32_t c = (uint32_t)in->c << SPU_ISA_C_SHIFT;
    switch (d->format) {
    case SPU_FMT_N:
        break;
    case SPU_FMT_R:
        w |= a;
        break;
    case SPU_FMT_RRR:
        w |= a | b | c;
        break;
    case SPU_FMT_RR:
        w |= a | b;
        break;
    case SPU_FMT_RRI:
        if (in->opcode == SPU_OP_SHLI ? !fits_unsigned(in->imm, 5) : !fits_signed(in->imm, 18))
            return SPU_EINVAL;
        w |= a | b | ((uint32_t)in->imm & SPU_ISA_IMM18_MASK);
        break;
    case SPU_FMT_BR:
        if (!fits_unsigned(in->imm, 18))
            return SPU_EINVAL;
        w |= a | b | (uint32_t)in->imm;
        break;
    case SPU_FMT_LOOP:
    case SPU_FMT_CNT:
        if (!fits_unsigned(in->imm, 18))
            return SPU_EINVAL;
        w |= a | (uint32_t)in->imm;
        break;
    case SPU_FMT_J:
    case SPU_FMT_CFG:
        if (!fits_unsigned(in->imm, 22))
            return SPU_EINVAL;
        w |= (uint32_t)in->imm;
        break;
    case SPU_FMT_LI:
        if (in->opcode == SPU_OP_LUI ? !fits_unsigned(in->imm, 16) : !fits_signed(in->imm, 22))
            return SPU_EINVAL;
        w |= a | ((uint32_t)in->imm & SPU_ISA_IMM22_MASK);
        break;
    default:
        return SPU_EINVAL;
    }
    *word = w;
    return 0;
}

static int32_t sext(uint32_t v, unsigned bits)
{
    uint32_t m = 1u << (bits - 1);
    return (int32_t)((v ^ m) - m);
}

int spu_isa_decode(uint32_t w, spu_insn *out)
{
    const spu_insn_desc *d = spu_isa_by_opcode(w >> SPU_ISA_OP_SHIFT);
    if (!d)
        return SPU_EINVAL;
    uint32_t body = w & 0x03FFFFFFu;
    if (body & ~spu_format_table[d->format].mask)
        return SPU_EINVAL;
    memset(out, 0, sizeof *out);
    out->opcode = d->opcode;
    out->a = (w >> SPU_ISA_A_SHIFT) & 15;
    out->b = (w >> SPU_ISA_B_SHIFT) & 15;
    out->c = (w >> SPU_ISA_C_SHIFT) & 15;
    switch (d->format) {
    case SPU_FMT_RRI:
        if (d->opcode == SPU_OP_SHLI) {
            if ((w & SPU_ISA_IMM18_MASK) > 31)
                return SPU_EINVAL;
            out->imm = (int32_t)(w & 31);
        } else {
            out->imm = sext(w & SPU_ISA_IMM18_MASK, 18);
        }
        out->c = 0;
        break;
    case SPU_FMT_BR:
        out->imm = (int32_t)(w & SPU_ISA_IMM18_MASK);
        out->c = 0;
        break;
    case SPU_FMT_LOOP:
    case SPU_FMT_CNT:
        out->imm = (int32_t)(w & SPU_ISA_IMM18_MASK);
        out->b = out->c = 0;
        break;
    case SPU_FMT_J:
    case SPU_FMT_CFG:
        out->imm = (int32_t)(w & SPU_ISA_IMM22_MASK);
        out->a = out->b = out->c = 0;
        break;
    case SPU_FMT_LI:
        if (d->opcode == SPU_OP_LUI) {
            if ((w & SPU_ISA_IMM22_MASK) > 0xFFFF)
                return SPU_EINVAL;
            out->imm = (int32_t)(w & 0xFFFF);
        } else {
            out->imm = sext(w & SPU_ISA_IMM22_MASK, 22);
        }
        out->b = out->c = 0;
        break;
    case SPU_FMT_R:
        out->b = out->c = 0;
        break;
    case SPU_FMT_RR:
        out->c = 0;
        break;
    case SPU_FMT_N:
        out->a = out->b = out->c = 0;
        break;
    default:
        break;
    }
    return 0;
}

uint32_t spu_isa_hash(void)
{
    uint32_t h = 2166136261u;
#define MIX(v) do { h ^= (uint32_t)(v); h *= 16777619u; } while (0)
    for (size_t i = 0; i < spu_isa_table_len; i++) {
        const spu_insn_desc *d = &spu_isa_table[i];
        for (const char *p = d->mnemonic; *p; p++) MIX(*p);
        MIX(d->opcode); MIX(d->format); MIX(d->cycles);
    }
    for (size_t i = 0; i < SPU_FMT_COUNT; i++) MIX(spu_format_table[i].mask);
    for (size_t i = 0; i < SPU_CFG_FIELD_COUNT; i++) {
        MIX(spu_cfg_field_table[i].lsb); MIX(spu_cfg_field_table[i].width);
    }
#undef MIX
    return h;
}
