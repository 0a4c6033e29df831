// rtln_util.h -- helpers shared by the RTL numerics harnesses: exact values
// from the numerics library's decode, and a small deterministic PRNG.
#ifndef RTLN_UTIL_H
#define RTLN_UTIL_H

#include <cmath>
#include <cstdint>
#include <cstring>

extern "C" {
#include "spu/numerics.h"
#include "spu/numerics_hw.h"
}

namespace rtln {

// xorshift64*: deterministic, so a failure reproduces.
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    uint64_t next() {
        s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
        return s * 0x2545F4914F6CDD1Dull;
    }
    uint32_t u32() { return (uint32_t)(next() >> 32); }
    uint32_t below(uint32_t n) { return (uint32_t)((next() >> 32) % n); }
};

// Exact value of a code from the library's decode, as a long double
// (every format here has <= 24 significant bits and a small exponent).
inline long double value_of(spu_fmt f, uint32_t code, spu_num *n_out = nullptr) {
    spu_num n;
    spu_num_decode(f, code, &n);
    if (n_out) *n_out = n;
    long double v = std::ldexp((long double)n.sig, n.exp);
    return n.sign ? -v : v;
}

inline uint32_t f32_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float bits_f32(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

}  // namespace rtln
#endif
