// run_program.h -- the reset / load / run / wait sequence the device
// comparison suites repeat on each of their two devices: reset, optionally
// write init at init_addr, load the words, set the watchdog, run with args
// and wait; the run must halt or trap (a fatal gtest failure otherwise).
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "spu/spu.h"

inline void run_program_on(spu_device *d, const uint32_t *words, size_t nwords, const std::vector<uint32_t> &args,
                           uint32_t watchdog, const std::vector<uint8_t> &init = {}, uint32_t init_addr = 0)
{
    ASSERT_EQ(spu_reset(d), 0);
    if (!init.empty()) {
        ASSERT_EQ(spu_write(d, init_addr, init.data(), init.size()), 0);
    }
    spu_program p = {words, nwords, 0};
    ASSERT_EQ(spu_load_program(d, &p), 0);
    ASSERT_EQ(spu_set_watchdog(d, watchdog), 0);
    ASSERT_EQ(spu_run(d, args.data(), (int)args.size()), 0);
    spu_status_t st;
    int rc = spu_wait(d, 20000, &st);
    ASSERT_TRUE(rc == 0 || rc == SPU_ETRAP) << spu_error_name(rc);
}
