/*
 * cmd_infer.c -- `spu infer`: run a trained network (graph + .npy weights) on
 * Fashion-MNIST test images on a device and report accuracy and cost.
 */
#include "cli.h"
#include "spu/runtime.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char usage[] =
    "usage: spu infer --model fmnist-mlp|fmnist-cnn|fmnist-vit|GRAPH.json\n"
    "                 [--device URI] [--format int8|e4m3|e5m2|bf16|mxfp8_e4m3|..] [--images N]\n"
    "                 [--offset I]\n"
    "                 [--data DIR] [--json | --brief] [--layers]\n"
    "\n"
    "Runs the network on N Fashion-MNIST test images (from image I): every GEMM\n"
    "(dense, conv2d, patch embedding, attention's QK^T and P.V) on the device in\n"
    "the format F, the other ops on the host (listed as host_ops). Reports accuracy,\n"
    "the fp32 reference's accuracy and agreement on the same images, device cycles\n"
    "and link bytes per image. Off the model device the run is repeated on the\n"
    "reference model and must agree bit for bit (bitexact; exit 1 otherwise).\n"
    "\n"
    "  --model M      a shipped model (models/M/graph.json; $SPU_MODEL_DIR overrides\n"
    "                 the directory) or a graph file\n"
    "  --device URI   model (default, or $SPU_DEVICE), sim, serial:PATH?baud=N\n"
    "  --format F     int8 (default), e4m3 or e5m2 (OCP FP8: f32 results from the\n"
    "                 device), or bf16 / an MX format of the array's dtype table\n"
    "                 (mxfp8_e4m3, mxfp8_e5m2, mxint8, ...: 32-element blocks along K,\n"
    "                 f32 results); the device's INFO formats decide which it carries\n"
    "  --images N     test images (default: 10000 on model, 100 elsewhere)\n"
    "  --offset I     first test image (default 0)\n"
    "  --data DIR     idx files (default " SPU_FMNIST_DEFAULT_DIR ")\n"
    "  --json         one JSON object: model device format images accuracy\n"
    "                 fp32_accuracy fp32_agreement cycles_per_image\n"
    "                 link_bytes_per_image bitexact host_ops [layers] ...\n"
    "  --brief        one line: model format device images accuracy fp32 cycles\n"
    "                 link bytes bitexact (make run-infer's table)\n"
    "  --layers       per-node cycles, MACs and link bytes per image\n";

/* Formats the issue names that no device's array carries yet. */
static const char *const later_formats[] = {
    "fp16", "mxfp4", "int4", NULL   /* mxfp4: until the dtype table has mxfp4_e2m1 */
};

/* The operand formats of the dtype table (hw/isa/spu_cfg.def rows the array
 * multiplies), for the unknown-format message. */
static const char *array_formats(void)
{
    static const char *const keys[] = {
#define SPU_DTYPE(n, k, c, b, a) (a) ? k : NULL,
#include "spu_cfg.def"
    };
    static char list[256];
    size_t len = 0;
    list[0] = 0;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i] && len + strlen(keys[i]) + 3 < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", keys[i]);
    return list;
}

static int file_exists(const char *p) { return access(p, R_OK) == 0; }

/* models/NAME/graph.json: $SPU_MODEL_DIR, next to the source tree of this
 * binary (build/bin/../../models), the install prefix, ./models. */
