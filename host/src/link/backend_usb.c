/*
 * backend_usb.c -- "usb://VID:PID[?interface=N&ep_out=0xNN&ep_in=0xNN&serial=S]":
 * a board whose USB bridge is a vendor-class device with a bulk pair (FX2,
 * FT60x-style bridges in a FIFO mode, or a soft USB core in the FPGA). The
 * link protocol (docs/protocol.md) runs over raw libusb bulk transfers:
 * requests go out on ep_out, replies come back on ep_in. Without ep_out/ep_in
 * the first bulk OUT and bulk IN endpoints of the interface's alternate
 * setting 0 are used. A kernel driver bound to the interface is detached
 * while it is claimed. A bulk IN that times out with nothing received is "no
 * data yet"; the device should end every reply with a short packet (or a
 * zero-length packet after a multiple of wMaxPacketSize), else the reply's
 * last packets wait for the next transfer's timeout (100 ms).
 */
#include "core/error_detail.h"
#include "link/link_client.h"
#include "link/link_ops.h"
#include "link/usb_pump.h"
#include "link/usb_uri.h"

#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USB_CHUNK 16384

typedef struct usb_impl {
    spu_link link;   /* first: link_ops.c relies on it */
    libusb_context *ctx;
    libusb_device_handle *h;
    int iface;
    int claimed;
    unsigned char ep_out, ep_in;
    spu_usb_pump pump;
    char what[280];                  /* "USB device 1209:0001 ... interface 0 (OUT 0x01, IN 0x81)" */
} usb_impl;

static int usb_out(void *ctx, const uint8_t *p, size_t n, int timeout_ms)
{
    usb_impl *d = ctx;
    int got = 0;
    int rc = libusb_bulk_transfer(d->h, d->ep_out, (unsigned char *)p, (int)(n > USB_CHUNK ? USB_CHUNK : n),
                                  &got, (unsigned)timeout_ms);
    if (rc != 0 && rc != LIBUSB_ERROR_TIMEOUT)
        return SPU_EIO;
    return got;
}

static int usb_in(void *ctx, uint8_t *p, size_t cap, int timeout_ms)
{
    usb_impl *d = ctx;
    int got = 0;
    int rc = libusb_bulk_transfer(d->h, d->ep_in, p, (int)cap, &got, (unsigned)timeout_ms);
    if (rc != 0 && rc != LIBUSB_ERROR_TIMEOUT)
        return SPU_EIO;
    return got;   /* a timeout keeps what arrived before it */
}

static const spu_usb_pump_ops usb_pump_ops = { usb_out, usb_in };

static void usb_close_impl(void *impl)
{
    usb_impl *d = impl;
    if (!d)
        return;
    spu_usb_pump_stop(&d->pump);
    if (d->claimed)
        libusb_release_interface(d->h, d->iface);
    if (d->h)
        libusb_close(d->h);
    if (d->ctx)
        libusb_exit(d->ctx);
    free(d);
}

/* The first bulk endpoints of interface iface (alt 0) that the URI did not fix. */
static int find_endpoints(usb_impl *d, const char *what)
{
    struct libusb_config_descriptor *cfg;
    if (libusb_get_active_config_descriptor(libusb_get_device(d->h), &cfg) != 0) {
        spu_error_detail_set("%s: cannot read its configuration descriptor", what);
        return SPU_ENODEV;
    }
    int rc = 0;
    if (d->iface >= cfg->bNumInterfaces || cfg->interface[d->iface].num_altsetting < 1) {
        spu_error_detail_set("%s has no interface %d (it has %d)", what, d->iface, cfg->bNumInterfaces);
        rc = SPU_ENODEV;
    } else {
        const struct libusb_interface_descriptor *alt = &cfg->interface[d->iface].altsetting[0];
        /* endpoints the URI named must be bulk endpoints of this interface */
        const unsigned char want[2] = { d->ep_out, d->ep_in };
        for (int k = 0; k < 2 && rc == 0; k++) {
            int ok = !want[k];
            for (int i = 0; i < alt->bNumEndpoints && !ok; i++)
                ok = alt->endpoint[i].bEndpointAddress == want[k] &&
                     (alt->endpoint[i].bmAttributes & LIBUSB_TRANSFER_TYPE_MASK) == LIBUSB_TRANSFER_TYPE_BULK;
            if (!ok) {
                spu_error_detail_set("%s: interface %d has no bulk endpoint 0x%02x", what, d->iface, want[k]);
                rc = SPU_ENODEV;
            }
        }
        for (int i = 0; i < alt->bNumEndpoints && rc == 0; i++) {
            const struct libusb_endpoint_descriptor *ep = &alt->endpoint[i];
            if ((ep->bmAttributes & LIBUSB_TRANSFER_TYPE_MASK) != LIBUSB_TRANSFER_TYPE_BULK)
                continue;
            if ((ep->bEndpointAddress & LIBUSB_ENDPOINT_IN) && !d->ep_in)
                d->ep_in = ep->bEndpointAddress;
            if (!(ep->bEndpointAddress & LIBUSB_ENDPOINT_IN) && !d->ep_out)
                d->ep_out = ep->bEndpointAddress;
        }
        if (rc == 0 && (!d->ep_in || !d->ep_out)) {
            spu_error_detail_set("%s: interface %d has no bulk IN + bulk OUT pair "
                                 "(give ep_out= and ep_in=)", what, d->iface);
            rc = SPU_ENODEV;
        }
    }
    libusb_free_config_descriptor(cfg);
    return rc;
}

