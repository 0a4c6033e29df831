/*
 * gemm.c -- GEMM of any shape on any device: plans pieces that fit the
 * scratchpad, packs operands into the panel layout of firmware/gemm_int8.s,
 * runs the kernel per piece and unpacks/accumulates the int32 blocks.
 * spu_gemm() runs the same kernel with its cfg word set to the dtypes asked
 * for (one byte per operand element: int8, e4m3, e5m2; two for bf16, a
 * k-step then being two words, the low bytes then the high bytes, docs/isa.md
 * "mm"; 4-byte outputs: int32, f32); float outputs are rounded once on the
 * device, so their K is never split into pieces (docs/host-api.md).
 *
 * Scratchpad plan (A and B in different banks so every k-step reads both
 * words in one cycle; C has the write ports to itself where there are
 * enough banks):
 *   banks >= 3 : A = bank 0, B = bank 1, C = banks 2..
 *   banks == 2 : A = bank 0, B = first half of bank 1, C = second half
 *   banks == 1 : thirds (bank conflicts: every k-step costs 2 cycles)
 */
#include "spu/gemm.h"
#include "spu/isa.h"
#include "spu/model.h"
#include "spu_firmware.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SPU_GEMM_KERNEL_MAX 64   /* words of firmware/gemm_int8.s, with room */

typedef spu_gemm_plan plan;

static uint32_t align_down(uint32_t v, uint32_t a) { return v - v % a; }

int spu_gemm_plan_make(const spu_info_t *in, uint32_t M, uint32_t N, uint32_t K, plan *p)
{
    memset(p, 0, sizeof *p);
    if (!in || !p || !M || !N || !K || !in->rows || !in->cols || !in->word_bytes)
        return SPU_EINVAL;
    const uint32_t MB = (M + in->rows - 1) / in->rows, NB = (N + in->cols - 1) / in->cols;
    p->MB = MB;
    p->NB = NB;
    p->R = in->rows;
    p->C = in->cols;
    p->wb = in->word_bytes;
    if (in->spad_banks == 0 || (p->C * 4) % p->wb)
        return SPU_ENOTSUP;     /* the kernel's C row stride is COLS*4 bytes */
    const uint32_t bank = in->spad_bytes / in->spad_banks;
    const uint32_t blk = p->R * p->C * 4;
    const uint32_t c_one = blk + p->C * 8;   /* one block and its bias (gemm_bias.s: 8 bytes a column at most) */
    if (in->spad_banks >= 4 && MB == 1 && NB == 1 && in->spad_bytes / 2 > c_one + p->wb) {
        /* one output block: A in the lower half, B in the upper half (less
         * the block and its bias), so K up to half the scratchpad is one
         * piece and no step's A and B words share a bank */
        p->a_base = 0;                   p->a_bytes = in->spad_bytes / 2;
        p->b_base = in->spad_bytes / 2;  p->b_bytes = align_down(in->spad_bytes / 2 - c_one, p->wb);
        p->c_base = p->b_base + p->b_bytes;
        p->c_bytes = in->spad_bytes - p->c_base;
    } else if (in->spad_banks >= 3) {
        p->a_base = 0;        p->a_bytes = bank;
        p->b_base = bank;     p->b_bytes = bank;
        p->c_base = 2 * bank; p->c_bytes = in->spad_bytes - 2 * bank;
    } else if (in->spad_banks == 2) {
        p->a_base = 0;    p->a_bytes = bank;
        p->b_base = bank; p->b_bytes = align_down(bank / 2, p->wb);
        p->c_base = p->b_base + p->b_bytes;
        p->c_bytes = in->spad_bytes - p->c_base;
    } else {
        uint32_t third = align_down(in->spad_bytes / 3, p->wb);
        p->a_base = 0;         p->a_bytes = third;
        p->b_base = third;     p->b_bytes = third;
        p->c_base = 2 * third; p->c_bytes = in->spad_bytes - 2 * third;
    }
    if (p->c_bytes < blk || p->a_bytes < p->wb || p->b_bytes < p->wb)
        return SPU_ENOTSUP;
    uint32_t kmax = (p->a_bytes < p->b_bytes ? p->a_bytes : p->b_bytes) / p->wb;
    p->kc = K < kmax ? K : kmax;
    p->mb = p->a_bytes / (p->kc * p->wb);
    p->nb = p->b_bytes / (p->kc * p->wb);
    if (p->mb > MB) p->mb = MB;
    if (p->nb > NB) p->nb = NB;
    uint32_t cmax = p->c_bytes / blk;             /* blocks that fit in C */
    while ((uint64_t)p->mb * p->nb > cmax) {
        if (p->nb > 1) p->nb = p->nb > cmax ? cmax : (p->nb + 1) / 2;
        else p->mb = cmax;
    }
    return 0;
}

