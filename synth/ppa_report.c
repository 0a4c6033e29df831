/*
 * spu-ppa -- the PPA report generator of the open FPGA flow (synth/).
 *
 * It reads the tools' JSON with cJSON (Yosys `stat -json` and `write_json`,
 * nextpnr-ice40 `--report`, icetime `-j`) and never parses their text logs.
 *
 *   spu-ppa harness PORTS.json TOP OUT.v
 *       write spu_ppa_harness: TOP's inputs fed from a shift register (one
 *       pin), its outputs registered and shifted out (one pin), so any unit
 *       can be placed on a small package and timed register to register.
 *   spu-ppa budget STAT.json DEVICE
 *       before place and route: fail with a plain message when the netlist
 *       needs more DSP / EBR / SPRAM blocks than DEVICE has.
 *   spu-ppa dsp-plan NETLIST.json BUDGET
 *       print a Yosys script that keeps at most BUDGET SB_MAC16 blocks of
 *       the flattened, pre-synthesis NETLIST for multipliers: the $mul cells
 *       that save the most LUTs per DSP block get the DSPs, every other one
 *       becomes a soft (LUT) multiplier ($__soft_mul, which synth_ice40 -dsp
 *       leaves to the LUT mapper). Yosys 0.23 itself maps every multiplier.
 *   spu-ppa entry --name N --kind unit|spu|probe --device D --top T [--target-mhz F]
 *                 [--io-bits B] [--stages K --latency L] --stat S --nextpnr R --icetime I
 *                 --generic G --netlist L -o ENTRY.json
 *       one report entry from one run of the flow; with --status MESSAGE
 *       (a failed run) the figures that are missing are null. With --stages
 *       (a pipelined unit) the entry also has latency_cycles and
 *       results_per_s_per_lc (one result per clock: fmax_mhz * 1e6 / lcs).
 *       With --macs M (an SPU: ROWS * COLS MACs per cycle) it has
 *       macs_per_cycle and gmacs = M * fmax_mhz / 1000; with --seed S the
 *       nextpnr placement seed; with a target, slack_pct = how far fmax_mhz
 *       is above target_mhz, in percent. With --fast-clock NET (a second
 *       clock at twice the system clock, from the same PLL) nextpnr's figure
 *       is the system clock the two domains and their crossings allow
 *       (two_clock_timing); the entry also has two_clocks and
 *       fmax_limit.
 *   spu-ppa check ENTRY.json
 *       fail with a plain message when utilization exceeds the device or
 *       fmax_mhz (the lower of nextpnr and icetime) is below target_mhz.
 *   spu-ppa report OUTDIR ENTRY.json...
 *       OUTDIR/report.json, report.csv, report.md.
 *   spu-ppa diff OLD.json NEW.json [--threshold PCT]
 *       what grew or shrank between two reports; with --threshold, exit 1
 *       when a figure got worse by more than PCT percent.
 *   spu-ppa validate REPORT.json
 *       check a report against the schema (exit 1 with the reason).
 *   spu-ppa readme README.md ENTRY.json...
 *       rewrite the lines between README.md's markers
 *       `<!-- board-status:begin` and `<!-- board-status:end -->` with one
 *       line per board from `make bitstream` entries (one per seed:
 *       build/fpga/BOARD/entry-seedN.json): Fmax, GMAC/s, slack, cells.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PPA_SCHEMA "spu-ppa/1"

/* ---------------------------------------------------------------- devices */

typedef struct {
    const char *name;
    int lcs, dsps, ebr, spram;
} ppa_device;

static const ppa_device k_devices[] = {
    {"up5k", 5280, 8, 30, 4},
    {"hx8k", 7680, 0, 32, 0},
    {"generic", 0, 0, 0, 0},
};

static const ppa_device *device_find(const char *name)
{
    for (size_t i = 0; i < sizeof k_devices / sizeof k_devices[0]; i++)
        if (strcmp(k_devices[i].name, name) == 0)
            return &k_devices[i];
    return NULL;
}

/* ------------------------------------------------------------ the schema */

typedef enum { F_STR, F_INT, F_NUM } field_type;

typedef struct {
    const char *key;
    field_type type;
    int nullable;
    int better; /* +1 larger is better, -1 smaller is better, 0 n/a */
} ppa_field;

/* The columns of report.csv / report.md, in order; every entry has them. */
static const ppa_field k_fields[] = {
    {"name", F_STR, 0, 0},
    {"kind", F_STR, 0, 0},
    {"device", F_STR, 0, 0},
    {"lcs", F_INT, 1, -1},
    {"dsps", F_INT, 1, -1},
    {"ebr", F_INT, 1, -1},
    {"spram", F_INT, 1, -1},
    {"fmax_nextpnr_mhz", F_NUM, 1, +1},
    {"fmax_icetime_mhz", F_NUM, 1, +1},
    {"fmax_mhz", F_NUM, 1, +1},
    {"transistors", F_INT, 1, -1},
    {"logic_depth", F_INT, 1, -1},
    {"status", F_STR, 1, 0}, /* "ok" or why the run failed */
    /* pipelined numerics units (issue 15): null for entries without them */
    {"stages", F_INT, 1, 0},               /* pipeline registers (STAGES) */
    {"latency_cycles", F_INT, 1, -1},      /* inputs -> result, in clocks */
    {"results_per_s_per_lc", F_NUM, 1, +1}, /* fmax_mhz * 1e6 / lcs */
    /* SPU entries (issue 13): ROWS * COLS MACs per cycle x fmax_mhz */
    {"gmacs", F_NUM, 1, +1}
};
#define N_FIELDS (sizeof k_fields / sizeof k_fields[0])

/* ----------------------------------------------------------------- helpers */

