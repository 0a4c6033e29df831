// test_reference.cc -- the numerics library against the independent
// reference (reference.h): all 2^16 bf16 and f16 inputs into every element
// format under rne/rtz/rna x sat/ovf, every 8-bit code decoded.
#include "reference.h"

#include <gtest/gtest.h>

#include <cstring>

#include "spu/numerics.h"

namespace {

uint32_t f2u(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
float u2f(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

// NaN rule of docs/numerics.md, from the f32 bits (the reference value has no payload)
uint32_t expected_nan(const ref::Fmt &f, uint32_t x)
{
    uint32_t s = x >> 31;
    if (f.ieee)
        return (s << (f.bits - 1)) | (((1u << f.ebits) - 1) << f.mbits) | (1u << (f.mbits - 1)) |
               ((x & 0x7FFFFF) >> (23 - f.mbits));
    if (f.e4m3_nan)
        return (s << 7) | 0x7F;
    if (f.is_e8m0)
        return 0xFF;
    return 0;
}

void check_all_16bit_inputs(bool src_bf16)
{
    for (const ref::Fmt &f : ref::formats()) {
        int fmt = spu_fmt_from_name(f.name.c_str());
        ASSERT_GE(fmt, 0) << f.name;
        ref::Grid g = ref::make_grid(f);
        for (int r = 0; r < 3; r++) {
            for (int ovf = 0; ovf < 2; ovf++) {
                std::vector<float> in(65536);
                for (uint32_t c = 0; c < 65536; c++)
                    in[c] = src_bf16 ? u2f(c << 16) : spu_num_to_f32(SPU_FMT_F16, c);
                std::vector<uint16_t> out16(65536);
                std::vector<uint8_t> out8(65536);
                spu_cvt_opts o{(spu_round)r, (spu_overflow)ovf, 0, 0};
                void *outp = f.bits > 8 ? (void *)out16.data() : (void *)out8.data();
                ASSERT_EQ(0, spu_convert_from_f32((spu_fmt)fmt, in.data(), outp, 65536, &o));
                int bad = 0;
                for (uint32_t c = 0; c < 65536 && bad < 5; c++) {
                    uint32_t x = f2u(in[c]);
                    uint32_t want = std::isnan(in[c]) ? expected_nan(f, x)
                                                      : ref::convert(g, (long double)in[c], (ref::Round)r, ovf);
                    uint32_t got = f.bits > 8 ? out16[c] : out8[c];
                    uint32_t one = spu_f32_to_code((spu_fmt)fmt, x, (spu_round)r, (spu_overflow)ovf, 0);
                    if (got != want || one != want) {
                        bad++;
                        ADD_FAILURE() << (src_bf16 ? "bf16 " : "f16 ") << std::hex << "0x" << c << " ("
                                      << in[c] << ") -> " << f.name << " round " << r << " ovf " << ovf
                                      << ": bulk 0x" << got << " scalar 0x" << one << " reference 0x" << want;
                    }
                }
            }
        }
    }
}

TEST(Reference, AllBf16InputsEveryFormatRoundingOverflow) { check_all_16bit_inputs(true); }
TEST(Reference, AllF16InputsEveryFormatRoundingOverflow) { check_all_16bit_inputs(false); }

TEST(Reference, EveryCodeDecodes)
{
    for (const ref::Fmt &f : ref::formats()) {
        if (f.bits > 8)
            continue;
        int fmt = spu_fmt_from_name(f.name.c_str());
        for (uint32_t c = 0; c < (1u << f.bits); c++) {
            long double want = ref::decode(f, c);
            float got = spu_num_to_f32((spu_fmt)fmt, c);
            spu_num d;
            ASSERT_EQ(0, spu_num_decode((spu_fmt)fmt, c, &d));
            if (std::isnan(want)) {
                EXPECT_TRUE(std::isnan(got)) << f.name << " " << c;
                EXPECT_EQ(SPU_FCLASS_NAN, d.cls) << f.name << " " << c;
                continue;
            }
            EXPECT_EQ(want, (long double)got) << f.name << " code " << c;
            EXPECT_EQ(std::signbit(want), std::signbit(got)) << f.name << " code " << c;
            if (std::isinf(want)) {
                EXPECT_EQ(SPU_FCLASS_INF, d.cls);
                continue;
            }
            long double v = std::ldexp((long double)d.sig, d.exp) * (d.sign ? -1 : 1);
            EXPECT_EQ(want, v) << f.name << " code " << c << " sig " << d.sig << " exp " << d.exp;
            EXPECT_EQ(want == 0, d.cls == SPU_FCLASS_ZERO);
        }
    }
}

// f16 and bf16 codes too (2^16 each), through the reference formula
TEST(Reference, Every16BitCodeDecodes)
{
    for (const char *name : {"f16", "bf16"}) {
        ref::Fmt f{};
        for (const ref::Fmt &x : ref::formats())
            if (x.name == name)
                f = x;
        int fmt = spu_fmt_from_name(name);
        for (uint32_t c = 0; c < 65536; c++) {
            long double want = ref::decode(f, c);
            float got = spu_num_to_f32((spu_fmt)fmt, c);
            if (std::isnan(want))
                ASSERT_TRUE(std::isnan(got));
            else
                ASSERT_EQ(want, (long double)got) << name << " " << c;
        }
    }
}

}  // namespace
