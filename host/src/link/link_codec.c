/*
 * link_codec.c -- CRC-32/IEEE and COBS for the link protocol (link_codec.h).
 */
#include "link/link_codec.h"

uint32_t spu_link_crc32(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int b = 0; b < 8; b++)
            crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

long spu_cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t o = 0, code_at = 0;
    uint8_t code = 1;
    if (cap < 1)
        return -1;
    o = 1;   /* room for the first code byte */
    for (size_t i = 0; i < n; i++) {
        if (in[i] == 0) {
            out[code_at] = code;
            if (o >= cap)
                return -1;
            code_at = o++;
            code = 1;
        } else {
            if (o >= cap)
                return -1;
            out[o++] = in[i];
            if (++code == 0xFF) {
                out[code_at] = code;
                if (i + 1 == n)
                    return (long)o;   /* a full block ends the frame: no empty block */
                if (o >= cap)
                    return -1;
                code_at = o++;
                code = 1;
            }
        }
    }
    out[code_at] = code;
    return (long)o;
}

long spu_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap)
{
    size_t i = 0, o = 0;
    while (i < n) {
        uint8_t code = in[i++];
        if (code == 0 || i + code - 1u > n)
            return -1;
        for (unsigned k = 1; k < code; k++) {
            if (in[i] == 0 || o >= cap)
                return -1;
            out[o++] = in[i++];
        }
        if (code != 0xFF && i < n) {
            if (o >= cap)
                return -1;
            out[o++] = 0;
        }
    }
    return (long)o;
}
