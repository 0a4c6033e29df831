/*
 * link_ops.c -- backend vtable entries over a spu_link (link_ops.h).
 * The impl of every link transport starts with its spu_link.
 */
#include "link/link_ops.h"
#include "link/link_client.h"

#include <stdio.h>

int spu_link_op_info(void *impl, spu_info_t *info)
{
    return spu_link_info(impl, info);
}
int spu_link_op_write(void *impl, uint32_t addr, const void *data, size_t len)
{
    return spu_link_write(impl, addr, data, len);
}
int spu_link_op_read(void *impl, uint32_t addr, void *data, size_t len)
{
    return spu_link_read(impl, addr, data, len);
}
int spu_link_op_ucode(void *impl, uint32_t offset, const uint32_t *words, size_t n)
{
    return spu_link_ucode(impl, offset, words, n);
}
int spu_link_op_args(void *impl, const uint32_t *args, int nargs)
{
    return spu_link_args(impl, args, nargs);
}
int spu_link_op_run(void *impl, uint32_t pc, uint32_t watchdog)
{
    return spu_link_run(impl, pc, watchdog);
}
int spu_link_op_status(void *impl, spu_status_t *st)
{
    return spu_link_status(impl, st);
}
int spu_link_op_counters(void *impl, spu_counters_t *c)
{
    return spu_link_counters(impl, c);
}
int spu_link_op_reset(void *impl)
{
    return spu_link_reset(impl);
}
int spu_link_op_regs(void *impl, uint32_t regs[16])
{
    return spu_link_regs(impl, regs);
}
int spu_link_op_ping(void *impl)
{
    return spu_link_ping(impl);
}
int spu_link_op_stats(void *impl, spu_link_stats_t *st)
{
    spu_link_get_stats(impl, st);
    return 0;
}