static int die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("spu-ppa: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        len += n;
        if (n == 0)
            break;
        if (len + 1 >= cap) {
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* Parses a JSON file; NULL (after a message) when missing or malformed. */
static cJSON *load_json(const char *path)
{
    char *text = slurp(path);
    if (!text) {
        die("cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    cJSON *j = cJSON_Parse(text);
    free(text);
    if (!j)
        die("%s is not valid JSON", path);
    return j;
}

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return die("cannot write %s: %s", path, strerror(errno));
    fputs(text, f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return die("error writing %s", path);
    return 0;
}

static int write_json(const char *path, const cJSON *j)
{
    char *text = cJSON_Print(j);
    if (!text)
        return die("out of memory");
    size_t n = strlen(text);
    char *t2 = malloc(n + 2);
    if (!t2) {
        free(text);
        return die("out of memory");
    }
    memcpy(t2, text, n);
    t2[n] = '\n';
    t2[n + 1] = '\0';
    int rc = write_text(path, t2);
    free(t2);
    free(text);
    return rc;
}

/* A JSON number that may be a string (Yosys writes some counts as strings). */
static int json_number(const cJSON *j, double *out)
{
    if (cJSON_IsNumber(j)) {
        *out = j->valuedouble;
        return 1;
    }
    if (cJSON_IsString(j) && j->valuestring[0]) {
        char *end;
        double v = strtod(j->valuestring, &end);
        if (*end == '\0') {
            *out = v;
            return 1;
        }
    }
    return 0;
}

/* Growable string buffer for the CSV / Markdown / Verilog writers. */
typedef struct {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        size_t room = b->cap - b->len;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *ns = realloc(b->s, cap);
        if (!ns) {
            fputs("spu-ppa: out of memory\n", stderr);
            exit(1);
        }
        b->s = ns;
        b->cap = cap;
    }
}

/* -------------------------------------------------------------- harness */

static const char *net_name(const char *yosys_name)
{
    return yosys_name[0] == '\\' ? yosys_name + 1 : yosys_name;
}

static cJSON *find_top_module(cJSON *doc, const char *top)
{
    cJSON *mods = cJSON_GetObjectItemCaseSensitive(doc, "modules");
    if (!cJSON_IsObject(mods))
        return NULL;
    if (top) {
        cJSON *m;
        cJSON_ArrayForEach(m, mods) if (strcmp(net_name(m->string), top) == 0) return m;
        return NULL;
    }
    cJSON *m, *only = NULL;
    int n = 0;
    cJSON_ArrayForEach(m, mods)
    {
        cJSON *attrs = cJSON_GetObjectItemCaseSensitive(m, "attributes");
        cJSON *t = cJSON_GetObjectItemCaseSensitive(attrs, "top");
        double v;
        if (t && json_number(t, &v) && v != 0)
            return m;
        if (cJSON_IsString(t) && strchr(t->valuestring, '1'))
            return m;
        only = m;
        n++;
    }
    return n == 1 ? only : NULL;
}

static int cmd_harness(int argc, char **argv)
{
    if (argc != 3)
        return die("usage: spu-ppa harness PORTS.json TOP OUT.v");
    cJSON *doc = load_json(argv[0]);
    if (!doc)
        return 1;
    const char *top = argv[1];
    cJSON *mod = find_top_module(doc, top);
    cJSON *ports = cJSON_GetObjectItemCaseSensitive(mod, "ports");
    if (!cJSON_IsObject(ports)) {
        cJSON_Delete(doc);
        return die("%s: module %s has no port list", argv[0], top);
    }
    long ni = 0, no = 0;
    int has_clk = 0;
    cJSON *p;
    cJSON_ArrayForEach(p, ports)
    {
        const char *dir = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "direction"));
        int w = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "bits"));
        if (!dir || w <= 0) {
            cJSON_Delete(doc);
            return die("%s: port %s has no direction or width", argv[0], p->string);
        }
        if (strcmp(dir, "input") == 0) {
            if (strcmp(net_name(p->string), "clk_i") == 0 && w == 1)
                has_clk = 1;
            else
                ni += w;
        } else if (strcmp(dir, "output") == 0) {
            no += w;
        } else {
            cJSON_Delete(doc);
            return die("%s: port %s is %s; the harness drives inputs and outputs only",
                       argv[0], p->string, dir);
        }
    }
    if (no == 0) {
        cJSON_Delete(doc);
        return die("%s: module %s has no outputs", argv[0], top);
    }
    sbuf b = {0};
    sb_printf(&b,
              "// spu_ppa_harness -- generated by spu-ppa harness for %s; do not edit.\n"
              "// Timing harness: %ld input bits shift in on sin_i, %ld output bits are\n"
              "// registered, loaded into a shift register on load_i and shifted out on\n"
              "// sout_o, so every path of the unit is register to register.\n"
              "`default_nettype none\n"
              "module spu_ppa_harness (\n"
              "    input  wire clk_i,\n"
              "    input  wire sin_i,\n"
              "    input  wire load_i,\n"
              "    output wire sout_o\n"
              ");\n",
              top, ni, no);
    if (ni > 0) {
        sb_printf(&b, "    reg  [%ld:0] in_q = 0;\n", ni - 1);
        if (ni == 1)
            sb_printf(&b, "    always @(posedge clk_i) in_q <= sin_i;\n");
        else
            sb_printf(&b, "    always @(posedge clk_i) in_q <= {in_q[%ld:0], sin_i};\n", ni - 2);
    }
    sb_printf(&b, "    wire [%ld:0] out_w;\n    reg  [%ld:0] out_q = 0;\n    reg  [%ld:0] sr_q = 0;\n",
              no - 1, no - 1, no - 1);
    sb_printf(&b, "    always @(posedge clk_i) begin\n        out_q <= out_w;\n");
    if (no == 1)
        sb_printf(&b, "        sr_q  <= load_i ? out_q : 1'b0;\n");
    else
        sb_printf(&b, "        sr_q  <= load_i ? out_q : {1'b0, sr_q[%ld:1]};\n", no - 1);
    sb_printf(&b, "    end\n    assign sout_o = sr_q[0];\n");
    if (ni == 0 && !has_clk)
        sb_printf(&b, "    wire unused_sin = sin_i;\n");
    sb_printf(&b, "    %s u_dut (\n", top);
    long ii = 0, oi = 0;
    int first = 1;
    cJSON_ArrayForEach(p, ports)
    {
        const char *dir = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "direction"));
        int w = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "bits"));
        const char *n = net_name(p->string);
        sb_printf(&b, "%s        .%s(", first ? "" : ",\n", n);
        first = 0;
        if (strcmp(dir, "input") == 0) {
            if (has_clk && strcmp(n, "clk_i") == 0 && w == 1)
                sb_printf(&b, "clk_i)");
            else {
                sb_printf(&b, "in_q[%ld:%ld])", ii + w - 1, ii);
                ii += w;
            }
        } else {
            sb_printf(&b, "out_w[%ld:%ld])", oi + w - 1, oi);
            oi += w;
        }
    }
    sb_printf(&b, "\n    );\nendmodule\n`default_nettype wire\n");
    int rc = write_text(argv[2], b.s);
    free(b.s);
    cJSON_Delete(doc);
    if (rc == 0)
        printf("%ld\n", ni + no); /* io bits, for the entry */
    return rc;
}

/* --------------------------------------------------------- yosys stat */

static cJSON *stat_cells(cJSON *stat)
{
    cJSON *design = cJSON_GetObjectItemCaseSensitive(stat, "design");
    if (!design) {
        cJSON *mods = cJSON_GetObjectItemCaseSensitive(stat, "modules");
        if (cJSON_GetArraySize(mods) == 1)
            design = cJSON_GetArrayItem(mods, 0);
    }
    return cJSON_GetObjectItemCaseSensitive(design, "num_cells_by_type");
}

static long stat_count(cJSON *cells, const char *type)
{
    double v;
    return json_number(cJSON_GetObjectItemCaseSensitive(cells, type), &v) ? (long)v : 0;
}

static int cmd_budget(int argc, char **argv)
{
    if (argc != 2)
        return die("usage: spu-ppa budget STAT.json DEVICE");
    const ppa_device *dev = device_find(argv[1]);
    if (!dev)
        return die("unknown device %s", argv[1]);
    cJSON *stat = load_json(argv[0]);
    if (!stat)
        return 1;
    cJSON *cells = stat_cells(stat);
    struct {
        const char *what, *cell;
        int avail;
    } b[] = {
        {"SB_MAC16 DSP blocks", "SB_MAC16", dev->dsps},
        {"EBR (SB_RAM40_4K) blocks", "SB_RAM40_4K", dev->ebr},
        {"SPRAM (SB_SPRAM256KA) blocks", "SB_SPRAM256KA", dev->spram},
    };
    int bad = 0;
    /* every logic cell holds one LUT4 and one flip-flop: a lower bound */
    static const char *ffs[] = {"SB_DFF", "SB_DFFE", "SB_DFFSR", "SB_DFFR", "SB_DFFSS", "SB_DFFS",
                                "SB_DFFESR", "SB_DFFER", "SB_DFFESS", "SB_DFFES"};
    long luts = stat_count(cells, "SB_LUT4"), nff = 0;
    for (size_t i = 0; i < sizeof ffs / sizeof ffs[0]; i++)
        nff += stat_count(cells, ffs[i]);
    long lc_min = luts > nff ? luts : nff;
    if (dev->lcs > 0 && lc_min > dev->lcs) {
        fprintf(stderr,
                "FAIL: the design needs at least %ld logic cells (%ld SB_LUT4, %ld flip-flops); "
                "the %s has %d\n",
                lc_min, luts, nff, dev->name, dev->lcs);
        bad = 1;
    }
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) {
        long used = stat_count(cells, b[i].cell);
        if (used > b[i].avail) {
            fprintf(stderr, "FAIL: the design needs %ld %s; the %s has %d\n", used, b[i].what,
                    dev->name, b[i].avail);
            bad = 1;
        }
    }
    cJSON_Delete(stat);
    return bad;
}

