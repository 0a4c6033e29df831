/*
 * backend_sim.c -- "sim[?rows=R&cols=C&uart=1&trace=FILE.fst&timeout=MS]":
 * spawns build/bin/spu-sim (the Verilated board), reads "pty PATH" from its
 * stdout and talks to it through the serial transport, exactly as to a board.
 * spu-sim is found through $SPU_SIM, next to the running executable
 * (/proc/self/exe: bin/spu-sim or ../bin/spu-sim), or at build/bin/spu-sim.
 * Its stderr (the cycles/s report) is kept only when $SPU_SIM_STDERR is set.
 * Closing kills (SIGTERM) and reaps it.
 */
#include "link/link_client.h"
#include "link/link_ops.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct sim_impl {
    spu_link link;   /* first: link_ops.c relies on it */
    int fd;
    pid_t pid;
} sim_impl;

static int executable(const char *p)
{
    return access(p, X_OK) == 0;
}

/* Locate spu-sim; 0 and the path in out, or SPU_ENODEV. */
static int find_sim(char *out, size_t cap)
{
    const char *env = getenv("SPU_SIM");
    if (env && *env) {
        if (!executable(env) || strlen(env) >= cap)
            return SPU_ENODEV;
        strcpy(out, env);
        return 0;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            const char *cand[] = { "/spu-sim", "/../bin/spu-sim" };
            for (size_t i = 0; i < 2; i++) {
                if (snprintf(out, cap, "%s%s", self, cand[i]) < (int)cap && executable(out))
                    return 0;
            }
        }
    }
    if (snprintf(out, cap, "build/bin/spu-sim") < (int)cap && executable(out))
        return 0;
    return SPU_ENODEV;
}

