/*
 * backend.h -- the one small interface every device kind implements
 * (private to libspu). spu_open() parses the URI and picks a backend by
 * scheme; the public functions in device.c validate arguments and then
 * call through this table. Backends never see NULL handles or bad lengths
 * for their own memory (device.c checks against spu_info first).
 */
#ifndef SPU_BACKEND_H
#define SPU_BACKEND_H

#include "spu/spu.h"

typedef struct spu_uri {
    char scheme[16];     /* "model", "sim", "serial", "ftdi", "usb" */
    char path[256];      /* after "scheme:" / "scheme://", before '?' */
    char query[256];     /* after '?', raw "k=v&k=v" */
    char *msg;           /* where a failure is explained (spu_uri_fail), or NULL */
    size_t msg_cap;
} spu_uri;

/* Parse a device URI. Returns 0 or SPU_EINVAL. The _msg form also keeps msg
 * (cap bytes, may be NULL) in out for the explanations of spu_uri_fail. */
int spu_uri_parse(const char *uri, spu_uri *out);
int spu_uri_parse_msg(const char *uri, spu_uri *out, char *msg, size_t cap);
/* Look up key in a "k=v&k=v" query; copies the value. 1 found, 0 not
 * (also 0 when the value does not fit cap). */
int spu_uri_param(const spu_uri *u, const char *key, char *val, size_t cap);
/* Explain a failed open in u->msg (printf-style); returns rc. */
int spu_uri_fail(const spu_uri *u, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A decimal integer parameter in [min, max]: 1 and *out when present, 0 when
 * absent, SPU_EINVAL (explained) when it is not such a number. */
int spu_uri_long(const spu_uri *u, const char *key, long min, long max, long *out);

typedef struct spu_backend_ops {
    const char *scheme;
    int  (*open)(void **impl, const spu_uri *uri);
    void (*close)(void *impl);
    int  (*info)(void *impl, spu_info_t *info);
    int  (*write)(void *impl, uint32_t addr, const void *data, size_t len);
    int  (*read)(void *impl, uint32_t addr, void *data, size_t len);
    int  (*ucode)(void *impl, uint32_t offset, const uint32_t *words, size_t n);
    int  (*args)(void *impl, const uint32_t *args, int nargs);
    int  (*run)(void *impl, uint32_t pc, uint32_t watchdog);
    int  (*status)(void *impl, spu_status_t *st);
    int  (*counters)(void *impl, spu_counters_t *c);
    int  (*reset)(void *impl);
    int  (*ping)(void *impl);
    int  (*regs)(void *impl, uint32_t regs[16]);   /* NULL: not supported */
    /* Optional (NULL: none / not checked). */
    int  (*stats)(void *impl, spu_link_stats_t *st);
    const char *const *keys;   /* every URI key open() understands, NULL-terminated;
                                  spu_open refuses any other key by name */
    int  (*sim_time)(void *impl, spu_sim_time_t *t); /* NULL: not a simulator */
    /* Block until the device has nothing left to do (a run finished or
     * trapped, the link quiet), up to timeout_ms (< 0: no limit), without
     * link traffic. 0 idle, SPU_ETIMEDOUT, SPU_ENOTSUP. NULL: the device
     * cannot tell, spu_wait polls STATUS alone. */
    int  (*wait_idle)(void *impl, int timeout_ms);
} spu_backend_ops;

/* Backends linked into libspu (each in its own file). */
extern const spu_backend_ops spu_backend_model;   /* host/src/model/backend_model.c */
extern const spu_backend_ops spu_backend_sim;     /* host/src/link/backend_sim.c    */
extern const spu_backend_ops spu_backend_serial;  /* host/src/link/backend_serial.c */
extern const spu_backend_ops spu_backend_ftdi;    /* host/src/link/backend_ftdi.c   */
extern const spu_backend_ops spu_backend_usb;     /* host/src/link/backend_usb.c    */

#endif
