/*
 * compare.c -- end-state comparison of two devices (spu/compare.h).
 */
#include "spu/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int spu_compare_devices(spu_device *a, spu_device *b, uint32_t spad_addr, uint32_t spad_len,
                        char *what, size_t cap)
{
    spu_info_t ia, ib;
    int rc;
    if (!a || !b || !what || !cap)
        return SPU_EINVAL;
    what[0] = 0;
    if ((rc = spu_info(a, &ia)) || (rc = spu_info(b, &ib)))
        return rc;
    /* banks may differ: that changes timing, which is worth comparing */
    if (ia.rows != ib.rows || ia.cols != ib.cols || ia.spad_bytes != ib.spad_bytes) {
        snprintf(what, cap, "geometry: %s %ux%u/%u B, %s %ux%u/%u B", ia.device, ia.rows, ia.cols,
                 ia.spad_bytes, ib.device, ib.rows, ib.cols, ib.spad_bytes);
        return SPU_EINVAL;
    }
    spu_status_t sa, sb;
    if ((rc = spu_status(a, &sa)) || (rc = spu_status(b, &sb)))
        return rc;
    if (sa.state != sb.state || sa.trap != sb.trap || sa.pc != sb.pc) {
        snprintf(what, cap, "status: %s %s/%s pc %u, %s %s/%s pc %u", ia.device,
                 spu_state_name(sa.state), spu_trap_name(sa.trap), sa.pc, ib.device,
                 spu_state_name(sb.state), spu_trap_name(sb.trap), sb.pc);
        return SPU_EMISMATCH;
    }
    spu_counters_t ca, cb;
    if ((rc = spu_counters(a, &ca)) || (rc = spu_counters(b, &cb)))
        return rc;
    for (int i = 0; i < SPU_CNT_COUNT; i++) {
        if (i == SPU_CNT_LINK_RX || i == SPU_CNT_LINK_TX)
            continue;
        /* docs/isa.md: the cycle count of a trapped run is not part of the
           timing contract (the RTL may count the faulting instruction) */
        if (i == SPU_CNT_CYCLES && sa.state == SPU_STATE_TRAPPED)
            continue;
        if (ca.v[i] != cb.v[i]) {
            snprintf(what, cap, "counter %s: %s %llu, %s %llu", spu_counter_name(i), ia.device,
                     (unsigned long long)ca.v[i], ib.device, (unsigned long long)cb.v[i]);
            return SPU_EMISMATCH;
        }
    }
    uint32_t ra[16], rb[16];
    int ha = spu_regs(a, ra), hb = spu_regs(b, rb);
    if (ha == 0 && hb == 0) {
        for (int i = 0; i < 16; i++)
            if (ra[i] != rb[i]) {
                snprintf(what, cap, "register r%d: %s 0x%08x, %s 0x%08x", i, ia.device, ra[i],
                         ib.device, rb[i]);
                return SPU_EMISMATCH;
            }
    } else if (ha != SPU_ENOTSUP && ha) {
        return ha;
    } else if (hb != SPU_ENOTSUP && hb) {
        return hb;
    }
    const size_t chunk = 16384;
    uint8_t *ba = malloc(chunk), *bb = malloc(chunk);
    if (!ba || !bb) {
        free(ba);
        free(bb);
        return SPU_ENOMEM;
    }
    rc = 0;
    uint64_t end = (uint64_t)spad_addr + spad_len;
    if (end > ia.spad_bytes)
        end = ia.spad_bytes;
    for (uint64_t off = spad_addr; off < end && !rc; off += chunk) {
        size_t n = end - off < chunk ? (size_t)(end - off) : chunk;
        if ((rc = spu_read(a, (uint32_t)off, ba, n)) || (rc = spu_read(b, (uint32_t)off, bb, n)))
            break;
        for (size_t i = 0; i < n; i++)
            if (ba[i] != bb[i]) {
                snprintf(what, cap, "scratchpad byte 0x%05llx: %s 0x%02x, %s 0x%02x",
                         (unsigned long long)(off + i),
                         ia.device, ba[i], ib.device, bb[i]);
                rc = SPU_EMISMATCH;
                break;
            }
    }
    free(ba);
    free(bb);
    return rc;
}
