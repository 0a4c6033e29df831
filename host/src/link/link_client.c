/*
 * link_client.c -- the host end of the link protocol (link_client.h,
 * docs/protocol.md): framing, stop-and-wait with retries, and the commands.
 */
#include "link/link_client.h"
#include "link/link_codec.h"
#include "core/backend.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The link constants come from the one table; the header's copy must agree. */
enum {
#define SPU_CMD(name, code, req, resp) CMD_##name = (code),
#include "spu_link.def"
};
enum {
#define SPU_LINK_STATUS(name, code, summary) ST_##name = (code),
#include "spu_link.def"
};
enum {
#define SPU_LINK_CONST(name, value) LINK_##name = (value),
#include "spu_link.def"
};
_Static_assert(LINK_MAX_PAYLOAD == SPU_LINK_MAX_PAYLOAD, "link_client.h disagrees with spu_link.def");

#define INFO_WIRE_BYTES 56   /* 48 before link_baud, 52 before features: still accepted */
#define STATUS_WIRE_BYTES 14

/* WRITE/READ frames shrink to this many data bytes on a noisy link. */
#define CHUNK_MIN 32
/* ... and grow back (doubling) after this many clean requests in a row. */
#define CHUNK_GROW_STREAK 8

void spu_link_init(spu_link *l, int fd)
{
    memset(l, 0, sizeof *l);
    l->fd = fd;
    l->seq = (uint8_t)(time(NULL) & 0xFF);   /* a fresh host never reuses the last seq */
    l->timeout_ms = 1000;
    l->retries = 3;
    l->chunk = SPU_LINK_MAX_PAYLOAD;
}

int spu_link_apply_uri(spu_link *l, const struct spu_uri *u)
{
    long v;
    int rc = spu_uri_long(u, "timeout", 1, 3600 * 1000, &v);
    if (rc < 0)
        return rc;
    if (rc)
        l->timeout_ms = (int)v;
    rc = spu_uri_long(u, "retries", 0, 1000, &v);
    if (rc < 0)
        return rc;
    if (rc)
        l->retries = (int)v;
    return 0;
}

void spu_link_get_stats(const spu_link *l, spu_link_stats_t *st)
{
    memset(st, 0, sizeof *st);
    st->requests = l->stats_requests;
    st->retries = l->stats_retries;
    st->bad_frames = l->stats_bad_frames;
    st->timeouts = l->stats_timeouts;
    st->chunk = l->chunk;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            struct pollfd pf = { fd, POLLOUT, 0 };
            if (poll(&pf, 1, 1000) <= 0 && errno != EINTR)
                return SPU_EIO;
        } else {
            return SPU_EIO;
        }
    }
    return 0;
}

/* Read until one complete encoded frame (without its 0x00) is in l->rx, or
 * the deadline. Bytes beyond a frame stay for the next call. Returns the
 * frame's encoded length, 0 on timeout, or SPU_EIO. Overlong garbage is
 * discarded (resync at the next 0x00). */
