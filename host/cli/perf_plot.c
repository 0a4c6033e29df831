/*
 * perf_plot.c -- gnuplot plots of the performance model (PNG and SVG side by
 * side): measured vs predicted cycles and time, and rooflines with points.
 * Each plot is a data file and a script in DIR (kept, so a person can edit
 * and rerun `gnuplot DIR/NAME.gp`); gnuplot runs once per plot.
 */
#include "perf_plot.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

int perf_plot_dir(const char *dir)
{
    if (mkdir(dir, 0777) && errno != EEXIST)
        return -1;
    return 0;
}

FILE *perf_plot_open(const char *dir, const char *name, const char *ext)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext);
    return fopen(path, "w");
}

/* Write DIR/NAME.gp around `body` (plot commands using NAME.dat) for both
 * terminals and run gnuplot on it. Returns 0 or -1 (message on stderr). */
int perf_plot_run(const char *dir, const char *name, const char *setup, const char *body)
{
    FILE *f = perf_plot_open(dir, name, "gp");
    if (!f)
        return -1;
    fprintf(f, "# %s.gp -- written by spu (docs/perf-model.md); rerun: gnuplot %s.gp (in this folder)\n",
            name, name);
    fprintf(f, "cd '%s'\n", dir);
    fprintf(f, "set datafile separator whitespace\n%s\n", setup);
    fprintf(f, "set terminal png size 960,640\nset output '%s.png'\n%s\n", name, body);
    fprintf(f, "set terminal svg size 960,640 dynamic\nset output '%s.svg'\n%s\n", name, body);
    fprintf(f, "set output\n");
    if (fclose(f))
        return -1;
    char cmd[8300];
    snprintf(cmd, sizeof cmd, "gnuplot '%s/%s.gp' 2>&1", dir, name);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char buf[512];
    int noisy = 0;
    while (fgets(buf, sizeof buf, p)) {
        fputs(buf, stderr);
        noisy = 1;
    }
    int st = pclose(p);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "gnuplot failed on %s/%s.gp (is gnuplot installed? make deps)\n", dir, name);
        return -1;
    }
    (void)noisy;
    return 0;
}
