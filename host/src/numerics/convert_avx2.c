/*
 * convert_avx2.c -- AVX2 versions of the f32 -> format conversion and of the
 * MX block quantizer. Same algorithm as spu_cvt_core (convert.c), 8 lanes at
 * a time; groups holding an f32 subnormal input go to the scalar core. Only
 * RNE/RTZ/RNA (SR is scalar). Selected at run time (__builtin_cpu_supports).
 */
#include "numerics_internal.h"

#include <math.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SPU_HAVE_X86 1
#define AVX2 __attribute__((target("avx2")))

int spu_avx2_ok_(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}

typedef struct vparam {
    __m256i s0, emin, base, maxmag, ovfmag, infres, nan_or, quiet, nanmask_keep;
    __m128i m, bits_sh, pay_sh;
    int payload;
    int has_nan;
} vparam;

AVX2 static void vparam_init(vparam *v, const spu_cvt_param *p, spu_round round,
                             spu_overflow ovf)
{
    uint32_t ovfmag = p->maxmag;
    if (ovf == SPU_OVF_OVF && round != SPU_ROUND_RTZ)
        ovfmag = p->has_inf ? p->infmag : p->has_nan ? p->nanmag : p->maxmag;
    uint32_t infres = p->maxmag;
    if (ovf == SPU_OVF_OVF)
        infres = p->has_inf ? p->infmag : p->has_nan ? p->nanmag : p->maxmag;
    v->s0 = _mm256_set1_epi32(23 - p->m);
    v->emin = _mm256_set1_epi32(p->emin);
    v->base = _mm256_set1_epi32(p->bias - 1);
    v->maxmag = _mm256_set1_epi32((int)p->maxmag);
    v->ovfmag = _mm256_set1_epi32((int)ovfmag);
    v->infres = _mm256_set1_epi32((int)infres);
    v->m = _mm_cvtsi32_si128(p->m);
    v->bits_sh = _mm_cvtsi32_si128(32 - (int)p->bits);
    v->pay_sh = _mm_cvtsi32_si128(23 - p->m);
    v->payload = p->nan_payload;
    v->has_nan = p->has_nan;
    v->nan_or = _mm256_set1_epi32((int)(p->nan_payload ? (p->infmag | (1u << (p->m - 1))) : p->nanmag));
}

/* 8 lanes: code (with sign); optionally K (kept+up), et and the overflow mask
 * for the dequantizer. Assumes no f32 subnormal input lanes. */
