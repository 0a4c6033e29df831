/*
 * npy.h -- tensors in NumPy's .npy format (versions 1.0/2.0/3.0 read, 1.0
 * written), C order, little-endian: int8, uint8, int32, float32, float16,
 * uint16 (bf16 codes).
 */
#ifndef SPU_NPY_H
#define SPU_NPY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum spu_dtype_npy {
    SPU_NPY_INT8,     /* '|i1' */
    SPU_NPY_UINT8,    /* '|u1' */
    SPU_NPY_INT32,    /* '<i4' */
    SPU_NPY_FLOAT32,  /* '<f4' */
    SPU_NPY_FLOAT16,  /* '<f2' */
    SPU_NPY_UINT16,   /* '<u2' (raw bf16 codes) */
    SPU_NPY_DTYPE_COUNT
} spu_npy_dtype;

#define SPU_TENSOR_MAX_DIMS 8

typedef struct spu_tensor {
    spu_npy_dtype dtype;
    int           ndim;                       /* 0 = scalar */
    size_t        shape[SPU_TENSOR_MAX_DIMS];
    void         *data;                       /* malloc'ed, C order */
} spu_tensor;

/* Bytes per element of a dtype; its numpy descr string ("<i4"); its name ("int32"). */
size_t      spu_npy_itemsize(spu_npy_dtype dt);
const char *spu_npy_descr(spu_npy_dtype dt);
const char *spu_npy_dtype_name(spu_npy_dtype dt);

/* Elements (product of the shape; 1 for a scalar). */
size_t spu_tensor_numel(const spu_tensor *t);
/* Allocate a zeroed tensor of the given shape. */
int    spu_tensor_alloc(spu_tensor *t, spu_npy_dtype dt, int ndim, const size_t *shape);
/* Free the data (accepts a zeroed tensor). */
void   spu_tensor_free(spu_tensor *t);

/* Read a .npy file (a regular file, or a pipe of at most SPU_NPY_PIPE_MAX
 * bytes; a device such as /dev/zero is refused with SPU_EIO). On failure returns SPU_EFORMAT (truncated, Fortran order,
 * big-endian or unsupported dtype, bad header) or SPU_EIO, and writes a
 * one-line reason into err (may be NULL) that names the file. */
#define SPU_NPY_PIPE_MAX ((size_t)1 << 32)
int spu_npy_load(const char *path, spu_tensor *t, char *err, size_t errcap);
/* Same from memory. */
int spu_npy_parse(const void *buf, size_t len, spu_tensor *t, char *err, size_t errcap);
/* Write a .npy file (format 1.0) the careful way of spu/outfile.h: a regular
 * file is replaced atomically keeping its mode, /dev/null or a FIFO is written
 * in place, a directory or block device is refused (SPU_EINVAL). */
int spu_npy_save(const char *path, const spu_tensor *t);
/* The 1.0 header of t into h (cap bytes, 640 always suffice); its length,
 * or 0 for an invalid tensor. The data bytes follow it as they are in t. */
size_t spu_npy_header(const spu_tensor *t, char *h, size_t cap);
/* Write the .npy bytes to an open fd (all of them, or SPU_EIO). */
int spu_npy_write_fd(int fd, const spu_tensor *t);

#ifdef __cplusplus
}
#endif
#endif
