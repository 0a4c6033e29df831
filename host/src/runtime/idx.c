/*
 * idx.c -- the idx file format of (Fashion-)MNIST, read through zlib so the
 * .gz files Debian ships load directly (plain files read the same way).
 *
 * idx: magic u32 BE = 0x00 0x00 TYPE NDIM (TYPE 0x08 = unsigned byte), then
 * NDIM u32 BE dimensions, then the data, C order. Anything else -- another
 * magic, a short header, fewer or more data bytes than the dimensions say, a
 * corrupt gzip stream -- is an error with a reason, never a partial dataset.
 */
#include "spu/runtime.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static int fail(char *err, size_t cap, int rc, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* Read exactly len bytes; 1 = ok, 0 = end of data first, -1 = stream error. */
static int read_exact(gzFile f, void *buf, size_t len, const char **why)
{
    uint8_t *p = buf;
    while (len) {
        unsigned chunk = len > (1u << 30) ? (1u << 30) : (unsigned)len;
        int n = gzread(f, p, chunk);
        if (n < 0) {
            int zerr;
            *why = gzerror(f, &zerr);
            return -1;
        }
        if (n == 0) {
            int zerr;
            const char *m = gzerror(f, &zerr);
            if (zerr != Z_OK) {     /* e.g. "unexpected end of file" of a cut .gz */
                *why = m;
                return -1;
            }
            return 0;
        }
        p += n;
        len -= (size_t)n;
    }
    return 1;
}

int spu_idx_load(const char *path, int expect_ndim, uint32_t *dims, uint8_t **data,
                 char *err, size_t errcap)
{
    if (!path || !dims || !data || expect_ndim < 1 || expect_ndim > 4)
        return fail(err, errcap, SPU_EINVAL, "invalid arguments");
    *data = NULL;
    gzFile f = gzopen(path, "rb");
    if (!f)
        return fail(err, errcap, SPU_EIO, "%s: cannot open: %s", path, strerror(errno ? errno : ENOENT));
    uint8_t hdr[4 + 4 * 4];
    const char *why = NULL;
    int r = read_exact(f, hdr, 4, &why);
    int rc = 0;
    if (r <= 0) {
        rc = fail(err, errcap, SPU_EFORMAT, "%s: %s reading the idx magic", path,
                  r < 0 ? why : "file ends");
        goto out;
    }
    if (hdr[0] != 0 || hdr[1] != 0 || hdr[2] != 0x08 || hdr[3] != expect_ndim) {
        rc = fail(err, errcap, SPU_EFORMAT,
                  "%s: bad idx magic %02x%02x%02x%02x, expected 000008%02x (unsigned bytes, %d dimensions)",
                  path, hdr[0], hdr[1], hdr[2], hdr[3], expect_ndim, expect_ndim);
        goto out;
    }
    r = read_exact(f, hdr + 4, 4u * (unsigned)expect_ndim, &why);
    if (r <= 0) {
        rc = fail(err, errcap, SPU_EFORMAT, "%s: %s in the idx header (%d dimensions)", path,
                  r < 0 ? why : "file ends", expect_ndim);
        goto out;
    }
    uint64_t total = 1;
    for (int i = 0; i < expect_ndim; i++) {
        const uint8_t *d = hdr + 4 + 4 * i;
        dims[i] = (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 | (uint32_t)d[2] << 8 | d[3];
        total *= dims[i];
        if (dims[i] == 0 || total > (1ull << 32)) {
            rc = fail(err, errcap, SPU_EFORMAT, "%s: idx dimension %d is %u (empty or too large)",
                      path, i, dims[i]);
            goto out;
        }
    }
    *data = malloc((size_t)total);
    if (!*data) {
        rc = fail(err, errcap, SPU_ENOMEM, "%s: out of memory for %llu bytes", path,
                  (unsigned long long)total);
        goto out;
    }
    r = read_exact(f, *data, (size_t)total, &why);
    if (r < 0) {
        rc = fail(err, errcap, SPU_EFORMAT, "%s: corrupt data: %s", path, why);
        goto out;
    }
    if (r == 0) {
        rc = fail(err, errcap, SPU_EFORMAT, "%s: truncated: the header promises %llu data bytes",
                  path, (unsigned long long)total);
        goto out;
    }
    uint8_t extra;
    r = read_exact(f, &extra, 1, &why);
    if (r != 0) {
        rc = fail(err, errcap, SPU_EFORMAT, "%s: %s after the %llu data bytes the header promises",
                  path, r < 0 ? why : "trailing bytes", (unsigned long long)total);
        goto out;
    }
out:
    gzclose(f);
    if (rc) {
        free(*data);
        *data = NULL;
    }
    return rc;
}

void spu_dataset_free(spu_dataset *ds)
{
    if (!ds)
        return;
    free(ds->images);
    free(ds->labels);
    memset(ds, 0, sizeof *ds);
}

int spu_fmnist_load(const char *dir, const char *split, spu_dataset *ds, char *err, size_t errcap)
{
    if (!split || !ds)
        return fail(err, errcap, SPU_EINVAL, "invalid arguments");
    memset(ds, 0, sizeof *ds);
    if (!dir)
        dir = SPU_FMNIST_DEFAULT_DIR;
    char path[4096];
    uint32_t idim[3], ldim[1];
    snprintf(path, sizeof path, "%s/%s-images-idx3-ubyte.gz", dir, split);
    int rc = spu_idx_load(path, 3, idim, &ds->images, err, errcap);
    if (rc)
        return rc;
    snprintf(path, sizeof path, "%s/%s-labels-idx1-ubyte.gz", dir, split);
    if ((rc = spu_idx_load(path, 1, ldim, &ds->labels, err, errcap))) {
        spu_dataset_free(ds);
        return rc;
    }
    if (idim[1] != 28 || idim[2] != 28) {
        rc = fail(err, errcap, SPU_EFORMAT, "%s/%s-images: images are %ux%u, expected 28x28", dir,
                  split, idim[1], idim[2]);
    } else if (idim[0] != ldim[0]) {
        rc = fail(err, errcap, SPU_EFORMAT, "%s/%s: %u images but %u labels", dir, split, idim[0],
                  ldim[0]);
    } else {
        for (uint32_t i = 0; i < ldim[0]; i++)
            if (ds->labels[i] > 9) {
                rc = fail(err, errcap, SPU_EFORMAT, "%s: label %u of image %u is not a class 0..9",
                          path, ds->labels[i], i);
                break;
            }
    }
    if (rc) {
        spu_dataset_free(ds);
        return rc;
    }
    ds->count = idim[0];
    ds->rows = idim[1];
    ds->cols = idim[2];
    return 0;
}
