// test_cli_gemm.cc -- `spu gemm` and `spu info` end to end through the built
// binary: .npy in and out, --json keys, exit codes on bad input.
#include <gtest/gtest.h>

#include "run_cmd.h"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <sys/wait.h>
#include <vector>

extern "C" {
#include "spu/gemm.h"
#include "spu/npy.h"
}

namespace {

const std::string kSpu = std::string(SPU_BUILD_DIR) + "/bin/spu";

struct Result { int code; std::string out; };

Result sh(const std::string &cmd)
{
    Result r{-1, ""};
    r.code = run_cmd(cmd, &r.out, true);
    return r;
}

std::string tmp(const char *name) { return std::string(::testing::TempDir()) + "spu_cli_" + name; }

TEST(CliGemm, RandomOperandsJson)
{
    auto r = sh(kSpu + " gemm --device model --m 19 --n 23 --k 41 --seed 7 --json");
    ASSERT_EQ(r.code, 0) << r.out;
    for (const char *key : {"\"device\":\"model\"", "\"m\":19", "\"n\":23", "\"k\":41", "\"dtype\":\"int8\"",
                            "\"bitexact\":true", "\"cycles\":", "\"model_cycles\":", "\"macs\":17917",
                            "\"utilization\":", "\"link_bytes\":", "\"wall_s\":"})
        EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
}

TEST(CliGemm, NpyInAndOut)
{
    const uint32_t M = 13, K = 70, N = 9;
    std::mt19937 rng(3);
    spu_tensor a{}, b{};
    size_t sa[2] = {M, K}, sb[2] = {K, N};
    ASSERT_EQ(spu_tensor_alloc(&a, SPU_NPY_INT8, 2, sa), 0);
    ASSERT_EQ(spu_tensor_alloc(&b, SPU_NPY_INT8, 2, sb), 0);
    for (size_t i = 0; i < M * K; i++) ((int8_t *)a.data)[i] = (int8_t)rng();
    for (size_t i = 0; i < K * N; i++) ((int8_t *)b.data)[i] = (int8_t)rng();
    ASSERT_EQ(spu_npy_save(tmp("a.npy").c_str(), &a), 0);
    ASSERT_EQ(spu_npy_save(tmp("b.npy").c_str(), &b), 0);
    std::remove(tmp("c.npy").c_str());
    auto r = sh(kSpu + " gemm --device model --a " + tmp("a.npy") + " --b " + tmp("b.npy") + " --out " + tmp("c.npy"));
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("bit-exact"), std::string::npos);
    spu_tensor c{};
    char err[256];
    ASSERT_EQ(spu_npy_load(tmp("c.npy").c_str(), &c, err, sizeof err), 0) << err;
    ASSERT_EQ(c.dtype, SPU_NPY_INT32);
    ASSERT_EQ(c.ndim, 2);
    EXPECT_EQ(c.shape[0], M);
    EXPECT_EQ(c.shape[1], N);
    std::vector<int32_t> ref(M * N);
    spu_gemm_i8_reference(M, N, K, (int8_t *)a.data, (int8_t *)b.data, ref.data());
    for (size_t i = 0; i < M * N; i++) ASSERT_EQ(((int32_t *)c.data)[i], ref[i]) << i;
    // shape flags that disagree with the files are an error
    EXPECT_NE(sh(kSpu + " gemm --a " + tmp("a.npy") + " --b " + tmp("b.npy") + " --m 12").code, 0);
    // inner dimensions that differ
    EXPECT_NE(sh(kSpu + " gemm --a " + tmp("a.npy") + " --b " + tmp("a.npy")).code, 0);
    spu_tensor_free(&a);
    spu_tensor_free(&b);
    spu_tensor_free(&c);
}

TEST(CliGemm, BadInputIsAClearError)
{
    EXPECT_EQ(sh(kSpu + " gemm --m 0 --n 1 --k 1").code, 2);
    EXPECT_EQ(sh(kSpu + " gemm --m 1 --n 1").code, 2);
    EXPECT_EQ(sh(kSpu + " gemm --m 1 --n 1 --k 1 --dtype fp8").code, 2);
    EXPECT_EQ(sh(kSpu + " gemm --m x --n 1 --k 1").code, 2);
    EXPECT_EQ(sh(kSpu + " gemm --m 1 --n 1 --k 1 --device nowhere:").code, 1);
    EXPECT_EQ(sh(kSpu + " gemm --m 1 --n 1 --k 1 --device ftdi://0403:6010/2").code, 1);
    EXPECT_EQ(sh(kSpu + " gemm --a /nonexistent.npy --b /nonexistent.npy").code, 1);
    // a float32 matrix is not an int8 operand
    spu_tensor f{};
    size_t s[2] = {2, 2};
    ASSERT_EQ(spu_tensor_alloc(&f, SPU_NPY_FLOAT32, 2, s), 0);
    ASSERT_EQ(spu_npy_save(tmp("f.npy").c_str(), &f), 0);
    EXPECT_EQ(sh(kSpu + " gemm --a " + tmp("f.npy") + " --b " + tmp("f.npy")).code, 1);
    spu_tensor_free(&f);
    EXPECT_EQ(sh(kSpu + " nosuchcommand").code, 2);
    EXPECT_EQ(sh(kSpu + " gemm --help").code, 0);
}

TEST(CliInfo, ModelJson)
{
    auto r = sh(kSpu + " info --device 'model?rows=4&cols=4' --json");
    ASSERT_EQ(r.code, 0);
    EXPECT_NE(r.out.find("\"rows\":4"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\"isa_match\":true"), std::string::npos) << r.out;
}

}  // namespace

namespace {

TEST(CliBenchGemm, SweepJsonAndBadShapes)
{
    auto r = sh(kSpu + " bench gemm --shapes 3x5x7,9x9x40 --json");
    ASSERT_EQ(r.code, 0) << r.out;
    for (const char *key : {"\"m\":3", "\"k\":40", "\"bitexact\":true", "\"model_cycles\":", "\"utilization\":"})
        EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
    EXPECT_EQ(r.out.find("\"bitexact\":false"), std::string::npos) << r.out;
    EXPECT_EQ(sh(kSpu + " bench gemm --shapes 3x5").code, 2);
    EXPECT_EQ(sh(kSpu + " bench gemm --shapes 3x0x5").code, 2);
    EXPECT_EQ(sh(kSpu + " bench gemm --device nowhere:").code, 1);
}

}  // namespace
