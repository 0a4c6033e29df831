/*
 * cmd_gemm.c -- `spu gemm`: run an int8 GEMM on a device through libspu and
 * check it bit for bit against a plain triple loop.
 */
#include "cli.h"
#include "spu/gemm.h"
#include "spu/npy.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: spu gemm [--device URI] --m M --n N --k K [--dtype int8]\n"
    "                [--seed S | --a A.npy --b B.npy] [--out C.npy] [--json]\n"
    "\n"
    "Runs C = A x B on the device (A: MxK int8, B: KxN int8, C: MxN int32,\n"
    "row-major), compares C with a plain C triple loop and exits 0 only when\n"
    "they are equal. With --a/--b the shape comes from the files (--m/--n/--k\n"
    "may be given and must then agree). Off the model device every piece is\n"
    "also replayed on the reference model (model_cycles, bit-exact check).\n"
    "\n"
    "  --device URI   model (default, or $SPU_DEVICE), sim, serial:PATH?baud=N\n"
    "  --seed S       random operands from seed S (default 1)\n"
    "  --out FILE     write C as an int32 .npy\n"
    "  --json         one JSON object: device m n k dtype bitexact cycles\n"
    "                 model_cycles macs utilization link_bytes wall_s pieces ...\n"
    "                 retries (link frames sent again after faults)\n"
    "                 (simulators also sim_cycles sim_s clock_hz: the simulated\n"
    "                 board's time for the call, link included; docs/sim.md)\n";

