/*
 * perf_gemm.c -- closed-form prediction of spu_gemm_i8 on an SPU
 * configuration (docs/perf-model.md): device cycles per piece from the
 * instruction costs of docs/isa.md applied to firmware/gemm_int8.s, pieces
 * from the host's own plan (spu_gemm_plan_make), link bytes from the frames
 * the host library sends (host/src/link/link_client.c), and time.
 */
#include "spu/perf.h"
#include "spu/gemm.h"
#include "spu/isa.h"
#include "spu_firmware.h"
#include "perf_internal.h"

#include <math.h>
#include <string.h>

/* Link constants from the one table. */
enum {
#define SPU_LINK_CONST(name, value) PERF_LINK_##name = (value),
#include "spu_link.def"
};

/* Base costs of the instructions the kernel uses, from spu_isa.def. */
enum {
#define SPU_INSN(NAME, mn, op, fmt, cyc, summary) COST_##NAME = (cyc),
#include "spu_isa.def"
#undef SPU_INSN
};

/* Bytes on the wire of a frame carrying `payload` bytes after type and seq:
 * COBS adds one code byte (and one more per 254 non-zero bytes in a row,
 * which frames of operands rarely have), the delimiter one more. */
uint64_t spu_perf_frame_bytes(uint64_t payload)
{
    return payload + 2 + 4 + 1 + 1;
}

static uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* Cycles of one mm's stream of kc steps over panels at a0 and b0 (strides
 * of one word, as the kernels use them; docs/isa.md "Tensor unit"): a step
 * 1 cycle, 2 when its A and B words fall in the same bank (*cf counts
 * those); with k-step pairs ("k-step pairs") a step on even A and B words
 * in different banks issues with the next one when one is left. Segment by
 * segment, where neither stream crosses into its next bank. */
static uint64_t mm_stream(const spu_perf_hw *hw, uint64_t a0, uint64_t b0, uint64_t kc, uint64_t *cf)
{
    const uint64_t bs = hw->spad_bytes / hw->spad_banks, wb = hw->word_bytes;
    uint64_t k = 0, cycles = 0;
    *cf = 0;
    while (k < kc) {
        const uint64_t a = a0 + k * wb, b = b0 + k * wb;
        const uint64_t ba = a / bs, bb = b / bs;
        /* steps until either stream crosses into its next bank */
        uint64_t ka = div_up((ba + 1) * bs - a, wb), kb = div_up((bb + 1) * bs - b, wb);
        uint64_t run = ka < kb ? ka : kb;
        if (run > kc - k)
            run = kc - k;
        if (ba == bb) {
            *cf += run;
            cycles += 2 * run;
        } else if (!hw->pair || (a / wb + b / wb) % 2) {
            cycles += run;       /* no pairs (A and B words of unlike parity never pair) */
        } else {
            /* one step to reach even words, then pairs; an odd one out at the
             * segment's end pairs with the next segment's first step when
             * the mm has one (the rule looks at the first step's banks) */
            const uint64_t odd = (a / wb) % 2, n = run - odd;
            cycles += odd + n / 2 + n % 2;
            run += n % 2 && kc - k - run >= 1;
        }
        k += run;
    }
    return cycles;
}

/* docs/isa.md `st`: ROWS * (COLS / L), one group of L accumulators per cycle
 * for every out */
static uint64_t drain_cycles(const spu_perf_hw *hw)
{
    const uint64_t L = hw->drain_lanes ? hw->drain_lanes : hw->cols;
    return (uint64_t)hw->rows * (hw->cols / L);
}


typedef struct piece_cost {
    uint64_t cycles, stall_bank, stall_drain, instret;
} piece_cost;

