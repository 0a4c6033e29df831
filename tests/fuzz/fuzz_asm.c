/*
 * fuzz_asm.c -- libFuzzer target: the assembler never crashes on any text,
 * and every program it accepts disassembles to text that re-assembles to
 * the same words.
 */
#include "spu/asm.h"
#include "spu/spu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *src = malloc(size + 1);
    if (!src)
        return 0;
    memcpy(src, data, size);
    src[size] = 0;
    spu_image img = { 0 }, again = { 0 };
    char err[1024];
    if (spu_asm(src, "fuzz.s", &img, err, sizeof err) == 0) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f || spu_disasm(img.words, img.nwords, f, 0) != 0)
            abort();
        fclose(f);
        if (spu_asm(text, "disasm.s", &again, err, sizeof err) != 0 || again.nwords != img.nwords ||
            (img.nwords && memcmp(again.words, img.words, img.nwords * 4)))
            abort();
        free(text);
    }
    spu_image_free(&img);
    spu_image_free(&again);
    free(src);
    return 0;
}
