/*
 * vector.c -- int8 kernels on the vector unit (spu/vector.h): operands are
 * streamed through the scratchpad in pieces, one device run of
 * firmware/vec_ops.s or firmware/vec_maxpool2.s per piece.
 *
 * Scratchpad plan (the sources of a binary op in different banks, so each
 * word step takes one cycle; docs/isa.md "Vector unit"):
 *   banks >= 3 : a = bank 0, b = bank 1, y = bank 2 (a piece = one bank)
 *   banks == 2 : a = bank 0, b = first half of bank 1, y = second half
 *   banks == 1 : thirds (same-bank steps: two cycles each)
 */
#include "spu/vector.h"
#include "spu_firmware.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VEC_TIMEOUT_MS 60000

typedef struct vplan {
    uint32_t wb, a, b, y, cap;   /* cap: bytes per operand piece, multiple of wb */
} vplan;

static int vec_plan(spu_device *dev, vplan *p)
{
    spu_info_t in;
    int rc = spu_info(dev, &in);
    if (rc)
        return rc;
    if (!(in.features & SPU_FEATURE_VECTOR) || !in.word_bytes || !in.spad_banks)
        return SPU_ENOTSUP;
    const uint32_t wb = in.word_bytes, bank = in.spad_bytes / in.spad_banks;
    p->wb = wb;
    if (in.spad_banks >= 3) {
        p->a = 0; p->b = bank; p->y = 2 * bank; p->cap = bank;
    } else if (in.spad_banks == 2) {
        p->cap = bank / 2 / wb * wb;
        p->a = 0; p->b = bank; p->y = bank + p->cap;
    } else {
        p->cap = in.spad_bytes / 3 / wb * wb;
        p->a = 0; p->b = p->cap; p->y = 2 * p->cap;
    }
    return p->cap >= 256 ? 0 : SPU_ENOTSUP;   /* a lookup table must fit a piece */
}

/* One run of the loaded program; its counters accumulated into st. */
static int vec_run(spu_device *dev, const uint32_t args[SPU_NARGS], spu_vec_stats *st)
{
    spu_counters_t c1;
    spu_status_t s;
    int rc;
    if ((rc = spu_run(dev, args, SPU_NARGS)) || (rc = spu_wait(dev, VEC_TIMEOUT_MS, &s)) ||
        (rc = spu_counters(dev, &c1)))
        return rc;
    if (s.state != SPU_STATE_HALTED)
        return SPU_ETRAP;
    if (st) {
        st->cycles += c1.v[SPU_CNT_CYCLES];
        st->vec_busy += c1.v[SPU_CNT_VEC_BUSY];
        st->runs++;
    }
    return 0;
}

/* Link bytes of a whole call (program, operands, results, control), as
 * spu_gemm counts them: LINK_RX + LINK_TX from its start to its end. */
static uint64_t link_now(spu_device *dev)
{
    spu_counters_t c;
    if (spu_counters(dev, &c))
        return 0;
    return c.v[SPU_CNT_LINK_RX] + c.v[SPU_CNT_LINK_TX];
}

static uint32_t round_up(size_t v, uint32_t a) { return (uint32_t)((v + a - 1) / a * a); }