/*
 * firmware/gemm_int8.s, instruction by instruction, on the timing rule of
 * docs/isa.md "Tensor unit" (every instruction 2 cycles + its waits; mm and st
 * go through the tensor unit's one-entry queue and run back to back; with
 * chained streams, docs/isa.md "Chained streams", the queue has two entries
 * and an st's token travels with the next mm's first step when that mm is
 * queued in time). Overlapped issue (hw->overlap, INFO features bit 5,
 * docs/isa.md "Overlapped issue"): an instruction marked "ov" overlaps the
 * next one (whose FETCH is then its last EXEC cycle: one cycle less, its
 * waits unchanged); "-" never does (cfg, loop, halt):
 *                                                                        ov?
 *   cfg, loop r5                            2 x 2                        -, -
 *   per row block:  loop r6                 2                            -
 *     per column block: mm  2 + queue wait  stream: 1 launch + mm_stream  ov (next: st)
 *                                                   (kc + conflicts, fewer with k-step pairs)
 *                       st  2 + queue wait  token: 1 slot, drain after   ov (next: add)
 *                                           the wave
 *                       add r3, add r2      2 x 2                        ov, ov (next names
 *                                                                        neither r3 nor r2)
 *                       add b_back          2                            ov (next: mm r1, r2, r4
 *                                                                        or, after the last
 *                                                                        column, add r1)
 *   per row block:  add r1, sub r2, li b_back  3 x 2                     ov, ov, ov (li's next:
 *                                                                        loop r6 or halt)
 *   halt                                    2 + wait for the tensor unit (not the drain)
 * In gemm_int8.s no register an instruction writes is named by the next one,
 * the loops' back edges included, so with overlapped issue the inner loop
 * issues in 5 cycles (10 without) and the row's add, sub, li, loop in 5 (8).
 * The recurrence below is that rule, block by block (exact, O(blocks)).
 */
