/*
 * spu.h -- libspu, the host library of the SPU.
 *
 * One API for every device (see docs/host-api.md):
 *   "model"                      in-process C reference model (golden)
 *   "sim[?rows=R&cols=C]"        Verilated RTL spawned as spu-sim behind a pty
 *   "serial:/dev/ttyUSB1?baud=N" a board behind a kernel tty
 *   "ftdi://VID:PID/IFACE", "usb://VID:PID"  a board through libftdi1/libusb
 *
 * Conventions: no global state; every function returns 0 or a negative
 * SPU_E* code (spu_strerror() / spu_error_name() describe it); the caller
 * owns every buffer it passes; objects returned through a pointer-to-pointer
 * are freed with their matching *_free/close function, which accepts NULL.
 */
#ifndef SPU_SPU_H
#define SPU_SPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPU_VERSION_MAJOR 0
#define SPU_VERSION_MINOR 1
#define SPU_VERSION_PATCH 0
#define SPU_VERSION_NUMBER (SPU_VERSION_MAJOR * 10000 + SPU_VERSION_MINOR * 100 + SPU_VERSION_PATCH)

/* Run-time library version, "MAJOR.MINOR.PATCH". */
const char *spu_version(void);

/* ---- errors -------------------------------------------------------------- */
/* SPU_ERROR(NAME, value, message) -- one table, see host/src/core/error.c */
#define SPU_ERRORS(X)                                                          \
    X(OK,            0, "success")                                             \
    X(EINVAL,       -1, "invalid argument")                                    \
    X(ENOMEM,       -2, "out of memory")                                       \
    X(EIO,          -3, "input/output error on the link")                      \
    X(ETIMEDOUT,    -4, "device did not answer in time")                       \
    X(EPROTO,       -5, "malformed or unexpected reply from the device")       \
    X(ENOTSUP,      -6, "not available yet for this device or build")          \
    X(ENODEV,       -7, "device not found or could not be opened")             \
    X(ERANGE,       -8, "address or length outside the device's memory")       \
    X(EBUSY,        -9, "device is running a program")                         \
    X(ETRAP,       -10, "device program trapped")                              \
    X(EFORMAT,     -11, "malformed file or unsupported format")                \
    X(EPARSE,      -12, "syntax error")                                        \
    X(EMISMATCH,   -13, "results differ")                                      \
    X(EDEVICE,     -14, "device reported an error status")                  \
    X(EISA,        -15, "device ISA differs from this host's (ISA hash mismatch)")

enum spu_error {
#define SPU_X_(name, value, msg) SPU_##name = (value),
    SPU_ERRORS(SPU_X_)
#undef SPU_X_
};

/* Human-readable message for an error code (never NULL). */
const char *spu_strerror(int err);
/* Stable identifier for logs, e.g. "SPU_ETIMEDOUT" (never NULL). */
const char *spu_error_name(int err);
/* One line on the last failure of spu_open() in this thread: what was looked
 * for and the usual causes (e.g. "no FTDI device 0403:6010 ..."); "" if none. */
const char *spu_error_detail(void);

/* ---- tables shared with the hardware (hw/isa/ tables) ---------------------- */
enum spu_trap {
#define SPU_TRAP(name, code, summary) SPU_TRAP_##name = (code),
#include "spu_traps.def"
#undef SPU_TRAP
    SPU_TRAP_COUNT_
};
enum spu_state {
#define SPU_STATE(name, code) SPU_STATE_##name = (code),
#include "spu_link.def"
#undef SPU_STATE
    SPU_STATE_COUNT_
};
enum spu_counter_id {
#define SPU_COUNTER(name, id, key, summary) SPU_CNT_##name = (id),
#include "spu_counters.def"
#undef SPU_COUNTER
    SPU_CNT_COUNT
};

const char *spu_trap_name(int trap);        /* "illegal", ... ("?" if unknown) */
const char *spu_state_name(int state);      /* "idle", "running", ...          */
const char *spu_counter_name(int id);       /* key from spu_counters.def       */

/* ---- device ---------------------------------------------------------------- */
typedef struct spu_device spu_device;

