/*
 * cmd_convert.c -- `spu convert`: raw little-endian elements of one number
 * format to another (docs/numerics.md).
 */
#include "cli.h"
#include "cli_convert.h"
#include "spu/numerics.h"
#include "spu/spu.h"

#include "spu/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: spu convert --from F --to G [--round rne|rtz|rna|sr] [--sat|--ovf]\n"
    "                   [--seed N] [--in FILE] [--out FILE]\n"
    "Reads raw little-endian elements of format F (stdin by default) and writes\n"
    "them converted to format G (stdout by default).\n"
    "Formats: f32 f16 bf16 e4m3 e5m2 e3m2 e2m3 e2m1 e8m0 int8; formats of at most\n"
    "8 bits take one code per byte in the low bits (higher bits must be zero).\n"
    "Defaults: --round rne --sat --seed 0. SR uses spu_sr_random(seed, index).\n"
    "Semantics: docs/numerics.md.\n";

int spu_cmd_convert(int argc, char **argv)
{
    static const struct option opts[] = {
        { "from", required_argument, 0, 'f' }, { "to", required_argument, 0, 't' },
        { "round", required_argument, 0, 'r' }, { "sat", no_argument, 0, 'S' },
        { "ovf", no_argument, 0, 'O' },         { "seed", required_argument, 0, 's' },
        { "in", required_argument, 0, 'i' },    { "out", required_argument, 0, 'o' },
        { "help", no_argument, 0, 'h' },        { 0, 0, 0, 0 },
    };
    const char *from = NULL, *to = NULL, *in = "-", *out = "-";
    spu_cvt_opts co = { SPU_ROUND_RNE, SPU_OVF_SAT, 0, 0 };
    int c, nsat = 0, novf = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'f': from = optarg; break;
        case 't': to = optarg; break;
        case 'r': {
            int r = spu_round_from_name(optarg);
            if (r < 0)
                return cli_usage_error("convert", "unknown rounding '%s' (rne rtz rna sr)", optarg);
            co.round = (spu_round)r;
            break;
        }
        case 'S': nsat = 1; co.overflow = SPU_OVF_SAT; break;
        case 'O': novf = 1; co.overflow = SPU_OVF_OVF; break;
        case 's':
            if (cli_parse_u64(optarg, &co.seed))
                return cli_usage_error("convert", "bad --seed '%s'", optarg);
            break;
        case 'i': in = optarg; break;
        case 'o': out = optarg; break;
        case 'h': fputs(usage, stdout); return 0;
        default: return cli_usage_error("convert", "bad option");
        }
    }
    if (optind < argc)
        return cli_usage_error("convert", "unexpected argument '%s'", argv[optind]);
    if (!from || !to)
        return cli_usage_error("convert", "--from and --to are required");
    if (nsat && novf)
        return cli_usage_error("convert", "--sat and --ovf are exclusive");
    int ff = spu_fmt_from_name(from), tf = spu_fmt_from_name(to);
    if (ff < 0)
        return cli_usage_error("convert", "unknown format '%s'", from);
    if (tf < 0)
        return cli_usage_error("convert", "unknown format '%s'", to);

    char err[512];
    int rc = cli_convert_file((spu_fmt)ff, (spu_fmt)tf, &co, in, out, err, sizeof err);
    if (rc)
        return cli_fail("convert", "%s", err);
    return 0;
}

/* Streaming conversion: CHUNK elements at a time, read straight into the
 * source buffer and written straight from the destination buffer (on a
 * little-endian host the file layout is the memory layout), so a file
 * converts at close to the library's speed with O(CHUNK) memory. */
#define CHUNK ((size_t)1 << 20)

