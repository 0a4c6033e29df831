/*
 * backend_serial.c -- "serial:PATH?baud=N[&timeout=MS&retries=N]": a board
 * behind a kernel tty (e.g. FTDI channel B of an iCEBreaker). Without baud=N
 * the tty is set to the boards' rate, SPU_LINK_BOARD_BAUD (12 Mbaud).
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
    unsigned baud = SPU_LINK_BOARD_BAUD;
    long b;
    if (!u->path[0])
        return spu_uri_fail(u, SPU_EINVAL, "serial needs a tty path, e.g. serial:/dev/ttyUSB1");
    int rc = spu_uri_long(u, "baud", 1, 100000000L, &b);
    if (rc < 0)
        return rc;
    if (rc)
        baud = (unsigned)b;
    serial_impl *s = calloc(1, sizeof *s);
    if (!s)
        return SPU_ENOMEM;
    spu_link_init(&s->link, -1);
    rc = spu_link_apply_uri(&s->link, u);
    if (rc) {
        free(s);
        return rc;
    }
    int fd = spu_serial_open(u->path, baud);
    if (fd < 0) {
        free(s);
        return spu_uri_fail(u, fd, "cannot open %s as a serial port", u->path);
    }
    s->fd = fd;
    s->link.fd = fd;
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
    .keys = (const char *const[]){ "baud", SPU_LINK_URI_KEYS, NULL },
};