/* ---------------------------------------------------- logic depth (JSON) */

/* Longest chain of combinational gates between sequential or port
 * boundaries in a Yosys JSON netlist of simple gates ($_NAND_, $_NOR_, ...).
 * Flip-flops, memories and unknown cells cut paths. */
typedef struct {
    int *drv;        /* bit -> driving gate index, -1 none */
    int *depth;      /* bit -> memo, -1 unknown, -2 on stack */
    int nbits;
    cJSON **gates;   /* combinational cells */
    int ngates;
} depth_ctx;

static int is_comb_gate(const char *type)
{
    static const char *k[] = {"$_BUF_", "$_NOT_", "$_AND_", "$_NAND_", "$_OR_", "$_NOR_",
                              "$_XOR_", "$_XNOR_", "$_ANDNOT_", "$_ORNOT_", "$_MUX_",
                              "$_NMUX_", "$_AOI3_", "$_OAI3_", "$_AOI4_", "$_OAI4_"};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (strcmp(type, k[i]) == 0)
            return 1;
    return 0;
}

static int bit_depth(depth_ctx *c, int bit)
{
    if (bit < 0 || bit >= c->nbits)
        return 0;
    if (c->depth[bit] >= 0)
        return c->depth[bit];
    if (c->depth[bit] == -2)
        return 0; /* combinational loop: cut it */
    int g = c->drv[bit];
    if (g < 0) {
        c->depth[bit] = 0;
        return 0;
    }
    c->depth[bit] = -2;
    int best = 0;
    cJSON *dirs = cJSON_GetObjectItemCaseSensitive(c->gates[g], "port_directions");
    cJSON *conns = cJSON_GetObjectItemCaseSensitive(c->gates[g], "connections");
    cJSON *pc;
    cJSON_ArrayForEach(pc, conns)
    {
        const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dirs, pc->string));
        if (!d || strcmp(d, "input") != 0)
            continue;
        cJSON *bj;
        cJSON_ArrayForEach(bj, pc) if (cJSON_IsNumber(bj))
        {
            int v = bit_depth(c, bj->valueint);
            if (v > best)
                best = v;
        }
    }
    c->depth[bit] = best + 1;
    return best + 1;
}

static int logic_depth(cJSON *netlist, long *out)
{
    cJSON *mod = find_top_module(netlist, NULL);
    if (!mod)
        return die("netlist: cannot find the top module");
    cJSON *cells = cJSON_GetObjectItemCaseSensitive(mod, "cells");
    cJSON *ports = cJSON_GetObjectItemCaseSensitive(mod, "ports");
    depth_ctx c = {0};
    /* size the bit space */
    int maxbit = 1;
    cJSON *x, *pc, *bj;
    cJSON_ArrayForEach(x, cells)
    {
        cJSON_ArrayForEach(pc, cJSON_GetObjectItemCaseSensitive(x, "connections"))
            cJSON_ArrayForEach(bj, pc) if (cJSON_IsNumber(bj) && bj->valueint > maxbit)
                maxbit = bj->valueint;
    }
    c.nbits = maxbit + 1;
    c.ngates = cJSON_GetArraySize(cells);
    c.drv = malloc(sizeof(int) * (size_t)c.nbits);
    c.depth = malloc(sizeof(int) * (size_t)c.nbits);
    c.gates = malloc(sizeof(cJSON *) * (size_t)(c.ngates + 1));
    if (!c.drv || !c.depth || !c.gates)
        return die("out of memory");
    for (int i = 0; i < c.nbits; i++)
        c.drv[i] = c.depth[i] = -1;
    int gi = 0;
    cJSON_ArrayForEach(x, cells)
    {
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "type"));
        if (!type || !is_comb_gate(type))
            continue;
        c.gates[gi] = x;
        cJSON *dirs = cJSON_GetObjectItemCaseSensitive(x, "port_directions");
        cJSON_ArrayForEach(pc, cJSON_GetObjectItemCaseSensitive(x, "connections"))
        {
            const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dirs, pc->string));
            if (d && strcmp(d, "output") == 0)
                cJSON_ArrayForEach(bj, pc) if (cJSON_IsNumber(bj)) c.drv[bj->valueint] = gi;
        }
        gi++;
    }
    /* sinks: output ports and every input of a non-gate cell (FF D, memory) */
    long best = 0;
    cJSON_ArrayForEach(x, ports)
    {
        const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "direction"));
        if (!d || strcmp(d, "input") == 0)
            continue;
        cJSON_ArrayForEach(bj, cJSON_GetObjectItemCaseSensitive(x, "bits")) if (cJSON_IsNumber(bj))
        {
            long v = bit_depth(&c, bj->valueint);
            if (v > best)
                best = v;
        }
    }
    cJSON_ArrayForEach(x, cells)
    {
        const char *type = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "type"));
        if (!type || is_comb_gate(type))
            continue;
        cJSON *dirs = cJSON_GetObjectItemCaseSensitive(x, "port_directions");
        cJSON_ArrayForEach(pc, cJSON_GetObjectItemCaseSensitive(x, "connections"))
        {
            const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(dirs, pc->string));
            if (!d || strcmp(d, "input") != 0)
                continue;
            cJSON_ArrayForEach(bj, pc) if (cJSON_IsNumber(bj))
            {
                long v = bit_depth(&c, bj->valueint);
                if (v > best)
                    best = v;
            }
        }
    }
    free(c.drv);
    free(c.depth);
    free(c.gates);
    *out = best;
    return 0;
}


/* ------------------------------------------------------------- dsp-plan */

typedef struct {
    const char *name;
    long a, b, y, cost;
    double value;
} mul_cell;

static long param_long(const cJSON *params, const char *k)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(params, k));
    if (v)
        return strtol(v, NULL, 2); /* Yosys writes parameters as bit strings */
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(params, k);
    return cJSON_IsNumber(n) ? (long)n->valuedouble : 0;
}

static int mul_cmp(const void *x, const void *y)
{
    const mul_cell *a = x, *b = y;
    if (a->value != b->value)
        return a->value < b->value ? 1 : -1;
    return strcmp(a->name, b->name);
}

/* A Yosys selection pattern for one cell name: characters that are pattern
 * syntax become '?', and the script asserts the match count afterwards. */
static void print_pattern(const char *mod, const char *name)
{
    printf("%s/", mod);
    for (const char *c = name; *c; c++)
        putchar(strchr("[]*?\\ \"", *c) ? '?' : *c);
}

