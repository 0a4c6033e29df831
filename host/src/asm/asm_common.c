/*
 * asm_common.c -- tables of the assembler/disassembler derived from the
 * hw/isa/ tables: operand shapes of each format, counter keys, rounding
 * modes, and the legality rules of cfg values.
 */
#include "asm_internal.h"
#include "spu/spu.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct { const char *key; unsigned id; } counters[] = {
#define SPU_COUNTER(name, id, key, summary) { key, id },
#include "spu_counters.def"
#undef SPU_COUNTER
};
#define NCOUNTERS (sizeof counters / sizeof counters[0])

static const struct { const char *key; unsigned code; } rounds[] = {
#define SPU_ROUND(name, key, code) { key, code },
#include "spu_cfg.def"
};
#define NROUNDS (sizeof rounds / sizeof rounds[0])

int spu_asm_format_ops(int format, spu_asm_opspec ops[SPU_ASM_MAX_OPS])
{
    if (format < 0 || format >= SPU_FMT_COUNT)
        return -1;
    const char *p = spu_format_table[format].operands;
    int n = 0;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        if (!*p)
            break;
        const char *s = p;
        if (!strncmp(p, "key=value", 9)) {
            /* the cfg list takes the rest of the line */
            if (n >= SPU_ASM_MAX_OPS)
                return -1;
            ops[n].kind = SPU_ASM_OP_CFG;
            ops[n].field = 0;
            snprintf(ops[n].name, sizeof ops[n].name, "key=value");
            return n + 1;
        }
        while (*p && *p != ',' && *p != ' ')
            p++;
        size_t len = (size_t)(p - s);
        if (n >= SPU_ASM_MAX_OPS || len >= sizeof ops[n].name)
            return -1;
        memcpy(ops[n].name, s, len);
        ops[n].name[len] = 0;
        ops[n].field = 0;
        if (len == 2 && s[0] == 'r' && s[1] >= 'A' && s[1] <= 'C') {
            ops[n].kind = SPU_ASM_OP_REG;
            ops[n].field = s[1] - 'A';
        } else if (!strncmp(s, "imm", 3)) {
            ops[n].kind = SPU_ASM_OP_IMM;
        } else if (!strncmp(s, "target", 6) || !strncmp(s, "end", 3)) {
            ops[n].kind = SPU_ASM_OP_ADDR;
        } else if (len == 7 && !strncmp(s, "counter", 7)) {
            ops[n].kind = SPU_ASM_OP_COUNTER;
        } else {
            return -1;
        }
        n++;
    }
    return n;
}

const char *spu_asm_counter_key(unsigned id)
{
    for (size_t i = 0; i < NCOUNTERS; i++)
        if (counters[i].id == id)
            return counters[i].key;
    return NULL;
}

int spu_asm_counter_id(const char *key, size_t len)
{
    for (size_t i = 0; i < NCOUNTERS; i++)
        if (strlen(counters[i].key) == len && !strncasecmp(counters[i].key, key, len))
            return (int)counters[i].id;
    return -1;
}

const char *spu_asm_counter_list(char *buf, size_t cap)
{
    size_t used = 0;
    if (!cap)
        return buf;
    buf[0] = 0;
    for (size_t i = 0; i < NCOUNTERS; i++) {
        int n = snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", counters[i].key);
        if (n < 0 || (size_t)n >= cap - used)
            break;
        used += (size_t)n;
    }
    return buf;
}

const char *spu_asm_round_key(unsigned code)
{
    for (size_t i = 0; i < NROUNDS; i++)
        if (rounds[i].code == code)
            return rounds[i].key;
    return NULL;
}

int spu_asm_round_code(const char *key, size_t len)
{
    for (size_t i = 0; i < NROUNDS; i++)
        if (strlen(rounds[i].key) == len && !strncasecmp(rounds[i].key, key, len))
            return (int)rounds[i].code;
    return -1;
}

uint32_t spu_asm_cfg_get(uint32_t imm, int field)
{
    const spu_cfg_field_desc *f = &spu_cfg_field_table[field];
    return (imm >> f->lsb) & ((1u << f->width) - 1u);
}

int spu_asm_cfg_field_check(int field, uint32_t value, char *why, size_t cap)
{
    const spu_cfg_field_desc *f = &spu_cfg_field_table[field];
    if (value >= (1u << f->width)) {
        snprintf(why, cap, "value %u out of range for cfg field '%s' (0..%u)", value, f->key,
                 (1u << f->width) - 1u);
        return -1;
    }
    if (field == SPU_CFG_IN || field == SPU_CFG_OUT) {
        const spu_dtype_desc *d = spu_dtype_by_code(value);
        if (!d) {
            snprintf(why, cap, "cfg field '%s': no dtype has code %u", f->key, value);
            return -1;
        }
        if (field == SPU_CFG_IN && !d->array) {
            snprintf(why, cap, "cfg field 'in': dtype '%s' cannot be an array input", d->key);
            return -1;
        }
    } else if (field == SPU_CFG_ROUND) {
        if (!spu_asm_round_key(value)) {
            snprintf(why, cap, "cfg field 'round': no rounding mode has code %u", value);
            return -1;
        }
    }
    return 0;
}

int spu_asm_cfg_check(uint32_t imm, char *why, size_t cap)
{
    uint32_t used = 0;
    for (int i = 0; i < SPU_CFG_FIELD_COUNT; i++) {
        const spu_cfg_field_desc *f = &spu_cfg_field_table[i];
        used |= ((1u << f->width) - 1u) << f->lsb;
        if (spu_asm_cfg_field_check(i, spu_asm_cfg_get(imm, i), why, cap))
            return -1;
    }
    if (imm & ~used) {
        snprintf(why, cap, "cfg reserved bits set (0x%06x)", imm & ~used);
        return -1;
    }
    return 0;
}
