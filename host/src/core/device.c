/*
 * device.c -- the public device API: URI parsing, backend dispatch and the
 * argument/bounds checks every backend can rely on.
 */
#include "core/backend.h"
#include "core/error_detail.h"
#include "spu/isa.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct spu_device {
    const spu_backend_ops *ops;
    void *impl;
    spu_info_t info;
    uint32_t entry;
    int have_program;
    uint32_t watchdog;
};


int spu_uri_fail(const spu_uri *u, int rc, const char *fmt, ...)
{
    if (u && u->msg && u->msg_cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(u->msg, u->msg_cap, fmt, ap);
        va_end(ap);
    }
    return rc;
}

int spu_uri_parse(const char *uri, spu_uri *out)
{
    return spu_uri_parse_msg(uri, out, NULL, 0);
}

int spu_uri_parse_msg(const char *uri, spu_uri *out, char *msg, size_t msg_cap)
{
    memset(out, 0, sizeof *out);
    out->msg = msg;
    out->msg_cap = msg ? msg_cap : 0;
    if (!uri || !*uri)
        return spu_uri_fail(out, SPU_EINVAL, "empty device URI (try model, sim or serial:/dev/ttyUSB1)");
    size_t n = strcspn(uri, ":?");
    if (n == 0)
        return spu_uri_fail(out, SPU_EINVAL, "device URI '%s' has no scheme before '%c'", uri, uri[0]);
    if (n >= sizeof out->scheme)
        return spu_uri_fail(out, SPU_EINVAL, "device URI scheme '%.*s' is too long (a scheme is e.g. model, sim, serial)", (int)n, uri);
    for (size_t i = 0; i < n; i++) {
        char c = uri[i];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')))
            return spu_uri_fail(out, SPU_EINVAL,
                                "device URI scheme '%.*s' may hold only a-z and 0-9 (e.g. model, sim, serial:PATH)",
                                (int)n, uri);
    }
    memcpy(out->scheme, uri, n);
    const char *p = uri + n;
    if (*p == ':') {
        p++;
        if (p[0] == '/' && p[1] == '/')
            p += 2;
        size_t len = strcspn(p, "?");
        if (len >= sizeof out->path)
            return spu_uri_fail(out, SPU_EINVAL, "device URI path is longer than %zu bytes",
                                sizeof out->path - 1);
        memcpy(out->path, p, len);
        p += len;
    }
    if (*p == '?') {
        p++;
        if (strlen(p) >= sizeof out->query)
            return spu_uri_fail(out, SPU_EINVAL, "device URI query is longer than %zu bytes",
                                sizeof out->query - 1);
        strcpy(out->query, p);
        /* every item is key=value with a non-empty key */
        const char *q = out->query;
        while (*q) {
            size_t len = strcspn(q, "&");
            const char *eq = memchr(q, '=', len);
            if (!len || !eq || eq == q)
                return spu_uri_fail(out, SPU_EINVAL,
                                    "device URI query item '%.*s' is not key=value", (int)len, q);
            q += len;
            if (*q == '&')
                q++;
        }
    }
    return 0;
}

int spu_uri_param(const spu_uri *u, const char *key, char *val, size_t cap)
{
    size_t klen = strlen(key);
    const char *p = u->query;
    while (*p) {
        size_t len = strcspn(p, "&");
        if (len > klen && !strncmp(p, key, klen) && p[klen] == '=') {
            size_t vlen = len - klen - 1;
            if (vlen >= cap)
                return 0;
            memcpy(val, p + klen + 1, vlen);
            val[vlen] = 0;
            return 1;
        }
        p += len;
        if (*p == '&')
            p++;
    }
    return 0;
}

int spu_uri_long(const spu_uri *u, const char *key, long min, long max, long *out)
{
    char v[32];
    if (!spu_uri_param(u, key, v, sizeof v)) {
        /* present but too long for v is still a bad value */
        char big[sizeof u->query];
        if (spu_uri_param(u, key, big, sizeof big))
            return spu_uri_fail(u, SPU_EINVAL, "URI key %s: '%s' is not a number", key, big);
        return 0;
    }
    char *end = NULL;
    errno = 0;
    long x = (v[0] >= '0' && v[0] <= '9') ? strtol(v, &end, 10) : 0;
    if (!(v[0] >= '0' && v[0] <= '9') || errno || *end)
        return spu_uri_fail(u, SPU_EINVAL, "URI key %s: '%s' is not a decimal number", key, v);
    if (x < min || x > max)
        return spu_uri_fail(u, SPU_EINVAL, "URI key %s: %ld is outside %ld..%ld", key, x, min, max);
    *out = x;
    return 1;
}

