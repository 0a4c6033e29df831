/*
 * conv.c -- spu_conv2d_hwc (spu/conv.h): a stride-1 convolution of HWC codes
 * on the device with firmware/conv_tap.s; no im2col matrix anywhere.
 *
 * The batch is one tall image: the B padded images (Hp = H + 2*pad rows,
 * Wp = W + 2*pad rounded up to the word) stacked, convolved on the padded
 * grid (the outputs whose window crosses an image edge or lies in a pad
 * column are computed and discarded: Wp/OW and Hp/OH of the array's work).
 * Pieces are bands of R output rows (the input band has R + k - 1 rows);
 * the weights, bias and the transposing identity are written once per call.
 *
 * Scratchpad plan: [weights | bias | identity | Y] from 0, then T from the
 * second bank (the A operand of phase 2 never shares a bank with B), then X.
 * Every output block is one mm of k*k*C k-steps (the taps, one stride apart
 * in T's row-interleaved layout) and one st.
 */
#include "spu/conv.h"
#include "spu/isa.h"
#include "spu_firmware.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CONV_TIMEOUT_MS 60000
#define PH_FIRST 1001
#define PH_COUNT 26
#define LI_MAX ((1 << 21) - 1)
#define ADDI_MAX ((1 << 17) - 1)

static uint32_t rup(uint64_t v, uint32_t a) { return (uint32_t)((v + a - 1) / a * a); }

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int dt_one(unsigned dt, uint8_t *one)
{
    switch (dt) {
    case SPU_DTYPE_INT8: *one = 0x01; return 0;   /* 1       */
    case SPU_DTYPE_E4M3: *one = 0x38; return 0;   /* 1.0     */
    case SPU_DTYPE_E5M2: *one = 0x3C; return 0;   /* 1.0     */
    default: return SPU_ENOTSUP;
    }
}

int spu_conv2d_hwc_supported(const spu_info_t *in, unsigned dt, uint32_t C, uint32_t k, uint32_t N)
{
    uint8_t one = 0;
    const uint32_t wb = in->word_bytes;
    return (in->features & SPU_FEATURE_VECTOR) && wb && in->rows == wb && in->cols == wb &&
           (in->formats & ~(1u << SPU_DTYPE_INT8)) && dt < 32 && (in->formats & (1u << dt)) &&
           !dt_one(dt, &one) && k >= 1 && N && N % wb == 0 && (C == 1 || (C && C % wb == 0)) &&
           in->loop_depth >= 4;
}

typedef struct cplan {
    uint32_t wb, Wp, Hp, R, Lp, K, NB, bb;
    uint32_t a_w, a_bias, a_id, a_y, a_t, a_x, end;
} cplan;

/* the regions for a band of R output rows; 0 if they fit */
static int plan_for(const spu_info_t *in, uint32_t C, uint32_t k, uint32_t N, cplan *p)
{
    const uint32_t wb = p->wb, bank = in->spad_bytes / (in->spad_banks ? in->spad_banks : 1);
    p->Lp = (p->R + k - 1) * p->Wp;   /* T: R + k - 1 rows of k*C*Wp bytes */
    uint64_t a = 0;
    p->a_w = 0;                     a += (uint64_t)p->NB * p->K * wb;
    p->a_bias = (uint32_t)a;        a += (uint64_t)p->NB * wb * p->bb;
    p->a_id = rup(a, wb);           a = p->a_id + (uint64_t)wb * wb;
    p->a_y = rup(a, wb);            a = p->a_y + (uint64_t)p->R * p->Wp * N;
    a = a <= bank ? bank : rup(a, wb);
    p->a_t = (uint32_t)a;           a += (uint64_t)k * C * p->Lp;
    p->a_x = rup(a, wb);            a = p->a_x + (C > 1 ? (uint64_t)(p->R + k + 1) * p->Wp * C : 0);
    if (a > in->spad_bytes || a > LI_MAX || (uint64_t)k * C * p->Wp > ADDI_MAX ||
        (uint64_t)wb * p->Wp > ADDI_MAX || (uint64_t)wb * N > ADDI_MAX || (uint64_t)p->K * wb > ADDI_MAX ||
        (uint64_t)wb * C > ADDI_MAX)
        return -1;
    p->end = (uint32_t)a;
    return 0;
}

