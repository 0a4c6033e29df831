/*
 * cli_util.c -- helpers shared by the subcommands (errors, numbers, files).
 */
#include "cli.h"
#include "spu/numerics.h"
#include "spu/spu.h"
#include "spu/npy.h"
#include "spu/outfile.h"
#include "spu/spu.h"

#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void vreport(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "spu %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
    fprintf(stderr, "(see 'spu %s --help')\n", cmd);
    return 2;
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* libspu's one line on why (e.g. a USB device that could not be opened) */
    if (*spu_error_detail() && !strstr(msg, spu_error_detail()))
        fprintf(stderr, "spu %s: %s (%s)\n", cmd, msg, spu_error_detail());
    else
        fprintf(stderr, "spu %s: %s\n", cmd, msg);
    return 1;
}

/* Decimal, or hexadecimal after 0x; a leading zero is decimal (010 is ten). */
static int number_base(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    return (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) ? 16 : 10;
}

int cli_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, number_base(s));
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int cli_parse_i64(const char *s, int64_t *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, number_base(s));
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

const char *cli_default_device(void)
{
    const char *d = getenv("SPU_DEVICE");
    return d && *d ? d : "model";
}

int cli_read_file(const char *path, char **data, size_t *len)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f)
        return -1;
    /* a regular file or a pipe (stdin too), bounded: never /dev/zero */
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !(S_ISREG(sb.st_mode) || S_ISFIFO(sb.st_mode) ||
                                        S_ISSOCK(sb.st_mode) || isatty(fileno(f)))) {
        if (f != stdin)
            fclose(f);
        errno = EINVAL;
        return -2;
    }
    if (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size > CLI_READ_MAX) {
        if (f != stdin)
            fclose(f);
        errno = EFBIG;
        return -3;
    }
    size_t cap = S_ISREG(sb.st_mode) ? (size_t)sb.st_size + 1 : 4096, n = 0;
    char *buf = malloc(cap + 1);
    int big = 0;
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        if (cap >= CLI_READ_MAX) {
            big = 1;
            break;
        }
        cap *= 2;
        char *nb = realloc(buf, cap + 1);
        if (!nb) { free(buf); buf = NULL; }
        else buf = nb;
    }
    int err = ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf || err || big) {
        free(buf);
        errno = big ? EFBIG : err ? EIO : ENOMEM;
        return big ? -3 : -1;
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}

int cli_read_fail(const char *cmd, const char *path, int rc)
{
    if (rc == -2)
        return cli_fail(cmd, "cannot read '%s': not a regular file or a pipe", path);
    if (rc == -3)
        return cli_fail(cmd, "cannot read '%s': larger than %llu bytes", path,
                        (unsigned long long)CLI_READ_MAX);
    return cli_fail(cmd, "cannot read '%s': %s", path, strerror(errno));
}

int cli_write_outputs(const char *cmd, int n, const cli_output *outs)
{
    spu_outfile *o[8] = { 0 };
    char err[512];
    int i, rc = 0;
    if (n > 8)
        return cli_fail(cmd, "too many outputs");
    for (i = 0; i < n && !rc; i++) {
        if (spu_outfile_open(&o[i], outs[i].path, err, sizeof err)) {
            rc = cli_fail(cmd, "cannot write %s", err);
            break;
        }
        for (int k = 0; k < 2 && !rc; k++)
            if (outs[i].n[k] && spu_outfile_write(o[i], outs[i].p[k], outs[i].n[k]))
                rc = cli_fail(cmd, "cannot write '%s': %s", outs[i].path, strerror(errno));
    }
    for (i = 0; i < n; i++) {
        if (rc)
            spu_outfile_abort(o[i]);
        else if (spu_outfile_commit(o[i], err, sizeof err))
            rc = cli_fail(cmd, "cannot write %s", err);
    }
    return rc;
}

int cli_npy_output(cli_output *o, const char *path, const spu_tensor *t, char *hdr, size_t cap)
{
    size_t hl = spu_npy_header(t, hdr, cap);
    if (!hl)
        return -1;
    *o = (cli_output){ path, { hdr, t->data }, { hl, spu_tensor_numel(t) * spu_npy_itemsize(t->dtype) } };
    return 0;
}

