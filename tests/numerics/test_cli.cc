// test_cli.cc -- `spu convert` and `spu quantize` end to end through the
// built binary, checked against the library.
#include <gtest/gtest.h>

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "spu/npy.h"
#include "spu/numerics.h"
#include "../model/run_cmd.h"

namespace {

const std::string kSpu = SPU_BUILD_DIR "/bin/spu";

struct TmpDir {
    std::string path;
    TmpDir()
    {
        char t[] = "/tmp/spu_numerics_cli_XXXXXX";
        path = mkdtemp(t);
    }
    ~TmpDir() { std::system(("rm -rf " + path).c_str()); }
    std::string operator/(const std::string &n) const { return path + "/" + n; }
};

int run(const std::string &cmd, std::string *out = nullptr)
{
    FILE *p = popen((cmd + " 2>/dev/null").c_str(), "r");
    if (!p)
        return -1;
    std::string s;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        s.append(buf, n);
    int st = pclose(p);
    if (out)
        *out = s;
    spu_test::san_check(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::vector<uint8_t> slurp(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void spit(const std::string &path, const void *d, size_t n)
{
    std::ofstream f(path, std::ios::binary);
    f.write((const char *)d, (std::streamsize)n);
}

bool exists(const std::string &p)
{
    struct stat st;
    return stat(p.c_str(), &st) == 0;
}

std::vector<float> values(size_t n)
{
    std::vector<float> v(n);
    for (size_t i = 0; i < n; i++)
        v[i] = std::sin((float)i * 0.7f) * std::ldexp(1.0f, (int)(i % 23) - 8);
    v[3] = 464.0f; v[5] = 465.0f; v[7] = -INFINITY; v[11] = NAN; v[13] = -0.0f;
    return v;
}

TEST(Cli, ConvertMatchesLibrary)
{
    TmpDir d;
    std::vector<float> x = values(1001);
    spit(d / "x.f32", x.data(), x.size() * 4);
    for (const char *to : {"e4m3", "e5m2", "bf16", "f16", "e2m1", "e3m2", "e2m3", "e8m0"})
        for (const char *mode : {"--sat", "--ovf"})
            for (const char *r : {"rne", "rtz", "rna", "sr"}) {
                std::string cmd = kSpu + " convert --from f32 --to " + to + " " + mode + " --round " + r +
                                  " --seed 9 --in " + (d / "x.f32") + " --out " + (d / "y");
                ASSERT_EQ(0, run(cmd)) << cmd;
                spu_fmt f = (spu_fmt)spu_fmt_from_name(to);
                std::vector<uint8_t> want(x.size() * spu_fmt_elem_bytes(f));
                spu_cvt_opts o{(spu_round)spu_round_from_name(r),
                               std::string(mode) == "--ovf" ? SPU_OVF_OVF : SPU_OVF_SAT, 9, 0};
                ASSERT_EQ(0, spu_convert_from_f32(f, x.data(), want.data(), x.size(), &o));
                EXPECT_EQ(want, slurp(d / "y")) << cmd;
            }
}

// Sub-byte formats are written one code per byte: a large input must come out
// whole (a packed-size output buffer once overflowed here).
TEST(Cli, ConvertLargeInputToSubByteFormats)
{
    TmpDir d;
    std::vector<float> x = values(70001);
    spit(d / "x.f32", x.data(), x.size() * 4);
    for (const char *to : {"e2m1", "e3m2", "e2m3"}) {
        std::string cmd = kSpu + " convert --from f32 --to " + to + " --in " + (d / "x.f32") + " --out " + (d / "y");
        ASSERT_EQ(0, run(cmd)) << cmd;
        spu_fmt f = (spu_fmt)spu_fmt_from_name(to);
        std::vector<uint8_t> want(x.size());
        spu_cvt_opts o{SPU_ROUND_RNE, SPU_OVF_SAT, 0, 0};
        ASSERT_EQ(0, spu_convert_from_f32(f, x.data(), want.data(), x.size(), &o));
        EXPECT_EQ(want, slurp(d / "y")) << cmd;
    }
}

TEST(Cli, ConvertStdinStdoutAndRoundTrip)
{
    TmpDir d;
    std::vector<uint8_t> codes(256);
    for (int i = 0; i < 256; i++) codes[i] = (uint8_t)i;
    spit(d / "c.e4m3", codes.data(), 256);
    std::string out;
    ASSERT_EQ(0, run(kSpu + " convert --from e4m3 --to f32 < " + (d / "c.e4m3"), &out));
    ASSERT_EQ(1024u, out.size());
    for (int i = 0; i < 256; i++) {
        float v;
        std::memcpy(&v, out.data() + 4 * i, 4);
        float w = spu_num_to_f32(SPU_FMT_E4M3, (uint32_t)i);
        if (std::isnan(w)) EXPECT_TRUE(std::isnan(v));
        else EXPECT_EQ(w, v) << i;
    }
    ASSERT_EQ(0, run(kSpu + " convert --from e4m3 --to f32 < " + (d / "c.e4m3") + " | " + kSpu +
                     " convert --from f32 --to e4m3", &out));
    EXPECT_EQ(std::string((const char *)codes.data(), 256), out);
}

TEST(Cli, ConvertErrors)
{
    TmpDir d;
    uint8_t three[3] = {1, 2, 3};
    spit(d / "bad.f32", three, 3);
    EXPECT_NE(0, run(kSpu + " convert --from f32 --to e4m3 --in " + (d / "bad.f32") + " --out " + (d / "o")));
    EXPECT_FALSE(exists(d / "o"));
    uint8_t high[2] = {0x01, 0x10};  // 0x10 is not a 4-bit code
    spit(d / "bad.e2m1", high, 2);
    EXPECT_NE(0, run(kSpu + " convert --from e2m1 --to f32 --in " + (d / "bad.e2m1") + " --out " + (d / "o")));
    EXPECT_FALSE(exists(d / "o"));
    EXPECT_NE(0, run(kSpu + " convert --from f32 --to e4m4 --in " + (d / "bad.f32")));
    EXPECT_NE(0, run(kSpu + " convert --from f32 --to e4m3 --round up --in " + (d / "bad.f32")));
    EXPECT_NE(0, run(kSpu + " convert --to e4m3"));
    EXPECT_NE(0, run(kSpu + " convert --from f32 --to e4m3 --in " + (d / "missing")));
    EXPECT_EQ(0, run(kSpu + " convert --help"));
    EXPECT_EQ(0, run(kSpu + " quantize --help"));
    EXPECT_EQ(0, run(kSpu + " bench --help"));
    EXPECT_EQ(0, run(kSpu + " bench numerics --help"));
    EXPECT_NE(0, run(kSpu + " bench nothing"));
}

TEST(Cli, QuantizeMatchesLibrary)
{
    TmpDir d;
    const size_t rows = 3, cols = 70;  // 70 = 2 full blocks + a short one
    std::vector<float> x = values(rows * cols);
    x[11] = 1.0f;  // keep NaN and Inf out of the statistics test below
    x[7] = 2.0f;
    spu_tensor t{};
    size_t shape[2] = {rows, cols};
    ASSERT_EQ(0, spu_tensor_alloc(&t, SPU_NPY_FLOAT32, 2, shape));
    std::memcpy(t.data, x.data(), x.size() * 4);
    ASSERT_EQ(0, spu_npy_save((d / "x.npy").c_str(), &t));
    spu_tensor_free(&t);
    for (int f = 0; f < SPU_MX_COUNT; f++) {
        std::string out;
        std::string cmd = kSpu + " quantize --format " + spu_mx_name((spu_mx_fmt)f) + " --scale ceil --in " +
                          (d / "x.npy") + " --out " + (d / "y.npy") + " --codes " + (d / "c.bin") +
                          " --scales " + (d / "s.bin") + " --json";
        ASSERT_EQ(0, run(cmd, &out)) << cmd;
        std::vector<uint8_t> codes(rows * cols), scales(rows * 3);
        std::vector<float> deq(rows * cols);
        spu_mx_opts o{32, SPU_MX_SCALE_CEIL, SPU_ROUND_RNE, 0};
        ASSERT_EQ(0, spu_mx_quantize((spu_mx_fmt)f, x.data(), rows, cols, &o, codes.data(), scales.data(), deq.data()));
        spu_fmt ef = spu_mx_elem((spu_mx_fmt)f);
        std::vector<uint8_t> packed(spu_pack_bytes(ef, codes.size()));
        spu_pack_codes(ef, codes.data(), codes.size(), packed.data());
        EXPECT_EQ(packed, slurp(d / "c.bin")) << cmd;
        EXPECT_EQ(scales, slurp(d / "s.bin")) << cmd;
        spu_tensor y{};
        char err[128];
        ASSERT_EQ(0, spu_npy_load((d / "y.npy").c_str(), &y, err, sizeof err));
        ASSERT_EQ(SPU_NPY_FLOAT32, y.dtype);
        ASSERT_EQ(2, y.ndim);
        EXPECT_EQ(0, std::memcmp(y.data, deq.data(), deq.size() * 4)) << cmd;
        spu_tensor_free(&y);
        double se = 0, sx = 0, mx = 0;
        for (size_t i = 0; i < x.size(); i++) {
            double e = (double)deq[i] - x[i];
            se += e * e; sx += (double)x[i] * x[i]; mx = std::fmax(mx, std::fabs(e));
        }
        cJSON *j = cJSON_Parse(out.c_str());
        ASSERT_NE(nullptr, j) << out;
        EXPECT_NEAR(std::sqrt(se / (double)x.size()), cJSON_GetObjectItem(j, "rmse")->valuedouble, 1e-12);
        EXPECT_EQ(mx, cJSON_GetObjectItem(j, "max_abs_err")->valuedouble);
        EXPECT_NEAR(10 * std::log10(sx / se), cJSON_GetObjectItem(j, "sqnr_db")->valuedouble, 1e-9);
        cJSON_Delete(j);
    }
}

TEST(Cli, QuantizeElementFormatAndFloat16Input)
{
    TmpDir d;
    std::vector<float> x = values(64);
    std::vector<uint16_t> h(64);
    spu_convert_from_f32(SPU_FMT_F16, x.data(), h.data(), 64, nullptr);
    spu_tensor t{};
    size_t shape[1] = {64};
    ASSERT_EQ(0, spu_tensor_alloc(&t, SPU_NPY_FLOAT16, 1, shape));
    std::memcpy(t.data, h.data(), 128);
    ASSERT_EQ(0, spu_npy_save((d / "h.npy").c_str(), &t));
    spu_tensor_free(&t);
    ASSERT_EQ(0, run(kSpu + " quantize --format e5m2 --in " + (d / "h.npy") + " --out " + (d / "y.npy") +
                     " --codes " + (d / "c.bin")));
    std::vector<float> xf(64);
    spu_convert_to_f32(SPU_FMT_F16, h.data(), xf.data(), 64);
    std::vector<uint8_t> want(64);
    spu_convert_from_f32(SPU_FMT_E5M2, xf.data(), want.data(), 64, nullptr);
    EXPECT_EQ(want, slurp(d / "c.bin"));
    // element formats have no scale
    EXPECT_NE(0, run(kSpu + " quantize --format e5m2 --in " + (d / "h.npy") + " --out " + (d / "y.npy") +
                     " --scales " + (d / "s.bin")));
    EXPECT_NE(0, run(kSpu + " quantize --format mxfp9 --in " + (d / "h.npy") + " --out " + (d / "y.npy")));
    EXPECT_NE(0, run(kSpu + " quantize --format mxint8 --in " + (d / "nothere.npy") + " --out " + (d / "y.npy")));
}

}  // namespace