#define SPU_FEATURE_VECTOR 0x1u  /* spu_info_t.features: the vector unit (docs/isa.md) */
#define SPU_FEATURE_SPRAM  0x2u  /* single-port scratchpad banks (UP5K SPRAM): an mm
                                    waits for the drain's writes (docs/isa.md) */
#define SPU_FEATURE_CHAIN  0x4u  /* chained streams: back-to-back mm, an st / zacc token
                                    travels with the next mm's first step (docs/isa.md) */
#define SPU_FEATURE_BUS    0x8u  /* array operands on row / column buses: no skew, every
                                    tile gets a step's products 2 cycles after the read
                                    (docs/isa.md "Tensor unit") */
#define SPU_FEATURE_PAIR   0x10u /* k-step pairs: two k-steps of an mm in one cycle when
                                    both strides are one word, the step's A and B are
                                    even words in different banks and two or more steps
                                    are left; their products land 3 cycles after the
                                    read (docs/isa.md "k-step pairs") */
#define SPU_FEATURE_OVERLAP 0x20u /* overlapped issue: an instruction's FETCH shares the
                                    last EXEC cycle of the one before it (1 cycle + waits
                                    an instruction) except after a branch, jmp, loop,
                                    cfg or stride, before a cnt, and when it names a
                                    register the one before writes (docs/isa.md
                                    "Overlapped issue") */
#define SPU_NARGS 8          /* kernel argument registers r1..r8 */

typedef struct spu_info {
    uint32_t rows, cols;         /* tile array geometry                     */
    uint32_t word_bytes;         /* scratchpad word = max(rows, cols) bytes */
    uint32_t spad_bytes;         /* scratchpad size                         */
    uint32_t spad_banks;         /* banks (bank = addr / (spad/banks))       */
    uint32_t ucode_words;        /* microcode store size                    */
    uint32_t formats;            /* bit d set: dtype code d usable as cfg in */
    uint32_t isa_hash;           /* hash of spu_isa.def (must match host)   */
    uint32_t rtl_version;        /* 0 for the model                         */
    uint32_t clock_hz;           /* device clock (0 if not meaningful)      */
    uint32_t loop_depth;         /* nested hardware loops                   */
    uint32_t drain_lanes;        /* accumulators st drains per cycle        */
    uint32_t link_baud;          /* UART rate the device is built for (0: none) */
    uint32_t features;           /* SPU_FEATURE_* bits (0 from older devices) */
    char     device[64];         /* "model", "sim", "serial:..."            */
} spu_info_t;

typedef struct spu_status {
    int      state;              /* enum spu_state */
    int      trap;               /* enum spu_trap  */
    uint32_t pc;                 /* halt/trap pc   */
    uint64_t cycles;             /* CYCLES counter */
} spu_status_t;

typedef struct spu_counters {
    uint64_t v[SPU_CNT_COUNT];   /* indexed by enum spu_counter_id */
} spu_counters_t;

typedef struct spu_program {
    const uint32_t *words;       /* microcode, loaded at word 0 */
    size_t          nwords;
    uint32_t        entry;       /* pc where spu_run starts     */
} spu_program;

/* ---- discovery ------------------------------------------------------------ */
/* What could be a board on this machine: FTDI chips (one entry per UART
 * channel), vendor-class USB interfaces with a bulk IN/OUT pair, and serial
 * ports (/dev/ttyUSB*, /dev/ttyACM*). uri is ready for spu_open(). */
typedef struct spu_device_entry {
    char uri[96];       /* "ftdi://0403:6010/B", "usb://1209:0001", "serial:/dev/ttyUSB1" */
    char kind[16];      /* "ftdi", "usb", "serial" */
    char desc[160];     /* manufacturer / product / serial, bus-port, or why it cannot be opened */
} spu_device_entry;
/* Fills up to cap entries; returns how many were found (may exceed cap) or a
 * negative SPU_E* code. USB devices that cannot be opened (permissions) are
 * still listed, with the reason in desc. */
int spu_list_devices(spu_device_entry *out, int cap);


