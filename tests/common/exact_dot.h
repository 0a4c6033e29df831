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
#include <algorithm>
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

// The exact sum of the dot product on the grid 2^-60 and its flags.
struct ExactSum {
    i128 s = 0;
    bool nan = false, pinf = false, ninf = false;
};
inline ExactSum dot_exact(Fmt f, const uint8_t *a, size_t sa, const uint8_t *b, size_t sb, size_t n)
{
    ExactSum r;
    for (size_t k = 0; k < n; k++) {
        double x = decode(f, a[k * sa]), y = decode(f, b[k * sb]);
        if (std::isnan(x) || std::isnan(y) || (std::isinf(x) && y == 0) || (std::isinf(y) && x == 0)) {
            r.nan = true;
            continue;
        }
        double p = x * y;
        if (std::isinf(p)) {
            (p > 0 ? r.pinf : r.ninf) = true;
            continue;
        }
        r.s += (i128)std::ldexp(p, 60);
    }
    return r;
}

// A narrow float target of the output pipeline (docs/numerics.md "Output
// pipeline"): E exponent bits, M mantissa bits; ocp = OCP E4M3 (no Inf,
// S.1111.111 the only NaN) else IEEE-style (all-ones exponent = Inf / NaN).
struct Target {
    int E, M;
    bool ocp;
};
constexpr Target BF16{8, 7, false}, F16{5, 10, false}, T_E4M3{4, 3, true}, T_E5M2{5, 2, false};

// The code of round-to-nearest-even of x = sign * mag * 2^lsb in t, straight
// from the definition (the grid of t's binade, or its subnormal grid;
// overflow: sat -> +-max finite, ovf -> +-Inf or, E4M3, NaN). relu: a
// negative value or -Inf gives +0 (applied to the exact value first).
inline uint32_t round_to(Target t, const ExactSum &x, int lsb, bool relu, bool ovf)
{
    const int bias = (1 << (t.E - 1)) - 1;
    const int emax = t.ocp ? (1 << t.E) - 1 - bias : (1 << t.E) - 2 - bias;   // of the largest binade
    const uint32_t maxman = t.ocp ? (1u << t.M) - 2 : (1u << t.M) - 1;        // its largest mantissa
    const uint32_t maxcode = ((uint32_t)(emax + bias) << t.M) | maxman;
    const uint32_t sbit = 1u << (t.E + t.M);
    const uint32_t nan = t.ocp ? 0x7Fu : ((((1u << t.E) - 1) << t.M) | (1u << (t.M - 1)));
    const uint32_t inf = ((1u << t.E) - 1) << t.M;
    if (x.nan || (x.pinf && x.ninf)) return nan;
    if (x.pinf || x.ninf) {
        if (relu && x.ninf) return 0;
        const uint32_t s = x.ninf ? sbit : 0;
        if (!ovf) return s | maxcode;
        return t.ocp ? (s | nan) : (s | inf);
    }
    if (x.s == 0 || (relu && x.s < 0)) return 0;
    const bool neg = x.s < 0;
    __extension__ typedef unsigned __int128 u128;
    const u128 mag = neg ? (u128)(-x.s) : (u128)x.s;
    int msb = 127;
    while (!((mag >> msb) & 1)) msb--;
    // exponent of the binade, the ulp there (>= the subnormal ulp)
    const int e = msb + lsb;
    const int ulp = std::max(e, 1 - bias) - t.M;
    // q = mag * 2^(lsb - ulp) rounded to an integer, RNE
    u128 q;
    const int sh = ulp - lsb;
    if (sh <= 0) {
        q = mag << (-sh);
    } else if (sh > 127) {
        q = 0;
    } else {
        q = mag >> sh;
        const u128 rem = mag & ((((u128)1) << sh) - 1), half = ((u128)1) << (sh - 1);
        if (rem > half || (rem == half && (q & 1))) q++;
    }
    // q * 2^ulp: normalise to a code
    int ue = ulp;
    while (q >= ((u128)2 << t.M)) {   // rounding carried into the next binade
        q >>= 1;                      // (exact: the low bit is 0 then)
        ue++;
    }
    uint32_t code;
    if (q < ((u128)1 << t.M)) {
        code = (uint32_t)q;            // subnormal (or zero)
    } else {
        const int be = ue + t.M + bias;   // biased exponent
        code = ((uint32_t)be << t.M) | ((uint32_t)q & ((1u << t.M) - 1));
        if (be > emax + bias || (be == emax + bias && ((uint32_t)q & ((1u << t.M) - 1)) > maxman))
            code = ovf ? (t.ocp ? nan : inf) : maxcode;
    }
    return (neg ? sbit : 0) | code;
}

