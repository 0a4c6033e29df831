/*
 * cli_convert.h -- `spu convert` of a whole file (cmd_convert.c), also timed
 * by `spu bench numerics` (cmd_bench.c).
 */
#ifndef SPU_CLI_CONVERT_H
#define SPU_CLI_CONVERT_H

#include "spu/numerics.h"

#include <stddef.h>

/* in -> out ("-" = stdin/stdout), streamed in chunks of 2^20 elements,
 * written the careful way (spu/outfile.h). 0, or 1 with the reason in err. */
int cli_convert_file(spu_fmt from, spu_fmt to, const spu_cvt_opts *co, const char *in,
                     const char *out, char *err, size_t cap);

#endif