AVX2 static inline __m256i cvt8(__m256i x, const vparam *v, __m256i eoff, spu_round round,
                                __m256i *Kout, __m256i *etout, __m256i *ovout)
{
    const __m256i absm = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i inf = _mm256_set1_epi32(0x7F800000);
    __m256i a = _mm256_and_si256(x, absm);
    __m256i sign = _mm256_srl_epi32(_mm256_andnot_si256(absm, x), v->bits_sh);
    __m256i sig = _mm256_or_si256(_mm256_and_si256(a, _mm256_set1_epi32(0x7FFFFF)),
                                  _mm256_set1_epi32(0x800000));
    __m256i e = _mm256_sub_epi32(_mm256_sub_epi32(_mm256_srli_epi32(a, 23), _mm256_set1_epi32(127)), eoff);
    __m256i et = _mm256_max_epi32(e, v->emin);
    __m256i s = _mm256_min_epi32(_mm256_add_epi32(v->s0, _mm256_sub_epi32(et, e)),
                                 _mm256_set1_epi32(25));
    __m256i kept = _mm256_srlv_epi32(sig, s);
    __m256i K = kept;
    if (round != SPU_ROUND_RTZ) {
        __m256i ones = _mm256_sllv_epi32(one, s);
        __m256i rem = _mm256_and_si256(sig, _mm256_sub_epi32(ones, one));
        __m256i half = _mm256_srli_epi32(ones, 1);
        __m256i upm;
        if (round == SPU_ROUND_RNA) {
            upm = _mm256_cmpgt_epi32(rem, _mm256_sub_epi32(half, one));
        } else {
            __m256i odd = _mm256_cmpeq_epi32(_mm256_and_si256(kept, one), one);
            upm = _mm256_or_si256(_mm256_cmpgt_epi32(rem, half),
                                  _mm256_and_si256(_mm256_cmpeq_epi32(rem, half), odd));
        }
        K = _mm256_sub_epi32(kept, upm);
    }
    __m256i mag = _mm256_add_epi32(_mm256_sll_epi32(_mm256_add_epi32(et, v->base), v->m), K);
    __m256i ovm = _mm256_cmpgt_epi32(mag, v->maxmag);
    mag = _mm256_blendv_epi8(mag, v->ovfmag, ovm);
    __m256i isinf = _mm256_cmpeq_epi32(a, inf);
    mag = _mm256_blendv_epi8(mag, v->infres, isinf);
    __m256i iszero = _mm256_cmpeq_epi32(a, _mm256_setzero_si256());
    mag = _mm256_andnot_si256(iszero, mag);
    __m256i code = _mm256_or_si256(mag, sign);
    __m256i isnan = _mm256_cmpgt_epi32(a, inf);
    if (v->has_nan) {
        __m256i nanc = _mm256_or_si256(sign, v->nan_or);
        if (v->payload)
            nanc = _mm256_or_si256(nanc, _mm256_srl_epi32(_mm256_and_si256(a, _mm256_set1_epi32(0x7FFFFF)), v->pay_sh));
        code = _mm256_blendv_epi8(code, nanc, isnan);
    } else {
        code = _mm256_andnot_si256(isnan, code);
    }
    if (Kout) {
        *Kout = K;
        *etout = et;
        *ovout = _mm256_or_si256(ovm, iszero);
    }
    return code;
}

/* lanes holding a nonzero f32 subnormal */
AVX2 static inline int has_subnormal(__m256i x)
{
    __m256i a = _mm256_and_si256(x, _mm256_set1_epi32(0x7FFFFFFF));
    __m256i sub = _mm256_andnot_si256(_mm256_cmpeq_epi32(a, _mm256_setzero_si256()),
                                      _mm256_cmpgt_epi32(_mm256_set1_epi32(0x800000), a));
    return !_mm256_testz_si256(sub, sub);
}

/* Fast RNE path: normal target results by integer rounding of the f32 bits,
 * subnormal target results (and zero, and f32 subnormal inputs) by the FPU's
 * own RNE addition of a magic power of two whose ulp is the target's
 * subnormal ulp. Bit-identical to spu_cvt_core with eoff = 0 and RNE. */
typedef struct fparam {
    __m256i rbias, sub, thr, maxmag, ovfmag, magic_i, nan_or, absm, inf, low23;
    __m256 magic;
    __m128i s, bits_sh, pay_sh;
    int payload, has_nan, sat;
} fparam;

AVX2 static void fparam_init(fparam *f, const spu_cvt_param *p, spu_overflow ovf)
{
    int s = 23 - p->m;
    uint32_t ovfmag = p->maxmag;
    if (ovf == SPU_OVF_OVF)
        ovfmag = p->has_inf ? p->infmag : p->has_nan ? p->nanmag : p->maxmag;
    uint32_t magic = (uint32_t)(p->emin - p->m + 23 + 127) << 23;
    f->rbias = _mm256_set1_epi32((1 << (s - 1)) - 1);
    f->sub = _mm256_set1_epi32((127 - p->bias) << p->m);
    f->thr = _mm256_set1_epi32((p->emin + 127) << 23);
    f->maxmag = _mm256_set1_epi32((int)p->maxmag);
    f->ovfmag = _mm256_set1_epi32((int)ovfmag);
    f->magic_i = _mm256_set1_epi32((int)magic);
    f->magic = _mm256_castsi256_ps(f->magic_i);
    f->nan_or = _mm256_set1_epi32((int)(p->nan_payload ? (p->infmag | (1u << (p->m - 1))) : p->nanmag));
    f->absm = _mm256_set1_epi32(0x7FFFFFFF);
    f->inf = _mm256_set1_epi32(0x7F800000);
    f->low23 = _mm256_set1_epi32(0x7FFFFF);
    f->s = _mm_cvtsi32_si128(s);
    f->bits_sh = _mm_cvtsi32_si128(32 - (int)p->bits);
    f->pay_sh = _mm_cvtsi32_si128(s);
    f->payload = p->nan_payload;
    f->has_nan = p->has_nan;
    f->sat = ovfmag == p->maxmag;
}

