/*
 * perf_vec.c -- closed-form prediction of the vector kernels
 * (docs/perf-model.md "Vector kernels"): firmware/vec_ops.s and
 * vec_maxpool2.s instruction by instruction with the costs of hw/isa
 * (docs/isa.md "Vector unit": a streaming instruction costs its base cost
 * + its wait + one cycle per word step, two for a binary step whose source
 * words share a bank; these kernels run no tensor instruction, so nothing
 * waits), over the pieces host/src/kernels/vector.c sends, with the link
 * bytes of those pieces (perf_gemm.c's call accounting). With overlapped
 * issue (hw->overlap, docs/isa.md "Overlapped issue") an instruction that
 * overlaps the next one costs one cycle less (per kernel below).
 */
#include "spu/perf.h"
#include "spu/isa.h"
#include "spu/vector.h"
#include "spu_firmware.h"
#include "perf_internal.h"

#include <string.h>

enum {
#define SPU_INSN(NAME, mn, op, fmt, cyc, summary) VC_##NAME = (cyc),
#include "spu_isa.def"
#undef SPU_INSN
};

static uint64_t div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* vector.c's vec_plan: the a, b, y regions and the bytes per operand piece */
typedef struct vplan {
    uint64_t wb, a, b, y, cap, bank;
    uint64_t ov;                /* overlapped issue: 1, else 0 */
} vplan;

static int plan(const spu_perf_hw *hw, vplan *p)
{
    if (!hw || strcmp(hw->kind, "spu") || !hw->word_bytes || !hw->spad_banks || !hw->spad_bytes ||
        !(hw->clock_hz > 0) || !(hw->link_bytes_per_s >= 0))
        return SPU_EINVAL;
    const uint64_t wb = hw->word_bytes, bank = hw->spad_bytes / hw->spad_banks;
    p->wb = wb;
    p->bank = bank;
    p->ov = hw->overlap ? 1 : 0;
    if (hw->spad_banks >= 3) {
        p->a = 0; p->b = bank; p->y = 2 * bank; p->cap = bank;
    } else if (hw->spad_banks == 2) {
        p->cap = bank / 2 / wb * wb;
        p->a = 0; p->b = bank; p->y = bank + p->cap;
    } else {
        p->cap = hw->spad_bytes / 3 / wb * wb;
        p->a = 0; p->b = p->cap; p->y = 2 * p->cap;
    }
    return p->cap >= 256 ? 0 : SPU_ENOTSUP;
}

/* Steps k < n whose source words a0 + k*sa and b0 + k*sb share a bank: run
 * by run between bank crossings (O(banks), not O(n)). */
static uint64_t same_bank(uint64_t bs, uint64_t a0, uint64_t sa, uint64_t b0, uint64_t sb, uint64_t n)
{
    uint64_t k = 0, same = 0;
    while (k < n) {
        const uint64_t a = a0 + k * sa, b = b0 + k * sb, ba = a / bs, bb = b / bs;
        const uint64_t ka = sa ? div_up((ba + 1) * bs - a, sa) : n - k;
        const uint64_t kb = sb ? div_up((bb + 1) * bs - b, sb) : n - k;
        uint64_t run = ka < kb ? ka : kb;
        if (run > n - k)
            run = n - k;
        if (ba == bb)
            same += run;
        k += run;
    }
    return same;
}

/* One run of vec_ops.s: op (r5) over VL words, sources at a (stride wb) and
 * b (stride sb). The dispatch: vlen, vstride, then a (li, bne) pair per op
 * tested before it (op 6, the table: all six pairs taken), cfg for vmul.
 * Overlapped issue: vlen, vstride and the vector instructions (vlutld, vlut,
 * vadd ... vrsum: no register written) overlap the next; li r9 does not (its
 * bne names r9), nor bne, cfg or halt. */
static uint64_t vec_ops_cycles(const vplan *p, int op, uint64_t vl, uint64_t sb)
{
    const uint64_t ov = p->ov;
    uint64_t T = VC_VLEN + VC_VSTRIDE - 2 * ov;
    if (op == SPU_VEC_LUT)
        return T + 6 * (VC_LI + VC_BNE) + VC_VLUTLD + div_up(256, p->wb) - ov + VC_VLUT + vl - ov + VC_HALT;
    T += (uint64_t)(op + 1) * (VC_LI + VC_BNE);
    if (op == SPU_VEC_MUL)
        T += VC_CFG;
    uint64_t steps = vl;
    if (op <= SPU_VEC_MAX)      /* binary: vadd vsub vmul vmax */
        steps += same_bank(p->bank, p->a, p->wb, p->b, sb, vl);
    const uint64_t base = op == 4 ? VC_VRMAX : op == 5 ? VC_VRSUM : VC_VADD;
    return T + base + steps - ov + VC_HALT;
}

