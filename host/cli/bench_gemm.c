/*
 * bench_gemm.c -- `spu bench gemm`: a sweep of GEMM shapes on one device.
 * For each shape: device cycles, the reference model's prediction (off the
 * model device every piece is replayed on the model), array utilization,
 * link bytes and wall time -- the measurements a performance model is
 * calibrated against. Every result is also checked bit for bit.
 * Beside each measurement, the analytical model's prediction (spu/perf.h)
 * and its error; --sweep runs the calibration sweep (>= 50 shapes),
 * --calibrate fits the link/host parameters on half of the shapes and
 * reports the error on the other half (docs/perf-model.md).
 */
#include "cli.h"
#include "perf_plot.h"
#include "spu/gemm.h"
#include "spu/isa.h"
#include "spu/perf.h"
#include "spu/spu.h"
#include "spu_firmware.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage[] =
    "usage: spu bench gemm [--device URI] [--shapes MxNxK,...|FILE] [--sweep] [--json]\n"
    "                      [--hw HW.json] [--calibrate OUT.json] [--csv FILE] [--plot DIR]\n"
    "Runs int8 GEMMs of each shape (default: a sweep from 8x8x8 to 256x256x64)\n"
    "on the device with random operands, checks each against a plain C loop and\n"
    "reports cycles, model_cycles, utilization = MACs / (cycles * ROWS * COLS),\n"
    "ideal = the utilization of an output-stationary array paying only the skew\n"
    "per block (blocks * (K + ROWS + COLS - 2) cycles; the summary counts the\n"
    "shapes at or above it),\n"
    "link bytes and wall time, and beside them the analytical model's prediction\n"
    "(spu roofline gemm) and its error. Exit status 1 if any result differs.\n"
    "  --sweep           the calibration sweep: 55 shapes (tiny, primes, non-multiples\n"
    "                    of the array, scratchpad-filling)\n"
    "  --shapes FILE     shapes from a file (MxNxK per line or comma-separated, # comments)\n"
    "  --hw FILE         link/host parameters to predict with (geometry, clock from INFO)\n"
    "  --calibrate OUT   measure the device speed (a ~2 M-cycle run), fit the link rate,\n"
    "                    transaction latency and host overhead on the even-numbered\n"
    "                    shapes (least squares), write them as a hardware file, report\n"
    "                    errors on the odd-numbered ones\n"
    "  --csv FILE        one row per shape; --plot DIR: gnuplot PNG + SVG plots\n"
    "  --reps N          run each shape N times, keep the fastest wall time\n"
    "  --dtype D --out D --bias  the GEMM of spu_gemm_epi instead (in int8|e4m3|e5m2|bf16,\n"
    "                    or an MX dtype mxfp8_e4m3|mxfp8_e5m2|mxint8|mxfp6_e3m2|mxfp6_e2m3|\n"
    "                    mxfp4_e2m1 through spu_gemm_mx with E8M0 scales 2^-7..2^6;\n"
    "                    any out, gemm_bias.s): checked piece by piece against the C\n"
    "                    model (every out: the bytes st writes; JSON \"checked\"),\n"
    "                    predicted by the same model; shapes whose K does not fit\n"
    "                    one piece are skipped (those outputs need the whole sum);\n"
    "                    not with --calibrate (it fits the int8 GEMM)\n"
    "The JSON carries the device's clock, geometry and ISA hash and the git commit.\n";

static const char *default_shapes =
    "8x8x8,8x8x64,8x8x512,16x16x16,32x32x32,64x64x64,64x64x512,37x29x300,128x128x128,256x256x64";

static const char *sweep_shapes =
    /* tiny */
    "1x1x1,1x8x1,2x3x5,8x8x1,8x8x8,4x4x4,1x1x64,8x1x8,"
    /* primes */
    "3x5x7,7x11x13,13x17x19,17x19x23,23x29x31,31x37x41,41x43x47,53x59x61,61x67x71,"
    "73x79x83,89x97x101,101x103x107,5x127x131,131x7x137,"
    /* non-multiples of the array */
    "9x9x9,10x14x18,15x33x65,33x15x129,100x3x1000,3x100x250,65x65x65,127x9x300,12x20x36,"
    "6x250x6,250x6x40,18x30x500,"
    /* multiples */
    "16x16x16,32x32x32,64x64x64,8x8x512,16x16x256,64x64x512,128x128x32,24x40x200,48x16x700,"
    /* scratchpad-filling: the 8x8 A bank holds 8192 k-steps, the 4x4 board's 1024 (B 512) */
    "8x8x8192,8x8x8200,16x8x4096,4x4x1024,4x4x1025,4x8x512,4x4x513,8x16x2048,512x512x4,"
    "256x256x8,300x40x24,40x300x24";

/* A shapes file: MxNxK separated by commas, blanks or newlines; # to end of
 * line is a comment. Returns a malloc'ed comma list or NULL. */
static char *read_shapes_file(const char *path)
{
    char *txt;
    size_t len;
    if (cli_read_file(path, &txt, &len))
        return NULL;
    char *out = malloc(len + 2), *o = out;
    if (!out) {
        free(txt);
        return NULL;
    }
    int comment = 0, sep = 1;
    for (size_t i = 0; i < len; i++) {
        char c = txt[i];
        if (c == '#')
            comment = 1;
        if (c == '\n')
            comment = 0;
        if (comment || c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (!sep)
                *o++ = ',';
            sep = 1;
            continue;
        }
        *o++ = c;
        sep = 0;
    }
    if (o > out && o[-1] == ',')
        o--;
    *o = 0;
    free(txt);
    return out;
}

typedef struct row {
    uint32_t m, n, k;
    int calib;                 /* used by the fit */
    spu_gemm_stats s;
    spu_perf_gemm g;           /* prediction (after calibration, if any) */
    /* simulators (spu_sim_time): the simulated board's time of the call */
    int has_sim;
    uint64_t sim_cycles, sim_bytes_in, sim_bytes_out;
    double sim_s, pred_sim_s;  /* measured, predicted (spu_perf_board_time) */
    uint32_t sim_cpb;          /* UART clocks per bit of the simulated link (0: byte port) */
} row;

