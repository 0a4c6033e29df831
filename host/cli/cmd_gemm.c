/*
 * cmd_gemm.c -- `spu gemm`: run a GEMM on a device through libspu and check
 * it bit for bit: int8 against a plain triple loop, e4m3 / e5m2 against an
 * exact-arithmetic evaluation of docs/numerics.md "Datapath numerics" (and,
 * off the model, every piece against the C model); float runs also report
 * the error against an fp64 GEMM of the unquantized inputs.
 */
#include "cli.h"
#include "spu/gemm.h"
#include "spu/npy.h"
#include "spu/numerics.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char usage[] =
    "usage: spu gemm [--device URI] --m M --n N --k K\n"
    "                [--dtype int8|e4m3|e5m2|bf16|mxfp8_e4m3|mxfp8_e5m2|mxint8|\n"
    "                         mxfp6_e3m2|mxfp6_e2m3|mxfp4_e2m1]\n"
    "                [--out-dtype f32|bf16|f16|e4m3|e5m2|int8|int32] [--relu] [--ovf]\n"
    "                [--shift S] [--bias BIAS.npy] [--seed S | --a A.npy --b B.npy [--codes]]\n"
    "                [--a-scales SA.npy --b-scales SB.npy] [--out C.npy] [--json]\n"
    "\n"
    "Runs C = A x B on the device (A: MxK, B: KxN, C: MxN, row-major) and exits\n"
    "0 only when C is bit-exact: int8 -> int32 against a plain C triple loop;\n"
    "e4m3 / e5m2 (and int8 -> f32) against an exact evaluation of the device's\n"
    "documented semantics (exact sum, one RNE rounding to f32: docs/numerics.md\n"
    "\"Datapath numerics\"). Off the model device every piece is also replayed\n"
    "on the reference model (model_cycles, bit-exact check).\n"
    "Float dtypes take float32 .npy inputs, quantized by the numerics library\n"
    "(RNE, saturating), or with --codes uint8 .npy raw codes (bf16: uint16);\n"
    "random operands\n"
    "(--seed) are float32 uniform in [-4, 4) then quantized. Their --json adds\n"
    "max_abs_err, rel_rms_err and sqnr_db against an fp64 GEMM of the\n"
    "unquantized inputs. With --a/--b the shape comes from the files.\n"
    "\n"
    "  --device URI     model (default, or $SPU_DEVICE), sim, serial:PATH?baud=N\n"
    "  --dtype T        operand dtype (default int8); the device must carry it\n"
    "  --out-dtype T    what st writes (docs/numerics.md \"Output pipeline\"): int32\n"
    "                   (int8 only, the default there), int8 (int8 only: the\n"
    "                   requantizer, --shift S, RNE), f32 (default for floats),\n"
    "                   bf16, f16, e4m3, e5m2 (the exact sum rounded once, RNE)\n"
    "  --bias BIAS.npy  N values added to the columns on the device before the\n"
    "                   rounding (float32; int8 inputs: integers, or int32 .npy)\n"
    "  --relu           negative outputs become +0 (on the device)\n"
    "  --ovf            bf16/f16/e4m3/e5m2: overflow gives Inf (e4m3 NaN), not +-max\n"
    "  --shift S        int8 out: round(acc / 2^S) (default 0)\n"
    "  --codes          --a/--b hold raw codes (uint8 .npy; bf16 uint16) of --dtype\n"
    "                   (mxfp6 / mxfp4: one code per byte, in its low 6 / 4 bits)\n"
    "  --a-scales SA.npy  MX with --codes: uint8 E8M0 scales, M x ceil(K/32) (row\n"
    "  --b-scales SB.npy  i's block g) and ceil(K/32) x N (column j's block g).\n"
    "                   MX float32 inputs are quantized by spu_mx_quantize along K\n"
    "                   (rows of A, columns of B; blocks of 32, floor scale, RNE)\n"
    "  --seed S         random operands from seed S (default 1)\n"
    "  --out FILE       write C as an int32, int8 or float32 (float outs) .npy\n"
    "  --json           one JSON object: device m n k dtype out_dtype bitexact cycles\n"
    "                   model_cycles macs utilization link_bytes wall_s pieces ...\n"
    "                   retries (link frames sent again after faults)\n"
    "                   (simulators also sim_cycles sim_s clock_hz: the simulated\n"
    "                   board's time for the call, link included; docs/sim.md)\n";

/* Host memory a GEMM may take (A + B + C + reference C), checked before allocating. */
#define GEMM_HOST_MAX ((uint64_t)4 << 30)


/* The documented device result (docs/numerics.md "Datapath numerics",
 * "Output pipeline"), written here independently of the model's datapath
 * code and of the library's converters: the exact sum (each product decoded
 * by the library, exact in double, summed as an integer multiple of 2^-60),
 * its NaN / Inf flags, then relu and one RNE rounding to the out format. */
__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;
typedef struct exact_sum {
    i128 s;                 /* the sum * 2^60 */
    int nan, pinf, ninf;
} exact_sum;

/* One decoded product x * y: 1 with *p when finite; else 0 after setting the
 * sum's NaN (NaN operand, 0 * Inf) or +Inf / -Inf flag. */
static int finite_product(exact_sum *r, double x, double y, double *p)
{
    if (isnan(x) || isnan(y) || (isinf(x) && y == 0) || (isinf(y) && x == 0)) {
        r->nan = 1;
        return 0;
    }
    *p = x * y;
    if (isinf(*p)) {
        if (*p > 0) r->pinf = 1;
        else        r->ninf = 1;
        return 0;
    }
    return 1;
}

