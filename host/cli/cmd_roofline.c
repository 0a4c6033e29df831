/*
 * cmd_roofline.c -- `spu roofline gemm` (the analytical model of one GEMM on
 * an SPU configuration, optional SCALE-Sim v2 export) and `spu roofline
 * model` (prefill/decode roofline of a decoder transformer on any hardware
 * file). Nothing runs on a device: --device only reads its INFO.
 * docs/perf-model.md describes the model and every output field.
 */
#include "cli.h"
#include "perf_plot.h"
#include "spu/isa.h"
#include "spu/perf.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_top[] =
    "usage: spu roofline gemm  --m M --n N --k K [--dtype D] [--out D] [--bias] [--relu]\n"
    "                          [--device URI | --hw HW.json] [--json] [--export scalesim DIR]\n"
    "       spu roofline vec   --op OP (--n N [--broadcast] | --rows R --len L | --c C --h H --w W)\n"
    "                          [--device URI | --hw HW.json] [--json]\n"
    "       spu roofline model --config CFG.json --batch B --seq S --phase prefill|decode\n"
    "                          [--hw HW.json] [--weights FMT --acts FMT --kv FMT]\n"
    "                          [--json] [--csv FILE] [--plot DIR]\n";

static const char usage_gemm[] =
    "usage: spu roofline gemm --m M --n N --k K [--dtype D] [--out D] [--bias] [--relu]\n"
    "                         [--device URI | --hw HW.json] [--json] [--export scalesim DIR]\n"
    "Predicts a GEMM (spu gemm: spu_gemm_i8, or spu_gemm_epi with --dtype int8|e4m3|e5m2|bf16,\n"
    "or spu_gemm_mx with --dtype mxfp8_e4m3|mxfp8_e5m2|mxint8|mxfp6_e3m2|mxfp6_e2m3|mxfp4_e2m1:\n"
    "K + ceil(K/32) words, the E8M0 scale words in the link bytes),\n"
    "--out int32|int8|f32|bf16|f16|e4m3|e5m2 (default int32 for int8, else f32), --bias\n"
    "(firmware/gemm_bias.s), --relu) on an SPU configuration without\n"
    "running it: device cycles (exact, from docs/isa.md costs and the host's piece\n"
    "plan), device_s = cycles / clock, link bytes and link_s (stop-and-wait frames at\n"
    "the link rate plus per-transaction latency), host_s, total_s, the bound\n"
    "(compute | link), utilization = MACs / (cycles * rows * cols), and the roofline\n"
    "(peak int8 ops/s, link roof = ops per link byte * link rate).\n"
    "  --device URI  configuration from that device's INFO (nothing runs on it);\n"
    "                link parameters from --hw if given too, else a 3 Mbaud UART\n"
    "                (or the URI's baud=N)\n"
    "  --hw FILE     configuration and link from a hardware file (perf/hw/*.json)\n"
    "  neither       the default sim configuration (8x8, 12 MHz, 3 Mbaud)\n"
    "  --export scalesim DIR  also write DIR/spu.cfg and DIR/gemm.csv for SCALE-Sim v2\n";

static const char usage_vec[] =
    "usage: spu roofline vec --op OP (--n N [--broadcast] | --rows R --len L | --c C --h H --w W)\n"
    "                        [--device URI | --hw HW.json] [--json]\n"
    "Predicts a vector kernel (spu/vector.h) without running it: device cycles (exact,\n"
    "from the costs of hw/isa and the host's pieces), link bytes and time, as roofline gemm.\n"
    "  --op add|sub|mul|max|lut --n N [--broadcast]   spu_vec_map over N elements\n"
    "  --op rmax|rsum|rmaxsum --rows R --len L       spu_vec_rows (max, sum or both)\n"
    "  --op maxpool2 --c C --h H --w W               spu_vec_maxpool2_hwc (HWC int8)\n";

