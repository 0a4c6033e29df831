/*
 * perf_hw.c -- hardware files of the performance model (docs/perf-model.md):
 * defaults, from INFO, JSON load/save with cJSON, peak lookup, and the git
 * commit the build was made from.
 */
#include "spu/perf.h"
#include "perf_internal.h"
#include "spu_git_commit.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *spu_perf_git_commit(void) { return SPU_GIT_COMMIT; }

static void set_str(char *dst, size_t cap, const char *s)
{
    snprintf(dst, cap, "%s", s ? s : "");
}

static void set_peak(spu_perf_hw *hw, const char *fmt, double v)
{
    for (int i = 0; i < hw->npeaks; i++)
        if (!strcmp(hw->peak_fmt[i], fmt)) {
            hw->peak_ops[i] = v;
            return;
        }
    if (hw->npeaks < SPU_PERF_MAX_PEAKS) {
        set_str(hw->peak_fmt[hw->npeaks], sizeof hw->peak_fmt[0], fmt);
        hw->peak_ops[hw->npeaks++] = v;
    }
}

static void defaults(spu_perf_hw *hw)
{
    memset(hw, 0, sizeof *hw);
    set_str(hw->name, sizeof hw->name, "sim");
    set_str(hw->kind, sizeof hw->kind, "spu");
    set_str(hw->source, sizeof hw->source, "defaults: docs/isa.md default geometry, 3 Mbaud UART");
    hw->rows = hw->cols = hw->word_bytes = 8;
    hw->spad_bytes = 262144;
    hw->spad_banks = 4;
    hw->ucode_words = 1024;
    hw->drain_lanes = 8;
    hw->chain = 1;
    hw->bus = 1;
    hw->idle_flag = 1;
    hw->clock_hz = 12e6;
    hw->wall_clock_hz = 12e6;
    hw->link_bytes_per_s = 3e6 / 10;
}

static void derive(spu_perf_hw *hw)
{
    if (strcmp(hw->kind, "spu"))
        return;
    if (hw->npeaks == 0)   /* k-step pairs: two k-steps a cycle at best */
        set_peak(hw, "int8", (hw->pair ? 4.0 : 2.0) * hw->rows * hw->cols * hw->clock_hz);
    if (hw->mem_bytes_per_s <= 0)
        hw->mem_bytes_per_s = hw->link_bytes_per_s;
}

void spu_perf_hw_default(spu_perf_hw *hw)
{
    defaults(hw);
    derive(hw);
}

void spu_perf_hw_from_info(spu_perf_hw *hw, const spu_info_t *in)
{
    defaults(hw);
    set_str(hw->name, sizeof hw->name, in->device);
    set_str(hw->source, sizeof hw->source, "INFO of the device; link: 3 Mbaud UART defaults");
    hw->rows = in->rows;
    hw->cols = in->cols;
    hw->word_bytes = in->word_bytes;
    hw->spad_bytes = in->spad_bytes;
    hw->spad_banks = in->spad_banks;
    hw->ucode_words = in->ucode_words;
    hw->drain_lanes = in->drain_lanes ? in->drain_lanes : in->cols;
    hw->spram = (in->features & SPU_FEATURE_SPRAM) ? 1 : 0;
    hw->chain = (in->features & SPU_FEATURE_CHAIN) ? 1 : 0;
    hw->bus = (in->features & SPU_FEATURE_BUS) ? 1 : 0;
    hw->pair = (in->features & SPU_FEATURE_PAIR) ? 1 : 0;
    hw->overlap = (in->features & SPU_FEATURE_OVERLAP) ? 1 : 0;
    hw->idle_flag = !strcmp(in->device, "sim");   /* the simulators' stats page (docs/sim.md) */
    hw->clock_hz = in->clock_hz ? in->clock_hz : 12e6;
    hw->wall_clock_hz = hw->clock_hz;
    if (in->link_baud) {   /* a UART the device reports: 8N1, 10 bit times a byte */
        hw->link_bytes_per_s = in->link_baud / 10.0;
        set_str(hw->source, sizeof hw->source, "INFO of the device (clock, UART baud)");
    }
    if (!strcmp(in->device, "model")) {   /* in process: no link */
        hw->link_bytes_per_s = 0;
        set_str(hw->source, sizeof hw->source, "INFO of the in-process model (no link)");
    }
    derive(hw);
}

