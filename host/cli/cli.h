/*
 * cli.h -- shared helpers of the `spu` subcommands.
 */
#ifndef SPU_CLI_H
#define SPU_CLI_H

#include <stddef.h>
#include <stdint.h>

#define SPU_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef SPU_COMMAND

/* `spu bench gemm` (bench_gemm.c), a row of cmd_bench.c's table. */
int spu_bench_gemm(int argc, char **argv);
/* `spu bench formats` (bench_formats.c), a row of cmd_bench.c's table. */
int spu_bench_formats(int argc, char **argv);

/* Print "spu <cmd>: message" to stderr (printf-style) and return 2 (usage) */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "spu <cmd>: message" to stderr and return 1 (runtime failure) */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse an unsigned/signed decimal or 0x-hex integer; 0 on success, -1 on junk/overflow. */
int cli_parse_u64(const char *s, uint64_t *out);
int cli_parse_i64(const char *s, int64_t *out);
/* Default device URI: $SPU_DEVICE if set, else "model". */
const char *cli_default_device(void);
/* Read a whole file ("-" = stdin) into a malloc'ed buffer (NUL-appended). */
int cli_read_file(const char *path, char **data, size_t *len);

#endif