/* Host memory a GEMM may take (A + B + C + reference C), checked before allocating. */
#define GEMM_HOST_MAX ((uint64_t)4 << 30)

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static int load_matrix(const char *path, spu_tensor *t, const char *what)
{
    char err[256];
    int rc = spu_npy_load(path, t, err, sizeof err);
    if (rc)
        return cli_fail("gemm", "%s: %s: %s", what, path, err);
    if (t->dtype != SPU_NPY_INT8 || t->ndim != 2) {
        cli_fail("gemm", "%s: %s: need a 2-D int8 array, got %d-D %s", what, path, t->ndim,
                 spu_npy_dtype_name(t->dtype));
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
        { "help", no_argument, 0, 'h' },         { 0, 0, 0, 0 },
    };
    const char *device = cli_default_device(), *apath = NULL, *bpath = NULL, *out = NULL;
    uint64_t dims[3] = { 0, 0, 0 }, seed = 1;
    int have[3] = { 0, 0, 0 }, json = 0, c, have_seed = 0;
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
            if (strcmp(optarg, "int8"))
                return cli_usage_error("gemm", "unsupported --dtype '%s' (supported: int8)", optarg);
            break;
        case 's':
            if (cli_parse_u64(optarg, &seed))
                return cli_usage_error("gemm", "--seed needs an unsigned integer, got '%s'", optarg);
            have_seed = 1;
            break;
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
    if (cli_check_output("gemm", out))
        return 1;
    if (apath && have_seed)
        return cli_usage_error("gemm", "--seed makes random operands; it cannot go with --a/--b");
    if (!apath && have[0] && have[1] && have[2]) {
        /* refuse before allocating anything: A, B, C and the reference C */
        const uint64_t need = dims[0] * dims[2] + dims[2] * dims[1] + 8 * dims[0] * dims[1];
        if (need > GEMM_HOST_MAX)
            return cli_usage_error("gemm", "%" PRIu64 "x%" PRIu64 "x%" PRIu64 " needs %.1f GiB of host memory "
                                   "for A, B and two copies of C; the limit is %.0f GiB",
                                   dims[0], dims[1], dims[2], need / 1073741824.0,
                                   GEMM_HOST_MAX / 1073741824.0);
    }

    spu_tensor ta = { 0 }, tb = { 0 };
    int8_t *A = NULL, *B = NULL;
    int ret = 1;
    if (apath) {
        if (load_matrix(apath, &ta, "--a") || load_matrix(bpath, &tb, "--b")) {
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
        A = ta.data;
        B = tb.data;
    } else {
        if (!have[0] || !have[1] || !have[2])
            return cli_usage_error("gemm", "--m, --n and --k are required without --a/--b");
        size_t sa = (size_t)dims[0] * dims[2], sb = (size_t)dims[2] * dims[1];
        A = malloc(sa ? sa : 1);
        B = malloc(sb ? sb : 1);
        if (!A || !B) {
            cli_fail("gemm", "out of memory");
            goto done;
        }
        uint64_t st = seed;
        for (size_t i = 0; i < sa; i++) A[i] = (int8_t)(splitmix64(&st) >> 56);
        for (size_t i = 0; i < sb; i++) B[i] = (int8_t)(splitmix64(&st) >> 56);
    }
    const uint32_t M = (uint32_t)dims[0], N = (uint32_t)dims[1], K = (uint32_t)dims[2];
    int32_t *C = malloc((size_t)M * N * sizeof *C), *R = malloc((size_t)M * N * sizeof *R);
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
    rc = spu_gemm_i8(dev, M, N, K, A, B, C, &go, &s);
    const int have_simt = have_sim && rc == 0 && spu_sim_time(dev, &st1) == 0;
    if (rc) {
        spu_status_t st;
        if (rc == SPU_ETRAP && spu_status(dev, &st) == 0)
            cli_fail("gemm", "device trapped: %s at pc %u", spu_trap_name(st.trap), st.pc);
        else
            cli_fail("gemm", "on %s: %s", device, spu_strerror(rc));
        goto cleanup;
    }
    if (!go.check_model)
        s.model_cycles = s.cycles;
    spu_gemm_i8_reference(M, N, K, A, B, R);
    size_t bad = (size_t)-1, nbad = 0;
    for (size_t i = 0; i < (size_t)M * N; i++)
        if (C[i] != R[i]) {
            if (bad == (size_t)-1) bad = i;
            nbad++;
        }
    const double util = s.cycles ? (double)s.macs / ((double)s.cycles * info.rows * info.cols) : 0.0;
    if (out) {
        spu_tensor tc = { SPU_NPY_INT32, 2, { M, N }, C };
        cli_output o;
        char hdr[640];
        if (cli_npy_output(&o, out, &tc, hdr, sizeof hdr) || cli_write_outputs("gemm", 1, &o))
            goto cleanup;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "device", device);
        cJSON_AddNumberToObject(o, "m", M);
        cJSON_AddNumberToObject(o, "n", N);
        cJSON_AddNumberToObject(o, "k", K);
        cJSON_AddStringToObject(o, "dtype", "int8");
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
        char *txt = cJSON_PrintUnformatted(o);
        puts(txt ? txt : "{}");
        free(txt);
        cJSON_Delete(o);
    } else {
        printf("spu gemm on %s (%ux%u array): C[%u x %u] = A[%u x %u] x B[%u x %u], int8 -> int32\n",
               device, info.rows, info.cols, M, N, M, K, K, N);
        printf("  %-12s %s\n", "result", nbad ? "MISMATCH" : "bit-exact vs plain C reference");
        printf("  %-12s %" PRIu64 "  (model %" PRIu64 ", %u piece%s)\n", "cycles", s.cycles,
               s.model_cycles, s.pieces, s.pieces == 1 ? "" : "s");
        printf("  %-12s %" PRIu64 "\n", "MACs", s.macs);
        printf("  %-12s %.4f\n", "utilization", util);
        printf("  %-12s %" PRIu64 "\n", "link bytes", s.link_bytes);
        printf("  %-12s %.4f s\n", "wall", s.wall_s);
        if (have_simt)
            printf("  %-12s %" PRIu64 " cycles = %.6f s at %u Hz (simulated board, link included)\n",
                   "sim time", st1.cycles - st0.cycles, st1.seconds - st0.seconds, st1.clock_hz);
    }
    if (nbad) {
        fprintf(stderr, "spu gemm: %zu of %zu elements differ; first at [%zu][%zu]: device %d, reference %d\n",
                nbad, (size_t)M * N, bad / N, bad % N, C[bad], R[bad]);
        goto cleanup;
    }
    ret = 0;
cleanup:
    spu_close(dev);
    free(C);
    free(R);
done:
    if (apath) {
        spu_tensor_free(&ta);
        spu_tensor_free(&tb);
    } else {
        free(A);
        free(B);
    }
    return ret;
}