void spu_perf_hw_to_info(const spu_perf_hw *hw, spu_info_t *in)
{
    memset(in, 0, sizeof *in);
    in->rows = hw->rows;
    in->cols = hw->cols;
    in->word_bytes = hw->word_bytes;
    in->spad_bytes = hw->spad_bytes;
    in->spad_banks = hw->spad_banks;
    in->ucode_words = hw->ucode_words;
    in->drain_lanes = hw->drain_lanes;
    in->features = (hw->spram ? SPU_FEATURE_SPRAM : 0) | (hw->chain ? SPU_FEATURE_CHAIN : 0) |
                   (hw->bus ? SPU_FEATURE_BUS : 0) | (hw->pair ? SPU_FEATURE_PAIR : 0) |
                   (hw->overlap ? SPU_FEATURE_OVERLAP : 0);
    in->clock_hz = (uint32_t)hw->clock_hz;
    in->formats = 1;
    set_str(in->device, sizeof in->device, hw->name);
}

double spu_perf_hw_peak(const spu_perf_hw *hw, const char *fmt)
{
    for (int i = 0; i < hw->npeaks; i++)
        if (!strcmp(hw->peak_fmt[i], fmt))
            return hw->peak_ops[i];
    return 0;
}



int spu_perf_hw_load(spu_perf_hw *hw, const char *path, char *err, size_t errlen)
{
    defaults(hw);
    hw->npeaks = 0;
    char *txt = spu_perf_read_text(path, 1 << 20);
    if (!txt)
        return spu_perf_fail(err, errlen, "cannot read hardware file '%s'", path);
    cJSON *root = cJSON_Parse(txt);
    free(txt);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return spu_perf_fail(err, errlen, "%s: not a JSON object", path);
    }
    int rc = 0;
    static const struct { const char *key; size_t off; } strs[] = {
        { "name", offsetof(spu_perf_hw, name) }, { "kind", offsetof(spu_perf_hw, kind) },
        { "source", offsetof(spu_perf_hw, source) },
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0] && !rc; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(root, strs[i].key);
        if (!v)
            continue;
        if (!cJSON_IsString(v))
            rc = spu_perf_fail(err, errlen, "%s: \"%s\" must be a string", path, strs[i].key);
        else
            set_str((char *)hw + strs[i].off, i == 1 ? sizeof hw->kind : i == 0 ? sizeof hw->name : sizeof hw->source,
                    v->valuestring);
    }
    static const struct { const char *key; size_t off; } u32s[] = {
        { "rows", offsetof(spu_perf_hw, rows) },           { "cols", offsetof(spu_perf_hw, cols) },
        { "word_bytes", offsetof(spu_perf_hw, word_bytes) }, { "spad_bytes", offsetof(spu_perf_hw, spad_bytes) },
        { "spad_banks", offsetof(spu_perf_hw, spad_banks) }, { "ucode_words", offsetof(spu_perf_hw, ucode_words) },
        { "drain_lanes", offsetof(spu_perf_hw, drain_lanes) },
    };
    int have_wb = 0, have_lanes = 0;
    for (size_t i = 0; i < sizeof u32s / sizeof u32s[0] && !rc; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(root, u32s[i].key);
        if (!v)
            continue;
        if (!cJSON_IsNumber(v) || v->valuedouble < 1 || v->valuedouble > 4294967295.0 ||
            v->valuedouble != floor(v->valuedouble))
            rc = spu_perf_fail(err, errlen, "%s: \"%s\" must be a positive integer", path, u32s[i].key);
        else
            *(uint32_t *)((char *)hw + u32s[i].off) = (uint32_t)v->valuedouble;
        have_wb |= i == 2 && v;
        have_lanes |= i == 6 && v;
    }
    /* the INFO features the timing follows (0 or 1; absent: the defaults') */
    static const struct { const char *key; size_t off; } flags[] = {
        { "spram", offsetof(spu_perf_hw, spram) }, { "chain", offsetof(spu_perf_hw, chain) },
        { "bus", offsetof(spu_perf_hw, bus) }, { "pair", offsetof(spu_perf_hw, pair) },
        { "overlap", offsetof(spu_perf_hw, overlap) }, { "idle_flag", offsetof(spu_perf_hw, idle_flag) },
    };
    for (size_t i = 0; i < sizeof flags / sizeof flags[0] && !rc; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(root, flags[i].key);
        if (!v)
            continue;
        if (!cJSON_IsNumber(v) || (v->valuedouble != 0 && v->valuedouble != 1))
            rc = spu_perf_fail(err, errlen, "%s: \"%s\" must be 0 or 1", path, flags[i].key);
        else
            *(uint32_t *)((char *)hw + flags[i].off) = (uint32_t)v->valuedouble;
    }
    static const struct { const char *key; size_t off; } dbls[] = {
        { "clock_hz", offsetof(spu_perf_hw, clock_hz) },
        { "wall_clock_hz", offsetof(spu_perf_hw, wall_clock_hz) },
        { "link_bytes_per_s", offsetof(spu_perf_hw, link_bytes_per_s) },
        { "frame_overhead_s", offsetof(spu_perf_hw, frame_overhead_s) },
        { "txn_latency_s", offsetof(spu_perf_hw, txn_latency_s) },
        { "turnaround_s", offsetof(spu_perf_hw, turnaround_s) },
        { "host_s_per_piece", offsetof(spu_perf_hw, host_s_per_piece) },
        { "host_s_per_call", offsetof(spu_perf_hw, host_s_per_call) },
        { "mem_bytes_per_s", offsetof(spu_perf_hw, mem_bytes_per_s) },
    };
    int have_wall = 0;
    for (size_t i = 0; i < sizeof dbls / sizeof dbls[0] && !rc; i++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(root, dbls[i].key);
        if (!v)
            continue;
        if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || !isfinite(v->valuedouble))
            rc = spu_perf_fail(err, errlen, "%s: \"%s\" must be a number >= 0", path, dbls[i].key);
        else
            *(double *)((char *)hw + dbls[i].off) = v->valuedouble;
        have_wall |= i == 1;
    }
    cJSON *pk = cJSON_GetObjectItemCaseSensitive(root, "peak_ops_per_s");
    if (!rc && pk) {
        if (!cJSON_IsObject(pk))
            rc = spu_perf_fail(err, errlen, "%s: \"peak_ops_per_s\" must be an object {format: ops/s}", path);
        cJSON *e;
        cJSON_ArrayForEach(e, pk) {
            if (rc)
                break;
            if (!cJSON_IsNumber(e) || !(e->valuedouble > 0))
                rc = spu_perf_fail(err, errlen, "%s: peak_ops_per_s.%s must be a number > 0", path, e->string);
            else
                set_peak(hw, e->string, e->valuedouble);
        }
    }
    cJSON_Delete(root);
    if (rc)
        return rc;
    if (!strcmp(hw->kind, "spu")) {
        if (!have_wb)
            hw->word_bytes = hw->rows > hw->cols ? hw->rows : hw->cols;
        if (!have_lanes)
            hw->drain_lanes = hw->cols;
        if (!have_wall)
            hw->wall_clock_hz = hw->clock_hz;
        if (hw->word_bytes != (hw->rows > hw->cols ? hw->rows : hw->cols) ||
            hw->spad_bytes % hw->spad_banks || hw->cols % hw->drain_lanes || hw->rows > 64 ||
            hw->cols > 64)
            return spu_perf_fail(err, errlen, "%s: impossible geometry (word_bytes = max(rows, cols) <= 64, "
                        "spad_bytes a multiple of spad_banks, drain_lanes dividing cols)", path);
        if (!(hw->clock_hz > 0))
            return spu_perf_fail(err, errlen, "%s: clock_hz must be > 0", path);
        if (hw->chain && hw->spram)
            return spu_perf_fail(err, errlen, "%s: chain = 1 needs spram = 0 (docs/isa.md \"Chained streams\")", path);
        if (hw->pair && (!hw->spram || !hw->bus || hw->chain))
            return spu_perf_fail(err, errlen, "%s: pair = 1 needs spram = 1, bus = 1 and chain = 0 "
                                 "(docs/isa.md \"k-step pairs\")", path);
        derive(hw);
    } else if (!strcmp(hw->kind, "roofline")) {
        if (hw->npeaks == 0 || !(hw->mem_bytes_per_s > 0))
            return spu_perf_fail(err, errlen, "%s: a roofline hardware file needs peak_ops_per_s and mem_bytes_per_s", path);
    } else {
        return spu_perf_fail(err, errlen, "%s: kind must be \"spu\" or \"roofline\", got \"%s\"", path, hw->kind);
    }
    return 0;
}