static int cmd_dsp_plan(int argc, char **argv)
{
    if (argc != 2)
        return die("usage: spu-ppa dsp-plan NETLIST.json BUDGET");
    long budget = atol(argv[1]);
    cJSON *doc = load_json(argv[0]);
    if (!doc)
        return 1;
    cJSON *mod = find_top_module(doc, NULL);
    if (!mod)
        return die("%s: no top module", argv[0]);
    const char *mname = net_name(mod->string);
    int n = 0;
    long explicit_dsps = 0; /* SB_MAC16 instantiated by the RTL (spu_mul8x2: as
                               spu_sb_mac16, synth/ice40_cells.ys) */
    cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(mod, "cells"))
    {
        const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "type"));
        if (t && !strcmp(t, "$mul"))
            n++;
        if (t && (!strcmp(t, "SB_MAC16") || !strcmp(t, "spu_sb_mac16")))
            explicit_dsps++;
    }
    mul_cell *m = calloc((size_t)n + 1, sizeof *m);
    if (!m)
        return die("out of memory");
    int i = 0;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(mod, "cells"))
    {
        const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(c, "type"));
        if (!t || strcmp(t, "$mul"))
            continue;
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(c, "parameters");
        mul_cell *x = &m[i++];
        x->name = c->string;
        x->a = param_long(p, "A_WIDTH");
        x->b = param_long(p, "B_WIDTH");
        x->y = param_long(p, "Y_WIDTH");
        /* mul2dsp splits into 16x16 pieces; below 2x2 or an 11-bit product
         * synth_ice40 keeps the multiplier in LUTs anyway (DSP_*_MINWIDTH) */
        x->cost = (x->a < 2 || x->b < 2 || x->y < 11) ? 0 : ((x->a + 15) / 16) * ((x->b + 15) / 16);
        x->value = x->cost ? (double)(x->a * x->b) / (double)x->cost : 0;
    }
    qsort(m, (size_t)n, sizeof *m, mul_cmp);
    long left = budget > explicit_dsps ? budget - explicit_dsps : 0, soft = 0, used = 0;
    printf("# dsp-plan: %d multipliers, budget %ld SB_MAC16, %ld instantiated by the RTL\n", n,
           budget, explicit_dsps);
    for (i = 0; i < n; i++) {
        if (m[i].cost == 0)
            continue;
        if (m[i].cost <= left) {
            left -= m[i].cost;
            used += m[i].cost;
            printf("# DSP  %ldx%ld -> %ld (%ld block(s)): %s\n", m[i].a, m[i].b, m[i].y, m[i].cost,
                   m[i].name);
            continue;
        }
        printf("# LUTs %ldx%ld -> %ld: %s\nchtype -set $__soft_mul ", m[i].a, m[i].b, m[i].y, m[i].name);
        print_pattern(mname, m[i].name);
        printf("\n");
        soft++;
    }
    printf("select -assert-count %ld t:$__soft_mul\n", soft);
    fprintf(stderr, "spu-ppa dsp-plan: %d multipliers, %ld SB_MAC16 planned, %ld in LUTs\n", n,
            used, soft);
    free(m);
    cJSON_Delete(doc);
    return 0;
}

/* --------------------------------------------------------------- entry */

static void set_num_or_null(cJSON *o, const char *k, int have, double v)
{
    if (have)
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

static double round2(double v) { return floor(v * 100.0 + 0.5) / 100.0; }

/* NET is the clock net NAME, or NAME inside a flattened hierarchy
 * ("u_board.clk2x": the board top's PLL output), as synth/flow.sh's
 * nextpnr pre-pack script matches it. */
static int is_clock_net(const char *net, const char *name)
{
    size_t ln = strlen(net), lm = strlen(name);
    return !strcmp(net, name) || (ln > lm && net[ln - lm - 1] == '.' && !strcmp(net + ln - lm, name));
}

/* The clock named in "posedge NET" / "negedge NET" (nextpnr's critical path
 * ends), or NULL for "<async>" (a pin). */
static const char *path_clock(const cJSON *end)
{
    const char *s = cJSON_GetStringValue(end);
    if (!s)
        return NULL;
    const char *sp = strchr(s, ' ');
    return sp && (!strncmp(s, "posedge ", 8) || !strncmp(s, "negedge ", 8)) ? sp + 1 : NULL;
}

/* Two clocks from one PLL (docs/fpga.md "Two clocks"): the system clock and
 * FAST at twice its rate, rising edges aligned. nextpnr 0.4 times each domain
 * against its own constraint but reports the paths between them unchecked;
 * a crossing must fit in one fast period (half a system period), whichever
 * edge launches it. So the system clock nextpnr allows is the lowest of its
 * own domain's Fmax (have_sys, f_sys), half the fast domain's, and
 * 1000 / (2 x the longest crossing in ns). Returns the entry's "two_clocks"
 * object; *f_out and *limit say which bound holds. */
static cJSON *two_clock_timing(const cJSON *pnr, const char *fast_net, int have_sys, double f_sys,
                               double f_fast, double *f_out, const char **limit)
{
    cJSON *tc = cJSON_CreateObject();
    cJSON_AddStringToObject(tc, "fast_clock", fast_net);
    cJSON_AddNumberToObject(tc, "ratio", 2);
    set_num_or_null(tc, "fmax_system_nextpnr_mhz", have_sys, round2(f_sys));
    cJSON_AddNumberToObject(tc, "fmax_fast_nextpnr_mhz", round2(f_fast));
    cJSON *xs = cJSON_AddArrayToObject(tc, "crossings");
    const cJSON *fmax = cJSON_GetObjectItemCaseSensitive(pnr, "fmax");
    double worst = 0;
    const cJSON *cp;
    cJSON_ArrayForEach(cp, cJSON_GetObjectItemCaseSensitive(pnr, "critical_paths"))
    {
        const char *from = path_clock(cJSON_GetObjectItemCaseSensitive(cp, "from"));
        const char *to = path_clock(cJSON_GetObjectItemCaseSensitive(cp, "to"));
        /* between two clocks nextpnr timed; not "$PACKER_GND_NET", the tied
         * clock input of an unregistered SB_MAC16, which it lists as one */
        if (!from || !to || !strcmp(from, to) || !cJSON_GetObjectItemCaseSensitive(fmax, from) ||
            !cJSON_GetObjectItemCaseSensitive(fmax, to))
            continue;
        double ns = 0, d;
        const cJSON *seg;
        cJSON_ArrayForEach(seg, cJSON_GetObjectItemCaseSensitive(cp, "path"))
        {
            if (json_number(cJSON_GetObjectItemCaseSensitive(seg, "delay"), &d))
                ns += d;
        }
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "from", from);
        cJSON_AddStringToObject(x, "to", to);
        cJSON_AddNumberToObject(x, "delay_ns", round2(ns));
        cJSON_AddItemToArray(xs, x);
        if (ns > worst)
            worst = ns;
    }
    double f = f_fast / 2;
    *limit = "fast clock";
    if (have_sys && f_sys < f) {
        f = f_sys;
        *limit = "system clock";
    }
    if (worst > 0 && 1000.0 / (2 * worst) < f) {
        f = 1000.0 / (2 * worst);
        *limit = "clock crossing";
    }
    set_num_or_null(tc, "crossing_max_ns", worst > 0, round2(worst));
    *f_out = f;
    return tc;
}

