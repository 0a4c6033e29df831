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
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
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

int cli_open_device(const char *cmd, const char *uri, spu_device **dev)
{
    char why[256];
    int rc = spu_open_ex(dev, uri, why, sizeof why);
    if (rc == 0)
        return 0;
    if (rc == SPU_EISA)   /* not from open today, but say it plainly if it comes */
        return cli_fail(cmd, "cannot open device '%s': %s", uri, spu_strerror(rc));
    return cli_fail(cmd, "cannot open device '%s': %s", uri, why[0] ? why : spu_strerror(rc));
}

double cli_link_retries(spu_device *dev)
{
    spu_link_stats_t st;
    return spu_link_stats(dev, &st) == 0 ? (double)st.retries : 0.0;
}
