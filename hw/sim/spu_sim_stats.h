// spu_sim_stats.h -- the simulated-time side channel of spu-sim (docs/sim.md).
//
// `spu-sim --stats-fd N`: N is a file (libspu passes a memfd) of at least
// sizeof(SpuSimStats) bytes; spu-sim maps it shared and publishes the
// simulated clock there after every stretch of clocking and whenever the
// board goes idle. It is not part of the link protocol: the board never sees
// it and a real board has no such thing. libspu (host/src/link/backend_sim.c)
// reads the same layout (little-endian, no padding surprises: all fields are
// naturally aligned) as spu_sim_time_t.
//
// Consistency: seq is odd while spu-sim writes, even otherwise (a seqlock);
// a reader retries until it reads the same even seq before and after.
#ifndef SPU_SIM_STATS_H
#define SPU_SIM_STATS_H

#include <cstdint>

struct SpuSimStats {
    uint32_t magic;        // 'S','P','U','T' = 0x54555053
    uint32_t version;      // 2 (1: core_cycles not filled)
    uint32_t clock_hz;     // the clock the configuration is built for
    uint32_t clks_per_bit; // UART clocks per bit (0: byte port)
    uint64_t seq;          // seqlock
    uint64_t cycles;       // simulated clock cycles since reset (clock stops while idle)
    uint64_t bytes_in;     // link bytes host -> board that entered the PHY
    uint64_t bytes_out;    // link bytes board -> host that left the PHY
    uint64_t idle;         // 1: the board waits for the host (nothing queued, nothing to send)
    uint64_t core_cycles;  // of those cycles, the ones that clocked the core's units (docs/rtl.md "Core clock gate in simulation")
    uint64_t reserved[2];
};
static_assert(sizeof(SpuSimStats) == 80, "layout shared with backend_sim.c");

#define SPU_SIM_STATS_MAGIC 0x54555053u

#endif
