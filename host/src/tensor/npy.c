/*
 * npy.c -- NumPy .npy files: reads format versions 1.0, 2.0 and 3.0, writes
 * 1.0 the way numpy does (header padded with spaces and ended by '\n' so the
 * data starts at a multiple of 64 bytes). C order, little-endian data only.
 *
 * The header is a Python dict literal with exactly the keys 'descr',
 * 'fortran_order' and 'shape'; this file parses that small subset (strings,
 * True/False, tuples of non-negative integers) and rejects everything else
 * with SPU_EFORMAT and a one-line reason.
 */
#include "spu/npy.h"
#include "spu/outfile.h"
#include "spu/spu.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#error "npy.c copies little-endian data as is; add byte swapping for a big-endian host"
#endif

static const struct {
    const char *descr;   /* what we write */
    const char *name;
    size_t itemsize;
} dtypes[SPU_NPY_DTYPE_COUNT] = {
    [SPU_NPY_INT8]    = { "|i1", "int8", 1 },
    [SPU_NPY_UINT8]   = { "|u1", "uint8", 1 },
    [SPU_NPY_INT32]   = { "<i4", "int32", 4 },
    [SPU_NPY_FLOAT32] = { "<f4", "float32", 4 },
    [SPU_NPY_FLOAT16] = { "<f2", "float16", 2 },
    [SPU_NPY_UINT16]  = { "<u2", "uint16", 2 },
};

#define NPY_MAGIC     "\x93NUMPY"
#define NPY_MAGIC_LEN 6
#define NPY_ALIGN     64

size_t spu_npy_itemsize(spu_npy_dtype dt)
{
    return (unsigned)dt < SPU_NPY_DTYPE_COUNT ? dtypes[dt].itemsize : 0;
}

const char *spu_npy_descr(spu_npy_dtype dt)
{
    return (unsigned)dt < SPU_NPY_DTYPE_COUNT ? dtypes[dt].descr : "?";
}

const char *spu_npy_dtype_name(spu_npy_dtype dt)
{
    return (unsigned)dt < SPU_NPY_DTYPE_COUNT ? dtypes[dt].name : "?";
}

/* Elements of a shape; 0 and *ok = 0 on overflow. */
static size_t shape_numel(int ndim, const size_t *shape, int *ok)
{
    size_t n = 1;
    *ok = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] && n > SIZE_MAX / shape[i]) {
            *ok = 0;
            return 0;
        }
        n *= shape[i];
    }
    return n;
}

size_t spu_tensor_numel(const spu_tensor *t)
{
    int ok;
    if (!t || t->ndim < 0 || t->ndim > SPU_TENSOR_MAX_DIMS)
        return 0;
    return shape_numel(t->ndim, t->shape, &ok);
}

int spu_tensor_alloc(spu_tensor *t, spu_npy_dtype dt, int ndim, const size_t *shape)
{
    if (!t || (unsigned)dt >= SPU_NPY_DTYPE_COUNT || ndim < 0 || ndim > SPU_TENSOR_MAX_DIMS ||
        (ndim && !shape))
        return SPU_EINVAL;
    memset(t, 0, sizeof *t);
    int ok;
    size_t n = shape_numel(ndim, shape, &ok);
    size_t isz = dtypes[dt].itemsize;
    if (!ok || n > SIZE_MAX / isz)
        return SPU_EINVAL;
    t->data = calloc(n ? n : 1, isz);   /* never NULL for a zero-size tensor */
    if (!t->data)
        return SPU_ENOMEM;
    t->dtype = dt;
    t->ndim = ndim;
    for (int i = 0; i < ndim; i++)
        t->shape[i] = shape[i];
    return 0;
}

void spu_tensor_free(spu_tensor *t)
{
    if (!t)
        return;
    free(t->data);
    t->data = NULL;
    t->ndim = 0;
}

/* ---- reading ------------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t cap, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return SPU_EFORMAT;
}

typedef struct hparse {
    const char *p, *end;
} hparse;

static void hskip(hparse *h)
{
    while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' || *h->p == '\r'))
        h->p++;
}

static int hchar(hparse *h, char c)
{
    hskip(h);
    if (h->p < h->end && *h->p == c) {
        h->p++;
        return 1;
    }
    return 0;
}

/* A Python string literal in ' or " quotes, no escapes (numpy writes none). */
static int hstring(hparse *h, char *out, size_t cap)
{
    hskip(h);
    if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
        return -1;
    char q = *h->p++;
    size_t n = 0;
    while (h->p < h->end && *h->p != q) {
        if (*h->p == '\\' || *h->p == '\n' || n + 1 >= cap)
            return -1;
        out[n++] = *h->p++;
    }
    if (h->p >= h->end)
        return -1;
    h->p++;
    out[n] = 0;
    return 0;
}

