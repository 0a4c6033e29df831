/*
 * backend_serial.c -- "serial:PATH?baud=N[&timeout=MS&retries=N]": a board
 * behind a kernel tty (e.g. FTDI channel B of an iCEBreaker at 3000000 baud).
 */
#include "link/link_client.h"
#include "link/link_ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct serial_impl {
    spu_link link;   /* first: link_ops.c relies on it */
    int fd;
} serial_impl;

static int serial_open(void **impl, const spu_uri *u)
{
    char v[32];
    unsigned baud = 0;
    if (!u->path[0])
        return SPU_EINVAL;
    if (spu_uri_param(u, "baud", v, sizeof v)) {
        char *end;
        unsigned long b = strtoul(v, &end, 10);
        if (*end || b == 0 || b > 100000000ul)
            return SPU_EINVAL;
        baud = (unsigned)b;
    }
    serial_impl *s = calloc(1, sizeof *s);
    if (!s)
        return SPU_ENOMEM;
    int fd = spu_serial_open(u->path, baud);
    if (fd < 0) {
        free(s);
        return fd;
    }
    s->fd = fd;
    spu_link_init(&s->link, fd);
    spu_link_apply_uri(&s->link, u);
    *impl = s;
    return 0;
}

static void serial_close(void *impl)
{
    serial_impl *s = impl;
    if (!s)
        return;
    close(s->fd);
    free(s);
}

static int serial_info(void *impl, spu_info_t *info)
{
    int rc = spu_link_op_info(impl, info);
    if (rc == 0)
        snprintf(info->device, sizeof info->device, "serial");
    return rc;
}

const spu_backend_ops spu_backend_serial = {
    .scheme = "serial",
    .open = serial_open,
    .close = serial_close,
    .info = serial_info,
    SPU_LINK_BACKEND_OPS,
};
