// reference.h -- an independent reference converter for the numerics tests.
// It shares no code with host/src/numerics: it enumerates every finite value
// of the target format from the format's textual definition (OCP OFP8 / MX
// v1.0, IEEE 754), sorts them, and picks the result by exact comparison in
// long double (all values involved are exact there; the distances compared
// are exact by Sterbenz' lemma since neighbours are within a factor 2).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ref {

struct Fmt {
    std::string name;
    int bits;       // storage bits
    int ebits;      // exponent bits
    int mbits;      // mantissa bits
    int bias;
    bool ieee;      // all-ones exponent = Inf/NaN (f16, bf16, e5m2)
    bool e4m3_nan;  // S.1111.111 = NaN only
    bool is_int8;
    bool is_e8m0;
};

inline std::vector<Fmt> formats()
{
    return {
        {"f16", 16, 5, 10, 15, true, false, false, false},
        {"bf16", 16, 8, 7, 127, true, false, false, false},
        {"e4m3", 8, 4, 3, 7, false, true, false, false},
        {"e5m2", 8, 5, 2, 15, true, false, false, false},
        {"e3m2", 6, 3, 2, 3, false, false, false, false},
        {"e2m3", 6, 2, 3, 1, false, false, false, false},
        {"e2m1", 4, 2, 1, 1, false, false, false, false},
        {"e8m0", 8, 8, 0, 127, false, false, false, true},
        {"int8", 8, 0, 0, 0, false, false, true, false},
    };
}

// Decode a code to long double by the textbook formula; NaN for NaN codes.
inline long double decode(const Fmt &f, uint32_t code)
{
    if (f.is_int8)
        return (long double)(int8_t)(uint8_t)code;
    if (f.is_e8m0)
        return code == 255 ? NAN : std::ldexp(1.0L, (int)code - 127);
    uint32_t s = (code >> (f.bits - 1)) & 1;
    uint32_t e = (code >> f.mbits) & ((1u << f.ebits) - 1);
    uint32_t m = code & ((1u << f.mbits) - 1);
    long double sign = s ? -1.0L : 1.0L;
    if (f.ieee && e == (1u << f.ebits) - 1)
        return m ? (long double)NAN : sign * (long double)INFINITY;
    if (f.e4m3_nan && e == 15 && m == 7)
        return NAN;
    if (e == 0)
        return sign * std::ldexp((long double)m, 1 - f.bias - f.mbits);
    return sign * std::ldexp(1.0L + std::ldexp((long double)m, -f.mbits), (int)e - f.bias);
}

struct Point {
    long double v;
    uint32_t code;  // code of +v (valid if !beyond)
    bool odd;       // last significand bit
    bool beyond;    // the first grid point above max finite (overflow)
};

// All non-negative finite values in increasing order, plus one point beyond.
struct Grid {
    Fmt f;
    std::vector<Point> pts;
    long double maxv;
    uint32_t maxcode;
};

inline Grid make_grid(const Fmt &f)
{
    Grid g{f, {}, 0, 0};
    if (f.is_int8) {
        for (int k = 0; k <= 128; k++)
            g.pts.push_back({(long double)k, (uint32_t)k, (k & 1) != 0, k == 128});
        g.maxv = 127;
        g.maxcode = 127;
        return g;
    }
    std::map<long double, Point> byval;
    for (uint32_t c = 0; c < (1u << (f.bits - (f.is_e8m0 ? 0 : 1))); c++) {
        long double v = decode(f, c);
        if (std::isnan(v) || std::isinf(v))
            continue;
        // significand parity: the mantissa field's LSB (e8m0: significand 1, odd)
        bool odd = f.is_e8m0 ? true : (c & 1) != 0;
        byval[v] = {v, c, odd, false};
    }
    for (auto &kv : byval)
        g.pts.push_back(kv.second);
    g.maxv = g.pts.back().v;
    g.maxcode = g.pts.back().code;
    // next grid point with an unbounded exponent: max + ulp(max); its
    // significand is max's plus one (parity flips), or 2^(e+1) (1.000, even)
    long double ulp = g.pts.back().v - g.pts[g.pts.size() - 2].v;
    if (f.is_e8m0)
        g.pts.push_back({g.maxv * 2, 0, true, true});
    else {
        bool odd_next = !g.pts.back().odd;
        g.pts.push_back({g.maxv + ulp, 0, odd_next, true});
    }
    return g;
}

enum Round { RNE, RTZ, RNA };

// Reference conversion of an exact value v (f32-representable) to a code.
inline uint32_t convert(const Grid &g, long double v, Round r, bool ovf)
{
    const Fmt &f = g.f;
    auto signed_code = [&](uint32_t mag, bool neg) -> uint32_t {
        if (f.is_int8)
            return neg ? (uint32_t)((256 - mag) & 0xFF) : mag;
        if (f.is_e8m0)
            return mag;
        return mag | (neg ? 1u << (f.bits - 1) : 0);
    };
    bool neg = std::signbit(v);
    uint32_t nan_code = f.ieee ? ((((1u << f.ebits) - 1) << f.mbits) | (1u << (f.mbits - 1)))
                      : f.e4m3_nan ? 0x7F : f.is_e8m0 ? 0xFF : 0;
    bool has_nan = f.ieee || f.e4m3_nan || f.is_e8m0;
    uint32_t inf_mag = f.ieee ? (((1u << f.ebits) - 1) << f.mbits) : 0;
    if (std::isnan(v))
        return has_nan ? signed_code(nan_code, neg && !f.is_e8m0) : 0;
    long double a = std::fabs(v);
    uint32_t maxmag = g.maxcode;
    if (f.is_int8 && neg)
        maxmag = 128;
    uint32_t ovf_mag = maxmag;
    if (ovf)
        ovf_mag = f.ieee ? inf_mag : has_nan ? nan_code : maxmag;
    if (f.is_e8m0)
        neg = false;
    if (std::isinf(v))
        return signed_code(ovf ? ovf_mag : maxmag, neg);
    if (f.is_e8m0 && a < g.pts.front().v)
        return 0;
    // find neighbours lo <= a < hi
    size_t hi;
    auto it = std::upper_bound(g.pts.begin(), g.pts.end(), a,
                               [](long double x, const Point &p) { return x < p.v; });
    hi = (size_t)(it - g.pts.begin());
    const Point *res;
    if (hi == g.pts.size()) {
        res = &g.pts.back();  // beyond the overflow point: overflow
    } else if (g.pts[hi - 1].v == a) {
        res = &g.pts[hi - 1];
    } else {
        const Point &L = g.pts[hi - 1], &H = g.pts[hi];
        long double dl = a - L.v, dh = H.v - a;
        if (r == RTZ)
            res = &L;
        else if (dl < dh)
            res = &L;
        else if (dh < dl)
            res = &H;
        else if (r == RNA)
            res = &H;
        else
            res = L.odd ? &H : &L;
    }
    // int8 negative: -128 is finite
    if (f.is_int8 && neg && res->beyond && res->v == 128)
        return signed_code(128, true);
    if (res->beyond || (f.is_int8 && res->v > (neg ? 128 : 127)))
        return signed_code(r == RTZ ? maxmag : ovf_mag, neg);
    return signed_code(res->code, neg);
}

}  // namespace ref