static int hword(hparse *h, const char *w)
{
    hskip(h);
    size_t n = strlen(w);
    if ((size_t)(h->end - h->p) >= n && !memcmp(h->p, w, n)) {
        const char *after = h->p + n;
        if (after < h->end && isalnum((unsigned char)*after))
            return 0;
        h->p = after;
        return 1;
    }
    return 0;
}

static int parse_descr(const char *d, spu_npy_dtype *dt, char *err, size_t cap)
{
    static const struct { const char *s; spu_npy_dtype dt; } accepted[] = {
        { "|i1", SPU_NPY_INT8 },  { "<i1", SPU_NPY_INT8 },  { "i1", SPU_NPY_INT8 },
        { "|u1", SPU_NPY_UINT8 }, { "<u1", SPU_NPY_UINT8 }, { "u1", SPU_NPY_UINT8 },
        { "<i4", SPU_NPY_INT32 }, { "<f4", SPU_NPY_FLOAT32 }, { "<f2", SPU_NPY_FLOAT16 },
        { "<u2", SPU_NPY_UINT16 },
    };
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++)
        if (!strcmp(d, accepted[i].s)) {
            *dt = accepted[i].dt;
            return 0;
        }
    if (d[0] == '>' && strlen(d) > 2 && d[2] != '1')
        return fail(err, cap, "big-endian dtype '%s' is not supported (use little-endian '<%s')", d,
                    d + 1);
    return fail(err, cap, "unsupported dtype '%s' (supported: int8 '|i1', uint8 '|u1', int32 '<i4', "
                          "float32 '<f4', float16 '<f2', uint16 '<u2')", d);
}

