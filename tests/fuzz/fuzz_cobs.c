/*
 * fuzz_cobs.c -- libFuzzer target for the link codec: decoding arbitrary
 * bytes never overruns, and any payload survives encode -> decode.
 */
#include "link/link_codec.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t out[1 << 16], enc[SPU_COBS_MAX(1 << 16)];
    if (size > (1 << 16))
        return 0;
    spu_cobs_decode(data, size, out, sizeof out);           /* any result, no overrun */
    long n = spu_cobs_encode(data, size, enc, sizeof enc);
    if (n < 0 || memchr(enc, 0, (size_t)n))
        abort();
    long m = spu_cobs_decode(enc, (size_t)n, out, sizeof out);
    if (m != (long)size || (size && memcmp(out, data, size)))
        abort();
    (void)spu_link_crc32(0, data, size);
    return 0;
}
