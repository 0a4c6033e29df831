/*
 * cmd_quantize.c -- `spu quantize`: fake-quantize a .npy tensor along its
 * last axis to an OCP MX block format or a plain element format, optionally
 * writing the packed codes and the E8M0 scales (docs/numerics.md).
 */
#include "cli.h"
#include "spu/npy.h"
#include "spu/numerics.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: spu quantize --format FMT [--block 32] [--scale floor|ceil]\n"
    "                    [--round rne|rtz|rna|sr] [--seed N] [--sat|--ovf]\n"
    "                    --in X.npy --out Y.npy [--codes C.bin] [--scales S.bin] [--json]\n"
    "Fake-quantizes X (float32 or float16) along its last axis and writes the\n"
    "dequantized float32 tensor Y of the same shape.\n"
    "FMT: mxfp8_e4m3 mxfp8_e5m2 mxfp6_e3m2 mxfp6_e2m3 mxfp4_e2m1 mxint8 (block\n"
    "scaled), or an element format f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 int8 (per\n"
    "element, no scale; --sat/--ovf apply to these only, MX elements saturate).\n"
    "--codes: all codes in flat (C) order, packed: 4-bit two per byte (low nibble\n"
    "first), 6-bit as a little-endian bit stream, 8-bit one per byte, 16-bit LE.\n"
    "--scales: one E8M0 byte per block, [rows][ceil(cols/block)] (MX only).\n"
    "--json: {\"rmse\", \"max_abs_err\", \"sqnr_db\", ...} on stdout (null = infinite).\n";

static int cleanup_fail(float *x, void *codes, uint8_t *scales, uint8_t *packed, spu_tensor *t,
                        spu_tensor *y)
{
    free(x);
    free(codes);
    free(scales);
    free(packed);
    spu_tensor_free(t);
    spu_tensor_free(y);
    return 1;   /* the reason is printed already */
}

