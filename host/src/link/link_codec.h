/*
 * link_codec.h -- the link protocol's frame codec (private to libspu):
 * CRC-32/IEEE and COBS, the same algorithms as hw/rtl/link/spu_crc32.v and
 * spu_cobs_enc.v / spu_cobs_dec.v (docs/protocol.md).
 */
#ifndef SPU_LINK_CODEC_H
#define SPU_LINK_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32/IEEE (reflected 0xEDB88320, init and xorout 0xFFFFFFFF) of n bytes;
 * pass 0 as crc to start, or a previous result to continue. */
uint32_t spu_link_crc32(uint32_t crc, const void *data, size_t n);

/* Worst-case COBS size of n raw bytes, without the 0x00 delimiter. */
#define SPU_COBS_MAX(n) ((n) + (n) / 254 + 1)

/* COBS-encode n bytes into out (capacity cap); no delimiter is appended.
 * Returns the encoded length, or -1 if cap is too small. */
long spu_cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

/* Decode one COBS block sequence (the bytes between two 0x00 delimiters,
 * excluding them). Returns the decoded length, or -1 on a malformed input
 * (a zero byte inside, a block running past the end) or when cap is too small. */
long spu_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap);

#endif
