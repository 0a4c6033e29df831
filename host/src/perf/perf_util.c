/*
 * perf_util.c -- small helpers of the performance model: reading a text file
 * (hardware files, model configs) with a size limit.
 */
#include "perf_internal.h"
#include "spu/spu.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

char *spu_perf_read_text(const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int bad = !buf || ferror(f) || n > max;
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    return buf;
}

int spu_perf_fail(char *err, size_t n, const char *fmt, ...)
{
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return SPU_EINVAL;
}