static void add_num(cJSON *o, const char *k, double v)
{
    if (isfinite(v))
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

int spu_cmd_quantize(int argc, char **argv)
{
    static const struct option opts[] = {
        { "format", required_argument, 0, 'f' }, { "block", required_argument, 0, 'b' },
        { "scale", required_argument, 0, 'c' },  { "round", required_argument, 0, 'r' },
        { "seed", required_argument, 0, 's' },   { "in", required_argument, 0, 'i' },
        { "out", required_argument, 0, 'o' },    { "codes", required_argument, 0, 'C' },
        { "scales", required_argument, 0, 'X' }, { "json", no_argument, 0, 'j' },
        { "sat", no_argument, 0, 'S' },          { "ovf", no_argument, 0, 'O' },
        { "help", no_argument, 0, 'h' },         { 0, 0, 0, 0 },
    };
    const char *fmtname = NULL, *in = NULL, *out = NULL, *codes_path = NULL, *scales_path = NULL;
    spu_mx_opts mo = { SPU_MX_BLOCK_DEFAULT, SPU_MX_SCALE_FLOOR, SPU_ROUND_RNE, 0 };
    spu_overflow ovf = SPU_OVF_SAT;
    int json = 0, c, novf = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'f': fmtname = optarg; break;
        case 'b': {
            uint64_t b;
            if (cli_parse_u64(optarg, &b) || b == 0 || b > (1u << 24))
                return cli_usage_error("quantize", "bad --block '%s'", optarg);
            mo.block = (size_t)b;
            break;
        }
        case 'c':
            if (!strcmp(optarg, "floor"))
                mo.scale = SPU_MX_SCALE_FLOOR;
            else if (!strcmp(optarg, "ceil"))
                mo.scale = SPU_MX_SCALE_CEIL;
            else
                return cli_usage_error("quantize", "unknown --scale '%s' (floor ceil)", optarg);
            break;
        case 'r': {
            int r = spu_round_from_name(optarg);
            if (r < 0)
                return cli_usage_error("quantize", "unknown rounding '%s' (rne rtz rna sr)", optarg);
            mo.round = (spu_round)r;
            break;
        }
        case 's':
            if (cli_parse_u64(optarg, &mo.seed))
                return cli_usage_error("quantize", "bad --seed '%s'", optarg);
            break;
        case 'i': in = optarg; break;
        case 'o': out = optarg; break;
        case 'C': codes_path = optarg; break;
        case 'X': scales_path = optarg; break;
        case 'j': json = 1; break;
        case 'S': ovf = SPU_OVF_SAT; break;
        case 'O': ovf = SPU_OVF_OVF; novf = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        default: return cli_usage_error("quantize", "bad option");
        }
    }
    if (optind < argc)
        return cli_usage_error("quantize", "unexpected argument '%s'", argv[optind]);
    if (!fmtname || !in || !out)
        return cli_usage_error("quantize", "--format, --in and --out are required");
    if (cli_check_output("quantize", out) || cli_check_output("quantize", codes_path) ||
        cli_check_output("quantize", scales_path))
        return 1;
    int mx = spu_mx_from_name(fmtname), ef = -1;
    if (mx < 0) {
        ef = spu_fmt_from_name(fmtname);
        if (ef < 0 || ef == SPU_FMT_E8M0)
            return cli_usage_error("quantize", "unknown format '%s'", fmtname);
        if (scales_path)
            return cli_usage_error("quantize", "--scales needs an MX format ('%s' has no scale)", fmtname);
    } else if (novf) {
        return cli_usage_error("quantize", "--ovf applies to element formats only (MX elements saturate)");
    }
    spu_fmt elem = mx >= 0 ? spu_mx_elem((spu_mx_fmt)mx) : (spu_fmt)ef;

    char err[256] = "";
    spu_tensor t;
    memset(&t, 0, sizeof t);
    int rc = spu_npy_load(in, &t, err, sizeof err);
    if (rc)
        return err[0] ? cli_fail("quantize", "cannot load %s", err)   /* err names the file */
                      : cli_fail("quantize", "cannot load '%s': %s", in, spu_strerror(rc));
    if (t.dtype != SPU_NPY_FLOAT32 && t.dtype != SPU_NPY_FLOAT16) {
        int r = cli_fail("quantize", "'%s' is %s; expected float32 or float16", in,
                         spu_npy_dtype_name(t.dtype));
        spu_tensor_free(&t);
        return r;
    }
    size_t n = spu_tensor_numel(&t);
    size_t cols = t.ndim ? t.shape[t.ndim - 1] : 1;
    size_t rows = cols ? n / cols : 0;
    float *x = malloc(n * sizeof(float) + 4);
    spu_tensor y;
    memset(&y, 0, sizeof y);
    size_t nb = mx >= 0 ? spu_mx_blocks_per_row(cols, mo.block) : 0;
    size_t esz = spu_fmt_elem_bytes(elem);
    void *codes = malloc(n * esz + 4);
    uint8_t *scales = malloc(rows * nb + 1);
    uint8_t *packed = malloc(spu_pack_bytes(elem, n) + 1);
    rc = (x && codes && scales && packed) ? 0 : SPU_ENOMEM;
    if (!rc)
        rc = spu_tensor_alloc(&y, SPU_NPY_FLOAT32, t.ndim, t.shape);
    if (!rc)
        rc = spu_convert_to_f32(t.dtype == SPU_NPY_FLOAT16 ? SPU_FMT_F16 : SPU_FMT_F32, t.data, x, n);
    float *q = y.data;
    if (!rc) {
        if (mx >= 0) {
            rc = spu_mx_quantize((spu_mx_fmt)mx, x, rows, cols, &mo, codes, scales, q);
        } else {
            spu_cvt_opts co = { mo.round, ovf, mo.seed, 0 };
            rc = spu_convert_from_f32(elem, x, codes, n, &co);
            if (!rc)
                rc = spu_convert_to_f32(elem, codes, q, n);
        }
    }
    if (!rc) {
        /* every output is built in memory first and committed together: a
         * failure on --codes must not leave --out replaced */
        cli_output outs[3];
        char hdr[640];
        int nout = 0;
        if (cli_npy_output(&outs[nout++], out, &y, hdr, sizeof hdr))
            rc = SPU_EINVAL, snprintf(err, sizeof err, "cannot encode '%s'", out);
        if (!rc && codes_path)
            outs[nout++] = (cli_output){ codes_path, { packed, NULL },
                                         { spu_pack_codes(elem, codes, n, packed), 0 } };
        if (!rc && scales_path)
            outs[nout++] = (cli_output){ scales_path, { scales, NULL }, { rows * nb, 0 } };
        if (!rc && cli_write_outputs("quantize", nout, outs))
            return cleanup_fail(x, codes, scales, packed, &t, &y);
    }
    if (!rc) {
        double se = 0, sx = 0, maxe = 0;
        size_t used = 0, nonfinite_in = 0;
        for (size_t i = 0; i < n; i++) {
            if (!isfinite(x[i])) {
                nonfinite_in++;
                continue;
            }
            double d = (double)q[i] - (double)x[i];
            if (isnan(d))
                d = INFINITY;
            se += d * d;
            sx += (double)x[i] * x[i];
            maxe = fabs(d) > maxe ? fabs(d) : maxe;
            used++;
        }
        double rmse = used ? sqrt(se / (double)used) : 0.0;
        double sqnr = se > 0 ? 10.0 * log10(sx / se) : INFINITY;
        if (json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "format", fmtname);
            if (mx >= 0) {
                cJSON_AddNumberToObject(o, "block", (double)mo.block);
                cJSON_AddStringToObject(o, "scale", mo.scale == SPU_MX_SCALE_CEIL ? "ceil" : "floor");
            }
            cJSON_AddStringToObject(o, "round", spu_round_name(mo.round));
            cJSON_AddNumberToObject(o, "elements", (double)n);
            cJSON_AddNumberToObject(o, "nonfinite_inputs", (double)nonfinite_in);
            add_num(o, "rmse", rmse);
            add_num(o, "max_abs_err", maxe);
            add_num(o, "sqnr_db", sqnr);
            char *s = cJSON_PrintUnformatted(o);
            printf("%s\n", s);
            free(s);
            cJSON_Delete(o);
        } else {
            printf("%s: %zu elements (%zu rows x %zu), rmse %.6g, max_abs_err %.6g, sqnr %.2f dB\n",
                   fmtname, n, rows, cols, rmse, maxe, sqnr);
        }
    }
    free(x);
    free(codes);
    free(scales);
    free(packed);
    spu_tensor_free(&t);
    spu_tensor_free(&y);
    if (rc)
        return cli_fail("quantize", "%s", err[0] ? err : spu_strerror(rc));
    return 0;
}
