/*
 * fuzz_npy.c -- libFuzzer target: the .npy parser never crashes, leaks or
 * reads out of bounds, and whatever it accepts survives a save/load round trip.
 */
#include "spu/npy.h"
#include "spu/spu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    spu_tensor t = { 0 };
    char err[256];
    if (spu_npy_parse(data, size, &t, err, sizeof err) != 0)
        return 0;
    size_t bytes = spu_tensor_numel(&t) * spu_npy_itemsize(t.dtype);
    char path[] = "/tmp/spu_fuzz_npy_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        abort();
    close(fd);
    spu_tensor back = { 0 };
    if (spu_npy_save(path, &t) || spu_npy_load(path, &back, err, sizeof err) || back.dtype != t.dtype ||
        back.ndim != t.ndim || memcmp(back.shape, t.shape, sizeof t.shape) ||
        (bytes && memcmp(back.data, t.data, bytes)))
        abort();
    unlink(path);
    spu_tensor_free(&t);
    spu_tensor_free(&back);
    return 0;
}