int spu_npy_parse(const void *buf, size_t len, spu_tensor *t, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = 0;
    if (!t || (!buf && len))
        return SPU_EINVAL;
    memset(t, 0, sizeof *t);
    const unsigned char *b = buf;
    if (len < NPY_MAGIC_LEN + 2 || memcmp(b, NPY_MAGIC, NPY_MAGIC_LEN))
        return fail(err, errcap, len < NPY_MAGIC_LEN ? "truncated: file too short for the .npy magic"
                                                     : "not a .npy file (bad magic)");
    unsigned major = b[6], minor = b[7];
    size_t hlen, hstart;
    if (major == 1) {
        if (len < 10)
            return fail(err, errcap, "truncated: header length missing");
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        hstart = 10;
    } else if (major == 2 || major == 3) {
        if (len < 12)
            return fail(err, errcap, "truncated: header length missing");
        hlen = (size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 | (size_t)b[11] << 24;
        hstart = 12;
    } else {
        return fail(err, errcap, "unsupported .npy format version %u.%u", major, minor);
    }
    if (minor != 0)
        return fail(err, errcap, "unsupported .npy format version %u.%u", major, minor);
    if (hlen > len - hstart)
        return fail(err, errcap, "truncated: header of %zu bytes, file has %zu after the preamble",
                    hlen, len - hstart);
    const char *hs = (const char *)b + hstart;
    for (size_t i = 0; i < hlen; i++)
        if (hs[i] == 0)
            return fail(err, errcap, "malformed header: NUL byte");

    hparse h = { hs, hs + hlen };
    int have_descr = 0, have_fortran = 0, have_shape = 0, fortran = 0;
    char descr[32];
    spu_npy_dtype dt = SPU_NPY_INT8;
    int ndim = 0;
    size_t shape[SPU_TENSOR_MAX_DIMS];

    if (!hchar(&h, '{'))
        return fail(err, errcap, "malformed header: expected a dict '{...}'");
    for (;;) {
        if (hchar(&h, '}'))
            break;
        char key[32];
        if (hstring(&h, key, sizeof key))
            return fail(err, errcap, "malformed header: expected a quoted key");
        if (!hchar(&h, ':'))
            return fail(err, errcap, "malformed header: expected ':' after '%s'", key);
        if (!strcmp(key, "descr")) {
            if (have_descr)
                return fail(err, errcap, "malformed header: key 'descr' twice");
            hskip(&h);
            if (h.p < h.end && *h.p == '[')
                return fail(err, errcap, "unsupported dtype: structured arrays are not supported");
            if (hstring(&h, descr, sizeof descr))
                return fail(err, errcap, "malformed header: 'descr' must be a string");
            have_descr = 1;
        } else if (!strcmp(key, "fortran_order")) {
            if (have_fortran)
                return fail(err, errcap, "malformed header: key 'fortran_order' twice");
            if (hword(&h, "True"))
                fortran = 1;
            else if (hword(&h, "False"))
                fortran = 0;
            else
                return fail(err, errcap, "malformed header: 'fortran_order' must be True or False");
            have_fortran = 1;
        } else if (!strcmp(key, "shape")) {
            if (have_shape)
                return fail(err, errcap, "malformed header: key 'shape' twice");
            if (!hchar(&h, '('))
                return fail(err, errcap, "malformed header: 'shape' must be a tuple");
            for (;;) {
                if (hchar(&h, ')'))
                    break;
                hskip(&h);
                if (h.p >= h.end || *h.p < '0' || *h.p > '9')
                    return fail(err, errcap, "malformed header: bad dimension in 'shape'");
                size_t v = 0;
                while (h.p < h.end && *h.p >= '0' && *h.p <= '9') {
                    unsigned d = (unsigned)(*h.p - '0');
                    if (v > (SIZE_MAX - d) / 10)
                        return fail(err, errcap, "shape dimension too large");
                    v = v * 10 + d;
                    h.p++;
                }
                hword(&h, "L");   /* Python 2 long suffix, written by old numpy */
                if (ndim >= SPU_TENSOR_MAX_DIMS)
                    return fail(err, errcap, "shape has more than %d dimensions",
                                SPU_TENSOR_MAX_DIMS);
                shape[ndim++] = v;
                if (hchar(&h, ')'))
                    break;
                if (!hchar(&h, ','))
                    return fail(err, errcap, "malformed header: expected ',' or ')' in 'shape'");
            }
            have_shape = 1;
        } else {
            return fail(err, errcap, "malformed header: unexpected key '%s'", key);
        }
        if (hchar(&h, '}'))
            break;
        if (!hchar(&h, ','))
            return fail(err, errcap, "malformed header: expected ',' or '}'");
    }
    hskip(&h);
    if (h.p != h.end)
        return fail(err, errcap, "malformed header: junk after the dict");
    if (!have_descr || !have_fortran || !have_shape)
        return fail(err, errcap, "malformed header: missing key '%s'",
                    !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
    int rc = parse_descr(descr, &dt, err, errcap);
    if (rc)
        return rc;
    if (fortran)
        return fail(err, errcap, "fortran_order True is not supported (save a C-order array, "
                                 "e.g. np.ascontiguousarray)");
    int ok;
    size_t n = shape_numel(ndim, shape, &ok);
    size_t isz = dtypes[dt].itemsize;
    if (!ok || n > SIZE_MAX / isz)
        return fail(err, errcap, "element count of the shape overflows");
    size_t need = n * isz, have = len - hstart - hlen;
    if (have < need)
        return fail(err, errcap, "truncated: %zu data bytes expected, %zu present", need, have);
    if (have > need)
        return fail(err, errcap, "%zu bytes of trailing data after the array", have - need);
    rc = spu_tensor_alloc(t, dt, ndim, shape);
    if (rc)
        return rc == SPU_ENOMEM ? rc : fail(err, errcap, "bad shape");
    if (need)
        memcpy(t->data, b + hstart + hlen, need);
    return 0;
}

int spu_npy_load(const char *path, spu_tensor *t, char *err, size_t errcap)
{
    if (err && errcap)
        err[0] = 0;
    if (!path || !t)
        return SPU_EINVAL;
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (err && errcap)
            snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return SPU_EIO;
    }
    /* a regular file is read at its size; a pipe up to SPU_NPY_PIPE_MAX;
     * anything else (/dev/zero, a directory, a tty) is refused */
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0 || !(S_ISREG(sb.st_mode) || S_ISFIFO(sb.st_mode))) {
        fclose(f);
        if (err && errcap)
            snprintf(err, errcap, "%s: not a regular file or a pipe", path);
        return SPU_EIO;
    }
    size_t cap = S_ISREG(sb.st_mode) ? (size_t)sb.st_size + 1 : 1 << 16, n = 0;
    if (S_ISREG(sb.st_mode) && (uint64_t)sb.st_size >= SIZE_MAX / 2) {
        fclose(f);
        return SPU_ENOMEM;
    }
    unsigned char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap || ferror(f))
            break;
        if (cap > SPU_NPY_PIPE_MAX) {
            free(buf);
            fclose(f);
            if (err && errcap)
                snprintf(err, errcap, "%s: more than %llu bytes from a pipe", path,
                         (unsigned long long)SPU_NPY_PIPE_MAX);
            return SPU_EFORMAT;
        }
        cap *= 2;
        unsigned char *nb = realloc(buf, cap);
        if (!nb) {
            free(buf);
            buf = NULL;
        } else {
            buf = nb;
        }
    }
    int rerr = ferror(f);
    fclose(f);
    if (!buf)
        return SPU_ENOMEM;
    if (rerr) {
        free(buf);
        if (err && errcap)
            snprintf(err, errcap, "%s: read error", path);
        return SPU_EIO;
    }
    int rc = spu_npy_parse(buf, n, t, err, errcap);
    free(buf);
    if (rc == SPU_EFORMAT && err && errcap) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "%s: %s", path, err);
        snprintf(err, errcap, "%s", tmp);
    }
    return rc;
}