static int spu_vec_map_body(spu_device *dev, spu_vec_op op, const int8_t *a, const int8_t *b, int8_t scalar,
                const uint8_t lut[256], int8_t *y, size_t n, spu_vec_stats *stats)
{
    if (!dev || (n && (!a || !y)) || (op == SPU_VEC_LUT && !lut) ||
        (op != SPU_VEC_ADD && op != SPU_VEC_SUB && op != SPU_VEC_MUL && op != SPU_VEC_MAX &&
         op != SPU_VEC_LUT) || n > UINT32_MAX)
        return SPU_EINVAL;
    vplan p;
    int rc = vec_plan(dev, &p);
    if (rc || !n)
        return rc;
    if ((rc = spu_load_program(dev, &spu_fw_vec_ops)))
        return rc;
    uint8_t *buf = calloc(p.cap, 1);
    if (!buf)
        return SPU_ENOMEM;
    const int broadcast = op != SPU_VEC_LUT && !b;
    if (op == SPU_VEC_LUT) {
        rc = spu_write(dev, p.b, lut, 256);
    } else if (broadcast) {
        memset(buf, (uint8_t)scalar, p.wb);
        rc = spu_write(dev, p.b, buf, p.wb);
    }
    for (size_t off = 0; !rc && off < n; off += p.cap) {
        const size_t len = n - off < p.cap ? n - off : p.cap;
        const uint32_t padded = round_up(len, p.wb);
        memset(buf, 0, padded);
        memcpy(buf, a + off, len);
        if ((rc = spu_write(dev, p.a, buf, padded)))
            break;
        if (op != SPU_VEC_LUT && !broadcast) {
            memset(buf, 0, padded);
            memcpy(buf, b + off, len);
            if ((rc = spu_write(dev, p.b, buf, padded)))
                break;
        }
        const uint32_t args[SPU_NARGS] = { p.y, p.a, p.b, padded / p.wb, (uint32_t)op,
                                           p.wb, p.wb, broadcast ? 0 : p.wb };
        if ((rc = vec_run(dev, args, stats)) || (rc = spu_read(dev, p.y, buf, len)))
            break;
        memcpy(y + off, buf, len);
    }
    free(buf);
    return rc;
}