/* a: |x| bits; returns the magnitude code (no NaN handling). */
AVX2 static inline __m256i fast_rne_mag(__m256i a, const fparam *f)
{
    __m256i odd = _mm256_and_si256(_mm256_srl_epi32(a, f->s), _mm256_set1_epi32(1));
    __m256i nrm = _mm256_sub_epi32(_mm256_srl_epi32(_mm256_add_epi32(_mm256_add_epi32(a, f->rbias), odd), f->s), f->sub);
    __m256i sub = _mm256_sub_epi32(_mm256_castps_si256(_mm256_add_ps(_mm256_castsi256_ps(a), f->magic)), f->magic_i);
    __m256i mag = _mm256_blendv_epi8(nrm, sub, _mm256_cmpgt_epi32(f->thr, a));
    if (f->sat)
        return _mm256_min_epi32(mag, f->maxmag);
    return _mm256_blendv_epi8(mag, f->ovfmag, _mm256_cmpgt_epi32(mag, f->maxmag));
}

AVX2 static inline __m256i fast_rne8(__m256i x, const fparam *f)
{
    __m256i a = _mm256_and_si256(x, f->absm);
    __m256i sign = _mm256_srl_epi32(_mm256_andnot_si256(f->absm, x), f->bits_sh);
    __m256i code = _mm256_or_si256(fast_rne_mag(a, f), sign);
    __m256i isnan = _mm256_cmpgt_epi32(a, f->inf);
    if (f->has_nan) {
        __m256i nanc = _mm256_or_si256(sign, f->nan_or);
        if (f->payload)
            nanc = _mm256_or_si256(nanc, _mm256_srl_epi32(_mm256_and_si256(a, f->low23), f->pay_sh));
        return _mm256_blendv_epi8(code, nanc, isnan);
    }
    return _mm256_andnot_si256(isnan, code);
}

AVX2 static size_t cvt_fast_rne(const spu_cvt_param *p, const float *in, void *out, size_t n,
                                spu_overflow ovf)
{
    fparam f;
    fparam_init(&f, p, ovf);
    size_t i = 0;
    if (p->bits == 16) {
        uint16_t *o = out;
        for (; i + 16 <= n; i += 16) {
            __m256i c0 = fast_rne8(_mm256_loadu_si256((const __m256i *)(in + i)), &f);
            __m256i c1 = fast_rne8(_mm256_loadu_si256((const __m256i *)(in + i + 8)), &f);
            _mm256_storeu_si256((__m256i *)(o + i), _mm256_permute4x64_epi64(_mm256_packus_epi32(c0, c1), 0xD8));
        }
        return i;
    }
    uint8_t *o = out;
    const __m256i perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; i + 32 <= n; i += 32) {
        __m256i c0 = fast_rne8(_mm256_loadu_si256((const __m256i *)(in + i)), &f);
        __m256i c1 = fast_rne8(_mm256_loadu_si256((const __m256i *)(in + i + 8)), &f);
        __m256i c2 = fast_rne8(_mm256_loadu_si256((const __m256i *)(in + i + 16)), &f);
        __m256i c3 = fast_rne8(_mm256_loadu_si256((const __m256i *)(in + i + 24)), &f);
        __m256i b = _mm256_packus_epi16(_mm256_packus_epi32(c0, c1), _mm256_packus_epi32(c2, c3));
        _mm256_storeu_si256((__m256i *)(o + i), _mm256_permutevar8x32_epi32(b, perm));
    }
    return i;
}

