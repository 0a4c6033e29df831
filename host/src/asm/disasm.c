/*
 * disasm.c -- the SPU disassembler. Its output is assembler input: every
 * line re-assembles to the same word. Words that decode but that the
 * assembler would reject (an unknown counter, an illegal cfg value, an empty
 * loop body, a nested loop ending where its outer loop ends) are printed as
 * `.word` with the reason in a comment, like undecodable words.
 */
#include "spu/asm.h"
#include "spu/isa.h"
#include "spu/spu.h"
#include "asm_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Append to a bounded buffer. */
typedef struct sbuf {
    char *p;
    size_t cap, len;
} sbuf;

__attribute__((format(printf, 2, 3)))
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (!b->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap - b->len;
    int n = vsnprintf(b->p + b->len, room, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    b->len = (size_t)n >= room ? b->cap - 1 : b->len + (size_t)n;
}

/* Text of one word in text[]; a reason in note[] when the word is printed
 * as .word. Returns 0 or SPU_EINVAL. */
static int disasm_one(uint32_t word, uint32_t pc, char *text, size_t cap, char *note, size_t ncap)
{
    sbuf b = { text, cap, 0 };
    if (cap)
        text[0] = 0;
    if (ncap)
        note[0] = 0;
    spu_insn in;
    if (spu_isa_decode(word, &in) != 0) {
        const spu_insn_desc *d = spu_isa_by_opcode(word >> SPU_ISA_OP_SHIFT);
        if (!d)
            snprintf(note, ncap, "undefined opcode 0x%02x", word >> SPU_ISA_OP_SHIFT);
        else
            snprintf(note, ncap, "'%s' with reserved bits set", d->mnemonic);
        sb_printf(&b, ".word 0x%08x", word);
        return SPU_EINVAL;
    }
    const spu_insn_desc *d = spu_isa_by_opcode(in.opcode);
    spu_asm_opspec spec[SPU_ASM_MAX_OPS];
    int nspec = spu_asm_format_ops(d->format, spec);
    char why[160] = "";
    if (d->format == SPU_FMT_CNT && !spu_asm_counter_key((unsigned)in.imm))
        snprintf(why, sizeof why, "cnt r%u, %d: unknown counter", in.a, in.imm);
    else if (d->format == SPU_FMT_CFG && spu_asm_cfg_check((uint32_t)in.imm, why, sizeof why))
        ;
    else if (d->format == SPU_FMT_LOOP && (uint32_t)in.imm <= pc + 1)
        snprintf(why, sizeof why, "loop r%u, %d: empty loop body", in.a, in.imm);
    else if (nspec < 0)
        snprintf(why, sizeof why, "format %s not understood", spu_format_table[d->format].name);
    if (why[0]) {
        snprintf(note, ncap, "%s", why);
        sb_printf(&b, ".word 0x%08x", word);
        return SPU_EINVAL;
    }
    sb_printf(&b, "%s", d->mnemonic);
    for (int i = 0; i < nspec; i++) {
        sb_printf(&b, i ? ", " : " ");
        switch (spec[i].kind) {
        case SPU_ASM_OP_REG:
            sb_printf(&b, "r%u", spec[i].field == 0 ? in.a : spec[i].field == 1 ? in.b : in.c);
            break;
        case SPU_ASM_OP_IMM:
            if (in.opcode == SPU_OP_LUI)
                sb_printf(&b, "0x%x", (unsigned)in.imm);
            else
                sb_printf(&b, "%d", in.imm);
            break;
        case SPU_ASM_OP_ADDR:
            sb_printf(&b, "%u", (unsigned)in.imm);
            break;
        case SPU_ASM_OP_COUNTER:
            sb_printf(&b, "%s", spu_asm_counter_key((unsigned)in.imm));
            break;
        case SPU_ASM_OP_CFG:
            for (int f = 0; f < SPU_CFG_FIELD_COUNT; f++) {
                uint32_t v = spu_asm_cfg_get((uint32_t)in.imm, f);
                const char *key = spu_cfg_field_table[f].key;
                if (f)
                    sb_printf(&b, " ");
                if (f == SPU_CFG_IN || f == SPU_CFG_OUT)
                    sb_printf(&b, "%s=%s", key, spu_dtype_by_code(v)->key);
                else if (f == SPU_CFG_ROUND)
                    sb_printf(&b, "%s=%s", key, spu_asm_round_key(v));
                else
                    sb_printf(&b, "%s=%u", key, v);
            }
            break;
        }
    }
    return 0;
}

int spu_disasm_word(uint32_t word, uint32_t pc, char *buf, size_t cap)
{
    char text[128], note[192];
    int rc = disasm_one(word, pc, text, sizeof text, note, sizeof note);
    if (!buf || !cap)
        return rc;
    if (note[0])
        snprintf(buf, cap, "%s ; %s", text, note);
    else
        snprintf(buf, cap, "%s", text);
    return rc;
}

/* A loop at pc that is lexically nested in an earlier loop ending at the
 * same address (the assembler rejects those; see docs/isa.md). */
static int same_end_nested(const uint32_t *words, size_t n, size_t pc, uint32_t *outer)
{
    spu_insn in, o;
    if (spu_isa_decode(words[pc], &in) || in.opcode != SPU_OP_LOOP)
        return 0;
    for (size_t q = 0; q < pc; q++) {
        if (spu_isa_decode(words[q], &o) || o.opcode != SPU_OP_LOOP)
            continue;
        if ((uint32_t)o.imm == (uint32_t)in.imm && (uint32_t)o.imm > pc && (uint32_t)o.imm > q + 1) {
            *outer = (uint32_t)q;
            return 1;
        }
    }
    (void)n;
    return 0;
}

int spu_disasm(const uint32_t *words, size_t n, FILE *out, int annotate)
{
    if ((!words && n) || !out)
        return SPU_EINVAL;
    for (size_t pc = 0; pc < n; pc++) {
        char text[128], note[192], line[400];
        uint32_t outer;
        disasm_one(words[pc], (uint32_t)pc, text, sizeof text, note, sizeof note);
        if (!note[0] && same_end_nested(words, n, pc, &outer)) {
            snprintf(note, sizeof note, "%s: nested loop ends where the loop at %u ends", text, outer);
            snprintf(text, sizeof text, ".word 0x%08x", words[pc]);
        }
        if (annotate)
            snprintf(line, sizeof line, "    %-32s ; %5zu: %08x%s%s", text, pc, words[pc],
                     note[0] ? "  " : "", note);
        else if (note[0])
            snprintf(line, sizeof line, "    %s ; %s", text, note);
        else
            snprintf(line, sizeof line, "    %s", text);
        if (fprintf(out, "%s\n", line) < 0)
            return SPU_EIO;
    }
    return ferror(out) ? SPU_EIO : 0;
}