static const char usage_model[] =
    "usage: spu roofline model --config CFG.json --batch B --seq S --phase prefill|decode\n"
    "                          [--hw HW.json] [--weights FMT --acts FMT --kv FMT]\n"
    "                          [--json] [--csv FILE] [--plot DIR]\n"
    "Roofline of a decoder transformer (Hugging Face style config.json: hidden_size,\n"
    "num_hidden_layers, num_attention_heads, num_key_value_heads, intermediate_size,\n"
    "vocab_size; GPT-2 names too) for one phase: prefill of S tokens per sequence,\n"
    "or decode of one token per sequence with S tokens of context. Per operator:\n"
    "FLOPs, bytes (weights, activations, KV cache), intensity, time = max(FLOPs /\n"
    "peak, bytes / memory roof), bound; phase totals; KV-cache bytes. Formats:\n"
    "int8 int4 fp8 e4m3 e5m2 bf16 fp16 fp32 mxfp8 mxfp6 mxfp4 (default int8; compute\n"
    "runs in --acts). --hw defaults to the sim configuration (memory roof: the link).\n";

static int parse_u32_opt(const char *cmd, const char *name, const char *s, uint32_t *v)
{
    uint64_t x;
    if (cli_parse_u64(s, &x) || x == 0 || x > 1048576)
        return cli_usage_error(cmd, "--%s wants an integer 1..1048576, got '%s'", name, s);
    *v = (uint32_t)x;
    return 0;
}

/* Link rate of a serial URI's baud=N (8N1: N/10 bytes/s); 0 if none. */
static double uri_baud_rate(const char *uri)
{
    const char *b = strstr(uri, "baud=");
    if (!b)
        return 0;
    uint64_t v;
    char num[24];
    size_t n = strcspn(b + 5, "&");
    if (n == 0 || n >= sizeof num)
        return 0;
    memcpy(num, b + 5, n);
    num[n] = 0;
    return cli_parse_u64(num, &v) || v == 0 ? 0 : (double)v / 10.0;
}

/* The configuration of --device (INFO; link from --hw if given), --hw, or
 * the default sim. 0 or the CLI's exit code after printing the error. */
static int roofline_hw(const char *C, const char *device, const char *hwfile, spu_perf_hw *hw)
{
    int rc;
    char err[512] = "";
    if (hwfile && (rc = spu_perf_hw_load(hw, hwfile, err, sizeof err)))
        return cli_fail(C, "%s", err);
    if (hwfile && strcmp(hw->kind, "spu"))
        return cli_fail(C, "%s is a \"%s\" hardware file; kernel prediction needs an SPU configuration "
                        "(spu roofline model takes any)", hwfile, hw->kind);
    if (device) {
        spu_device *dev;
        if ((rc = spu_open(&dev, device)))
            return cli_fail(C, "cannot open device '%s': %s", device, spu_strerror(rc));
        spu_info_t in;
        rc = spu_info(dev, &in);
        spu_close(dev);
        if (rc)
            return cli_fail(C, "INFO of '%s': %s", device, spu_strerror(rc));
        spu_perf_hw link = *hw;
        spu_perf_hw_from_info(hw, &in);
        if (hwfile) {   /* link and host from the file; the clock if INFO has none */
            if (!in.clock_hz)
                hw->clock_hz = link.clock_hz;
            hw->wall_clock_hz = link.wall_clock_hz;
            hw->link_bytes_per_s = hw->mem_bytes_per_s = link.link_bytes_per_s;
            hw->frame_overhead_s = link.frame_overhead_s;
            hw->txn_latency_s = link.txn_latency_s;
            hw->host_s_per_piece = link.host_s_per_piece;
            hw->host_s_per_call = link.host_s_per_call;
        }
        double r = uri_baud_rate(device);
        if (r > 0)
            hw->link_bytes_per_s = hw->mem_bytes_per_s = r;
    } else if (!hwfile) {
        spu_perf_hw_default(hw);
    }
    return 0;
}