static exact_sum exact_dot(const cli_gemm_dtype *dt, const uint8_t *a, size_t sa,
                           const uint8_t *b, size_t sb, size_t n)
{
    exact_sum r = { 0, 0, 0, 0 };
    for (size_t k = 0; k < n; k++) {
        if (dt->dt == CLI_DT_INT8) {
            r.s += (i128)((int8_t)a[k * sa] * (int8_t)b[k * sb]) * ((i128)1 << 60);
            continue;
        }
        double p;
        if (finite_product(&r, spu_num_to_f32(dt->fmt, a[k * sa]), spu_num_to_f32(dt->fmt, b[k * sb]), &p))
            r.s += (i128)ldexp(p, 60);
    }
    return r;
}

/* bf16 operands (docs/numerics.md "Datapath numerics"): each exact
 * product put on the accumulator's 2^-32 grid, rounded there (RNE, the
 * default rounding mode of nearbyint) when below it; a term or a running
 * sum (k order) of 2^47 or more in magnitude is the register's overflow,
 * reported as NaN. The codes are decoded by the library, the rest is here. */
static exact_sum exact_dot_bf16(const uint16_t *a, size_t sa, const uint16_t *b, size_t sb, size_t n)
{
    exact_sum r = { 0, 0, 0, 0 };
    int ovf = 0;
    for (size_t k = 0; k < n; k++) {
        double x = spu_num_to_f32(SPU_FMT_BF16, a[k * sa]), y = spu_num_to_f32(SPU_FMT_BF16, b[k * sb]);
        if (isnan(x) || isnan(y) || (isinf(x) && y == 0) || (isinf(y) && x == 0)) {
            r.nan = 1;
            continue;
        }
        if (isinf(x) || isinf(y)) {
            if ((x < 0) != (y < 0)) r.ninf = 1;
            else                    r.pinf = 1;
            continue;
        }
        const double t = nearbyint(ldexp(x * y, 32));      /* x * y exact: 16 bits */
        if (!(fabs(t) < 0x1p79)) {
            ovf = 1;
            continue;
        }
        r.s += (i128)t * ((i128)1 << 28);
        if (r.s >= ((i128)1 << 107) || r.s < -((i128)1 << 107))
            ovf = 1;
    }
    r.nan |= ovf;
    return r;
}

/* MX operands (docs/numerics.md "MX on the array"): per 32-element block
 * of k, the exact sum of the element products (decoded by the library at
 * scale 2^0: spu_mx_dequant(f, code, 127); exact in double, summed as an
 * integer multiple of 2^-60), times 2^(sa + sb - 254), rounded to the
 * accumulator's 2^-32 grid (nearbyint: RNE) -- here in long double when the
 * block sum fits its 64 bits, else by integer shifts; a block term or running
 * sum of 2^47 or more is the register's overflow (NaN); scale 0xFF: NaN. */
static exact_sum exact_dot_mx(int mxf, const uint8_t *a, size_t sa, const uint8_t *b, size_t sb, size_t n,
                              const uint8_t *xa, size_t sxa, const uint8_t *xb, size_t sxb)
{
    exact_sum r = { 0, 0, 0, 0 };
    int ovf = 0;
    for (size_t g = 0; g * 32 < n; g++) {
        i128 blk = 0;
        for (size_t k = g * 32; k < n && k < g * 32 + 32; k++) {
            double p;
            if (finite_product(&r, spu_mx_dequant((spu_mx_fmt)mxf, a[k * sa], 127),
                               spu_mx_dequant((spu_mx_fmt)mxf, b[k * sb], 127), &p))
                blk += (i128)ldexp(p, 60);
        }
        const int sA = xa[g * sxa], sB = xb[g * sxb];
        if (sA == 0xFF || sB == 0xFF) {
            r.nan = 1;
            continue;
        }
        if (!blk)
            continue;
        /* the term on the 2^-32 grid: blk * 2^(sA + sB - 254 - 28) */
        const int e = sA + sB - 254 - 28;
        const int neg = blk < 0;
        u128 m = neg ? (u128)0 - (u128)blk : (u128)blk, t;
        if (e >= 0) {
            if (e >= 79 || (m >> (79 - e))) {
                ovf = 1;
                continue;
            }
            t = m << e;
        } else if (m >> 63) {           /* too wide for long double: integer RNE */
            const int sh = -e;
            t = sh > 127 ? 0 : m >> sh;
            if (sh <= 127) {
                const u128 rem = m - (t << sh), half = (u128)1 << (sh - 1);
                if (rem > half || (rem == half && (t & 1))) t++;
            }
        } else {
            t = (u128)nearbyintl(ldexpl((long double)(uint64_t)m, e));
        }
        if (t >> 79) {
            ovf = 1;
            continue;
        }
        r.s += (neg ? -(i128)t : (i128)t) * ((i128)1 << 28);
        if (r.s >= ((i128)1 << 107) || r.s < -((i128)1 << 107))
            ovf = 1;
    }
    r.nan |= ovf;
    return r;
}

/* A float out format: E exponent bits, M mantissa bits, ocp = OCP E4M3. */
typedef struct out_fmt {
    unsigned dt;
    int E, M, ocp;
    spu_fmt fmt;
    const char *key;
} out_fmt;
static const out_fmt out_fmts[] = {
    { CLI_DT_F32,  8, 23, 0, SPU_FMT_F32,  "f32" },
    { CLI_DT_BF16, 8,  7, 0, SPU_FMT_BF16, "bf16" },
    { CLI_DT_F16,  5, 10, 0, SPU_FMT_F16,  "f16" },
    { CLI_DT_E4M3, 4,  3, 1, SPU_FMT_E4M3, "e4m3" },
    { CLI_DT_E5M2, 5,  2, 0, SPU_FMT_E5M2, "e5m2" },
};
static const out_fmt *out_fmt_of(unsigned dt)
{
    for (size_t i = 0; i < sizeof out_fmts / sizeof *out_fmts; i++)
        if (out_fmts[i].dt == dt)
            return &out_fmts[i];
    return NULL;
}

