/*
 * cmd_run.c -- `spu run`: load and run one microcode program on a device,
 * print its status and counters; with --compare, run it on a second device
 * too (e.g. sim against model) and name the first difference in status,
 * counters, registers or scratchpad.
 */
#include "cli.h"
#include "spu/asm.h"
#include "spu/compare.h"
#include "spu/model.h"
#include "spu/spu.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: spu run PROG.s|PROG.bin [--device URI] [--args A,B,...] [--init FILE@ADDR]...\n"
    "               [--watchdog CYCLES] [--timeout SECONDS] [--compare URI] [--trace] [--json]\n"
    "\n"
    "Loads the program (assembled on the fly from .s, raw words from .bin),\n"
    "writes each --init file's bytes into the scratchpad at ADDR, sets r1..r8\n"
    "from --args and runs until halt or trap. Prints the status, the counters\n"
    "and the registers. With --compare URI the same is done on a second device\n"
    "and the end states are compared (status, counters, registers, scratchpad);\n"
    "the exit status is 0 only if they are equal. Without --compare it is 0 when the\n"
    "program halts, 3 when it traps (the report names the trap), 1 on any other\n"
    "failure and 2 on a usage error.\n"
    "\n"
    "  --watchdog N   trap after N cycles (default 100000000; 0 = none)\n"
    "  --timeout S    give up waiting after S seconds of wall time, reset the device\n"
    "                 and fail (default 600, or 10 with --watchdog 0)\n"
    "  --trace        also run the program on the reference model of the device's\n"
    "                 geometry and print one line per retired instruction:\n"
    "                 start cycle, pc, word, disassembly, register written\n";

#define MAX_INITS 16

typedef struct run_setup {
    spu_program prog;
    uint32_t args[SPU_NARGS];
    int nargs;
    uint32_t watchdog;
    int timeout_s;               /* wall-clock bound on the wait */
    struct { char *data; size_t len; uint32_t addr; } init[MAX_INITS];
    int ninit;
} run_setup;

static int load_program(const char *path, spu_image *img)
{
    char *data;
    size_t len;
    int rrc = cli_read_file(path, &data, &len);
    if (rrc)
        return cli_read_fail("run", path, rrc);
    size_t plen = strlen(path);
    int rc = 0;
    if (plen > 2 && !strcmp(path + plen - 2, ".s")) {
        char err[4096];
        if (spu_asm(data, path, img, err, sizeof err)) {
            fputs(err, stderr);
            rc = 1;
        }
    } else if (spu_image_from_bytes(data, len, img)) {
        rc = cli_fail("run", "%s: %zu bytes is not a whole, non-zero number of 32-bit words", path, len);
    }
    free(data);
    return rc;
}

/* Open, prepare and run on one device; leaves it open in *out. */
static int run_on(const char *uri, const run_setup *s, spu_device **out)
{
    spu_device *dev;
    int rc;
    if (cli_open_device("run", uri, &dev))
        return 1;
    *out = dev;
    for (int i = 0; i < s->ninit; i++)
        if ((rc = spu_write(dev, s->init[i].addr, s->init[i].data, s->init[i].len)))
            return cli_fail("run", "%s: --init at 0x%x: %s", uri, s->init[i].addr, spu_strerror(rc));
    if ((rc = spu_load_program(dev, &s->prog)))
        return cli_fail("run", "%s: loading the program: %s", uri, spu_strerror(rc));
    spu_set_watchdog(dev, s->watchdog);
    if ((rc = spu_run(dev, s->args, s->nargs)))
        return cli_fail("run", "%s: %s", uri, spu_strerror(rc));
    spu_status_t st;
    rc = spu_wait(dev, s->timeout_s * 1000, &st);
    if (rc == SPU_ETIMEDOUT) {
        spu_reset(dev);   /* stop it: the device keeps answering */
        return cli_fail("run", "%s: the program did not halt within %d s (pc %u, %" PRIu64
                               " cycles; watchdog %s); the device was reset. Use --watchdog N "
                               "or --timeout S",
                        uri, s->timeout_s, st.pc, st.cycles, s->watchdog ? "on" : "0 = none");
    }
    if (rc && rc != SPU_ETRAP)
        return cli_fail("run", "%s: waiting: %s", uri, spu_strerror(rc));
    return 0;
}

