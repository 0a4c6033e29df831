/*
 * outfile.h -- writing an output file the careful way (docs/host-api.md,
 * "Output files"): a regular file (or a new one) is written to an unnamed
 * temporary file in the same directory (O_TMPFILE) and appears under its name
 * only at commit, atomically, with the mode (and owner, where permitted) of
 * the file it replaces; a symlink is followed and its target replaced; a
 * character device (/dev/null, a tty) or a FIFO is written in place; a
 * directory, a block device, a socket or a dangling symlink is refused. "-" is
 * standard output. A process killed before commit leaves nothing behind
 * (where the file system has no O_TMPFILE, a named ".NAME.spu-XXXXXX" temp is
 * used and unlinked on abort). Several outputs of one command are all opened
 * and written first and committed last, so that a failure leaves every target
 * as it was.
 */
#ifndef SPU_OUTFILE_H
#define SPU_OUTFILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spu_outfile spu_outfile;

/* Prepare to write path. 0, or SPU_EINVAL (refused kind of file) / SPU_EIO
 * with a one-line reason in err (may be NULL). */
int  spu_outfile_open(spu_outfile **o, const char *path, char *err, size_t errcap);
/* Would spu_outfile_open accept path? Checks the kind of file (and that a
 * new file's directory is writable) without opening anything, so a command
 * can refuse a bad output before its work. 0, or SPU_EINVAL/SPU_EIO with a
 * reason. */
int  spu_outfile_check(const char *path, char *err, size_t errcap);
/* The fd to write to (in place or the temporary file). */
int  spu_outfile_fd(const spu_outfile *o);
/* Write all n bytes (retrying short writes). 0 or SPU_EIO. */
int  spu_outfile_write(spu_outfile *o, const void *data, size_t n);
/* Make the output visible under its name and free o. 0, or SPU_EIO with a
 * reason (the target is then unchanged). */
int  spu_outfile_commit(spu_outfile *o, char *err, size_t errcap);
/* Drop the output (the target is unchanged) and free o. Accepts NULL. */
void spu_outfile_abort(spu_outfile *o);

#ifdef __cplusplus
}
#endif
#endif
