/*
 * spu_usb_echo.c -- raw bulk throughput of the usb:// path, without the link
 * protocol or spu-sim: runs in the QEMU guest of `make test-usb` against
 * spu-usbredir-peer --echo (which returns every bulk OUT byte on bulk IN).
 *
 *   spu_usb_echo VID:PID MIB [CHUNK]
 *
 * Sends MIB MiB in CHUNK-byte bulk OUT transfers (default 65536), each
 * followed by bulk IN reads until the same bytes are back, compares them and
 * prints "echo: N bytes each way in S s = X B/s per direction". Exit 1 on any
 * USB error, timeout or differing byte.
 */
#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    unsigned vid, pid;
    if (argc < 3 || sscanf(argv[1], "%x:%x", &vid, &pid) != 2) {
        fprintf(stderr, "usage: spu_usb_echo VID:PID MIB [CHUNK]\n");
        return 2;
    }
    const size_t total = (size_t)atoi(argv[2]) << 20;
    const size_t chunk = argc > 3 ? (size_t)atoi(argv[3]) : 65536;
    if (!total || !chunk || chunk > (1u << 20))
        return 2;
    libusb_context *ctx;
    if (libusb_init(&ctx) != 0)
        return 1;
    libusb_device_handle *h = libusb_open_device_with_vid_pid(ctx, (uint16_t)vid, (uint16_t)pid);
    if (!h || libusb_claim_interface(h, 0) != 0) {
        fprintf(stderr, "echo: cannot open/claim %04x:%04x\n", vid, pid);
        return 1;
    }
    unsigned char *out = malloc(chunk), *in = malloc(chunk);
    if (!out || !in)
        return 1;
    unsigned seed = 1;
    size_t done = 0;
    const double t0 = now_s();
    while (done < total) {
        for (size_t i = 0; i < chunk; i++)
            out[i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
        int got = 0, rc = libusb_bulk_transfer(h, 0x01, out, (int)chunk, &got, 5000);
        if (rc != 0 || (size_t)got != chunk) {
            fprintf(stderr, "echo: bulk OUT: %s (%d of %zu)\n", libusb_strerror(rc), got, chunk);
            return 1;
        }
        size_t back = 0;
        while (back < chunk) {
            rc = libusb_bulk_transfer(h, 0x81, in + back, (int)(chunk - back), &got, 5000);
            if (rc != 0 && !(rc == LIBUSB_ERROR_TIMEOUT && got > 0)) {
                fprintf(stderr, "echo: bulk IN: %s after %zu of %zu\n", libusb_strerror(rc), back, chunk);
                return 1;
            }
            back += (size_t)got;
        }
        if (memcmp(in, out, chunk)) {
            fprintf(stderr, "echo: bytes differ in the chunk at %zu\n", done);
            return 1;
        }
        done += chunk;
    }
    const double s = now_s() - t0;
    printf("echo: %zu bytes each way in %.3f s = %.0f B/s per direction (%zu-byte transfers)\n", done, s,
           done / s, chunk);
    libusb_release_interface(h, 0);
    libusb_close(h);
    libusb_exit(ctx);
    free(out);
    free(in);
    return 0;
}