static int cmd_entry(int argc, char **argv)
{
    const char *name = NULL, *kind = NULL, *device = NULL, *top = NULL, *out = NULL;
    const char *stat_p = NULL, *pnr_p = NULL, *it_p = NULL, *gen_p = NULL, *net_p = NULL;
    const char *status = "ok", *commit = NULL, *fast_clk = NULL;
    double target = 0;
    long io_bits = -1, stages = -1, latency = -1, macs = -1, seed = -1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            return die("entry: %s needs a value", a);
        i++;
        if (!strcmp(a, "--name")) name = v;
        else if (!strcmp(a, "--kind")) kind = v;
        else if (!strcmp(a, "--device")) device = v;
        else if (!strcmp(a, "--top")) top = v;
        else if (!strcmp(a, "--target-mhz")) target = atof(v);
        else if (!strcmp(a, "--io-bits")) io_bits = atol(v);
        else if (!strcmp(a, "--stages")) stages = atol(v);
        else if (!strcmp(a, "--latency")) latency = atol(v);
        else if (!strcmp(a, "--macs")) macs = atol(v);
        else if (!strcmp(a, "--seed")) seed = atol(v);
        else if (!strcmp(a, "--commit")) commit = v;
        else if (!strcmp(a, "--fast-clock")) fast_clk = v;
        else if (!strcmp(a, "--stat")) stat_p = v;
        else if (!strcmp(a, "--nextpnr")) pnr_p = v;
        else if (!strcmp(a, "--icetime")) it_p = v;
        else if (!strcmp(a, "--generic")) gen_p = v;
        else if (!strcmp(a, "--netlist")) net_p = v;
        else if (!strcmp(a, "--status")) status = v;
        else if (!strcmp(a, "-o")) out = v;
        else return die("entry: unknown option %s", a);
    }
    if (!name || !kind || !device || !out)
        return die("entry: --name, --kind, --device and -o are required");
    if (strcmp(kind, "unit") && strcmp(kind, "spu") && strcmp(kind, "probe"))
        return die("entry: kind must be unit, spu or probe, not %s", kind);
    const ppa_device *dev = device_find(device);
    if (!dev)
        return die("entry: unknown device %s", device);

    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", name);
    cJSON_AddStringToObject(e, "kind", kind);
    cJSON_AddStringToObject(e, "device", device);
    if (top)
        cJSON_AddStringToObject(e, "top", top);
    cJSON_AddStringToObject(e, "status", status);

    /* utilization: nextpnr's report */
    cJSON *pnr = pnr_p ? load_json(pnr_p) : NULL;
    if (pnr_p && !pnr)
        return 1;
    cJSON *util = cJSON_GetObjectItemCaseSensitive(pnr, "utilization");
    struct {
        const char *key, *bel;
        int avail;
    } u[] = {{"lcs", "ICESTORM_LC", dev->lcs},
             {"dsps", "ICESTORM_DSP", dev->dsps},
             {"ebr", "ICESTORM_RAM", dev->ebr},
             {"spram", "ICESTORM_SPRAM", dev->spram}};
    cJSON *avail = cJSON_CreateObject();
    for (size_t i = 0; i < sizeof u / sizeof u[0]; i++) {
        cJSON *bel = cJSON_GetObjectItemCaseSensitive(util, u[i].bel);
        double used = 0, av = u[i].avail;
        int have = pnr != NULL;
        if (bel) {
            json_number(cJSON_GetObjectItemCaseSensitive(bel, "used"), &used);
            json_number(cJSON_GetObjectItemCaseSensitive(bel, "available"), &av);
        }
        set_num_or_null(e, u[i].key, have, used);
        if (have)
            cJSON_AddNumberToObject(avail, u[i].key, av);
    }

    /* timing: nextpnr's slowest clock domain, icetime's longest interior path */
    int have_np = 0, have_it = 0;
    double f_np = 0, f_it = 0;
    cJSON *fm = cJSON_GetObjectItemCaseSensitive(pnr, "fmax");
    cJSON *clk;
    int have_fast = 0;
    double f_fast = 0;
    const char *fast_net = NULL;
    cJSON_ArrayForEach(clk, fm)
    {
        double a;
        if (!json_number(cJSON_GetObjectItemCaseSensitive(clk, "achieved"), &a))
            continue;
        if (fast_clk && clk->string && is_clock_net(clk->string, fast_clk)) {
            f_fast = a;
            have_fast = 1;
            fast_net = clk->string;
        } else if (!have_np || a < f_np) {
            f_np = a;
            have_np = 1;
        }
    }
    const char *limit = "system clock";
    if (have_fast) {
        cJSON *tc = two_clock_timing(pnr, fast_net, have_np, f_np, f_fast, &f_np, &limit);
        cJSON_AddItemToObject(e, "two_clocks", tc);
        have_np = 1;
    }
    if (it_p) {
        cJSON *it = load_json(it_p);
        if (!it)
            return 1;
        double worst = 0;
        cJSON *path;
        cJSON_ArrayForEach(path, it)
        {
            cJSON *last = cJSON_GetArrayItem(path, cJSON_GetArraySize(path) - 1);
            double d;
            if (json_number(cJSON_GetObjectItemCaseSensitive(last, "delay_ns"), &d) && d > worst)
                worst = d;
        }
        if (worst > 0) {
            f_it = 1000.0 / worst;
            have_it = 1;
        }
        cJSON_Delete(it);
    }
    set_num_or_null(e, "fmax_nextpnr_mhz", have_np, round2(f_np));
    set_num_or_null(e, "fmax_icetime_mhz", have_it, round2(f_it));
    double f = have_np && have_it ? fmin(f_np, f_it) : have_np ? f_np : f_it;
    set_num_or_null(e, "fmax_mhz", have_np || have_it, round2(f));
    if (have_fast)
        cJSON_AddStringToObject(e, "fmax_limit", have_it && f_it < f_np ? "icetime" : limit);

    /* technology-independent pass: transistors (stat -tech cmos), depth */
    int have_tr = 0;
    double tr = 0;
    if (gen_p) {
        cJSON *g = load_json(gen_p);
        if (!g)
            return 1;
        cJSON *design = cJSON_GetObjectItemCaseSensitive(g, "design");
        if (!design)
            design = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g, "modules"), 0);
        const cJSON *tj = cJSON_GetObjectItemCaseSensitive(design, "estimated_num_transistors");
        have_tr = json_number(tj, &tr);
        if (!have_tr && cJSON_IsString(tj)) {
            /* "N+": N plus cells Yosys has no CMOS cost for (black boxes such
             * as the board top's PLL): report N, marked as a lower bound */
            char *end;
            double v = strtod(tj->valuestring, &end);
            if (end != tj->valuestring && strcmp(end, "+") == 0) {
                tr = v;
                have_tr = 1;
                cJSON_AddBoolToObject(e, "transistors_lower_bound", 1);
            }
        }
        double mb = 0;
        if (json_number(cJSON_GetObjectItemCaseSensitive(design, "num_memory_bits"), &mb) && mb > 0)
            cJSON_AddNumberToObject(e, "memory_bits_excluded", mb);
        cJSON_Delete(g);
    }
    set_num_or_null(e, "transistors", have_tr, tr);
    long depth = 0;
    int have_depth = 0;
    if (net_p) {
        cJSON *n = load_json(net_p);
        if (!n)
            return 1;
        if (logic_depth(n, &depth) != 0)
            return 1;
        have_depth = 1;
        cJSON_Delete(n);
    }
    set_num_or_null(e, "logic_depth", have_depth, (double)depth);

    /* pipelined units: depth, latency, throughput per area */
    {
        double lcs_v = 0;
        int have_rate = stages >= 0 && (have_np || have_it) &&
                        json_number(cJSON_GetObjectItemCaseSensitive(e, "lcs"), &lcs_v) && lcs_v > 0;
        set_num_or_null(e, "stages", stages >= 0, (double)stages);
        set_num_or_null(e, "latency_cycles", stages >= 0 && latency >= 0, (double)latency);
        set_num_or_null(e, "results_per_s_per_lc", have_rate, have_rate ? round2(f * 1e6 / lcs_v) : 0);
    }

    /* MACs per second: ROWS * COLS MACs per cycle at the lower Fmax */
    {
        int have_g = macs > 0 && (have_np || have_it);
        set_num_or_null(e, "gmacs", have_g, have_g ? round2((double)macs * f / 1000.0) : 0);
        if (macs > 0)
            cJSON_AddNumberToObject(e, "macs_per_cycle", (double)macs);
    }

    /* extras beyond the fixed columns */
    if (target > 0) {
        cJSON_AddNumberToObject(e, "target_mhz", target);
        if (have_np || have_it)
            cJSON_AddNumberToObject(e, "slack_pct", round2((f - target) / target * 100.0));
    } else {
        cJSON_AddNullToObject(e, "target_mhz");
    }
    if (seed >= 0)
        cJSON_AddNumberToObject(e, "seed", (double)seed);
    if (commit && commit[0])
        cJSON_AddStringToObject(e, "commit", commit);
    if (io_bits >= 0)
        cJSON_AddNumberToObject(e, "harness_io_bits", (double)io_bits);
    cJSON_AddItemToObject(e, "available", avail);
    if (stat_p) {
        cJSON *s = load_json(stat_p);
        if (!s)
            return 1;
        cJSON *cells = stat_cells(s);
        if (cells)
            cJSON_AddItemToObject(e, "ice40_cells", cJSON_Duplicate(cells, 1));
        cJSON_Delete(s);
    }
    int rc = write_json(out, e);
    cJSON_Delete(pnr);
    cJSON_Delete(e);
    return rc;
}

/* --------------------------------------------------------------- check */

/* "; nextpnr: system clock X MHz, fast clock NET Y MHz, crossings Z ns;
 * limit: L" for an entry with two clocks, "" otherwise. */