int spu_roofline_gemm(int argc, char **argv)
{
    static const struct option opts[] = {
        { "m", required_argument, 0, 'm' },      { "n", required_argument, 0, 'n' },
        { "k", required_argument, 0, 'k' },      { "dtype", required_argument, 0, 't' },
        { "device", required_argument, 0, 'd' }, { "hw", required_argument, 0, 'w' },
        { "json", no_argument, 0, 'j' },         { "export", required_argument, 0, 'x' },
        { "out", required_argument, 0, 'o' },    { "bias", no_argument, 0, 'b' },
        { "relu", no_argument, 0, 'r' },         { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *C = "roofline gemm";
    const char *outs = NULL;
    int bias = 0, relu = 0;
    uint32_t M = 0, N = 0, K = 0;
    const char *dtype = "int8", *device = NULL, *hwfile = NULL, *export_fmt = NULL;
    int json = 0, c, rc;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'm': if ((rc = parse_u32_opt(C, "m", optarg, &M))) return rc; break;
        case 'n': if ((rc = parse_u32_opt(C, "n", optarg, &N))) return rc; break;
        case 'k': if ((rc = parse_u32_opt(C, "k", optarg, &K))) return rc; break;
        case 't': dtype = optarg; break;
        case 'd': device = optarg; break;
        case 'w': hwfile = optarg; break;
        case 'j': json = 1; break;
        case 'x': export_fmt = optarg; break;
        case 'o': outs = optarg; break;
        case 'b': bias = 1; break;
        case 'r': relu = 1; break;
        case 'h': fputs(usage_gemm, stdout); return 0;
        default: return cli_usage_error(C, "bad option (spu roofline gemm --help)");
        }
    }
    const char *export_dir = NULL;
    if (export_fmt) {
        if (strcmp(export_fmt, "scalesim"))
            return cli_usage_error(C, "--export knows only 'scalesim', got '%s'", export_fmt);
        if (optind >= argc)
            return cli_usage_error(C, "--export scalesim wants a folder: --export scalesim DIR");
        export_dir = argv[optind++];
    }
    if (optind < argc)
        return cli_usage_error(C, "unexpected argument '%s'", argv[optind]);
    if (!M || !N || !K)
        return cli_usage_error(C, "--m, --n and --k are required");
    const spu_dtype_desc *ind = spu_dtype_by_key(dtype);
    if (!ind || !ind->array)
        return cli_usage_error(C, "--dtype %s: the SPU array takes int8, e4m3, e5m2, bf16 or an MX dtype "
                               "(mxfp8_e4m3 mxfp8_e5m2 mxint8 mxfp6_e3m2 mxfp6_e2m3 mxfp4_e2m1); "
                               "use spu roofline model for other formats", dtype);
    if (!outs)
        outs = ind->code == SPU_DTYPE_INT8 ? "int32" : "f32";
    const spu_dtype_desc *od = spu_dtype_by_key(outs);
    if (!od || (od->code == SPU_DTYPE_INT32 && ind->code != SPU_DTYPE_INT8))
        return cli_usage_error(C, "--out %s: int32 (int8 in only), int8, f32, bf16, f16, e4m3 or e5m2", outs);
    const spu_perf_gemm_kind kind = { ind->code, od->code, bias, relu };
    spu_perf_hw hw;
    if ((rc = roofline_hw(C, device, hwfile, &hw)))
        return rc;
    spu_perf_gemm g;
    if ((rc = spu_perf_gemm_predict_ex(&hw, &kind, M, N, K, &g)))
        return cli_fail(C, "%ux%ux%u %s -> %s%s on %s: %s%s", M, N, K, dtype, outs, bias ? " with bias" : "",
                        hw.name, spu_strerror(rc),
                        rc == SPU_ENOTSUP && K > 1 ? " (this output needs K in one scratchpad piece)" : "");
    /* SCALE-Sim streams the array steps the SPU streams: K + ceil(K/32) for
     * MX, 2K for bf16 (the perf model's count; docs/perf-model.md) */
    const uint64_t ksteps = spu_perf_gemm_k_words(ind->code, K);
    const uint64_t ss = spu_perf_scalesim_cycles(&hw, M, N, (uint32_t)ksteps);
    if (export_dir && (rc = spu_perf_export_scalesim(&hw, M, N, (uint32_t)ksteps, export_dir)))
        return cli_fail(C, "cannot write SCALE-Sim files into '%s': %s", export_dir, spu_strerror(rc));
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "m", M);
        cJSON_AddNumberToObject(o, "n", N);
        cJSON_AddNumberToObject(o, "k", K);
        cJSON_AddStringToObject(o, "dtype", dtype);
        cJSON_AddStringToObject(o, "out", outs);
        cJSON_AddBoolToObject(o, "bias", bias);
        cJSON_AddBoolToObject(o, "relu", relu);
        cJSON_AddStringToObject(o, "hw", hw.name);
        cJSON_AddNumberToObject(o, "rows", hw.rows);
        cJSON_AddNumberToObject(o, "cols", hw.cols);
        cJSON_AddNumberToObject(o, "clock_hz", hw.clock_hz);
        cJSON_AddNumberToObject(o, "link_bytes_per_s", hw.link_bytes_per_s);
        cJSON_AddNumberToObject(o, "cycles", (double)g.cycles);
        cJSON_AddNumberToObject(o, "device_s", g.device_s);
        cJSON_AddNumberToObject(o, "link_s", g.link_s);
        cJSON_AddNumberToObject(o, "host_s", g.host_s);
        cJSON_AddNumberToObject(o, "total_s", g.total_s);
        cJSON_AddNumberToObject(o, "board_s", g.board_s);
        cJSON_AddStringToObject(o, "bound", g.bound);
        cJSON_AddNumberToObject(o, "utilization", g.utilization);
        cJSON_AddNumberToObject(o, "link_bytes", (double)g.link_bytes);
        cJSON_AddNumberToObject(o, "payload_bytes", (double)g.payload_bytes);
        cJSON_AddNumberToObject(o, "transactions", (double)g.transactions);
        cJSON_AddNumberToObject(o, "pieces", (double)g.pieces);
        cJSON_AddNumberToObject(o, "macs", (double)g.macs);
        cJSON_AddNumberToObject(o, "intensity_ops_per_byte", g.intensity);
        cJSON_AddNumberToObject(o, "peak_ops_s", g.peak_ops_s);
        cJSON_AddNumberToObject(o, "roof_ops_s", g.roof_ops_s);
        cJSON_AddNumberToObject(o, "k_steps", (double)ksteps);
        cJSON_AddNumberToObject(o, "scalesim_cycles", (double)ss);
        if (export_dir)
            cJSON_AddStringToObject(o, "scalesim_dir", export_dir);
        char *t = cJSON_PrintUnformatted(o);
        puts(t ? t : "{}");
        free(t);
        cJSON_Delete(o);
        return 0;
    }
    printf("gemm %ux%ux%u %s -> %s%s%s on %s (%ux%u array, %u KiB scratchpad in %u banks, %.3f MHz, link %.0f B/s)\n",
           M, N, K, dtype, outs, bias ? " bias" : "", relu ? " relu" : "", hw.name, hw.rows, hw.cols, hw.spad_bytes / 1024, hw.spad_banks, hw.clock_hz / 1e6,
           hw.link_bytes_per_s);
    printf("cycles       %" PRIu64 " (%" PRIu64 " pieces; SCALE-Sim os: %" PRIu64 ")\n", g.cycles, g.pieces, ss);
    printf("device_s     %.6g\n", g.device_s);
    printf("link_bytes   %" PRIu64 " (%" PRIu64 " payload, %" PRIu64 " transactions)\n", g.link_bytes,
           g.payload_bytes, g.transactions);
    printf("link_s       %.6g\n", g.link_s);
    printf("host_s       %.6g\n", g.host_s);
    printf("total_s      %.6g\n", g.total_s);
    printf("board_s      %.6g (a board clock that stops while it waits for the host: sim?board=)\n", g.board_s);
    printf("bound        %s\n", g.bound);
    printf("utilization  %.4f\n", g.utilization);
    printf("roofline     %.4g ops/byte; peak %.4g ops/s, link roof %.4g ops/s -> %.4g ops/s\n",
           g.intensity, g.peak_ops_s, g.intensity * hw.link_bytes_per_s, g.roof_ops_s);
    if (export_dir)
        printf("scalesim     %s/spu.cfg %s/gemm.csv (python3 scale.py -c %s/spu.cfg -t %s/gemm.csv -i gemm)\n",
               export_dir, export_dir, export_dir, export_dir);
    return 0;
}