/* Open the index-th device with vid:pid (and serial, if given). */
static int open_device(usb_impl *d, int vid, int pid, const char *serial, unsigned long index,
                       const char *what)
{
    libusb_device **list;
    ssize_t n = libusb_get_device_list(d->ctx, &list);
    if (n < 0) {
        spu_error_detail_set("%s: cannot list USB devices: %s", what, libusb_strerror((int)n));
        return SPU_ENODEV;
    }
    int seen = 0, rc = LIBUSB_ERROR_NOT_FOUND;
    unsigned long match = 0;
    for (ssize_t i = 0; i < n && !d->h; i++) {
        struct libusb_device_descriptor dd;
        if (libusb_get_device_descriptor(list[i], &dd) != 0 || dd.idVendor != vid || dd.idProduct != pid)
            continue;
        seen++;
        libusb_device_handle *h;
        rc = libusb_open(list[i], &h);
        if (rc != 0)
            continue;
        if (serial) {
            unsigned char s[128] = "";
            if (!dd.iSerialNumber ||
                libusb_get_string_descriptor_ascii(h, dd.iSerialNumber, s, sizeof s) < 0 ||
                strcmp((char *)s, serial)) {
                libusb_close(h);
                rc = LIBUSB_ERROR_NOT_FOUND;
                continue;
            }
        }
        if (match++ < index) {
            libusb_close(h);
            rc = LIBUSB_ERROR_NOT_FOUND;
            continue;
        }
        d->h = h;
    }
    libusb_free_device_list(list, 1);
    if (d->h)
        return 0;
    if (!seen)
        spu_error_detail_set("%s not found: is the board plugged in (see `spu devices`)?", what);
    else if (rc == LIBUSB_ERROR_ACCESS)
        spu_error_detail_set("%s found but cannot be opened: no permission on /dev/bus/usb "
                             "(install host/udev/99-spu.rules)", what);
    else if (rc == LIBUSB_ERROR_NOT_FOUND)
        spu_error_detail_set("%s: %d device%s with that id, none matches serial/index", what, seen,
                             seen == 1 ? "" : "s");
    else
        spu_error_detail_set("%s found but cannot be opened: %s", what, libusb_strerror(rc));
    return SPU_ENODEV;
}

static int usb_open_impl(void **impl, const spu_uri *u)
{
    int vid, pid;
    const char *rest;
    int rc = spu_usb_parse_ids("usb", u->path, &vid, &pid, &rest);
    if (rc)
        return rc;
    if (*rest) {
        spu_error_detail_set("usb://%s: nothing may follow VID:PID in the path (use ?interface=N)", u->path);
        return SPU_EINVAL;
    }
    unsigned long iface = 0, ep_out = 0, ep_in = 0, index = 0;
    if ((rc = spu_usb_param_uint(u, "interface", 0, 31, &iface)) ||
        (rc = spu_usb_param_uint(u, "ep_out", 0x01, 0x0f, &ep_out)) ||
        (rc = spu_usb_param_uint(u, "ep_in", 0x81, 0x8f, &ep_in)) ||
        (rc = spu_usb_param_uint(u, "index", 0, 255, &index)))
        return rc;
    char serial[128];
    int have_serial = spu_uri_param(u, "serial", serial, sizeof serial);

    usb_impl *d = calloc(1, sizeof *d);
    if (!d)
        return SPU_ENOMEM;
    d->iface = (int)iface;
    d->ep_out = (unsigned char)ep_out;
    d->ep_in = (unsigned char)ep_in;
    char what[200];
    snprintf(what, sizeof what, "USB device %04x:%04x%s%s", vid, pid, have_serial ? " serial " : "",
             have_serial ? serial : "");
    if ((rc = libusb_init(&d->ctx)) != 0) {
        spu_error_detail_set("libusb_init failed: %s", libusb_strerror(rc));
        free(d);
        return SPU_ENODEV;
    }
    if ((rc = open_device(d, vid, pid, have_serial ? serial : NULL, index, what)) ||
        (rc = find_endpoints(d, what))) {
        usb_close_impl(d);
        return rc;
    }
    libusb_set_auto_detach_kernel_driver(d->h, 1);
    int lrc = libusb_claim_interface(d->h, d->iface);
    if (lrc != 0) {
        spu_error_detail_set("%s: interface %d cannot be claimed (%s): a kernel driver or another "
                             "program holds it", what, d->iface, libusb_strerror(lrc));
        usb_close_impl(d);
        return SPU_ENODEV;
    }
    d->claimed = 1;
    rc = spu_usb_pump_start(&d->pump, &usb_pump_ops, d, USB_CHUNK, USB_CHUNK);
    if (rc) {
        usb_close_impl(d);
        return rc;
    }
    spu_link_init(&d->link, d->pump.fd);
    if ((rc = spu_link_apply_uri(&d->link, u)) < 0) {
        usb_close_impl(d);
        return rc;
    }
    snprintf(d->what, sizeof d->what, "%s interface %d (OUT 0x%02x, IN 0x%02x)", what, d->iface, d->ep_out,
             d->ep_in);
    *impl = d;
    return 0;
}

static int usb_info(void *impl, spu_info_t *info)
{
    usb_impl *d = impl;
    int rc = spu_link_op_info(impl, info);
    if (rc == 0)
        snprintf(info->device, sizeof info->device, "usb");
    else
        spu_error_detail_set("%s opened, but no SPU answered on it (another device with this id, "
                             "FPGA not configured, or other endpoints?)", d->what);
    return rc;
}

const spu_backend_ops spu_backend_usb = {
    .scheme = "usb",
    .open = usb_open_impl,
    .close = usb_close_impl,
    .info = usb_info,
    SPU_LINK_BACKEND_OPS,
    .keys = (const char *const[]){ "interface", "ep_out", "ep_in", "serial", "index", SPU_LINK_URI_KEYS, NULL },
};