static void two_clock_text(const cJSON *e, char *buf, size_t n)
{
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(e, "two_clocks");
    buf[0] = 0;
    if (!tc)
        return;
    double fs = 0, ff = 0, x = 0;
    int hs = json_number(cJSON_GetObjectItemCaseSensitive(tc, "fmax_system_nextpnr_mhz"), &fs);
    json_number(cJSON_GetObjectItemCaseSensitive(tc, "fmax_fast_nextpnr_mhz"), &ff);
    int hx = json_number(cJSON_GetObjectItemCaseSensitive(tc, "crossing_max_ns"), &x);
    const char *fc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(tc, "fast_clock"));
    const char *lim = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "fmax_limit"));
    char sys[32] = "none", xs[32] = "none";
    if (hs)
        snprintf(sys, sizeof sys, "%.2f MHz", fs);
    if (hx)
        snprintf(xs, sizeof xs, "%.2f ns", x);
    snprintf(buf, n, "; nextpnr: system clock %s, fast clock %s %.2f MHz, crossings %s; limit: %s", sys,
             fc ? fc : "?", ff, xs, lim ? lim : "?");
}

static int cmd_check(int argc, char **argv)
{
    if (argc != 1)
        return die("usage: spu-ppa check ENTRY.json");
    cJSON *e = load_json(argv[0]);
    if (!e)
        return 1;
    int bad = 0;
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
    const char *dev = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "device"));
    cJSON *avail = cJSON_GetObjectItemCaseSensitive(e, "available");
    static const char *keys[] = {"lcs", "dsps", "ebr", "spram"};
    static const char *what[] = {"logic cells", "DSP blocks", "EBR blocks", "SPRAM blocks"};
    for (int i = 0; i < 4; i++) {
        double used, av;
        if (json_number(cJSON_GetObjectItemCaseSensitive(e, keys[i]), &used) &&
            json_number(cJSON_GetObjectItemCaseSensitive(avail, keys[i]), &av) && used > av) {
            fprintf(stderr, "FAIL %s: uses %.0f %s, the %s has %.0f\n", name, used, what[i], dev, av);
            bad = 1;
        }
    }
    double f, t, fn = 0, fi = 0;
    json_number(cJSON_GetObjectItemCaseSensitive(e, "fmax_nextpnr_mhz"), &fn);
    json_number(cJSON_GetObjectItemCaseSensitive(e, "fmax_icetime_mhz"), &fi);
    if (json_number(cJSON_GetObjectItemCaseSensitive(e, "target_mhz"), &t)) {
        if (!json_number(cJSON_GetObjectItemCaseSensitive(e, "fmax_mhz"), &f)) {
            fprintf(stderr, "FAIL %s: no timing figure to check against %.2f MHz\n", name, t);
            bad = 1;
        } else if (f < t) {
            char tc[200];
            two_clock_text(e, tc, sizeof tc);
            fprintf(stderr,
                    "FAIL %s: timing not met: fmax %.2f MHz (nextpnr %.2f, icetime %.2f%s) < "
                    "target %.2f MHz\n",
                    name, f, fn, fi, tc, t);
            bad = 1;
        }
    }
    if (!bad) {
        double lcs = 0, al = 0;
        json_number(cJSON_GetObjectItemCaseSensitive(e, "lcs"), &lcs);
        json_number(cJSON_GetObjectItemCaseSensitive(avail, "lcs"), &al);
        if (!json_number(cJSON_GetObjectItemCaseSensitive(e, "fmax_mhz"), &f))
            f = 0;
        char tc[200];
        two_clock_text(e, tc, sizeof tc);
        printf("OK %s: %.0f/%.0f LCs, fmax %.2f MHz (nextpnr %.2f, icetime %.2f%s)", name, lcs, al,
               f, fn, fi, tc);
        double g, m;
        if (json_number(cJSON_GetObjectItemCaseSensitive(e, "gmacs"), &g) &&
            json_number(cJSON_GetObjectItemCaseSensitive(e, "macs_per_cycle"), &m))
            printf(", %.2f GMAC/s (%.0f MACs/cycle)", g, m);
        if (json_number(cJSON_GetObjectItemCaseSensitive(e, "target_mhz"), &t))
            printf(" >= target %.2f MHz (slack %.1f %%)", t, (f - t) / t * 100.0);
        double sd;
        if (json_number(cJSON_GetObjectItemCaseSensitive(e, "seed"), &sd))
            printf(", seed %.0f", sd);
        printf("\n");
    }
    cJSON_Delete(e);
    return bad;
}

/* ------------------------------------------------------- validate */

static int validate_entry(const cJSON *e, int idx, char *why, size_t n)
{
    if (!cJSON_IsObject(e)) {
        snprintf(why, n, "entry %d is not an object", idx);
        return 0;
    }
    for (size_t i = 0; i < N_FIELDS; i++) {
        const ppa_field *f = &k_fields[i];
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, f->key);
        int ok;
        if (!v)
            /* entries older than the column: ok */
            ok = !strcmp(f->key, "status") || !strcmp(f->key, "stages") ||
                 !strcmp(f->key, "latency_cycles") || !strcmp(f->key, "results_per_s_per_lc") ||
                 !strcmp(f->key, "gmacs");
        else if (cJSON_IsNull(v))
            ok = f->nullable;
        else if (f->type == F_STR)
            ok = cJSON_IsString(v) && v->valuestring[0];
        else if (f->type == F_INT)
            ok = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble == floor(v->valuedouble);
        else
            ok = cJSON_IsNumber(v) && v->valuedouble > 0;
        if (!ok) {
            snprintf(why, n, "entry %d: field %s missing or of the wrong type", idx, f->key);
            return 0;
        }
    }
    const char *kind = cJSON_GetObjectItemCaseSensitive(e, "kind")->valuestring;
    const char *dev = cJSON_GetObjectItemCaseSensitive(e, "device")->valuestring;
    if (strcmp(kind, "unit") && strcmp(kind, "spu") && strcmp(kind, "probe")) {
        snprintf(why, n, "entry %d: kind %s is not unit|spu|probe", idx, kind);
        return 0;
    }
    if (!device_find(dev)) {
        snprintf(why, n, "entry %d: device %s is not up5k|hx8k|generic", idx, dev);
        return 0;
    }
    double fn, fi, f;
    const cJSON *jf = cJSON_GetObjectItemCaseSensitive(e, "fmax_mhz");
    if (json_number(jf, &f)) {
        int hn = json_number(cJSON_GetObjectItemCaseSensitive(e, "fmax_nextpnr_mhz"), &fn);
        int hi = json_number(cJSON_GetObjectItemCaseSensitive(e, "fmax_icetime_mhz"), &fi);
        double lo = hn && hi ? fmin(fn, fi) : hn ? fn : hi ? fi : -1;
        if (fabs(lo - f) > 0.011) {
            snprintf(why, n, "entry %d: fmax_mhz is not the lower of nextpnr and icetime", idx);
            return 0;
        }
    }
    return 1;
}

static int validate_report(const cJSON *r, char *why, size_t n)
{
    const char *schema = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "schema"));
    if (!schema || strcmp(schema, PPA_SCHEMA)) {
        snprintf(why, n, "schema is not %s", PPA_SCHEMA);
        return 0;
    }
    const cJSON *es = cJSON_GetObjectItemCaseSensitive(r, "entries");
    if (!cJSON_IsArray(es)) {
        snprintf(why, n, "entries is not an array");
        return 0;
    }
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, es) if (!validate_entry(e, i++, why, n)) return 0;
    return 1;
}

static int cmd_validate(int argc, char **argv)
{
    if (argc != 1)
        return die("usage: spu-ppa validate REPORT.json");
    cJSON *r = load_json(argv[0]);
    if (!r)
        return 1;
    char why[256];
    int ok = validate_report(r, why, sizeof why);
    if (ok)
        printf("%s: valid %s report, %d entries\n", argv[0], PPA_SCHEMA,
               cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "entries")));
    else
        fprintf(stderr, "%s: invalid: %s\n", argv[0], why);
    cJSON_Delete(r);
    return ok ? 0 : 1;
}