/* one GEMM of a kind: spu_gemm_mx for the MX dtypes (with their scales),
 * spu_gemm_epi for the others */
static int run_kind(spu_device *dev, unsigned in, const spu_gemm_epilogue *ep, const uint32_t d[3],
                    const void *A, const uint8_t *SA, const void *B, const uint8_t *SB, void *C,
                    const spu_gemm_opts *go, spu_gemm_stats *s)
{
    if (SA)
        return spu_gemm_mx(dev, in, ep, d[0], d[1], d[2], A, SA, B, SB, C, go, s);
    return spu_gemm_epi(dev, in, ep, d[0], d[1], d[2], A, B, C, go, s);
}

static double rel(double pred, double meas) { return meas ? (pred - meas) / meas : 0; }

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median and max of |v| */
static void med_max(double *v, size_t n, double *med, double *max)
{
    *med = *max = 0;
    if (!n)
        return;
    for (size_t i = 0; i < n; i++)
        v[i] = fabs(v[i]);
    qsort(v, n, sizeof *v, cmp_dbl);
    *med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *max = v[n - 1];
}

/* Utilization of an ideal output-stationary ROWS x COLS array that pays the
 * fill/drain skew per output block and nothing else (no instructions, no
 * drain, no bank stalls): ceil(M/R) * ceil(N/C) blocks of K + R + C - 2
 * cycles each (docs/perf-model.md "Ideal output-stationary reference"). */
static uint64_t ideal_cycles(uint32_t m, uint32_t n, uint32_t k, uint32_t R, uint32_t C)
{
    return (uint64_t)((m + R - 1) / R) * ((n + C - 1) / C) * ((uint64_t)k + R + C - 2);
}
static double ideal_util(uint32_t m, uint32_t n, uint32_t k, uint32_t R, uint32_t C)
{
    return (double)m * n * k / ((double)ideal_cycles(m, n, k, R, C) * R * C);
}

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