AVX2 size_t spu_cvt_avx2(spu_fmt fmt, const float *in, void *out, size_t n,
                         spu_round round, spu_overflow ovf)
{
    const spu_cvt_param *p = spu_cvt_param_get(fmt);
    if (!p || p->kind != CVT_FLOAT || fmt == SPU_FMT_F32 || round == SPU_ROUND_SR)
        return 0;
    if (round == SPU_ROUND_RNE)
        return cvt_fast_rne(p, in, out, n, ovf);
    vparam v;
    vparam_init(&v, p, round, ovf);
    const __m256i z = _mm256_setzero_si256();
    size_t i = 0;
    if (p->bits == 16) {
        uint16_t *o = out;
        for (; i + 16 <= n; i += 16) {
            __m256i x0 = _mm256_loadu_si256((const __m256i *)(in + i));
            __m256i x1 = _mm256_loadu_si256((const __m256i *)(in + i + 8));
            if (has_subnormal(_mm256_or_si256(x0, z)) || has_subnormal(x1)) {
                for (size_t k = i; k < i + 16; k++)
                    o[k] = (uint16_t)spu_cvt_core(p, spu_f2u_(in[k]), 0, round, ovf, 0, 128);
                continue;
            }
            __m256i c0 = cvt8(x0, &v, z, round, NULL, NULL, NULL);
            __m256i c1 = cvt8(x1, &v, z, round, NULL, NULL, NULL);
            __m256i pk = _mm256_permute4x64_epi64(_mm256_packus_epi32(c0, c1), 0xD8);
            _mm256_storeu_si256((__m256i *)(o + i), pk);
        }
        return i;
    }
    uint8_t *o = out;
    const __m256i perm = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (; i + 32 <= n; i += 32) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)(in + i));
        __m256i x1 = _mm256_loadu_si256((const __m256i *)(in + i + 8));
        __m256i x2 = _mm256_loadu_si256((const __m256i *)(in + i + 16));
        __m256i x3 = _mm256_loadu_si256((const __m256i *)(in + i + 24));
        if (has_subnormal(x0) || has_subnormal(x1) || has_subnormal(x2) || has_subnormal(x3)) {
            for (size_t k = i; k < i + 32; k++)
                o[k] = (uint8_t)spu_cvt_core(p, spu_f2u_(in[k]), 0, round, ovf, 0, 128);
            continue;
        }
        __m256i c0 = cvt8(x0, &v, z, round, NULL, NULL, NULL);
        __m256i c1 = cvt8(x1, &v, z, round, NULL, NULL, NULL);
        __m256i c2 = cvt8(x2, &v, z, round, NULL, NULL, NULL);
        __m256i c3 = cvt8(x3, &v, z, round, NULL, NULL, NULL);
        __m256i b = _mm256_packus_epi16(_mm256_packus_epi32(c0, c1), _mm256_packus_epi32(c2, c3));
        _mm256_storeu_si256((__m256i *)(o + i), _mm256_permutevar8x32_epi32(b, perm));
    }
    return i;
}

AVX2 uint32_t spu_amax_bits_avx2(const float *x, size_t len)
{
    const __m256i absm = _mm256_set1_epi32(0x7FFFFFFF);
    __m256i mx = _mm256_setzero_si256();
    for (size_t i = 0; i < len; i += 8)
        mx = _mm256_max_epi32(mx, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(x + i)), absm));
    __m128i m = _mm_max_epi32(_mm256_castsi256_si128(mx), _mm256_extracti128_si256(mx, 1));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4E));
    m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xB1));
    return (uint32_t)_mm_cvtsi128_si32(m);
}