static void reap(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    for (int i = 0; i < 200; i++) {   /* up to 2 s, then SIGKILL */
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        struct timespec ts = { 0, 10 * 1000 * 1000 };
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Read the first stdout line of the child ("pty PATH") within timeout_ms. */
static int read_pty_line(int fd, char *path, size_t cap, int timeout_ms)
{
    char line[512];
    size_t len = 0;
    while (len < sizeof line - 1) {
        struct pollfd pf = { fd, POLLIN, 0 };
        int r = poll(&pf, 1, timeout_ms);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return SPU_ETIMEDOUT;
        ssize_t n = read(fd, line + len, 1);
        if (n <= 0)
            return SPU_ENODEV;   /* spu-sim exited (e.g. a geometry it was not built for) */
        if (line[len] == '\n')
            break;
        len++;
    }
    line[len] = 0;
    if (strncmp(line, "pty /", 5) != 0 || len - 4 >= cap)
        return SPU_EPROTO;
    strcpy(path, line + 4);
    return 0;
}

/* A probability in [0, 1] for ber=/drop=: "" when absent, else the value
 * checked here (spu-sim parses it again). */
static int prob_param(const spu_uri *u, const char *key, char *v, size_t cap)
{
    if (!spu_uri_param(u, key, v, cap)) {
        v[0] = 0;
        char big[sizeof u->query];
        if (spu_uri_param(u, key, big, sizeof big))
            return spu_uri_fail(u, SPU_EINVAL, "URI key %s: '%.40s...' is too long", key, big);
        return 0;
    }
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (!v[0] || errno || *end || !(x >= 0 && x <= 1))
        return spu_uri_fail(u, SPU_EINVAL, "URI key %s: '%s' is not a probability in [0, 1]", key, v);
    return 0;
}

static int sim_open(void **impl, const spu_uri *u)
{
    char exe[PATH_MAX], rows[16] = "", cols[16] = "", trace[256] = "", ber[32], drop[32];
    char seed[24] = "";
    long v;
    int uart = 0, rc;
    if (u->path[0])
        return spu_uri_fail(u, SPU_EINVAL, "sim takes no path ('sim:%s'); options go after '?'",
                            u->path);
    if ((rc = spu_uri_long(u, "rows", 1, 64, &v)) < 0)
        return rc;
    if (rc)
        snprintf(rows, sizeof rows, "%ld", v);
    if ((rc = spu_uri_long(u, "cols", 1, 64, &v)) < 0)
        return rc;
    if (rc)
        snprintf(cols, sizeof cols, "%ld", v);
    if ((rc = spu_uri_long(u, "uart", 0, 1, &v)) < 0)
        return rc;
    if (rc)
        uart = (int)v;
    if ((rc = spu_uri_long(u, "seed", 0, LONG_MAX, &v)) < 0)
        return rc;
    if (rc)
        snprintf(seed, sizeof seed, "%ld", v);
    if ((rc = prob_param(u, "ber", ber, sizeof ber)) || (rc = prob_param(u, "drop", drop, sizeof drop)))
        return rc;
    if (spu_uri_param(u, "trace", trace, sizeof trace)) {
        /* spu-sim's stderr is not shown: check the file can be written here */
        int tfd = open(trace, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (tfd < 0)
            return spu_uri_fail(u, SPU_EINVAL, "URI key trace: cannot write %s: %s", trace,
                                strerror(errno));
        close(tfd);
    } else if (strstr(u->query, "trace=")) {
        return spu_uri_fail(u, SPU_EINVAL, "URI key trace: path empty or longer than %zu bytes",
                            sizeof trace - 1);
    }
    spu_link probe;   /* timeout=/retries= checked before spawning anything */
    spu_link_init(&probe, -1);
    if ((rc = spu_link_apply_uri(&probe, u)) < 0)
        return rc;
    rc = find_sim(exe, sizeof exe);
    if (rc)
        return spu_uri_fail(u, rc, "spu-sim not found ($SPU_SIM, next to this program, or build/bin/spu-sim)");

    const char *argv[20];
    int argc = 0;
    argv[argc++] = exe;
    if (rows[0]) {
        argv[argc++] = "--rows";
        argv[argc++] = rows;
    }
    if (cols[0]) {
        argv[argc++] = "--cols";
        argv[argc++] = cols;
    }
    if (uart)
        argv[argc++] = "--uart";
    if (trace[0]) {
        argv[argc++] = "--trace";
        argv[argc++] = trace;
    }
    if (ber[0]) {
        argv[argc++] = "--ber";
        argv[argc++] = ber;
    }
    if (drop[0]) {
        argv[argc++] = "--drop";
        argv[argc++] = drop;
    }
    if (seed[0]) {
        argv[argc++] = "--seed";
        argv[argc++] = seed;
    }
    argv[argc] = NULL;

    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0)
        return SPU_EIO;
    const int keep_stderr = getenv("SPU_SIM_STDERR") != NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        return SPU_EIO;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDWR);
        dup2(pfd[1], 1);
        if (devnull >= 0) {
            dup2(devnull, 0);
            if (!keep_stderr)
                dup2(devnull, 2);
        }
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    close(pfd[1]);

    char path[256];
    rc = read_pty_line(pfd[0], path, sizeof path, 30000);
    close(pfd[0]);   /* spu-sim prints nothing more on stdout */
    if (rc == SPU_ENODEV) {
        int st = 0;   /* exited before printing: exit 3 = geometry not built */
        if (waitpid(pid, &st, 0) == pid)
            return WIFEXITED(st) && WEXITSTATUS(st) == 3
                       ? spu_uri_fail(u, SPU_ENOTSUP, "spu-sim was built for another geometry "
                                                      "(rows/cols must match the build)")
                       : spu_uri_fail(u, SPU_ENODEV, "spu-sim exited at start (run %s by hand "
                                                     "to see why)", exe);
    }
    if (rc) {
        reap(pid);
        return rc;
    }
    sim_impl *s = calloc(1, sizeof *s);
    if (!s) {
        reap(pid);
        return SPU_ENOMEM;
    }
    int fd = spu_serial_open(path, 0);
    if (fd < 0) {
        free(s);
        reap(pid);
        return fd;
    }
    s->fd = fd;
    s->pid = pid;
    spu_link_init(&s->link, fd);
    s->link.timeout_ms = probe.timeout_ms;
    s->link.retries = probe.retries;
    *impl = s;
    return 0;
}

static void sim_close(void *impl)
{
    sim_impl *s = impl;
    if (!s)
        return;
    close(s->fd);   /* spu-sim sees the hang-up and exits by itself */
    if (s->pid > 0) {
        for (int i = 0; i < 100; i++) {   /* give it 1 s to print its report */
            if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
                s->pid = 0;
                break;
            }
            struct timespec ts = { 0, 10 * 1000 * 1000 };
            nanosleep(&ts, NULL);
        }
        reap(s->pid);
    }
    free(s);
}

static int sim_info(void *impl, spu_info_t *info)
{
    int rc = spu_link_op_info(impl, info);
    if (rc == 0)
        snprintf(info->device, sizeof info->device, "sim");
    return rc;
}

const spu_backend_ops spu_backend_sim = {
    .scheme = "sim",
    .open = sim_open,
    .close = sim_close,
    .info = sim_info,
    SPU_LINK_BACKEND_OPS,
    .keys = (const char *const[]){ "rows", "cols", "uart", "trace", "ber", "drop", "seed",
                                   SPU_LINK_URI_KEYS, NULL },
};