static int patch(unsigned dt, const spu_gemm_epilogue *e, const uint32_t val[PH_COUNT], uint32_t *words)
{
    const spu_program *src = &spu_fw_conv_tap;
    int ncfg = 0;
    memcpy(words, src->words, src->nwords * sizeof *words);
    for (size_t i = 0; i < src->nwords; i++) {
        spu_insn d;
        if (spu_isa_decode(words[i], &d))
            return SPU_EINVAL;
        if (d.opcode == SPU_OP_CFG) {
            const int pass = ncfg++ == 0;
            const unsigned v[SPU_CFG_FIELD_COUNT] = {
                [SPU_CFG_IN] = dt, [SPU_CFG_OUT] = dt, [SPU_CFG_SHIFT] = pass ? 0 : e->shift,
                [SPU_CFG_ROUND] = pass ? SPU_ROUND_RNE : e->round,
                [SPU_CFG_RELU] = !pass && e->relu ? 1u : 0u, [SPU_CFG_OVF] = !pass && e->ovf ? 1u : 0u };
            uint32_t imm = 0;
            for (int f = 0; f < SPU_CFG_FIELD_COUNT; f++)
                imm |= v[f] << spu_cfg_field_table[f].lsb;
            d.imm = (int32_t)imm;
        } else if ((d.opcode == SPU_OP_LI || d.opcode == SPU_OP_ADDI) && d.imm >= PH_FIRST &&
                   d.imm < PH_FIRST + PH_COUNT) {
            d.imm = (int32_t)val[d.imm - PH_FIRST];
        } else {
            continue;
        }
        if (spu_isa_encode(&d, &words[i]))
            return SPU_ENOTSUP;
    }
    return ncfg == 2 ? 0 : SPU_EINVAL;
}

static int run_piece(spu_device *dev, uint32_t mb, uint32_t nt, spu_gemm_stats *s)
{
    const uint32_t args[SPU_NARGS] = { mb, nt };
    spu_status_t st;
    spu_counters_t c;
    int rc;
    if ((rc = spu_run(dev, args, SPU_NARGS)) || (rc = spu_wait(dev, CONV_TIMEOUT_MS, &st)) ||
        (rc = spu_counters(dev, &c)))
        return rc;
    if (st.state != SPU_STATE_HALTED)
        return SPU_ETRAP;
    s->cycles += c.v[SPU_CNT_CYCLES];
    s->mac_active += c.v[SPU_CNT_MAC_ACTIVE];
    s->stall_bank += c.v[SPU_CNT_STALL_BANK];
    s->stall_drain += c.v[SPU_CNT_STALL_DRAIN];
    s->instret += c.v[SPU_CNT_INSTRET];
    s->pieces++;
    return 0;
}

