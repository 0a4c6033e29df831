/*
 * bench_formats.c -- `spu bench formats`: one GEMM in every format the
 * device carries (INFO formats): the error against an fp64 GEMM of the
 * unquantized float inputs, cycles (and the model's, off the model device),
 * link bytes, and -- when a PPA report exists (build/ppa/report.json or
 * build/ppa/formats/report.json, the newer) -- the LCs and Fmax of each
 * board array configuration that carries the format (the array rows of
 * `make ppa` / `make ppa-formats`, synth/ppa_rows.sh and synth/ppa_table.tsv). The question it answers: what does
 * carrying format F cost, and what does it do to the numbers.
 */
#include "cli.h"
#include "spu/gemm.h"
#include "spu/numerics.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>


static const char usage[] =
    "usage: spu bench formats [--device URI] [--m M --n N --k K] [--seed S]\n"
    "                         [--ppa REPORT.json] [--json]\n"
    "Runs C = A x B (default 64x64x256) in every format the device carries:\n"
    "A, B random float32 (uniform in [-4, 4)), quantized by the numerics library\n"
    "(int8: scaled by 127/4 and rounded), C in f32 (the device's exact\n"
    "accumulation rounded once). Per format: max_abs_err, rel_rms_err and\n"
    "sqnr_db against an fp64 GEMM of the unquantized inputs, cycles, model\n"
    "cycles (off the model every piece is replayed on it, bit-exact), link\n"
    "bytes; and from the PPA report the LCs and Fmax of each board array\n"
    "configuration that carries the format (default: the newer of\n"
    "build/ppa/report.json (make ppa) and build/ppa/formats/report.json\n"
    "(make ppa-formats), if either exists).\n";



/* 1 when the PPA row name spu_<board>_<R>x<C>_<key>[_<key>...] (synth/
 * ppa_table.tsv, synth/ppa_rows.sh) lists the array dtype `key`. The part
 * after the geometry is split into array dtype keys (cli_gemm_dtypes, one
 * per array dtype of spu_cfg.def), longest first,
 * so "_int8_mxfp8_e4m3" lists int8 and mxfp8_e4m3 but not e4m3; the token
 * "all" (synth/ppa_rows.sh's spu_<board>_4x4_all: FORMATS = every array
 * dtype) lists every format; any other token that is no array dtype (a
 * suffix) lists nothing. */
static int ppa_name_has(const char *name, const char *key)
{
    const char *p = name;
    for (; *p; p++) {       /* the geometry token: _<digits>x<digits>_ */
        if (*p != '_' || !(p[1] >= '0' && p[1] <= '9'))
            continue;
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9') q++;
        if (*q != 'x' || !(q[1] >= '0' && q[1] <= '9'))
            continue;
        q++;
        while (*q >= '0' && *q <= '9') q++;
        if (*q == '_') {
            p = q + 1;
            break;
        }
    }
    while (*p) {
        size_t best = 0;
        const char *bk = NULL;
        for (size_t i = 0; i < cli_gemm_ndtypes; i++) {   /* the array dtypes */
            const char *k = cli_gemm_dtypes[i].key;
            const size_t l = strlen(k);
            if (l > best && !strncmp(p, k, l) && (p[l] == 0 || p[l] == '_')) {
                best = l;
                bk = k;
            }
        }
        if (!bk && !strncmp(p, "all", 3) && (p[3] == 0 || p[3] == '_')) {
            return 1;       /* spu_<board>_<R>x<C>_all: every array dtype */
        } else if (!bk) {   /* not a dtype: skip the token */
            const char *u = strchr(p, '_');
            best = u ? (size_t)(u - p) : strlen(p);
        } else if (!strcmp(bk, key)) {
            return 1;
        }
        p += best;
        if (*p == '_') p++;
    }
    return 0;
}

/* The PPA report bench formats reads without --ppa: of build/ppa/report.json
 * (make ppa: every row) and build/ppa/formats/report.json (make ppa-formats /
 * ppa-formats-docs: the array rows), the newer that exists; NULL if neither. */
static const char *ppa_default_report(void)
{
    static const char *const cand[] = { "build/ppa/report.json", "build/ppa/formats/report.json" };
    const char *best = NULL;
    struct timespec bt = { 0, 0 };
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
        struct stat st;
        if (stat(cand[i], &st) || !S_ISREG(st.st_mode))
            continue;
        if (!best || st.st_mtim.tv_sec > bt.tv_sec ||
            (st.st_mtim.tv_sec == bt.tv_sec && st.st_mtim.tv_nsec > bt.tv_nsec)) {
            best = cand[i];
            bt = st.st_mtim;
        }
    }
    return best;
}