typedef struct tu_time {
    int chain;
    uint64_t ov;                      /* overlapped issue: 1 (mm and st overlap the next
                                         instruction in every kernel), else 0 */
    uint64_t launch, launch_prev, engine, mmfree, last, idle, st_ready, drain_idle;
    uint64_t span, C, D, gap;         /* span: read to last tile (R + C; buses 2;
                                         k-step pairs 3);
                                         gap: chain, st token to the next st's launch */
    int bus;
    int tok_pending;                  /* chain: an st's token not launched yet */
    uint64_t tok_alone, tok_base;
} tu_time;

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* A tensor instruction whose FETCH is at *T: its queue entry cycle (the
 * previous command has launched, or with two entries the one before it).
 * *T moves to the next FETCH: 2 + the wait, one less with overlapped issue
 * (the kernels' mm and st always overlap the next instruction). */
static uint64_t tu_enter(tu_time *u, uint64_t *T, uint64_t *stall)
{
    const uint64_t before = !u->chain || u->tok_pending ? u->launch : u->launch_prev;
    const uint64_t e = max64(*T + 1, before), w = e - (*T + 1);
    *stall += w;
    *T += 2 + w - u->ov;
    return e;
}

static void tu_queued(tu_time *u, uint64_t L)
{
    u->launch_prev = u->launch;
    u->launch = L;
}

/* An st's token in slot W: the wave reaches the last tile at G = W + R + C
 * (buses: W + 2), the drain starts at S = G (chain, systolic: W + C + 1, row
 * 0 captured) and writes S+1 .. S+D; chain: the next st launches from W + gap. */
static void st_wave(tu_time *u, uint64_t W)
{
    const uint64_t G = W + u->span, S = u->chain && !u->bus ? W + u->C + 1 : G;
    u->idle = max64(u->idle, G + 1);
    u->st_ready = u->chain ? W + u->gap : max64(G + 1, G + u->D - 1);
    u->drain_idle = S + u->D + 2;
}

/* chain: the pending token goes alone in its own slot. */
static void tok_settle(tu_time *u)
{
    if (!u->tok_pending)
        return;
    u->tok_pending = 0;
    tu_queued(u, u->tok_alone);
    u->engine = u->mmfree = u->tok_alone + 1;
    st_wave(u, u->tok_alone);
}

/* st entering the queue at e. */
static void tu_st(tu_time *u, uint64_t e)
{
    if (!u->chain) {
        const uint64_t S = max64(max64(e + 1, u->engine), u->st_ready);
        tu_queued(u, S);
        u->engine = S + 1;
        st_wave(u, S);
        return;
    }
    tok_settle(u);
    u->tok_pending = 1;
    u->tok_alone = max64(max64(e + 1, u->engine), u->st_ready);
    u->tok_base = max64(max64(e + 1, u->mmfree), u->st_ready);
}

/* mm entering the queue at e, its stream S cycles (mm_stream; cf0: its first
 * step's bank conflict); spram: single-port banks (also after the last
 * drain's writes). */
static void tu_mm(tu_time *u, uint64_t e, uint64_t S, int cf0, int spram)
{
    uint64_t L;
    if (u->tok_pending && e + 1 <= u->tok_alone) {   /* the token travels with this mm */
        L = max64(u->tok_base, e + 1);
        u->tok_pending = 0;
        tu_queued(u, L);
        tu_queued(u, L);
        /* with the last step the token rides with the first; else its own slot */
        st_wave(u, L == u->last ? L + 1 + (uint64_t)cf0 : L);
    } else {
        tok_settle(u);
        L = max64(e + 1, u->chain ? u->mmfree : u->engine);
        if (spram)
            L = max64(L, u->drain_idle);
        tu_queued(u, L);
    }
    const uint64_t last = L + S;
    u->engine = last + 1;
    u->mmfree = last;
    u->last = last;
    u->idle = max64(u->idle, last + u->span + 1);
}

/* The kernel of a call: gemm_int8.s (rows outer), gemm_bias.s (column
 * blocks outer, a `bias` per column block) or, for a GEMM of one output
 * block, gemm_int8_block.s (cfg, mm, st, halt: gemm.c's block_kernel); its
 * drain per block and the words a `bias` reads. */
typedef struct kern {
    int bias, block;
    uint64_t D, bias_words;
} kern;

/*
 * firmware/gemm_bias.s on the same rule (a_panel r9, b_panel r10, bias_p
 * r11, bias_step r12; mov = addi; "ov?" as above):
 *                                                                        ov?
 *   cfg, li r11, li r12, mov r10, loop r6   5 x 2                        -, ov, ov, ov, -
 *   per column block: bias r11  2 + wait until the tensor unit is idle   ov (next: mov r9)
 *                           and the last st's drain has landed
 *                           (G + D + 2) + its words
 *                     mov r9, loop r5       2 x 2                        ov (next: loop r5), -
 *     per row block:  mm, st, add r3        as above                     ov, ov, ov
 *                     add r9                2                            ov after the last row
 *                                                                        block only: the back
 *                                                                        edge's mm r9, ... names r9
 *                     add r10               2                            ov
 *                     add r11               2                            ov after the last column
 *                                                                        block only: the back
 *                                                                        edge's bias r11 names r11
 *   halt
 */
static piece_cost piece_k(const spu_perf_hw *hw, const kern *kn, uint64_t mbi, uint64_t nbi,
                          uint64_t kc, uint64_t a_base, uint64_t b_base, uint64_t panel)
{
    piece_cost pc = { 0, 0, 0, 0 };
    tu_time u;
    memset(&u, 0, sizeof u);
    u.chain = hw->chain && !hw->spram;
    u.ov = hw->overlap ? 1 : 0;
    const uint64_t ov = u.ov;
    u.bus = hw->bus != 0;
    u.span = hw->pair ? 3 : u.bus ? 2 : (uint64_t)hw->rows + hw->cols;   /* spu_model_wave_span */
    u.C = hw->cols;
    u.D = kn->D;
    {
        const uint64_t L = hw->drain_lanes ? hw->drain_lanes : hw->cols, g = hw->cols / L;
        const uint64_t h = u.bus ? u.D : hw->cols + (uint64_t)(hw->rows - 1) * (g - 1);
        u.gap = 1 + max64(u.D, h);      /* spu_model_st_gap, docs/isa.md "Chained streams" */
    }
    const uint64_t bs = hw->spad_bytes / hw->spad_banks;
    if (kn->block) {            /* gemm_int8_block.s: cfg (-), mm (ov), st (ov), halt */
        uint64_t T = COST_CFG;
        const uint64_t S = mm_stream(hw, a_base, b_base, kc, &pc.stall_bank);
        tu_mm(&u, tu_enter(&u, &T, &pc.stall_drain), S, a_base / bs == b_base / bs, (int)hw->spram);
        tu_st(&u, tu_enter(&u, &T, &pc.stall_drain));
        tok_settle(&u);
        const uint64_t w = u.idle > T + 1 ? u.idle - (T + 1) : 0;
        pc.stall_drain += w;
        pc.cycles = T + COST_HALT + w;
        pc.instret = 4;
        return pc;
    }
    const uint64_t outer = kn->bias ? nbi : mbi, inner = kn->bias ? mbi : nbi;
    uint64_t T = kn->bias ? COST_CFG + 2 * COST_LI + COST_ADDI + COST_LOOP - 3 * ov
                          : COST_CFG + COST_LOOP;
    pc.instret = kn->bias ? 5 + nbi * (3 + 4 * mbi + 2) + 1 : 2 + mbi * (1 + 5 * nbi + 3) + 1;
    for (uint64_t o = 0; o < outer; o++) {
        if (kn->bias) {
            tok_settle(&u);
            const uint64_t ready = max64(u.idle, u.drain_idle);
            const uint64_t w = ready > T + 1 ? ready - (T + 1) : 0;
            pc.stall_drain += w;
            T += COST_BIAS + w + kn->bias_words - ov;
        }
        T += kn->bias ? COST_ADDI - ov + COST_LOOP : COST_LOOP;
        for (uint64_t q = 0; q < inner; q++) {
            const uint64_t i = kn->bias ? q : o, j = kn->bias ? o : q;
            const uint64_t a0 = a_base + i * panel, b0 = b_base + j * panel;
            uint64_t cf;
            const uint64_t S = mm_stream(hw, a0, b0, kc, &cf);
            pc.stall_bank += cf;
            tu_mm(&u, tu_enter(&u, &T, &pc.stall_drain), S, a0 / bs == b0 / bs, (int)hw->spram);
            tu_st(&u, tu_enter(&u, &T, &pc.stall_drain));
            /* bias: add r3 overlaps, add a_panel only before add b_panel */
            T += kn->bias ? 2 * COST_ADD - ov - (q + 1 == inner ? ov : 0) : 3 * COST_ADD - 3 * ov;
        }
        /* bias: add b_panel overlaps, add bias_p only before halt */
        T += kn->bias ? 2 * COST_ADD - ov - (o + 1 == outer ? ov : 0) : COST_ADD + COST_SUB + COST_LI - 3 * ov;
    }
    tok_settle(&u);
    const uint64_t ready = u.idle;        /* halt: the tensor unit (the last drain goes on after it) */
    const uint64_t w = ready > T + 1 ? ready - (T + 1) : 0;
    pc.stall_drain += w;
    pc.cycles = T + COST_HALT + w;
    return pc;
}

static piece_cost piece(const spu_perf_hw *hw, uint64_t mbi, uint64_t nbi, uint64_t kc,
                        uint64_t a_base, uint64_t b_base, uint64_t panel)
{
    const kern k = { 0, 0, drain_cycles(hw), 0 };
    return piece_k(hw, &k, mbi, nbi, kc, a_base, b_base, panel);
}

uint64_t spu_perf_gemm_piece_cycles(const spu_perf_hw *hw, uint32_t mbi, uint32_t nbi,
                                    uint32_t kc, uint32_t a_base, uint32_t b_base,
                                    uint32_t panel_bytes)
{
    if (!hw || !mbi || !nbi || !kc || !hw->spad_banks || !hw->word_bytes)
        return 0;
    return piece(hw, mbi, nbi, kc, a_base, b_base, panel_bytes).cycles;
}

/* Link bytes of a WRITE / READ of n bytes, and their transactions. */
static void write_cost(uint64_t n, uint64_t *bytes, uint64_t *txn)
{
    const uint64_t chunk = PERF_LINK_MAX_PAYLOAD - 4;
    const uint64_t frames = n ? div_up(n, chunk) : 1;
    *bytes += n + frames * (spu_perf_frame_bytes(4) + spu_perf_frame_bytes(1));
    *txn += frames;
}
static void read_cost(uint64_t n, uint64_t *bytes, uint64_t *txn)
{
    const uint64_t chunk = PERF_LINK_MAX_PAYLOAD - 1;
    const uint64_t frames = div_up(n, chunk);
    *bytes += n + frames * (spu_perf_frame_bytes(6) + spu_perf_frame_bytes(1));
    *txn += frames;
}

static double txn_s(const spu_perf_hw *hw, uint64_t bytes)
{
    if (!(hw->link_bytes_per_s > 0))
        return 0;
    return (double)bytes / hw->link_bytes_per_s + hw->txn_latency_s + 2 * hw->frame_overhead_s;
}

/* spu_wait's polling (host/src/core/device.c): a STATUS at once, then naps of
 * 50 us doubling while below 5 ms; on a device with an idle flag (a
 * simulator) one STATUS once the run has ended. Returns the polls and the
 * time from RUN's reply until the host sees the run done (>= run_s). */
static uint64_t polls_for(double run_s, double status_s, int idle_flag, double *seen_s)
{
    if (idle_flag) {
        *seen_s = run_s + status_s;
        return 1;
    }
    double t = status_s, nap = 50e-6;
    uint64_t p = 1;
    while (t < run_s && nap < 5e-3) {
        t += nap + status_s;
        nap *= 2;
        p++;
    }
    if (t < run_s) {
        const double step = nap + status_s;
        const double more = ceil((run_s - t) / step);
        t += more * step;
        p += (uint64_t)more;
    }
    *seen_s = t;
    return p;
}

/* The link and time of one call, transaction by transaction (perf_internal.h). */
void spu_perf_call_begin(spu_perf_call *c, const spu_perf_hw *hw, spu_perf_gemm *out)
{
    memset(out, 0, sizeof *out);
    memset(c, 0, sizeof *c);
    c->hw = hw;
    c->out = out;
    c->has_link = hw->link_bytes_per_s > 0;
    c->wall_hz = hw->wall_clock_hz > 0 ? hw->wall_clock_hz : hw->clock_hz;
    c->status_b = spu_perf_frame_bytes(0) + spu_perf_frame_bytes(1 + 14);
    c->status_s = txn_s(hw, c->status_b);
    c->bytes = spu_perf_frame_bytes(2 + 8 * SPU_CNT_COUNT);   /* the first COUNTERS reply */
}

void spu_perf_call_ucode(spu_perf_call *c, uint64_t nwords)
{
    const uint64_t wchunk = (PERF_LINK_MAX_PAYLOAD - 4) / 4;
    for (uint64_t w = nwords; ; ) {
        const uint64_t k = w < wchunk ? w : wchunk;
        c->bytes += spu_perf_frame_bytes(4 + 4 * k) + spu_perf_frame_bytes(1);
        c->txn++;
        w -= k;
        if (!w)
            break;
    }
}

void spu_perf_call_write(spu_perf_call *c, uint64_t n, uint64_t times)
{
    uint64_t b = 0, t = 0;
    write_cost(n, &b, &t);
    c->bytes += times * b;
    c->txn += times * t;
    c->out->payload_bytes += times * n;
}

void spu_perf_call_read(spu_perf_call *c, uint64_t n, uint64_t times)
{
    uint64_t b = 0, t = 0;
    read_cost(n, &b, &t);
    c->bytes += times * b;
    c->txn += times * t;
    c->out->payload_bytes += times * n;
}

void spu_perf_call_run(spu_perf_call *c, uint64_t cycles, uint64_t times)
{
    const spu_perf_hw *hw = c->hw;
    c->bytes += times * (spu_perf_frame_bytes(4 * SPU_NARGS) + spu_perf_frame_bytes(1) +   /* ARGS */
                         spu_perf_frame_bytes(8) + spu_perf_frame_bytes(1) +               /* RUN  */
                         spu_perf_frame_bytes(0) + spu_perf_frame_bytes(2 + 8 * SPU_CNT_COUNT)); /* COUNTERS */
    c->txn += times * 3;
    c->out->pieces += times;
    c->out->cycles += times * cycles;
    double s_wall = (double)cycles / c->wall_hz, s_board = (double)cycles / hw->clock_hz;
    uint64_t polls = 0;
    if (c->has_link) {
        polls = polls_for(s_wall, c->status_s, hw->idle_flag, &s_wall);
        polls_for(s_board, c->status_s, hw->idle_flag, &s_board);
    }
    c->out->status_polls += times * polls;
    c->seen_s += (double)times * s_wall;
    c->seen_board_s += (double)times * s_board;
}

void spu_perf_call_end(spu_perf_call *c)
{
    const spu_perf_hw *hw = c->hw;
    spu_perf_gemm *out = c->out;
    uint64_t bytes = c->bytes + spu_perf_frame_bytes(0);   /* the closing COUNTERS request */
    uint64_t txn = c->txn + 1;          /* the first COUNTERS (the closing one's reply is outside) */
    if (!c->has_link)
        bytes = txn = 0;
    out->link_bytes = bytes + out->status_polls * c->status_b;
    out->transactions = txn + out->status_polls;

    const double RC = (double)hw->rows * hw->cols;
    out->device_s = (double)out->cycles / hw->clock_hz;
    /* link time of everything but the STATUS polls, which overlap the runs */
    const double link_other = c->has_link ? (double)bytes / hw->link_bytes_per_s +
                                            (double)txn * (hw->txn_latency_s + 2 * hw->frame_overhead_s)
                                          : 0;
    out->link_s = link_other + (double)out->status_polls * c->status_s;
    out->host_s = (double)out->pieces * hw->host_s_per_piece + hw->host_s_per_call;
    out->total_s = c->seen_board_s + link_other + out->host_s;
    out->wall_s = c->seen_s + link_other + out->host_s;
    out->poll_extra_s = c->seen_s - (double)out->cycles / c->wall_hz;
    out->board_s = spu_perf_board_time(hw, out);   /* perf_link.c */
    out->utilization = out->cycles ? (double)out->macs / ((double)out->cycles * RC) : 0;
    out->intensity = out->link_bytes ? 2.0 * (double)out->macs / (double)out->link_bytes : INFINITY;
    out->peak_ops_s = (hw->pair ? 4.0 : 2.0) * RC * hw->clock_hz;   /* pairs: two k-steps a cycle */
    const double link_roof = c->has_link ? out->intensity * hw->link_bytes_per_s : INFINITY;
    out->roof_ops_s = link_roof < out->peak_ops_s ? link_roof : out->peak_ops_s;
    out->bound = out->link_s > out->device_s ? "link" : "compute";
}

int spu_perf_gemm_predict(const spu_perf_hw *hw, uint32_t M, uint32_t N, uint32_t K,
                          spu_perf_gemm *out)
{
    const spu_perf_gemm_kind k = { SPU_DTYPE_INT8, SPU_DTYPE_INT32, 0, 0 };
    return spu_perf_gemm_predict_ex(hw, &k, M, N, K, out);
}

static int dtype_is_mx(unsigned in)
{
    return in == SPU_DTYPE_MXFP8_E4M3 || in == SPU_DTYPE_MXFP8_E5M2 || in == SPU_DTYPE_MXINT8 ||
           in == SPU_DTYPE_MXFP6_E3M2 || in == SPU_DTYPE_MXFP6_E2M3 || in == SPU_DTYPE_MXFP4_E2M1;
}

uint64_t spu_perf_gemm_k_words(unsigned in_dtype, uint32_t K)
{
    /* bf16: a k-step is two scratchpad words and its mm costs as an int8 mm
     * of 2K steps (docs/isa.md "mm"); the host plans K * 2 words
     * (gemm.c gemm_run's eb). Every bf16 out needs K in one piece, so a
     * piece never splits a step. */
    if (in_dtype == SPU_DTYPE_BF16)
        return 2ull * K;
    /* MX (spu_gemm_mx): K element words and a scale word after every 32 and
     * after the last, K + ceil(K/32) words in one piece; the mm costs as an
     * int8 mm of that many steps and the panels carry the scale words */
    if (dtype_is_mx(in_dtype))
        return (uint64_t)K + ((uint64_t)K + 31) / 32;
    return K;
}

int spu_perf_gemm_predict_ex(const spu_perf_hw *hw, const spu_perf_gemm_kind *kind,
                             uint32_t M, uint32_t N, uint32_t K, spu_perf_gemm *out)
{
    if (!hw || !kind || !out || !M || !N || !K || strcmp(hw->kind, "spu") || !(hw->clock_hz > 0) ||
        !(hw->link_bytes_per_s >= 0))
        return SPU_EINVAL;
    const unsigned in = kind->in_dtype;
    const int in_float = in == SPU_DTYPE_E4M3 || in == SPU_DTYPE_E5M2 || in == SPU_DTYPE_BF16 || dtype_is_mx(in);
    const spu_dtype_desc *od = spu_dtype_by_code(kind->out_dtype);
    if ((kind->in_dtype != SPU_DTYPE_INT8 && !in_float) || !od ||
        (kind->out_dtype == SPU_DTYPE_INT32 && in_float))
        return SPU_EINVAL;
    const uint64_t kwords = spu_perf_gemm_k_words(in, K);
    if (kwords > UINT32_MAX)
        return SPU_ENOTSUP;
    const uint32_t macs_k = K;
    K = (uint32_t)kwords;
    spu_info_t info;
    spu_perf_hw_to_info(hw, &info);
    spu_gemm_plan p;
    int rc = spu_gemm_plan_make(&info, M, N, K, &p);
    if (rc)
        return rc;
    /* as spu_gemm_epi / gemm_run (host/src/kernels/gemm.c): int32 without
     * relu or bias sums K pieces; every other output needs K in one piece;
     * the bias of a piece's column blocks goes after its C blocks */
    const int sum = kind->out_dtype == SPU_DTYPE_INT32 && !kind->relu && !kind->bias;
    if (!sum && p.kc < K)
        return SPU_ENOTSUP;
    const uint64_t blk = (uint64_t)p.R * p.C * 4, bb = in_float ? 8 : 4;
    const uint64_t bias_blk = kind->bias ? p.C * bb : 0;
    while (kind->bias && (uint64_t)p.mb * p.nb * blk + (uint64_t)p.nb * bias_blk > p.c_bytes) {
        if (p.mb > 1) p.mb--;
        else if (p.nb > 1) p.nb--;
        else return SPU_ENOTSUP;
    }
    const kern kn = { kind->bias != 0, !kind->bias && p.MB == 1 && p.NB == 1, drain_cycles(hw),
                      kind->bias ? div_up(bias_blk, hw->word_bytes) : 0 };
    spu_perf_call c;
    spu_perf_call_begin(&c, hw, out);
    out->macs = (uint64_t)M * N * macs_k;
    spu_perf_call_ucode(&c, kind->bias ? spu_fw_gemm_bias.nwords
                            : kn.block ? spu_fw_gemm_int8_block.nwords : spu_fw_gemm_int8.nwords);
    /* the pieces come in at most 2 x 2 x 2 kinds: full or last of k, rows, cols */
    const uint32_t kfull = K / p.kc, krem = K % p.kc;
    const uint32_t mfull = p.MB / p.mb, mrem = p.MB % p.mb;
    const uint32_t nfull = p.NB / p.nb, nrem = p.NB % p.nb;
    for (int ki = 0; ki < 2; ki++) {
        const uint64_t kcnt = ki ? (krem != 0) : kfull, kc = ki ? krem : p.kc;
        if (!kcnt)
            continue;
        const uint64_t panel = kc * p.wb;
        for (int mi = 0; mi < 2; mi++) {
            const uint64_t mn = mi ? (mrem != 0) : mfull, mbi = mi ? mrem : p.mb;
            if (!mn)
                continue;
            spu_perf_call_write(&c, mbi * panel, kcnt * mn);          /* A once per (k0, ib0) */
            for (int ni = 0; ni < 2; ni++) {
                const uint64_t nn = ni ? (nrem != 0) : nfull, nbi = ni ? nrem : p.nb;
                if (!nn)
                    continue;
                const uint64_t cnt = kcnt * mn * nn;
                const piece_cost pc = piece_k(hw, &kn, mbi, nbi, kc, p.a_base, p.b_base, panel);
                out->stall_bank += cnt * pc.stall_bank;
                out->stall_drain += cnt * pc.stall_drain;
                out->instret += cnt * pc.instret;
                out->mac_active += cnt * mbi * nbi * kc;
                spu_perf_call_write(&c, nbi * panel, cnt);            /* B          */
                if (kind->bias)
                    spu_perf_call_write(&c, nbi * bias_blk, cnt);     /* its bias   */
                spu_perf_call_run(&c, pc.cycles, cnt);                /* ARGS, RUN, STATUS, COUNTERS */
                spu_perf_call_read(&c, mbi * nbi * blk, cnt);         /* C: whole 4-byte blocks, every out */
            }
        }
    }
    spu_perf_call_end(&c);
    return 0;
}

uint64_t spu_perf_scalesim_cycles(const spu_perf_hw *hw, uint32_t M, uint32_t N, uint32_t KS)
{
    if (!hw || !hw->rows || !hw->cols)
        return 0;
    const uint64_t folds = div_up(M, hw->rows) * div_up(N, hw->cols);
    return folds * (2ull * hw->rows + hw->cols + KS - 2);
}
