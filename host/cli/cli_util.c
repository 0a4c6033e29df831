/*
 * cli_util.c -- helpers shared by the subcommands (errors, numbers, files).
 */
#include "cli.h"
#include "spu/spu.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vreport(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "spu %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "(see 'spu %s --help')\n", cmd);
    return 2;
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* libspu's one line on why (e.g. a USB device that could not be opened) */
    if (*spu_error_detail())
        fprintf(stderr, "spu %s: %s (%s)\n", cmd, msg, spu_error_detail());
    else
        fprintf(stderr, "spu %s: %s\n", cmd, msg);
    return 1;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

const char *cli_default_device(void)
{
    const char *d = getenv("SPU_DEVICE");
    return d && *d ? d : "model";
}

int cli_read_file(const char *path, char **data, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return -1;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) { free(buf); buf = NULL; }
        else buf = nb;
    }
    int err = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf || err) {
        free(buf);
        return -1;
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}