static int read_full(int fd, uint8_t *p, size_t n, size_t *got)
{
    *got = 0;
    while (*got < n) {
        ssize_t r = read(fd, p + *got, n - *got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    return 0;
}

int cli_convert_file(spu_fmt ff, spu_fmt tf, const spu_cvt_opts *co_in, const char *in,
                     const char *out, char *err, size_t cap)
{
    const spu_fmt_info *fi = spu_fmt_get(ff);
    const size_t isz = spu_fmt_elem_bytes(ff), osz = spu_fmt_elem_bytes(tf);
    spu_cvt_opts co = *co_in;
    int fd = strcmp(in, "-") ? open(in, O_RDONLY | O_CLOEXEC) : STDIN_FILENO;
    if (fd < 0) {
        snprintf(err, cap, "cannot read '%s': %s", in, strerror(errno));
        return 1;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0 ||
        !(S_ISREG(sb.st_mode) || S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode) || isatty(fd))) {
        snprintf(err, cap, "cannot read '%s': not a regular file or a pipe", in);
        if (fd != STDIN_FILENO)
            close(fd);
        return 1;
    }
    if (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size % isz) {
        snprintf(err, cap, "input is %llu bytes, not a multiple of the %zu-byte %s element",
                 (unsigned long long)sb.st_size, isz, fi->name);
        if (fd != STDIN_FILENO)
            close(fd);
        return 1;
    }
    uint8_t *ibuf = malloc(CHUNK * isz), *obuf = malloc(CHUNK * osz);
    void *src = ibuf, *dst = obuf;
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
    void *isrc = malloc(CHUNK * 4), *odst = malloc(CHUNK * 4);
    src = isrc;
    dst = odst;
    if (!isrc || !odst)
        ibuf = NULL;
#endif
    spu_outfile *o = NULL;
    int rc = 0;
    if (!ibuf || !obuf) {
        snprintf(err, cap, "out of memory");
        rc = 1;
    } else if (spu_outfile_open(&o, out, err, cap)) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "cannot write %s", err);
        snprintf(err, cap, "%s", tmp);
        rc = 1;
    }
    uint64_t total = 0;   /* elements converted */
    while (!rc) {
        size_t got;
        if (read_full(fd, ibuf, CHUNK * isz, &got)) {
            snprintf(err, cap, "cannot read '%s': %s", in, strerror(errno));
            rc = 1;
            break;
        }
        if (got % isz) {
            snprintf(err, cap, "input is %llu bytes, not a multiple of the %zu-byte %s element",
                     (unsigned long long)(total * isz + got), isz, fi->name);
            rc = 1;
            break;
        }
        const size_t n = got / isz;
        if (!n)
            break;
        if (fi->bits < 8) {
            for (size_t i = 0; i < n; i++)
                if (ibuf[i] >> fi->bits) {
                    snprintf(err, cap, "byte %llu (0x%02x) is not a %u-bit %s code",
                             (unsigned long long)(total + i), (unsigned)ibuf[i], fi->bits, fi->name);
                    rc = 1;
                    break;
                }
            if (rc)
                break;
        }
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
        if (isz == 1)
            memcpy(src, ibuf, n);
        else
            spu_unpack_codes(ff, ibuf, n, src);
#endif
        co.index0 = co_in->index0 + total;
        int crc = spu_convert(ff, src, tf, dst, n, &co);
        if (crc) {
            snprintf(err, cap, "conversion failed: %s", spu_strerror(crc));
            rc = 1;
            break;
        }
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
        if (osz == 1)
            memcpy(obuf, dst, n);
        else
            spu_pack_codes(tf, dst, n, obuf);
#endif
        if (spu_outfile_write(o, obuf, n * osz)) {
            snprintf(err, cap, "cannot write '%s': %s", out, strerror(errno));
            rc = 1;
            break;
        }
        total += n;
    }
    if (fd != STDIN_FILENO)
        close(fd);
    if (rc) {
        spu_outfile_abort(o);
    } else if (spu_outfile_commit(o, err, cap)) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "cannot write %s", err);
        snprintf(err, cap, "%s", tmp);
        rc = 1;
    }
    free(ibuf);
    free(obuf);
#if !(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
    free(isrc);
    free(odst);
#endif
    return rc;
}
