/*
 * asm_internal.h -- helpers shared by the assembler and the disassembler
 * (private to host/src/asm/). Everything here is derived from hw/isa/ tables,
 * so the two directions cannot disagree about names or legal values.
 */
#ifndef SPU_ASM_INTERNAL_H
#define SPU_ASM_INTERNAL_H

#include "spu/isa.h"

#include <stddef.h>
#include <stdint.h>

/* Operand kinds, parsed from the operand text of spu_formats.def
 * ("rA, rB, imm18", "target22", "key=value ...", ...). */
enum spu_asm_opkind {
    SPU_ASM_OP_REG,      /* rA / rB / rC: register field a/b/c        */
    SPU_ASM_OP_IMM,      /* immNN: signed or unsigned immediate        */
    SPU_ASM_OP_ADDR,     /* targetNN / endNN: absolute word address    */
    SPU_ASM_OP_COUNTER,  /* counter: key of spu_counters.def or an id  */
    SPU_ASM_OP_CFG       /* key=value ...: fields of spu_cfg.def       */
};

#define SPU_ASM_MAX_OPS 4

typedef struct spu_asm_opspec {
    int kind;            /* enum spu_asm_opkind */
    int field;           /* REG: 0 = a, 1 = b, 2 = c */
    char name[16];       /* the operand's name in spu_formats.def, e.g. "imm18" */
} spu_asm_opspec;

/* Operands of a format; returns their count, or -1 if the format's operand
 * text holds something this code does not understand. */
int spu_asm_format_ops(int format, spu_asm_opspec ops[SPU_ASM_MAX_OPS]);

/* Counter key of an id (NULL if not in spu_counters.def); id of a key
 * (case-insensitive; -1 if none). */
const char *spu_asm_counter_key(unsigned id);
int         spu_asm_counter_id(const char *key, size_t len);
/* "cycles, instret, ..." for messages, written into buf; returns buf. */
const char *spu_asm_counter_list(char *buf, size_t cap);

/* Rounding mode key of a code (NULL if none) / code of a key (-1 if none). */
const char *spu_asm_round_key(unsigned code);
int         spu_asm_round_code(const char *key, size_t len);

/* Check one cfg field value; 0 if legal, else -1 and a reason in why. */
int spu_asm_cfg_field_check(int field, uint32_t value, char *why, size_t cap);
/* Check a whole cfg imm22 (every field and the reserved bits). */
int spu_asm_cfg_check(uint32_t imm, char *why, size_t cap);
/* Value of a field in an imm22. */
uint32_t spu_asm_cfg_get(uint32_t imm, int field);

#endif
