/*
 * cmd_asm.c -- `spu asm IN.s -o OUT.bin [--json]`: assemble SPU microcode
 * (syntax in docs/asm.md) into raw little-endian 32-bit words. On any error
 * the messages go to stderr, the exit status is 1 and OUT.bin is neither
 * created nor touched (the image is written to a temporary file next to it
 * and renamed into place).
 */
#include "cli.h"
#include "spu/asm.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const CMD = "asm";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: spu asm IN.s -o OUT.bin [--json]\n"
            "\n"
            "Assemble SPU microcode (syntax: docs/asm.md) into OUT.bin: the program's\n"
            "32-bit words, little-endian, loaded at word 0, entry pc 0.\n"
            "IN.s may be '-' for standard input.\n"
            "\n"
            "options:\n"
            "  -o, --output FILE  where to write the binary (required)\n"
            "  --json             print {\"input\", \"output\", \"words\", \"bytes\", \"entry\"}\n"
            "  -h, --help         this text\n"
            "\n"
            "Errors are printed as FILE:LINE:COL: error: MESSAGE; the exit status is then 1\n"
            "and OUT.bin is not written.\n");
}

/* Write the words to path the careful way (spu/outfile.h). 0 or 1 (printed). */
static int write_image(const char *path, const spu_image *img)
{
    unsigned char *b = malloc(img->nwords * 4 + 1);
    if (!b)
        return cli_fail("asm", "out of memory");
    for (size_t i = 0; i < img->nwords; i++)
        for (int k = 0; k < 4; k++)
            b[4 * i + k] = (unsigned char)(img->words[i] >> (8 * k));
    cli_output o = { path, { b, NULL }, { img->nwords * 4, 0 } };
    int rc = cli_write_outputs("asm", 1, &o);
    free(b);
    return rc;
}

int spu_cmd_asm(int argc, char **argv)
{
    const char *in = NULL, *outp = NULL;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (++i >= argc)
                return cli_usage_error(CMD, "%s needs a file name", a);
            outp = argv[i];
        } else if (!strncmp(a, "--output=", 9)) {
            outp = a + 9;
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
    if (!outp)
        return cli_usage_error(CMD, "no output file (-o OUT.bin)");

    char *src;
    size_t len;
    int rrc = cli_read_file(in, &src, &len);
    if (rrc)
        return cli_read_fail(CMD, in, rrc);
    if (memchr(src, 0, len)) {
        free(src);
        return cli_fail(CMD, "%s: contains a NUL byte (not a text file?)", in);
    }
    size_t errcap = 1 << 16;
    char *err = malloc(errcap);
    if (!err) {
        free(src);
        return cli_fail(CMD, "out of memory");
    }
    spu_image img = {0};
    int rc = spu_asm(src, strcmp(in, "-") ? in : "<stdin>", &img, err, errcap);
    free(src);
    if (rc) {
        if (rc == SPU_EPARSE)
            fputs(err, stderr);
        else
            fprintf(stderr, "spu asm: %s\n", spu_strerror(rc));
        free(err);
        return 1;
    }
    free(err);
    if (write_image(outp, &img)) {
        spu_image_free(&img);
        return 1;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "input", in);
        cJSON_AddStringToObject(o, "output", outp);
        cJSON_AddNumberToObject(o, "words", (double)img.nwords);
        cJSON_AddNumberToObject(o, "bytes", (double)img.nwords * 4);
        cJSON_AddNumberToObject(o, "entry", img.entry);
        char *s = cJSON_PrintUnformatted(o);
        if (s)
            printf("%s\n", s);
        free(s);
        cJSON_Delete(o);
    }
    spu_image_free(&img);
    return 0;
}
