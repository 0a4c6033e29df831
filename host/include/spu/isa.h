/*
 * isa.h -- SPU instruction encoding, generated from hw/isa/spu_isa.def.
 * Used by the assembler, the disassembler, the model and the tests.
 */
#ifndef SPU_ISA_H
#define SPU_ISA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum spu_opcode {
#define SPU_INSN(name, mn, op, fmt, cyc, sum) SPU_OP_##name = (op),
#include "spu_isa.def"
#undef SPU_INSN
};

enum spu_format {
#define SPU_FORMAT(name, ops, mask) SPU_FMT_##name,
#include "spu_formats.def"
#undef SPU_FORMAT
    SPU_FMT_COUNT
};

enum spu_dtype {
#define SPU_DTYPE(name, key, code, bytes, arr) SPU_DTYPE_##name = (code),
#include "spu_cfg.def"
};
enum spu_round {
#define SPU_ROUND(name, key, code) SPU_ROUND_##name = (code),
#include "spu_cfg.def"
};
enum spu_cfg_field_id {
#define SPU_CFG_FIELD(name, key, lsb, width, def, sum) SPU_CFG_##name,
#include "spu_cfg.def"
    SPU_CFG_FIELD_COUNT
};

#define SPU_ISA_OP_SHIFT   26
#define SPU_ISA_A_SHIFT    22
#define SPU_ISA_B_SHIFT    18
#define SPU_ISA_C_SHIFT    14
#define SPU_ISA_IMM18_MASK 0x3FFFFu
#define SPU_ISA_IMM22_MASK 0x3FFFFFu
#define SPU_NREGS          16

/* One row of spu_isa.def. */
typedef struct spu_insn_desc {
    const char *name;        /* "MM"      */
    const char *mnemonic;    /* "mm"      */
    unsigned    opcode;
    int         format;      /* enum spu_format */
    unsigned    cycles;      /* base cost */
    const char *summary;
} spu_insn_desc;

/* One row of spu_formats.def. */
typedef struct spu_format_desc {
    const char *name;
    const char *operands;
    uint32_t    mask;        /* bits the format uses below the opcode */
} spu_format_desc;

typedef struct spu_cfg_field_desc {
    const char *name, *key;
    unsigned lsb, width, def;
    const char *summary;
} spu_cfg_field_desc;

typedef struct spu_dtype_desc {
    const char *name, *key;
    unsigned code, bytes, array;   /* array: usable as the array input */
} spu_dtype_desc;

/* A decoded instruction. Field meaning depends on the format:
 *   a, b, c : register numbers (0..15)
 *   imm     : RRI -> sign-extended imm18; BR/LOOP/CNT -> imm18 unsigned;
 *             LI -> sign-extended imm22 (lui: imm22 unsigned);
 *             J/CFG -> imm22 unsigned. */
typedef struct spu_insn {
    unsigned opcode;
    unsigned a, b, c;
    int32_t  imm;
} spu_insn;

extern const spu_insn_desc       spu_isa_table[];
extern const size_t              spu_isa_table_len;
extern const spu_format_desc     spu_format_table[SPU_FMT_COUNT];
extern const spu_cfg_field_desc  spu_cfg_field_table[SPU_CFG_FIELD_COUNT];
extern const spu_dtype_desc      spu_dtype_table[];
extern const size_t              spu_dtype_table_len;

/* Descriptor of an opcode / mnemonic, NULL if none. */
const spu_insn_desc *spu_isa_by_opcode(unsigned opcode);
const spu_insn_desc *spu_isa_by_mnemonic(const char *mnemonic);
const spu_dtype_desc *spu_dtype_by_code(unsigned code);
const spu_dtype_desc *spu_dtype_by_key(const char *key);

/* The register fields a format names, from its operand list: bit 0 rA,
 * bit 1 rB, bit 2 rC (docs/isa.md "Overlapped issue": an instruction that
 * names a register the one before it writes is not overlapped). */
unsigned spu_format_regs(int format);

/* Encode: 0 or SPU_EINVAL when an operand does not fit its field. */
int spu_isa_encode(const spu_insn *in, uint32_t *word);
/* Decode: 0, or SPU_EINVAL for an undefined opcode or a set reserved bit. */
int spu_isa_decode(uint32_t word, spu_insn *out);
/* Hash (FNV-1a 32) of the ISA table contents; the device reports its own in
 * INFO so a host and a bitstream built from different tables are caught. */
uint32_t spu_isa_hash(void);

#ifdef __cplusplus
}
#endif
#endif