void spu_gemm_i8_reference(uint32_t M, uint32_t N, uint32_t K,
                           const int8_t *A, const int8_t *B, int32_t *C)
{
    for (uint32_t i = 0; i < M; i++)
        for (uint32_t j = 0; j < N; j++) {
            int64_t s = 0;
            for (uint32_t k = 0; k < K; k++)
                s += (int64_t)A[(size_t)i * K + k] * B[(size_t)k * N + j];
            C[(size_t)i * N + j] = (int32_t)(uint32_t)(uint64_t)s;
        }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Run one piece on the in-process model and compare its C region. */
static int check_on_model(spu_model *m, const spu_program *prog, const plan *p,
                          const uint8_t *apk, size_t abytes,
                          const uint8_t *bpk, size_t bbytes, const uint32_t *args,
                          const uint8_t *dev_c, size_t cbytes, uint32_t ob, uint64_t *cycles,
                          uint32_t bias_base, const uint8_t *bias, size_t bias_bytes)
{
    uint8_t *spad = spu_model_spad(m);
    memcpy(spad + p->a_base, apk, abytes);
    memcpy(spad + p->b_base, bpk, bbytes);
    if (bias_bytes)
        memcpy(spad + bias_base, bias, bias_bytes);
    spu_model_set_args(m, args, SPU_NARGS);
    spu_model_run(m, prog->entry, 0);
    spu_status_t st;
    spu_model_status(m, &st);
    *cycles += st.cycles;
    if (st.state != SPU_STATE_HALTED)
        return SPU_ETRAP;
    /* the bytes st wrote: each C row is C*4 bytes apart, its elements ob
     * bytes each; the rest of a row (a narrow out) holds whatever the
     * scratchpad held before, on the device and on the model alike */
    const uint8_t *mc = spad + p->c_base;
    const size_t row = (size_t)p->C * 4, used = (size_t)p->C * ob;
    for (size_t off = 0; off + row <= cbytes; off += row)
        if (memcmp(mc + off, dev_c + off, used))
            return SPU_EMISMATCH;
    return 0;
}

/* Index of the first cfg word of a kernel; n if it has none. */
static size_t first_cfg(const uint32_t *words, size_t n)
{
    size_t i = 0;
    spu_insn d;
    while (i < n && !(spu_isa_decode(words[i], &d) == 0 && d.opcode == SPU_OP_CFG))
        i++;
    return i;
}

/* A GEMM of one output block (M <= ROWS, N <= COLS: every piece is that
 * block) runs firmware/gemm_int8_block.s, four instructions to halt instead
 * of gemm_int8.s's eleven, with the cfg word of the kernel it stands in for
 * (kernel: gemm_int8.s or its copy patched by an epilogue). */
static int block_kernel(const spu_program *kernel, uint32_t *words, spu_program *out)
{
    const spu_program *blk = &spu_fw_gemm_int8_block;
    if (blk->nwords > SPU_GEMM_KERNEL_MAX)
        return SPU_EINVAL;
    memcpy(words, blk->words, blk->nwords * sizeof *words);
    const size_t src = first_cfg(kernel->words, kernel->nwords), dst = first_cfg(words, blk->nwords);
    if (src == kernel->nwords || dst == blk->nwords)
        return SPU_EINVAL;
    words[dst] = kernel->words[src];
    *out = (spu_program){ words, blk->nwords, blk->entry };
    return 0;
}

/* The GEMM of every dtype: A, B one byte per element, C M*N elements of ob
 * bytes (int32 pieces are summed, wrapping; any other output has one K
 * piece, asserted by the caller). The kernel's C rows are COLS*4 bytes
 * apart whatever the out; element j of a row is at j*ob. */
/* With bias_fx (N values on the accumulator grid, bb = 4 or 8 bytes each)
 * the program is firmware/gemm_bias.s: column blocks outermost, C blocks in
 * (jb, ib) order, the bias of the piece's column blocks after its C blocks. */
/* eb: bytes per operand element (1, or 2 for bf16: A and B hold
 * little-endian uint16 codes; each k-step is 2 words in the panels). */
static int gemm_run(spu_device *dev, const spu_program *prog_in, int sum_pieces, uint32_t ob,
                    uint32_t eb, uint32_t M, uint32_t N, uint32_t K,
                    const uint8_t *A, const uint8_t *B, void *Cv,
                    const spu_gemm_opts *opts, spu_gemm_stats *stats, uint32_t max_kc,
                    const int64_t *bias_fx, uint32_t bb,
                    const uint8_t *SA, const uint8_t *SB)
{
    uint8_t *C = Cv;
    spu_gemm_stats s;
    memset(&s, 0, sizeof s);
    const double t0 = now_s();
    if (!dev || (M && N && K && (!A || !B)) || (M && N && !C))
        return SPU_EINVAL;
    s.macs = (uint64_t)M * N * K;
    if (!M || !N) {
        if (stats) *stats = s;
        return 0;
    }
    memset(C, 0, (size_t)M * N * ob);
    if (!K) {
        if (stats) *stats = s;
        return 0;
    }
    spu_info_t info;
    int rc = spu_info(dev, &info);
    if (rc)
        return rc;
    plan p;
    /* MX (SA, SB: E8M0 scales): a scale word after every 32 element words
     * and after the last, K + ceil(K/32) words in one piece (docs/isa.md "mm") */
    const int mx = SA != NULL;
    const uint64_t kwords = mx ? (uint64_t)K + (K + 31u) / 32u : (uint64_t)K * eb;
    const uint32_t nblk = (K + 31u) / 32u;
    if (kwords > UINT32_MAX || (rc = spu_gemm_plan_make(&info, M, N, (uint32_t)kwords, &p)))
        return rc ? rc : SPU_ENOTSUP;
    const uint32_t MB = p.MB, NB = p.NB;
    if ((max_kc || mx) && p.kc < kwords)
        return SPU_ENOTSUP;     /* a float K that needs more than one piece */
    const uint32_t kcs = mx ? K : p.kc / eb;     /* k-steps per piece (p.kc: words) */
    /* the bias of a piece's nb column blocks goes after its C blocks */
    const uint32_t blkb = p.R * p.C * 4, bias_blk = bias_fx ? p.C * bb : 0;
    while (bias_fx && (uint64_t)p.mb * p.nb * blkb + (uint64_t)p.nb * bias_blk > p.c_bytes) {
        if (p.mb > 1) p.mb--;
        else if (p.nb > 1) p.nb--;
        else return SPU_ENOTSUP;
    }
    const uint32_t bias_base = p.c_base + p.mb * p.nb * blkb;
    uint32_t pwords[SPU_GEMM_KERNEL_MAX];
    spu_program pprog = *prog_in;
    const spu_program *prog = prog_in;
    if (bias_fx) {              /* the two li of gemm_bias.s: bias base and step */
        if (prog_in->nwords > SPU_GEMM_KERNEL_MAX)
            return SPU_EINVAL;
        memcpy(pwords, prog_in->words, prog_in->nwords * sizeof *pwords);
        int found = 0;
        for (size_t i = 0; i < prog_in->nwords; i++) {
            spu_insn d;
            if (spu_isa_decode(pwords[i], &d) == 0 && d.opcode == SPU_OP_LI && (d.a == 11 || d.a == 12)) {
                d.imm = (int32_t)(d.a == 11 ? bias_base : bias_blk);
                if (spu_isa_encode(&d, &pwords[i]))
                    return SPU_EINVAL;
                found++;
            }
        }
        if (found != 2)
            return SPU_EINVAL;
        pprog.words = pwords;
        prog = &pprog;
    } else if (MB == 1 && NB == 1) {   /* one block per piece: gemm_int8_block.s */
        if ((rc = block_kernel(prog_in, pwords, &pprog)))
            return rc;
        prog = &pprog;
    }
    const int timeout = opts && opts->timeout_ms > 0 ? opts->timeout_ms : 60000;

    spu_model *model = NULL;
    if (opts && opts->check_model) {
        spu_model_config mc;
        spu_model_config_from_info(&mc, &info);
        if ((rc = spu_model_create(&model, &mc)))
            return rc;
        spu_model_load_ucode(model, 0, prog->words, prog->nwords);
    }
    uint8_t *apk = malloc((size_t)p.mb * p.kc * p.wb);
    uint8_t *bpk = malloc((size_t)p.nb * p.kc * p.wb);
    uint8_t *cbuf = malloc((size_t)p.mb * p.nb * p.R * p.C * 4);
    uint8_t *bias = bias_fx ? malloc((size_t)p.nb * bias_blk) : NULL;
    spu_counters_t c0, c1;
    if (!apk || !bpk || !cbuf || (bias_fx && !bias)) {
        rc = SPU_ENOMEM;
        goto out;
    }
    if ((rc = spu_counters(dev, &c0)) || (rc = spu_load_program(dev, prog)))
        goto out;

    for (uint32_t k0 = 0; k0 < K; k0 += kcs) {
        const uint32_t kc = K - k0 < kcs ? K - k0 : kcs;
        const uint32_t kw = mx ? (uint32_t)kwords : kc * eb;    /* words per panel */
        for (uint32_t ib0 = 0; ib0 < MB; ib0 += p.mb) {
            const uint32_t mbi = MB - ib0 < p.mb ? MB - ib0 : p.mb;
            const size_t abytes = (size_t)mbi * kw * p.wb;
            memset(apk, 0, abytes);
            for (uint32_t b = 0; b < mbi; b++)
                for (uint32_t i = 0; i < p.R; i++) {
                    const uint32_t row = (ib0 + b) * p.R + i;
                    if (row >= M)
                        break;
                    uint8_t *dst = apk + (size_t)b * kw * p.wb + i;
                    const uint8_t *src = A + ((size_t)row * K + k0) * eb;
                    if (mx) {   /* element k at word k + k/32, block g's scale after it */
                        for (uint32_t k = 0; k < kc; k++)
                            dst[(size_t)(k + k / 32) * p.wb] = src[k];
                        for (uint32_t g = 0; g < nblk; g++) {
                            const uint32_t end = (g + 1) * 32 < kc ? (g + 1) * 32 : kc;
                            dst[(size_t)(end + g) * p.wb] = SA[(size_t)row * nblk + g];
                        }
                        continue;
                    }
                    /* word k*eb + h holds byte h of element k */
                    for (uint32_t k = 0; k < kw; k++)
                        dst[(size_t)k * p.wb] = src[k];
                }
            if ((rc = spu_write(dev, p.a_base, apk, abytes)))
                goto out;
            for (uint32_t jb0 = 0; jb0 < NB; jb0 += p.nb) {
                const uint32_t nbi = NB - jb0 < p.nb ? NB - jb0 : p.nb;
                const size_t bbytes = (size_t)nbi * kw * p.wb;
                memset(bpk, 0, bbytes);
                for (uint32_t b = 0; b < nbi; b++) {
                    const uint32_t col0 = (jb0 + b) * p.C;
                    const uint32_t ncols = N - col0 < p.C ? N - col0 : p.C;
                    for (uint32_t g = 0; mx && g < nblk; g++) {
                        const uint32_t end = (g + 1) * 32 < kc ? (g + 1) * 32 : kc;
                        memcpy(bpk + ((size_t)b * kw + end + g) * p.wb, SB + (size_t)g * N + col0, ncols);
                    }
                    for (uint32_t k = 0; k < kc; k++) {
                        const uint8_t *src = B + ((size_t)(k0 + k) * N + col0) * eb;
                        if (mx) {
                            memcpy(bpk + ((size_t)b * kw + k + k / 32) * p.wb, src, ncols);
                            continue;
                        }
                        if (eb == 1) {
                            memcpy(bpk + ((size_t)b * kw + k) * p.wb, src, ncols);
                            continue;
                        }
                        for (uint32_t h = 0; h < eb; h++) {
                            uint8_t *dst = bpk + ((size_t)b * kw + (size_t)k * eb + h) * p.wb;
                            for (uint32_t j = 0; j < ncols; j++)
                                dst[j] = src[(size_t)j * eb + h];
                        }
                    }
                }
                if ((rc = spu_write(dev, p.b_base, bpk, bbytes)))
                    goto out;
                const size_t biasbytes = (size_t)nbi * bias_blk;
                if (bias_fx) {
                    memset(bias, 0, biasbytes);
                    for (uint32_t c = 0; c < nbi * p.C && jb0 * p.C + c < N; c++)
                        for (uint32_t b = 0; b < bb; b++)
                            bias[(size_t)c * bb + b] = (uint8_t)((uint64_t)bias_fx[jb0 * p.C + c] >> (8 * b));
                    if ((rc = spu_write(dev, bias_base, bias, biasbytes)))
                        goto out;
                }
                const uint32_t args[SPU_NARGS] = { p.a_base, p.b_base, p.c_base, kc, mbi, nbi,
                                                   kw * p.wb, p.R * p.C * 4 };
                spu_status_t st;
                spu_counters_t pc;
                if ((rc = spu_run(dev, args, SPU_NARGS)) ||
                    (rc = spu_wait(dev, timeout, &st)) || (rc = spu_counters(dev, &pc)))
                    goto out;
                s.pieces++;
                s.cycles += pc.v[SPU_CNT_CYCLES];
                s.mac_active += pc.v[SPU_CNT_MAC_ACTIVE];
                s.stall_bank += pc.v[SPU_CNT_STALL_BANK];
                s.stall_drain += pc.v[SPU_CNT_STALL_DRAIN];
                s.instret += pc.v[SPU_CNT_INSTRET];
                const size_t cbytes = (size_t)mbi * nbi * p.R * p.C * 4;
                if ((rc = spu_read(dev, p.c_base, cbuf, cbytes)))
                    goto out;
                if (model && (rc = check_on_model(model, prog, &p, apk, abytes, bpk, bbytes, args,
                                                  cbuf, cbytes, ob, &s.model_cycles, bias_base, bias, biasbytes)))
                    goto out;
                for (uint32_t bi = 0; bi < mbi; bi++)
                    for (uint32_t bj = 0; bj < nbi; bj++) {
                        const size_t bk = bias_fx ? (size_t)bj * mbi + bi : (size_t)bi * nbi + bj;
                        const uint8_t *blk = cbuf + bk * p.R * p.C * 4;
                        for (uint32_t i = 0; i < p.R; i++) {
                            const uint32_t row = (ib0 + bi) * p.R + i;
                            if (row >= M)
                                break;
                            for (uint32_t j = 0; j < p.C; j++) {
                                const uint32_t col = (jb0 + bj) * p.C + j;
                                if (col >= N)
                                    break;
                                const uint8_t *e = blk + (size_t)i * p.C * 4 + (size_t)j * ob;
                                uint8_t *dst = C + ((size_t)row * N + col) * ob;
                                if (sum_pieces) {
                                    uint32_t v = (uint32_t)e[0] | (uint32_t)e[1] << 8 |
                                                 (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24, d;
                                    memcpy(&d, dst, 4);
                                    d += v;
                                    memcpy(dst, &d, 4);
                                } else {
                                    memcpy(dst, e, ob);
                                }
                            }
                        }
                    }
            }
        }
    }
    if ((rc = spu_counters(dev, &c1)))
        goto out;
    s.link_bytes = (c1.v[SPU_CNT_LINK_RX] - c0.v[SPU_CNT_LINK_RX]) +
                   (c1.v[SPU_CNT_LINK_TX] - c0.v[SPU_CNT_LINK_TX]);
out:
    s.wall_s = now_s() - t0;
    if (stats)
        *stats = s;
    free(apk);
    free(bpk);
    free(cbuf);
    free(bias);
    spu_model_free(model);
    return rc;
}

int spu_gemm_i8(spu_device *dev, uint32_t M, uint32_t N, uint32_t K,
                const int8_t *A, const int8_t *B, int32_t *C,
                const spu_gemm_opts *opts, spu_gemm_stats *stats)
{
    return gemm_run(dev, &spu_fw_gemm_int8, 1, 4, 1, M, N, K, (const uint8_t *)A, (const uint8_t *)B,
                    C, opts, stats, 0, NULL, 0, NULL, NULL);
}

/* The kernel with its cfg word set to in / out (the first cfg of
 * firmware/gemm_int8.s; the rest of the kernel is dtype-agnostic for 1-byte
 * operands and 4-byte outputs). */
static int patch_kernel(unsigned in, const spu_gemm_epilogue *e, uint32_t *words, spu_program *prog)
{
    const spu_program *src = e->bias ? &spu_fw_gemm_bias : &spu_fw_gemm_int8;
    if (src->nwords > SPU_GEMM_KERNEL_MAX)
        return SPU_EINVAL;
    memcpy(words, src->words, src->nwords * sizeof *words);
    const size_t i = first_cfg(words, src->nwords);
    spu_insn d;
    if (i == src->nwords || spu_isa_decode(words[i], &d))
        return SPU_EINVAL;
    const unsigned val[SPU_CFG_FIELD_COUNT] = {
        [SPU_CFG_IN] = in, [SPU_CFG_OUT] = e->out_dtype, [SPU_CFG_SHIFT] = e->shift,
        [SPU_CFG_ROUND] = e->round, [SPU_CFG_RELU] = e->relu ? 1u : 0u,
        [SPU_CFG_OVF] = e->ovf ? 1u : 0u };
    uint32_t imm = 0;
    for (int f = 0; f < SPU_CFG_FIELD_COUNT; f++)
        imm |= val[f] << spu_cfg_field_table[f].lsb;
    d.imm = (int32_t)imm;
    if (spu_isa_encode(&d, &words[i]))
        return SPU_EINVAL;
    *prog = (spu_program){ words, src->nwords, src->entry };
    return 0;
}

/* the MX dtypes (spu_cfg.def codes 7..12): element codes + E8M0 block scales */
static int mx_dtype(unsigned d)
{
    return d == SPU_DTYPE_MXFP8_E4M3 || d == SPU_DTYPE_MXFP8_E5M2 || d == SPU_DTYPE_MXINT8 ||
           d == SPU_DTYPE_MXFP6_E3M2 || d == SPU_DTYPE_MXFP6_E2M3 || d == SPU_DTYPE_MXFP4_E2M1;
}

const char *spu_gemm_epi_lacks(const spu_info_t *info, unsigned in_dtype, unsigned out_dtype, int bias)
{
    if (spu_model_cfg_check(info->formats, in_dtype, out_dtype))
        return "the device does not carry this in / out pair (docs/isa.md \"Traps\": FORMAT)";
    if (bias && !(info->formats & ~(1u << SPU_DTYPE_INT8)))
        return "the device has no bias registers (an int8-only build: docs/isa.md `bias`)";
    return NULL;
}

static int gemm_epi(spu_device *dev, unsigned in_dtype, const spu_gemm_epilogue *epi,
                    uint32_t M, uint32_t N, uint32_t K, const void *A, const void *SA,
                    const void *B, const void *SB, void *C,
                    const spu_gemm_opts *opts, spu_gemm_stats *stats)
{
    const int is_mx = mx_dtype(in_dtype);
    const int is_float = in_dtype == SPU_DTYPE_E4M3 || in_dtype == SPU_DTYPE_E5M2 ||
                         in_dtype == SPU_DTYPE_BF16 || is_mx;
    if (!dev || !epi || (in_dtype != SPU_DTYPE_INT8 && !is_float) || (is_mx && M && N && K && (!SA || !SB)))
        return SPU_EINVAL;
    const unsigned out = epi->out_dtype;
    const spu_dtype_desc *od = spu_dtype_by_code(out);
    if (!od || (out == SPU_DTYPE_INT32 && in_dtype != SPU_DTYPE_INT8) ||
        epi->shift > 31 || epi->round > SPU_ROUND_RNA)
        return SPU_EINVAL;
    if (M && N && K) {
        spu_info_t info;
        int rc = spu_info(dev, &info);
        if (rc)
            return rc;
        if (spu_gemm_epi_lacks(&info, in_dtype, out, epi->bias != NULL))
            return SPU_ENOTSUP;
    }
    uint32_t words[SPU_GEMM_KERNEL_MAX];
    spu_program prog;
    int rc = patch_kernel(in_dtype, epi, words, &prog);
    if (rc)
        return rc;
    /* the bias on the accumulator grid: int32 (int8 inputs: integers),
     * int64 multiples of 2^-32 (float inputs: RNE) */
    int64_t *bfx = NULL;
    const uint32_t bb = is_float ? 8 : 4;
    if (epi->bias && N) {
        if (!(bfx = malloc((size_t)N * sizeof *bfx)))
            return SPU_ENOMEM;
        for (uint32_t j = 0; j < N; j++) {
            const double v = is_float ? ldexp(epi->bias[j], 32) : epi->bias[j];
            const double lim = is_float ? 0x1p63 : 0x1p31;
            if (!(v >= -lim && v < lim) || (!is_float && v != nearbyint(v))) {
                free(bfx);
                return SPU_EINVAL;
            }
            bfx[j] = (int64_t)nearbyint(v);      /* RNE (the default rounding mode) */
        }
    }
    /* int32 without relu or bias sums K pieces (wrapping, exact); every
     * other output is a function of the whole sum */
    const int sum = out == SPU_DTYPE_INT32 && !epi->relu && !epi->bias;
    rc = gemm_run(dev, &prog, sum, od->bytes, in_dtype == SPU_DTYPE_BF16 ? 2 : 1, M, N, K, A, B, C,
                  opts, stats, !sum, bfx, bb, is_mx ? SA : NULL, is_mx ? SB : NULL);
    free(bfx);
    return rc;
}

int spu_gemm_epi(spu_device *dev, unsigned in_dtype, const spu_gemm_epilogue *epi,
                 uint32_t M, uint32_t N, uint32_t K, const void *A, const void *B, void *C,
                 const spu_gemm_opts *opts, spu_gemm_stats *stats)
{
    if (mx_dtype(in_dtype))
        return SPU_EINVAL;      /* MX needs its scales: spu_gemm_mx */
    return gemm_epi(dev, in_dtype, epi, M, N, K, A, NULL, B, NULL, C, opts, stats);
}

int spu_gemm_mx(spu_device *dev, unsigned in_dtype, const spu_gemm_epilogue *epi,
                uint32_t M, uint32_t N, uint32_t K, const uint8_t *A, const uint8_t *SA,
                const uint8_t *B, const uint8_t *SB, void *C,
                const spu_gemm_opts *opts, spu_gemm_stats *stats)
{
    if (!mx_dtype(in_dtype))
        return SPU_EINVAL;
    return gemm_epi(dev, in_dtype, epi, M, N, K, A, SA, B, SB, C, opts, stats);
}

int spu_gemm(spu_device *dev, unsigned in_dtype, unsigned out_dtype,
             uint32_t M, uint32_t N, uint32_t K, const void *A, const void *B, void *C,
             const spu_gemm_opts *opts, spu_gemm_stats *stats)
{
    if (out_dtype != SPU_DTYPE_F32 && out_dtype != SPU_DTYPE_INT32)
        return SPU_EINVAL;
    const spu_gemm_epilogue e = { out_dtype, 0, 0, 0, SPU_ROUND_RNE, NULL };
    return spu_gemm_epi(dev, in_dtype, &e, M, N, K, A, B, C, opts, stats);
}
