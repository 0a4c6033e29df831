/*
 * cli.h -- shared helpers of the `spu` subcommands.
 */
#ifndef SPU_CLI_H
#define SPU_CLI_H

#include <stddef.h>
#include <stdint.h>

#define SPU_COMMAND(name, fn, summary) int fn(int argc, char **argv);
#define SPU_SUBCOMMAND(parent, name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef SPU_SUBCOMMAND
#undef SPU_COMMAND

/* The second words of a command (commands.def's SPU_SUBCOMMAND rows). */
typedef struct cli_subcommand {
    const char *parent, *name;
    int (*fn)(int, char **);
    const char *summary;
} cli_subcommand;
extern const cli_subcommand cli_subcommands[];
extern const size_t cli_nsubcommands;
/* Dispatch `spu PARENT NAME ...` (argv[0] = PARENT) to its row; 2 with a
 * message when NAME is not one (usage printed by the caller). -1: no row. */
int cli_subcommand_run(const char *parent, int argc, char **argv);
/* Print PARENT's rows as "  %-10s summary" lines. */
void cli_subcommand_list(const char *parent, void *file);

/* dtype codes of hw/isa/spu_cfg.def (spu/isa.h's names clash with spu/numerics.h,
 * so the GEMM commands take them from the table here) */
enum {
#define SPU_DTYPE(n, k, c, b, a) CLI_DT_##n = (c),
#include "spu_cfg.def"
    CLI_DT_END_
};

/* The operand dtypes the GEMM commands (gemm, bench formats) offer: the
 * dtype code and the numerics library's format (an spu_fmt) of each. */
typedef struct cli_gemm_dtype {
    const char *key;
    int dt;
    int fmt;
} cli_gemm_dtype;
extern const cli_gemm_dtype cli_gemm_dtypes[];
extern const size_t cli_gemm_ndtypes;
/* MX dtypes (OCP MX, 32-element E8M0 blocks along K): the numerics
 * library's spu_mx_fmt of dtype code dt, or -1 for a non-MX dtype. */
int cli_mx_fmt(int dt);
/* Quantize float32 A[M][K] along its rows and B[K][N] along its columns
 * with spu_mx_quantize (floor scale rule, RNE): codes A[M][K], B[K][N],
 * scales SA[M][ceil(K/32)], SB[ceil(K/32)][N] (spu_gemm_mx's layout).
 * Returns 0, SPU_ENOMEM or SPU_EINVAL. */
int cli_mx_quantize_ab(int dt, const float *Af, const float *Bf, uint32_t M, uint32_t N, uint32_t K,
                       uint8_t *A, uint8_t *SA, uint8_t *B, uint8_t *SB);

/* The random stream of the GEMM commands' --seed operands (splitmix64). */
uint64_t cli_splitmix64(uint64_t *s);

/* Into a bench's JSON object: the device's clock, geometry, ISA hash (and the
 * host's) and the project's commit (bench_gemm.c); info NULL: host only. */
struct cJSON;
struct spu_info;
void cli_bench_json_header(struct cJSON *root, const char *device, const struct spu_info *info);

/* Print "spu <cmd>: message" to stderr (printf-style) and return 2 (usage) */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "spu <cmd>: message" to stderr and return 1 (runtime failure) */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Parse an unsigned/signed decimal or 0x-hex integer; 0 on success, -1 on junk/overflow. */
int cli_parse_u64(const char *s, uint64_t *out);
int cli_parse_i64(const char *s, int64_t *out);
/* Default device URI: $SPU_DEVICE if set, else "model". */
const char *cli_default_device(void);
/* Open a device; on failure print "spu <cmd>: cannot open device 'URI': why"
 * (the reason spu_open_ex gives, else spu_strerror) and return 1. */
struct spu_device;
int cli_open_device(const char *cmd, const char *uri, struct spu_device **dev);
/* Link retries since open (0 for the model), for --json "retries". */
double cli_link_retries(struct spu_device *dev);
/* Read a whole file ("-" = stdin) into a malloc'ed buffer (NUL-appended):
 * a regular file or a pipe of at most CLI_READ_MAX bytes. 0, or -1 (errno),
 * -2 (not a regular file or pipe, e.g. /dev/zero), -3 (too large). */
#define CLI_READ_MAX ((uint64_t)1 << 32)
int cli_read_file(const char *path, char **data, size_t *len);
/* Print why cli_read_file failed; returns 1. */
int cli_read_fail(const char *cmd, const char *path, int rc);
/* One output file: up to two pieces of bytes (e.g. a .npy header and data). */
typedef struct cli_output {
    const char *path;
    const void *p[2];
    size_t n[2];
} cli_output;
/* Write n outputs the careful way (spu/outfile.h): all are written first and
 * committed only when every one is ready, so a failure changes none of the
 * targets. 0, or 1 after printing the reason. */
int cli_write_outputs(const char *cmd, int n, const cli_output *outs);
/* Refuse an output path spu_outfile_open would refuse, before any work:
 * 0, or 1 after printing the reason. NULL is fine. */
int cli_check_output(const char *cmd, const char *path);
/* A .npy output of tensor t (hdr: room for the header). 0 or -1. */
struct spu_tensor;
int cli_npy_output(cli_output *o, const char *path, const struct spu_tensor *t, char *hdr, size_t cap);

#endif
