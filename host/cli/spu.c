/*
 * spu.c -- entry point of the `spu` command: dispatches to the subcommands
 * listed in commands.def.
 */
#include "cli.h"
#include "spu/spu.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*fn)(int, char **);
    const char *summary;
} commands[] = {
#define SPU_COMMAND(name, fn, summary) { #name, fn, summary },
#define SPU_SUBCOMMAND(parent, name, fn, summary)
#include "commands.def"
#undef SPU_SUBCOMMAND
#undef SPU_COMMAND
};

const cli_subcommand cli_subcommands[] = {
#define SPU_COMMAND(name, fn, summary)
#define SPU_SUBCOMMAND(parent, name, fn, summary) { #parent, #name, fn, summary },
#include "commands.def"
#undef SPU_SUBCOMMAND
#undef SPU_COMMAND
};
const size_t cli_nsubcommands = sizeof cli_subcommands / sizeof cli_subcommands[0];

int cli_subcommand_run(const char *parent, int argc, char **argv)
{
    for (size_t i = 0; i < cli_nsubcommands; i++)
        if (!strcmp(cli_subcommands[i].parent, parent) && !strcmp(cli_subcommands[i].name, argv[1]))
            return cli_subcommands[i].fn(argc - 1, argv + 1);
    return -1;
}

void cli_subcommand_list(const char *parent, void *file)
{
    for (size_t i = 0; i < cli_nsubcommands; i++)
        if (!strcmp(cli_subcommands[i].parent, parent))
            fprintf((FILE *)file, "  %-10s %s\n", cli_subcommands[i].name, cli_subcommands[i].summary);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: spu <command> [options]   (spu <command> --help for details)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
        for (size_t j = 0; j < cli_nsubcommands; j++)
            if (!strcmp(cli_subcommands[j].parent, commands[i].name)) {
                char both[32];
                snprintf(both, sizeof both, "%s %s", commands[i].name, cli_subcommands[j].name);
                fprintf(f, "    %-16s %s\n", both, cli_subcommands[j].summary);
            }
    }
    fprintf(f, "\nDevices (--device URI): model, sim, sim?board=icebreaker, serial:/dev/ttyUSB1 (12 Mbaud "
               "unless ?baud=N), ftdi://0403:6010/2\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("spu %s\n", spu_version());
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = commands[i].fn(argc - 1, argv + 1);
            /* output that did not reach stdout (a full disk, /dev/full, a
             * closed pipe) is a failure, not a success */
            errno = 0;
            if (fflush(stdout) != 0 || ferror(stdout)) {
                fprintf(stderr, "spu %s: cannot write standard output: %s\n", argv[1],
                        errno ? strerror(errno) : "write error");
                return rc ? rc : 1;
            }
            return rc;
        }
    fprintf(stderr, "spu: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
