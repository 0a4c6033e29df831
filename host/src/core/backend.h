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
} spu_uri;

/* Parse a device URI. Returns 0 or SPU_EINVAL. */
int spu_uri_parse(const char *uri, spu_uri *out);
/* Look up key in a "k=v&k=v" query; copies the value. 1 found, 0 not. */
int spu_uri_param(const spu_uri *u, const char *key, char *val, size_t cap);

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
    int  (*sim_time)(void *impl, spu_sim_time_t *t); /* NULL: not a simulator */
} spu_backend_ops;

/* Backends linked into libspu (each in its own file). */
extern const spu_backend_ops spu_backend_model;   /* host/src/model/backend_model.c */
extern const spu_backend_ops spu_backend_sim;     /* host/src/link/backend_sim.c    */
extern const spu_backend_ops spu_backend_serial;  /* host/src/link/backend_serial.c */

#endif
