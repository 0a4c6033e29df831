// spu_fault.cpp -- seeded link-fault injection (spu_fault.h).
#include "spu_fault.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

SpuFault::SpuFault(double ber, double drop, uint64_t seed) : ber_(ber), drop_(drop), state_(seed) {}

uint64_t SpuFault::next()
{
    // splitmix64 (Steele, Lea, Flood 2014)
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double SpuFault::uniform()
{
    return (double)(next() >> 11) * (1.0 / 9007199254740992.0);
}

void SpuFault::apply(const uint8_t *p, size_t n, std::vector<uint8_t> &out)
{
    for (size_t i = 0; i < n; i++) {
        uint8_t b = p[i];
        bytes++;
        if (ber_ > 0) {
            for (int bit = 0; bit < 8; bit++) {
                if (uniform() < ber_) {
                    b ^= (uint8_t)(1u << bit);
                    flips++;
                }
            }
        }
        if (drop_ > 0) {
            if (uniform() < drop_) {   // a random byte appears before this one
                out.push_back((uint8_t)next());
                inserts++;
            }
            if (uniform() < drop_) {   // this byte is lost
                drops++;
                continue;
            }
            if (uniform() < drop_) {   // this byte arrives twice
                out.push_back(b);
                dups++;
            }
        }
        out.push_back(b);
    }
}

bool spu_fault_parse_prob(const char *s, double *out)
{
    if (!s || !*s)
        return false;
    char *end = nullptr;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !std::isfinite(v) || v < 0 || v > 1)
        return false;
    *out = v;
    return true;
}