/* The spu rows of the PPA report whose name lists the format (ppa_name_has). */
static cJSON *ppa_rows(const cJSON *report, const char *key)
{
    cJSON *out = cJSON_CreateArray();
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(report, "entries")) {
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "kind"));
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
        if (!kind || !name || strcmp(kind, "spu"))
            continue;
        if (!ppa_name_has(name, key))
            continue;
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "name", name);
        const char *keys[] = { "device", "status" };
        for (int i = 0; i < 2; i++) {
            const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, keys[i]));
            cJSON_AddStringToObject(r, keys[i], v ? v : "?");
        }
        const char *nums[] = { "lcs", "fmax_mhz" };
        for (int i = 0; i < 2; i++) {
            const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, nums[i]);
            if (cJSON_IsNumber(v)) cJSON_AddNumberToObject(r, nums[i], v->valuedouble);
            else cJSON_AddNullToObject(r, nums[i]);
        }
        /* a row stopped after Yosys (synth/flow.sh, spu-ppa budget): its
         * status names the LUT4 count, a lower bound on the LCs it needs */
        const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "status"));
        const char *need = st ? strstr(st, "needs at least ") : NULL;
        long lmin = 0;
        if (need && sscanf(need, "needs at least %ld logic cells", &lmin) == 1 && lmin > 0)
            cJSON_AddNumberToObject(r, "lcs_at_least", (double)lmin);
        else
            cJSON_AddNullToObject(r, "lcs_at_least");
        cJSON_AddItemToArray(out, r);
    }
    return out;
}