/* ---------------------------------------------------------------- report */

static void cell_text(const cJSON *v, const ppa_field *f, char *buf, size_t n)
{
    if (!v || cJSON_IsNull(v))
        snprintf(buf, n, "%s", "");
    else if (f->type == F_STR)
        snprintf(buf, n, "%s", v->valuestring);
    else if (f->type == F_INT)
        snprintf(buf, n, "%.0f", v->valuedouble);
    else
        snprintf(buf, n, "%.2f", v->valuedouble);
}

static int entry_cmp(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    static const char *keys[] = {"kind", "name", "device"};
    for (int i = 0; i < 3; i++) {
        const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, keys[i]));
        const char *t = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(y, keys[i]));
        int c = strcmp(s ? s : "", t ? t : "");
        if (c)
            return i == 0 ? -c : c; /* "unit" before "spu" */
    }
    return 0;
}

static int cmd_report(int argc, char **argv)
{
    if (argc < 1)
        return die("usage: spu-ppa report OUTDIR ENTRY.json...");
    const char *dir = argv[0];
    int n = argc - 1;
    cJSON **es = calloc((size_t)n + 1, sizeof *es);
    if (!es)
        return die("out of memory");
    for (int i = 0; i < n; i++)
        if (!(es[i] = load_json(argv[i + 1])))
            return 1;
    qsort(es, (size_t)n, sizeof *es, entry_cmp);

    cJSON *r = cJSON_CreateObject();
    cJSON_AddStringToObject(r, "schema", PPA_SCHEMA);
    cJSON_AddStringToObject(r, "flow",
                            "yosys synth_ice40 (-dsp on up5k) + nextpnr-ice40 --report + icetime -i -j; "
                            "generic: synth; dfflegalize -cell $_DFF_P_ 01; abc -g cmos2; stat -tech cmos");
    cJSON *arr = cJSON_AddArrayToObject(r, "entries");
    sbuf csv = {0}, md = {0};
    sb_printf(&md, "| ");
    for (size_t f = 0; f < N_FIELDS; f++) {
        sb_printf(&csv, "%s%s", f ? "," : "", k_fields[f].key);
        sb_printf(&md, "%s | ", k_fields[f].key);
    }
    sb_printf(&csv, "\n");
    sb_printf(&md, "\n|");
    for (size_t f = 0; f < N_FIELDS; f++)
        sb_printf(&md, "%s|", k_fields[f].type == F_STR ? "---" : "---:");
    sb_printf(&md, "\n");
    for (int i = 0; i < n; i++) {
        char why[256];
        if (!validate_entry(es[i], i, why, sizeof why))
            return die("%s", why);
        sb_printf(&md, "| ");
        for (size_t f = 0; f < N_FIELDS; f++) {
            char cell[128];
            cell_text(cJSON_GetObjectItemCaseSensitive(es[i], k_fields[f].key), &k_fields[f], cell,
                      sizeof cell);
            if (strpbrk(cell, ",\"\n")) {
                /* RFC 4180: a field with a comma or a quote is quoted, its quotes doubled */
                sb_printf(&csv, "%s\"", f ? "," : "");
                for (const char *c = cell; *c; c++)
                    sb_printf(&csv, *c == '"' ? "\"\"" : "%c", *c);
                sb_printf(&csv, "\"");
            } else {
                sb_printf(&csv, "%s%s", f ? "," : "", cell);
            }
            sb_printf(&md, "%s | ", cell[0] ? cell : "-");
        }
        sb_printf(&csv, "\n");
        sb_printf(&md, "\n");
        cJSON_AddItemToArray(arr, es[i]);
    }
    free(es);
    size_t dl = strlen(dir) + 32;
    char *p = malloc(dl);
    if (!p)
        return die("out of memory");
    int rc = 0;
    snprintf(p, dl, "%s/report.json", dir);
    rc |= write_json(p, r);
    snprintf(p, dl, "%s/report.csv", dir);
    rc |= write_text(p, csv.s ? csv.s : "");
    snprintf(p, dl, "%s/report.md", dir);
    rc |= write_text(p, md.s ? md.s : "");
    if (rc == 0) {
        /* the SPU configurations' throughput, beside their Fmax */
        const cJSON *e;
        cJSON_ArrayForEach(e, arr)
        {
            double f, g;
            const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "kind"));
            if (!k || strcmp(k, "spu"))
                continue;
            const char *nm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
            const char *dv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "device"));
            if (json_number(cJSON_GetObjectItemCaseSensitive(e, "fmax_mhz"), &f) &&
                json_number(cJSON_GetObjectItemCaseSensitive(e, "gmacs"), &g))
                printf("spu-ppa: %s (%s): fmax %.2f MHz, %.2f GMAC/s\n", nm, dv, f, g);
            else
                printf("spu-ppa: %s (%s): no timing (%s)\n", nm, dv,
                       cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "status")));
        }
        printf("spu-ppa: %d entries -> %s/report.{json,csv,md}\n", n, dir);
    }
    free(p);
    free(csv.s);
    free(md.s);
    cJSON_Delete(r);
    return rc;
}

/* ------------------------------------------------------------------ diff */

static const cJSON *find_entry(const cJSON *r, const cJSON *like)
{
    const char *nm = cJSON_GetObjectItemCaseSensitive(like, "name")->valuestring;
    const char *dv = cJSON_GetObjectItemCaseSensitive(like, "device")->valuestring;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(r, "entries"))
    {
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring, nm) &&
            !strcmp(cJSON_GetObjectItemCaseSensitive(e, "device")->valuestring, dv))
            return e;
    }
    return NULL;
}

static int cmd_diff(int argc, char **argv)
{
    double threshold = -1;
    if (argc == 4 && !strcmp(argv[2], "--threshold"))
        threshold = atof(argv[3]);
    else if (argc != 2)
        return die("usage: spu-ppa diff OLD.json NEW.json [--threshold PCT]");
    cJSON *a = load_json(argv[0]), *b = a ? load_json(argv[1]) : NULL;
    if (!a || !b)
        return 1;
    char why[256];
    if (!validate_report(a, why, sizeof why) || !validate_report(b, why, sizeof why))
        return die("diff: %s", why);
    int changes = 0, worse = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(b, "entries"))
    {
        const char *nm = cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring;
        const char *dv = cJSON_GetObjectItemCaseSensitive(e, "device")->valuestring;
        const cJSON *o = find_entry(a, e);
        if (!o) {
            printf("+ %s (%s): new entry\n", nm, dv);
            changes++;
            continue;
        }
        for (size_t f = 0; f < N_FIELDS; f++) {
            if (k_fields[f].type == F_STR)
                continue;
            double x, y;
            int hx = json_number(cJSON_GetObjectItemCaseSensitive(o, k_fields[f].key), &x);
            int hy = json_number(cJSON_GetObjectItemCaseSensitive(e, k_fields[f].key), &y);
            if (!hx && !hy)
                continue;
            if (hx != hy) {
                printf("  %s (%s) %s: %s -> %s\n", nm, dv, k_fields[f].key, hx ? "value" : "null",
                       hy ? "value" : "null");
                changes++;
                continue;
            }
            if (fabs(x - y) < 0.005)
                continue;
            double pct = x != 0 ? 100.0 * (y - x) / fabs(x) : 100.0;
            int got_worse = k_fields[f].better * (y - x) < 0;
            printf("%s %s (%s) %s: %g -> %g (%+.1f%%)%s\n", y > x ? "^" : "v", nm, dv,
                   k_fields[f].key, x, y, pct, got_worse ? " worse" : " better");
            changes++;
            if (got_worse && threshold >= 0 && fabs(pct) > threshold)
                worse++;
        }
    }
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(a, "entries"))
    {
        if (!find_entry(b, e)) {
            printf("- %s (%s): entry removed\n", cJSON_GetObjectItemCaseSensitive(e, "name")->valuestring,
                   cJSON_GetObjectItemCaseSensitive(e, "device")->valuestring);
            changes++;
        }
    }
    if (changes == 0)
        printf("no change\n");
    if (threshold >= 0)
        printf("%d figure(s) worse by more than %g%%\n", worse, threshold);
    cJSON_Delete(a);
    cJSON_Delete(b);
    return worse ? 1 : 0;
}