/* Open a device by URI (table above). *dev is set on success.
 * Returns SPU_ENOTSUP for a known scheme this build cannot reach yet,
 * SPU_EINVAL for a malformed URI. */
int  spu_open(spu_device **dev, const char *uri);
/* Geometry and capabilities of the device. */
int  spu_info(spu_device *dev, spu_info_t *info);
/* Simulated time of a simulator device ("sim", "sim?board=..."): the clock
 * cycles the simulated board has run since its reset, link bytes included
 * (the clock stops while the board waits for the host), read through a side
 * channel that is not the link protocol (docs/sim.md). Waits until the board
 * is idle. SPU_ENOTSUP for any other device. */
typedef struct spu_sim_time {
    uint64_t cycles;             /* simulated clock cycles since reset      */
    uint64_t bytes_in, bytes_out;/* link bytes through the PHY, each way    */
    uint32_t clock_hz;           /* the clock the configuration is built for */
    uint32_t clks_per_bit;       /* UART clocks per bit (0: byte port)      */
    double   seconds;            /* cycles / clock_hz                       */
    uint64_t core_cycles;        /* of cycles, those that clocked the core's
                                    units (the 8x8 sim rests them while only
                                    the link works: docs/rtl.md "Core clock
                                    gate in simulation"; = cycles elsewhere) */
} spu_sim_time_t;
int  spu_sim_time(spu_device *dev, spu_sim_time_t *t);
/* Copy len bytes into / out of the scratchpad. SPU_ERANGE if outside. */
int  spu_write(spu_device *dev, uint32_t addr, const void *data, size_t len);
int  spu_read(spu_device *dev, uint32_t addr, void *data, size_t len);
/* Load a microcode program (copied; the caller keeps ownership).
 * SPU_EISA (nothing sent) when the device's ISA hash is not this host's. */
int  spu_load_program(spu_device *dev, const spu_program *prog);
/* Set r1..r{nargs} (nargs <= SPU_NARGS) and start at the program entry.
 * The watchdog budget is set with spu_set_watchdog (0 = none). SPU_EISA
 * (nothing sent) when the device's ISA hash is not this host's. */
int  spu_run(spu_device *dev, const uint32_t *args, int nargs);
/* Wait until the program halts or traps (timeout_ms < 0: forever).
 * Fills *st if non-NULL. Returns SPU_ETIMEDOUT, SPU_ETRAP on a trap. */
int  spu_wait(spu_device *dev, int timeout_ms, spu_status_t *st);
/* Current status without waiting. */
int  spu_status(spu_device *dev, spu_status_t *st);
/* Read all performance counters. */
int  spu_counters(spu_device *dev, spu_counters_t *c);
/* Cycle budget for following runs: a run longer than this traps WATCHDOG. */
int  spu_set_watchdog(spu_device *dev, uint32_t cycles);
/* Stop any run and return the device to IDLE (memory contents kept). */
int  spu_reset(spu_device *dev);
/* Read the 16 scalar registers r0..r15 (after a run). SPU_ENOTSUP where
 * the device cannot. */
int  spu_regs(spu_device *dev, uint32_t regs[16]);
/* Liveness check: one round trip. */
int  spu_ping(spu_device *dev);

/* Like spu_open; on failure also writes a one-line reason (which key,
 * which value, what was expected) into msg (cap bytes, may be NULL). */
int  spu_open_ex(spu_device **dev, const char *uri, char *msg, size_t cap);

/* Link health since open (all zero for devices without a link, e.g. model). */
typedef struct spu_link_stats {
    uint64_t requests;           /* link requests made                       */
    uint64_t retries;            /* frames sent again (timeout, bad reply)   */
    uint64_t bad_frames;         /* replies dropped: CRC, length, stale seq  */
    uint64_t timeouts;           /* attempts that got no reply in time       */
    size_t   chunk;              /* current WRITE/READ bytes per frame       */
} spu_link_stats_t;
int  spu_link_stats(spu_device *dev, spu_link_stats_t *st);
/* Close the device (shuts down a spawned simulator). Accepts NULL. */
void spu_close(spu_device *dev);

#ifdef __cplusplus
}
#endif
#endif /* SPU_SPU_H */
