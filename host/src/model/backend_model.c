/*
 * backend_model.c -- device "model[?rows=R&cols=C&spad=BYTES&banks=N&ucode=WORDS
 * &loops=N&lanes=L&formats=F&vector=V&spram=S&chain=C&bus=B&pair=P&overlap=O]": the reference
 * model in process. Runs are executed to completion inside RUN (bounded by
 * the watchdog), so STATUS afterwards reports HALTED or TRAPPED.
 */
#include "core/backend.h"
#include "spu/isa.h"
#include "spu/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int param_u32(const spu_uri *u, const char *key, uint32_t *v)
{
    long x;
    int rc = spu_uri_long(u, key, 0, 0xFFFFFFFFL, &x);
    if (rc > 0)
        *v = (uint32_t)x;
    return rc < 0 ? rc : 0;
}

static int model_open(void **impl, const spu_uri *u)
{
    spu_model_config cfg;
    spu_model_config_default(&cfg);
    if (u->path[0])
        return spu_uri_fail(u, SPU_EINVAL, "model takes no path ('model:%s'); options go after '?'",
                            u->path);
    if (param_u32(u, "rows", &cfg.rows) || param_u32(u, "cols", &cfg.cols) ||
        param_u32(u, "spad", &cfg.spad_bytes) || param_u32(u, "banks", &cfg.spad_banks) ||
        param_u32(u, "ucode", &cfg.ucode_words) || param_u32(u, "loops", &cfg.loop_depth) ||
        param_u32(u, "lanes", &cfg.drain_lanes) || param_u32(u, "formats", &cfg.formats) ||
        param_u32(u, "vector", &cfg.vector) || param_u32(u, "spram", &cfg.spram) ||
        param_u32(u, "bus", &cfg.bus) || param_u32(u, "pair", &cfg.pair) ||
        param_u32(u, "overlap", &cfg.overlap))
        return SPU_EINVAL;
    long chain;                          /* absent: 1, but 0 with spram=1 */
    const int chain_rc = spu_uri_long(u, "chain", 0, 0xFFFFFFFFL, &chain);
    if (chain_rc < 0)
        return chain_rc;
    if (cfg.vector > 1)
        return spu_uri_fail(u, SPU_EINVAL, "model option vector=%u: 0 or 1", cfg.vector);
    if (cfg.bus > 1)
        return spu_uri_fail(u, SPU_EINVAL, "model option bus=%u: 1 (row / column buses) or 0 (systolic)",
                            cfg.bus);
    if (cfg.spram > 1 || (cfg.spram && cfg.vector))
        return spu_uri_fail(u, SPU_EINVAL, "model option spram=%u: 0 or 1, and spram=1 needs vector=0 "
                            "(single-port banks: docs/rtl.md \"Scratchpad in SPRAM\")", cfg.spram);
    cfg.chain = chain_rc > 0 ? (uint32_t)chain : cfg.spram ? 0u : 1u;
    if (cfg.chain > 1 || (cfg.chain && cfg.spram))
        return spu_uri_fail(u, SPU_EINVAL, "model option chain=%u: 0 or 1, and chain=1 needs spram=0 "
                            "(docs/isa.md \"Chained streams\")", cfg.chain);
    if (cfg.pair > 1 || (cfg.pair && (!cfg.spram || !cfg.bus || cfg.chain || cfg.formats != 1u << SPU_DTYPE_INT8)))
        return spu_uri_fail(u, SPU_EINVAL, "model option pair=%u: 0 or 1, and pair=1 needs spram=1, bus=1, "
                            "chain=0 and formats=1 (int8 only; docs/isa.md \"k-step pairs\")", cfg.pair);
    if (cfg.overlap > 1)
        return spu_uri_fail(u, SPU_EINVAL, "model option overlap=%u: 0 or 1 (docs/isa.md \"Overlapped issue\")",
                            cfg.overlap);
    int rc = spu_model_create((spu_model **)impl, &cfg);
    if (rc)
        return spu_uri_fail(u, rc,
                            "model configuration %ux%u, spad %u bytes in %u banks, ucode %u words, "
                            "%u loops, %u lanes is impossible (docs/host-api.md lists the limits)",
                            cfg.rows, cfg.cols, cfg.spad_bytes, cfg.spad_banks, cfg.ucode_words,
                            cfg.loop_depth, cfg.drain_lanes);
    return 0;
}

