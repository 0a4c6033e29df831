/*
 * exhaustive.c -- `make test-exhaustive`: every f32 input (2^32) converted to
 * f16 and bf16 by libspu (bulk AVX2 path and forced scalar path) against
 * independent converters: the CPU's F16C instruction (vcvtps2ph, RNE and RTZ)
 * for f16; for bf16 a nearest-of-two-candidates comparison in double.
 * Prints one line per check and a summary; exit status 1 on any mismatch.
 */
#include "spu/numerics.h"

#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK (1u << 20)

static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* f16 by F16C; sat: finite inputs that overflow and +-Inf give +-65504 */
static void ref_f16(const float *x, uint16_t *o, int rtz, int sat)
{
    for (unsigned i = 0; i < CHUNK; i += 8) {
        __m256 v = _mm256_loadu_ps(x + i);
        __m128i h = rtz ? _mm256_cvtps_ph(v, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC)
                        : _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128((__m128i *)(o + i), h);
    }
    if (sat)
        for (unsigned i = 0; i < CHUNK; i++)
            if ((o[i] & 0x7FFF) == 0x7C00)
                o[i] = (uint16_t)((o[i] & 0x8000) | 0x7BFF);
}

/* bf16: pick the nearer of the two bf16 neighbours in double (exact) */
static uint16_t ref_bf16_one(uint32_t x, int sat)
{
    uint32_t a = x & 0x7FFFFFFFu, s = x & 0x80000000u;
    if (a > 0x7F800000u)
        return (uint16_t)((x >> 16) | 0x0040);
    if (a == 0x7F800000u)
        return (uint16_t)((s >> 16) | (sat ? 0x7F7F : 0x7F80));
    uint32_t lo = a & 0xFFFF0000u, hi = lo + 0x10000u;
    double dl = (double)u2f(a) - (double)u2f(lo);
    double dh = (hi >= 0x7F800000u ? ldexp(1.0, 128) : (double)u2f(hi)) - (double)u2f(a);
    uint32_t r = dl < dh ? lo : dh < dl ? hi : ((lo >> 16) & 1 ? hi : lo);
    if (r >= 0x7F800000u)
        r = sat ? 0x7F7F0000u : 0x7F800000u;
    return (uint16_t)((s | r) >> 16);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(void)
{
    float *x = malloc(CHUNK * 4);
    uint16_t *ref = malloc(CHUNK * 2), *got = malloc(CHUNK * 2);
    struct { const char *name; spu_fmt f; spu_round r; spu_overflow o; int scalar; } checks[] = {
        { "f32->f16 rne ovf (avx2)",   SPU_FMT_F16,  SPU_ROUND_RNE, SPU_OVF_OVF, 0 },
        { "f32->f16 rne sat (avx2)",   SPU_FMT_F16,  SPU_ROUND_RNE, SPU_OVF_SAT, 0 },
        { "f32->f16 rtz ovf (avx2)",   SPU_FMT_F16,  SPU_ROUND_RTZ, SPU_OVF_OVF, 0 },
        { "f32->f16 rne ovf (scalar)", SPU_FMT_F16,  SPU_ROUND_RNE, SPU_OVF_OVF, 1 },
        { "f32->f16 rtz ovf (scalar)", SPU_FMT_F16,  SPU_ROUND_RTZ, SPU_OVF_OVF, 1 },
        { "f32->bf16 rne ovf (avx2)",  SPU_FMT_BF16, SPU_ROUND_RNE, SPU_OVF_OVF, 0 },
        { "f32->bf16 rne sat (avx2)",  SPU_FMT_BF16, SPU_ROUND_RNE, SPU_OVF_SAT, 0 },
        { "f32->bf16 rne ovf (scalar)", SPU_FMT_BF16, SPU_ROUND_RNE, SPU_OVF_OVF, 1 },
        { "f32->bf16 rne sat (scalar)", SPU_FMT_BF16, SPU_ROUND_RNE, SPU_OVF_SAT, 1 },
    };
    int failed = 0;
    double t_all = now();
    printf("libspu AVX2 available: %s\n", spu_numerics_have_avx2() ? "yes" : "no");
    for (size_t c = 0; c < sizeof checks / sizeof checks[0]; c++) {
        double t0 = now();
        unsigned long long bad = 0;
        uint32_t first_bad = 0;
        spu_cvt_opts o = { checks[c].r, checks[c].o, 0, 0 };
        for (uint64_t base = 0; base < (1ull << 32); base += CHUNK) {
            for (unsigned i = 0; i < CHUNK; i++) {
                uint32_t u = (uint32_t)(base + i);
                memcpy(&x[i], &u, 4);
            }
            if (checks[c].f == SPU_FMT_F16)
                ref_f16(x, ref, checks[c].r == SPU_ROUND_RTZ, checks[c].o == SPU_OVF_SAT);
            else
                for (unsigned i = 0; i < CHUNK; i++)
                    ref[i] = ref_bf16_one((uint32_t)(base + i), checks[c].o == SPU_OVF_SAT);
            if (checks[c].scalar)
                spu_convert_from_f32_scalar(checks[c].f, x, got, CHUNK, &o);
            else
                spu_convert_from_f32(checks[c].f, x, got, CHUNK, &o);
            if (memcmp(ref, got, CHUNK * 2))
                for (unsigned i = 0; i < CHUNK; i++)
                    if (ref[i] != got[i] && !bad++)
                        first_bad = (uint32_t)(base + i);
        }
        printf("%-28s %s  mismatches %llu", checks[c].name, bad ? "FAIL" : "PASS", bad);
        if (bad)
            printf(" (first input 0x%08x)", first_bad);
        printf("  %.1f s\n", now() - t0);
        fflush(stdout);
        failed |= bad != 0;
    }
    printf("exhaustive: %s, total %.1f s\n", failed ? "FAILED" : "all 2^32 inputs agree", now() - t_all);
    free(x); free(ref); free(got);
    return failed;
}