int spu_conv2d_hwc(spu_device *dev, unsigned dt, const spu_gemm_epilogue *epi, uint32_t B, uint32_t H,
                   uint32_t W, uint32_t C, uint32_t k, uint32_t pad, const void *x, uint32_t N,
                   const void *w, void *y, spu_gemm_stats *stats)
{
    if (!dev || !epi || !x || !w || !y || !B || !H || !W || !C || !k || !N || epi->out_dtype != dt ||
        epi->shift > 31 || epi->round > SPU_ROUND_RNA || H + 2 * pad < k || W + 2 * pad < k)
        return SPU_EINVAL;
    spu_info_t in;
    int rc = spu_info(dev, &in);
    if (rc)
        return rc;
    if (!spu_conv2d_hwc_supported(&in, dt, C, k, N))
        return SPU_ENOTSUP;
    const double t0 = now_s();
    spu_counters_t l0, l1;
    if ((rc = spu_counters(dev, &l0)))
        return rc;
    uint8_t one = 0;
    dt_one(dt, &one);
    cplan p = { .wb = in.word_bytes };
    p.Hp = H + 2 * pad;
    p.Wp = rup(W + 2 * pad, p.wb);
    p.K = C * k * k;
    p.NB = N / p.wb;
    p.bb = dt == SPU_DTYPE_INT8 ? 4 : 8;
    const uint32_t OH = H + 2 * pad - k + 1, OW = W + 2 * pad - k + 1;
    const uint32_t rtot = B * p.Hp;                 /* output rows on the stacked grid */
    uint32_t R = rtot;
    for (; R >= 1; R--) {
        p.R = R;
        if (!plan_for(&in, C, k, N, &p))
            break;
    }
    if (!R)
        return SPU_ENOTSUP;
    const uint32_t npieces = (rtot + R - 1) / R;
    const size_t xrows = (size_t)npieces * R + k + 2, pix = (size_t)p.Wp * C;
    uint8_t *xp = calloc(xrows * pix, 1), *wp = calloc((size_t)p.NB * p.K * p.wb, 1);
    uint8_t *bias = calloc((size_t)p.NB * p.wb * p.bb, 1), *id = calloc((size_t)p.wb * p.wb, 1);
    uint8_t *yb = malloc((size_t)R * p.Wp * N), *tb = C == 1 ? malloc((size_t)(R + k) * k * p.Wp) : NULL;
    uint32_t *words = malloc(spu_fw_conv_tap.nwords * sizeof *words);
    if (!xp || !wp || !bias || !id || !yb || !words || (C == 1 && !tb)) {
        rc = SPU_ENOMEM;
        goto out;
    }
    /* the padded stack (a layout copy: the pads are zero codes) */
    const uint8_t *xs = x;
    for (uint32_t b = 0; b < B; b++)
        for (uint32_t h = 0; h < H; h++)
            memcpy(xp + ((size_t)(b * p.Hp + pad + h) * p.Wp + pad) * C, xs + ((size_t)b * H + h) * W * C,
                   (size_t)W * C);
    /* weight panels: column block jb, word t = (kh*k + kw)*C + c, byte j */
    const uint8_t *ws = w;
    for (uint32_t jb = 0; jb < p.NB; jb++)
        for (uint32_t kh = 0; kh < k; kh++)
            for (uint32_t kw = 0; kw < k; kw++)
                for (uint32_t c = 0; c < C; c++)
                    for (uint32_t j = 0; j < p.wb; j++)
                        wp[(((size_t)jb * k * k + kh * k + kw) * C + c) * p.wb + j] =
                            ws[(((size_t)c * k + kh) * k + kw) * N + jb * p.wb + j];
    for (uint32_t n = 0; n < N; n++) {   /* bias on the accumulator grid, as spu_gemm_epi */
        int64_t v = 0;
        if (epi->bias) {
            const double f = dt == SPU_DTYPE_INT8 ? epi->bias[n] : ldexp(epi->bias[n], 32);
            const double lim = dt == SPU_DTYPE_INT8 ? 0x1p31 : 0x1p63;
            if (!(f >= -lim && f < lim) || (dt == SPU_DTYPE_INT8 && f != nearbyint(f))) {
                rc = SPU_EINVAL;
                goto out;
            }
            v = (int64_t)nearbyint(f);
        }
        for (uint32_t i = 0; i < p.bb; i++)
            bias[(size_t)n * p.bb + i] = (uint8_t)((uint64_t)v >> (8 * i));
    }
    for (uint32_t j = 0; j < p.wb; j++)
        id[j * p.wb + j] = one;
    const uint32_t val[PH_COUNT] = {
        [0] = p.a_x, [1] = p.a_t, [2] = p.a_id, [3] = C > 1 ? k * C / p.wb : 0, [4] = C, [6] = p.wb,
        [8] = p.wb * C, [9] = k * C * p.Wp - p.Wp, [10] = p.a_w, [11] = p.a_y, [12] = p.a_bias, [13] = p.K,
        [16] = N, [17] = p.Wp, [20] = p.wb * N, [21] = p.K * p.wb, [22] = p.wb * p.bb, [23] = p.NB,
        [24] = p.Wp / p.wb, [25] = p.wb * p.Wp };
    if ((rc = patch(dt, epi, val, words)))
        goto out;
    const spu_program prog = { words, spu_fw_conv_tap.nwords, spu_fw_conv_tap.entry };
    if ((rc = spu_load_program(dev, &prog)) || (rc = spu_write(dev, p.a_w, wp, (size_t)p.NB * p.K * p.wb)) ||
        (rc = spu_write(dev, p.a_bias, bias, (size_t)p.NB * p.wb * p.bb)) ||
        (rc = spu_write(dev, p.a_id, id, (size_t)p.wb * p.wb)))
        goto out;
    spu_gemm_stats s = { 0 };
    uint8_t *ys = y;
    for (uint32_t r0 = 0; !rc && r0 < rtot; r0 += R) {
        const uint32_t rl = rtot - r0 < R ? rtot - r0 : R;
        const uint8_t *band = xp + (size_t)r0 * pix;
        if (C > 1) {
            rc = spu_write(dev, p.a_x, band, (size_t)(rl + k + 1) * pix);
        } else {                        /* one channel: the host writes T (k shifted views per row) */
            const uint32_t tr = rl + k - 1;
            for (uint32_t r = 0; r < tr; r++)
                for (uint32_t kw = 0; kw < k; kw++)
                    memcpy(tb + ((size_t)r * k + kw) * p.Wp, band + (size_t)r * p.Wp + kw, p.Wp);
            rc = spu_write(dev, p.a_t, tb, (size_t)tr * k * p.Wp);
        }
        if (rc || (rc = run_piece(dev, rl, rl + k - 1, &s)))
            break;
        /* the images' valid output rows in this band: one read per image */
        for (uint32_t b = r0 / p.Hp; !rc && b < B && b * p.Hp < r0 + rl; b++) {
            uint32_t lo = b * p.Hp, hi = b * p.Hp + OH;
            lo = lo < r0 ? r0 : lo;
            hi = hi > r0 + rl ? r0 + rl : hi;
            if (lo >= hi)
                continue;
            const size_t row = (size_t)p.Wp * N;
            if ((rc = spu_read(dev, p.a_y + (uint32_t)((lo - r0) * row), yb, (hi - lo) * row)))
                break;
            for (uint32_t r = lo; r < hi; r++)
                memcpy(ys + (((size_t)b * OH + (r - b * p.Hp)) * OW) * N, yb + (r - lo) * row, (size_t)OW * N);
        }
    }
    if (!rc && !(rc = spu_counters(dev, &l1))) {
        s.link_bytes = (l1.v[SPU_CNT_LINK_RX] - l0.v[SPU_CNT_LINK_RX]) +
                       (l1.v[SPU_CNT_LINK_TX] - l0.v[SPU_CNT_LINK_TX]);
        s.macs = (uint64_t)B * OH * OW * N * p.K;
        s.wall_s = now_s() - t0;
        if (stats) {
            stats->cycles += s.cycles;
            stats->mac_active += s.mac_active;
            stats->stall_bank += s.stall_bank;
            stats->stall_drain += s.stall_drain;
            stats->instret += s.instret;
            stats->link_bytes += s.link_bytes;
            stats->macs += s.macs;
            stats->pieces += s.pieces;
            stats->wall_s += s.wall_s;
        }
    }
out:
    free(xp);
    free(wp);
    free(bias);
    free(id);
    free(yb);
    free(tb);
    free(words);
    return rc;
}
