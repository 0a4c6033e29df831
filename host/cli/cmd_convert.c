/*
 * cmd_convert.c -- `spu convert`: raw little-endian elements of one number
 * format to another (docs/numerics.md).
 */
#include "cli.h"
#include "spu/numerics.h"
#include "spu/spu.h"

#include <getopt.h>
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

    char *data;
    size_t len;
    int rrc = cli_read_file(in, &data, &len);
    if (rrc)
        return cli_read_fail("convert", in, rrc);
    const spu_fmt_info *fi = spu_fmt_get((spu_fmt)ff);
    size_t isz = spu_fmt_elem_bytes((spu_fmt)ff), osz = spu_fmt_elem_bytes((spu_fmt)tf);
    if (len % isz) {
        free(data);
        return cli_fail("convert", "input is %zu bytes, not a multiple of the %zu-byte %s element",
                        len, isz, fi->name);
    }
    size_t n = len / isz;
    if (fi->bits < 8) {
        for (size_t i = 0; i < n; i++)
            if ((uint8_t)data[i] >> fi->bits) {
                const unsigned bad = (uint8_t)data[i];   /* read before the buffer is freed */
                free(data);
                return cli_fail("convert", "byte %zu (0x%02x) is not a %u-bit %s code",
                                i, bad, fi->bits, fi->name);
            }
    }
    void *src = malloc(n * isz + 1), *dst = malloc(n * osz + 1);
    /* the output file holds one code per byte for formats of at most 8 bits */
    uint8_t *bytes = malloc(n * osz + 1);
    if (!src || !dst || !bytes) {
        free(data); free(src); free(dst); free(bytes);
        return cli_fail("convert", "out of memory");
    }
    /* little-endian file layout <-> host elements */
    if (isz == 1)
        memcpy(src, data, n);
    else
        spu_unpack_codes((spu_fmt)ff, (const uint8_t *)data, n, src);
    free(data);
    int rc = spu_convert((spu_fmt)ff, src, (spu_fmt)tf, dst, n, &co);
    size_t olen = n * osz;
    if (!rc) {
        if (osz == 1)
            memcpy(bytes, dst, n);
        else
            spu_pack_codes((spu_fmt)tf, dst, n, bytes);
    }
    free(src);
    free(dst);
    if (rc) {
        free(bytes);
        return cli_fail("convert", "conversion failed: %s", spu_strerror(rc));
    }
    cli_output o = { out, { bytes, NULL }, { olen, 0 } };
    int wrc = cli_write_outputs("convert", 1, &o);
    free(bytes);
    return wrc;
}
