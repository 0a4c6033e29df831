/*
 * backend_sim.c -- "sim[?board=B&rows=R&cols=C&uart=1&trace=FILE.fst&timeout=MS]":
 * spawns build/bin/spu-sim (the Verilated 8x8; with trace=, its traced twin
 * spu-sim-trace from `make sim-trace`) or, with board=icebreaker|hx8k,
 * build/bin/spu-sim-BOARD (the board's RTL and UART at its clocks per bit),
 * reads "pty PATH" from its stdout and talks to it through the serial
 * transport, exactly as to a board. The simulator is found through $SPU_SIM
 * (spu-sim; spu-sim-BOARD beside it), next to the running executable
 * (/proc/self/exe: bin/ or ../bin/), or under build/bin/.
 * Its stderr (the cycles/s report) is kept only when $SPU_SIM_STDERR is set.
 * Closing kills (SIGTERM) and reaps it.
 *
 * Simulated time (spu_sim_time): a memfd passed as `--stats-fd`, which
 * spu-sim maps and updates (layout: hw/sim/spu_sim_stats.h, docs/sim.md);
 * not part of the link protocol.
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
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct sim_impl {
    spu_link link;   /* first: link_ops.c relies on it */
    int fd;
    pid_t pid;
    volatile struct sim_stats *stats;   /* shared with spu-sim; NULL if unavailable */
} sim_impl;

/* hw/sim/spu_sim_stats.h, the same layout (docs/sim.md) */
struct sim_stats {
    uint32_t magic, version, clock_hz, clks_per_bit;
    uint64_t seq, cycles, bytes_in, bytes_out, idle, core_cycles, reserved[2];
};
_Static_assert(sizeof(struct sim_stats) == 80, "layout of hw/sim/spu_sim_stats.h");
#define SIM_STATS_MAGIC 0x54555053u

/* Boards with a board-shaped simulator (build/bin/spu-sim-BOARD, hw/build.mk). */
static const char *const sim_boards[] = { "icebreaker", "hx8k", "icebreaker-ebr" };

static int executable(const char *p)
{
    return access(p, X_OK) == 0;
}

/* Locate the simulator `name` (spu-sim or spu-sim-BOARD); 0 and the path in
 * out, or SPU_ENODEV. */
static int find_sim(const char *name, char *out, size_t cap)
{
    const char *env = getenv("SPU_SIM");
    if (env && *env) {
        if (strcmp(name, "spu-sim") == 0) {
            if (!executable(env) || strlen(env) >= cap)
                return SPU_ENODEV;
            strcpy(out, env);
            return 0;
        }
        const char *slash = strrchr(env, '/');
        int dir = slash ? (int)(slash - env) : 1;
        if (snprintf(out, cap, "%.*s/%s", dir, slash ? env : ".", name) >= (int)cap ||
            !executable(out))
            return SPU_ENODEV;
        return 0;
    }
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            const char *cand[] = { "/", "/../bin/" };
            for (size_t i = 0; i < 2; i++) {
                if (snprintf(out, cap, "%s%s%s", self, cand[i], name) < (int)cap && executable(out))
                    return 0;
            }
        }
    }
    if (snprintf(out, cap, "build/bin/%s", name) < (int)cap && executable(out))
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
    char seed[24] = "", board[32] = "", name[64] = "spu-sim", fdarg[16];
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
    if (spu_uri_param(u, "board", board, sizeof board)) {
        size_t i = 0, nb = sizeof sim_boards / sizeof sim_boards[0];
        while (i < nb && strcmp(board, sim_boards[i]))
            i++;
        if (i == nb)
            return spu_uri_fail(u, SPU_EINVAL, "URI key board: no simulator of board '%s' "
                                "(known: icebreaker, hx8k, icebreaker-ebr)", board);
        if (trace[0])
            return spu_uri_fail(u, SPU_ENOTSUP, "board simulators are built without tracing "
                                "(trace= works on the plain sim)");
        if (rows[0] || cols[0])
            return spu_uri_fail(u, SPU_EINVAL, "board= fixes the geometry: drop rows=/cols=");
        snprintf(name, sizeof name, "spu-sim-%s", board);
    } else if (trace[0]) {
        snprintf(name, sizeof name, "spu-sim-trace");   /* `make sim-trace` */
    }
    spu_link probe;   /* timeout=/retries= checked before spawning anything */
    spu_link_init(&probe, -1);
    if ((rc = spu_link_apply_uri(&probe, u)) < 0)
        return rc;
    rc = find_sim(name, exe, sizeof exe);
    if (rc)
        return spu_uri_fail(u, rc, "%s not found ($SPU_SIM's folder, next to this program, or "
                            "build/bin/; `make` builds it%s)", name,
                            trace[0] ? ", `make sim-trace` the tracing one" : "");

    /* the simulated-time page: inherited by the child, mapped by both */
    volatile struct sim_stats *stats = NULL;
    int sfd = memfd_create("spu-sim-stats", 0);
    if (sfd >= 0 && ftruncate(sfd, sizeof(struct sim_stats)) == 0) {
        void *p = mmap(NULL, sizeof(struct sim_stats), PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
        if (p != MAP_FAILED)
            stats = p;
    }
    if (!stats && sfd >= 0) {
        close(sfd);
        sfd = -1;
    }

    const char *argv[24];
    int argc = 0;
    argv[argc++] = exe;
    if (sfd >= 0) {
        snprintf(fdarg, sizeof fdarg, "%d", sfd);
        argv[argc++] = "--stats-fd";
        argv[argc++] = fdarg;
    }
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
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        rc = SPU_EIO;
        goto fail_stats;
    }
    const int keep_stderr = getenv("SPU_SIM_STDERR") != NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(pfd[0]);
        close(pfd[1]);
        rc = SPU_EIO;
        goto fail_stats;
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
    if (sfd >= 0)
        close(sfd);   /* the mapping stays */
    sfd = -1;

    char path[256];
    rc = read_pty_line(pfd[0], path, sizeof path, 30000);
    close(pfd[0]);   /* spu-sim prints nothing more on stdout */
    if (rc == SPU_ENODEV) {
        int st = 0;   /* exited before printing: exit 3 = geometry not built */
        if (waitpid(pid, &st, 0) == pid)
            rc = WIFEXITED(st) && WEXITSTATUS(st) == 3
                     ? spu_uri_fail(u, SPU_ENOTSUP, "spu-sim was built for another geometry "
                                                    "(rows/cols must match the build)")
                     : spu_uri_fail(u, SPU_ENODEV, "%s exited at start (run %s by hand "
                                                   "to see why)", name, exe);
        goto fail_stats;
    }
    if (rc) {
        reap(pid);
        goto fail_stats;
    }
    sim_impl *s = calloc(1, sizeof *s);
    if (!s) {
        reap(pid);
        rc = SPU_ENOMEM;
        goto fail_stats;
    }
    int fd = spu_serial_open(path, 0);
    if (fd < 0) {
        free(s);
        reap(pid);
        rc = fd;
        goto fail_stats;
    }
    s->fd = fd;
    s->pid = pid;
    s->stats = stats;
    spu_link_init(&s->link, fd);
    s->link.timeout_ms = probe.timeout_ms;
    s->link.retries = probe.retries;
    *impl = s;
    return 0;