int spu_perf_vec_map(const spu_perf_hw *hw, int op, int broadcast, uint64_t n, spu_perf_gemm *out)
{
    vplan p;
    if (!out || (op != SPU_VEC_ADD && op != SPU_VEC_SUB && op != SPU_VEC_MUL && op != SPU_VEC_MAX &&
                 op != SPU_VEC_LUT) || !n || n > UINT32_MAX)
        return SPU_EINVAL;
    int rc = plan(hw, &p);
    if (rc)
        return rc;
    spu_perf_call c;
    spu_perf_call_begin(&c, hw, out);
    spu_perf_call_ucode(&c, spu_fw_vec_ops.nwords);
    broadcast = op != SPU_VEC_LUT && broadcast;
    if (op == SPU_VEC_LUT)
        spu_perf_call_write(&c, 256, 1);
    else if (broadcast)
        spu_perf_call_write(&c, p.wb, 1);
    /* pieces of cap bytes: the full ones, then the rest */
    const uint64_t full = n / p.cap, rest = n % p.cap;
    for (int last = 0; last < 2; last++) {
        const uint64_t cnt = last ? (rest != 0) : full, len = last ? rest : p.cap;
        if (!cnt)
            continue;
        const uint64_t padded = div_up(len, p.wb) * p.wb;
        spu_perf_call_write(&c, padded, cnt);
        if (op != SPU_VEC_LUT && !broadcast)
            spu_perf_call_write(&c, padded, cnt);
        spu_perf_call_run(&c, vec_ops_cycles(&p, op, padded / p.wb, broadcast ? 0 : p.wb), cnt);
        spu_perf_call_read(&c, len, cnt);
    }
    spu_perf_call_end(&c);
    return 0;
}

int spu_perf_vec_rows(const spu_perf_hw *hw, uint64_t rows, uint64_t len, int want_max, int want_sum,
                      spu_perf_gemm *out)
{
    vplan p;
    if (!out || !rows || !len || (!want_max && !want_sum))
        return SPU_EINVAL;
    int rc = plan(hw, &p);
    if (rc)
        return rc;
    if (len > p.cap)
        return SPU_EINVAL;      /* as spu_vec_rows: a row longer than one piece */
    const uint64_t padded = div_up(len, p.wb) * p.wb;
    spu_perf_call c;
    spu_perf_call_begin(&c, hw, out);
    spu_perf_call_ucode(&c, spu_fw_vec_ops.nwords);
    for (int which = 0; which < 2; which++) {
        if (which == 0 ? !want_max : !want_sum)
            continue;
        spu_perf_call_write(&c, padded, rows);
        spu_perf_call_run(&c, vec_ops_cycles(&p, which == 0 ? 4 : 5, padded / p.wb, p.wb), rows);
        spu_perf_call_read(&c, p.wb, rows);
    }
    spu_perf_call_end(&c);
    return 0;
}

/* One run of vec_maxpool2.s over oh output rows of OW x C. Overlapped
 * issue (d r11, s r12, t r13, dst r9, src r10, c2 r14; "ov" overlaps the
 * next instruction, "-" does not):
 *   vlen, add c2, mov dst, mov src, loop         ov ov ov ov -
 *   per row:   mov d, mov s, loop                ov ov -
 *     per group: vstride, add t (vmax names t)   ov -
 *                vmax, vstride, add t            ov ov -
 *                vmax, add t                     ov -
 *                vmax, add d, add s              ov ov ov (add s: next vstride or mul)
 *   per row:   mul t (add dst names t), add dst  - ov
 *              add src, add src (names src)      - ov (next: mov d or halt)
 *   halt */
static uint64_t maxpool_cycles(const vplan *p, uint64_t oh, uint64_t OW, uint64_t C, uint64_t row)
{
    const uint64_t G = C / p->wb, bs = p->bank, ov = p->ov;
    uint64_t T = VC_VLEN + VC_ADD + 2 * VC_ADDI + VC_LOOP - 4 * ov; /* vlen, add, mov, mov, loop */
    for (uint64_t r = 0; r < oh; r++) {
        T += 2 * VC_ADDI + VC_LOOP - 2 * ov;                         /* mov, mov, loop */
        for (uint64_t g = 0; g < G; g++) {
            const uint64_t d = p->y + r * OW * C + g * p->wb, s = p->a + 2 * r * row + g * p->wb;
            T += VC_VSTRIDE + VC_ADD + VC_VMAX + OW + same_bank(bs, s, 2 * C, s + C, 2 * C, OW) - 2 * ov;
            T += VC_VSTRIDE + VC_ADD + VC_VMAX + OW + same_bank(bs, d, C, s + row, 2 * C, OW) - 2 * ov;
            T += VC_ADD + VC_VMAX + OW + same_bank(bs, d, C, s + row + C, 2 * C, OW) - ov;
            T += 2 * VC_ADD - 2 * ov;
        }
        T += VC_MUL + 3 * VC_ADD - 2 * ov;                           /* mul, add, add, add */
    }
    return T + VC_HALT;
}

int spu_perf_vec_maxpool2(const spu_perf_hw *hw, uint64_t C, uint64_t H, uint64_t W, spu_perf_gemm *out)
{
    vplan p;
    if (!out || !C || H < 2 || W < 2 || H % 2 || W % 2)
        return SPU_EINVAL;
    int rc = plan(hw, &p);
    if (rc)
        return rc;
    const uint64_t row = W * C;
    if (C % p.wb || 2 * row > p.cap)
        return SPU_EINVAL;
    const uint64_t band = (p.cap / (2 * row)) * 2, OW = W / 2;
    spu_perf_call c;
    spu_perf_call_begin(&c, hw, out);
    spu_perf_call_ucode(&c, spu_fw_vec_maxpool2.nwords);
    for (uint64_t h = 0; h < H; h += band) {
        const uint64_t hb = H - h < band ? H - h : band;
        spu_perf_call_write(&c, hb * row, 1);
        spu_perf_call_run(&c, maxpool_cycles(&p, hb / 2, OW, C, row), 1);
        spu_perf_call_read(&c, (hb / 2) * OW * C, 1);
    }
    spu_perf_call_end(&c);
    return 0;
}
