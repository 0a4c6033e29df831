/*
 * backend_ftdi.c -- "ftdi://VID:PID[/INTERFACE][?baud=N&serial=S&index=I]":
 * a board behind an FTDI USB UART, driven through libftdi1 (no kernel tty).
 *
 * The iCEBreaker and the iCE40-HX8K breakout carry an FT2232H whose channel A
 * is the flash/FPGA SPI and channel B the UART to the FPGA, so INTERFACE
 * defaults to B on two- and four-channel chips (PID 0x6010, 0x6011) and to A
 * otherwise (FT232R/BM 0x6001, FT232H 0x6014, FT230X 0x6015). The kernel's
 * ftdi_sio is detached from that interface only; the latency timer is set to
 * 1 ms (the chip's default of 16 ms costs 16 ms per reply); writes go out in
 * 4 KiB chunks, reads in 4 KiB transfers.
 *
 * Reads bypass ftdi_read_data(): the bulk IN transfer is done on libftdi's
 * own handle and the two status bytes of every max-packet are stripped here.
 * A real chip answers every latency period with a status-only packet, but
 * QEMU's emulated FT232BM NAKs instead, so a read times out; libftdi reports
 * that timeout as an error and drops the bytes it had already received in
 * the same call. Here a timeout with nothing pending is "no data yet", and
 * the bytes that came before a timeout are kept.
 */
#include "core/error_detail.h"
#include "link/link_client.h"
#include "link/link_ops.h"
#include "link/usb_pump.h"
#include "link/usb_uri.h"

#include <ftdi.h>
#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FTDI_CHUNK 4096
/* without baud=N: the boards' rate on the H series (FT2232H, FT4232H,
 * FT232H: 12 MHz / n), the older chips' maximum (3 Mbaud) otherwise */
#define FTDI_OLD_CHIP_BAUD 3000000ul

typedef struct ftdi_impl {
    spu_link link;   /* first: link_ops.c relies on it */
    struct ftdi_context *ftdi;
    spu_usb_pump pump;
    char what[200];                  /* "FTDI device 0403:6010 interface B ..." */
    unsigned char rx[FTDI_CHUNK];
} ftdi_impl;

static int ftdi_out(void *ctx, const uint8_t *p, size_t n, int timeout_ms)
{
    ftdi_impl *f = ctx;
    (void)timeout_ms;   /* libftdi's usb_write_timeout (set at open) */
    int w = ftdi_write_data(f->ftdi, p, (int)(n > FTDI_CHUNK ? FTDI_CHUNK : n));
    return w < 0 ? SPU_EIO : w;
}

static int ftdi_in(void *ctx, uint8_t *p, size_t cap, int timeout_ms)
{
    ftdi_impl *f = ctx;
    const size_t mps = f->ftdi->max_packet_size ? f->ftdi->max_packet_size : 64;
    /* room for cap payload bytes plus two status bytes per packet */
    size_t want = cap / (mps - 2) * mps;
    if (want > sizeof f->rx)
        want = sizeof f->rx / mps * mps;
    if (want < mps)
        want = mps;
    int got = 0;
    int rc = libusb_bulk_transfer(f->ftdi->usb_dev, (unsigned char)f->ftdi->out_ep, f->rx, (int)want,
                                  &got, (unsigned)timeout_ms);
    if (rc != 0 && rc != LIBUSB_ERROR_TIMEOUT)
        return SPU_EIO;
    size_t n = 0;
    for (size_t off = 0; off < (size_t)got; off += mps) {
        size_t pkt = (size_t)got - off < mps ? (size_t)got - off : mps;
        if (pkt <= 2)
            continue;   /* status only: no data yet */
        if (n + pkt - 2 > cap)
            return SPU_EIO;   /* cannot happen with the sizes above */
        memcpy(p + n, f->rx + off + 2, pkt - 2);
        n += pkt - 2;
    }
    return (int)n;
}

static const spu_usb_pump_ops ftdi_pump_ops = { ftdi_out, ftdi_in };

static void ftdi_close_impl(void *impl)
{
    ftdi_impl *f = impl;
    if (!f)
        return;
    spu_usb_pump_stop(&f->pump);
    if (f->ftdi) {
        ftdi_usb_close(f->ftdi);
        ftdi_free(f->ftdi);
    }
    free(f);
}