static long next_frame(spu_link *l, int64_t deadline, size_t *consumed)
{
    for (;;) {
        uint8_t *z = memchr(l->rx, 0, l->rx_len);
        if (z) {
            *consumed = (size_t)(z - l->rx) + 1;
            return (long)(z - l->rx);
        }
        if (l->rx_len == sizeof l->rx) {   /* no delimiter in a whole buffer: garbage */
            l->rx_len = 0;
            l->stats_bad_frames++;
        }
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return 0;
        struct pollfd pf = { l->fd, POLLIN, 0 };
        int r = poll(&pf, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return SPU_EIO;
        if (r == 0)
            return 0;
        ssize_t n = read(l->fd, l->rx + l->rx_len, sizeof l->rx - l->rx_len);
        if (n > 0)
            l->rx_len += (size_t)n;
        else if (n == 0 || (errno != EAGAIN && errno != EINTR))
            return SPU_EIO;   /* hang-up: the device went away */
    }
}

static void drop_bytes(spu_link *l, size_t n)
{
    memmove(l->rx, l->rx + n, l->rx_len - n);
    l->rx_len -= n;
}

static int status_code(uint8_t st)
{
    switch (st) {
    case ST_OK:       return 0;
    case ST_BAD_ADDR: return SPU_ERANGE;
    case ST_BUSY:     return SPU_EBUSY;
    default:          return SPU_EDEVICE;   /* BAD_CMD, BAD_LEN, unknown */
    }
}

/* One request with at most `attempts` sends of the same frame (same seq). */
static int transact_n(spu_link *l, uint8_t type, const void *payload, size_t plen, void *reply,
                      size_t cap, size_t *rlen, int attempts)
{
    if (plen > SPU_LINK_MAX_PAYLOAD || (plen && !payload))
        return SPU_EINVAL;
    uint8_t raw[SPU_LINK_FRAME_MAX];
    uint8_t enc[SPU_COBS_MAX(SPU_LINK_FRAME_MAX) + 1];
    uint8_t dec[2 * SPU_LINK_FRAME_MAX];
    const uint8_t seq = ++l->seq;

    raw[0] = type;
    raw[1] = seq;
    if (plen)
        memcpy(raw + 2, payload, plen);
    uint32_t crc = spu_link_crc32(0, raw, plen + 2);
    for (int i = 0; i < 4; i++)
        raw[plen + 2 + i] = (uint8_t)(crc >> (8 * i));
    long elen = spu_cobs_encode(raw, plen + 6, enc, sizeof enc - 1);
    if (elen < 0)
        return SPU_EINVAL;
    enc[elen++] = 0;

    l->stats_requests++;
    for (int attempt = 0; attempt < attempts; attempt++) {
        int rc;
        if (attempt) {
            /* a retry starts with a lone 0x00: whatever the device collected
             * of a frame whose delimiter was lost is ended there (resync) */
            static const uint8_t delim = 0;
            l->stats_retries++;
            l->streak = 0;
            rc = write_all(l->fd, &delim, 1);
            if (rc)
                return rc;
        }
        rc = write_all(l->fd, enc, (size_t)elen);
        if (rc)
            return rc;
        const int64_t deadline = now_ms() + l->timeout_ms;
        for (;;) {
            size_t used = 0;
            long n = next_frame(l, deadline, &used);
            if (n < 0)
                return (int)n;
            if (n == 0 && used == 0) {
                /* timeout: a reply still unterminated now lost its delimiter;
                 * its bytes would only spoil the next one */
                l->stats_timeouts++;
                l->rx_len = 0;
                break;   /* send again */
            }
            long d = spu_cobs_decode(l->rx, (size_t)n, dec, sizeof dec);
            drop_bytes(l, used);
            if (n == 0)
                continue;   /* empty frame (line noise, a lone delimiter) */
            /* a reply: type|0x80, seq, status, payload, crc32 */
            if (d < 7 || d > SPU_LINK_FRAME_MAX) {
                l->stats_bad_frames++;
                continue;
            }
            uint32_t got = (uint32_t)dec[d - 4] | (uint32_t)dec[d - 3] << 8 |
                           (uint32_t)dec[d - 2] << 16 | (uint32_t)dec[d - 1] << 24;
            if (spu_link_crc32(0, dec, (size_t)d - 4) != got) {
                l->stats_bad_frames++;
                /* a corrupted frame: send again at once, unless more bytes are
                 * already waiting (the bad frame was a late one and the reply
                 * may follow it) */
                struct pollfd pf = { l->fd, POLLIN, 0 };
                if (l->rx_len || poll(&pf, 1, 0) > 0)
                    continue;
                break;
            }
            if (dec[0] != (uint8_t)(type | LINK_RESP_BIT) || dec[1] != seq) {
                l->stats_bad_frames++;   /* stale reply to an earlier attempt */
                continue;
            }
            size_t body = (size_t)d - 7;
            if (attempt == 0)
                l->streak++;
            if (rlen)
                *rlen = body;
            if (dec[2] != ST_OK)
                return status_code(dec[2]);
            if (body > cap)
                return SPU_EPROTO;
            if (body)
                memcpy(reply, dec + 3, body);
            return 0;
        }
    }
    return SPU_ETIMEDOUT;
}

int spu_link_transact(spu_link *l, uint8_t type, const void *payload, size_t plen,
                      void *reply, size_t cap, size_t *rlen)
{
    return transact_n(l, type, payload, plen, reply, cap, rlen, l->retries + 1);
}

/* WRITE/READ of one chunk with adaptive framing: a frame of more than
 * CHUNK_MIN data bytes gets one attempt, and when it fails the chunk size is
 * halved and the request sent again (a new seq: WRITE and READ are
 * idempotent); at CHUNK_MIN the full retry budget applies. After
 * CHUNK_GROW_STREAK clean requests the size doubles again. *n is the size
 * wanted on entry and the size moved on success. */
static int data_chunk(spu_link *l, uint8_t type, uint32_t addr, const uint8_t *wdata,
                      uint8_t *rdata, size_t *n)
{
    for (;;) {
        size_t k = *n < l->chunk ? *n : l->chunk;
        uint8_t pl[SPU_LINK_MAX_PAYLOAD];
        size_t plen, got = 0;
        for (int i = 0; i < 4; i++)
            pl[i] = (uint8_t)(addr >> (8 * i));
        if (type == CMD_WRITE) {
            if (k)
                memcpy(pl + 4, wdata, k);
            plen = 4 + k;
        } else {
            pl[4] = (uint8_t)k;
            pl[5] = (uint8_t)(k >> 8);
            plen = 6;
        }
        const int shrinkable = k > CHUNK_MIN;
        int rc = transact_n(l, type, pl, plen, rdata, type == CMD_READ ? k : 0, &got,
                            shrinkable ? 1 : l->retries + 1);
        if (rc == SPU_ETIMEDOUT && shrinkable) {
            l->chunk = k / 2 > CHUNK_MIN ? k / 2 : CHUNK_MIN;
            l->stats_retries++;
            l->streak = 0;
            continue;
        }
        if (rc == 0 && got != (type == CMD_READ ? k : 0))
            rc = SPU_EPROTO;
        if (rc)
            return rc;
        if (l->streak >= CHUNK_GROW_STREAK && l->chunk < SPU_LINK_MAX_PAYLOAD) {
            l->chunk *= 2;
            if (l->chunk > SPU_LINK_MAX_PAYLOAD)
                l->chunk = SPU_LINK_MAX_PAYLOAD;
            l->streak = 0;
        }
        *n = k;
        return 0;
    }
}

/* ---- commands ------------------------------------------------------------ */
static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static int expect(spu_link *l, uint8_t type, const void *pl, size_t plen, void *reply,
                  size_t want)
{
    size_t got = 0;
    int rc = spu_link_transact(l, type, pl, plen, reply, want, &got);
    if (rc == 0 && got != want)
        rc = SPU_EPROTO;
    return rc;
}

int spu_link_ping(spu_link *l)
{
    return expect(l, CMD_PING, NULL, 0, NULL, 0);
}

int spu_link_info(spu_link *l, spu_info_t *info)
{
    uint8_t b[INFO_WIRE_BYTES];
    size_t got = 0;
    int rc = spu_link_transact(l, CMD_INFO, NULL, 0, b, sizeof b, &got);
    if (rc == 0 && got != INFO_WIRE_BYTES && got != 52 && got != 48)
        rc = SPU_EPROTO;
    if (rc)
        return rc;
    memset(info, 0, sizeof *info);
    info->rows = get32(b + 0);
    info->cols = get32(b + 4);
    info->word_bytes = get32(b + 8);
    info->spad_bytes = get32(b + 12);
    info->spad_banks = get32(b + 16);
    info->ucode_words = get32(b + 20);
    info->formats = get32(b + 24);
    info->isa_hash = get32(b + 28);
    info->rtl_version = get32(b + 32);
    info->clock_hz = get32(b + 36);
    info->loop_depth = get32(b + 40);
    info->drain_lanes = get32(b + 44);
    info->link_baud = got >= 52 ? get32(b + 48) : 0;
    info->features = got >= 56 ? get32(b + 52) : 0;
    /* sanity: a reply that passed its CRC but describes an impossible device */
    if (!info->rows || !info->cols || info->rows > 64 || info->cols > 64 ||
        info->word_bytes != (info->rows > info->cols ? info->rows : info->cols) ||
        !info->spad_banks || info->spad_bytes % info->spad_banks || !info->ucode_words ||
        !info->drain_lanes || info->cols % info->drain_lanes)
        return SPU_EPROTO;
    return 0;
}

int spu_link_write(spu_link *l, uint32_t addr, const void *data, size_t len)
{
    const uint8_t *p = data;
    const size_t max = SPU_LINK_MAX_PAYLOAD - 4;
    do {
        size_t n = len < max ? len : max;
        int rc = data_chunk(l, CMD_WRITE, addr, p, NULL, &n);
        if (rc)
            return rc;
        p += n;
        addr += (uint32_t)n;
        len -= n;
    } while (len);
    return 0;
}

int spu_link_read(spu_link *l, uint32_t addr, void *data, size_t len)
{
    uint8_t *p = data;
    const size_t max = SPU_LINK_MAX_PAYLOAD - 1;   /* the reply also carries the status */
    while (len) {
        size_t n = len < max ? len : max;
        int rc = data_chunk(l, CMD_READ, addr, NULL, p, &n);
        if (rc)
            return rc;
        p += n;
        addr += (uint32_t)n;
        len -= n;
    }
    return 0;
}

int spu_link_ucode(spu_link *l, uint32_t offset, const uint32_t *words, size_t n)
{
    uint8_t pl[SPU_LINK_MAX_PAYLOAD];
    const size_t chunk = (SPU_LINK_MAX_PAYLOAD - 4) / 4;
    do {
        size_t k = n < chunk ? n : chunk;
        put32(pl, offset);
        for (size_t i = 0; i < k; i++)
            put32(pl + 4 + 4 * i, words[i]);
        int rc = expect(l, CMD_UCODE, pl, 4 + 4 * k, NULL, 0);
        if (rc)
            return rc;
        words += k;
        offset += (uint32_t)k;
        n -= k;
    } while (n);
    return 0;
}

int spu_link_args(spu_link *l, const uint32_t *args, int nargs)
{
    if (nargs < 0 || nargs > SPU_NARGS)
        return SPU_EINVAL;
    uint8_t pl[4 * SPU_NARGS];
    for (int i = 0; i < nargs; i++)
        put32(pl + 4 * i, args[i]);
    return expect(l, CMD_ARGS, pl, 4 * (size_t)nargs, NULL, 0);
}

int spu_link_run(spu_link *l, uint32_t pc, uint32_t watchdog)
{
    uint8_t pl[8];
    put32(pl, pc);
    put32(pl + 4, watchdog);
    return expect(l, CMD_RUN, pl, sizeof pl, NULL, 0);
}

int spu_link_status(spu_link *l, spu_status_t *st)
{
    uint8_t b[STATUS_WIRE_BYTES];
    int rc = expect(l, CMD_STATUS, NULL, 0, b, sizeof b);
    if (rc)
        return rc;
    if (b[0] >= SPU_STATE_COUNT_)
        return SPU_EPROTO;
    st->state = b[0];
    st->trap = b[1];
    st->pc = get32(b + 2);
    st->cycles = get64(b + 6);
    return 0;
}

int spu_link_counters(spu_link *l, spu_counters_t *c)
{
    uint8_t b[1 + 8 * 32];
    size_t got = 0;
    int rc = spu_link_transact(l, CMD_COUNTERS, NULL, 0, b, sizeof b, &got);
    if (rc)
        return rc;
    if (got < 1 || got != 1 + 8 * (size_t)b[0])
        return SPU_EPROTO;
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < b[0] && i < SPU_CNT_COUNT; i++)
        c->v[i] = get64(b + 1 + 8 * i);
    return 0;
}

int spu_link_regs(spu_link *l, uint32_t regs[16])
{
    uint8_t b[64];
    size_t got = 0;
    int rc = spu_link_transact(l, CMD_REGS, NULL, 0, b, sizeof b, &got);
    if (rc)
        return rc;
    if (got != sizeof b)
        return SPU_EPROTO;
    for (int i = 0; i < 16; i++)
        regs[i] = get32(b + 4 * i);
    return 0;
}

int spu_link_reset(spu_link *l)
{
    return expect(l, CMD_RESET, NULL, 0, NULL, 0);
}
