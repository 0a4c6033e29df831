/*
 * usb_list.c -- spu_list_devices(): what could be a board (spu/spu.h).
 * FTDI chips (VID 0x0403) give one ftdi:// entry per UART channel; any other
 * device with a vendor-class (0xff) interface that has a bulk IN + bulk OUT
 * pair gives a usb:// entry; ttyUSB/ttyACM nodes give serial: entries.
 */
#include "spu/spu.h"

#include <dirent.h>
#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void add(spu_device_entry *out, int cap, int *n, const char *kind, const char *uri,
                const char *desc)
{
    if (*n < cap) {
        spu_device_entry *e = &out[*n];
        snprintf(e->kind, sizeof e->kind, "%s", kind);
        snprintf(e->uri, sizeof e->uri, "%s", uri);
        snprintf(e->desc, sizeof e->desc, "%s", desc);
    }
    (*n)++;
}

static int ftdi_channels(uint16_t pid)
{
    switch (pid) {
    case 0x6010: return 2;   /* FT2232C/D/H */
    case 0x6011: return 4;   /* FT4232H */
    default:     return 1;
    }
}

static int bulk_pair(const struct libusb_interface_descriptor *alt)
{
    int in = 0, out = 0;
    for (int i = 0; i < alt->bNumEndpoints; i++) {
        const struct libusb_endpoint_descriptor *ep = &alt->endpoint[i];
        if ((ep->bmAttributes & LIBUSB_TRANSFER_TYPE_MASK) != LIBUSB_TRANSFER_TYPE_BULK)
            continue;
        if (ep->bEndpointAddress & LIBUSB_ENDPOINT_IN)
            in = 1;
        else
            out = 1;
    }
    return in && out;
}

static void describe(libusb_device *dev, const struct libusb_device_descriptor *dd, char *buf, size_t cap)
{
    uint8_t ports[8];
    int np = libusb_get_port_numbers(dev, ports, sizeof ports);
    char where[40];
    int w = snprintf(where, sizeof where, "bus %u port ", libusb_get_bus_number(dev));
    for (int i = 0; i < np && w > 0 && (size_t)w < sizeof where; i++)
        w += snprintf(where + w, sizeof where - (size_t)w, i ? ".%u" : "%u", ports[i]);
    libusb_device_handle *h;
    int rc = libusb_open(dev, &h);
    if (rc != 0) {
        snprintf(buf, cap, "%s; cannot open: %s%s", where, libusb_strerror(rc),
                 rc == LIBUSB_ERROR_ACCESS ? " (install host/udev/99-spu.rules)" : "");
        return;
    }
    unsigned char m[64] = "", p[64] = "", s[64] = "";
    if (dd->iManufacturer)
        libusb_get_string_descriptor_ascii(h, dd->iManufacturer, m, sizeof m);
    if (dd->iProduct)
        libusb_get_string_descriptor_ascii(h, dd->iProduct, p, sizeof p);
    if (dd->iSerialNumber)
        libusb_get_string_descriptor_ascii(h, dd->iSerialNumber, s, sizeof s);
    libusb_close(h);
    snprintf(buf, cap, "%s%s%s%s%s; %s", m, m[0] ? " " : "", p, s[0] ? " serial " : "", (char *)s, where);
}

static void list_usb(spu_device_entry *out, int cap, int *n)
{
    libusb_context *ctx;
    if (libusb_init(&ctx) != 0)
        return;   /* no USB at all (e.g. no /dev/bus/usb): nothing to list */
    libusb_device **list;
    ssize_t cnt = libusb_get_device_list(ctx, &list);
    for (ssize_t i = 0; i < cnt; i++) {
        struct libusb_device_descriptor dd;
        if (libusb_get_device_descriptor(list[i], &dd) != 0)
            continue;
        char uri[96], desc[160];
        if (dd.idVendor == 0x0403 && dd.idProduct != 0x601e && dd.idProduct != 0x601f) {
            describe(list[i], &dd, desc, sizeof desc);
            int ch = ftdi_channels(dd.idProduct);
            for (int c = 0; c < ch; c++) {
                snprintf(uri, sizeof uri, "ftdi://%04x:%04x/%c", dd.idVendor, dd.idProduct, 'A' + c);
                char d2[160];
                snprintf(d2, sizeof d2, "%s%.130s", ch == 2 && c == 1 ? "UART of iCEBreaker/HX8K; " : "", desc);
                add(out, cap, n, "ftdi", uri, d2);
            }
            continue;
        }
        struct libusb_config_descriptor *cfg;
        if (libusb_get_active_config_descriptor(list[i], &cfg) != 0 &&
            libusb_get_config_descriptor(list[i], 0, &cfg) != 0)
            continue;
        for (int k = 0; k < cfg->bNumInterfaces; k++) {
            if (cfg->interface[k].num_altsetting < 1)
                continue;
            const struct libusb_interface_descriptor *alt = &cfg->interface[k].altsetting[0];
            if (alt->bInterfaceClass != LIBUSB_CLASS_VENDOR_SPEC || !bulk_pair(alt))
                continue;
            if (alt->bInterfaceNumber)
                snprintf(uri, sizeof uri, "usb://%04x:%04x?interface=%u", dd.idVendor, dd.idProduct,
                         alt->bInterfaceNumber);
            else
                snprintf(uri, sizeof uri, "usb://%04x:%04x", dd.idVendor, dd.idProduct);
            describe(list[i], &dd, desc, sizeof desc);
            add(out, cap, n, "usb", uri, desc);
        }
        libusb_free_config_descriptor(cfg);
    }
    if (cnt >= 0)
        libusb_free_device_list(list, 1);
    libusb_exit(ctx);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void list_serial(spu_device_entry *out, int cap, int *n)
{
    DIR *d = opendir("/dev");
    if (!d)
        return;
    char *names[256];
    int k = 0;
    struct dirent *e;
    while ((e = readdir(d)) && k < 256)
        if (!strncmp(e->d_name, "ttyUSB", 6) || !strncmp(e->d_name, "ttyACM", 6))
            names[k++] = strdup(e->d_name);
    closedir(d);
    qsort(names, (size_t)k, sizeof names[0], cmp_names);
    for (int i = 0; i < k; i++) {
        if (!names[i])
            continue;
        char uri[96], path[300], drv[128] = "", link[300];
        snprintf(uri, sizeof uri, "serial:/dev/%s", names[i]);
        snprintf(path, sizeof path, "/sys/class/tty/%s/device/driver", names[i]);
        ssize_t l = readlink(path, link, sizeof link - 1);
        if (l > 0) {
            link[l] = 0;
            const char *slash = strrchr(link, '/');
            snprintf(drv, sizeof drv, "kernel driver %.100s", slash ? slash + 1 : link);
        }
        add(out, cap, n, "serial", uri, drv);
        free(names[i]);
    }
}

int spu_list_devices(spu_device_entry *out, int cap)
{
    if (cap < 0 || (cap && !out))
        return SPU_EINVAL;
    int n = 0;
    list_usb(out, cap, &n);
    list_serial(out, cap, &n);
    return n;
}
