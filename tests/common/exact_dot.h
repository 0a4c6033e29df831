// exact_dot.h -- an independent exact-arithmetic reference of the datapath
// semantics of docs/numerics.md "Datapath numerics" for float inputs:
// sum_k A[k]*B[k] computed exactly (every e4m3 / e5m2 product is a multiple
// of 2^-32 below 2^32, held as an integer multiple of 2^-60 in 128 bits),
// rounded once to binary32 (round to nearest, ties to even), with the
// documented special cases. It shares no code with the model or the RTL
// twins nor with the numerics library: the operands are decoded to doubles
// here from the OCP OFP8 definitions, multiplied in double (exact: at most
// 4 x 4 significant bits) and the rounding is a few lines below.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace exact_ref {

enum Fmt { E4M3, E5M2 };

// OCP OFP8: E4M3 bias 7, no Inf, S.1111.111 NaN; E5M2 bias 15, IEEE-style.
inline double decode(Fmt f, uint8_t c)
{
    const int eb = f == E4M3 ? 4 : 5, mb = 7 - eb, bias = f == E4M3 ? 7 : 15;
    const int s = c >> 7, e = (c >> mb) & ((1 << eb) - 1), m = c & ((1 << mb) - 1);
    double v;
    if (f == E4M3 && e == 15 && m == 7) return NAN;
    if (f == E5M2 && e == 31) v = m ? NAN : INFINITY;
    else if (e == 0) v = std::ldexp((double)m, 1 - bias - mb);
    else v = std::ldexp((double)(m + (1 << mb)), e - bias - mb);
    return s ? -v : v;
}

__extension__ typedef __int128 i128;

// f32 bits of the documented result of the dot product of n code pairs.
inline uint32_t dot_f32(Fmt f, const uint8_t *a, size_t sa, const uint8_t *b, size_t sb, size_t n)
{
    bool nan = false, pinf = false, ninf = false;
    i128 s = 0;
    for (size_t k = 0; k < n; k++) {
        double x = decode(f, a[k * sa]), y = decode(f, b[k * sb]);
        if (std::isnan(x) || std::isnan(y) || (std::isinf(x) && y == 0) || (std::isinf(y) && x == 0)) {
            nan = true;
            continue;
        }
        double p = x * y;
        if (std::isinf(p)) {
            (p > 0 ? pinf : ninf) = true;
            continue;
        }
        s += (i128)std::ldexp(p, 60);     // exact: |p| >= 2^-32, < 2^32
    }
    if (nan || (pinf && ninf)) return 0x7FC00000u;
    if (pinf) return 0x7F800000u;
    if (ninf) return 0xFF800000u;
    if (s == 0) return 0;                  // an exact zero is +0
    bool neg = s < 0;
    __extension__ unsigned __int128 mag = neg ? (unsigned __int128)(-s) : (unsigned __int128)s;
    int msb = 127;
    while (!((mag >> msb) & 1)) msb--;
    uint64_t q;
    int e;
    if (msb <= 23) {
        q = (uint64_t)mag;
        e = -60;
    } else {
        int sh = msb - 23;
        q = (uint64_t)(mag >> sh);
        __extension__ unsigned __int128 rem = mag & ((((unsigned __int128)1) << sh) - 1);
        __extension__ unsigned __int128 half = ((unsigned __int128)1) << (sh - 1);
        if (rem > half || (rem == half && (q & 1))) q++;
        e = sh - 60;
    }
    float r = std::ldexp((float)q, e);    // q < 2^25: exact; the range is normal
    if (neg) r = -r;
    uint32_t u;
    std::memcpy(&u, &r, 4);
    return u;
}

}  // namespace exact_ref