int spu_roofline_vec(int argc, char **argv)
{
    static const struct option opts[] = {
        { "op", required_argument, 0, 'o' },     { "n", required_argument, 0, 'n' },
        { "broadcast", no_argument, 0, 'b' },    { "rows", required_argument, 0, 'R' },
        { "len", required_argument, 0, 'L' },    { "c", required_argument, 0, 'c' },
        { "h", required_argument, 0, 'H' },      { "w", required_argument, 0, 'W' },
        { "device", required_argument, 0, 'd' }, { "hw", required_argument, 0, 'w' },
        { "json", no_argument, 0, 'j' },         { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *C = "roofline vec";
    const char *op = NULL, *device = NULL, *hwfile = NULL;
    uint32_t n = 0, rows = 0, len = 0, ch = 0, hh = 0, ww = 0;
    int bc = 0, json = 0, c, rc;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'o': op = optarg; break;
        case 'n': if ((rc = parse_u32_opt(C, "n", optarg, &n))) return rc; break;
        case 'b': bc = 1; break;
        case 'R': if ((rc = parse_u32_opt(C, "rows", optarg, &rows))) return rc; break;
        case 'L': if ((rc = parse_u32_opt(C, "len", optarg, &len))) return rc; break;
        case 'c': if ((rc = parse_u32_opt(C, "c", optarg, &ch))) return rc; break;
        case 'H': if ((rc = parse_u32_opt(C, "h", optarg, &hh))) return rc; break;
        case 'W': if ((rc = parse_u32_opt(C, "w", optarg, &ww))) return rc; break;
        case 'd': device = optarg; break;
        case 'w': hwfile = optarg; break;
        case 'j': json = 1; break;
        case 'h': fputs(usage_vec, stdout); return 0;
        default: return cli_usage_error(C, "bad option (spu roofline vec --help)");
        }
    }
    if (optind < argc)
        return cli_usage_error(C, "unexpected argument '%s'", argv[optind]);
    static const char *const maps[] = { "add", "sub", "mul", "max", NULL, NULL, "lut" };
    int mop = -1, kind;
    for (int i = 0; i < 7; i++)
        if (op && maps[i] && !strcmp(op, maps[i]))
            mop = i;
    if (!op)
        return cli_usage_error(C, "--op is required (add sub mul max lut rmax rsum rmaxsum maxpool2)");
    if (mop >= 0)
        kind = 0;
    else if (!strcmp(op, "rmax") || !strcmp(op, "rsum") || !strcmp(op, "rmaxsum"))
        kind = 1;
    else if (!strcmp(op, "maxpool2"))
        kind = 2;
    else
        return cli_usage_error(C, "--op %s: one of add sub mul max lut rmax rsum rmaxsum maxpool2", op);
    if ((kind == 0 && !n) || (kind == 1 && (!rows || !len)) || (kind == 2 && (!ch || !hh || !ww)))
        return cli_usage_error(C, "--op %s wants %s", op,
                               kind == 0 ? "--n N" : kind == 1 ? "--rows R --len L" : "--c C --h H --w W");
    spu_perf_hw hw;
    if ((rc = roofline_hw(C, device, hwfile, &hw)))
        return rc;
    spu_perf_gemm g;
    rc = kind == 0 ? spu_perf_vec_map(&hw, mop, bc, n, &g)
       : kind == 1 ? spu_perf_vec_rows(&hw, rows, len, strcmp(op, "rsum") != 0, strcmp(op, "rmax") != 0, &g)
                   : spu_perf_vec_maxpool2(&hw, ch, hh, ww, &g);
    if (rc)
        return cli_fail(C, "%s on %s: %s (as the host kernel: a row within one piece; maxpool2: C a multiple "
                        "of the word, H and W even, two input rows within one piece)", op, hw.name,
                        spu_strerror(rc));
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "op", op);
        cJSON_AddStringToObject(o, "hw", hw.name);
        cJSON_AddNumberToObject(o, "clock_hz", hw.clock_hz);
        cJSON_AddNumberToObject(o, "link_bytes_per_s", hw.link_bytes_per_s);
        cJSON_AddNumberToObject(o, "cycles", (double)g.cycles);
        cJSON_AddNumberToObject(o, "runs", (double)g.pieces);
        cJSON_AddNumberToObject(o, "device_s", g.device_s);
        cJSON_AddNumberToObject(o, "link_bytes", (double)g.link_bytes);
        cJSON_AddNumberToObject(o, "payload_bytes", (double)g.payload_bytes);
        cJSON_AddNumberToObject(o, "transactions", (double)g.transactions);
        cJSON_AddNumberToObject(o, "link_s", g.link_s);
        cJSON_AddNumberToObject(o, "host_s", g.host_s);
        cJSON_AddNumberToObject(o, "total_s", g.total_s);
        cJSON_AddNumberToObject(o, "board_s", g.board_s);
        cJSON_AddStringToObject(o, "bound", g.bound);
        char *t = cJSON_PrintUnformatted(o);
        puts(t ? t : "{}");
        free(t);
        cJSON_Delete(o);
        return 0;
    }
    printf("vec %s on %s (%u-byte words, %u KiB scratchpad in %u banks, %.3f MHz, link %.0f B/s)\n", op, hw.name,
           hw.word_bytes, hw.spad_bytes / 1024, hw.spad_banks, hw.clock_hz / 1e6, hw.link_bytes_per_s);
    printf("cycles       %" PRIu64 " (%" PRIu64 " runs)\n", g.cycles, g.pieces);
    printf("device_s     %.6g\n", g.device_s);
    printf("link_bytes   %" PRIu64 " (%" PRIu64 " payload, %" PRIu64 " transactions)\n", g.link_bytes,
           g.payload_bytes, g.transactions);
    printf("link_s       %.6g\n", g.link_s);
    printf("total_s      %.6g\n", g.total_s);
    printf("bound        %s\n", g.bound);
    return 0;
}

