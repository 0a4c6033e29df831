/*
 * error_detail.c -- the thread's last error detail (error_detail.h).
 */
#include "core/error_detail.h"
#include "spu/spu.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char detail[512];

void spu_error_detail_set(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
}

void spu_error_detail_clear(void)
{
    detail[0] = 0;
}

const char *spu_error_detail(void)
{
    return detail;
}
