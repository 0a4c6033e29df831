/*
 * error_detail.h -- one line of context for the last failure in this thread
 * (private to libspu; read back through spu_error_detail() of spu/spu.h).
 * A backend that fails to open says what it looked for and the usual causes.
 */
#ifndef SPU_ERROR_DETAIL_H
#define SPU_ERROR_DETAIL_H

void spu_error_detail_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void spu_error_detail_clear(void);

#endif