/* RNE of the exact value to f (gradual underflow; overflow on the rounded
 * magnitude: sat -> +-max, ovf -> +-Inf or E4M3 NaN); relu first. */
static uint32_t round_float(const out_fmt *f, exact_sum x, int relu, int ovf)
{
    const int bias = (1 << (f->E - 1)) - 1;
    const int emax = f->ocp ? (1 << f->E) - 1 - bias : (1 << f->E) - 2 - bias;
    const uint32_t maxman = f->ocp ? (1u << f->M) - 2 : (1u << f->M) - 1;
    const uint32_t maxcode = ((uint32_t)(emax + bias) << f->M) | maxman;
    const uint32_t sbit = 1u << (f->E + f->M);
    const uint32_t inf = ((1u << f->E) - 1) << f->M;
    const uint32_t qnan = f->ocp ? 0x7Fu : inf | (1u << (f->M - 1));
    if (x.nan || (x.pinf && x.ninf))
        return qnan;
    if (x.pinf || x.ninf) {
        if (relu && x.ninf)
            return 0;
        const uint32_t sg = x.ninf ? sbit : 0;
        return sg | (!ovf ? maxcode : f->ocp ? qnan : inf);
    }
    if (x.s == 0 || (relu && x.s < 0))
        return 0;
    const int neg = x.s < 0;
    const u128 mag = neg ? (u128)0 - (u128)x.s : (u128)x.s;
    int msb = 127;
    while (!((mag >> msb) & 1))
        msb--;
    const int e = msb - 60;
    const int ulp = (e > 1 - bias ? e : 1 - bias) - f->M;
    const int sh = ulp + 60;
    u128 q;
    if (sh <= 0) {
        q = mag << -sh;
    } else if (sh > 127) {
        q = 0;
    } else {
        const u128 rem = mag & ((((u128)1) << sh) - 1), half = ((u128)1) << (sh - 1);
        q = mag >> sh;
        if (rem > half || (rem == half && (q & 1)))
            q++;
    }
    int ue = ulp;
    while (q >= ((u128)2 << f->M)) {
        q >>= 1;
        ue++;
    }
    uint32_t code;
    if (q < ((u128)1 << f->M)) {
        code = (uint32_t)q;
    } else {
        const int be = ue + f->M + bias;
        const uint32_t man = (uint32_t)q & ((1u << f->M) - 1);
        code = ((uint32_t)be << f->M) | man;
        if (be > emax + bias || (be == emax + bias && man > maxman))
            code = ovf ? (f->ocp ? qnan : inf) : maxcode;
    }
    return (neg ? sbit : 0) | code;
}

/* The reference element of an int8 GEMM's int32 / int8 out. */
static uint32_t round_int(unsigned out, exact_sum x, int relu, unsigned shift)
{
    int32_t v = (int32_t)(uint32_t)(uint64_t)(x.s >> 60);
    if (relu && v < 0)
        v = 0;
    if (out == CLI_DT_INT32)
        return (uint32_t)v;
    int64_t q = v;                              /* round(v / 2^shift), RNE */
    if (shift) {
        const int64_t d = (int64_t)1 << shift;
        int64_t fl = q >= 0 ? q / d : -((-q + d - 1) / d);
        const int64_t rem = q - fl * d;
        if (2 * rem > d || (2 * rem == d && (fl & 1)))
            fl++;
        q = fl;
    }
    q = q > 127 ? 127 : q < -128 ? -128 : q;
    return (uint8_t)(int8_t)q;
}



static int load_matrix(const char *path, spu_tensor *t, const char *what, int want)
{
    char err[256];
    int rc = spu_npy_load(path, t, err, sizeof err);
    if (rc)
        return err[0] ? cli_fail("gemm", "%s: %s", what, err)   /* err names the file */
                      : cli_fail("gemm", "%s: %s: %s", what, path, spu_strerror(rc));
    if ((int)t->dtype != want || t->ndim != 2) {
        cli_fail("gemm", "%s: %s: need a 2-D %s array, got %d-D %s", what, path,
                 spu_npy_dtype_name((spu_npy_dtype)want), t->ndim, spu_npy_dtype_name(t->dtype));
        spu_tensor_free(t);
        return 1;
    }
    return 0;
}