/* Refuse query keys the backend does not know, and keys given twice. */
static int check_keys(const spu_uri *u, const spu_backend_ops *ops)
{
    const char *p = u->query;
    while (*p) {
        size_t len = strcspn(p, "&");
        size_t klen = strcspn(p, "=");
        int known = !ops->keys;
        for (const char *const *k = ops->keys; k && *k; k++)
            if (strlen(*k) == klen && !strncmp(*k, p, klen))
                known = 1;
        if (!known) {
            char list[160] = "";
            for (const char *const *k = ops->keys; *k; k++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s", used ? ", " : "", *k);
            }
            return spu_uri_fail(u, SPU_EINVAL, "unknown URI key '%.*s' for %s (known: %s)",
                                (int)klen, p, ops->scheme, list[0] ? list : "none");
        }
        for (const char *q = p + len; *q;) {   /* the same key again later */
            size_t l2 = strcspn(q, "&");
            if (strcspn(q, "=") == klen && !strncmp(q, p, klen))
                return spu_uri_fail(u, SPU_EINVAL, "URI key '%.*s' given twice", (int)klen, p);
            q += l2;
            if (*q == '&')
                q++;
        }
        p += len;
        if (*p == '&')
            p++;
    }
    return 0;
}

static const spu_backend_ops *find_backend(const char *scheme)
{
    const spu_backend_ops *all[] = { &spu_backend_model, &spu_backend_sim, &spu_backend_serial,
                                        &spu_backend_ftdi, &spu_backend_usb };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(all[i]->scheme, scheme))
            return all[i];
    return NULL;
}

int spu_open_ex(spu_device **dev, const char *uri, char *msg, size_t cap)
{
    if (msg && cap)
        msg[0] = 0;
    if (!dev)
        return SPU_EINVAL;
    *dev = NULL;
    spu_error_detail_clear();
    spu_uri u;
    int rc = spu_uri_parse_msg(uri, &u, msg, cap);
    if (rc)
        return rc;
    const spu_backend_ops *ops = find_backend(u.scheme);
    if (!ops) {
        return spu_uri_fail(&u, SPU_EINVAL,
                            "unknown device scheme '%s' (model, sim, serial:PATH, ftdi://VID:PID, usb://VID:PID)",
                            u.scheme);
    }
    rc = check_keys(&u, ops);
    if (rc)
        return rc;
    spu_device *d = calloc(1, sizeof *d);
    if (!d)
        return SPU_ENOMEM;
    d->ops = ops;
    rc = ops->open(&d->impl, &u);
    if (rc == 0)
        rc = ops->info(d->impl, &d->info);
    if (rc == 0 && d->info.word_bytes == 0)
        rc = SPU_EPROTO;
    if (rc) {
        if (d->impl)
            ops->close(d->impl);
        free(d);
        /* backends that explain through spu_error_detail() (ftdi, usb) */
        const char *why = spu_error_detail();
        if (msg && cap && !msg[0] && why && why[0])
            snprintf(msg, cap, "%s", why);
        return rc;
    }
    *dev = d;
    return 0;
}

int spu_open(spu_device **dev, const char *uri)
{
    return spu_open_ex(dev, uri, NULL, 0);
}

int spu_link_stats(spu_device *dev, spu_link_stats_t *st)
{
    if (!dev || !st)
        return SPU_EINVAL;
    memset(st, 0, sizeof *st);
    return dev->ops->stats ? dev->ops->stats(dev->impl, st) : 0;
}

void spu_close(spu_device *dev)
{
    if (!dev)
        return;
    dev->ops->close(dev->impl);
    free(dev);
}

int spu_info(spu_device *dev, spu_info_t *info)
{
    if (!dev || !info)
        return SPU_EINVAL;
    *info = dev->info;
    return 0;
}

int spu_sim_time(spu_device *dev, spu_sim_time_t *t)
{
    if (!dev || !t)
        return SPU_EINVAL;
    if (!dev->ops->sim_time)
        return SPU_ENOTSUP;
    return dev->ops->sim_time(dev->impl, t);
}