/* ---------------------------------------------------------------- readme */

static int entry_cmp_seed(const void *a, const void *b)
{
    const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
    int c = strcmp(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "name")),
                   cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(y, "name")));
    if (c)
        return c;
    double sx = 0, sy = 0;
    json_number(cJSON_GetObjectItemCaseSensitive(x, "seed"), &sx);
    json_number(cJSON_GetObjectItemCaseSensitive(y, "seed"), &sy);
    return (sx > sy) - (sx < sy);
}

static int cmd_readme(int argc, char **argv)
{
    static const char begin[] = "<!-- board-status:begin", end[] = "<!-- board-status:end -->";
    if (argc < 2)
        return die("usage: spu-ppa readme README.md ENTRY.json...");
    char *text = slurp(argv[0]);
    if (!text)
        return die("readme: cannot read %s", argv[0]);
    char *b = strstr(text, begin), *e = b ? strstr(b, end) : NULL;
    if (!b || !e)
        return die("readme: %s has no %s ... %s region", argv[0], begin, end);
    char *b_eol = strchr(b, '\n');
    if (!b_eol || b_eol > e)
        return die("readme: the begin marker must be a line of its own");
    int n = argc - 1;
    cJSON **es = calloc((size_t)n, sizeof *es);
    if (!es)
        return die("out of memory");
    for (int i = 0; i < n; i++)
        if (!(es[i] = load_json(argv[i + 1])))
            return 1;
    for (int i = 0; i < n; i++)
        if (!cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(es[i], "name")))
            return die("readme: %s has no name", argv[i + 1]);
    qsort(es, (size_t)n, sizeof *es, entry_cmp_seed);
    sbuf s = {0};
    sb_printf(&s, "%.*s", (int)(b_eol + 1 - text), text);
    for (int i = 0; i < n;) {
        const char *nm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(es[i], "name"));
        const char *dv = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(es[i], "device"));
        int j = i;
        double worst_g = -1, worst_slack = 1e9;
        sbuf seeds = {0};
        for (; j < n && !strcmp(nm, cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(es[j], "name"))); j++) {
            const cJSON *x = es[j];
            double sd = 0, f, fn = 0, fi = 0, g, t = 0, lcs = 0, al = 0, sl;
            json_number(cJSON_GetObjectItemCaseSensitive(x, "seed"), &sd);
            const char *st = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "status"));
            const char *cm = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(x, "commit"));
            char at[48] = "";
            if (cm)
                snprintf(at, sizeof at, " at %.40s", cm);
            if (!json_number(cJSON_GetObjectItemCaseSensitive(x, "fmax_mhz"), &f)) {
                sb_printf(&seeds, "%sseed %.0f%s: %s", seeds.s ? "; " : "", sd, at, st ? st : "no result");
                worst_g = 0;
                worst_slack = -100;
                continue;
            }
            json_number(cJSON_GetObjectItemCaseSensitive(x, "fmax_nextpnr_mhz"), &fn);
            json_number(cJSON_GetObjectItemCaseSensitive(x, "fmax_icetime_mhz"), &fi);
            json_number(cJSON_GetObjectItemCaseSensitive(x, "target_mhz"), &t);
            json_number(cJSON_GetObjectItemCaseSensitive(x, "lcs"), &lcs);
            json_number(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(x, "available"), "lcs"),
                        &al);
            sl = t > 0 ? (f - t) / t * 100.0 : 0;
            if (!json_number(cJSON_GetObjectItemCaseSensitive(x, "gmacs"), &g))
                g = 0;
            if (worst_g < 0 || g < worst_g)
                worst_g = g;
            if (sl < worst_slack)
                worst_slack = sl;
            char tc[200];
            two_clock_text(x, tc, sizeof tc);
            sb_printf(&seeds, "%sseed %.0f%s: %.2f MHz (nextpnr %.2f, icetime %.2f%s), %.2f GMAC/s, %.0f/%.0f LCs%s",
                      seeds.s ? "; " : "", sd, at, f, fn, fi, tc, g, lcs, al,
                      st && strcmp(st, "ok") ? " (not ok)" : "");
        }
        double t = 0, mpc = 0, dsp = 0, ebr = 0, spram = 0;
        json_number(cJSON_GetObjectItemCaseSensitive(es[i], "target_mhz"), &t);
        json_number(cJSON_GetObjectItemCaseSensitive(es[i], "macs_per_cycle"), &mpc);
        json_number(cJSON_GetObjectItemCaseSensitive(es[i], "dsps"), &dsp);
        json_number(cJSON_GetObjectItemCaseSensitive(es[i], "ebr"), &ebr);
        json_number(cJSON_GetObjectItemCaseSensitive(es[i], "spram"), &spram);
        sb_printf(&s, "- `%s` (%s, %.0f MACs/cycle, target %.0f MHz): worst %.2f GMAC/s, worst slack %.1f %%; "
                      "%.0f DSP, %.0f EBR, %.0f SPRAM; %s.\n",
                  nm, dv, mpc, t, worst_g < 0 ? 0 : worst_g, worst_slack > 1e8 ? 0 : worst_slack, dsp, ebr,
                  spram, seeds.s ? seeds.s : "");
        free(seeds.s);
        i = j;
    }
    sb_printf(&s, "%s", e);
    int rc = write_text(argv[0], s.s);
    if (rc == 0)
        printf("spu-ppa: %s: board status from %d entries\n", argv[0], n);
    for (int i = 0; i < n; i++)
        cJSON_Delete(es[i]);
    free(es);
    free(s.s);
    free(text);
    return rc;
}

/* ------------------------------------------------------------------ main */

static void usage(void)
{
    fputs("usage: spu-ppa harness|budget|entry|check|report|readme|diff|validate ...\n"
          "  harness PORTS.json TOP OUT.v\n"
          "  budget STAT.json DEVICE\n"
          "  dsp-plan NETLIST.json BUDGET\n"
          "  entry --name N --kind unit|spu|probe --device up5k|hx8k|generic [--top T]\n"
          "        [--target-mhz F] [--io-bits B] [--macs M] [--seed S] [--commit C]\n"
          "        [--fast-clock NET] --stat S --nextpnr R --icetime I\n"
          "        --generic G --netlist L -o ENTRY.json\n"
          "  check ENTRY.json\n"
          "  report OUTDIR ENTRY.json...\n"
          "  diff OLD.json NEW.json [--threshold PCT]\n"
          "  validate REPORT.json\n",
          stderr);
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage();
        return argc < 2 ? 2 : 0;
    }
    const char *cmd = argv[1];
    argc -= 2;
    argv += 2;
    if (!strcmp(cmd, "harness")) return cmd_harness(argc, argv);
    if (!strcmp(cmd, "budget")) return cmd_budget(argc, argv);
    if (!strcmp(cmd, "dsp-plan")) return cmd_dsp_plan(argc, argv);
    if (!strcmp(cmd, "entry")) return cmd_entry(argc, argv);
    if (!strcmp(cmd, "check")) return cmd_check(argc, argv);
    if (!strcmp(cmd, "report")) return cmd_report(argc, argv);
    if (!strcmp(cmd, "readme")) return cmd_readme(argc, argv);
    if (!strcmp(cmd, "diff")) return cmd_diff(argc, argv);
    if (!strcmp(cmd, "validate")) return cmd_validate(argc, argv);
    usage();
    return 2;
}
