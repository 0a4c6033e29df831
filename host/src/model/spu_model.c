/*
 * spu_model.c -- the SPU reference model (functional + cycle), docs/isa.md.
 *
 * An instruction-level interpreter with an exact timeline: instruction n
 * starts at cycle T_n (its FETCH) and costs its base cost plus its waits.
 * The tensor unit (docs/isa.md "Tensor unit") is modelled by the cycles its
 * one-entry queue, its stream engine and the drain unit free up: mm / st /
 * zacc take effect (MACs, the accumulator swap and the drain's writes) when
 * the sequencer hands them over; a program observes the writes only after
 * sync/halt, as on the RTL.
 */
#include "spu/model.h"
#include "spu/isa.h"
#include "model/datapath.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LOOP_DEPTH 16
#define TU_NEVER ((uint64_t)1 << 62)   /* after an mm's range trap: nothing more runs */

typedef struct loop_entry {
    uint32_t start, end, count;
} loop_entry;

struct spu_model {
    spu_model_config cfg;
    uint32_t word_bytes;
    uint8_t *spad;
    uint32_t *ucode;
    spu_dp_acc *acc;                /* active accumulator buffer, rows*cols */
    spu_dp_i128 *bias;              /* per-column bias st adds (`bias`), cols */
    uint32_t args[SPU_NARGS];
    uint32_t regs[SPU_NREGS];
    uint32_t pc;
    int state, trap;
    loop_entry loops[MAX_LOOP_DEPTH];
    uint32_t nloops;
    unsigned cfg_in, cfg_out, cfg_shift, cfg_round, cfg_relu, cfg_ovf;
    uint32_t stride_a, stride_b, stride_c;
    uint64_t now;                 /* T_n relative to RUN */
    /* tensor unit, in cycles relative to RUN (docs/isa.md "Tensor unit") */
    uint64_t tu_launch;           /* launch cycle of the last command queued  */
    uint64_t tu_launch_prev;      /* ... of the one queued before it (chain: two entries) */
    uint64_t tu_mmfree;           /* chain: first cycle an mm may launch      */
    uint64_t tu_last;             /* chain: the cycle the last mm stream read its last step */
    uint64_t tu_engine;           /* first cycle the stream engine is free    */
    uint64_t tu_idle;             /* first cycle nothing is queued or in flight */
    /* chain: an st / zacc token queued whose launch is not decided yet: it
     * travels with the next mm if that mm is queued by `alone` (the cycle it
     * would go alone), launching with it at max(base, the mm's entry + 1) */
    struct {
        int valid, st;
        uint64_t alone, base, d;
    } tokp;
    uint64_t st_ready;            /* first cycle the next st may launch       */
    uint64_t drain_done;          /* first cycle sync / halt may complete     */
    uint64_t drain_idle;          /* first cycle the drain unit writes nothing (bias) */
    int      drained;             /* an st ran in this RUN (its drain wrote)  */
    uint64_t kill_at;             /* an mm's bad step, or TU_NEVER            */
    uint32_t kill_pc;
    uint32_t watchdog;
    uint64_t cnt[SPU_CNT_COUNT];
    /* vector unit (docs/isa.md "Vector unit") */
    uint32_t vl, vstride_d, vstride_1, vstride_2;
    uint8_t lut[256];
    spu_model_trace_fn trace;
    void *trace_ctx;
};

void spu_model_config_default(spu_model_config *cfg)
{
    cfg->rows = 8;
    cfg->cols = 8;
    cfg->spad_bytes = 256 * 1024;
    cfg->spad_banks = 4;
    cfg->ucode_words = 1024;
    cfg->loop_depth = 4;
    cfg->drain_lanes = 0;
    cfg->formats = 0;
    cfg->vector = 1;
    cfg->spram = 0;
    cfg->chain = 1;
    cfg->bus = 1;
    cfg->pair = 0;
    cfg->overlap = 1;
}

uint32_t spu_model_all_formats(void)
{
    uint32_t f = 0;
    for (size_t i = 0; i < spu_dtype_table_len; i++)
        if (spu_dtype_table[i].array)
            f |= 1u << spu_dtype_table[i].code;
    return f;
}

int spu_model_cfg_check(uint32_t formats, unsigned in_code, unsigned out_code)
{
    const spu_dtype_desc *in = spu_dtype_by_code(in_code);
    if (!in || !in->array)
        return SPU_TRAP_ILLEGAL;
    const spu_dtype_desc *out = spu_dtype_by_code(out_code);
    /* the MX element types are inputs only (spu_decoder: out_known) */
    if (!out || spu_dp_is_mx(out_code))
        return SPU_TRAP_ILLEGAL;
    if (!(formats & (1u << in_code)))
        return SPU_TRAP_FORMAT;
    /* the float outs need the wide accumulator and its converters, which a
     * build has when it carries a float input format */
    if (out_code != SPU_DTYPE_INT8 && out_code != SPU_DTYPE_INT32 && !(formats & ~(1u << SPU_DTYPE_INT8)))
        return SPU_TRAP_FORMAT;
    return 0;
}

void spu_model_config_from_info(spu_model_config *cfg, const spu_info_t *info)
{
    spu_model_config_default(cfg);
    cfg->rows = info->rows;
    cfg->cols = info->cols;
    cfg->spad_bytes = info->spad_bytes;
    cfg->spad_banks = info->spad_banks;
    cfg->ucode_words = info->ucode_words;
    if (info->loop_depth)
        cfg->loop_depth = info->loop_depth;
    cfg->drain_lanes = info->drain_lanes;
    cfg->formats = info->formats;
    cfg->vector = (info->features & SPU_FEATURE_VECTOR) ? 1 : 0;
    cfg->spram = (info->features & SPU_FEATURE_SPRAM) ? 1 : 0;
    cfg->chain = (info->features & SPU_FEATURE_CHAIN) ? 1 : 0;
    cfg->bus = (info->features & SPU_FEATURE_BUS) ? 1 : 0;
    cfg->pair = (info->features & SPU_FEATURE_PAIR) ? 1 : 0;
    cfg->overlap = (info->features & SPU_FEATURE_OVERLAP) ? 1 : 0;
}

static uint32_t word_bytes_of(const spu_model_config *c)
{
    return c->rows > c->cols ? c->rows : c->cols;
}

