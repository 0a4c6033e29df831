/*
 * perf_plot.h -- gnuplot helpers of `spu roofline` and `spu bench gemm --plot`.
 */
#ifndef SPU_CLI_PERF_PLOT_H
#define SPU_CLI_PERF_PLOT_H

#include <stdio.h>

/* Create dir if missing: 0 or -1. */
int perf_plot_dir(const char *dir);
/* Open DIR/NAME.EXT for writing (NULL on failure). */
FILE *perf_plot_open(const char *dir, const char *name, const char *ext);
/* Write DIR/NAME.gp (setup, then body once per terminal: png and svg) and run
 * gnuplot: 0, or -1 with a message on stderr. */
int perf_plot_run(const char *dir, const char *name, const char *setup, const char *body);

#endif
