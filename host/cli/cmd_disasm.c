/*
 * cmd_disasm.c -- `spu disasm IN.bin [--addr] [--json]`: print a microcode
 * binary (32-bit little-endian words) as assembler text that re-assembles
 * to the same bytes.
 */
#include "cli.h"
#include "spu/asm.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const CMD = "disasm";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: spu disasm IN.bin [--addr] [--json]\n"
            "\n"
            "Disassemble a microcode binary (32-bit little-endian words, as written by\n"
            "'spu asm'). The text re-assembles to the same bytes; words that are not\n"
            "valid instructions are printed as '.word 0x...' with the reason in a comment.\n"
            "IN.bin may be '-' for standard input.\n"
            "\n"
            "options:\n"
            "  --addr      add the word address and the raw word as a comment on each line\n"
            "  --json      print an array of {\"pc\", \"word\", \"text\", \"valid\"}\n"
            "  -h, --help  this text\n");
}

int spu_cmd_disasm(int argc, char **argv)
{
    const char *in = NULL;
    int json = 0, addr = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--addr")) {
            addr = 1;
        } else if (a[0] == '-' && a[1]) {
            return cli_usage_error(CMD, "unknown option '%s'", a);
        } else if (!in) {
            in = a;
        } else {
            return cli_usage_error(CMD, "more than one input file ('%s', '%s')", in, a);
        }
    }
    if (!in)
        return cli_usage_error(CMD, "no input file");
    char *data;
    size_t len;
    int rrc = cli_read_file(in, &data, &len);
    if (rrc)
        return cli_read_fail(CMD, in, rrc);
    if (len % 4) {
        free(data);
        return cli_fail(CMD, "%s: size %zu bytes is not a multiple of 4 (not a microcode binary?)",
                        in, len);
    }
    spu_image img;
    if (len == 0) {
        img = (spu_image){ NULL, 0, 0 };  /* an empty program disassembles to nothing */
    } else if (spu_image_from_bytes(data, len, &img)) {
        free(data);
        return cli_fail(CMD, "out of memory");
    }
    const size_t n = img.nwords;
    uint32_t *w = img.words;
    free(data);
    int rc = 0;
    if (json) {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < n && arr; i++) {
            char text[256], hex[16];
            int ok = spu_disasm_word(w[i], (uint32_t)i, text, sizeof text) == 0;
            snprintf(hex, sizeof hex, "0x%08x", w[i]);
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "pc", (double)i);
            cJSON_AddStringToObject(o, "word", hex);
            cJSON_AddStringToObject(o, "text", text);
            cJSON_AddBoolToObject(o, "valid", ok);
            cJSON_AddItemToArray(arr, o);
        }
        char *s = arr ? cJSON_Print(arr) : NULL;
        if (s)
            printf("%s\n", s);
        else
            rc = cli_fail(CMD, "out of memory");
        free(s);
        cJSON_Delete(arr);
    } else if (spu_disasm(w, n, stdout, addr) != 0) {
        rc = cli_fail(CMD, "write error");
    }
    free(w);
    return rc;
}
