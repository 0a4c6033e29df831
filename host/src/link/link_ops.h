/*
 * link_ops.h -- backend operations shared by the transports that speak the
 * link protocol (serial, sim): each keeps a spu_link as the first member of
 * its impl struct, so these functions take the impl pointer directly.
 */
#ifndef SPU_LINK_OPS_H
#define SPU_LINK_OPS_H

#include "core/backend.h"

int  spu_link_op_info(void *impl, spu_info_t *info);
int  spu_link_op_write(void *impl, uint32_t addr, const void *data, size_t len);
int  spu_link_op_read(void *impl, uint32_t addr, void *data, size_t len);
int  spu_link_op_ucode(void *impl, uint32_t offset, const uint32_t *words, size_t n);
int  spu_link_op_args(void *impl, const uint32_t *args, int nargs);
int  spu_link_op_run(void *impl, uint32_t pc, uint32_t watchdog);
int  spu_link_op_status(void *impl, spu_status_t *st);
int  spu_link_op_counters(void *impl, spu_counters_t *c);
int  spu_link_op_reset(void *impl);
int  spu_link_op_ping(void *impl);
int  spu_link_op_regs(void *impl, uint32_t regs[16]);
int  spu_link_op_stats(void *impl, spu_link_stats_t *st);

/* The members every link-protocol backend shares, for its spu_backend_ops
 * initializer after .scheme/.open/.close/.info. */
#define SPU_LINK_BACKEND_OPS                                                   \
    .write = spu_link_op_write, .read = spu_link_op_read,                      \
    .ucode = spu_link_op_ucode, .args = spu_link_op_args,                      \
    .run = spu_link_op_run, .status = spu_link_op_status,                      \
    .counters = spu_link_op_counters, .reset = spu_link_op_reset,              \
    .ping = spu_link_op_ping, .regs = spu_link_op_regs,                       \
    .stats = spu_link_op_stats

#endif