int spu_perf_hw_save(const spu_perf_hw *hw, const char *path, const char *extra_json)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", hw->name);
    cJSON_AddStringToObject(o, "kind", hw->kind);
    cJSON_AddStringToObject(o, "source", hw->source);
    if (!strcmp(hw->kind, "spu")) {
        cJSON_AddNumberToObject(o, "rows", hw->rows);
        cJSON_AddNumberToObject(o, "cols", hw->cols);
        cJSON_AddNumberToObject(o, "word_bytes", hw->word_bytes);
        cJSON_AddNumberToObject(o, "spad_bytes", hw->spad_bytes);
        cJSON_AddNumberToObject(o, "spad_banks", hw->spad_banks);
        cJSON_AddNumberToObject(o, "ucode_words", hw->ucode_words);
        cJSON_AddNumberToObject(o, "drain_lanes", hw->drain_lanes);
        cJSON_AddNumberToObject(o, "spram", hw->spram);
        cJSON_AddNumberToObject(o, "chain", hw->chain);
        cJSON_AddNumberToObject(o, "bus", hw->bus);
        cJSON_AddNumberToObject(o, "pair", hw->pair);
        cJSON_AddNumberToObject(o, "overlap", hw->overlap);
        cJSON_AddNumberToObject(o, "idle_flag", hw->idle_flag);
        cJSON_AddNumberToObject(o, "clock_hz", hw->clock_hz);
        cJSON_AddNumberToObject(o, "wall_clock_hz", hw->wall_clock_hz);
        cJSON_AddNumberToObject(o, "link_bytes_per_s", hw->link_bytes_per_s);
        cJSON_AddNumberToObject(o, "frame_overhead_s", hw->frame_overhead_s);
        cJSON_AddNumberToObject(o, "txn_latency_s", hw->txn_latency_s);
        cJSON_AddNumberToObject(o, "turnaround_s", hw->turnaround_s);
        cJSON_AddNumberToObject(o, "host_s_per_piece", hw->host_s_per_piece);
        cJSON_AddNumberToObject(o, "host_s_per_call", hw->host_s_per_call);
    }
    cJSON *pk = cJSON_AddObjectToObject(o, "peak_ops_per_s");
    for (int i = 0; i < hw->npeaks; i++)
        cJSON_AddNumberToObject(pk, hw->peak_fmt[i], hw->peak_ops[i]);
    cJSON_AddNumberToObject(o, "mem_bytes_per_s", hw->mem_bytes_per_s);
    if (extra_json) {
        cJSON *x = cJSON_Parse(extra_json);
        if (cJSON_IsObject(x)) {
            while (x->child) {
                cJSON *it = cJSON_DetachItemViaPointer(x, x->child);
                cJSON_DeleteItemFromObjectCaseSensitive(o, it->string);
                cJSON_AddItemToObject(o, it->string, it);
            }
        }
        cJSON_Delete(x);
    }
    char *txt = cJSON_Print(o);
    cJSON_Delete(o);
    if (!txt)
        return SPU_ENOMEM;
    FILE *f = fopen(path, "w");
    int rc = f ? 0 : SPU_EIO;
    if (f) {
        if (fputs(txt, f) < 0 || fputc('\n', f) < 0)
            rc = SPU_EIO;
        if (fclose(f))
            rc = SPU_EIO;
    }
    free(txt);
    return rc;
}