int spu_model_create(spu_model **out, const spu_model_config *cfg)
{
    *out = NULL;
    if (!cfg || cfg->rows < 1 || cfg->rows > 64 || cfg->cols < 1 || cfg->cols > 64 ||
        cfg->spad_banks < 1 || (cfg->spad_banks & (cfg->spad_banks - 1)) ||
        cfg->spad_bytes == 0 || cfg->spad_bytes % (cfg->spad_banks * word_bytes_of(cfg)) ||
        cfg->ucode_words < 1 || cfg->ucode_words > (1u << 18) ||
        cfg->loop_depth < 1 || cfg->loop_depth > MAX_LOOP_DEPTH ||
        (cfg->drain_lanes && cfg->cols % cfg->drain_lanes) ||
        (cfg->formats & ~spu_model_all_formats()) ||
        (cfg->formats && !(cfg->formats & (1u << SPU_DTYPE_INT8))) ||
        cfg->spram > 1 || (cfg->spram && cfg->vector) || cfg->chain > 1 || (cfg->chain && cfg->spram) ||
        cfg->pair > 1 || (cfg->pair && (!cfg->spram || !cfg->bus || cfg->chain ||
                                         cfg->formats != 1u << SPU_DTYPE_INT8)) ||
        cfg->overlap > 1)
        return SPU_EINVAL;
    spu_model *m = calloc(1, sizeof *m);
    if (!m)
        return SPU_ENOMEM;
    m->cfg = *cfg;
    if (!m->cfg.formats)
        m->cfg.formats = spu_model_all_formats();
    m->word_bytes = word_bytes_of(cfg);
    m->spad = calloc(cfg->spad_bytes, 1);
    m->ucode = calloc(cfg->ucode_words, sizeof *m->ucode);
    m->acc = calloc((size_t)cfg->rows * cfg->cols, sizeof *m->acc);
    m->bias = calloc(cfg->cols, sizeof *m->bias);
    if (!m->spad || !m->ucode || !m->acc || !m->bias) {
        spu_model_free(m);
        return SPU_ENOMEM;
    }
    m->state = SPU_STATE_IDLE;
    *out = m;
    return 0;
}

void spu_model_free(spu_model *m)
{
    if (!m)
        return;
    free(m->spad);
    free(m->ucode);
    free(m->acc);
    free(m->bias);
    free(m);
}

const spu_model_config *spu_model_get_config(const spu_model *m) { return &m->cfg; }
uint8_t *spu_model_spad(spu_model *m) { return m->spad; }

int spu_model_load_ucode(spu_model *m, uint32_t offset, const uint32_t *w, size_t n)
{
    if (offset > m->cfg.ucode_words || n > m->cfg.ucode_words - offset)
        return SPU_ERANGE;
    if (n)
        memcpy(m->ucode + offset, w, n * sizeof *w);
    return 0;
}

int spu_model_set_args(spu_model *m, const uint32_t *args, int n)
{
    if (n < 0 || n > SPU_NARGS)
        return SPU_EINVAL;
    for (int i = 0; i < n; i++)
        m->args[i] = args[i];
    return 0;
}

void spu_model_set_trace(spu_model *m, spu_model_trace_fn fn, void *ctx)
{
    m->trace = fn;
    m->trace_ctx = ctx;
}

uint32_t spu_model_reg(const spu_model *m, int r)
{
    return (r >= 0 && r < SPU_NREGS) ? m->regs[r] : 0;
}

void spu_model_count_link(spu_model *m, uint64_t rx, uint64_t tx)
{
    m->cnt[SPU_CNT_LINK_RX] += rx;
    m->cnt[SPU_CNT_LINK_TX] += tx;
}

uint32_t spu_model_st_gap(const spu_model_config *cfg)
{
    /* the drain starts at W + C + 1 and reads group g of row i in cycle
     * W + C + 2 + i*G + g; the next wave captures tile (i, j) at the end of
     * cycle W' + 2 + i + j: W' >= W + C + (R-1)(G-1) leaves every tile read
     * first; W' > W + D lets the drain finish before the next one starts */
    const uint32_t lanes = cfg->drain_lanes ? cfg->drain_lanes : cfg->cols;
    const uint32_t g = cfg->cols / lanes, d = cfg->rows * g;
    /* buses: the drain starts at W + 2 and reads its last group in W + 2 + d;
     * the next wave captures every tile in W' + 2 */
    const uint32_t h = cfg->bus ? d : cfg->cols + (cfg->rows - 1) * (g - 1);
    return 1 + (d > h ? d : h);
}

uint32_t spu_model_wave_span(const spu_model_config *cfg)
{
    /* k-step pairs (buses only): a pair's second step lands half a cycle
     * after a single step's, so the wave takes 3 */
    return cfg->pair ? 3 : cfg->bus ? 2 : cfg->rows + cfg->cols;
}

uint32_t spu_model_drain_cycles(const spu_model_config *cfg, unsigned out_dtype)
{
    /* one group of `lanes` accumulators per cycle, whatever its bytes
     * (docs/isa.md `st`) */
    uint32_t lanes = cfg->drain_lanes ? cfg->drain_lanes : cfg->cols;
    (void)out_dtype;
    return cfg->rows * (cfg->cols / lanes);
}

int8_t spu_requant_int8(int32_t acc, unsigned shift, unsigned round, int relu)
{
    int64_t q = acc;
    if (shift) {
        int64_t fl = q >> shift;                       /* floor */
        int64_t rem = q - (fl * ((int64_t)1 << shift)); /* 0 .. 2^s-1 */
        int64_t half = (int64_t)1 << (shift - 1);
        switch (round) {
        case SPU_ROUND_RNE: q = fl + (rem > half || (rem == half && (fl & 1))); break;
        case SPU_ROUND_RTZ: q = fl + (q < 0 && rem != 0); break;
        default:            q = fl + (rem > half || (rem == half && q >= 0)); break;
        }
    }
    if (q > 127) q = 127;
    if (q < -128) q = -128;
    if (relu && q < 0) q = 0;
    return (int8_t)q;
}

static void clear_acc(spu_model *m)
{
    memset(m->acc, 0, (size_t)m->cfg.rows * m->cfg.cols * sizeof *m->acc);
}

static void reset_run_state(spu_model *m)
{
    memset(m->regs, 0, sizeof m->regs);
    for (int i = 0; i < SPU_NARGS; i++)
        m->regs[1 + i] = m->args[i];
    m->nloops = 0;
    m->cfg_in = spu_cfg_field_table[SPU_CFG_IN].def;
    m->cfg_out = spu_cfg_field_table[SPU_CFG_OUT].def;
    m->cfg_shift = spu_cfg_field_table[SPU_CFG_SHIFT].def;
    m->cfg_round = spu_cfg_field_table[SPU_CFG_ROUND].def;
    m->cfg_relu = spu_cfg_field_table[SPU_CFG_RELU].def;
    m->cfg_ovf = spu_cfg_field_table[SPU_CFG_OVF].def;
    m->stride_a = m->word_bytes;
    m->stride_b = m->word_bytes;
    m->stride_c = m->cfg.cols * 4;
    clear_acc(m);
    m->now = 0;
    m->tu_launch = m->tu_engine = m->tu_idle = m->st_ready = m->drain_done = m->drain_idle = 0;
    m->tu_launch_prev = m->tu_mmfree = m->tu_last = 0;
    m->tokp.valid = 0;
    memset(m->bias, 0, m->cfg.cols * sizeof *m->bias);
    m->drained = 0;
    m->kill_at = TU_NEVER;
    m->kill_pc = 0;
    m->trap = SPU_TRAP_NONE;
    for (int i = 0; i <= SPU_CNT_DRAIN_BUSY; i++)
        m->cnt[i] = 0;
    m->cnt[SPU_CNT_VEC_BUSY] = m->cnt[SPU_CNT_VEC_STALL] = 0;
    m->vl = 0;
    m->vstride_d = m->vstride_1 = m->vstride_2 = m->word_bytes;
    memset(m->lut, 0, sizeof m->lut);
}

