/*
 * usb_pump.h -- a byte stream over a USB bulk pipe for the link client
 * (private to libspu). The link protocol client (link_client.c) speaks to a
 * file descriptor; a USB transport (libftdi1, raw libusb) has no fd, so the
 * pump gives it one end of a socketpair and moves bytes between the other
 * end and the device in two threads: TX (socket -> bulk OUT, in chunks of
 * at most out_chunk) and RX (bulk IN -> socket; a read that times out with
 * nothing pending is "no data yet", never an error). A fatal USB error shuts
 * the socket down, so the link sees end-of-stream (SPU_EIO) at once.
 */
#ifndef SPU_USB_PUMP_H
#define SPU_USB_PUMP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

typedef struct spu_usb_pump_ops {
    /* Send n bytes; returns bytes accepted (>= 0; 0 = timed out, try again)
     * or a negative libusb/libftdi error (fatal). */
    int (*out)(void *ctx, const uint8_t *p, size_t n, int timeout_ms);
    /* Receive up to cap bytes; returns bytes (0 = nothing within timeout_ms)
     * or a negative error (fatal). */
    int (*in)(void *ctx, uint8_t *p, size_t cap, int timeout_ms);
} spu_usb_pump_ops;

typedef struct spu_usb_pump {
    int fd;                 /* the link's end (give it to spu_link_init) */
    int peer;               /* the pump's end */
    size_t out_chunk;
    size_t in_chunk;
    const spu_usb_pump_ops *ops;
    void *ctx;
    pthread_t tx, rx;
    int started;
    atomic_int stop;
    atomic_int error;       /* first fatal transport error, 0 if none */
    atomic_ullong bytes_out, bytes_in;
} spu_usb_pump;

/* Create the socketpair and start both threads. 0 or a negative SPU_E*. */
int spu_usb_pump_start(spu_usb_pump *p, const spu_usb_pump_ops *ops, void *ctx,
                       size_t out_chunk, size_t in_chunk);
/* Stop and join the threads (within ~100 ms) and close both fds. */
void spu_usb_pump_stop(spu_usb_pump *p);

#endif