// bf16 operands (docs/numerics.md "Datapath numerics"): a bf16 code is the
// top half of a binary32, so it is decoded by the machine's float; the
// product is exact in double (8 x 8 significant bits, 2^-266 .. 2^256); it is
// put on the accumulator's 2^-32 grid by nearbyint (round to nearest even in
// the default environment); a term or a running sum (k order) of 2^47 or
// more in magnitude does not fit the 80-bit register: NaN (the overflow
// flag). The sum is returned on the 2^-32 grid (round_to(..., -32, ...)).
inline double decode_bf16(uint16_t c)
{
    const uint32_t u = (uint32_t)c << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
inline ExactSum dot_exact_bf16(const uint16_t *a, size_t sa, const uint16_t *b, size_t sb, size_t n)
{
    ExactSum r;
    const i128 lim = (i128)1 << 79;
    for (size_t k = 0; k < n; k++) {
        const double x = decode_bf16(a[k * sa]), y = decode_bf16(b[k * sb]);
        if (std::isnan(x) || std::isnan(y) || (std::isinf(x) && y == 0) || (std::isinf(y) && x == 0)) {
            r.nan = true;
            continue;
        }
        if (std::isinf(x) || std::isinf(y)) {
            (std::signbit(x) != std::signbit(y) ? r.ninf : r.pinf) = true;
            continue;
        }
        const double t = std::nearbyint(std::ldexp(x * y, 32));
        if (!(std::fabs(t) < 0x1p79)) {
            r.nan = true;
            continue;
        }
        r.s += (i128)t;
        if (r.s >= lim || r.s < -lim)
            r.nan = true;
    }
    return r;
}
constexpr Target F32{8, 23, false};

// MX operands (OCP MX v1.0, docs/numerics.md "MX on the array"): elements in
// blocks of 32 along k, block g of a scaled by 2^(sa[g] - 127), of b by
// 2^(sb[g] - 127). Per block: the exact element sum (decoded here: e4m3 /
// e5m2 by decode(), mxint8 as code x 2^-6; products exact in double, summed
// as integers on 2^-60), times 2^(sa + sb - 254), put on the 2^-32 grid
// rounding to nearest even (integer arithmetic below); a block term or a
// running sum of 2^47 or more in magnitude: NaN (the register's overflow);
// a scale of 0xFF: NaN; element NaN / Inf products as dot_exact. Returns
// the sum on the 2^-32 grid (round_to(..., -32, ...)).
// MX_E3M2 / MX_E2M3 / MX_E2M1 (OCP MX v1.0 FP6 / FP4: bias 3 / 1 / 1, no
// Inf or NaN, subnormals at exponent 0): the code in the byte's low 6 / 4
// bits, the high bits ignored (docs/isa.md "mm"), decoded from the format
// definition here.
enum MxElem { MX_E4M3, MX_E5M2, MX_INT8, MX_E3M2, MX_E2M3, MX_E2M1 };
inline double decode_mx(MxElem f, uint8_t c)
{
    if (f == MX_INT8) return std::ldexp((double)(int8_t)c, -6);
    if (f == MX_E4M3 || f == MX_E5M2) return decode(f == MX_E4M3 ? E4M3 : E5M2, c);
    const int eb = f == MX_E3M2 ? 3 : 2, mb = f == MX_E3M2 ? 2 : f == MX_E2M3 ? 3 : 1, bias = f == MX_E3M2 ? 3 : 1;
    const int s = (c >> (eb + mb)) & 1, e = (c >> mb) & ((1 << eb) - 1), m = c & ((1 << mb) - 1);
    const double v = e == 0 ? std::ldexp((double)m, 1 - bias - mb) : std::ldexp((double)(m + (1 << mb)), e - bias - mb);
    return s ? -v : v;
}
inline ExactSum dot_exact_mx(MxElem f, const uint8_t *a, size_t sa_, const uint8_t *b, size_t sb_, size_t n,
                             const uint8_t *scale_a, size_t ssa, const uint8_t *scale_b, size_t ssb)
{
    __extension__ typedef unsigned __int128 u128;
    ExactSum r;
    const i128 lim = (i128)1 << 79;
    for (size_t g = 0; g * 32 < n; g++) {
        i128 blk = 0;                        // on 2^-60
        for (size_t k = g * 32; k < n && k < g * 32 + 32; k++) {
            const double x = decode_mx(f, a[k * sa_]), y = decode_mx(f, b[k * sb_]);
            if (std::isnan(x) || std::isnan(y) || (std::isinf(x) && y == 0) || (std::isinf(y) && x == 0)) {
                r.nan = true;
                continue;
            }
            const double p = x * y;
            if (std::isinf(p)) {
                (p > 0 ? r.pinf : r.ninf) = true;
                continue;
            }
            blk += (i128)std::ldexp(p, 60);
        }
        const unsigned xa = scale_a[g * ssa], xb = scale_b[g * ssb];
        if (xa == 0xFF || xb == 0xFF) {
            r.nan = true;
            continue;
        }
        if (blk == 0) continue;
        // blk * 2^-60 * 2^(xa + xb - 254) on 2^-32: blk * 2^(xa + xb - 254 - 28)
        const int sh = (int)xa + (int)xb - 254 - 28;
        const bool neg = blk < 0;
        const u128 mag = neg ? (u128)(-blk) : (u128)blk;
        int msb = 127;
        while (!((mag >> msb) & 1)) msb--;
        u128 t;
        if (sh >= 0) {
            if (msb + sh >= 79) {
                r.nan = true;
                continue;
            }
            t = mag << sh;
        } else if (-sh > 127) {
            t = 0;
        } else {
            const int n2 = -sh;
            t = mag >> n2;
            const u128 rem = mag - (t << n2), half = (u128)1 << (n2 - 1);
            if (rem > half || (rem == half && (t & 1))) t++;
        }
        if (t >= ((u128)1 << 79)) {
            r.nan = true;
            continue;
        }
        r.s += neg ? -(i128)t : (i128)t;
        if (r.s >= lim || r.s < -lim) r.nan = true;
    }
    return r;
}

}  // namespace exact_ref
