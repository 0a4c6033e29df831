/*
 * link_client.h -- the host end of the link protocol (private to libspu):
 * frames, sequence numbers, timeouts, retries and the command set of
 * hw/isa/spu_link.def over any byte stream fd (a tty or the pty of spu-sim).
 * docs/protocol.md is the specification.
 */
#ifndef SPU_LINK_CLIENT_H
#define SPU_LINK_CLIENT_H

#include "spu/spu.h"

#include <stddef.h>
#include <stdint.h>

#define SPU_LINK_MAX_PAYLOAD 1024      /* = MAX_PAYLOAD of spu_link.def (checked in link_client.c) */
#define SPU_LINK_FRAME_MAX (SPU_LINK_MAX_PAYLOAD + 6)

typedef struct spu_link {
    int      fd;                /* owned by the transport, not closed here */
    uint8_t  seq;               /* seq of the last request sent */
    int      timeout_ms;        /* per attempt */
    int      retries;           /* extra attempts after a timeout / bad frame */
    uint64_t stats_requests;    /* requests answered or given up, since open */
    uint64_t stats_retries;     /* attempts beyond the first, since open */
    uint64_t stats_bad_frames;  /* frames dropped: CRC, COBS, length, stale seq */
    uint64_t stats_timeouts;    /* attempts that ended without a reply */
    size_t   chunk;             /* WRITE/READ data bytes per frame: shrinks on faults */
    int      streak;            /* requests answered at the first attempt, in a row */
    size_t   rx_len;            /* bytes of a partial encoded frame in rx */
    uint8_t  rx[2 * SPU_LINK_FRAME_MAX];
} spu_link;

/* Prepare a client on an open fd (non-blocking reads are fine). */
void spu_link_init(spu_link *l, int fd);

/* One request/reply exchange: sends type/payload, waits for the reply with
 * the same seq, retrying on timeout or a bad frame. On success copies the
 * reply payload after the status byte into reply (capacity cap), stores its
 * length in *rlen and returns 0 when the device's status is OK, or the
 * SPU_E* code for its status (BAD_ADDR -> SPU_ERANGE, BUSY -> SPU_EBUSY,
 * others -> SPU_EDEVICE). SPU_ETIMEDOUT after all attempts, SPU_EIO on a
 * dead fd, SPU_EPROTO when the reply does not fit cap. */
int spu_link_transact(spu_link *l, uint8_t type, const void *payload, size_t plen,
                      void *reply, size_t cap, size_t *rlen);

/* The command set; each returns 0 or a negative SPU_E* code. Lengths are
 * split into frames of at most SPU_LINK_MAX_PAYLOAD bytes. */
int spu_link_ping(spu_link *l);
int spu_link_info(spu_link *l, spu_info_t *info);
int spu_link_write(spu_link *l, uint32_t addr, const void *data, size_t len);
int spu_link_read(spu_link *l, uint32_t addr, void *data, size_t len);
int spu_link_ucode(spu_link *l, uint32_t offset, const uint32_t *words, size_t n);
int spu_link_args(spu_link *l, const uint32_t *args, int nargs);
int spu_link_run(spu_link *l, uint32_t pc, uint32_t watchdog);
int spu_link_status(spu_link *l, spu_status_t *st);
int spu_link_counters(spu_link *l, spu_counters_t *c);
/* REGS: r0..r15 (SPU_EBUSY while a program runs). */
int spu_link_regs(spu_link *l, uint32_t regs[16]);
int spu_link_reset(spu_link *l);

/* Open a tty (or pty) in raw 8N1 mode; baud 0 keeps the current speed.
 * Returns an fd or a negative SPU_E* code. (serial_port.c) */
int spu_serial_open(const char *path, unsigned baud);
/* Set an arbitrary baud rate with termios2/BOTHER. (serial_baud.c) */
int spu_serial_set_baud(int fd, unsigned baud);

/* Link options from a URI query: timeout=MS, retries=N. Returns 0, or
 * SPU_EINVAL (with the reason in the URI's message buffer) for a bad value. */
struct spu_uri;
int spu_link_apply_uri(spu_link *l, const struct spu_uri *u);
/* The URI keys spu_link_apply_uri understands (NULL-terminated). */
#define SPU_LINK_URI_KEYS "timeout", "retries"

/* The boards' UART rate at their default clocks: the fastest FT2232H rate
 * (12 MHz / n) the clock divides into >= 2 clocks per bit, 12 Mbaud, the
 * chip's maximum (the iCEBreaker at 24 MHz: 2 clocks per bit, the receiver
 * sampling on both edges; the HX8K at 48 MHz: 4; hw/rtl/board/spu_board_spu.v,
 * docs/fpga.md "UART rate"). serial:
 * and ftdi:// open the port at this rate unless the URI says baud=N (a
 * bitstream built before session 21 answers at 8 Mbaud: baud=8000000). */
#define SPU_LINK_BOARD_BAUD 12000000u

/* Counters since open (spu_link_stats()). */
void spu_link_get_stats(const spu_link *l, spu_link_stats_t *st);

#endif
