/*
 * cmd_info.c -- `spu info`: what a device is (geometry, memories, formats).
 */
#include "cli.h"
#include "spu/isa.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: spu info [--device URI] [--json]\n"
    "Prints the device's array geometry, memory sizes, supported formats and\n"
    "ISA hash (which must equal this host's).\n";

int spu_cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {
        { "device", required_argument, 0, 'd' }, { "json", no_argument, 0, 'j' },
        { "help", no_argument, 0, 'h' },         { 0, 0, 0, 0 },
    };
    const char *device = cli_default_device();
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'j': json = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        default: return cli_usage_error("info", "bad option");
        }
    }
    if (optind < argc)
        return cli_usage_error("info", "unexpected argument '%s'", argv[optind]);
    spu_device *dev;
    if (cli_open_device("info", device, &dev))
        return 1;
    spu_info_t in;
    spu_info(dev, &in);
    char formats[128] = "";
    for (size_t i = 0; i < spu_dtype_table_len; i++)
        if (in.formats & (1u << spu_dtype_table[i].code)) {
            if (formats[0])
                strcat(formats, " ");
            strncat(formats, spu_dtype_table[i].key, sizeof formats - strlen(formats) - 2);
        }
    const int isa_ok = in.isa_hash == spu_isa_hash();
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "device", device);
        cJSON_AddNumberToObject(o, "rows", in.rows);
        cJSON_AddNumberToObject(o, "cols", in.cols);
        cJSON_AddNumberToObject(o, "word_bytes", in.word_bytes);
        cJSON_AddNumberToObject(o, "spad_bytes", in.spad_bytes);
        cJSON_AddNumberToObject(o, "spad_banks", in.spad_banks);
        cJSON_AddNumberToObject(o, "ucode_words", in.ucode_words);
        cJSON_AddNumberToObject(o, "loop_depth", in.loop_depth);
        cJSON_AddNumberToObject(o, "drain_lanes", in.drain_lanes);
        cJSON_AddStringToObject(o, "formats", formats);
        char h[16];
        snprintf(h, sizeof h, "0x%08x", in.isa_hash);
        cJSON_AddStringToObject(o, "isa_hash", h);
        cJSON_AddBoolToObject(o, "isa_match", isa_ok);
        cJSON_AddNumberToObject(o, "rtl_version", in.rtl_version);
        cJSON_AddNumberToObject(o, "clock_hz", in.clock_hz);
        cJSON_AddNumberToObject(o, "link_baud", in.link_baud);
        cJSON_AddBoolToObject(o, "vector", (in.features & SPU_FEATURE_VECTOR) != 0);
        cJSON_AddBoolToObject(o, "spad_single_port", (in.features & SPU_FEATURE_SPRAM) != 0);
        cJSON_AddBoolToObject(o, "chained_streams", (in.features & SPU_FEATURE_CHAIN) != 0);
        cJSON_AddBoolToObject(o, "array_buses", (in.features & SPU_FEATURE_BUS) != 0);
        cJSON_AddBoolToObject(o, "k_step_pairs", (in.features & SPU_FEATURE_PAIR) != 0);
        cJSON_AddBoolToObject(o, "overlapped_issue", (in.features & SPU_FEATURE_OVERLAP) != 0);
        char *txt = cJSON_PrintUnformatted(o);
        puts(txt ? txt : "{}");
        free(txt);
        cJSON_Delete(o);
    } else {
        printf("device       %s\n", device);
        printf("array        %u x %u tiles, %s\n", in.rows, in.cols,
               (in.features & SPU_FEATURE_PAIR)
                   ? "row / column buses: a step reaches every tile in 2 cycles, a pair's second step in 3"
               : (in.features & SPU_FEATURE_BUS)
                   ? "row / column buses: a step reaches every tile in 2 cycles"
                   : "systolic: a step reaches the last tile in rows + cols cycles");
        printf("scratchpad   %u bytes in %u banks, %u-byte words%s\n", in.spad_bytes, in.spad_banks, in.word_bytes,
               (in.features & SPU_FEATURE_SPRAM) ? ", single-port (SPRAM: mm waits for the drain)" : "");
        printf("microcode    %u words, %u nested loops\n", in.ucode_words, in.loop_depth);
        printf("drain        %u accumulator%s per cycle\n", in.drain_lanes, in.drain_lanes == 1 ? "" : "s");
        printf("formats      %s\n", formats);
        printf("vector unit  %s\n", (in.features & SPU_FEATURE_VECTOR) ? "yes (docs/isa.md \"Vector unit\")" : "no");
        printf("streams      %s\n", (in.features & SPU_FEATURE_CHAIN)
                                     ? "chained: a block every K cycles (docs/isa.md \"Chained streams\")"
                                     : "one-entry queue: K + 2 cycles per block (docs/isa.md \"Tensor unit\")");
        printf("k-step pairs %s\n", (in.features & SPU_FEATURE_PAIR)
                                     ? "yes: two k-steps of an mm a cycle where the rule allows (docs/isa.md \"k-step pairs\")"
                                     : "no");
        printf("overlapped issue %s\n",
               (in.features & SPU_FEATURE_OVERLAP)
                   ? "yes: an instruction's fetch shares the last cycle of the one before it where the rule allows "
                     "(docs/isa.md \"Overlapped issue\")"
                   : "no");
        printf("isa hash     0x%08x (%s)\n", in.isa_hash, isa_ok ? "matches host" : "DIFFERS from host");
        if (in.clock_hz)
            printf("clock        %u Hz\n", in.clock_hz);
        if (in.link_baud)
            printf("link         UART %u baud (%u clocks per bit)\n", in.link_baud,
                   in.clock_hz / in.link_baud);
    }
    spu_close(dev);
    return isa_ok ? 0 : 1;
}