int spu_cmd_gemm(int argc, char **argv)
{
    static const struct option opts[] = {
        { "device", required_argument, 0, 'd' }, { "m", required_argument, 0, 'm' },
        { "n", required_argument, 0, 'n' },      { "k", required_argument, 0, 'k' },
        { "dtype", required_argument, 0, 't' },  { "seed", required_argument, 0, 's' },
        { "a", required_argument, 0, 'A' },      { "b", required_argument, 0, 'B' },
        { "out", required_argument, 0, 'o' },    { "json", no_argument, 0, 'j' },
        { "out-dtype", required_argument, 0, 'O' }, { "codes", no_argument, 0, 'c' },
        { "relu", no_argument, 0, 'r' },         { "ovf", no_argument, 0, 'v' },
        { "shift", required_argument, 0, 'S' },  { "bias", required_argument, 0, 'b' },
        { "a-scales", required_argument, 0, 'X' }, { "b-scales", required_argument, 0, 'Y' },
        { "help", no_argument, 0, 'h' },         { 0, 0, 0, 0 },
    };
    const char *device = cli_default_device(), *apath = NULL, *bpath = NULL, *out = NULL;
    uint64_t dims[3] = { 0, 0, 0 }, seed = 1;
    int have[3] = { 0, 0, 0 }, json = 0, c, codes = 0, out_dt = -1, have_seed = 0;
    int relu = 0, ovf = 0, have_shift = 0;
    const char *bias_path = NULL, *sapath = NULL, *sbpath = NULL;
    uint64_t shift = 0;
    const cli_gemm_dtype *dt = &cli_gemm_dtypes[0];
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'm': case 'n': case 'k': {
            int i = c == 'm' ? 0 : c == 'n' ? 1 : 2;
            if (cli_parse_u64(optarg, &dims[i]) || dims[i] == 0 || dims[i] > 65536)
                return cli_usage_error("gemm", "--%c needs an integer in 1..65536, got '%s'", c, optarg);
            have[i] = 1;
            break;
        }
        case 't':
            dt = NULL;
            for (size_t i = 0; i < cli_gemm_ndtypes; i++)
                if (!strcmp(optarg, cli_gemm_dtypes[i].key))
                    dt = &cli_gemm_dtypes[i];
            if (!dt)
                return cli_usage_error("gemm", "unsupported --dtype '%s' (supported: int8 e4m3 e5m2 bf16 "
                                       "mxfp8_e4m3 mxfp8_e5m2 mxint8 mxfp6_e3m2 mxfp6_e2m3 mxfp4_e2m1)", optarg);
            break;
        case 'O':
            if (!strcmp(optarg, "int32")) out_dt = CLI_DT_INT32;
            else if (!strcmp(optarg, "int8")) out_dt = CLI_DT_INT8;
            else {
                for (size_t i = 0; i < sizeof out_fmts / sizeof *out_fmts; i++)
                    if (!strcmp(optarg, out_fmts[i].key))
                        out_dt = (int)out_fmts[i].dt;
                if (out_dt < 0)
                    return cli_usage_error("gemm", "unsupported --out-dtype '%s' "
                                           "(supported: f32 bf16 f16 e4m3 e5m2 int8 int32)", optarg);
            }
            break;
        case 'r': relu = 1; break;
        case 'b': bias_path = optarg; break;
        case 'v': ovf = 1; break;
        case 'S':
            if (cli_parse_u64(optarg, &shift) || shift > 31)
                return cli_usage_error("gemm", "--shift needs an integer in 0..31, got '%s'", optarg);
            have_shift = 1;
            break;
        case 'c': codes = 1; break;
        case 's':
            if (cli_parse_u64(optarg, &seed))
                return cli_usage_error("gemm", "--seed needs an unsigned integer, got '%s'", optarg);
            have_seed = 1;
            break;
        case 'X': sapath = optarg; break;
        case 'Y': sbpath = optarg; break;
        case 'A': apath = optarg; break;
        case 'B': bpath = optarg; break;
        case 'o': out = optarg; break;
        case 'j': json = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        default: return cli_usage_error("gemm", "bad option");
        }
    }
    if (optind < argc)
        return cli_usage_error("gemm", "unexpected argument '%s'", argv[optind]);
    if (!apath != !bpath)
        return cli_usage_error("gemm", "--a and --b go together");

    const int is_float = dt->dt != CLI_DT_INT8;
    if (out_dt < 0)
        out_dt = is_float ? CLI_DT_F32 : CLI_DT_INT32;
    if (out_dt == CLI_DT_INT32 && is_float)
        return cli_usage_error("gemm", "--out-dtype int32 needs --dtype int8 (float inputs give f32)");
    if (out_dt == CLI_DT_INT8 && is_float)
        return cli_usage_error("gemm", "--out-dtype int8 (the requantizer) needs --dtype int8; "
                               "float inputs round to f32 bf16 f16 e4m3 e5m2");
    if (have_shift && out_dt != CLI_DT_INT8)
        return cli_usage_error("gemm", "--shift is the int8 requantizer's; it needs --out-dtype int8");
    if (ovf && (out_dt == CLI_DT_INT8 || out_dt == CLI_DT_INT32 || out_dt == CLI_DT_F32))
        return cli_usage_error("gemm", "--ovf chooses Inf over saturation for bf16 f16 e4m3 e5m2 outputs only");
    const out_fmt *of = out_fmt_of((unsigned)out_dt);     /* NULL: int32 / int8 */
    if (codes && (!is_float || !apath))
        return cli_usage_error("gemm", "--codes needs a float --dtype and --a/--b");
    const int mxf = cli_mx_fmt(dt->dt);      /* >= 0: an MX dtype */
    if ((sapath || sbpath) && (mxf < 0 || !codes || !sapath || !sbpath))
        return cli_usage_error("gemm", "--a-scales and --b-scales go together, with --codes and an MX --dtype");
    if (mxf >= 0 && codes && !sapath)
        return cli_usage_error("gemm", "--codes with an MX --dtype needs --a-scales and --b-scales "
                               "(uint8 E8M0, M x ceil(K/32) and ceil(K/32) x N)");
    if (cli_check_output("gemm", out))
        return 1;
    if (apath && have_seed)
        return cli_usage_error("gemm", "--seed makes random operands; it cannot go with --a/--b");
    /* bytes per operand element on the host: the code, and for floats the float32 input */
    const int bf = dt->dt == CLI_DT_BF16;
    const size_t eb = bf ? 2 : 1;          /* bytes per operand code */
    const uint64_t opb = is_float ? 4 + eb : 1;
    if (!apath && have[0] && have[1] && have[2]) {
        /* refuse before allocating anything: A, B, C and the reference C */
        const uint64_t need = opb * (dims[0] * dims[2] + dims[2] * dims[1]) + 8 * dims[0] * dims[1];
        if (need > GEMM_HOST_MAX)
            return cli_usage_error("gemm", "%" PRIu64 "x%" PRIu64 "x%" PRIu64 " needs %.1f GiB of host memory "
                                   "for A, B and two copies of C; the limit is %.0f GiB",
                                   dims[0], dims[1], dims[2], need / 1073741824.0,
                                   GEMM_HOST_MAX / 1073741824.0);
    }

    spu_tensor ta = { 0 }, tb = { 0 }, tbias = { 0 }, tsa = { 0 }, tsb = { 0 };
    uint8_t *SA = NULL, *SB = NULL;          /* MX: E8M0 scales, M x nb and nb x N */
    double *bias = NULL;                     /* --bias values */
    uint8_t *A = NULL, *B = NULL;            /* operand codes, eb bytes each (bf16: uint16) */
    float *Af = NULL, *Bf = NULL;            /* unquantized float inputs (float dtypes) */
    int ret = 1;
    if (apath) {
        const int want = !is_float ? SPU_NPY_INT8 : codes ? (bf ? SPU_NPY_UINT16 : SPU_NPY_UINT8) : SPU_NPY_FLOAT32;
        if (load_matrix(apath, &ta, "--a", want) || load_matrix(bpath, &tb, "--b", want)) {
            spu_tensor_free(&ta);
            return 1;
        }
        uint64_t fm = ta.shape[0], fk = ta.shape[1], fk2 = tb.shape[0], fn = tb.shape[1];
        if (fk != fk2) {
            cli_fail("gemm", "inner dimensions differ: A is %" PRIu64 "x%" PRIu64 ", B is %" PRIu64 "x%" PRIu64,
                     fm, fk, fk2, fn);
            goto done;
        }
        uint64_t f[3] = { fm, fn, fk };
        for (int i = 0; i < 3; i++) {
            if (have[i] && dims[i] != f[i]) {
                cli_fail("gemm", "--%c %" PRIu64 " disagrees with the files (%" PRIu64 ")", "mnk"[i], dims[i], f[i]);
                goto done;
            }
            if (f[i] == 0 || f[i] > 65536) {
                cli_fail("gemm", "dimension %c = %" PRIu64 " outside 1..65536", "mnk"[i], f[i]);
                goto done;
            }
            dims[i] = f[i];
        }
        if (8 * dims[0] * dims[1] > GEMM_HOST_MAX) {
            cli_fail("gemm", "C of %" PRIu64 "x%" PRIu64 " needs more than %.0f GiB of host memory",
                     dims[0], dims[1], GEMM_HOST_MAX / 1073741824.0);
            goto done;
        }
    } else if (!have[0] || !have[1] || !have[2]) {
        return cli_usage_error("gemm", "--m, --n and --k are required without --a/--b");
    }
    const uint32_t M = (uint32_t)dims[0], N = (uint32_t)dims[1], K = (uint32_t)dims[2];
    const size_t sa = (size_t)M * K, sb = (size_t)K * N;
    const uint32_t nblk = (K + 31) / 32;
    if (mxf >= 0 && codes) {
        if (load_matrix(sapath, &tsa, "--a-scales", SPU_NPY_UINT8) ||
            load_matrix(sbpath, &tsb, "--b-scales", SPU_NPY_UINT8))
            goto done;
        if (tsa.shape[0] != M || tsa.shape[1] != nblk || tsb.shape[0] != nblk || tsb.shape[1] != N) {
            cli_fail("gemm", "MX scales: need --a-scales %ux%u and --b-scales %ux%u (blocks of 32 along K = %u), "
                     "got %" PRIu64 "x%" PRIu64 " and %" PRIu64 "x%" PRIu64, M, nblk, nblk, N, K,
                     tsa.shape[0], tsa.shape[1], tsb.shape[0], tsb.shape[1]);
            goto done;
        }
        SA = tsa.data;
        SB = tsb.data;
        /* mxfp6 / mxfp4 codes live in a byte's low 6 / 4 bits (the device
         * ignores the rest: refuse codes that do not fit rather than guess) */
        const unsigned ebits = mxf == SPU_MX_FP6_E3M2 || mxf == SPU_MX_FP6_E2M3 ? 6 : mxf == SPU_MX_FP4_E2M1 ? 4 : 8;
        for (int t = 0; t < 2 && ebits < 8; t++) {
            const spu_tensor *tt = t ? &tb : &ta;
            const size_t n = (size_t)tt->shape[0] * tt->shape[1];
            for (size_t i = 0; i < n; i++)
                if (((const uint8_t *)tt->data)[i] >> ebits) {
                    cli_fail("gemm", "--%c: element %zu = 0x%02x is no %s code (%u bits)", t ? 'b' : 'a', i,
                             ((const uint8_t *)tt->data)[i], dt->key, ebits);
                    goto done;
                }
        }
    } else if (mxf >= 0) {
        SA = malloc((size_t)M * nblk);
        SB = malloc((size_t)nblk * N);
        if (!SA || !SB) {
            cli_fail("gemm", "out of memory");
            goto done;
        }
    }
    /* --bias: N values (float32, or int32 for int8 inputs) added to the columns
     * on the device before the rounding */
    if (bias_path) {
        char err[256];
        int brc = spu_npy_load(bias_path, &tbias, err, sizeof err);
        if (brc) {
            if (err[0]) cli_fail("gemm", "--bias: %s", err);
            else cli_fail("gemm", "--bias: %s: %s", bias_path, spu_strerror(brc));
            goto done;
        }
        const int okdt = tbias.dtype == SPU_NPY_FLOAT32 || (!is_float && tbias.dtype == SPU_NPY_INT32);
        if (!okdt || tbias.ndim != 1 || tbias.shape[0] != N) {
            cli_fail("gemm", "--bias: %s: need a 1-D %s array of N = %u values, got %d-D %s of %" PRIu64,
                     bias_path, is_float ? "float32" : "float32 or int32", N, tbias.ndim,
                     spu_npy_dtype_name(tbias.dtype), tbias.ndim ? tbias.shape[0] : 0);
            goto done;
        }
        if (!(bias = malloc((size_t)N * sizeof *bias))) {
            cli_fail("gemm", "out of memory");
            goto done;
        }
        for (uint32_t j = 0; j < N; j++) {
            bias[j] = tbias.dtype == SPU_NPY_INT32 ? ((const int32_t *)tbias.data)[j]
                                                  : ((const float *)tbias.data)[j];
            const double g = is_float ? ldexp(bias[j], 32) : bias[j];
            if (!(fabs(g) < (is_float ? 0x1p63 : 0x1p31)) || (!is_float && g != nearbyint(g))) {
                cli_fail("gemm", "--bias: %s: element %u = %g is not %s", bias_path, j, bias[j],
                         is_float ? "finite with |bias| < 2^31" : "an integer in int32 range (int8 inputs add the bias to the int32 sum)");
                goto done;
            }
        }
    }
    if (apath && !is_float) {
        A = ta.data;
        B = tb.data;
    } else if (apath && codes) {
        A = ta.data;
        B = tb.data;
    } else {
        A = malloc(sa * eb);
        B = malloc(sb * eb);
        if (!A || !B) {
            cli_fail("gemm", "out of memory");
            goto done;
        }
        if (is_float) {
            if (apath) {
                Af = ta.data;
                Bf = tb.data;
            } else {
                Af = malloc(sa * sizeof *Af);
                Bf = malloc(sb * sizeof *Bf);
                if (!Af || !Bf) {
                    cli_fail("gemm", "out of memory");
                    goto done;
                }
                uint64_t st = seed;
                for (size_t i = 0; i < sa; i++) Af[i] = (float)((cli_splitmix64(&st) >> 40) * 0x1p-24 * 8.0 - 4.0);
                for (size_t i = 0; i < sb; i++) Bf[i] = (float)((cli_splitmix64(&st) >> 40) * 0x1p-24 * 8.0 - 4.0);
            }
            if (mxf >= 0) { /* MX: the library's quantizer along K */
                const int qrc = cli_mx_quantize_ab(dt->dt, Af, Bf, M, N, K, A, SA, B, SB);
                if (qrc) {
                    cli_fail("gemm", "MX quantize: %s", spu_strerror(qrc));
                    goto done;
                }
            } else if (bf) {       /* bf16: RNE, overflow to Inf as IEEE (the library's ovf mode) */
                for (size_t i = 0; i < sa; i++) ((uint16_t *)A)[i] = (uint16_t)spu_from_f32(SPU_FMT_BF16, Af[i], SPU_ROUND_RNE, SPU_OVF_OVF, 0);
                for (size_t i = 0; i < sb; i++) ((uint16_t *)B)[i] = (uint16_t)spu_from_f32(SPU_FMT_BF16, Bf[i], SPU_ROUND_RNE, SPU_OVF_OVF, 0);
            } else {
                for (size_t i = 0; i < sa; i++) A[i] = (uint8_t)spu_from_f32(dt->fmt, Af[i], SPU_ROUND_RNE, SPU_OVF_SAT, 0);
                for (size_t i = 0; i < sb; i++) B[i] = (uint8_t)spu_from_f32(dt->fmt, Bf[i], SPU_ROUND_RNE, SPU_OVF_SAT, 0);
            }
        } else {
            uint64_t st = seed;
            for (size_t i = 0; i < sa; i++) A[i] = (uint8_t)(cli_splitmix64(&st) >> 56);
            for (size_t i = 0; i < sb; i++) B[i] = (uint8_t)(cli_splitmix64(&st) >> 56);
        }
    }
    uint32_t *C = malloc((size_t)M * N * sizeof *C), *R = malloc((size_t)M * N * sizeof *R);
    spu_device *dev = NULL;
    if (!C || !R) {
        cli_fail("gemm", "out of memory");
        goto cleanup;
    }
    int rc = 0;
    if (cli_open_device("gemm", device, &dev))
        goto cleanup;
    spu_info_t info;
    spu_info(dev, &info);
    spu_gemm_opts go = { strcmp(info.device, "model") != 0, 0 };
    spu_gemm_stats s;
    /* simulators: the simulated board's time for the whole call, link included (docs/sim.md) */
    spu_sim_time_t st0, st1;
    const int have_sim = spu_sim_time(dev, &st0) == 0;
    const spu_gemm_epilogue epi = { (unsigned)out_dt, relu, ovf, (unsigned)shift, SPU_ROUND_RNE, bias };
    if (!is_float && out_dt == CLI_DT_INT32 && !relu && !bias)
        rc = spu_gemm_i8(dev, M, N, K, (const int8_t *)A, (const int8_t *)B, (int32_t *)C, &go, &s);
    else if (mxf >= 0)
        rc = spu_gemm_mx(dev, (unsigned)dt->dt, &epi, M, N, K, A, SA, B, SB, C, &go, &s);
    else
        rc = spu_gemm_epi(dev, (unsigned)dt->dt, &epi, M, N, K, A, B, C, &go, &s);
    const int have_simt = have_sim && rc == 0 && spu_sim_time(dev, &st1) == 0;
    if (rc) {
        spu_status_t st;
        if (rc == SPU_ETRAP && spu_status(dev, &st) == 0)
            cli_fail("gemm", "device trapped: %s at pc %u", spu_trap_name(st.trap), st.pc);
        else if (rc == SPU_ENOTSUP && !(info.formats & (1u << dt->dt)))
            cli_fail("gemm", "%s does not carry %s (INFO formats 0x%x)", device, dt->key, info.formats);
        else if (rc == SPU_ENOTSUP && !(info.formats & ~1u))
            cli_fail("gemm", "%s has no float format (INFO formats 0x%x): %s needs one "
                     "(docs/numerics.md \"Output pipeline\")", device, info.formats,
                     of && of->dt != CLI_DT_F32 ? "a float --out-dtype" : bias ? "--bias" : "this --out-dtype");
        else if (rc == SPU_ENOTSUP && (out_dt != CLI_DT_INT32 || relu || bias))
            cli_fail("gemm", "on %s: --out-dtype %s%s needs K in one scratchpad piece (K = %u is too large, "
                     "docs/numerics.md)", device, of ? of->key : out_dt == CLI_DT_INT8 ? "int8" : "int32",
                     relu ? " with --relu" : bias ? " with --bias" : "", K);
        else if (rc == SPU_EMISMATCH)
            cli_fail("gemm", "on %s: the device result differs from the C model", device);
        else
            cli_fail("gemm", "on %s: %s", device, spu_strerror(rc));
        goto cleanup;
    }
    if (!go.check_model)
        s.model_cycles = s.cycles;
    /* the reference: int8 -> int32 a triple loop; otherwise the exact sum,
     * relu, rounded once to the out format (written here) */
    const uint32_t ob = of ? (of->M >= 7 ? (of->M == 23 ? 4 : 2) : 1) : out_dt == CLI_DT_INT8 ? 1 : 4;
    if (!is_float && out_dt == CLI_DT_INT32 && !relu && !bias) {
        spu_gemm_i8_reference(M, N, K, (const int8_t *)A, (const int8_t *)B, (int32_t *)R);
    } else {
        for (uint32_t i = 0; i < M; i++)
            for (uint32_t j = 0; j < N; j++) {
                exact_sum x = mxf >= 0 ? exact_dot_mx(mxf, A + (size_t)i * K, 1, B + j, N, K,
                                                      SA + (size_t)i * nblk, 1, SB + j, N)
                            : bf ? exact_dot_bf16((const uint16_t *)A + (size_t)i * K, 1, (const uint16_t *)B + j, N, K)
                                 : exact_dot(dt, A + (size_t)i * K, 1, B + j, N, K);
                if (bias)   /* on the accumulator's grid, as the device (docs/isa.md `bias`) */
                    x.s += is_float ? (i128)(int64_t)nearbyint(ldexp(bias[j], 32)) * ((i128)1 << 28)
                                    : (i128)(int64_t)bias[j] * ((i128)1 << 60);
                R[(size_t)i * N + j] = of ? round_float(of, x, relu, of->dt == CLI_DT_F32 ? 1 : ovf)
                                          : round_int((unsigned)out_dt, x, relu, (unsigned)shift);
            }
    }
    /* the device's elements as 32-bit words (C holds M*N elements of ob bytes) */
    if (ob < 4) {
        const uint8_t *cb = (const uint8_t *)C;
        for (size_t i = (size_t)M * N; i-- > 0;) {
            uint32_t v = 0;
            for (uint32_t b = 0; b < ob; b++)
                v |= (uint32_t)cb[i * ob + b] << (8 * b);
            C[i] = v;
        }
    }
    size_t bad = (size_t)-1, nbad = 0;
    for (size_t i = 0; i < (size_t)M * N; i++)
        if (C[i] != R[i]) {
            if (bad == (size_t)-1) bad = i;
            nbad++;
        }
    /* error of the device result against fp64 of the unquantized inputs */
    double max_abs = 0, se = 0, sr = 0;
    int have_err = of != NULL;
    if (have_err) {
        for (uint32_t i = 0; i < M; i++)
            for (uint32_t j = 0; j < N; j++) {
                double ref = 0;
                for (uint32_t k = 0; k < K; k++) {
                    double x, y;
                    if (Af) {
                        x = Af[(size_t)i * K + k];
                        y = Bf[(size_t)k * N + j];
                    } else if (mxf >= 0) {
                        x = spu_mx_dequant((spu_mx_fmt)mxf, A[(size_t)i * K + k], SA[(size_t)i * nblk + k / 32]);
                        y = spu_mx_dequant((spu_mx_fmt)mxf, B[(size_t)k * N + j], SB[(size_t)(k / 32) * N + j]);
                    } else if (bf) {
                        x = spu_num_to_f32(SPU_FMT_BF16, ((const uint16_t *)A)[(size_t)i * K + k]);
                        y = spu_num_to_f32(SPU_FMT_BF16, ((const uint16_t *)B)[(size_t)k * N + j]);
                    } else if (is_float) {
                        x = spu_num_to_f32(dt->fmt, A[(size_t)i * K + k]);
                        y = spu_num_to_f32(dt->fmt, B[(size_t)k * N + j]);
                    } else {
                        x = (int8_t)A[(size_t)i * K + k];
                        y = (int8_t)B[(size_t)k * N + j];
                    }
                    ref += x * y;
                }
                if (bias)
                    ref += bias[j];
                if (relu && ref < 0)
                    ref = 0;
                double c = spu_num_to_f32(of->fmt, C[(size_t)i * N + j]);
                double e = fabs(c - ref);
                if (!(e <= max_abs)) max_abs = e;    /* NaN propagates */
                se += e * e;
                sr += ref * ref;
            }
    }
    const double rel_rms = sr > 0 ? sqrt(se / sr) : (se > 0 ? INFINITY : 0);
    const double sqnr = se > 0 ? 10 * log10(sr / se) : INFINITY;
    const double util = s.cycles ? (double)s.macs / ((double)s.cycles * info.rows * info.cols) : 0.0;
    if (out) {
        /* float outs as float32 values, int8 as int8, int32 as int32 */
        if (of && of->dt != CLI_DT_F32)
            for (size_t i = 0; i < (size_t)M * N; i++) {
                float f = spu_num_to_f32(of->fmt, C[i]);
                memcpy(&C[i], &f, 4);
            }
        if (out_dt == CLI_DT_INT8)
            for (size_t i = 0; i < (size_t)M * N; i++)
                ((int8_t *)C)[i] = (int8_t)(uint8_t)C[i];
        spu_tensor tc = { of ? SPU_NPY_FLOAT32 : out_dt == CLI_DT_INT8 ? SPU_NPY_INT8 : SPU_NPY_INT32,
                          2, { M, N }, C };
        cli_output o;
        char hdr[640];
        if (cli_npy_output(&o, out, &tc, hdr, sizeof hdr) || cli_write_outputs("gemm", 1, &o))
            goto cleanup;
    }
    const char *out_key = of ? of->key : out_dt == CLI_DT_INT8 ? "int8" : "int32";
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "device", device);
        cJSON_AddNumberToObject(o, "m", M);
        cJSON_AddNumberToObject(o, "n", N);
        cJSON_AddNumberToObject(o, "k", K);
        cJSON_AddStringToObject(o, "dtype", dt->key);
        cJSON_AddStringToObject(o, "out_dtype", out_key);
        cJSON_AddBoolToObject(o, "relu", relu);
        cJSON_AddBoolToObject(o, "bias", bias != NULL);
        if (of && of->dt != CLI_DT_F32) cJSON_AddStringToObject(o, "overflow", ovf ? "ovf" : "sat");
        if (out_dt == CLI_DT_INT8) cJSON_AddNumberToObject(o, "shift", (double)shift);
        cJSON_AddBoolToObject(o, "bitexact", nbad == 0);
        cJSON_AddNumberToObject(o, "cycles", (double)s.cycles);
        cJSON_AddNumberToObject(o, "model_cycles", (double)s.model_cycles);
        cJSON_AddNumberToObject(o, "macs", (double)s.macs);
        cJSON_AddNumberToObject(o, "utilization", util);
        cJSON_AddNumberToObject(o, "link_bytes", (double)s.link_bytes);
        cJSON_AddNumberToObject(o, "wall_s", s.wall_s);
        cJSON_AddNumberToObject(o, "pieces", s.pieces);
        cJSON_AddNumberToObject(o, "rows", info.rows);
        cJSON_AddNumberToObject(o, "cols", info.cols);
        cJSON_AddNumberToObject(o, "mac_active", (double)s.mac_active);
        cJSON_AddNumberToObject(o, "stall_bank", (double)s.stall_bank);
        cJSON_AddNumberToObject(o, "stall_drain", (double)s.stall_drain);
        cJSON_AddNumberToObject(o, "mismatches", (double)nbad);
        cJSON_AddNumberToObject(o, "retries", cli_link_retries(dev));
        if (have_simt) {
            cJSON_AddNumberToObject(o, "sim_cycles", (double)(st1.cycles - st0.cycles));
            cJSON_AddNumberToObject(o, "sim_s", st1.seconds - st0.seconds);
            cJSON_AddNumberToObject(o, "clock_hz", st1.clock_hz);
        }
        if (have_err) {
            /* JSON has no Inf / NaN: null for an error-free or undefined figure */
            if (isfinite(max_abs)) cJSON_AddNumberToObject(o, "max_abs_err", max_abs);
            else cJSON_AddNullToObject(o, "max_abs_err");
            if (isfinite(rel_rms)) cJSON_AddNumberToObject(o, "rel_rms_err", rel_rms);
            else cJSON_AddNullToObject(o, "rel_rms_err");
            if (isfinite(sqnr)) cJSON_AddNumberToObject(o, "sqnr_db", sqnr);
            else cJSON_AddNullToObject(o, "sqnr_db");
        }
        char *txt = cJSON_PrintUnformatted(o);
        puts(txt ? txt : "{}");
        free(txt);
        cJSON_Delete(o);
    } else {
        printf("spu gemm on %s (%ux%u array): C[%u x %u] = A[%u x %u] x B[%u x %u], %s -> %s\n",
               device, info.rows, info.cols, M, N, M, K, K, N, dt->key, out_key);
        printf("  %-12s %s\n", "result", nbad ? "MISMATCH"
               : is_float || of ? "bit-exact vs exact-sum reference (one RNE rounding)"
                                               : "bit-exact vs plain C reference");
        printf("  %-12s %" PRIu64 "  (model %" PRIu64 ", %u piece%s)\n", "cycles", s.cycles,
               s.model_cycles, s.pieces, s.pieces == 1 ? "" : "s");
        printf("  %-12s %" PRIu64 "\n", "MACs", s.macs);
        printf("  %-12s %.4f\n", "utilization", util);
        printf("  %-12s %" PRIu64 "\n", "link bytes", s.link_bytes);
        printf("  %-12s %.4f s\n", "wall", s.wall_s);
        if (have_simt)
            printf("  %-12s %" PRIu64 " cycles = %.6f s at %u Hz (simulated board, link included)\n",
                   "sim time", st1.cycles - st0.cycles, st1.seconds - st0.seconds, st1.clock_hz);
        if (have_err)
            printf("  %-12s max_abs %.6g  rel_rms %.6g  SQNR %.2f dB (vs fp64 of the %s inputs)\n",
                   "error", max_abs, rel_rms, sqnr, Af ? "unquantized" : "decoded");
    }
    if (nbad) {
        fprintf(stderr, "spu gemm: %zu of %zu elements differ; first at [%zu][%zu]: device 0x%08x, reference 0x%08x\n",
                nbad, (size_t)M * N, bad / N, bad % N, C[bad], R[bad]);
        goto cleanup;
    }
    ret = 0;
cleanup:
    spu_close(dev);
    free(C);
    free(R);
done:
    if (A != ta.data) free(A);
    if (B != tb.data) free(B);
    if (Af != ta.data) free(Af);
    if (Bf != tb.data) free(Bf);
    spu_tensor_free(&ta);
    spu_tensor_free(&tb);
    spu_tensor_free(&tbias);
    if (SA != tsa.data) free(SA);
    if (SB != tsb.data) free(SB);
    spu_tensor_free(&tsa);
    spu_tensor_free(&tsb);
    free(bias);
    return ret;
}