int cli_open_device(const char *cmd, const char *uri, spu_device **dev)
{
    char why[256];
    int rc = spu_open_ex(dev, uri, why, sizeof why);
    if (rc == 0)
        return 0;
    if (rc == SPU_EISA)   /* not from open today, but say it plainly if it comes */
        return cli_fail(cmd, "cannot open device '%s': %s", uri, spu_strerror(rc));
    return cli_fail(cmd, "cannot open device '%s': %s", uri, why[0] ? why : spu_strerror(rc));
}

double cli_link_retries(spu_device *dev)
{
    spu_link_stats_t st;
    return spu_link_stats(dev, &st) == 0 ? (double)st.retries : 0.0;
}

int cli_check_output(const char *cmd, const char *path)
{
    char err[512];
    if (path && spu_outfile_check(path, err, sizeof err))
        return cli_fail(cmd, "cannot write %s", err);
    return 0;
}

const cli_gemm_dtype cli_gemm_dtypes[] = {
    { "int8", CLI_DT_INT8, SPU_FMT_INT8 },
    { "e4m3", CLI_DT_E4M3, SPU_FMT_E4M3 },
    { "e5m2", CLI_DT_E5M2, SPU_FMT_E5M2 },
    { "bf16", CLI_DT_BF16, SPU_FMT_BF16 },
    { "mxfp8_e4m3", CLI_DT_MXFP8_E4M3, SPU_FMT_E4M3 },   /* fmt: the element format */
    { "mxfp8_e5m2", CLI_DT_MXFP8_E5M2, SPU_FMT_E5M2 },
    { "mxint8",     CLI_DT_MXINT8,     SPU_FMT_INT8 },
    { "mxfp6_e3m2", CLI_DT_MXFP6_E3M2, SPU_FMT_E3M2 },
    { "mxfp6_e2m3", CLI_DT_MXFP6_E2M3, SPU_FMT_E2M3 },
    { "mxfp4_e2m1", CLI_DT_MXFP4_E2M1, SPU_FMT_E2M1 },
};
const size_t cli_gemm_ndtypes = sizeof cli_gemm_dtypes / sizeof cli_gemm_dtypes[0];

int cli_mx_fmt(int dt)
{
    return dt == CLI_DT_MXFP8_E4M3 ? SPU_MX_FP8_E4M3 : dt == CLI_DT_MXFP8_E5M2 ? SPU_MX_FP8_E5M2
         : dt == CLI_DT_MXINT8 ? SPU_MX_INT8 : dt == CLI_DT_MXFP6_E3M2 ? SPU_MX_FP6_E3M2
         : dt == CLI_DT_MXFP6_E2M3 ? SPU_MX_FP6_E2M3 : dt == CLI_DT_MXFP4_E2M1 ? SPU_MX_FP4_E2M1 : -1;
}

int cli_mx_quantize_ab(int dt, const float *Af, const float *Bf, uint32_t M, uint32_t N, uint32_t K,
                       uint8_t *A, uint8_t *SA, uint8_t *B, uint8_t *SB)
{
    const int f = cli_mx_fmt(dt);
    if (f < 0)
        return SPU_EINVAL;
    const size_t nb = ((size_t)K + 31) / 32;
    int rc = spu_mx_quantize((spu_mx_fmt)f, Af, M, K, NULL, A, SA, NULL);
    if (rc)
        return rc;
    /* B along K per column: quantize the transpose, then transpose back */
    float *bt = malloc((size_t)N * K * sizeof *bt);
    uint8_t *bc = malloc((size_t)N * K), *bs = malloc((size_t)N * nb);
    if (!bt || !bc || !bs) {
        free(bt);
        free(bc);
        free(bs);
        return SPU_ENOMEM;
    }
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < N; j++)
            bt[j * K + k] = Bf[k * N + j];
    rc = spu_mx_quantize((spu_mx_fmt)f, bt, N, K, NULL, bc, bs, NULL);
    if (!rc) {
        for (size_t j = 0; j < N; j++) {
            for (size_t k = 0; k < K; k++)
                B[k * N + j] = bc[j * K + k];
            for (size_t g = 0; g < nb; g++)
                SB[g * N + j] = bs[j * nb + g];
        }
    }
    free(bt);
    free(bc);
    free(bs);
    return rc;
}

uint64_t cli_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