static int check_range(const spu_device *dev, uint32_t addr, size_t len)
{
    if (addr > dev->info.spad_bytes || len > dev->info.spad_bytes - addr)
        return SPU_ERANGE;
    return 0;
}

int spu_write(spu_device *dev, uint32_t addr, const void *data, size_t len)
{
    if (!dev || (!data && len))
        return SPU_EINVAL;
    int rc = check_range(dev, addr, len);
    return rc ? rc : (len ? dev->ops->write(dev->impl, addr, data, len) : 0);
}

int spu_read(spu_device *dev, uint32_t addr, void *data, size_t len)
{
    if (!dev || (!data && len))
        return SPU_EINVAL;
    int rc = check_range(dev, addr, len);
    return rc ? rc : (len ? dev->ops->read(dev->impl, addr, data, len) : 0);
}

int spu_load_program(spu_device *dev, const spu_program *prog)
{
    if (!dev || !prog || (!prog->words && prog->nwords))
        return SPU_EINVAL;
    if (dev->info.isa_hash != spu_isa_hash())
        return SPU_EISA;   /* microcode of this host's ISA would mean something else there */
    if (prog->nwords > dev->info.ucode_words || prog->entry >= dev->info.ucode_words)
        return SPU_ERANGE;
    int rc = dev->ops->ucode(dev->impl, 0, prog->words, prog->nwords);
    if (rc == 0) {
        dev->entry = prog->entry;
        dev->have_program = 1;
    }
    return rc;
}

int spu_set_watchdog(spu_device *dev, uint32_t cycles)
{
    if (!dev)
        return SPU_EINVAL;
    dev->watchdog = cycles;
    return 0;
}

int spu_run(spu_device *dev, const uint32_t *args, int nargs)
{
    if (dev && dev->info.isa_hash != spu_isa_hash())
        return SPU_EISA;
    if (!dev || nargs < 0 || nargs > SPU_NARGS || (nargs && !args) || !dev->have_program)
        return SPU_EINVAL;
    uint32_t all[SPU_NARGS] = {0};
    for (int i = 0; i < nargs; i++)
        all[i] = args[i];
    int rc = dev->ops->args(dev->impl, all, SPU_NARGS);
    return rc ? rc : dev->ops->run(dev->impl, dev->entry, dev->watchdog);
}

int spu_status(spu_device *dev, spu_status_t *st)
{
    if (!dev || !st)
        return SPU_EINVAL;
    return dev->ops->status(dev->impl, st);
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int spu_wait(spu_device *dev, int timeout_ms, spu_status_t *out)
{
    if (!dev)
        return SPU_EINVAL;
    int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    /* A simulator says when its board is idle without a link exchange: wait
     * for that first, so a run costs one STATUS poll and the link counters
     * of a run do not depend on how fast the host or the simulator is.
     * Whatever it answers, the STATUS poll below decides. */
    if (dev->ops->wait_idle)
        (void)dev->ops->wait_idle(dev->impl, timeout_ms);
    spu_status_t st;
    unsigned nap_us = 50;
    for (;;) {
        int rc = dev->ops->status(dev->impl, &st);
        if (rc)
            return rc;
        if (st.state != SPU_STATE_RUNNING)
            break;
        if (deadline >= 0 && now_ms() >= deadline) {
            if (out)
                *out = st;
            return SPU_ETIMEDOUT;
        }
        struct timespec ts = { 0, (long)nap_us * 1000 };
        nanosleep(&ts, NULL);
        if (nap_us < 5000)
            nap_us *= 2;
    }
    if (out)
        *out = st;
    return st.state == SPU_STATE_TRAPPED ? SPU_ETRAP : 0;
}

int spu_counters(spu_device *dev, spu_counters_t *c)
{
    if (!dev || !c)
        return SPU_EINVAL;
    return dev->ops->counters(dev->impl, c);
}

int spu_reset(spu_device *dev)
{
    if (!dev)
        return SPU_EINVAL;
    return dev->ops->reset(dev->impl);
}

int spu_ping(spu_device *dev)
{
    if (!dev)
        return SPU_EINVAL;
    return dev->ops->ping(dev->impl);
}

int spu_regs(spu_device *dev, uint32_t regs[16])
{
    if (!dev || !regs)
        return SPU_EINVAL;
    return dev->ops->regs ? dev->ops->regs(dev->impl, regs) : SPU_ENOTSUP;
}