AVX2 int spu_mx_block_avx2(spu_mx_fmt f, const float *x, size_t len, int X,
                           spu_round round, uint8_t *codes, float *deq)
{
    spu_fmt ef = spu_mx_elem(f);
    const spu_cvt_param *p = spu_cvt_param_get(ef);
    if (!p || p->kind != CVT_FLOAT || round == SPU_ROUND_SR || len % 8)
        return 0;
    for (size_t i = 0; i < len; i += 8)
        if (has_subnormal(_mm256_loadu_si256((const __m256i *)(x + i))))
            return 0;
    vparam v;
    vparam_init(&v, p, round, SPU_OVF_SAT);
    const __m256i eoff = _mm256_set1_epi32(X);
    const __m256i shuf = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i gather = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
    const __m256 scale = _mm256_set1_ps(ldexpf(1.0f, X));
    const __m256 maxv = _mm256_set1_ps((float)spu_fmt_get(ef)->max_value * ldexpf(1.0f, X));
    const __m256i mbias = _mm256_set1_epi32(127 - p->m);
    const __m256i signm = _mm256_set1_epi32((int)0x80000000u);
    for (size_t i = 0; i < len; i += 8) {
        __m256i xv = _mm256_loadu_si256((const __m256i *)(x + i));
        __m256i K, et, special;
        __m256i c = cvt8(xv, &v, eoff, round, &K, &et, &special);
        if (deq) {
            /* |deq| = K * 2^(et - m) * 2^X; overflow lanes: max * 2^X; zero: 0 */
            __m256 p2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(et, mbias), 23));
            __m256 val = _mm256_mul_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(K), p2), scale);
            __m256i a = _mm256_and_si256(xv, _mm256_set1_epi32(0x7FFFFFFF));
            __m256i ovm = _mm256_cmpgt_epi32(_mm256_add_epi32(_mm256_sll_epi32(_mm256_add_epi32(et, v.base), v.m), K), v.maxmag);
            val = _mm256_blendv_ps(val, maxv, _mm256_castsi256_ps(ovm));
            __m256i zm = _mm256_cmpeq_epi32(a, _mm256_setzero_si256());
            val = _mm256_andnot_ps(_mm256_castsi256_ps(zm), val);
            val = _mm256_or_ps(val, _mm256_castsi256_ps(_mm256_and_si256(xv, signm)));
            _mm256_storeu_ps(deq + i, val);
        }
        if (codes) {
            __m256i b = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(c, shuf), gather);
            _mm_storel_epi64((__m128i *)(codes + i), _mm256_castsi256_si128(b));
        }
    }
    return 1;
}

/* 2^k for -127 <= k <= 127 (2^-127 is an f32 subnormal) */
static inline float pow2f(int k)
{
    return spu_u2f_(k >= -126 ? (uint32_t)(k + 127) << 23 : 0x00400000u);
}

/* MX, RNE, float elements: whole rows. x * 2^-X is exact in f32 whenever
 * it matters (a product that falls below the f32 normal range is far below
 * half the element's smallest subnormal, so it rounds to 0 either way). */