static int ftdi_open_impl(void **impl, const spu_uri *u)
{
    int vid, pid;
    const char *rest;
    int rc = spu_usb_parse_ids("ftdi", u->path, &vid, &pid, &rest);
    if (rc)
        return rc;
    enum ftdi_interface iface = (pid == 0x6010 || pid == 0x6011) ? INTERFACE_B : INTERFACE_A;
    char ifname = (iface == INTERFACE_B) ? 'B' : 'A';
    if (*rest) {
        static const enum ftdi_interface ifs[] = { INTERFACE_A, INTERFACE_B, INTERFACE_C, INTERFACE_D };
        char c = rest[1];
        if (c >= 'a' && c <= 'd')
            c = (char)(c - 'a' + 'A');
        if (c >= '1' && c <= '4')   /* libftdi's numbering: 1 = A */
            c = (char)(c - '1' + 'A');
        if (rest[0] != '/' || c < 'A' || c > 'D' || rest[2]) {
            spu_error_detail_set("ftdi://%04x:%04x%s: the interface after '/' is one of A, B, C, D "
                                 "(or 1-4)", vid, pid, rest);
            return SPU_EINVAL;
        }
        iface = ifs[c - 'A'];
        ifname = c;
    }
    unsigned long baud = 0, index = 0;   /* 0: by chip type, after the open */
    if ((rc = spu_usb_param_uint(u, "baud", 300, 12000000, &baud)) ||
        (rc = spu_usb_param_uint(u, "index", 0, 255, &index)))
        return rc;
    char serial[128] = "";
    int have_serial = spu_uri_param(u, "serial", serial, sizeof serial);

    ftdi_impl *f = calloc(1, sizeof *f);
    if (!f)
        return SPU_ENOMEM;
    f->ftdi = ftdi_new();
    if (!f->ftdi) {
        free(f);
        spu_error_detail_set("libftdi1 could not start (libusb_init failed)");
        return SPU_ENODEV;
    }
    char what[200];
    snprintf(what, sizeof what, "FTDI device %04x:%04x interface %c%s%s index %lu", vid, pid, ifname,
             have_serial ? " serial " : "", have_serial ? serial : "", index);
    ftdi_set_interface(f->ftdi, iface);
    f->ftdi->module_detach_mode = AUTO_DETACH_SIO_MODULE;   /* ftdi_sio lets go of this interface */
    rc = ftdi_usb_open_desc_index(f->ftdi, vid, pid, NULL, have_serial ? serial : NULL, (unsigned)index);
    if (rc < 0) {
        const char *why;
        switch (rc) {
        case -3: why = "not found: is the board plugged in (see `spu devices`)?"; break;
        case -4: why = "found but cannot be opened: no permission on /dev/bus/usb "
                       "(install host/udev/99-spu.rules) or it vanished"; break;
        case -5: why = "found but its interface cannot be claimed: a kernel driver or another "
                       "program (openFPGALoader, iceprog, a terminal) holds it"; break;
        default: why = ftdi_get_error_string(f->ftdi); break;
        }
        spu_error_detail_set("%s %s", what, why);
        ftdi_free(f->ftdi);
        free(f);
        return SPU_ENODEV;
    }
    f->ftdi->usb_write_timeout = 5000;
    if (ftdi_usb_reset(f->ftdi) < 0 ||
        ftdi_set_line_property(f->ftdi, BITS_8, STOP_BIT_1, NONE) < 0 ||
        ftdi_setflowctrl(f->ftdi, SIO_DISABLE_FLOW_CTRL) < 0) {
        spu_error_detail_set("%s: setting up the UART failed: %s", what, ftdi_get_error_string(f->ftdi));
        ftdi_close_impl(f);
        return SPU_ENODEV;
    }
    if (baud == 0) {
        int h = f->ftdi->type == TYPE_2232H || f->ftdi->type == TYPE_4232H || f->ftdi->type == TYPE_232H;
        baud = h ? SPU_LINK_BOARD_BAUD : FTDI_OLD_CHIP_BAUD;
    }
    if (ftdi_set_baudrate(f->ftdi, (int)baud) < 0) {
        spu_error_detail_set("%s: baud=%lu refused for this chip: %s", what, baud,
                             ftdi_get_error_string(f->ftdi));
        ftdi_close_impl(f);
        return SPU_EINVAL;
    }
    /* 1 ms latency timer: a short reply leaves the chip after 1 ms, not 16 */
    ftdi_set_latency_timer(f->ftdi, 1);
    ftdi_write_data_set_chunksize(f->ftdi, FTDI_CHUNK);
    ftdi_read_data_set_chunksize(f->ftdi, FTDI_CHUNK);
    ftdi_tcioflush(f->ftdi);

    rc = spu_usb_pump_start(&f->pump, &ftdi_pump_ops, f, FTDI_CHUNK, FTDI_CHUNK);
    if (rc) {
        ftdi_close_impl(f);
        return rc;
    }
    spu_link_init(&f->link, f->pump.fd);
    if ((rc = spu_link_apply_uri(&f->link, u)) < 0) {
        ftdi_close_impl(f);
        return rc;
    }
    snprintf(f->what, sizeof f->what, "%s", what);
    *impl = f;
    return 0;
}

static int ftdi_info(void *impl, spu_info_t *info)
{
    ftdi_impl *f = impl;
    int rc = spu_link_op_info(impl, info);
    if (rc == 0)
        snprintf(info->device, sizeof info->device, "ftdi");
    else
        spu_error_detail_set("%s opened, but no SPU answered on it (FPGA not configured with the "
                             "SPU bitstream, another interface, or another baud?)", f->what);
    return rc;
}

const spu_backend_ops spu_backend_ftdi = {
    .scheme = "ftdi",
    .open = ftdi_open_impl,
    .close = ftdi_close_impl,
    .info = ftdi_info,
    SPU_LINK_BACKEND_OPS,
    .keys = (const char *const[]){ "baud", "serial", "index", SPU_LINK_URI_KEYS, NULL },
};