static void report(spu_device *dev, const char *uri, int json, cJSON *arr)
{
    spu_status_t st;
    spu_counters_t c;
    uint32_t regs[16];
    spu_status(dev, &st);
    spu_counters(dev, &c);
    int have_regs = spu_regs(dev, regs) == 0;
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "device", uri);
        cJSON_AddStringToObject(o, "state", spu_state_name(st.state));
        cJSON_AddStringToObject(o, "trap", spu_trap_name(st.trap));
        cJSON_AddNumberToObject(o, "pc", st.pc);
        cJSON_AddNumberToObject(o, "retries", cli_link_retries(dev));
        cJSON *co = cJSON_AddObjectToObject(o, "counters");
        for (int i = 0; i < SPU_CNT_COUNT; i++)
            cJSON_AddNumberToObject(co, spu_counter_name(i), (double)c.v[i]);
        if (have_regs) {
            cJSON *r = cJSON_AddArrayToObject(o, "regs");
            for (int i = 0; i < 16; i++)
                cJSON_AddItemToArray(r, cJSON_CreateNumber(regs[i]));
        }
        cJSON_AddItemToArray(arr, o);
        return;
    }
    printf("%s: %s", uri, spu_state_name(st.state));
    if (st.state == SPU_STATE_TRAPPED)
        printf(" (%s)", spu_trap_name(st.trap));
    printf(" at pc %u\n", st.pc);
    for (int i = 0; i < SPU_CNT_COUNT; i++)
        printf("  %-12s %" PRIu64 "\n", spu_counter_name(i), c.v[i]);
    if (have_regs)
        for (int i = 0; i < 16; i++)
            printf("%s r%-2d %08x%s", i % 4 ? "" : " ", i, regs[i], i % 4 == 3 ? "\n" : "  ");
}

static void print_trace(void *ctx, const spu_model_trace *t)
{
    (void)ctx;
    char text[96];
    spu_disasm_word(t->word, t->pc, text, sizeof text);
    if (t->rd > 0)
        printf("%10llu  %5u  %08x  %-28s  r%d = 0x%08x\n", (unsigned long long)t->cycle, t->pc,
               t->word, text, t->rd, t->rd_value);
    else
        printf("%10llu  %5u  %08x  %s\n", (unsigned long long)t->cycle, t->pc, t->word, text);
}

/* Run the program on an in-process model shaped like the device, tracing. */
static int trace_on_model(spu_device *dev, const run_setup *s)
{
    spu_info_t in;
    spu_info(dev, &in);
    spu_model_config mc;
    spu_model_config_from_info(&mc, &in);
    spu_model *m;
    int rc = spu_model_create(&m, &mc);
    if (rc)
        return cli_fail("run", "--trace: no model of this geometry: %s", spu_strerror(rc));
    for (int i = 0; i < s->ninit; i++)
        memcpy(spu_model_spad(m) + s->init[i].addr, s->init[i].data, s->init[i].len);
    spu_model_load_ucode(m, 0, s->prog.words, s->prog.nwords);
    spu_model_set_args(m, s->args, s->nargs);
    spu_model_set_trace(m, print_trace, NULL);
    printf("trace (reference model, %ux%u):\n%10s  %5s  %8s  %s\n", in.rows, in.cols, "cycle", "pc",
           "word", "instruction");
    spu_model_run(m, s->prog.entry, s->watchdog);
    spu_status_t st;
    spu_model_status(m, &st);
    printf("%10llu  %5u  %s%s%s\n", (unsigned long long)st.cycles, st.pc, spu_state_name(st.state),
           st.state == SPU_STATE_TRAPPED ? " " : "", st.state == SPU_STATE_TRAPPED ? spu_trap_name(st.trap) : "");
    spu_model_free(m);
    return 0;
}

