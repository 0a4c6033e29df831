/*
 * compare.h -- compare the end state of two devices that ran the same
 * program (e.g. `sim` against `model`): status, performance counters,
 * retired instructions, registers and the whole scratchpad. The first
 * difference is named, so a divergence between the RTL and the model is
 * found without a waveform.
 */
#ifndef SPU_COMPARE_H
#define SPU_COMPARE_H

#include "spu/spu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Compare a and b after a run, and the scratchpad bytes [spad_addr,
 * spad_addr + spad_len) (clipped to the scratchpad; UINT32_MAX = all of it,
 * 0 = none: reading 256 KiB over a link takes a while). Returns 0 when equal, SPU_EMISMATCH with a
 * one-line description of the first difference in what (e.g. "scratchpad
 * byte 0x00120: sim 0x05, model 0x07"), or a transport error.
 * Counters compared: cycles, instret, mac_active, mm_cycles, stall_bank,
 * stall_drain, drain_busy (the link counters differ by nature).
 * Geometries must be equal (SPU_EINVAL otherwise). */
int spu_compare_devices(spu_device *a, spu_device *b, uint32_t spad_addr, uint32_t spad_len,
                        char *what, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
