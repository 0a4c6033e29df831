/*
 * asm.h -- SPU assembler and disassembler (syntax in docs/asm.md).
 *
 * Binary format of an assembled program (`spu asm -o OUT.bin`): the
 * microcode words, 32-bit little-endian, loaded at word 0; entry pc 0.
 */
#ifndef SPU_ASM_H
#define SPU_ASM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spu_image {
    uint32_t *words;     /* malloc'ed; freed by spu_image_free */
    size_t    nwords;
    uint32_t  entry;
} spu_image;

/* Assemble source text (NUL-terminated). filename is used in messages only.
 * Returns 0 and fills *out (the caller frees it with spu_image_free), or
 * SPU_EPARSE and writes "file:line:col: error: message" lines into err (all
 * errors found, sorted by position, truncated to errcap; err may be NULL);
 * *out is then left empty -- never a partial image. SPU_EINVAL for NULL
 * source/out, SPU_ENOMEM when memory runs out. Thread-safe (no global state). */
int  spu_asm(const char *source, const char *filename, spu_image *out,
             char *err, size_t errcap);
/* Read the binary format above (raw little-endian words) into *out.
 * SPU_EFORMAT if len is 0 or not a multiple of 4, SPU_ENOMEM. */
int  spu_image_from_bytes(const void *bytes, size_t len, spu_image *out);
/* Free the words of an image (accepts an empty or zeroed image). */
void spu_image_free(spu_image *img);

/* Disassemble one word at pc into buf (e.g. "mm r9, r10, r4").
 * Returns 0, or SPU_EINVAL for an undecodable word or one the assembler
 * would reject (unknown counter id, illegal cfg value, empty loop body at
 * this pc); buf then holds ".word 0x... ; reason". Branch/loop targets are
 * printed as absolute numbers (re-assemblable). */
int  spu_disasm_word(uint32_t word, uint32_t pc, char *buf, size_t cap);
/* Disassemble a whole program, one instruction a line; with "; pc: word"
 * comments when annotate != 0. Output re-assembles to the same words (a loop
 * nested in another that ends at the same address is printed as .word).
 * Returns 0, SPU_EINVAL for NULL arguments, SPU_EIO on a write error. */
int  spu_disasm(const uint32_t *words, size_t n, FILE *out, int annotate);

#ifdef __cplusplus
}
#endif
#endif