static void model_close(void *impl) { spu_model_free(impl); }

static int model_info(void *impl, spu_info_t *info)
{
    const spu_model_config *c = spu_model_get_config(impl);
    memset(info, 0, sizeof *info);
    info->rows = c->rows;
    info->cols = c->cols;
    info->word_bytes = c->rows > c->cols ? c->rows : c->cols;
    info->spad_bytes = c->spad_bytes;
    info->spad_banks = c->spad_banks;
    info->ucode_words = c->ucode_words;
    info->formats = c->formats;
    info->isa_hash = spu_isa_hash();
    info->loop_depth = c->loop_depth;
    info->drain_lanes = c->drain_lanes ? c->drain_lanes : c->cols;
    info->features = (c->vector ? SPU_FEATURE_VECTOR : 0) | (c->spram ? SPU_FEATURE_SPRAM : 0) |
                     (c->chain ? SPU_FEATURE_CHAIN : 0) | (c->bus ? SPU_FEATURE_BUS : 0) |
                     (c->pair ? SPU_FEATURE_PAIR : 0) | (c->overlap ? SPU_FEATURE_OVERLAP : 0);
    snprintf(info->device, sizeof info->device, "model");
    return 0;
}

static int model_busy(void *impl)
{
    spu_status_t st;
    spu_model_status(impl, &st);
    return st.state == SPU_STATE_RUNNING;
}

static int model_write(void *impl, uint32_t addr, const void *data, size_t len)
{
    if (model_busy(impl))
        return SPU_EBUSY;
    memcpy(spu_model_spad(impl) + addr, data, len);
    return 0;
}

static int model_read(void *impl, uint32_t addr, void *data, size_t len)
{
    if (model_busy(impl))
        return SPU_EBUSY;
    memcpy(data, spu_model_spad(impl) + addr, len);
    return 0;
}

static int model_ucode(void *impl, uint32_t off, const uint32_t *w, size_t n)
{
    return model_busy(impl) ? SPU_EBUSY : spu_model_load_ucode(impl, off, w, n);
}

static int model_args(void *impl, const uint32_t *args, int n)
{
    return model_busy(impl) ? SPU_EBUSY : spu_model_set_args(impl, args, n);
}

/* A run executes in slices of this many instructions: RUN executes the first
 * slice, each STATUS the next, so a run without a watchdog that never halts
 * looks RUNNING to spu_wait (which times out) instead of hanging inside RUN,
 * and RESET stops it -- as on a board. */
#define MODEL_SLICE (1u << 20)

static void model_advance(void *impl)
{
    for (uint32_t i = 0; i < MODEL_SLICE; i++)
        if (!spu_model_step(impl))
            break;
}

static int model_run(void *impl, uint32_t pc, uint32_t watchdog)
{
    if (model_busy(impl))
        return SPU_EBUSY;
    int rc = spu_model_start(impl, pc, watchdog);
    if (rc == 0)
        model_advance(impl);
    return rc;
}

static int model_status(void *impl, spu_status_t *st)
{
    spu_model_status(impl, st);
    if (st->state == SPU_STATE_RUNNING) {
        model_advance(impl);
        spu_model_status(impl, st);
    }
    return 0;
}

static int model_counters(void *impl, spu_counters_t *c)
{
    spu_model_counters(impl, c);
    return 0;
}

static int model_reset(void *impl)
{
    spu_model_stop(impl);
    return 0;
}

static int model_ping(void *impl)
{
    (void)impl;
    return 0;
}

static int model_regs(void *impl, uint32_t regs[16])
{
    for (int i = 0; i < 16; i++)
        regs[i] = spu_model_reg(impl, i);
    return 0;
}

const spu_backend_ops spu_backend_model = {
    .scheme = "model",
    .open = model_open,
    .close = model_close,
    .info = model_info,
    .write = model_write,
    .read = model_read,
    .ucode = model_ucode,
    .args = model_args,
    .run = model_run,
    .status = model_status,
    .counters = model_counters,
    .reset = model_reset,
    .ping = model_ping,
    .regs = model_regs,
    .keys = (const char *const[]){ "rows", "cols", "spad", "banks", "ucode", "loops", "lanes", "formats", "vector", "spram", "chain", "bus", "pair", "overlap", NULL },
};