fail_stats:
    if (sfd >= 0)
        close(sfd);
    if (stats)
        munmap((void *)stats, sizeof(struct sim_stats));
    return rc;
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
    if (s->stats)
        munmap((void *)s->stats, sizeof(struct sim_stats));
    free(s);
}

/* One consistent copy of the page (seqlock): 1 when the copy is whole and
 * says the board is idle, 0 otherwise. */
static int stats_idle(const sim_impl *s, struct sim_stats *c)
{
    uint64_t a = __atomic_load_n(&s->stats->seq, __ATOMIC_ACQUIRE);
    memcpy(c, (const void *)s->stats, sizeof *c);
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    uint64_t b = __atomic_load_n(&s->stats->seq, __ATOMIC_RELAXED);
    return a == b && !(a & 1) && c->magic == SIM_STATS_MAGIC && c->version >= 1 && c->idle;
}

static int64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Wait for the page to say idle, up to timeout_ms (< 0: for as long as
 * spu-sim lives). The page is published before the reply bytes of every
 * command reach the host, so after a reply it is never older than that
 * command: idle then means the board has finished what it was given. */
static int wait_page_idle(const sim_impl *s, int timeout_ms, struct sim_stats *c)
{
    if (!s->stats)
        return SPU_ENOTSUP;
    const int64_t t0 = mono_us();
    for (unsigned i = 0;; i++) {
        if (stats_idle(s, c))
            return 0;
        const int64_t waited = mono_us() - t0;
        if (timeout_ms >= 0 && waited >= (int64_t)timeout_ms * 1000)
            return SPU_ETIMEDOUT;
        if (i % 1024 == 1023) {   /* about every 0.1 s: is spu-sim still there? */
            siginfo_t si = { 0 };
            if (waitid(P_PID, (id_t)s->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid)
                return SPU_EIO;
        }
        struct timespec ts = { 0, 100 * 1000 };
        nanosleep(&ts, NULL);
    }
}

static int sim_wait_idle(void *impl, int timeout_ms)
{
    struct sim_stats c;
    return wait_page_idle(impl, timeout_ms, &c);
}

/* The page once the board is idle: the reply that just arrived may leave a
 * few cycles of UART stop bit and engine wind-down to run (2 s at most). */
static int sim_time(void *impl, spu_sim_time_t *t)
{
    struct sim_stats c;
    int rc = wait_page_idle(impl, 2000, &c);
    if (rc)
        return rc;
    memset(t, 0, sizeof *t);
    t->cycles = c.cycles;
    t->bytes_in = c.bytes_in;
    t->bytes_out = c.bytes_out;
    t->clock_hz = c.clock_hz;
    t->clks_per_bit = c.clks_per_bit;
    t->seconds = c.clock_hz ? (double)c.cycles / c.clock_hz : 0.0;
    t->core_cycles = c.version >= 2 ? c.core_cycles : c.cycles;
    return 0;
}

static int sim_info(void *impl, spu_info_t *info)
{
    int rc = spu_link_op_info(impl, info);
    if (rc == 0)
        snprintf(info->device, sizeof info->device, "sim");   /* URI keys tell the board */
    return rc;
}

const spu_backend_ops spu_backend_sim = {
    .scheme = "sim",
    .open = sim_open,
    .close = sim_close,
    .info = sim_info,
    SPU_LINK_BACKEND_OPS,
    .keys = (const char *const[]){ "rows", "cols", "uart", "trace", "ber", "drop", "seed", "board",
                                   SPU_LINK_URI_KEYS, NULL },
    .sim_time = sim_time,
    .wait_idle = sim_wait_idle,
};
