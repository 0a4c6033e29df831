/*
 * bench_gemm.c -- `spu bench gemm`: a sweep of GEMM shapes on one device.
 * For each shape: device cycles, the reference model's prediction (off the
 * model device every piece is replayed on the model), array utilization,
 * link bytes and wall time -- the measurements a performance model is
 * calibrated against. Every result is also checked bit for bit.
 */
#include "cli.h"
#include "spu/gemm.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: spu bench gemm [--device URI] [--shapes MxNxK,...] [--json]\n"
    "Runs int8 GEMMs of each shape (default: a sweep from 8x8x8 to 256x256x64)\n"
    "on the device with random operands, checks each against a plain C loop and\n"
    "reports cycles, model_cycles, utilization = MACs / (cycles * ROWS * COLS),\n"
    "link bytes and wall time. Exit status 1 if any result differs.\n";

static const char *default_shapes =
    "8x8x8,8x8x64,8x8x512,16x16x16,32x32x32,64x64x64,64x64x512,37x29x300,128x128x128,256x256x64";

static int parse_shape(const char *s, uint32_t d[3])
{
    char *end;
    for (int i = 0; i < 3; i++) {
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v == 0 || v > 65536 || (i < 2 ? *end != 'x' : (*end != ',' && *end)))
            return -1;
        d[i] = (uint32_t)v;
        s = end + (i < 2);
    }
    return 0;
}

int spu_bench_gemm(int argc, char **argv)
{
    static const struct option opts[] = {
        { "device", required_argument, 0, 'd' }, { "shapes", required_argument, 0, 's' },
        { "json", no_argument, 0, 'j' },         { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *device = cli_default_device(), *shapes = default_shapes;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 's': shapes = optarg; break;
        case 'j': json = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        default: return cli_usage_error("bench gemm", "bad option");
        }
    }
    if (optind < argc)
        return cli_usage_error("bench gemm", "unexpected argument '%s'", argv[optind]);
    /* validate every shape before touching the device */
    for (const char *p = shapes; *p;) {
        uint32_t d[3];
        if (parse_shape(p, d))
            return cli_usage_error("bench gemm", "--shapes wants MxNxK[,MxNxK...] with sizes 1..65536, got '%s'", p);
        p = strchr(p, ',');
        p = p ? p + 1 : "";
    }
    spu_device *dev;
    int rc;
    if (cli_open_device("bench gemm", device, &dev))
        return 1;
    spu_info_t info;
    spu_info(dev, &info);
    const int off_model = strcmp(info.device, "model") != 0;
    cJSON *root = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(root, "results");
    cJSON_AddStringToObject(root, "device", device);
    cJSON_AddNumberToObject(root, "rows", info.rows);
    cJSON_AddNumberToObject(root, "cols", info.cols);
    if (!json)
        printf("spu bench gemm on %s (%ux%u array)\n%-14s %6s %10s %10s %7s %10s %8s\n", device, info.rows,
               info.cols, "shape", "pieces", "cycles", "model", "util", "link B", "wall s");
    int ret = 0;
    uint64_t seed = 1;
    for (const char *p = shapes; *p && ret == 0;) {
        uint32_t d[3];
        parse_shape(p, d);
        p = strchr(p, ',');
        p = p ? p + 1 : "";
        const size_t na = (size_t)d[0] * d[2], nb = (size_t)d[2] * d[1], nc = (size_t)d[0] * d[1];
        int8_t *A = malloc(na), *B = malloc(nb);
        int32_t *C = malloc(nc * 4), *R = malloc(nc * 4);
        if (!A || !B || !C || !R) {
            ret = cli_fail("bench gemm", "out of memory");
        } else {
            for (size_t i = 0; i < na; i++) A[i] = (int8_t)((seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 56);
            for (size_t i = 0; i < nb; i++) B[i] = (int8_t)((seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 56);
            spu_gemm_opts go = { off_model, 0 };
            spu_gemm_stats s;
            rc = spu_gemm_i8(dev, d[0], d[1], d[2], A, B, C, &go, &s);
            if (rc) {
                ret = cli_fail("bench gemm", "%ux%ux%u on %s: %s", d[0], d[1], d[2], device, spu_strerror(rc));
            } else {
                spu_gemm_i8_reference(d[0], d[1], d[2], A, B, R);
                const int exact = memcmp(C, R, nc * 4) == 0;
                if (!off_model)
                    s.model_cycles = s.cycles;
                const double util = (double)s.macs / ((double)s.cycles * info.rows * info.cols);
                cJSON *o = cJSON_CreateObject();
                cJSON_AddNumberToObject(o, "m", d[0]);
                cJSON_AddNumberToObject(o, "n", d[1]);
                cJSON_AddNumberToObject(o, "k", d[2]);
                cJSON_AddBoolToObject(o, "bitexact", exact);
                cJSON_AddNumberToObject(o, "pieces", s.pieces);
                cJSON_AddNumberToObject(o, "cycles", (double)s.cycles);
                cJSON_AddNumberToObject(o, "model_cycles", (double)s.model_cycles);
                cJSON_AddNumberToObject(o, "macs", (double)s.macs);
                cJSON_AddNumberToObject(o, "utilization", util);
                cJSON_AddNumberToObject(o, "mac_active", (double)s.mac_active);
                cJSON_AddNumberToObject(o, "stall_drain", (double)s.stall_drain);
                cJSON_AddNumberToObject(o, "stall_bank", (double)s.stall_bank);
                cJSON_AddNumberToObject(o, "link_bytes", (double)s.link_bytes);
                cJSON_AddNumberToObject(o, "wall_s", s.wall_s);
                cJSON_AddItemToArray(arr, o);
                if (!json) {
                    char shape[40];
                    snprintf(shape, sizeof shape, "%ux%ux%u", d[0], d[1], d[2]);
                    printf("%-14s %6u %10" PRIu64 " %10" PRIu64 " %7.4f %10" PRIu64 " %8.3f%s\n", shape,
                           s.pieces, s.cycles, s.model_cycles, util, s.link_bytes, s.wall_s,
                           exact ? "" : "  MISMATCH");
                }
                if (!exact)
                    ret = 1;
            }
        }
        free(A);
        free(B);
        free(C);
        free(R);
    }
    cJSON_AddNumberToObject(root, "retries", cli_link_retries(dev));
    if (json) {
        char *txt = cJSON_PrintUnformatted(root);
        puts(txt ? txt : "{}");
        free(txt);
    }
    cJSON_Delete(root);
    spu_close(dev);
    return ret;
}
