/*
 * cmd_bench.c -- `spu bench <what>`: micro-benchmarks. A table of benches
 * (`gemm` lives in bench_gemm.c); the first is `numerics`: conversion
 * throughput in GB/s of f32 input against memcpy on the same buffer.
 */
#include "cli.h"
#include "cli_convert.h"
#include "spu/numerics.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* the benches are commands.def's SPU_SUBCOMMAND(bench, ...) rows */
static void usage(FILE *f)
{
    fprintf(f, "usage: spu bench <what> [options]   (spu bench <what> --help)\n\nbenches:\n");
    cli_subcommand_list("bench", f);
}

int spu_cmd_bench(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    int rc = cli_subcommand_run("bench", argc, argv);
    if (rc >= 0)
        return rc;
    fprintf(stderr, "spu bench: unknown bench '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}

/* ---- numerics ------------------------------------------------------------------ */
static const char numerics_usage[] =
    "usage: spu bench numerics [--json] [--mib N] [--reps N] [--scalar]\n"
    "Converts an N MiB (default 64) buffer of random f32 values and reports\n"
    "GB/s of f32 input (best of --reps runs, default 5) for f32->bf16, f32->e4m3,\n"
    "f32->e5m2, f32->mxfp8_e4m3 and f32->mxfp4_e2m1 (codes + scales, block 32,\n"
    "rne) next to memcpy of the same buffer, and the ratio to memcpy; then\n"
    "\"file f32->bf16\": the buffer as a file in $TMPDIR (or /tmp) converted to\n"
    "another file the way `spu convert` does it (page cache, careful output).\n"
    "--scalar forces the portable path. JSON: {\"memcpy_gbps\": x, \"results\":\n"
    "[{\"name\": \"f32->e4m3\", \"gbps\": y, \"ratio\": y/x}, ...]}.\n";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { K_MEMCPY, K_ELEM, K_MX };
typedef struct {
    const char *name;
    int kind;
    int fmt;  /* spu_fmt or spu_mx_fmt */
} bcase;

int spu_bench_numerics(int argc, char **argv)
{
    static const struct option opts[] = {
        { "json", no_argument, 0, 'j' },       { "mib", required_argument, 0, 'm' },
        { "reps", required_argument, 0, 'r' }, { "scalar", no_argument, 0, 's' },
        { "help", no_argument, 0, 'h' },       { 0, 0, 0, 0 },
    };
    int json = 0, scalar = 0, c;
    uint64_t mib = 64, reps = 5;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'm':
            if (cli_parse_u64(optarg, &mib) || mib == 0 || mib > 4096)
                return cli_usage_error("bench numerics", "bad --mib '%s'", optarg);
            break;
        case 'r':
            if (cli_parse_u64(optarg, &reps) || reps == 0 || reps > 1000)
                return cli_usage_error("bench numerics", "bad --reps '%s'", optarg);
            break;
        case 's': scalar = 1; break;
        case 'h': fputs(numerics_usage, stdout); return 0;
        default: return cli_usage_error("bench numerics", "bad option");
        }
    }
    if (optind < argc)
        return cli_usage_error("bench numerics", "unexpected argument '%s'", argv[optind]);

    static const bcase cases[] = {
        { "memcpy", K_MEMCPY, 0 },
        { "f32->bf16", K_ELEM, SPU_FMT_BF16 },
        { "f32->e4m3", K_ELEM, SPU_FMT_E4M3 },
        { "f32->e5m2", K_ELEM, SPU_FMT_E5M2 },
        { "f32->mxfp8_e4m3", K_MX, SPU_MX_FP8_E4M3 },
        { "f32->mxfp4_e2m1", K_MX, SPU_MX_FP4_E2M1 },
    };
    const size_t ncase = sizeof cases / sizeof cases[0];
    size_t n = (size_t)mib * 1024 * 1024 / sizeof(float);
    size_t cols = 4096, rows = n / cols;
    n = rows * cols;
    float *src = malloc(n * sizeof(float));
    void *dst = malloc(n * sizeof(float));
    uint8_t *scales = malloc(n / 32 + 1);
    if (!src || !dst || !scales) {
        free(src); free(dst); free(scales);
        return cli_fail("bench numerics", "out of memory (%llu MiB)", (unsigned long long)mib);
    }
    /* values over many binades, a few specials: like activations */
    uint64_t s = 0x1234567;
    for (size_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(s >> 32);
        float m = (float)(r & 0xFFFFF) / (float)0x100000 - 0.5f;
        src[i] = m * (float)(1u << ((r >> 20) & 15)) * 0.05f;
    }
    memset(dst, 1, n * sizeof(float));
    memset(scales, 1, n / 32 + 1);
    double gbps[sizeof cases / sizeof cases[0]];
    spu_mx_opts mo = { 32, SPU_MX_SCALE_FLOOR, SPU_ROUND_RNE, 0 };
    for (size_t k = 0; k < ncase; k++) {
        double best = 1e30;
        for (uint64_t r = 0; r < reps; r++) {
            double t0 = now_s();
            int rc = 0;
            switch (cases[k].kind) {
            case K_MEMCPY: memcpy(dst, src, n * sizeof(float)); break;
            case K_ELEM:
                rc = scalar ? spu_convert_from_f32_scalar((spu_fmt)cases[k].fmt, src, dst, n, NULL)
                            : spu_convert_from_f32((spu_fmt)cases[k].fmt, src, dst, n, NULL);
                break;
            default:
                rc = scalar ? spu_mx_quantize_scalar((spu_mx_fmt)cases[k].fmt, src, rows, cols, &mo, dst, scales, NULL)
                            : spu_mx_quantize((spu_mx_fmt)cases[k].fmt, src, rows, cols, &mo, dst, scales, NULL);
                break;
            }
            double dt = now_s() - t0;
            if (rc) {
                free(src); free(dst); free(scales);
                return cli_fail("bench numerics", "%s failed: %s", cases[k].name, spu_strerror(rc));
            }
            best = dt < best ? dt : best;
        }
        gbps[k] = (double)(n * sizeof(float)) / best / 1e9;
    }
    /* the same f32->bf16 as `spu convert` does it: file to file (page cache) */
    double file_gbps = 0;
    {
        const char *td = getenv("TMPDIR");
        char in[480], out[512], err[512];
        snprintf(in, sizeof in, "%s/spu_bench_numerics_%d.f32", td && *td ? td : "/tmp", (int)getpid());
        snprintf(out, sizeof out, "%s.bf16", in);
        FILE *f = fopen(in, "wb");
        int ok = f && fwrite(src, sizeof(float), n, f) == n;
        if (f)
            ok &= fclose(f) == 0;
        double best = 1e30;
        spu_cvt_opts co = { SPU_ROUND_RNE, SPU_OVF_SAT, 0, 0 };
        for (uint64_t r = 0; ok && r < reps; r++) {
            unlink(out);   /* a new file each time (ext4 flushes a file renamed over another) */
            double t0 = now_s();
            ok = cli_convert_file(SPU_FMT_F32, SPU_FMT_BF16, &co, in, out, err, sizeof err) == 0;
            double dt = now_s() - t0;
            best = dt < best ? dt : best;
        }
        unlink(in);
        unlink(out);
        if (!ok) {
            free(src); free(dst); free(scales);
            return cli_fail("bench numerics", "file f32->bf16 in %s failed", td && *td ? td : "/tmp");
        }
        file_gbps = (double)(n * sizeof(float)) / best / 1e9;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cli_bench_json_header(o, NULL, NULL);   /* host only: ISA hash, commit */
        cJSON_AddNumberToObject(o, "memcpy_gbps", gbps[0]);
        cJSON_AddNumberToObject(o, "buffer_mib", (double)mib);
        cJSON_AddBoolToObject(o, "avx2", !scalar && spu_numerics_have_avx2());
        cJSON *arr = cJSON_AddArrayToObject(o, "results");
        for (size_t k = 1; k < ncase; k++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "name", cases[k].name);
            cJSON_AddNumberToObject(e, "gbps", gbps[k]);
            cJSON_AddNumberToObject(e, "ratio", gbps[k] / gbps[0]);
            cJSON_AddItemToArray(arr, e);
        }
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", "file f32->bf16");
        cJSON_AddNumberToObject(e, "gbps", file_gbps);
        cJSON_AddNumberToObject(e, "ratio", file_gbps / gbps[0]);
        cJSON_AddItemToArray(arr, e);
        char *str = cJSON_PrintUnformatted(o);
        printf("%s\n", str);
        free(str);
        cJSON_Delete(o);
    } else {
        printf("buffer %llu MiB of f32, best of %llu, %s path\n", (unsigned long long)mib,
               (unsigned long long)reps, !scalar && spu_numerics_have_avx2() ? "avx2" : "scalar");
        printf("%-18s %10s %10s\n", "name", "GB/s", "x memcpy");
        for (size_t k = 0; k < ncase; k++)
            printf("%-18s %10.2f %10.2f\n", cases[k].name, gbps[k], gbps[k] / gbps[0]);
        printf("%-18s %10.2f %10.2f   (spu convert: read, convert, write a file)\n", "file f32->bf16",
               file_gbps, file_gbps / gbps[0]);
    }
    free(src);
    free(dst);
    free(scales);
    return 0;
}