static int spu_vec_rows_body(spu_device *dev, const int8_t *x, size_t rows, size_t len, int8_t *out_max,
                 int32_t *out_sum, spu_vec_stats *stats)
{
    if (!dev || (rows && (!x || !len)))
        return SPU_EINVAL;
    vplan p;
    int rc = vec_plan(dev, &p);
    if (rc || !rows || (!out_max && !out_sum))
        return rc;
    if (len > p.cap)
        return SPU_EINVAL;      /* a row longer than one scratchpad piece */
    if ((rc = spu_load_program(dev, &spu_fw_vec_ops)))
        return rc;
    const uint32_t padded = round_up(len, p.wb);
    uint8_t *buf = malloc(padded > p.wb ? padded : p.wb);
    if (!buf)
        return SPU_ENOMEM;
    for (size_t r = 0; !rc && r < rows; r++)
        for (int which = 0; !rc && which < 2; which++) {
            if (which == 0 ? !out_max : !out_sum)
                continue;
            /* pad with the reduction's identity: -128 for max, 0 for sum */
            memset(buf, which == 0 ? 0x80 : 0, padded);
            memcpy(buf, x + r * len, len);
            const uint32_t args[SPU_NARGS] = { p.y, p.a, 0, padded / p.wb, which == 0 ? 4u : 5u,
                                               p.wb, p.wb, p.wb };
            if ((rc = spu_write(dev, p.a, buf, padded)) || (rc = vec_run(dev, args, stats)) ||
                (rc = spu_read(dev, p.y, buf, p.wb)))
                break;
            if (which == 0)
                out_max[r] = (int8_t)buf[0];
            else
                out_sum[r] = (int32_t)((uint32_t)buf[0] | (uint32_t)buf[1] << 8 |
                                       (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 24);
        }
    free(buf);
    return rc;
}

static int spu_vec_maxpool2_hwc_body(spu_device *dev, const int8_t *x, size_t C, size_t H, size_t W, int8_t *y,
                         spu_vec_stats *stats)
{
    if (!dev || !x || !y || !C || H < 2 || W < 2 || H % 2 || W % 2)
        return SPU_EINVAL;
    vplan p;
    int rc = vec_plan(dev, &p);
    if (rc)
        return rc;
    const size_t row = W * C;                      /* bytes of one input row */
    if (C % p.wb || 2 * row > p.cap)
        return SPU_EINVAL;
    const size_t band = (p.cap / (2 * row)) * 2;   /* input rows per piece, even */
    if ((rc = spu_load_program(dev, &spu_fw_vec_maxpool2)))
        return rc;
    const size_t OW = W / 2;
    for (size_t h = 0; !rc && h < H; h += band) {
        const size_t hb = H - h < band ? H - h : band;
        if ((rc = spu_write(dev, p.a, x + h * row, hb * row)))
            break;
        const uint32_t args[SPU_NARGS] = { p.y, p.a, (uint32_t)(hb / 2), (uint32_t)OW,
                                           (uint32_t)(C / p.wb), (uint32_t)row, p.wb, (uint32_t)C };
        if ((rc = vec_run(dev, args, stats)))
            break;
        rc = spu_read(dev, p.y, y + (h / 2) * OW * C, (hb / 2) * OW * C);
    }
    return rc;
}

int spu_vec_map(spu_device *dev, spu_vec_op op, const int8_t *a, const int8_t *b, int8_t scalar,
                const uint8_t lut[256], int8_t *y, size_t n, spu_vec_stats *stats)
{
    const uint64_t l0 = dev ? link_now(dev) : 0;
    int rc = spu_vec_map_body(dev, op, a, b, scalar, lut, y, n, stats);
    if (dev && stats)
        stats->link_bytes += link_now(dev) - l0;
    return rc;
}

int spu_vec_rows(spu_device *dev, const int8_t *x, size_t rows, size_t len, int8_t *out_max,
                 int32_t *out_sum, spu_vec_stats *stats)
{
    const uint64_t l0 = dev ? link_now(dev) : 0;
    int rc = spu_vec_rows_body(dev, x, rows, len, out_max, out_sum, stats);
    if (dev && stats)
        stats->link_bytes += link_now(dev) - l0;
    return rc;
}

int spu_vec_maxpool2_hwc(spu_device *dev, const int8_t *x, size_t C, size_t H, size_t W, int8_t *y,
                         spu_vec_stats *stats)
{
    const uint64_t l0 = dev ? link_now(dev) : 0;
    int rc = spu_vec_maxpool2_hwc_body(dev, x, C, H, W, y, stats);
    if (dev && stats)
        stats->link_bytes += link_now(dev) - l0;
    return rc;
}

/* Softmax rows: x at p.a (bank 0), y at p.y, the scratch words m and S at
 * p.b (another bank: vsub's and vdiv's src2 never conflict with their src1),
 * the table after them. A piece is as many whole rows as fit. */
static int spu_vec_softmax_rows_body(spu_device *dev, const int8_t *x, size_t rows, size_t len,
                                     const uint8_t lut[256], int8_t *y, spu_vec_stats *stats)
{
    if (!dev || !lut || (rows && (!x || !y || !len)))
        return SPU_EINVAL;
    vplan p;
    int rc = vec_plan(dev, &p);
    if (rc || !rows)
        return rc;
    if (len % p.wb || len > p.cap || p.cap < 2 * p.wb + 256)
        return SPU_EINVAL;
    if ((rc = spu_load_program(dev, &spu_fw_vec_softmax)))
        return rc;
    const uint32_t tab = p.b + 2 * p.wb;
    if ((rc = spu_write(dev, tab, lut, 256)))
        return rc;
    const size_t band = p.cap / len;                /* rows per piece */
    for (size_t r = 0; !rc && r < rows; r += band) {
        const size_t n = rows - r < band ? rows - r : band;
        if ((rc = spu_write(dev, p.a, x + r * len, n * len)))
            break;
        const uint32_t args[SPU_NARGS] = { p.y, p.a, p.b, (uint32_t)(len / p.wb), (uint32_t)n,
                                           (uint32_t)len, tab, p.wb };
        if ((rc = vec_run(dev, args, stats)))
            break;
        rc = spu_read(dev, p.y, y + r * len, n * len);
    }
    return rc;
}

int spu_vec_softmax_rows(spu_device *dev, const int8_t *x, size_t rows, size_t len, const uint8_t lut[256],
                         int8_t *y, spu_vec_stats *stats)
{
    const uint64_t l0 = dev ? link_now(dev) : 0;
    int rc = spu_vec_softmax_rows_body(dev, x, rows, len, lut, y, stats);
    if (dev && stats)
        stats->link_bytes += link_now(dev) - l0;
    return rc;
}

void spu_vec_exp_lut(double step, uint8_t lut[256])
{
    for (int u = 0; u < 256; u++) {
        const int d = (int8_t)u;
        lut[u] = d > 0 ? 127 : (uint8_t)round(127.0 * exp((double)d * step));
    }
}