static int resolve_model(const char *m, char *out, size_t cap)
{
    if (strchr(m, '/') || (strlen(m) > 5 && !strcmp(m + strlen(m) - 5, ".json"))) {
        snprintf(out, cap, "%s", m);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    char *s = strrchr(exe, '/');
    if (s)
        *s = 0;
    const char *env = getenv("SPU_MODEL_DIR");
    char cand[4][PATH_MAX + 64];
    int nc = 0;
    if (env && *env)
        snprintf(cand[nc++], sizeof cand[0], "%s/%s/graph.json", env, m);
    if (n > 0) {
        snprintf(cand[nc++], sizeof cand[0], "%s/../../models/%s/graph.json", exe, m);
        snprintf(cand[nc++], sizeof cand[0], "%s/../share/spu/models/%s/graph.json", exe, m);
    }
    snprintf(cand[nc++], sizeof cand[0], "models/%s/graph.json", m);
    for (int i = 0; i < nc; i++)
        if (strlen(cand[i]) < cap && file_exists(cand[i])) {
            memcpy(out, cand[i], strlen(cand[i]) + 1);
            return 0;
        }
    return -1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int spu_cmd_infer(int argc, char **argv)
{
    static const struct option opts[] = {
        { "model", required_argument, 0, 'm' },  { "device", required_argument, 0, 'd' },
        { "format", required_argument, 0, 'f' }, { "images", required_argument, 0, 'n' },
        { "offset", required_argument, 0, 'o' }, { "data", required_argument, 0, 'D' },
        { "json", no_argument, 0, 'j' },         { "layers", no_argument, 0, 'l' },
        { "brief", no_argument, 0, 'b' },
        { "help", no_argument, 0, 'h' },         { 0, 0, 0, 0 },
    };
    const char *model = NULL, *device = cli_default_device(), *format = "int8", *data = NULL;
    uint64_t nimg = 0, offset = 0;
    int have_n = 0, json = 0, layers = 0, brief = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'm': model = optarg; break;
        case 'd': device = optarg; break;
        case 'f': format = optarg; break;
        case 'D': data = optarg; break;
        case 'j': json = 1; break;
        case 'l': layers = 1; break;
        case 'b': brief = 1; break;
        case 'n':
            if (cli_parse_u64(optarg, &nimg) || nimg == 0 || nimg > 1000000)
                return cli_usage_error("infer", "--images needs an integer >= 1, got '%s'", optarg);
            have_n = 1;
            break;
        case 'o':
            if (cli_parse_u64(optarg, &offset) || offset > 1000000)
                return cli_usage_error("infer", "--offset needs an integer >= 0, got '%s'", optarg);
            break;
        case 'h': fputs(usage, stdout); return 0;
        default: fputs(usage, stderr); return 2;
        }
    }
    if (optind < argc)
        return cli_usage_error("infer", "unexpected argument '%s'", argv[optind]);
    if (!model)
        return cli_usage_error("infer", "--model is required (fmnist-mlp, fmnist-cnn, fmnist-vit or a graph file)");
    const int fmt = spu_net_format_from_name(format);
    if (fmt < 0) {
        if (!strcmp(format, "fp32") || !strcmp(format, "f32"))
            return cli_fail("infer", "format %s is not a device format: the array multiplies int8, FP8, "
                            "bf16 or MX operands; every run reports the fp32 reference as fp32_accuracy", format);
        for (int i = 0; later_formats[i]; i++)
            if (!strcmp(format, later_formats[i]))
                return cli_fail("infer", "format %s is not carried by the array yet (not an operand dtype of "
                                "hw/isa/spu_cfg.def in this build)", format);
        return cli_usage_error("infer", "unknown format '%s' (%s)", format, array_formats());
    }
    char gpath[PATH_MAX + 64];
    if (resolve_model(model, gpath, sizeof gpath))
        return cli_fail("infer", "model '%s' not found (looked in $SPU_MODEL_DIR, next to the spu binary "
                        "and ./models; `make weights` regenerates them)", model);

    char err[512];
    spu_net *net = NULL;
    spu_dataset ds = { 0 };
    spu_device *dev = NULL, *ref = NULL;
    float *images = NULL, *lo_dev = NULL, *lo_ref = NULL, *lo_fp = NULL;
    spu_net_stats st = { 0 }, rst = { 0 };
    int ret = 1, rc;
    if ((rc = spu_net_load(&net, gpath, err, sizeof err))) {
        cli_fail("infer", "%s", err);
        goto out;
    }
    if (spu_net_input_size(net) != 28 * 28) {
        cli_fail("infer", "%s: input is %zu values, Fashion-MNIST images are 1x28x28", gpath,
                 spu_net_input_size(net));
        goto out;
    }
    if ((rc = spu_fmnist_load(data, "t10k", &ds, err, sizeof err))) {
        cli_fail("infer", "%s", err);
        goto out;
    }
    if ((rc = spu_open(&dev, device))) {
        cli_fail("infer", "cannot open device '%s': %s", device, spu_strerror(rc));
        goto out;
    }
    spu_info_t info;
    if ((rc = spu_info(dev, &info))) {
        cli_fail("infer", "%s: info: %s", device, spu_strerror(rc));
        goto out;
    }
    if (!(info.formats & (1u << spu_net_format_dtype((spu_net_format)fmt)))) {
        char have[64] = "";
        for (int f = 0; f < SPU_NET_FORMATS; f++)
            if (info.formats & (1u << spu_net_format_dtype((spu_net_format)f)))
                snprintf(have + strlen(have), sizeof have - strlen(have), "%s%s", have[0] ? " " : "",
                         spu_net_format_name((spu_net_format)f));
        cli_fail("infer", "device '%s' does not carry %s (INFO formats: %s)", device, format,
                 have[0] ? have : "none");
        goto out;
    }
    const int is_model = !strncmp(info.device, "model", 5);
    if (!have_n)
        nimg = is_model ? 10000 : 100;
    if (offset >= ds.count || nimg > ds.count - offset) {
        cli_fail("infer", "--offset %" PRIu64 " --images %" PRIu64 " is beyond the %u test images",
                 offset, nimg, ds.count);
        goto out;
    }
    const size_t N = (size_t)nimg, isz = 28 * 28, osz = spu_net_output_size(net);
    images = malloc(N * isz * sizeof *images);
    lo_dev = malloc(N * osz * sizeof *lo_dev);
    lo_fp = malloc(N * osz * sizeof *lo_fp);
    if (!is_model)
        lo_ref = malloc(N * osz * sizeof *lo_ref);
    if (!images || !lo_dev || !lo_fp || (!is_model && !lo_ref)) {
        cli_fail("infer", "out of memory");
        goto out;
    }
    for (size_t i = 0; i < N * isz; i++)
        images[i] = (float)ds.images[offset * isz + i] / 255.0f;
    if (spu_net_stats_init(&st, net) || spu_net_stats_init(&rst, net)) {
        cli_fail("infer", "out of memory");
        goto out;
    }
    const double t0 = now_s();
    if ((rc = spu_net_run(net, dev, (spu_net_format)fmt, images, N, lo_dev, &st))) {
        cli_fail("infer", "%s run on %s: %s", format, device, spu_strerror(rc));
        goto out;
    }
    const double wall = now_s() - t0;
    if ((rc = spu_net_run_fp32(net, images, N, lo_fp))) {
        cli_fail("infer", "fp32 run: %s", spu_strerror(rc));
        goto out;
    }
    int bitexact = -1, cycle_exact = -1;
    if (!is_model) {
        /* the reference: the model with the device's geometry and formats */
        char uri[256];
        snprintf(uri, sizeof uri, "model?rows=%u&cols=%u&spad=%u&banks=%u&ucode=%u&loops=%u&lanes=%u&formats=%u",
                 info.rows, info.cols, info.spad_bytes, info.spad_banks, info.ucode_words, info.loop_depth,
                 info.drain_lanes, info.formats);
        if ((rc = spu_open(&ref, uri))) {
            cli_fail("infer", "cannot open the reference model: %s", spu_strerror(rc));
            goto out;
        }
        if ((rc = spu_net_run(net, ref, (spu_net_format)fmt, images, N, lo_ref, &rst))) {
            cli_fail("infer", "%s run on the reference model: %s", format, spu_strerror(rc));
            goto out;
        }
        bitexact = rst.result_hash == st.result_hash && rst.gemms == st.gemms &&
                   !memcmp(lo_ref, lo_dev, N * osz * sizeof *lo_dev);
        cycle_exact = rst.cycles == st.cycles;
    }
    size_t correct = 0, fp_correct = 0, agree = 0;
    for (size_t i = 0; i < N; i++) {
        const size_t p = spu_argmax(lo_dev + i * osz, osz), q = spu_argmax(lo_fp + i * osz, osz);
        const unsigned y = ds.labels[offset + i];
        correct += p == y;
        fp_correct += q == y;
        agree += p == q;
    }
    const size_t nhost = spu_net_host_ops_dev(net, (spu_net_format)fmt, &info, NULL, 0);
    const char **host = calloc(nhost ? nhost : 1, sizeof *host);
    if (!host) {
        cli_fail("infer", "out of memory");
        goto out;
    }
    spu_net_host_ops_dev(net, (spu_net_format)fmt, &info, host, nhost);
    const double acc = (double)correct / N, fpacc = (double)fp_correct / N, agr = (double)agree / N;
    if (brief && !json) {
        printf("%-11s %-5s %-6s %6zu images  accuracy %.4f  fp32 %.4f  cycles/image %9.0f  "
               "link bytes/image %8.0f  bitexact %s\n",
               spu_net_name(net), format, device, N, acc, fpacc, (double)st.cycles / N,
               (double)st.link_bytes / N, bitexact < 0 ? "n/a" : bitexact ? "yes" : "NO");
    } else if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "model", spu_net_name(net));
        cJSON_AddStringToObject(o, "graph", gpath);
        cJSON_AddStringToObject(o, "device", device);
        cJSON_AddStringToObject(o, "format", format);
        cJSON_AddNumberToObject(o, "rows", info.rows);
        cJSON_AddNumberToObject(o, "cols", info.cols);
        cJSON_AddNumberToObject(o, "images", (double)N);
        cJSON_AddNumberToObject(o, "offset", (double)offset);
        cJSON_AddNumberToObject(o, "accuracy", acc);
        cJSON_AddNumberToObject(o, "fp32_accuracy", fpacc);
        cJSON_AddNumberToObject(o, "fp32_agreement", agr);
        cJSON_AddNumberToObject(o, "cycles_per_image", (double)st.cycles / N);
        cJSON_AddNumberToObject(o, "link_bytes_per_image", (double)st.link_bytes / N);
        cJSON_AddNumberToObject(o, "macs_per_image", (double)st.macs / N);
        cJSON_AddNumberToObject(o, "gemms_per_image", (double)st.gemms / N);
        if (bitexact < 0) {
            cJSON_AddNullToObject(o, "bitexact");
            cJSON_AddNullToObject(o, "model_cycles_per_image");
        } else {
            cJSON_AddBoolToObject(o, "bitexact", bitexact);
            cJSON_AddBoolToObject(o, "cycle_exact", cycle_exact);
            cJSON_AddNumberToObject(o, "model_cycles_per_image", (double)rst.cycles / N);
        }
        char hx[24];
        snprintf(hx, sizeof hx, "%016" PRIx64, st.result_hash);
        cJSON_AddStringToObject(o, "result_hash", hx);
        cJSON_AddNumberToObject(o, "wall_s", wall);
        cJSON *h = cJSON_AddArrayToObject(o, "host_ops");
        for (size_t i = 0; i < nhost; i++)
            cJSON_AddItemToArray(h, cJSON_CreateString(host[i]));
        if (layers) {
            cJSON *L = cJSON_AddArrayToObject(o, "layers");
            for (size_t i = 0; i < spu_net_nodes(net); i++) {
                cJSON *r = cJSON_CreateObject();
                cJSON_AddStringToObject(r, "name", spu_net_node_name(net, i));
                cJSON_AddStringToObject(r, "op", spu_net_node_op(net, i));
                cJSON_AddStringToObject(r, "runs_on", spu_net_node_on_device_dev(net, i, (spu_net_format)fmt, &info) ? "device" : "host");
                cJSON_AddNumberToObject(r, "cycles_per_image", (double)st.node[i].cycles / N);
                cJSON_AddNumberToObject(r, "macs_per_image", (double)st.node[i].macs / N);
                cJSON_AddNumberToObject(r, "link_bytes_per_image", (double)st.node[i].link_bytes / N);
                cJSON_AddNumberToObject(r, "gemms", (double)st.node[i].gemms);
                cJSON_AddItemToArray(L, r);
            }
        }
        char *txt = cJSON_PrintUnformatted(o);
        puts(txt ? txt : "{}");
        free(txt);
        cJSON_Delete(o);
    } else {
        printf("spu infer %s on %s (%ux%u array), %s, %zu test images from %" PRIu64 "\n",
               spu_net_name(net), device, info.rows, info.cols, format, N, offset);
        printf("  %-22s %.4f\n", "accuracy", acc);
        printf("  %-22s %.4f\n", "fp32_accuracy", fpacc);
        printf("  %-22s %.4f\n", "fp32_agreement", agr);
        printf("  %-22s %.0f  (%.0f MACs, %.2f GEMM calls)\n", "cycles_per_image", (double)st.cycles / N,
               (double)st.macs / N, (double)st.gemms / N);
        printf("  %-22s %.0f\n", "link_bytes_per_image", (double)st.link_bytes / N);
        if (bitexact < 0)
            printf("  %-22s n/a (the device is the model)\n", "bitexact");
        else
            printf("  %-22s %s  (every GEMM result and logit vs the model; cycles %s: %.0f/image on the model)\n",
                   "bitexact", bitexact ? "yes" : "NO", cycle_exact ? "equal" : "DIFFER",
                   (double)rst.cycles / N);
        printf("  %-22s %zu:", "host_ops", nhost);
        for (size_t i = 0; i < nhost; i++)
            printf(" %s", host[i]);
        printf("\n  %-22s %.2f s\n", "wall", wall);
        if (layers) {
            printf("\n  %-12s %-12s %-7s %12s %12s %12s\n", "layer", "op", "runs_on", "cycles/img",
                   "MACs/img", "link B/img");
            for (size_t i = 0; i < spu_net_nodes(net); i++)
                printf("  %-12s %-12s %-7s %12.0f %12.0f %12.0f\n", spu_net_node_name(net, i),
                       spu_net_node_op(net, i), spu_net_node_on_device_dev(net, i, (spu_net_format)fmt, &info) ? "device" : "host",
                       (double)st.node[i].cycles / N, (double)st.node[i].macs / N,
                       (double)st.node[i].link_bytes / N);
        }
    }
    free(host);
    if (bitexact == 0) {
        fprintf(stderr, "spu infer: the device's results differ from the model's (hash %016" PRIx64
                        " vs %016" PRIx64 ")\n", st.result_hash, rst.result_hash);
        goto out;
    }
    ret = 0;
out:
    spu_net_stats_free(&st);
    spu_net_stats_free(&rst);
    spu_close(dev);
    spu_close(ref);
    spu_net_free(net);
    spu_dataset_free(&ds);
    free(images);
    free(lo_dev);
    free(lo_ref);
    free(lo_fp);
    return ret;
}
