/*
 * cmd_devices.c -- `spu devices`: what could be a board (FTDI UART channels,
 * vendor-class USB bulk devices, serial ports), one URI per line.
 */
#include "cli.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static const char usage[] =
    "usage: spu devices [--json]\n"
    "Lists what could be a board: FTDI chips (one ftdi:// URI per UART channel;\n"
    "the iCEBreaker's and HX8K breakout's UART is channel B), vendor-class USB\n"
    "devices with a bulk IN/OUT pair (usb://) and serial ports (serial:). Pass a\n"
    "URI to --device. USB devices without access rights are listed with the reason.\n";

int spu_cmd_devices(int argc, char **argv)
{
    static const struct option opts[] = {
        { "json", no_argument, 0, 'j' }, { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 },
    };
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        default: return cli_usage_error("devices", "bad option");
        }
    }
    if (optind < argc)
        return cli_usage_error("devices", "unexpected argument '%s'", argv[optind]);
    int n = spu_list_devices(NULL, 0);
    if (n < 0)
        return cli_fail("devices", "%s", spu_strerror(n));
    spu_device_entry *e = calloc((size_t)n + 1, sizeof *e);
    if (!e)
        return cli_fail("devices", "%s", spu_strerror(SPU_ENOMEM));
    int m = spu_list_devices(e, n);   /* a device may have come or gone since */
    if (m > n)
        m = n;
    if (json) {
        cJSON *a = cJSON_CreateArray();
        for (int i = 0; i < m; i++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "uri", e[i].uri);
            cJSON_AddStringToObject(o, "kind", e[i].kind);
            cJSON_AddStringToObject(o, "desc", e[i].desc);
            cJSON_AddItemToArray(a, o);
        }
        char *txt = cJSON_PrintUnformatted(a);
        puts(txt ? txt : "[]");
        free(txt);
        cJSON_Delete(a);
    } else if (m == 0) {
        puts("no FTDI, vendor-class USB or serial devices found "
             "(plugged in? /dev/bus/usb readable? see docs/usb.md)");
    } else {
        for (int i = 0; i < m; i++)
            printf("%-28s %-6s %s\n", e[i].uri, e[i].kind, e[i].desc);
    }
    free(e);
    int err = fflush(stdout) != 0 || ferror(stdout);
    return err ? cli_fail("devices", "cannot write to stdout") : 0;
}