int spu_cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {
        { "device", required_argument, 0, 'd' }, { "args", required_argument, 0, 'a' },
        { "init", required_argument, 0, 'i' },   { "watchdog", required_argument, 0, 'w' },
        { "compare", required_argument, 0, 'c' }, { "json", no_argument, 0, 'j' },
        { "trace", no_argument, 0, 't' },        { "timeout", required_argument, 0, 'T' },
        { "help", no_argument, 0, 'h' },          { 0, 0, 0, 0 },
    };
    const char *device = cli_default_device(), *compare = NULL;
    run_setup s;
    memset(&s, 0, sizeof s);
    s.watchdog = 100000000u;
    int json = 0, trace = 0, c, ret = 1, timeout_s = -1;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'd': device = optarg; break;
        case 'c': compare = optarg; break;
        case 'j': json = 1; break;
        case 't': trace = 1; break;
        case 'w': {
            uint64_t v;
            if (cli_parse_u64(optarg, &v) || v > 0xFFFFFFFFu)
                return cli_usage_error("run", "--watchdog needs a 32-bit count, got '%s'", optarg);
            s.watchdog = (uint32_t)v;
            break;
        }
        case 'T': {
            uint64_t v;
            if (cli_parse_u64(optarg, &v) || v == 0 || v > 86400)
                return cli_usage_error("run", "--timeout needs seconds in 1..86400, got '%s'", optarg);
            timeout_s = (int)v;
            break;
        }
        case 'a': {
            char *list = strdup(optarg), *save = NULL;
            s.nargs = 0;
            for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                int64_t v;
                if (s.nargs == SPU_NARGS || cli_parse_i64(t, &v) || v < INT32_MIN || v > UINT32_MAX) {
                    free(list);
                    return cli_usage_error("run", "--args takes up to 8 32-bit integers, got '%s'", optarg);
                }
                s.args[s.nargs++] = (uint32_t)v;
            }
            free(list);
            break;
        }
        case 'i': {
            char *at = strrchr(optarg, '@');
            uint64_t addr;
            if (!at || cli_parse_u64(at + 1, &addr) || addr > 0xFFFFFFFFu)
                return cli_usage_error("run", "--init takes FILE@ADDR, got '%s'", optarg);
            if (s.ninit == MAX_INITS)
                return cli_usage_error("run", "at most %d --init files", MAX_INITS);
            *at = 0;
            int rrc = cli_read_file(optarg, &s.init[s.ninit].data, &s.init[s.ninit].len);
            if (rrc)
                return cli_read_fail("run", optarg, rrc);
            s.init[s.ninit++].addr = (uint32_t)addr;
            break;
        }
        case 'h': fputs(usage, stdout); return 0;
        default: return cli_usage_error("run", "bad option");
        }
    }
    if (optind != argc - 1)
        return cli_usage_error("run", "need exactly one program file");
    s.timeout_s = timeout_s > 0 ? timeout_s : s.watchdog ? 600 : 10;
    spu_image img = { 0 };
    spu_device *da = NULL, *db = NULL;
    if (load_program(argv[optind], &img))
        goto out;
    s.prog = (spu_program){ img.words, img.nwords, img.entry };
    if (run_on(device, &s, &da) || (compare && run_on(compare, &s, &db)))
        goto out;
    if (trace && !json && trace_on_model(da, &s))
        goto out;
    if (trace && json) {
        cli_usage_error("run", "--trace prints text; leave out --json");
        goto out;
    }
    cJSON *root = json ? cJSON_CreateObject() : NULL, *arr = root ? cJSON_AddArrayToObject(root, "runs") : NULL;
    report(da, device, json, arr);
    spu_status_t end;
    ret = spu_status(da, &end) ? 1 : end.state == SPU_STATE_TRAPPED ? 3 : 0;
    if (db) {
        report(db, compare, json, arr);
        char what[256];
        int rc = spu_compare_devices(da, db, 0, UINT32_MAX, what, sizeof what);
        if (json)
            cJSON_AddStringToObject(root, "compare", rc ? (what[0] ? what : spu_strerror(rc)) : "equal");
        else if (rc == 0)
            printf("compare: %s and %s end in the same state (status, counters, registers, scratchpad)\n", device, compare);
        ret = 0;
        if (rc) {
            fprintf(stderr, "spu run: %s vs %s: first difference: %s\n", device, compare, what[0] ? what : spu_strerror(rc));
            ret = 1;
        }
    }
    if (root) {
        char *txt = cJSON_PrintUnformatted(root);
        puts(txt ? txt : "{}");
        free(txt);
        cJSON_Delete(root);
    }
out:
    spu_close(da);
    spu_close(db);
    spu_image_free(&img);
    for (int i = 0; i < s.ninit; i++)
        free(s.init[i].data);
    return ret;
}