int spu_model_start(spu_model *m, uint32_t pc, uint32_t watchdog)
{
    reset_run_state(m);
    m->pc = pc;
    m->watchdog = watchdog;
    m->state = SPU_STATE_RUNNING;
    return 0;
}

void spu_model_stop(spu_model *m)
{
    m->state = SPU_STATE_IDLE;
    m->trap = SPU_TRAP_NONE;
}

static int do_trap(spu_model *m, int cause)
{
    m->state = SPU_STATE_TRAPPED;
    m->trap = cause;
    m->cnt[SPU_CNT_CYCLES] = m->now;
    return 0;
}

static uint32_t bank_of(const spu_model *m, uint64_t addr)
{
    return (uint32_t)(addr / (m->cfg.spad_bytes / m->cfg.spad_banks));
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* The cycle a tensor instruction whose EXEC starts at e0 is taken by the
 * queue (the previous command has launched by then, or launches then; chain:
 * two entries, so the command two before -- a pending token is the last
 * queued, the one before it launched at tu_launch). */
static uint64_t tu_accept(const spu_model *m, uint64_t e0)
{
    if (!m->cfg.chain)
        return max64(e0, m->tu_launch);
    return max64(e0, m->tokp.valid ? m->tu_launch : m->tu_launch_prev);
}

static void tu_queued(spu_model *m, uint64_t L)
{
    m->tu_launch_prev = m->tu_launch;
    m->tu_launch = L;
}

/* Launch cycle of a command accepted in cycle e (st: also the drain unit;
 * mm with single-port SPRAM banks: also every write of the last st, so its
 * stream never meets a drain write -- spu_core's mm_ok; chain: an mm from
 * the last step of the stream before). */
enum { TU_MM = 0, TU_ST = 1, TU_TOK = 2 };
static uint64_t tu_launch(spu_model *m, uint64_t e, int kind)
{
    uint64_t L = max64(e + 1, kind == TU_MM && m->cfg.chain ? m->tu_mmfree : m->tu_engine);
    if (kind == TU_ST)
        L = max64(L, m->st_ready);
    if (kind == TU_MM && m->cfg.spram)
        L = max64(L, m->drain_idle);
    tu_queued(m, L);
    return L;
}

/* A token's wave, its slot (the cycle it launches alone, or the cycle the
 * first step of the mm it travels with issues) W: it reaches the last tile
 * at G = W + ROWS + COLS (buses: W + 2; k-step pairs: W + 3). An st's
 * drain starts at S = G (chain, systolic: S = W + COLS + 1, when row 0 is
 * captured) and writes S+1..S+d; chain: the next st launches from W +
 * spu_model_st_gap() (docs/isa.md "Chained streams"). */
static void tok_wave(spu_model *m, int st, uint64_t W, uint64_t d)
{
    const uint64_t G = W + spu_model_wave_span(&m->cfg);
    m->tu_idle = max64(m->tu_idle, G + 1);
    if (!st)
        return;
    const uint64_t S = m->cfg.chain && !m->cfg.bus ? W + m->cfg.cols + 1 : G;
    m->st_ready = m->cfg.chain ? W + spu_model_st_gap(&m->cfg) : max64(G + 1, G + d - 1);
    m->drain_done = S + d - 1;
    m->drain_idle = S + d + 2;    /* writes formed S+1..S+d, the last one lands at S+d+1 */
}

/* chain: the pending token goes alone, in its own slot (no mm behind it in
 * time, or an instruction that waits for the tensor unit came first). */
static void tok_settle(spu_model *m)
{
    if (!m->tokp.valid)
        return;
    const uint64_t L = m->tokp.alone;
    m->tokp.valid = 0;
    tu_queued(m, L);
    m->tu_engine = m->tu_mmfree = L + 1;
    tok_wave(m, m->tokp.st, L, m->tokp.d);
}

/* st / zacc reach the queue at e: the launch now (no chain), or pending.
 * 0: it never launches (behind an mm that traps), so it has no effect. */
static int tok_queue(spu_model *m, uint64_t e, int kind, uint64_t d)
{
    if (!m->cfg.chain) {
        const uint64_t L = tu_launch(m, e, kind);
        if (L >= TU_NEVER) {
            m->tu_engine = m->tu_idle = TU_NEVER;
            return 0;
        }
        m->tu_engine = L + 1;
        tok_wave(m, kind == TU_ST, L, d);
        return 1;
    }
    tok_settle(m);                      /* a token before it: no mm between */
    const uint64_t st = kind == TU_ST ? m->st_ready : 0;
    const uint64_t alone = max64(max64(e + 1, m->tu_engine), st);
    if (alone >= TU_NEVER) {            /* behind an mm that traps: it stays queued */
        tu_queued(m, TU_NEVER);
        m->tu_engine = m->tu_mmfree = m->tu_idle = TU_NEVER;
        return 0;
    }
    m->tokp.valid = 1;
    m->tokp.st = kind == TU_ST;
    m->tokp.alone = alone;
    m->tokp.base = max64(max64(e + 1, m->tu_mmfree), st);
    m->tokp.d = d;
    return 1;
}

/* mm: returns 0 or a trap cause; *extra receives the extra cycles. */
/* Index of the first step s whose word base + s*stride (span bytes used)
 * ends beyond limit; UINT64_MAX if none does. */
static uint64_t first_bad_step(uint64_t base, uint64_t stride, uint32_t span, uint64_t limit)
{
    if (base + span > limit)
        return 0;
    if (stride == 0)
        return UINT64_MAX;
    return (limit - span - base) / stride + 1;
}

/* Cycles the stream takes to issue word steps 0..n-1 of an mm at a, b, in
 * order (docs/isa.md "Tensor unit", "k-step pairs"): a step 1 cycle, or 2
 * when its A and B words share a bank (*conflicts counts those); with k-step
 * pairs, steps s and s+1 in one cycle when both strides are one word, A and
 * B are on even words in different banks and s+1 < n. The hardware asks for
 * two steps left, not for range: an even word inside the scratchpad has its
 * neighbour inside too (a pair needs two banks, so SPAD_BYTES is a multiple
 * of 2 * WORD_BYTES), so with n the steps before the first bad one the two
 * agree. */
static uint64_t mm_issue_cycles(const spu_model *m, uint64_t a, uint64_t b, uint64_t n, uint64_t *conflicts)
{
    const uint64_t wb = m->word_bytes;
    const int pairs = m->cfg.pair && m->stride_a == wb && m->stride_b == wb;
    uint64_t cycles = 0;
    *conflicts = 0;
    for (uint64_t s = 0; s < n; s++) {
        const uint64_t pa = a + s * m->stride_a, pb = b + s * m->stride_b;
        const int same = bank_of(m, pa) == bank_of(m, pb);
        if (pairs && !same && (pa / wb) % 2 == 0 && (pb / wb) % 2 == 0 && s + 1 < n)
            s++;                      /* a pair: s and s + 1 in this cycle */
        cycles += 1 + same;
        *conflicts += same;
    }
    return cycles;
}

static int exec_mm(spu_model *m, uint32_t a, uint32_t b, uint32_t k, uint64_t *extra)
{
    const uint32_t R = m->cfg.rows, C = m->cfg.cols, wb = m->word_bytes;
    *extra = 0;
    if (k == 0) {               /* no effect; waits like any mm for the queue */
        *extra = tu_accept(m, m->now + 1) - (m->now + 1);
        return 0;
    }
    if (a % wb || b % wb || m->stride_a % wb || m->stride_b % wb)
        return SPU_TRAP_MISALIGNED;
    const uint64_t e = tu_accept(m, m->now + 1);
    *extra = e - (m->now + 1);
    uint64_t L;
    /* chain: a pending token travels with this mm when the mm is queued
     * before the token would go alone and its first step is inside */
    if (m->tokp.valid && e + 1 <= m->tokp.alone && a < m->cfg.spad_bytes && b < m->cfg.spad_bytes) {
        L = max64(m->tokp.base, e + 1);
        m->tokp.valid = 0;
        tu_queued(m, L);
        tu_queued(m, L);
        /* launched with the stream's last step: the token rides with the
         * mm's first step; the engine free: it takes the slot L */
        const uint64_t W = L == m->tu_last ? L + 1 + (bank_of(m, a) == bank_of(m, b)) : L;
        tok_wave(m, m->tokp.st, W, m->tokp.d);
    } else {
        tok_settle(m);
        L = tu_launch(m, e, TU_MM);
    }
    if (L >= TU_NEVER) {                 /* behind an mm that traps: never runs */
        m->tu_engine = m->tu_mmfree = m->tu_idle = TU_NEVER;
        return 0;
    }
    /* The steps run in order; the first whose A or B word lies outside the
     * scratchpad traps SPAD_RANGE when it is reached, after the steps before
     * it (docs/isa.md). bf16: 2k word steps, word 2s the low bytes of k-step
     * s and word 2s + 1 its high bytes (spu_load_unit), each read and counted
     * as an int8 step; a k-step whose second word traps adds nothing. */
    const int bf = m->cfg_in == SPU_DTYPE_BF16;
    /* MX: k element words and, after every 32 and after the last, a scale
     * word (A byte i: row i's E8M0 block scale, B byte j: column j's) */
    const int mx = spu_dp_is_mx(m->cfg_in);
    const uint64_t words = bf ? 2 * (uint64_t)k : mx ? (uint64_t)k + ((uint64_t)k + 31) / 32 : k;
    const uint64_t steps_a = first_bad_step(a, m->stride_a, R, m->cfg.spad_bytes);
    const uint64_t steps_b = first_bad_step(b, m->stride_b, C, m->cfg.spad_bytes);
    const uint64_t good = steps_a < steps_b ? steps_a : steps_b;
    const uint64_t run = good < words ? good : words;
    uint64_t conflicts;
    const uint64_t cycles = mm_issue_cycles(m, a, b, run, &conflicts);
    for (uint64_t s = 0; s < run; s++) {
        uint64_t pa = a + s * m->stride_a, pb = b + s * m->stride_b;
        if (bf) {
            if (!(s & 1))
                continue;
            const uint8_t *la = m->spad + pa - m->stride_a, *lb = m->spad + pb - m->stride_b;
            const uint8_t *ha = m->spad + pa, *hb = m->spad + pb;
            for (uint32_t i = 0; i < R; i++) {
                spu_dp_acc *row = m->acc + (size_t)i * C;
                const uint16_t va = (uint16_t)(la[i] | ha[i] << 8);
                for (uint32_t j = 0; j < C; j++)
                    spu_dp_mac_bf16(&row[j], va, (uint16_t)(lb[j] | hb[j] << 8));
            }
            continue;
        }
        const uint8_t *va = m->spad + pa, *vb = m->spad + pb;
        if (mx) {
            const int scale = s % 33 == 32 || s == words - 1;
            for (uint32_t i = 0; i < R; i++) {
                spu_dp_acc *row = m->acc + (size_t)i * C;
                for (uint32_t j = 0; j < C; j++) {
                    if (scale) spu_dp_mx_scale(&row[j], m->cfg_in, va[i], vb[j]);
                    else       spu_dp_mac_mx(&row[j], m->cfg_in, va[i], vb[j]);
                }
            }
            continue;
        }
        for (uint32_t i = 0; i < R; i++) {
            spu_dp_acc *row = m->acc + (size_t)i * C;
            for (uint32_t j = 0; j < C; j++)
                spu_dp_mac(&row[j], m->cfg_in, va[i], vb[j]);
        }
    }
    m->cnt[SPU_CNT_MAC_ACTIVE] += run;      /* k-steps (a pair counts 2) */
    m->cnt[SPU_CNT_STALL_BANK] += conflicts;
    m->cnt[SPU_CNT_MM_CYCLES] += cycles;
    if (run < words) {           /* the stream reaches step `run` outside: trap then */
        m->kill_at = L + 1 + cycles;
        m->kill_pc = m->pc;
        m->tu_engine = m->tu_mmfree = m->tu_idle = TU_NEVER;   /* (it launched: the queue is free) */
        return 0;
    }
    const uint64_t last = L + cycles;    /* cycle of the last step's read */
    m->tu_engine = last + 1;
    m->tu_mmfree = last;                 /* chain: the next mm launches with the last step */
    m->tu_last = last;
    m->tu_idle = max64(m->tu_idle, last + spu_model_wave_span(&m->cfg) + 1);
    return 0;
}

static int exec_st(spu_model *m, uint32_t addr, uint64_t *extra)
{
    const uint32_t R = m->cfg.rows, C = m->cfg.cols, wb = m->word_bytes;
    const spu_dtype_desc *out = spu_dtype_by_code(m->cfg_out);
    if (addr % wb || m->stride_c % wb)
        return SPU_TRAP_MISALIGNED;
    if ((uint64_t)addr + (uint64_t)(R - 1) * m->stride_c + (uint64_t)C * out->bytes > m->cfg.spad_bytes)
        return SPU_TRAP_SPAD_RANGE;
    const uint64_t e = tu_accept(m, m->now + 1);
    *extra = e - (m->now + 1);
    uint32_t d = spu_model_drain_cycles(&m->cfg, m->cfg_out);
    m->cnt[SPU_CNT_DRAIN_BUSY] += d;
    if (!tok_queue(m, e, TU_ST, d))
        return 0;
    const spu_dp_outcfg oc = { m->cfg_in, m->cfg_out, m->cfg_shift, m->cfg_round, (int)m->cfg_relu, (int)m->cfg_ovf };
    const uint32_t ob = out->bytes;
    m->drained = 1;
    for (uint32_t i = 0; i < R; i++) {
        uint8_t *dst = m->spad + addr + (size_t)i * m->stride_c;
        for (uint32_t j = 0; j < C; j++) {
            const uint32_t u = spu_dp_out(&m->acc[(size_t)i * C + j], m->bias[j], &oc);
            for (uint32_t b = 0; b < ob; b++)
                dst[ob * j + b] = (uint8_t)(u >> (8 * b));
        }
    }
    clear_acc(m);
    return 0;
}

/* bias: COLS elements of 4 bytes (cfg in = int8) or 8 (a float in) at addr. */
static uint32_t bias_bytes(const spu_model *m)
{
    return m->cfg_in != SPU_DTYPE_INT8 ? 8 : 4;
}

static int bias_check(const spu_model *m, uint32_t addr)
{
    /* the bias registers are in builds with a float format (not the boards') */
    if (!(m->cfg.formats & ~(1u << SPU_DTYPE_INT8)))
        return SPU_TRAP_FORMAT;
    if (addr % m->word_bytes)
        return SPU_TRAP_MISALIGNED;
    if ((uint64_t)addr + (uint64_t)m->cfg.cols * bias_bytes(m) > m->cfg.spad_bytes)
        return SPU_TRAP_SPAD_RANGE;
    return 0;
}

/* bias (after its wait): read the words, one per cycle (*extra += their count). */
static void exec_bias(spu_model *m, uint32_t addr, uint64_t *extra)
{
    const uint32_t bb = bias_bytes(m), C = m->cfg.cols;
    for (uint32_t j = 0; j < C; j++) {
        const uint8_t *p = m->spad + addr + (size_t)j * bb;
        uint64_t u = 0;
        for (uint32_t b = 0; b < bb; b++)
            u |= (uint64_t)p[b] << (8 * b);
        m->bias[j] = bb == 4 ? (spu_dp_i128)(int32_t)(uint32_t)u : (spu_dp_i128)(int64_t)u;
    }
    *extra += (C * bb + m->word_bytes - 1) / m->word_bytes;
}

/* zacc: a token through the queue, like st without the drain. */
static void exec_zacc(spu_model *m, uint64_t *extra)
{
    const uint64_t e = tu_accept(m, m->now + 1);
    *extra = e - (m->now + 1);
    if (tok_queue(m, e, TU_TOK, 0))
        clear_acc(m);
}

/* Wait of an instruction whose EXEC starts at now+1 until `ready`. */
static uint64_t wait_until(const spu_model *m, uint64_t ready)
{
    return ready > m->now + 1 ? ready - (m->now + 1) : 0;
}

static int cfg_decode(const spu_model *m, uint32_t imm, unsigned f[SPU_CFG_FIELD_COUNT])
{
    uint32_t used = 0;
    for (int i = 0; i < SPU_CFG_FIELD_COUNT; i++) {
        const spu_cfg_field_desc *d = &spu_cfg_field_table[i];
        uint32_t mask = ((1u << d->width) - 1) << d->lsb;
        f[i] = (imm & mask) >> d->lsb;
        used |= mask;
    }
    if ((imm & ~used) || f[SPU_CFG_ROUND] > SPU_ROUND_RNA)
        return SPU_TRAP_ILLEGAL;
    return spu_model_cfg_check(m->cfg.formats, f[SPU_CFG_IN], f[SPU_CFG_OUT]);
}

static int exec_cfg(spu_model *m, uint32_t imm)
{
    unsigned f[SPU_CFG_FIELD_COUNT];
    int bad = cfg_decode(m, imm, f);
    if (bad)
        return bad;
    m->cfg_in = f[SPU_CFG_IN];
    m->cfg_out = f[SPU_CFG_OUT];
    m->cfg_shift = f[SPU_CFG_SHIFT];
    m->cfg_round = f[SPU_CFG_ROUND];
    m->cfg_relu = f[SPU_CFG_RELU];
    m->cfg_ovf = f[SPU_CFG_OVF];
    return 0;
}

/* An mm's stream reached a step outside the scratchpad at cycle kill_at,
 * during the instruction that starts at now: it has no effect. */
static int do_kill(spu_model *m, uint64_t stall)
{
    m->cnt[SPU_CNT_STALL_DRAIN] += stall;   /* the wait cycles before the trap */
    m->state = SPU_STATE_TRAPPED;
    m->trap = SPU_TRAP_SPAD_RANGE;
    m->pc = m->kill_pc;
    m->cnt[SPU_CNT_CYCLES] = max64(m->now, m->kill_at - 1);
    return 0;
}

static int mm_aligned(const spu_model *m, uint32_t a, uint32_t b)
{
    const uint32_t wb = m->word_bytes;
    return !(a % wb || b % wb || m->stride_a % wb || m->stride_b % wb);
}

static int st_ok(const spu_model *m, uint32_t addr)
{
    const uint32_t R = m->cfg.rows, C = m->cfg.cols, wb = m->word_bytes;
    const spu_dtype_desc *out = spu_dtype_by_code(m->cfg_out);
    return !(addr % wb || m->stride_c % wb) &&
           (uint64_t)addr + (uint64_t)(R - 1) * m->stride_c + (uint64_t)C * out->bytes <= m->cfg.spad_bytes;
}

/* ---- vector unit (docs/isa.md "Vector unit") ---------------------------- */

static int is_vec_op(unsigned op)
{
    return op >= SPU_OP_VLEN && op <= SPU_OP_VDIV;
}

/* shli and mul run on the iterative multiplier: their extra cycles are a
 * plain wait (not a drain stall), and STOP does not count them as a stall */
static int on_multiplier(unsigned op)
{
    return op == SPU_OP_MUL || op == SPU_OP_SHLI;
}

/* the instructions that stream through the unit (all but vlen / vstride) */
static int is_vec_stream(unsigned op)
{
    return op >= SPU_OP_VADD && op <= SPU_OP_VDIV;
}

static int8_t sat8(int v)
{
    return (int8_t)(v > 127 ? 127 : v < -128 ? -128 : v);
}

/* vdiv's lane (docs/isa.md "Vector unit"): a * 2^shift / S rounded to
 * nearest, ties away from zero, saturated to int8; S <= 0 gives 0. */
static int8_t spu_vdiv_lane(int a, int32_t S, unsigned shift)
{
    if (S <= 0)
        return 0;
    const uint64_t mag = (uint64_t)(a < 0 ? -a : a) << shift;
    const uint64_t q = (2 * mag + (uint64_t)S) / (2 * (uint64_t)S);
    if (a < 0)
        return (int8_t)(q > 128 ? -128 : -(int)q);
    return (int8_t)(q > 127 ? 127 : (int)q);
}

/* word at byte address p (64-bit: no wrap) lies inside the scratchpad */
static int vword_ok(const spu_model *m, uint64_t p)
{
    return p + m->word_bytes <= m->cfg.spad_bytes;
}

/* Runs one streaming vector instruction (the unit has started: the tensor
 * unit is idle and the drain done). Returns 0 or a trap cause; *steps gets
 * the cycles of its word steps (1 per word, 2 for a same-bank source pair),
 * the unit runs 1 + *steps cycles. */
static int exec_vec(spu_model *m, unsigned op, uint32_t ra, uint32_t rb, uint32_t rc, uint64_t *steps,
                    uint32_t *val)
{
    const uint32_t wb = m->word_bytes;
    uint64_t cyc = 0, conflicts = 0;
    *steps = 0;
    if (op == SPU_OP_VGET) {        /* one step: the word holding byte rB; any alignment */
        if (!vword_ok(m, (uint64_t)(rb - rb % wb)))
            return SPU_TRAP_SPAD_RANGE;
        *val = (uint32_t)(int32_t)(int8_t)m->spad[rb];
        *steps = 1;
        m->cnt[SPU_CNT_VEC_BUSY] += 2;
        return 0;
    }
    if (op == SPU_OP_VLUTLD) {
        if (ra % wb)
            return SPU_TRAP_MISALIGNED;
        const uint32_t words = (256 + wb - 1) / wb;
        for (uint32_t i = 0; i < words; i++)
            if (!vword_ok(m, (uint64_t)ra + (uint64_t)i * wb)) {
                *steps = i;
                return SPU_TRAP_SPAD_RANGE;
            }
        for (uint32_t k = 0; k < 256; k++)
            m->lut[k] = m->spad[ra + k];
        *steps = words;
        m->cnt[SPU_CNT_VEC_BUSY] += 1 + words;
        return 0;
    }
    const uint32_t n = m->vl;
    const int div = op == SPU_OP_VDIV;         /* src2: the one word of S (stride 0) */
    const int binary = op == SPU_OP_VADD || op == SPU_OP_VSUB || op == SPU_OP_VMUL || op == SPU_OP_VMAX || div;
    const uint32_t s2 = div ? 0 : m->vstride_2;
    const int reduce = op == SPU_OP_VRMAX || op == SPU_OP_VRSUM;
    const int splat = op == SPU_OP_VSPLAT;      /* no source: rB is the value */
    if (n) {
        if (ra % wb || (!splat && (rb % wb || m->vstride_1 % wb)) || (!reduce && m->vstride_d % wb) ||
            (binary && (rc % wb || s2 % wb)))
            return SPU_TRAP_MISALIGNED;
    }
    int32_t rmax = -128;
    uint32_t rsum = 0;
    for (uint32_t i = 0; i < n; i++) {
        const uint64_t pd = (uint64_t)ra + (uint64_t)i * m->vstride_d;
        const uint64_t p1 = (uint64_t)rb + (uint64_t)i * m->vstride_1;
        const uint64_t p2 = (uint64_t)rc + (uint64_t)i * s2;
        /* the unit checks each word as it issues it; the words before have
         * taken effect (a reduction writes only at its end) */
        if ((!splat && !vword_ok(m, p1)) || (binary && !vword_ok(m, p2)) ||
            (reduce ? (i == 0 && !vword_ok(m, ra)) : !vword_ok(m, pd))) {
            *steps = cyc;               /* the steps before the bad one */
            return SPU_TRAP_SPAD_RANGE;
        }
        const int conflict = binary && bank_of(m, p1) == bank_of(m, p2);
        cyc += 1 + conflict;
        conflicts += conflict;
        int32_t S = 0;                  /* vdiv: bytes 0..3 of the src2 word (fewer: sign-extended) */
        if (div) {
            uint32_t u = 0;
            const uint32_t nb = wb < 4 ? wb : 4;
            for (uint32_t j = 0; j < nb; j++)
                u |= (uint32_t)m->spad[p2 + j] << (8 * j);
            if (nb < 4 && (u >> (8 * nb - 1)) & 1u)
                u |= ~0u << (8 * nb);
            S = (int32_t)u;
        }
        for (uint32_t j = 0; j < wb; j++) {
            const int a = splat ? (int8_t)rb : (int8_t)m->spad[p1 + j];
            const int b = binary ? (int8_t)m->spad[p2 + j] : 0;
            int8_t y = 0;
            switch (op) {
            case SPU_OP_VADD: y = sat8(a + b); break;
            case SPU_OP_VSUB: y = sat8(a - b); break;
            case SPU_OP_VMUL: y = spu_requant_int8(a * b, m->cfg_shift, m->cfg_round, (int)m->cfg_relu); break;
            case SPU_OP_VMAX: y = (int8_t)(a > b ? a : b); break;
            case SPU_OP_VLUT: y = (int8_t)m->lut[(uint8_t)a]; break;
            case SPU_OP_VSPLAT: y = (int8_t)a; break;
            case SPU_OP_VDIV:   y = spu_vdiv_lane(a, S, m->cfg_shift); break;
            case SPU_OP_VRMAX: if (a > rmax) rmax = a; break;
            default:          rsum += (uint32_t)a; break;   /* VRSUM, wraps */
            }
            if (!reduce)
                m->spad[pd + j] = (uint8_t)y;
        }
    }
    if (reduce && n) {
        uint8_t *d = m->spad + ra;
        for (uint32_t j = 0; j < wb; j++)
            d[j] = op == SPU_OP_VRMAX ? (uint8_t)(int8_t)rmax : j < 4 ? (uint8_t)(rsum >> (8 * j)) : 0;
    }
    *steps = cyc;
    m->cnt[SPU_CNT_VEC_BUSY] += 1 + cyc;
    m->cnt[SPU_CNT_VEC_STALL] += conflicts;
    return 0;
}

/* Overlapped issue (docs/isa.md "Overlapped issue"): whether the FETCH of
 * the instruction at `next` shares the last EXEC cycle of the one just
 * executed (opcode op, writing register rd, or rd <= 0). Not after a
 * change of flow the FETCH cannot foresee (bne, blt, jmp, loop: taken or
 * not) or a cfg / stride (the st checks read them the cycle after), not
 * before a cnt (it waits in its own FETCH), and not when the next word
 * names rd in a register field of its opcode's format (its registers are
 * read in that FETCH, while rd is written). A word outside the store
 * names nothing. */
static int overlaps(const spu_model *m, unsigned op, int rd, uint32_t next)
{
    if (!m->cfg.overlap || op == SPU_OP_BNE || op == SPU_OP_BLT || op == SPU_OP_JMP ||
        op == SPU_OP_LOOP || op == SPU_OP_CFG || op == SPU_OP_STRIDE)
        return 0;
    const uint32_t w = next < m->cfg.ucode_words ? m->ucode[next] : 0;
    const spu_insn_desc *nd = spu_isa_by_opcode(w >> SPU_ISA_OP_SHIFT);
    if (nd && nd->opcode == SPU_OP_CNT)
        return 0;
    if (rd > 0 && nd) {
        const unsigned regs = spu_format_regs(nd->format);
        if (((regs & 1u) && ((w >> SPU_ISA_A_SHIFT) & 15u) == (unsigned)rd) ||
            ((regs & 2u) && ((w >> SPU_ISA_B_SHIFT) & 15u) == (unsigned)rd) ||
            ((regs & 4u) && ((w >> SPU_ISA_C_SHIFT) & 15u) == (unsigned)rd))
            return 0;
    }
    return 1;
}

int spu_model_step(spu_model *m)
{
    if (m->state != SPU_STATE_RUNNING)
        return 0;
    /* FETCH's traps are raised in the first EXEC cycle, now + 1: an mm trap
     * by then wins */
    int ftrap = 0;
    const uint32_t word = m->pc < m->cfg.ucode_words ? m->ucode[m->pc] : 0;
    spu_insn in;
    if (m->watchdog && m->now >= m->watchdog)
        ftrap = SPU_TRAP_WATCHDOG;
    else if (m->pc >= m->cfg.ucode_words)
        ftrap = SPU_TRAP_PC_RANGE;
    else if (spu_isa_decode(word, &in) != 0 || (is_vec_op(in.opcode) && !m->cfg.vector))
        ftrap = SPU_TRAP_ILLEGAL;
    if (ftrap)
        return m->kill_at <= m->now + 1 ? do_kill(m, 0) : do_trap(m, ftrap);
    const spu_insn_desc *d = spu_isa_by_opcode(in.opcode);
    uint32_t *r = m->regs;
    const uint32_t ra = r[in.a], rb = r[in.b], rc = r[in.c];
    uint32_t next = m->pc + 1;
    int redirected = 0, rd = -1, trap = 0;
    uint32_t rd_val = 0;
    uint64_t extra = 0;

    /* the waits, known before any effect: the instruction's last EXEC cycle
     * is now + 1 + wait; an mm trap up to then cancels it */
    uint64_t wait = 0, fwait = 0;
    switch (in.opcode) {   /* chain: these wait for the tensor unit, so no mm
                            * can follow a pending token in time: it goes alone */
    case SPU_OP_HALT: case SPU_OP_SYNC: case SPU_OP_CFG: case SPU_OP_STRIDE: case SPU_OP_BIAS:
    case SPU_OP_CNT: tok_settle(m); break;
    default: if (is_vec_stream(in.opcode)) tok_settle(m);
    }
    switch (in.opcode) {
    case SPU_OP_MM:     /* K = 0 too waits for a free queue entry (queues nothing) */
        if (!rc || mm_aligned(m, ra, rb))
            wait = tu_accept(m, m->now + 1) - (m->now + 1);
        break;
    case SPU_OP_ST:
        if (st_ok(m, ra))
            wait = tu_accept(m, m->now + 1) - (m->now + 1);
        break;
    case SPU_OP_ZACC: wait = tu_accept(m, m->now + 1) - (m->now + 1); break;
    /* halt: the tensor unit only; the last st's drain writes finish after
     * it (the model wrote them already; the RTL holds the host port and a
     * RUN until they land) */
    case SPU_OP_HALT: wait = wait_until(m, m->tu_idle); break;
    case SPU_OP_SYNC: wait = wait_until(m, max64(m->tu_idle, m->drain_done)); break;
    case SPU_OP_CFG: {
        unsigned f[SPU_CFG_FIELD_COUNT];
        if (!cfg_decode(m, (uint32_t)in.imm, f))     /* a bad cfg traps at once */
            wait = wait_until(m, m->tu_idle);
        break;
    }
    case SPU_OP_STRIDE: wait = wait_until(m, m->tu_idle); break;
    case SPU_OP_BIAS:
        if (!bias_check(m, ra))
            wait = wait_until(m, max64(m->tu_idle, m->drain_idle));
        break;
    case SPU_OP_VADD: case SPU_OP_VSUB: case SPU_OP_VMUL: case SPU_OP_VMAX:
    case SPU_OP_VRMAX: case SPU_OP_VRSUM: case SPU_OP_VLUT: case SPU_OP_VLUTLD:
    case SPU_OP_VSPLAT: case SPU_OP_VGET: case SPU_OP_VDIV:
        /* as sync, and until the drain's last write has landed: it writes
         * until drain_done + 2 (its output register), the unit reads from
         * its second EXEC cycle */
        wait = wait_until(m, max64(m->tu_idle, m->drained ? m->drain_done + 3 : 0));
        break;
    case SPU_OP_CNT: fwait = m->tu_idle > m->now ? m->tu_idle - m->now : 0; break;   /* in FETCH */
    case SPU_OP_MUL: case SPU_OP_SHLI: wait = d->cycles - 2; break;   /* the iterative multiplier */
    default: break;
    }
    /* cnt's FETCH wait ends early when the watchdog runs out (then traps) */
    if (fwait && m->watchdog && m->now + fwait >= m->watchdog)
        fwait = m->watchdog - m->now;
    if (m->kill_at <= m->now + 1 + wait + fwait) {
        uint64_t stall = 0;
        if (fwait)
            stall = (m->kill_at < m->now + fwait ? m->kill_at : m->now + fwait) - m->now;
        else if (!on_multiplier(in.opcode) && m->kill_at > m->now + 1)
            stall = m->kill_at - (m->now + 1);
        return do_kill(m, stall);
    }
    if (fwait && m->watchdog && m->now + fwait >= m->watchdog) {
        m->cnt[SPU_CNT_STALL_DRAIN] += fwait;
        m->now += fwait;                     /* its FETCH cycles so far */
        return do_trap(m, SPU_TRAP_WATCHDOG);
    }

    switch (in.opcode) {
    case SPU_OP_NOP: break;
    case SPU_OP_HALT: extra = wait; break;
    case SPU_OP_LI:   rd = (int)in.a; rd_val = (uint32_t)in.imm; break;
    case SPU_OP_LUI:  rd = (int)in.a; rd_val = (uint32_t)in.imm << 16; break;
    case SPU_OP_ADDI: rd = (int)in.a; rd_val = rb + (uint32_t)in.imm; break;
    case SPU_OP_ADD:  rd = (int)in.a; rd_val = rb + rc; break;
    case SPU_OP_SUB:  rd = (int)in.a; rd_val = rb - rc; break;
    case SPU_OP_SHLI: rd = (int)in.a; rd_val = rb << in.imm; break;
    case SPU_OP_MUL:  rd = (int)in.a; rd_val = rb * rc; break;
    case SPU_OP_BNE:
        if (ra != rb) { next = (uint32_t)in.imm; redirected = 1; }
        break;
    case SPU_OP_BLT:
        if ((int32_t)ra < (int32_t)rb) { next = (uint32_t)in.imm; redirected = 1; }
        break;
    case SPU_OP_JMP: next = (uint32_t)in.imm; redirected = 1; break;
    case SPU_OP_LOOP:
        if ((uint32_t)in.imm <= m->pc + 1)
            trap = SPU_TRAP_ILLEGAL;
        else if (ra == 0) {
            next = (uint32_t)in.imm;
            redirected = 1;
        } else if (m->nloops >= m->cfg.loop_depth)
            trap = SPU_TRAP_LOOP_STACK;
        else
            m->loops[m->nloops++] = (loop_entry){ m->pc + 1, (uint32_t)in.imm, ra };
        break;
    case SPU_OP_CFG:    trap = exec_cfg(m, (uint32_t)in.imm); extra = wait; break;
    case SPU_OP_STRIDE: m->stride_a = ra; m->stride_b = rb; m->stride_c = rc; extra = wait; break;
    case SPU_OP_ZACC: exec_zacc(m, &extra); break;
    case SPU_OP_MM:   trap = exec_mm(m, ra, rb, rc, &extra); break;
    case SPU_OP_ST:   trap = exec_st(m, ra, &extra); break;
    case SPU_OP_SYNC: extra = wait; break;
    case SPU_OP_BIAS:
        if (!(trap = bias_check(m, ra))) {
            m->cnt[SPU_CNT_STALL_DRAIN] += wait;   /* the read cycles are no stall */
            extra = wait;
            exec_bias(m, ra, &extra);
        }
        break;
    case SPU_OP_VLEN: m->vl = ra; break;
    case SPU_OP_VSTRIDE: m->vstride_d = ra; m->vstride_1 = rb; m->vstride_2 = rc; break;
    case SPU_OP_VADD: case SPU_OP_VSUB: case SPU_OP_VMUL: case SPU_OP_VMAX:
    case SPU_OP_VRMAX: case SPU_OP_VRSUM: case SPU_OP_VLUT: case SPU_OP_VLUTLD:
    case SPU_OP_VSPLAT: case SPU_OP_VGET: case SPU_OP_VDIV: {
        uint64_t steps = 0;
        uint32_t val = 0;
        trap = exec_vec(m, in.opcode, ra, rb, rc, &steps, &val);
        if (!trap && in.opcode == SPU_OP_VGET) {
            rd = (int)in.a;
            rd_val = val;
        }
        if (trap == SPU_TRAP_SPAD_RANGE) {
            /* found at the bad step's issue cycle X = now + 2 + wait + steps,
             * after the wait (docs/isa.md: a trapped run's cycles end at or
             * just before X) */
            m->cnt[SPU_CNT_STALL_DRAIN] += wait;
            m->now += 1 + wait + steps;
        } else if (!trap) {
            m->cnt[SPU_CNT_STALL_DRAIN] += wait;   /* the wait, as sync's */
            extra = wait + steps;                  /* the steps are no stall */
        }
        break;
    }
    case SPU_OP_CNT:
        m->cnt[SPU_CNT_STALL_DRAIN] += fwait;   /* its own FETCH wait is in */
        if ((uint32_t)in.imm >= SPU_CNT_COUNT) {
            m->now += fwait;
            trap = SPU_TRAP_ILLEGAL;
        } else {
            m->cnt[SPU_CNT_CYCLES] = m->now + fwait;
            rd = (int)in.a;
            extra = fwait;
            rd_val = (uint32_t)m->cnt[in.imm];
        }
        break;
    default: trap = SPU_TRAP_ILLEGAL; break;
    }
    if (trap)
        return do_trap(m, trap);
    if (!on_multiplier(in.opcode) && in.opcode != SPU_OP_CNT && in.opcode != SPU_OP_BIAS && !is_vec_stream(in.opcode))
        m->cnt[SPU_CNT_STALL_DRAIN] += extra;
    if (rd > 0)
        r[rd] = rd_val;
    if (m->trace) {
        spu_model_trace t = { m->now, m->pc, word, rd > 0 ? rd : -1, rd > 0 ? rd_val : 0 };
        m->trace(m->trace_ctx, &t);
    }
    m->now += d->cycles + extra;
    m->cnt[SPU_CNT_INSTRET]++;
    m->cnt[SPU_CNT_CYCLES] = m->now;
    if (in.opcode == SPU_OP_HALT) {
        m->state = SPU_STATE_HALTED;
        return 0;
    }
    /* zero-overhead loop back edge, on the sequential path only */
    if (!redirected && m->nloops && next == m->loops[m->nloops - 1].end) {
        loop_entry *l = &m->loops[m->nloops - 1];
        if (l->count > 1) {
            l->count--;
            next = l->start;
        } else {
            m->nloops--;
        }
    }
    m->pc = next;
    if (overlaps(m, in.opcode, rd, next)) {   /* the next FETCH is this EXEC's last cycle */
        m->now--;
        m->cnt[SPU_CNT_CYCLES] = m->now;
    }
    return 1;
}

int spu_model_run(spu_model *m, uint32_t pc, uint32_t watchdog)
{
    spu_model_start(m, pc, watchdog);
    while (spu_model_step(m))
        ;
    return 0;
}

void spu_model_status(const spu_model *m, spu_status_t *st)
{
    st->state = m->state;
    st->trap = m->trap;
    st->pc = m->pc;
    st->cycles = m->cnt[SPU_CNT_CYCLES];
}

void spu_model_counters(const spu_model *m, spu_counters_t *c)
{
    memcpy(c->v, m->cnt, sizeof c->v);
}