static double now_wall(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Wall time of one run of the GEMM kernel with mb x nb blocks of kc steps,
 * every block on the same panels (panel and C strides 0): device time with
 * next to no link bytes. *cycles gets the CYCLES counter. */
static int probe_run(spu_device *dev, const spu_gemm_plan *p, uint32_t kc, uint32_t mb, uint32_t nb,
                     double *wall, uint64_t *cycles)
{
    const uint32_t args[SPU_NARGS] = { p->a_base, p->b_base, p->c_base, kc, mb, nb, 0, 0 };
    spu_status_t st;
    spu_counters_t c;
    const double t0 = now_wall();
    int rc = spu_run(dev, args, SPU_NARGS);
    if (!rc)
        rc = spu_wait(dev, 600000, &st);
    *wall = now_wall() - t0;
    if (!rc)
        rc = spu_counters(dev, &c);
    if (!rc)
        *cycles = c.v[SPU_CNT_CYCLES];
    return rc;
}

/* The device's speed in cycles per wall-clock second: a long run (about 2 M
 * cycles) against a one-step run, both through RUN and spu_wait, the
 * difference divided. A board gives its clock, a simulator its speed.
 * Also checks the long run's cycles against the model. */
static int measure_speed(spu_device *dev, const spu_info_t *info, const spu_perf_hw *hw, double *hz,
                         uint64_t *cyc_long, uint64_t *cyc_pred)
{
    spu_gemm_plan p;
    int rc = spu_gemm_plan_make(info, info->rows, info->cols, 1u << 24, &p);
    if (rc)
        return rc;
    const uint64_t per_block = (uint64_t)p.kc + info->rows + info->cols + 6;
    uint32_t side = 1;
    while ((uint64_t)side * side * per_block < 2000000 && side < 4096)
        side++;
    if ((rc = spu_load_program(dev, &spu_fw_gemm_int8)))
        return rc;
    double t_short = 1e30, t_long = 0, t;
    uint64_t c_short = 0, c;
    for (int i = 0; i < 3; i++) {   /* the fastest of three short runs */
        if ((rc = probe_run(dev, &p, 1, 1, 1, &t, &c)))
            return rc;
        if (t < t_short) {
            t_short = t;
            c_short = c;
        }
    }
    if ((rc = probe_run(dev, &p, p.kc, side, side, &t_long, cyc_long)))
        return rc;
    *cyc_pred = spu_perf_gemm_piece_cycles(hw, side, side, p.kc, p.a_base, p.b_base, 0);
    *hz = t_long > t_short ? (double)(*cyc_long - c_short) / (t_long - t_short) : 0;
    return *hz > 0 ? 0 : SPU_EIO;
}

/* gnuplot setup of a measured-vs-predicted scatter plot (log axes, y = x) */
static void scatter_setup(char *buf, size_t cap, const char *device, const char *what, const char *xlabel,
                          const char *ylabel)
{
    snprintf(buf, cap,
             "set logscale xy\nset grid\nset key left top\nset size ratio -1\n"
             "set title 'spu bench gemm on %s: %s, measured vs predicted' noenhanced\n"
             "set xlabel '%s'\nset ylabel '%s'\n", device, what, xlabel, ylabel);
}

static int write_plots(const char *dir, const row *rows, size_t n, const spu_perf_hw *hw,
                       const char *device)
{
    if (perf_plot_dir(dir))
        return -1;
    FILE *f = perf_plot_open(dir, "bench", "dat");
    if (!f)
        return -1;
    fprintf(f, "# m n k cycles pred_cycles wall_s pred_wall_s link_bytes pred_link_bytes ops_per_link_byte ops_per_s calib"
               " sim_s pred_sim_s (simulators; NaN otherwise)\n");
    int any_sim = 0;
    for (size_t i = 0; i < n; i++) {
        const row *r = &rows[i];
        fprintf(f, "%u %u %u %" PRIu64 " %" PRIu64 " %.6g %.6g %" PRIu64 " %" PRIu64 " %.6g %.6g %d", r->m,
                r->n, r->k, r->s.cycles, r->g.cycles, r->s.wall_s, r->g.wall_s, r->s.link_bytes,
                r->g.link_bytes, r->s.link_bytes ? 2.0 * (double)r->s.macs / (double)r->s.link_bytes : r->g.intensity,
                2.0 * (double)r->s.macs / r->s.wall_s, r->calib);
        fprintf(f, " %.9g %.9g\n", r->has_sim ? r->sim_s : NAN, r->has_sim ? r->pred_sim_s : NAN);
        any_sim |= r->has_sim;
    }
    if (fclose(f))
        return -1;
    char setup[1024];
    scatter_setup(setup, sizeof setup, device, "device cycles", "predicted cycles (analytical model)",
                  "measured cycles (CYCLES counter)");
    if (perf_plot_run(dir, "cycles", setup,
                      "plot x with lines lw 1 title 'exact', 'bench.dat' using 5:4 with points pt 7 title 'shapes'"))
        return -1;
    scatter_setup(setup, sizeof setup, device, "wall time", "predicted s", "measured s");
    if (perf_plot_run(dir, "wall", setup,
                      "plot x with lines lw 1 title 'exact', "
                      "'bench.dat' using ($12==1?$7:1/0):6 with points pt 7 title 'calibration shapes', "
                      "'' using ($12==0?$7:1/0):6 with points pt 5 title 'held-out shapes'"))
        return -1;
    if (any_sim) {   /* simulated board time, measured vs predicted */
        scatter_setup(setup, sizeof setup, device, "simulated board time", "predicted s (board time)",
                      "simulated s (spu sim time)");
        if (perf_plot_run(dir, "sim", setup,
                          "plot x with lines lw 1 title 'exact', "
                          "'bench.dat' using ($12==1?$14:1/0):13 with points pt 7 title 'calibration shapes', "
                          "'' using ($12==0?$14:1/0):13 with points pt 5 title 'held-out shapes'"))
            return -1;
    }
    if (!(hw->link_bytes_per_s > 0))
        return 0;   /* no link (the model device): no link roof to draw */
    /* wall-clock roofline: compute roof at wall_clock_hz, the link roof */
    const double peak = (hw->pair ? 4.0 : 2.0) * hw->rows * hw->cols *   /* pairs: two k-steps a cycle */
                        (hw->wall_clock_hz > 0 ? hw->wall_clock_hz : hw->clock_hz);
    snprintf(setup, sizeof setup,
             "set logscale xy\nset grid\nset key left top\n"
             "set title 'roofline of %s (wall clock): int8 ops/s vs ops per link byte' noenhanced\n"
             "set xlabel 'arithmetic intensity (int8 ops / link byte)'\nset ylabel 'ops / s (wall clock)'\n"
             "peak = %.6g\nbw = %.6g\nroof(x) = (x * bw < peak) ? x * bw : peak\nset samples 1000\n"
             "set xrange [0.01:1000]\n",
             device, peak, hw->link_bytes_per_s);
    return perf_plot_run(dir, "roofline", setup,
                         "plot roof(x) with lines lw 2 title 'roofline (calibrated link, sim speed)', "
                         "'bench.dat' using 10:11 with points pt 7 title 'measured'");
}

void cli_bench_json_header(cJSON *root, const char *device, const spu_info_t *info)
{
    if (device)
        cJSON_AddStringToObject(root, "device", device);
    if (info) {
        cJSON_AddNumberToObject(root, "rows", info->rows);
        cJSON_AddNumberToObject(root, "cols", info->cols);
        cJSON_AddNumberToObject(root, "word_bytes", info->word_bytes);
        cJSON_AddNumberToObject(root, "spad_bytes", info->spad_bytes);
        cJSON_AddNumberToObject(root, "spad_banks", info->spad_banks);
        cJSON_AddNumberToObject(root, "ucode_words", info->ucode_words);
        cJSON_AddNumberToObject(root, "drain_lanes", info->drain_lanes);
        cJSON_AddNumberToObject(root, "clock_hz", info->clock_hz);
        cJSON_AddNumberToObject(root, "link_baud", info->link_baud);
        cJSON_AddNumberToObject(root, "isa_hash", info->isa_hash);
    }
    cJSON_AddNumberToObject(root, "host_isa_hash", spu_isa_hash());
    cJSON_AddStringToObject(root, "commit", spu_perf_git_commit());
}

int spu_bench_gemm(int argc, char **argv)
{
    static const struct option opts[] = {
        { "device", required_argument, 0, 'd' }, { "shapes", required_argument, 0, 's' },
        { "json", no_argument, 0, 'j' },         { "help", no_argument, 0, 'h' },
        { "sweep", no_argument, 0, 'S' },        { "calibrate", required_argument, 0, 'c' },
        { "csv", required_argument, 0, 'v' },    { "plot", required_argument, 0, 'p' },
        { "hw", required_argument, 0, 'w' },     { "reps", required_argument, 0, 'r' },
        { "dtype", required_argument, 0, 't' },  { "out", required_argument, 0, 'o' },
        { "bias", no_argument, 0, 'b' },         { 0, 0, 0, 0 },
    };
    const char *in_key = "int8", *out_key = NULL;
    int bias = 0;
    const char *device = cli_default_device(), *shapes = default_shapes;
    const char *calib_out = NULL, *csv = NULL, *plot = NULL, *hwfile = NULL, *shapes_arg = NULL;
    int json = 0, sweep = 0, c;
    uint64_t reps = 1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 's': shapes_arg = optarg; break;
        case 'j': json = 1; break;
        case 'S': sweep = 1; break;
        case 'c': calib_out = optarg; break;
        case 'v': csv = optarg; break;
        case 'p': plot = optarg; break;
        case 'w': hwfile = optarg; break;
        case 'r':
            if (cli_parse_u64(optarg, &reps) || reps == 0 || reps > 100)
                return cli_usage_error("bench gemm", "--reps wants 1..100, got '%s'", optarg);
            break;
        case 't': in_key = optarg; break;
        case 'o': out_key = optarg; break;
        case 'b': bias = 1; break;
        case 'h': fputs(usage, stdout); return 0;
        default: return cli_usage_error("bench gemm", "bad option");
        }
    }
    if (optind < argc)
        return cli_usage_error("bench gemm", "unexpected argument '%s'", argv[optind]);
    const spu_dtype_desc *ind = spu_dtype_by_key(in_key);
    if (!ind || !ind->array)
        return cli_usage_error("bench gemm", "--dtype %s: int8, e4m3, e5m2, bf16 or an MX dtype", in_key);
    if (!out_key)
        out_key = ind->code == SPU_DTYPE_INT8 ? "int32" : "f32";
    const spu_dtype_desc *od = spu_dtype_by_key(out_key);
    if (!od || (od->code == SPU_DTYPE_INT32 && ind->code != SPU_DTYPE_INT8))
        return cli_usage_error("bench gemm", "--out %s: int32 (int8 in only), int8, f32, bf16, f16, e4m3, e5m2",
                               out_key);
    const spu_perf_gemm_kind kind = { ind->code, od->code, bias, 0 };
    const int epi = ind->code != SPU_DTYPE_INT8 || od->code != SPU_DTYPE_INT32 || bias;
    const int mxk = cli_mx_fmt((int)ind->code) >= 0;     /* an MX dtype: spu_gemm_mx */
    if (epi && calib_out)
        return cli_usage_error("bench gemm", "--calibrate fits the int8 GEMM: drop --dtype, --out and --bias");
    char *file_shapes = NULL;
    if (sweep && shapes_arg)
        return cli_usage_error("bench gemm", "--sweep and --shapes exclude each other");
    if (sweep)
        shapes = sweep_shapes;
    if (shapes_arg) {
        shapes = shapes_arg;
        if (!strchr(shapes_arg, 'x') || fopen(shapes_arg, "r")) {   /* a file */
            FILE *probe = fopen(shapes_arg, "r");
            if (!probe)
                return cli_usage_error("bench gemm", "--shapes: no such file '%s'", shapes_arg);
            fclose(probe);
            file_shapes = read_shapes_file(shapes_arg);
            if (!file_shapes)
                return cli_usage_error("bench gemm", "--shapes: cannot read '%s'", shapes_arg);
            shapes = file_shapes;
        }
    }
    /* validate every shape before touching the device */
    size_t nshapes = 0;
    for (const char *p = shapes; *p; nshapes++) {
        uint32_t d[3];
        if (parse_shape(p, d)) {
            int rc = cli_usage_error("bench gemm", "--shapes wants MxNxK[,MxNxK...] with sizes 1..65536, got '%s'", p);
            free(file_shapes);
            return rc;
        }
        p = strchr(p, ',');
        p = p ? p + 1 : "";
    }
    if (nshapes == 0) {
        free(file_shapes);
        return cli_usage_error("bench gemm", "no shapes");
    }
    if (calib_out && nshapes < 10) {
        free(file_shapes);
        return cli_usage_error("bench gemm", "--calibrate needs at least 10 shapes (5 to fit, 5 to check), got %zu", nshapes);
    }
    spu_perf_hw hwf;
    char err[512] = "";
    if (hwfile && spu_perf_hw_load(&hwf, hwfile, err, sizeof err)) {
        free(file_shapes);
        return cli_fail("bench gemm", "%s", err);
    }
    spu_device *dev;
    int rc;
    if (cli_open_device("bench gemm", device, &dev)) {
        free(file_shapes);
        return 1;
    }
    spu_info_t info;
    spu_info(dev, &info);
    /* the model's view of this device: INFO, link/host from --hw */
    spu_perf_hw hw;
    spu_perf_hw_from_info(&hw, &info);
    if (hwfile) {
        if (!info.clock_hz)
            hw.clock_hz = hwf.clock_hz;
        hw.wall_clock_hz = hwf.wall_clock_hz;
        hw.link_bytes_per_s = hw.mem_bytes_per_s = hwf.link_bytes_per_s;
        hw.frame_overhead_s = hwf.frame_overhead_s;
        hw.txn_latency_s = hwf.txn_latency_s;
        hw.turnaround_s = hwf.turnaround_s;
        hw.host_s_per_piece = hwf.host_s_per_piece;
        hw.host_s_per_call = hwf.host_s_per_call;
    }
    /* what the device cannot run at all is an error, not a skipped shape
     * (spu_gemm_epi's SPU_ENOTSUP also means a K beyond one piece) */
    const char *lacks = epi ? spu_gemm_epi_lacks(&info, ind->code, od->code, bias) : NULL;
    if (lacks) {
        spu_close(dev);
        free(file_shapes);
        return cli_fail("bench gemm", "%s: --dtype %s --out %s%s: %s", device, ind->key, od->key,
                        bias ? " --bias" : "", lacks);
    }
    const int off_model = strcmp(info.device, "model") != 0;
    row *rows = calloc(nshapes, sizeof *rows);
    if (!rows) {
        spu_close(dev);
        free(file_shapes);
        return cli_fail("bench gemm", "out of memory");
    }
    if (!json)
        printf("spu bench gemm on %s (%ux%u array)\n%-14s %6s %10s %10s %7s %7s %10s %8s %10s %7s\n", device, info.rows,
               info.cols, "shape", "pieces", "cycles", "model", "util", "ideal", "link B", "wall s", "predicted", "err %");
    int ret = 0;
    size_t nrows = 0;
    uint64_t seed = 1;
    for (const char *p = shapes; *p && ret == 0;) {
        uint32_t d[3];
        parse_shape(p, d);
        p = strchr(p, ',');
        p = p ? p + 1 : "";
        /* bf16: two bytes per element; MX: E8M0 scales beside the codes */
        const size_t eb = ind->code == SPU_DTYPE_BF16 ? 2 : 1, nblk = ((size_t)d[2] + 31) / 32;
        const size_t na = (size_t)d[0] * d[2] * eb, nb = (size_t)d[2] * d[1] * eb, nc = (size_t)d[0] * d[1];
        int8_t *A = malloc(na), *B = malloc(nb);
        int32_t *C = malloc(nc * 4), *R = malloc(nc * 4);
        uint8_t *SA = mxk ? malloc((size_t)d[0] * nblk) : NULL, *SB = mxk ? malloc(nblk * d[1]) : NULL;
        if (mxk && SA && SB) {   /* scales 2^-7 .. 2^6 */
            for (size_t i = 0; i < (size_t)d[0] * nblk; i++) SA[i] = (uint8_t)(120 + i % 14);
            for (size_t i = 0; i < nblk * d[1]; i++) SB[i] = (uint8_t)(121 + i % 13);
        }
        if (!A || !B || !C || !R || (mxk && (!SA || !SB))) {
            ret = cli_fail("bench gemm", "out of memory");
        } else {
            for (size_t i = 0; i < na; i++) A[i] = (int8_t)((seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 56);
            for (size_t i = 0; i < nb; i++) B[i] = (int8_t)((seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 56);
            spu_gemm_opts go = { off_model, 0 };
            spu_gemm_stats s;
            spu_sim_time_t t0, t1;   /* simulators: simulated time of the first run */
            const int simt = spu_sim_time(dev, &t0) == 0;
            double *bv = NULL;
            spu_gemm_epilogue ep = { od->code, 0, 0, 0, SPU_ROUND_RNE, NULL };
            if (epi) {   /* codes finite in every format; a small integer bias */
                for (size_t i = 0; i < na; i++) A[i] = (int8_t)(A[i] & 0x77);
                for (size_t i = 0; i < nb; i++) B[i] = (int8_t)(B[i] & 0x77);
                if (bias && (bv = malloc(d[1] * sizeof *bv)) != NULL)
                    for (uint32_t j = 0; j < d[1]; j++) bv[j] = (double)((int)(j % 7) - 3);
                ep.bias = bv;
            }
            rc = epi ? (bias && !bv ? SPU_ENOMEM : run_kind(dev, ind->code, &ep, d, A, SA, B, SB, C, &go, &s))
                     : spu_gemm_i8(dev, d[0], d[1], d[2], A, B, C, &go, &s);
            if (epi && rc == SPU_ENOTSUP) {   /* K beyond one piece: this output needs the whole sum */
                if (!json)
                    printf("%ux%ux%u skipped: K does not fit one scratchpad piece for out %s\n", d[0], d[1], d[2],
                           out_key);
                free(bv);
                free(A);
                free(B);
                free(C);
                free(R);
                free(SA);
                free(SB);
                continue;
            }
            const int simt_ok = simt && rc == 0 && spu_sim_time(dev, &t1) == 0;
            /* --reps: the fastest of N runs (a shared machine's scheduling
             * noise only ever adds time); the counters are the same each run */
            for (uint64_t rep = 1; rc == 0 && rep < reps; rep++) {
                spu_gemm_stats s2;
                rc = epi ? run_kind(dev, ind->code, &ep, d, A, SA, B, SB, C, &go, &s2)
                         : spu_gemm_i8(dev, d[0], d[1], d[2], A, B, C, &go, &s2);
                if (rc == 0 && s2.wall_s < s.wall_s)
                    s.wall_s = s2.wall_s;
            }
            if (rc) {
                ret = cli_fail("bench gemm", "%ux%ux%u on %s: %s", d[0], d[1], d[2], device, spu_strerror(rc));
            } else {
                /* spu_gemm_epi checked itself against the C model (rc) */
                if (!epi)
                    spu_gemm_i8_reference(d[0], d[1], d[2], A, B, R);
                const int exact = epi || memcmp(C, R, nc * 4) == 0;
                if (!off_model)
                    s.model_cycles = s.cycles;
                row *r = &rows[nrows];
                r->m = d[0];
                r->n = d[1];
                r->k = d[2];
                r->s = s;
                r->calib = nrows % 2 == 0;
                if (simt_ok) {
                    r->has_sim = 1;
                    r->sim_cycles = t1.cycles - t0.cycles;
                    r->sim_bytes_in = t1.bytes_in - t0.bytes_in;
                    r->sim_bytes_out = t1.bytes_out - t0.bytes_out;
                    r->sim_s = t1.seconds - t0.seconds;
                    r->sim_cpb = t1.clks_per_bit;
                }
                nrows++;
                spu_perf_gemm_predict_ex(&hw, &kind, d[0], d[1], d[2], &r->g);
                const double util = (double)s.macs / ((double)s.cycles * info.rows * info.cols);
                if (!json) {
                    char shape[40];
                    snprintf(shape, sizeof shape, "%ux%ux%u", d[0], d[1], d[2]);
                    printf("%-14s %6u %10" PRIu64 " %10" PRIu64 " %7.4f %7.4f %10" PRIu64 " %8.3f %10" PRIu64 " %7.3f%s\n",
                           shape, s.pieces, s.cycles, s.model_cycles, util,
                           ideal_util(d[0], d[1], d[2], info.rows, info.cols), s.link_bytes, s.wall_s,
                           r->g.cycles, 100 * rel((double)r->g.cycles, (double)s.cycles),
                           exact ? "" : "  MISMATCH");
                    fflush(stdout);
                }
                if (!exact)
                    ret = 1;
            }
            free(bv);
        }
        free(A);
        free(B);
        free(C);
        free(R);
        free(SA);
        free(SB);
    }
    const spu_perf_hw hw0 = hw;   /* before calibration: the board-time fit starts here */
    /* calibration on the even-numbered shapes, the device speed measured */
    double fit_rms = 0, speed_hz = 0;
    uint64_t probe_cycles = 0, probe_pred = 0;
    int fitted = 0;
    if (ret == 0 && calib_out) {
        rc = measure_speed(dev, &info, &hw, &speed_hz, &probe_cycles, &probe_pred);
        if (rc)
            ret = cli_fail("bench gemm", "device speed probe failed: %s", spu_strerror(rc));
        else
            hw.wall_clock_hz = speed_hz;
        if (!json && !rc)
            printf("device speed:  %.4g cycles/s (probe: %" PRIu64 " cycles, predicted %" PRIu64 ")\n",
                   speed_hz, probe_cycles, probe_pred);
    }
    if (ret == 0 && calib_out) {
        size_t nc = 0;
        spu_perf_sample *smp = calloc(nrows, sizeof *smp);
        for (size_t i = 0; smp && i < nrows; i++)
            if (rows[i].calib)
                smp[nc++] = (spu_perf_sample){ rows[i].m, rows[i].n, rows[i].k, rows[i].s.wall_s,
                                               rows[i].s.cycles, rows[i].s.link_bytes, rows[i].sim_s };
        rc = smp ? spu_perf_fit(&hw, smp, nc, 0, &fit_rms) : SPU_ENOMEM;
        free(smp);
        if (rc)
            ret = cli_fail("bench gemm", "calibration failed: %s", spu_strerror(rc));
        else
            fitted = 1;
        for (size_t i = 0; fitted && i < nrows; i++)
            spu_perf_gemm_predict(&hw, rows[i].m, rows[i].n, rows[i].k, &rows[i].g);
    }
    /* simulators: the link in board time (perf_link.c), fitted on the
     * simulated time of the even-numbered shapes, checked on the others */
    spu_perf_hw hwb = hw0;
    double sfit_rms = 0, s_med = 0, s_max = 0;
    size_t ns = 0, nsim = 0;
    int sfitted = 0;
    for (size_t i = 0; i < nrows; i++)
        nsim += rows[i].has_sim;
    /* without --hw, start from the simulated PHY's own rate: a UART's 10 bit
     * times per byte, or the byte port's one byte per clock */
    if (nsim && !hwfile && hwb.clock_hz > 0)
        hwb.link_bytes_per_s = hwb.mem_bytes_per_s =
            rows[0].sim_cpb ? hwb.clock_hz / (10.0 * rows[0].sim_cpb) : hwb.clock_hz;
    if (ret == 0 && calib_out && nsim == nrows) {
        size_t nc = 0;
        spu_perf_sample *smp = calloc(nrows, sizeof *smp);
        for (size_t i = 0; smp && i < nrows; i++)
            if (rows[i].calib)
                smp[nc++] = (spu_perf_sample){ rows[i].m, rows[i].n, rows[i].k, rows[i].s.wall_s,
                                               rows[i].s.cycles, rows[i].s.link_bytes, rows[i].sim_s };
        rc = smp ? spu_perf_fit_board(&hwb, smp, nc, &sfit_rms) : SPU_ENOMEM;
        free(smp);
        if (rc)
            ret = cli_fail("bench gemm", "calibration on simulated time failed: %s", spu_strerror(rc));
        else
            sfitted = 1;
    }
    if (nsim) {
        double *es = calloc(nrows, sizeof *es);
        for (size_t i = 0; es && i < nrows; i++) {
            if (!rows[i].has_sim)
                continue;
            spu_perf_gemm g;
            if (spu_perf_gemm_predict_ex(&hwb, &kind, rows[i].m, rows[i].n, rows[i].k, &g) == 0)
                rows[i].pred_sim_s = spu_perf_board_time(&hwb, &g);
            if (!sfitted || !rows[i].calib)
                es[ns++] = rel(rows[i].pred_sim_s, rows[i].sim_s);
        }
        if (es)
            med_max(es, ns, &s_med, &s_max);
        free(es);
    }
    /* a simulated board (its UART at the board's clock): the hardware file
     * describes the board -- its clock, the link as simulated time measured
     * it; the simulator process's wall-time fit goes in the record only */
    const int board_sim = sfitted && rows[0].sim_cpb > 0;
    const spu_perf_hw hw_wall = hw;
    if (board_sim) {
        hw.link_bytes_per_s = hw.mem_bytes_per_s = hwb.link_bytes_per_s;
        hw.turnaround_s = hwb.turnaround_s;
        hw.wall_clock_hz = hw.clock_hz;
        hw.txn_latency_s = hw0.txn_latency_s;
        hw.host_s_per_piece = hw0.host_s_per_piece;
        hw.host_s_per_call = hw0.host_s_per_call;
    }   /* else (the byte port's simulated time): the file keeps the wall-time fit */
    /* errors: cycles on every shape (the cycle model has no fitted parameter),
     * wall time on the shapes the fit did not see (all if no fit) */
    double *ec = calloc(nrows + 1, sizeof *ec), *ew = calloc(nrows + 1, sizeof *ew),
           *eb = calloc(nrows + 1, sizeof *eb);
    size_t nw = 0, nbytes = 0, nideal = 0;   /* nideal: shapes at or above the ideal array */
    for (size_t i = 0; i < nrows; i++)
        nideal += rows[i].s.cycles <= ideal_cycles(rows[i].m, rows[i].n, rows[i].k, info.rows, info.cols);
    for (size_t i = 0; ec && ew && eb && i < nrows; i++) {
        ec[i] = rel((double)rows[i].g.cycles, (double)rows[i].s.cycles);
        if (!fitted || !rows[i].calib)
            ew[nw++] = rel(rows[i].g.wall_s, rows[i].s.wall_s);
        if (rows[i].s.link_bytes)
            eb[nbytes++] = rel((double)rows[i].g.link_bytes, (double)rows[i].s.link_bytes);
    }
    double c_med = 0, c_max = 0, w_med = 0, w_max = 0, b_med = 0, b_max = 0;
    if (ec && ew && eb) {
        med_max(ec, nrows, &c_med, &c_max);
        med_max(ew, nw, &w_med, &w_max);
        med_max(eb, nbytes, &b_med, &b_max);
    }
    free(ec);
    free(ew);
    free(eb);
    if (ret == 0 && calib_out) {
        char extra[2048], simrec[768] = "";
        if (sfitted)
            snprintf(simrec, sizeof simrec,
                     ",\"sim_shapes_checked\":%zu,\"sim_fit_rms_rel\":%.6g,\"sim_median_err\":%.6g,"
                     "\"sim_max_err\":%.6g,\"sim_link_bytes_per_s\":%.8g,\"sim_turnaround_s\":%.6g,"
                     "\"simulator_wall_fit\":{\"wall_clock_hz\":%.6g,\"link_bytes_per_s\":%.6g,"
                     "\"txn_latency_s\":%.6g,\"host_s_per_piece\":%.6g,\"host_s_per_call\":%.6g}",
                     ns, sfit_rms, s_med, s_max, hwb.link_bytes_per_s, hwb.turnaround_s, hw_wall.wall_clock_hz,
                     hw_wall.link_bytes_per_s, hw_wall.txn_latency_s, hw_wall.host_s_per_piece,
                     hw_wall.host_s_per_call);
        snprintf(extra, sizeof extra,
                 "{\"calibration\":{\"device\":\"%s\",\"commit\":\"%s\",\"shapes_fit\":%zu,\"shapes_checked\":%zu,"
                 "\"fit_rms_rel\":%.6g,\"wall_median_err\":%.6g,\"wall_max_err\":%.6g,"
                 "\"cycles_median_err\":%.6g,\"cycles_max_err\":%.6g,\"isa_hash\":%u,"
                 "\"speed_probe_cycles\":%" PRIu64 ",\"speed_probe_predicted\":%" PRIu64 "%s}}",
                 device, spu_perf_git_commit(), nrows - nw, nw, fit_rms, w_med, w_max, c_med, c_max,
                 info.isa_hash, probe_cycles, probe_pred, simrec);
        char nm[64];
        snprintf(hw.source, sizeof hw.source, "spu bench gemm --device %s --calibrate (commit %s)", device,
                 spu_perf_git_commit());
        snprintf(nm, sizeof nm, "%s", info.device);
        snprintf(hw.name, sizeof hw.name, "%s", nm);
        if (spu_perf_hw_save(&hw, calib_out, extra))
            ret = cli_fail("bench gemm", "cannot write '%s'", calib_out);
    }
    if (ret == 0 && csv) {
        FILE *f = strcmp(csv, "-") ? fopen(csv, "w") : stdout;
        if (!f) {
            ret = cli_fail("bench gemm", "cannot write '%s'", csv);
        } else {
            fprintf(f, "m,n,k,pieces,cycles,predicted_cycles,cycles_err,wall_s,predicted_wall_s,wall_err,"
                       "link_bytes,predicted_link_bytes,utilization,calibration,sim_cycles,sim_s,predicted_sim_s,sim_err\n");
            for (size_t i = 0; i < nrows; i++) {
                const row *r = &rows[i];
                fprintf(f, "%u,%u,%u,%u,%" PRIu64 ",%" PRIu64 ",%.6g,%.6g,%.6g,%.6g,%" PRIu64 ",%" PRIu64 ",%.6g,%d,",
                        r->m, r->n, r->k, r->s.pieces, r->s.cycles, r->g.cycles,
                        rel((double)r->g.cycles, (double)r->s.cycles), r->s.wall_s, r->g.wall_s,
                        rel(r->g.wall_s, r->s.wall_s), r->s.link_bytes, r->g.link_bytes,
                        (double)r->s.macs / ((double)r->s.cycles * info.rows * info.cols), fitted && r->calib);
                if (r->has_sim)   /* simulators only; empty otherwise */
                    fprintf(f, "%" PRIu64 ",%.9g,%.9g,%.6g\n", r->sim_cycles, r->sim_s, r->pred_sim_s,
                            rel(r->pred_sim_s, r->sim_s));
                else
                    fputs(",,,\n", f);
            }
            if (f != stdout && fclose(f))
                ret = cli_fail("bench gemm", "cannot write '%s'", csv);
        }
    }
    if (ret == 0 && plot && write_plots(plot, rows, nrows, &hw_wall, device))
        ret = cli_fail("bench gemm", "plots into '%s' failed", plot);
    if (json) {
        cJSON *root = cJSON_CreateObject(), *arr;
        cli_bench_json_header(root, device, &info);
        cJSON_AddStringToObject(root, "dtype", in_key);
        cJSON_AddStringToObject(root, "out", out_key);
        cJSON_AddBoolToObject(root, "bias", bias);
        /* int8 -> int32: every result against a plain C loop; the other kinds
         * against the C model piece by piece, 4-byte outs on a device only */
        cJSON_AddBoolToObject(root, "checked", !epi || off_model);
        cJSON_AddNumberToObject(root, "retries", cli_link_retries(dev));
        arr = cJSON_AddArrayToObject(root, "results");
        for (size_t i = 0; i < nrows; i++) {
            const row *r = &rows[i];
            const spu_gemm_stats *st = &r->s;
            cJSON *o = cJSON_CreateObject();
            cJSON_AddNumberToObject(o, "m", r->m);
            cJSON_AddNumberToObject(o, "n", r->n);
            cJSON_AddNumberToObject(o, "k", r->k);
            cJSON_AddBoolToObject(o, "bitexact", 1);
            cJSON_AddNumberToObject(o, "pieces", st->pieces);
            cJSON_AddNumberToObject(o, "cycles", (double)st->cycles);
            cJSON_AddNumberToObject(o, "model_cycles", (double)st->model_cycles);
            cJSON_AddNumberToObject(o, "predicted_cycles", (double)r->g.cycles);
            cJSON_AddNumberToObject(o, "cycles_err", rel((double)r->g.cycles, (double)st->cycles));
            cJSON_AddNumberToObject(o, "macs", (double)st->macs);
            cJSON_AddNumberToObject(o, "utilization", (double)st->macs / ((double)st->cycles * info.rows * info.cols));
            cJSON_AddNumberToObject(o, "ideal_utilization", ideal_util(r->m, r->n, r->k, info.rows, info.cols));
            cJSON_AddNumberToObject(o, "mac_active", (double)st->mac_active);
            cJSON_AddNumberToObject(o, "stall_drain", (double)st->stall_drain);
            cJSON_AddNumberToObject(o, "stall_bank", (double)st->stall_bank);
            cJSON_AddNumberToObject(o, "link_bytes", (double)st->link_bytes);
            cJSON_AddNumberToObject(o, "predicted_link_bytes", (double)r->g.link_bytes);
            cJSON_AddNumberToObject(o, "wall_s", st->wall_s);
            cJSON_AddNumberToObject(o, "predicted_wall_s", r->g.wall_s);
            cJSON_AddNumberToObject(o, "wall_err", rel(r->g.wall_s, st->wall_s));
            cJSON_AddBoolToObject(o, "calibration", fitted && r->calib);
            if (r->has_sim) {   /* simulators: the simulated board's time of the call */
                cJSON_AddNumberToObject(o, "sim_cycles", (double)r->sim_cycles);
                cJSON_AddNumberToObject(o, "sim_bytes", (double)(r->sim_bytes_in + r->sim_bytes_out));
                cJSON_AddNumberToObject(o, "sim_s", r->sim_s);
                cJSON_AddNumberToObject(o, "predicted_sim_s", r->pred_sim_s);
                cJSON_AddNumberToObject(o, "sim_err", rel(r->pred_sim_s, r->sim_s));
            }
            cJSON_AddItemToArray(arr, o);
        }
        cJSON *sm = cJSON_AddObjectToObject(root, "summary");
        cJSON_AddNumberToObject(sm, "shapes", (double)nrows);
        cJSON_AddNumberToObject(sm, "cycles_median_err", c_med);
        cJSON_AddNumberToObject(sm, "cycles_max_err", c_max);
        cJSON_AddNumberToObject(sm, "ideal_at_or_above", (double)nideal);
        cJSON_AddNumberToObject(sm, "wall_median_err", w_med);
        cJSON_AddNumberToObject(sm, "wall_max_err", w_max);
        cJSON_AddNumberToObject(sm, "wall_shapes_checked", (double)nw);
        cJSON_AddNumberToObject(sm, "link_bytes_median_err", b_med);
        cJSON_AddNumberToObject(sm, "link_bytes_max_err", b_max);
        cJSON_AddBoolToObject(sm, "calibrated", fitted);
        if (fitted) {   /* the wall-time fit */
            cJSON_AddNumberToObject(sm, "speed_probe_cycles", (double)probe_cycles);
            cJSON_AddNumberToObject(sm, "speed_probe_predicted", (double)probe_pred);
            cJSON_AddNumberToObject(sm, "wall_clock_hz", hw_wall.wall_clock_hz);
            cJSON_AddNumberToObject(sm, "link_bytes_per_s", hw_wall.link_bytes_per_s);
            cJSON_AddNumberToObject(sm, "txn_latency_s", hw_wall.txn_latency_s);
            cJSON_AddNumberToObject(sm, "host_s_per_piece", hw_wall.host_s_per_piece);
            cJSON_AddNumberToObject(sm, "host_s_per_call", hw_wall.host_s_per_call);
        }
        if (nsim) {   /* simulated time (simulators only) */
            cJSON_AddNumberToObject(sm, "sim_median_err", s_med);
            cJSON_AddNumberToObject(sm, "sim_max_err", s_max);
            cJSON_AddNumberToObject(sm, "sim_shapes_checked", (double)ns);
            cJSON_AddBoolToObject(sm, "sim_calibrated", sfitted);
            cJSON_AddNumberToObject(sm, "sim_link_bytes_per_s", hwb.link_bytes_per_s);
            cJSON_AddNumberToObject(sm, "sim_turnaround_s", hwb.turnaround_s);
        }
        char *txt = cJSON_PrintUnformatted(root);
        puts(txt ? txt : "{}");
        free(txt);
        cJSON_Delete(root);
    } else if (nrows) {
        printf("device cycles: median error %.3f %%, max %.3f %% over %zu shapes\n", 100 * c_med, 100 * c_max, nrows);
        printf("ideal array:   %zu of %zu shapes at or above its utilization (util >= ideal)\n", nideal, nrows);
        if (nbytes)
            printf("link bytes:    median error %.3f %%, max %.3f %%\n", 100 * b_med, 100 * b_max);
        printf("wall time:     median error %.2f %%, max %.2f %% over %zu %s shapes\n", 100 * w_med, 100 * w_max,
               nw, fitted ? "held-out" : hwfile ? "(parameters from --hw)" : "(uncalibrated)");
        if (fitted)
            printf("calibrated:    wall_clock_hz %.4g, link %.4g B/s, txn latency %.3g s, host %.3g s/piece + %.3g s/call%s\n",
                   hw_wall.wall_clock_hz, hw_wall.link_bytes_per_s, hw_wall.txn_latency_s, hw_wall.host_s_per_piece,
                   hw_wall.host_s_per_call, board_sim ? " (the simulator process)" : "");
        if (nsim)
            printf("simulated time: median error %.3f %%, max %.3f %% over %zu %s shapes\n", 100 * s_med, 100 * s_max,
                   ns, sfitted ? "held-out" : hwfile ? "(parameters from --hw)" : "(uncalibrated)");
        if (sfitted)
            printf("calibrated on simulated time: link %.6g B/s, turnaround %.3g s per transaction\n",
                   hwb.link_bytes_per_s, hwb.turnaround_s);
        if (fitted)
            printf("hardware file: %s%s\n", calib_out,
                   board_sim ? " (the board: its clock, the link from simulated time)" : "");
    }
    free(rows);
    free(file_shapes);
    spu_close(dev);
    return ret;
}
