// array_speed -- the reference for the 8x8 sim's speed (docs/sim.md "Speed of
// the 8x8 sim"): spu_array alone, 8x8, int8 only (32-bit accumulators),
// Verilated with the sim's options and clocked with a fresh random k-step on
// both edges every cycle, as a GEMM streams it. What it prints is what this
// machine gives a bare Verilated array, the figure issue 12 set the sim's
// goal against ("a bare Verilated 8x8 int8 array runs 4.7 M cycles/s"), so a
// measurement of spu-sim can be read beside the machine it ran on.
//
//   array_speed [CYCLES]      (default 20,000,000)
// prints "array_speed: N cycles, T s CPU: R cycles per CPU second" and a
// checksum of the accumulators (so the work cannot be optimised away).
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "Vspu_array.h"
#include "verilated.h"

static double cpu_seconds()
{
    timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    uint64_t cycles = 20000000ull;
    if (argc > 1) {
        // digits only: strtoull would take "-5" as 2^64 - 5 and "12x" as 12
        char *end = nullptr;
        errno = 0;
        cycles = strtoull(argv[1], &end, 10);
        if (argc > 2 || argv[1][0] < '0' || argv[1][0] > '9' || *end != '\0' || errno != 0 || cycles == 0) {
            fprintf(stderr, "usage: array_speed [CYCLES > 0]\n");
            return 2;
        }
    }
    VerilatedContext ctx;
    Vspu_array m(&ctx);
    // the operands: a ring of random words (xorshift), both edges every cycle
    std::vector<uint64_t> ring(4096);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (auto &w : ring) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        w = x;
    }
    m.rst_i = 1;
    m.clr_i = 0;
    m.fmt_i = 0;
    m.mk_i = 0;
    m.west_i = m.north_i = 0;
    for (int i = 0; i < 2; i++) {
        m.clk_i = 0, m.eval();
        m.clk_i = 1, m.eval();
    }
    m.rst_i = 0;
    const double t0 = cpu_seconds();
    for (uint64_t c = 0; c < cycles; c++) {
        m.west_i = ring[c & 4095];
        m.north_i = ring[(c + 2048) & 4095];
        m.clk_i = 0, m.eval();
        m.clk_i = 1, m.eval();
    }
    const double t = cpu_seconds() - t0;
    uint64_t sum = 0;
    for (int w = 0; w < 64; w++) sum = sum * 31 + m.acc_o[w];
    m.final();
    printf("array_speed: %llu cycles, %.3f s CPU: %.0f cycles per CPU second (checksum %016llx)\n",
           (unsigned long long)cycles, t, (double)cycles / t, (unsigned long long)sum);
    return 0;
}
