// spu_fault.h -- seeded link-fault injection for spu-sim (docs/protocol.md,
// "Fault injection"). One SpuFault per direction sits between the pty and the
// board's byte port: every bit of every byte flips with probability ber, and
// every byte is dropped, duplicated, or preceded by a random inserted byte,
// each with probability drop. The generator is a splitmix64 stream per
// direction, so a seed reproduces the exact fault pattern for the same
// stream of bytes. Counts of what was injected are kept for the exit report.
#ifndef SPU_FAULT_H
#define SPU_FAULT_H

#include <cstddef>
#include <cstdint>
#include <vector>

class SpuFault {
public:
    SpuFault(double ber = 0, double drop = 0, uint64_t seed = 1);
    bool active() const { return ber_ > 0 || drop_ > 0; }
    // Apply faults to n bytes; the result (possibly longer or shorter) is appended to out.
    void apply(const uint8_t *p, size_t n, std::vector<uint8_t> &out);

    uint64_t flips = 0, drops = 0, dups = 0, inserts = 0, bytes = 0;

private:
    uint64_t next();
    double uniform();   // [0, 1)
    double ber_, drop_;
    uint64_t state_;
};

// Parse a probability in [0, 1] ("1e-3", "0.001"); false on anything else.
bool spu_fault_parse_prob(const char *s, double *out);

#endif