int spu_bench_formats(int argc, char **argv)
{
    static const struct option opts[] = {
        { "device", required_argument, 0, 'd' }, { "m", required_argument, 0, 'm' },
        { "n", required_argument, 0, 'n' },      { "k", required_argument, 0, 'k' },
        { "seed", required_argument, 0, 's' },   { "ppa", required_argument, 0, 'p' },
        { "json", no_argument, 0, 'j' },         { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *device = cli_default_device(), *ppa = NULL;
    uint64_t dims[3] = { 64, 64, 256 }, seed = 1;
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'm': case 'n': case 'k': {
            int i = c == 'm' ? 0 : c == 'n' ? 1 : 2;
            if (cli_parse_u64(optarg, &dims[i]) || dims[i] == 0 || dims[i] > 4096)
                return cli_usage_error("bench formats", "--%c needs an integer in 1..4096, got '%s'", c, optarg);
            break;
        }
        case 's':
            if (cli_parse_u64(optarg, &seed))
                return cli_usage_error("bench formats", "--seed needs an unsigned integer, got '%s'", optarg);
            break;
        case 'p': ppa = optarg; break;
        case 'j': json = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        default: return cli_usage_error("bench formats", "bad option");
        }
    }
    if (optind < argc)
        return cli_usage_error("bench formats", "unexpected argument '%s'", argv[optind]);
    const uint32_t M = (uint32_t)dims[0], N = (uint32_t)dims[1], K = (uint32_t)dims[2];
    const size_t sa = (size_t)M * K, sb = (size_t)K * N, sc = (size_t)M * N;

    cJSON *report = NULL;
    const int ppa_given = ppa != NULL;
    if (!ppa)
        ppa = ppa_default_report();
    if (ppa) {
        char *txt = NULL;
        size_t len = 0;
        FILE *f = fopen(ppa, "rb");
        if (f) {
            fclose(f);
            if (cli_read_file(ppa, &txt, &len) == 0)
                report = cJSON_Parse(txt);
            free(txt);
        }
        if (ppa_given && !cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(report, "entries"))) {
            cJSON_Delete(report);
            return cli_usage_error("bench formats", "--ppa %s: not a readable PPA report (build/bin/spu-ppa report)",
                                   ppa);
        }
    }
    float *Af = malloc(sa * sizeof *Af), *Bf = malloc(sb * sizeof *Bf);
    uint8_t *A = malloc(sa * 2), *B = malloc(sb * 2);   /* codes: 1 byte, bf16 2 */
    const size_t nblk = ((size_t)K + 31) / 32;            /* MX: E8M0 scales per row / column */
    uint8_t *SA = malloc((size_t)M * nblk), *SB = malloc(nblk * N);
    float *C = malloc(sc * sizeof *C);
    double *R = malloc(sc * sizeof *R);
    spu_device *dev = NULL;
    cJSON *rows = cJSON_CreateArray();
    int ret = 1, rc;
    if (!Af || !Bf || !A || !B || !SA || !SB || !C || !R || !rows) {
        cli_fail("bench formats", "out of memory");
        goto out;
    }
    uint64_t st = seed;
    for (size_t i = 0; i < sa; i++) Af[i] = (float)((cli_splitmix64(&st) >> 40) * 0x1p-24 * 8.0 - 4.0);
    for (size_t i = 0; i < sb; i++) Bf[i] = (float)((cli_splitmix64(&st) >> 40) * 0x1p-24 * 8.0 - 4.0);
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            double r = 0;
            for (uint32_t k = 0; k < K; k++) r += (double)Af[(size_t)i * K + k] * Bf[(size_t)k * N + j];
            R[(size_t)i * N + j] = r;
        }
    if ((rc = spu_open(&dev, device))) {
        cli_fail("bench formats", "cannot open device '%s': %s", device, spu_strerror(rc));
        goto out;
    }
    spu_info_t info;
    if ((rc = spu_info(dev, &info))) {
        cli_fail("bench formats", "INFO: %s", spu_strerror(rc));
        goto out;
    }
    const int f32_out = (info.formats & ~1u) != 0;   /* f32 needs a float format */
    if (!json)
        printf("spu bench formats on %s (%ux%u array, formats 0x%x): C[%u x %u] = A[%u x %u] x B[%u x %u]\n"
               "%-10s %-5s %12s %12s %9s %10s %10s %10s\n", device, info.rows, info.cols, info.formats,
               M, N, M, K, K, N, "format", "out", "max_abs_err", "rel_rms_err", "sqnr_db", "cycles",
               "model", "link_B");
    for (size_t f = 0; f < cli_gemm_ndtypes; f++) {
        const cli_gemm_dtype *F = &cli_gemm_dtypes[f];
        if (!(info.formats & (1u << F->dt)))
            continue;
        /* int8: symmetric per-tensor scale 127/4; floats: RNE, saturating */
        const double scale = F->dt == CLI_DT_INT8 ? 4.0 / 127.0 : 1.0;
        const int mx = cli_mx_fmt(F->dt) >= 0;
        if (mx) {                       /* MX: blocks of 32 along K, floor scales, RNE */
            if ((rc = cli_mx_quantize_ab(F->dt, Af, Bf, M, N, K, A, SA, B, SB))) {
                cli_fail("bench formats", "%s: quantize: %s", F->key, spu_strerror(rc));
                goto out;
            }
        } else if (F->dt == CLI_DT_BF16) {     /* bf16: uint16 codes, RNE */
            for (size_t i = 0; i < sa; i++)
                ((uint16_t *)A)[i] = (uint16_t)spu_from_f32(F->fmt, Af[i], SPU_ROUND_RNE, SPU_OVF_OVF, 0);
            for (size_t i = 0; i < sb; i++)
                ((uint16_t *)B)[i] = (uint16_t)spu_from_f32(F->fmt, Bf[i], SPU_ROUND_RNE, SPU_OVF_OVF, 0);
        } else {
            for (size_t i = 0; i < sa; i++)
                A[i] = F->dt == CLI_DT_INT8 ? (uint8_t)(int8_t)lrint(Af[i] / scale)
                                         : (uint8_t)spu_from_f32(F->fmt, Af[i], SPU_ROUND_RNE, SPU_OVF_SAT, 0);
            for (size_t i = 0; i < sb; i++)
                B[i] = F->dt == CLI_DT_INT8 ? (uint8_t)(int8_t)lrint(Bf[i] / scale)
                                         : (uint8_t)spu_from_f32(F->fmt, Bf[i], SPU_ROUND_RNE, SPU_OVF_SAT, 0);
        }
        spu_gemm_opts go = { strcmp(info.device, "model") != 0, 0 };
        spu_gemm_stats s;
        const int out_f32 = f32_out || F->dt != CLI_DT_INT8;
        if (mx) {
            const spu_gemm_epilogue e = { CLI_DT_F32, 0, 0, 0, SPU_ROUND_RNE, NULL };
            rc = spu_gemm_mx(dev, (unsigned)F->dt, &e, M, N, K, A, SA, B, SB, C, &go, &s);
        } else if (out_f32) {
            rc = spu_gemm(dev, (unsigned)F->dt, CLI_DT_F32, M, N, K, A, B, C, &go, &s);
        } else {   /* an int8-only device: int32 out, converted here (exact below 2^24) */
            int32_t *Ci = (int32_t *)C;
            rc = spu_gemm_i8(dev, M, N, K, (const int8_t *)A, (const int8_t *)B, Ci, &go, &s);
            for (size_t i = 0; i < sc; i++) C[i] = (float)Ci[i];
        }
        if (rc) {
            cli_fail("bench formats", "%s on %s: %s", F->key, device, spu_strerror(rc));
            goto out;
        }
        if (!go.check_model)
            s.model_cycles = s.cycles;
        double max_abs = 0, se = 0, sr = 0;
        for (size_t i = 0; i < sc; i++) {
            double e = fabs((double)C[i] * (F->dt == CLI_DT_INT8 ? scale * scale : 1.0) - R[i]);
            if (!(e <= max_abs)) max_abs = e;
            se += e * e;
            sr += R[i] * R[i];
        }
        const double rel = sr > 0 ? sqrt(se / sr) : 0, sqnr = se > 0 ? 10 * log10(sr / se) : INFINITY;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "format", F->key);
        cJSON_AddStringToObject(o, "out_dtype", out_f32 ? "f32" : "int32");
        cJSON_AddNumberToObject(o, "max_abs_err", isfinite(max_abs) ? max_abs : -1);
        cJSON_AddNumberToObject(o, "rel_rms_err", isfinite(rel) ? rel : -1);
        if (isfinite(sqnr)) cJSON_AddNumberToObject(o, "sqnr_db", sqnr);
        else cJSON_AddNullToObject(o, "sqnr_db");
        cJSON_AddNumberToObject(o, "cycles", (double)s.cycles);
        cJSON_AddNumberToObject(o, "model_cycles", (double)s.model_cycles);
        cJSON_AddNumberToObject(o, "link_bytes", (double)s.link_bytes);
        cJSON_AddNumberToObject(o, "pieces", s.pieces);
        cJSON *pr = report ? ppa_rows(report, F->key) : cJSON_CreateArray();
        if (!json) {
            printf("%-10s %-5s %12.5g %12.5g %9.2f %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n", F->key,
                   out_f32 ? "f32" : "int32", max_abs, rel, sqnr, s.cycles, s.model_cycles, s.link_bytes);
            const cJSON *r;
            cJSON_ArrayForEach(r, pr) {
                const cJSON *l = cJSON_GetObjectItemCaseSensitive(r, "lcs");
                const cJSON *fm = cJSON_GetObjectItemCaseSensitive(r, "fmax_mhz");
                const cJSON *lm = cJSON_GetObjectItemCaseSensitive(r, "lcs_at_least");
                const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "status"));
                printf("       ppa %-36s %-5s", cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "name")),
                       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "device")));
                if (cJSON_IsNumber(lm)) {   /* stopped after Yosys: the short form */
                    printf(" does not fit: needs >= %.0f LCs (Yosys LUT4 count)\n", lm->valuedouble);
                    continue;
                }
                printf(" %-8s", st);
                if (cJSON_IsNumber(l)) printf(" %6.0f LCs", l->valuedouble);
                if (cJSON_IsNumber(fm)) printf(" %7.2f MHz", fm->valuedouble);
                printf("\n");
            }
        }
        cJSON_AddItemToObject(o, "ppa", pr);
        cJSON_AddItemToArray(rows, o);
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cli_bench_json_header(o, device, &info);   /* clock, geometry, ISA hash, commit */
        cJSON_AddNumberToObject(o, "m", M);
        cJSON_AddNumberToObject(o, "n", N);
        cJSON_AddNumberToObject(o, "k", K);
        cJSON_AddNumberToObject(o, "formats", info.formats);
        cJSON_AddBoolToObject(o, "ppa_report", report != NULL);
        if (report)
            cJSON_AddStringToObject(o, "ppa_report_path", ppa);
        cJSON_AddItemToObject(o, "results", rows);
        rows = NULL;
        char *txt = cJSON_PrintUnformatted(o);
        puts(txt ? txt : "{}");
        free(txt);
        cJSON_Delete(o);
    } else if (!report) {
        printf("(no PPA report at %s: run `make ppa-formats` (or `make ppa`) for the area / Fmax of each "
               "array configuration)\n", ppa ? ppa : "build/ppa/report.json or build/ppa/formats/report.json");
    } else {
        printf("(PPA rows from %s)\n", ppa);
    }
    ret = 0;
out:
    cJSON_Delete(rows);
    cJSON_Delete(report);
    spu_close(dev);
    free(Af); free(Bf); free(A); free(B); free(SA); free(SB); free(C); free(R);
    return ret;
}