/* ---- writing ------------------------------------------------------------- */

/* Header of a 1.0 file: magic, version, length, dict padded to NPY_ALIGN. */
static size_t build_header(const spu_tensor *t, char *h, size_t cap)
{
    char dict[512];
    int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                     dtypes[t->dtype].descr);
    for (int i = 0; i < t->ndim; i++)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%zu", i ? ", " : "", t->shape[i]);
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", t->ndim == 1 ? "," : "");
    size_t total = 10 + (size_t)n + 1;   /* + '\n' */
    size_t padded = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (padded > cap)
        return 0;
    size_t hlen = padded - 10;
    memcpy(h, NPY_MAGIC, NPY_MAGIC_LEN);
    h[6] = 1;
    h[7] = 0;
    h[8] = (char)(hlen & 0xFF);
    h[9] = (char)(hlen >> 8);
    memcpy(h + 10, dict, (size_t)n);
    memset(h + 10 + n, ' ', padded - 10 - (size_t)n - 1);
    h[padded - 1] = '\n';
    return padded;
}

size_t spu_npy_header(const spu_tensor *t, char *h, size_t cap)
{
    if (!t || !h || (unsigned)t->dtype >= SPU_NPY_DTYPE_COUNT || t->ndim < 0 ||
        t->ndim > SPU_TENSOR_MAX_DIMS)
        return 0;
    int ok;
    size_t n = shape_numel(t->ndim, t->shape, &ok);
    if (!ok || n > SIZE_MAX / dtypes[t->dtype].itemsize || (n && !t->data))
        return 0;
    return build_header(t, h, cap);
}

int spu_npy_write_fd(int fd, const spu_tensor *t)
{
    if (fd < 0 || !t || (unsigned)t->dtype >= SPU_NPY_DTYPE_COUNT || t->ndim < 0 ||
        t->ndim > SPU_TENSOR_MAX_DIMS)
        return SPU_EINVAL;
    int ok;
    size_t n = shape_numel(t->ndim, t->shape, &ok);
    if (!ok || n > SIZE_MAX / dtypes[t->dtype].itemsize || (n && !t->data))
        return SPU_EINVAL;
    size_t bytes = n * dtypes[t->dtype].itemsize;
    char h[640];
    size_t hl = build_header(t, h, sizeof h);
    if (!hl)
        return SPU_EINVAL;
    const char *parts[2] = { h, t->data };
    size_t lens[2] = { hl, bytes };
    for (int i = 0; i < 2; i++) {
        const char *p = parts[i];
        size_t left = lens[i];
        while (left) {
            ssize_t w = write(fd, p, left);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return SPU_EIO;
            p += w;
            left -= (size_t)w;
        }
    }
    return 0;
}

int spu_npy_save(const char *path, const spu_tensor *t)
{
    if (!path || !t)
        return SPU_EINVAL;
    spu_outfile *o;
    int rc = spu_outfile_open(&o, path, NULL, 0);
    if (rc)
        return rc;
    rc = spu_npy_write_fd(spu_outfile_fd(o), t);
    if (rc) {
        spu_outfile_abort(o);
        return rc;
    }
    return spu_outfile_commit(o, NULL, 0);
}