AVX2 int spu_mx_rows_avx2(spu_mx_fmt f, const float *x, size_t rows, size_t cols,
                          size_t block, spu_mx_scale_rule rule, uint8_t *codes,
                          uint8_t *scales, float *deq)
{
    spu_fmt ef = spu_mx_elem(f);
    const spu_cvt_param *p = spu_cvt_param_get(ef);
    if (!p || p->kind != CVT_FLOAT || block % 8)
        return 0;
    fparam fp;
    fparam_init(&fp, p, SPU_OVF_SAT);
    float lut[256];
    for (unsigned c = 0; c < 256; c++)
        lut[c] = c <= p->maxmag ? spu_num_to_f32(ef, c) : 0.0f;
    const __m256i shuf = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
                                          0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m256i gather = _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0);
    const __m256i absm = _mm256_set1_epi32(0x7FFFFFFF);
    const __m256i magm = _mm256_set1_epi32((int)((1u << (p->bits - 1)) - 1));
    size_t nb = spu_mx_blocks_per_row(cols, block);
    for (size_t r = 0; r < rows; r++) {
        for (size_t b = 0; b < nb; b++) {
            size_t j0 = b * block, len = cols - j0 < block ? cols - j0 : block;
            size_t idx = r * cols + j0;
            const float *xb = x + idx;
            if (len % 8) {
                uint8_t sc = spu_mx_block_scalar_(f, xb, len, rule, SPU_ROUND_RNE, 0, idx,
                                                  codes ? codes + idx : NULL, deq ? deq + idx : NULL);
                if (scales)
                    scales[r * nb + b] = sc;
                continue;
            }
            __m256i mx = _mm256_setzero_si256();
            for (size_t i = 0; i < len; i += 8)
                mx = _mm256_max_epi32(mx, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(xb + i)), absm));
            __m128i m = _mm_max_epi32(_mm256_castsi256_si128(mx), _mm256_extracti128_si256(mx, 1));
            m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0x4E));
            m = _mm_max_epi32(m, _mm_shuffle_epi32(m, 0xB1));
            uint8_t sc = spu_mx_scale(f, (uint32_t)_mm_cvtsi128_si32(m), rule);
            if (scales)
                scales[r * nb + b] = sc;
            if (sc == SPU_E8M0_NAN) {
                spu_mx_block_scalar_(f, xb, len, rule, SPU_ROUND_RNE, 0, idx,
                                     codes ? codes + idx : NULL, deq ? deq + idx : NULL);
                continue;
            }
            int X = (int)sc - 127;
            const __m256 inv = _mm256_set1_ps(pow2f(-X));
            const __m256 scl = _mm256_set1_ps(pow2f(X));
            for (size_t i = 0; i < len; i += 8) {
                __m256 xv = _mm256_loadu_ps(xb + i);
                __m256i c = fast_rne8(_mm256_castps_si256(_mm256_mul_ps(xv, inv)), &fp);
                if (codes) {
                    __m256i bb = _mm256_permutevar8x32_epi32(_mm256_shuffle_epi8(c, shuf), gather);
                    _mm_storel_epi64((__m128i *)(codes + idx + i), _mm256_castsi256_si128(bb));
                }
                if (deq) {
                    __m256 v = _mm256_mul_ps(_mm256_i32gather_ps(lut, _mm256_and_si256(c, magm), 4), scl);
                    v = _mm256_or_ps(v, _mm256_andnot_ps(_mm256_castsi256_ps(absm), xv));
                    _mm256_storeu_ps(deq + idx + i, v);
                }
            }
        }
    }
    return 1;
}

#else /* not x86 */

int spu_avx2_ok_(void) { return 0; }
size_t spu_cvt_avx2(spu_fmt fmt, const float *in, void *out, size_t n, spu_round round,
                    spu_overflow ovf)
{
    (void)fmt; (void)in; (void)out; (void)n; (void)round; (void)ovf;
    return 0;
}
uint32_t spu_amax_bits_avx2(const float *x, size_t len) { (void)x; (void)len; return 0; }
int spu_mx_block_avx2(spu_mx_fmt f, const float *x, size_t len, int X, spu_round round,
                      uint8_t *codes, float *deq)
{
    (void)f; (void)x; (void)len; (void)X; (void)round; (void)codes; (void)deq;
    return 0;
}
int spu_mx_rows_avx2(spu_mx_fmt f, const float *x, size_t rows, size_t cols, size_t block,
                     spu_mx_scale_rule rule, uint8_t *codes, uint8_t *scales, float *deq)
{
    (void)f; (void)x; (void)rows; (void)cols; (void)block; (void)rule; (void)codes;
    (void)scales; (void)deq;
    return 0;
}
#endif