int spu_roofline_model(int argc, char **argv)
{
    static const struct option opts[] = {
        { "config", required_argument, 0, 'c' },  { "batch", required_argument, 0, 'b' },
        { "seq", required_argument, 0, 's' },     { "phase", required_argument, 0, 'p' },
        { "hw", required_argument, 0, 'w' },      { "weights", required_argument, 0, 'W' },
        { "acts", required_argument, 0, 'A' },    { "kv", required_argument, 0, 'K' },
        { "json", no_argument, 0, 'j' },          { "csv", required_argument, 0, 'v' },
        { "plot", required_argument, 0, 'P' },    { "help", no_argument, 0, 'h' },
        { 0, 0, 0, 0 },
    };
    const char *C = "roofline model";
    const char *cfg = NULL, *phase = NULL, *hwfile = NULL, *csv = NULL, *plot = NULL;
    const char *wf = "int8", *af = "int8", *kf = "int8";
    uint32_t batch = 0, seq = 0;
    int json = 0, c, rc;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'c': cfg = optarg; break;
        case 'b': if ((rc = parse_u32_opt(C, "batch", optarg, &batch))) return rc; break;
        case 's': if ((rc = parse_u32_opt(C, "seq", optarg, &seq))) return rc; break;
        case 'p': phase = optarg; break;
        case 'w': hwfile = optarg; break;
        case 'W': wf = optarg; break;
        case 'A': af = optarg; break;
        case 'K': kf = optarg; break;
        case 'j': json = 1; break;
        case 'v': csv = optarg; break;
        case 'P': plot = optarg; break;
        case 'h': fputs(usage_model, stdout); return 0;
        default: return cli_usage_error(C, "bad option (spu roofline model --help)");
        }
    }
    if (optind < argc)
        return cli_usage_error(C, "unexpected argument '%s'", argv[optind]);
    if (!cfg || !batch || !seq || !phase)
        return cli_usage_error(C, "--config, --batch, --seq and --phase are required");
    if (strcmp(phase, "prefill") && strcmp(phase, "decode"))
        return cli_usage_error(C, "--phase is prefill or decode, got '%s'", phase);
    const char *fm[3] = { wf, af, kf }, *fn[3] = { "weights", "acts", "kv" };
    for (int i = 0; i < 3; i++)
        if (spu_perf_fmt_bytes(fm[i]) <= 0)
            return cli_usage_error(C, "--%s: unknown format '%s' (int8 int4 fp8 e4m3 e5m2 bf16 fp16 "
                                   "fp32 mxfp8 mxfp6 mxfp4)", fn[i], fm[i]);
    char err[512] = "";
    spu_perf_tconfig tc;
    if ((rc = spu_perf_tconfig_load(&tc, cfg, err, sizeof err)))
        return cli_fail(C, "%s", err);
    spu_perf_hw hw;
    if (hwfile) {
        if ((rc = spu_perf_hw_load(&hw, hwfile, err, sizeof err)))
            return cli_fail(C, "%s", err);
    } else {
        spu_perf_hw_default(&hw);
    }
    const int decode = !strcmp(phase, "decode");
    spu_perf_phase ph;
    rc = spu_perf_transformer(&tc, &hw, batch, seq, decode, wf, af, kf, &ph);
    if (rc == SPU_ENOTSUP)
        return cli_fail(C, "%s has no peak for computing in %s (peak_ops_per_s of the hardware file)",
                        hw.name, af);
    if (rc)
        return cli_fail(C, "%s", spu_strerror(rc));
    if (csv) {
        FILE *f = strcmp(csv, "-") ? fopen(csv, "w") : stdout;
        if (!f)
            return cli_fail(C, "cannot write '%s'", csv);
        fprintf(f, "op,count,flops,bytes,intensity,time_s,bound\n");
        for (int i = 0; i < ph.nops; i++)
            fprintf(f, "%s,%" PRIu64 ",%.6e,%.6e,%.6g,%.6e,%s\n", ph.ops[i].name, ph.ops[i].count,
                    ph.ops[i].flops, ph.ops[i].bytes, ph.ops[i].intensity, ph.ops[i].time_s, ph.ops[i].bound);
        fprintf(f, "total,,%.6e,%.6e,%.6g,%.6e,\n", ph.flops, ph.bytes, ph.flops / ph.bytes, ph.time_s);
        if (f != stdout && fclose(f))
            return cli_fail(C, "cannot write '%s'", csv);
    }
    const double peak = ph.peak_ops_s;
    if (plot) {
        if (perf_plot_dir(plot))
            return cli_fail(C, "cannot create '%s'", plot);
        FILE *f = perf_plot_open(plot, "roofline_model", "dat");
        if (!f)
            return cli_fail(C, "cannot write into '%s'", plot);
        fprintf(f, "# op intensity(flop/byte) attained(flop/s)\n");
        for (int i = 0; i < ph.nops; i++)
            fprintf(f, "%s %.6g %.6g\n", ph.ops[i].name, ph.ops[i].intensity,
                    ph.ops[i].flops / ph.ops[i].time_s);
        fclose(f);
        char setup[1024], body[1024];
        snprintf(setup, sizeof setup,
                 "set logscale xy\nset grid\nset key left top\n"
                 "set xlabel 'arithmetic intensity (FLOP / byte)'\nset ylabel 'attainable FLOP/s'\n"
                 "set title '%s %s, batch %u, seq %u on %s (weights %s, acts %s, kv %s)' noenhanced\n"
                 "peak = %.6g\nbw = %.6g\nroof(x) = (x * bw < peak) ? x * bw : peak\n"
                 "set xrange [0.05:100000]\nset samples 1000\n",
                 tc.name, phase, batch, seq, hw.name, wf, af, kf, peak, hw.mem_bytes_per_s);
        snprintf(body, sizeof body,
                 "plot roof(x) with lines lw 2 title 'roofline', "
                 "'roofline_model.dat' using 2:3 with points pt 7 ps 1.5 title 'operators', "
                 "'' using 2:3:1 with labels offset 0,1 font ',8' notitle noenhanced");
        if (perf_plot_run(plot, "roofline_model", setup, body))
            return 1;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "model", tc.name);
        cJSON_AddStringToObject(o, "hw", hw.name);
        cJSON_AddStringToObject(o, "phase", phase);
        cJSON_AddNumberToObject(o, "batch", batch);
        cJSON_AddNumberToObject(o, "seq", seq);
        cJSON_AddStringToObject(o, "weights", wf);
        cJSON_AddStringToObject(o, "acts", af);
        cJSON_AddStringToObject(o, "kv", kf);
        cJSON_AddNumberToObject(o, "peak_ops_s", peak);
        cJSON_AddNumberToObject(o, "mem_bytes_per_s", hw.mem_bytes_per_s);
        cJSON *a = cJSON_AddArrayToObject(o, "ops");
        for (int i = 0; i < ph.nops; i++) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "op", ph.ops[i].name);
            cJSON_AddNumberToObject(e, "count", (double)ph.ops[i].count);
            cJSON_AddNumberToObject(e, "flops", ph.ops[i].flops);
            cJSON_AddNumberToObject(e, "bytes", ph.ops[i].bytes);
            cJSON_AddNumberToObject(e, "intensity", ph.ops[i].intensity);
            cJSON_AddNumberToObject(e, "time_s", ph.ops[i].time_s);
            cJSON_AddStringToObject(e, "bound", ph.ops[i].bound);
            cJSON_AddItemToArray(a, e);
        }
        cJSON *t = cJSON_AddObjectToObject(o, "total");
        cJSON_AddNumberToObject(t, "flops", ph.flops);
        cJSON_AddNumberToObject(t, "bytes", ph.bytes);
        cJSON_AddNumberToObject(t, "time_s", ph.time_s);
        cJSON_AddNumberToObject(t, "tokens", ph.tokens);
        cJSON_AddNumberToObject(t, "tokens_per_s", ph.tokens / ph.time_s);
        cJSON_AddNumberToObject(t, "kv_cache_bytes", ph.kv_cache_bytes);
        cJSON_AddNumberToObject(t, "weight_bytes", ph.weight_bytes);
        char *txt = cJSON_PrintUnformatted(o);
        puts(txt ? txt : "{}");
        free(txt);
        cJSON_Delete(o);
        return 0;
    }
    if (csv && !strcmp(csv, "-"))
        return 0;
    printf("%s %s: batch %u, seq %u on %s (peak %.4g ops/s in %s, memory %.4g B/s); weights %s, acts %s, kv %s\n",
           tc.name, phase, batch, seq, hw.name, peak, af, hw.mem_bytes_per_s, wf, af, kf);
    printf("%-11s %6s %12s %12s %10s %12s %s\n", "op", "count", "FLOPs", "bytes", "FLOP/B", "time s", "bound");
    for (int i = 0; i < ph.nops; i++)
        printf("%-11s %6" PRIu64 " %12.4e %12.4e %10.3f %12.4e %s\n", ph.ops[i].name, ph.ops[i].count,
               ph.ops[i].flops, ph.ops[i].bytes, ph.ops[i].intensity, ph.ops[i].time_s, ph.ops[i].bound);
    printf("%-11s %6s %12.4e %12.4e %10.3f %12.4e\n", "total", "", ph.flops, ph.bytes, ph.flops / ph.bytes,
           ph.time_s);
    printf("tokens %.0f (%.4g tokens/s); weights %.4g bytes; KV cache %.4g bytes\n", ph.tokens,
           ph.tokens / ph.time_s, ph.weight_bytes, ph.kv_cache_bytes);
    return 0;
}

int spu_cmd_roofline(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_top, stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        fputs(usage_top, stdout);
        return 0;
    }
    int rc = cli_subcommand_run("roofline", argc, argv);   /* commands.def's rows */
    if (rc >= 0)
        return rc;
    fprintf(stderr, "spu roofline: unknown target '%s' (gemm, model)\n", argv[1]);
    fputs(usage_top, stderr);
    return 2;
}
