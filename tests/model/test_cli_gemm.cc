// test_cli_gemm.cc -- `spu gemm` and `spu info` end to end through the built
// binary: .npy in and out, --json keys, exit codes on bad input.
#include <cjson/cJSON.h>
#include <gtest/gtest.h>

#include "run_cmd.h"

#include <cstdio>
#include <cstdlib>
#include <map>
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

TEST(CliGemm, FloatDtypesJsonAndErrors)
{
    for (const char *dt : {"e4m3", "e5m2"}) {
        auto r = sh(kSpu + " gemm --device model --m 9 --n 11 --k 37 --dtype " + dt + " --seed 3 --json");
        ASSERT_EQ(r.code, 0) << r.out;
        for (const char *key : {"\"bitexact\":true", "\"out_dtype\":\"f32\"", "\"max_abs_err\":",
                                "\"rel_rms_err\":", "\"sqnr_db\":"})
            EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
        EXPECT_NE(r.out.find(std::string("\"dtype\":\"") + dt + "\""), std::string::npos);
        // the quantization error is real: SQNR finite and well below that of f32
        auto p = r.out.find("\"sqnr_db\":");
        double sqnr = std::atof(r.out.c_str() + p + 10);
        EXPECT_GT(sqnr, 10.0) << r.out;
        EXPECT_LT(sqnr, 60.0) << r.out;
    }
    // float32 .npy inputs quantized, and --codes with uint8 codes, f32 .npy out
    const uint32_t M = 4, K = 40, N = 6;
    spu_tensor a{}, b{}, ac{}, bc{};
    size_t sa[2] = {M, K}, sb[2] = {K, N};
    ASSERT_EQ(spu_tensor_alloc(&a, SPU_NPY_FLOAT32, 2, sa), 0);
    ASSERT_EQ(spu_tensor_alloc(&b, SPU_NPY_FLOAT32, 2, sb), 0);
    ASSERT_EQ(spu_tensor_alloc(&ac, SPU_NPY_UINT8, 2, sa), 0);
    ASSERT_EQ(spu_tensor_alloc(&bc, SPU_NPY_UINT8, 2, sb), 0);
    for (size_t i = 0; i < M * K; i++) {
        ((float *)a.data)[i] = 0.25f * (float)((int)(i % 9) - 4);      // exact in e4m3
        ((uint8_t *)ac.data)[i] = (uint8_t)(i % 9 < 4 ? 0x80 | (0x30 - 8 * (int)(i % 9)) : 0);
    }
    for (size_t i = 0; i < K * N; i++) ((float *)b.data)[i] = 1.0f;
    for (size_t i = 0; i < K * N; i++) ((uint8_t *)bc.data)[i] = 0x38;   // 1.0
    ASSERT_EQ(spu_npy_save(tmp("fa.npy").c_str(), &a), 0);
    ASSERT_EQ(spu_npy_save(tmp("fb.npy").c_str(), &b), 0);
    ASSERT_EQ(spu_npy_save(tmp("ca.npy").c_str(), &ac), 0);
    ASSERT_EQ(spu_npy_save(tmp("cb.npy").c_str(), &bc), 0);
    auto r = sh(kSpu + " gemm --dtype e4m3 --a " + tmp("fa.npy") + " --b " + tmp("fb.npy") + " --out " +
                tmp("fc.npy") + " --json");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("\"max_abs_err\":0"), std::string::npos) << r.out;   // exact inputs
    spu_tensor c{};
    char err[256];
    ASSERT_EQ(spu_npy_load(tmp("fc.npy").c_str(), &c, err, sizeof err), 0) << err;
    ASSERT_EQ(c.dtype, SPU_NPY_FLOAT32);
    for (uint32_t i = 0; i < M; i++) {
        double ref = 0;
        for (uint32_t k = 0; k < K; k++) ref += ((float *)a.data)[i * K + k];
        for (uint32_t j = 0; j < N; j++) EXPECT_EQ(((float *)c.data)[i * N + j], (float)ref);
    }
    spu_tensor_free(&c);
    r = sh(kSpu + " gemm --dtype e4m3 --codes --a " + tmp("ca.npy") + " --b " + tmp("cb.npy") + " --json");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("\"bitexact\":true"), std::string::npos) << r.out;
    // wrong input types, a device that lacks the format, a bad pair
    EXPECT_EQ(sh(kSpu + " gemm --dtype e4m3 --a " + tmp("ca.npy") + " --b " + tmp("cb.npy")).code, 1);
    EXPECT_EQ(sh(kSpu + " gemm --dtype e4m3 --codes --a " + tmp("fa.npy") + " --b " + tmp("fb.npy")).code, 1);
    EXPECT_EQ(sh(kSpu + " gemm --device 'model?formats=1' --dtype e5m2 --m 2 --n 2 --k 2").code, 1);
    EXPECT_EQ(sh(kSpu + " gemm --dtype e5m2 --out-dtype int32 --m 2 --n 2 --k 2").code, 2);
    EXPECT_EQ(sh(kSpu + " gemm --dtype int8 --codes --m 2 --n 2 --k 2").code, 2);
    EXPECT_EQ(sh(kSpu + " gemm --dtype mxfp8 --m 2 --n 2 --k 2").code, 2);
    spu_tensor_free(&a);
    spu_tensor_free(&b);
    spu_tensor_free(&ac);
    spu_tensor_free(&bc);
}

TEST(CliBench, FormatsTableEveryCarriedFormat)
{
    // (in a folder without build/ppa: no PPA report)
    const std::string dir = tmp("noppa_cwd");
    ASSERT_EQ(sh("rm -rf " + dir + " && mkdir -p " + dir).code, 0);
    auto r = sh("cd " + dir + " && " + kSpu + " bench formats --device model --m 16 --n 8 --k 96 --json");
    ASSERT_EQ(r.code, 0) << r.out;
    auto sqnr_of = [&](const char *fmt) {
        auto p = r.out.find(std::string("\"format\":\"") + fmt + "\"");
        EXPECT_NE(p, std::string::npos) << fmt << " in " << r.out;
        if (p == std::string::npos) return 0.0;
        auto q = r.out.find("\"sqnr_db\":", p);
        return std::atof(r.out.c_str() + q + 10);
    };
    double i8 = sqnr_of("int8"), e4 = sqnr_of("e4m3"), e5 = sqnr_of("e5m2");
    // 7 magnitude bits > 3 mantissa bits > 2 mantissa bits (uniform inputs)
    EXPECT_GT(i8, e4 + 6);
    EXPECT_GT(e4, e5 + 3);
    EXPECT_GT(e5, 10);
    EXPECT_GT(sqnr_of("bf16"), i8 + 3);   // 8 significant bits with an exponent > int8's 7 bits
    EXPECT_NE(r.out.find("\"ppa_report\":false"), std::string::npos);
    r = sh(kSpu + " bench formats --device 'model?formats=1' --m 8 --n 8 --k 8 --json");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find("\"format\":\"int8\""), std::string::npos);
    EXPECT_EQ(r.out.find("\"format\":\"e4m3\""), std::string::npos);
    EXPECT_EQ(sh(kSpu + " bench formats --k 0").code, 2);
    EXPECT_EQ(sh(kSpu + " bench formats --device nowhere:").code, 1);
}

// The PPA rows of a format: names spu_<board>_<R>x<C>_<key>[_<key>...] split
// into dtype keys, so mxfp8_e4m3's rows are not e4m3's; the MX rows, the
// narrow formats included, are in the table.
TEST(CliBench, FormatsPpaRowsMatchTheFormatExactly)
{
    const std::string rep = tmp("ppa.json");
    FILE *f = fopen(rep.c_str(), "w");
    ASSERT_NE(f, nullptr);
    fputs("{\"entries\":["
          "{\"kind\":\"spu\",\"name\":\"spu_icebreaker_4x4_int8\",\"device\":\"up5k\",\"status\":\"ok\",\"lcs\":100,\"fmax_mhz\":30},"
          "{\"kind\":\"spu\",\"name\":\"spu_icebreaker_4x4_int8_e4m3\",\"device\":\"up5k\",\"status\":\"ok\",\"lcs\":200,\"fmax_mhz\":29},"
          "{\"kind\":\"spu\",\"name\":\"spu_icebreaker_4x4_int8_mxfp8_e4m3\",\"device\":\"up5k\",\"status\":\"ok\",\"lcs\":300,\"fmax_mhz\":28},"
          "{\"kind\":\"spu\",\"name\":\"spu_hx8k_4x4_int8_e4m3_e5m2\",\"device\":\"hx8k\",\"status\":\"ok\",\"lcs\":400,\"fmax_mhz\":27},"
          "{\"kind\":\"spu\",\"name\":\"spu_hx8k_4x4_int8_mxfp4_e2m1\",\"device\":\"hx8k\",\"status\":\"FAIL: the design "
          "needs at least 17776 logic cells (17776 SB_LUT4, 4231 flip-flops); the hx8k has 7680\",\"lcs\":null,\"fmax_mhz\":null},"
          "{\"kind\":\"spu\",\"name\":\"spu_hx8k_4x4_all\",\"device\":\"hx8k\",\"status\":\"ok\",\"lcs\":900,\"fmax_mhz\":20},"
          "{\"kind\":\"unit\",\"name\":\"spu_mul_e4m3\",\"device\":\"up5k\",\"status\":\"ok\",\"lcs\":50,\"fmax_mhz\":90}"
          "]}", f);
    fclose(f);
    auto r = sh(kSpu + " bench formats --device model --m 8 --n 8 --k 40 --ppa " + rep + " --json");
    ASSERT_EQ(r.code, 0) << r.out;
    cJSON *root = cJSON_Parse(r.out.c_str());
    ASSERT_NE(root, nullptr) << r.out;
    std::map<std::string, std::string> names;   // format -> its row names, space separated
    cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItem(root, "results")) {
        std::string l;
        cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItem(e, "ppa")) l += std::string(cJSON_GetObjectItem(p, "name")->valuestring) + " ";
        names[cJSON_GetObjectItem(e, "format")->valuestring] = l;
    }
    cJSON_Delete(root);
    // the _all row carries every array dtype: it is every format's
    EXPECT_EQ(names["e4m3"], "spu_icebreaker_4x4_int8_e4m3 spu_hx8k_4x4_int8_e4m3_e5m2 spu_hx8k_4x4_all ");
    EXPECT_EQ(names["e5m2"], "spu_hx8k_4x4_int8_e4m3_e5m2 spu_hx8k_4x4_all ");
    EXPECT_EQ(names["mxfp8_e4m3"], "spu_icebreaker_4x4_int8_mxfp8_e4m3 spu_hx8k_4x4_all ");
    EXPECT_EQ(names["mxfp4_e2m1"], "spu_hx8k_4x4_int8_mxfp4_e2m1 spu_hx8k_4x4_all ");
    EXPECT_EQ(names["mxfp6_e2m3"], "spu_hx8k_4x4_all ");
    EXPECT_EQ(names["int8"], "spu_icebreaker_4x4_int8 spu_icebreaker_4x4_int8_e4m3 spu_icebreaker_4x4_int8_mxfp8_e4m3 "
                             "spu_hx8k_4x4_int8_e4m3_e5m2 spu_hx8k_4x4_int8_mxfp4_e2m1 spu_hx8k_4x4_all ");
    for (const char *fm : {"mxfp8_e4m3", "mxfp8_e5m2", "mxint8", "mxfp6_e3m2", "mxfp6_e2m3", "mxfp4_e2m1"})
        EXPECT_EQ(names.count(fm), 1u) << fm << " row missing";
    // a row stopped after Yosys: its LUT4 count as the LCs it needs at least
    EXPECT_NE(r.out.find("\"name\":\"spu_hx8k_4x4_int8_mxfp4_e2m1\",\"device\":\"hx8k\",\"status\":\"FAIL: the design "
                         "needs at least 17776 logic cells (17776 SB_LUT4, 4231 flip-flops); the hx8k has 7680\","
                         "\"lcs\":null,\"fmax_mhz\":null,\"lcs_at_least\":17776}"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("\"name\":\"spu_icebreaker_4x4_int8\",\"device\":\"up5k\",\"status\":\"ok\",\"lcs\":100,"
                         "\"fmax_mhz\":30,\"lcs_at_least\":null}"),
              std::string::npos)
        << r.out;
    auto t = sh(kSpu + " bench formats --device model --m 8 --n 8 --k 40 --ppa " + rep);
    ASSERT_EQ(t.code, 0) << t.out;
    EXPECT_NE(t.out.find("spu_hx8k_4x4_int8_mxfp4_e2m1         hx8k  does not fit: needs >= 17776 LCs (Yosys"),
              std::string::npos)
        << t.out;
    // an explicit --ppa that is not a report is an error, not an empty column
    EXPECT_EQ(sh(kSpu + " bench formats --device model --m 8 --n 8 --k 8 --ppa " + tmp("no-such.json")).code, 2);
}

// Without --ppa, bench formats reads the newer of build/ppa/report.json (make
// ppa) and build/ppa/formats/report.json (make ppa-formats), relative to the
// working directory: the array rows of make ppa-formats show up.
TEST(CliBench, FormatsReadsTheNewerPpaReport)
{
    const std::string dir = tmp("ppa_cwd");
    ASSERT_EQ(sh("rm -rf " + dir + " && mkdir -p " + dir + "/build/ppa/formats").code, 0);
    auto put = [](const std::string &path, const char *name) {
        FILE *f = fopen(path.c_str(), "w");
        ASSERT_NE(f, nullptr) << path;
        fprintf(f, "{\"entries\":[{\"kind\":\"spu\",\"name\":\"%s\",\"device\":\"up5k\",\"status\":\"ok\","
                   "\"lcs\":100,\"fmax_mhz\":30}]}", name);
        fclose(f);
    };
    const std::string cmd = "cd " + dir + " && " + kSpu + " bench formats --device model --m 8 --n 8 --k 8 --json";
    auto run = [&]() {
        auto r = sh(cmd);
        EXPECT_EQ(r.code, 0) << r.out;
        return r.out;
    };
    EXPECT_NE(run().find("\"ppa_report\":false"), std::string::npos);
    put(dir + "/build/ppa/formats/report.json", "spu_icebreaker_4x4_int8_e5m2");
    std::string out = run();
    EXPECT_NE(out.find("build/ppa/formats/report.json"), std::string::npos) << out;
    EXPECT_NE(out.find("spu_icebreaker_4x4_int8_e5m2"), std::string::npos) << out;
    // an older make ppa report does not hide the newer array rows; a newer one wins
    ASSERT_EQ(sh("touch -d '2001-01-01' " + dir + "/build/ppa/formats/report.json").code, 0);
    put(dir + "/build/ppa/report.json", "spu_hx8k_4x4_int8_e5m2");
    out = run();
    EXPECT_NE(out.find("spu_hx8k_4x4_int8_e5m2"), std::string::npos) << out;
    EXPECT_EQ(out.find("spu_icebreaker_4x4_int8_e5m2"), std::string::npos) << out;
    ASSERT_EQ(sh("touch -d '2001-01-01' " + dir + "/build/ppa/report.json && touch " + dir +
                 "/build/ppa/formats/report.json").code, 0);
    out = run();
    EXPECT_NE(out.find("spu_icebreaker_4x4_int8_e5m2"), std::string::npos) << out;
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

namespace {

// The output pipeline through the CLI (docs/numerics.md "Output pipeline"):
// every out dtype with relu and a bias, bit-exact against the CLI's own
// exact-rational reference; the bad combinations are clear errors.
TEST(CliGemm, OutDtypeBiasReluJsonAndErrors)
{
    const uint32_t N = 13;
    std::vector<float> bf(N);
    std::vector<int32_t> bi(N);
    for (uint32_t j = 0; j < N; j++) {
        bf[j] = (float)((int)j - 6) * 0.375f;
        bi[j] = ((int)j - 6) * 977;
    }
    const std::string bfp = tmp("bias_f.npy"), bip = tmp("bias_i.npy"), bshort = tmp("bias_short.npy");
    spu_tensor tf = { SPU_NPY_FLOAT32, 1, { N }, bf.data() }, ti = { SPU_NPY_INT32, 1, { N }, bi.data() },
               ts = { SPU_NPY_FLOAT32, 1, { 5 }, bf.data() };
    ASSERT_EQ(spu_npy_save(bfp.c_str(), &tf), 0);
    ASSERT_EQ(spu_npy_save(bip.c_str(), &ti), 0);
    ASSERT_EQ(spu_npy_save(bshort.c_str(), &ts), 0);
    const std::string base = kSpu + " gemm --device model --m 11 --n 13 --k 29 --seed 5 --json ";
    for (const char *out : {"f32", "bf16", "f16", "e4m3", "e5m2"}) {
        auto r = sh(base + "--dtype e4m3 --relu --bias " + bfp + " --out-dtype " + out);
        ASSERT_EQ(r.code, 0) << r.out;
        for (const char *key : {"\"bitexact\":true", "\"relu\":true", "\"bias\":true", "\"sqnr_db\":"})
            EXPECT_NE(r.out.find(key), std::string::npos) << key << " in " << r.out;
        EXPECT_NE(r.out.find(std::string("\"out_dtype\":\"") + out + "\""), std::string::npos) << r.out;
    }
    for (const char *out : {"int8 --shift 9", "int32", "e4m3 --ovf"}) {
        auto r = sh(base + "--bias " + bip + " --relu --out-dtype " + out);
        ASSERT_EQ(r.code, 0) << out << ": " << r.out;
        EXPECT_NE(r.out.find("\"bitexact\":true"), std::string::npos) << r.out;
    }
    // usage errors exit 2, refused inputs 1; stderr names the problem
    struct Bad { std::string args, msg; int code; } bad[] = {
        {"--out-dtype fp8", "unsupported --out-dtype", 2},
        {"--dtype e4m3 --out-dtype int8", "needs --dtype int8", 2},
        {"--dtype e5m2 --out-dtype int32", "needs --dtype int8", 2},
        {"--out-dtype bf16 --shift 3", "--shift", 2},
        {"--out-dtype f32 --ovf", "--ovf", 2},
        {"--out-dtype int8 --shift 40", "--shift needs an integer in 0..31", 2},
        {"--bias " + bshort, "N = 13", 1},
        {"--bias " + bfp, "not an integer", 1},
        {"--bias " + tmp("no_such_bias.npy"), "--bias", 1},
        {"--out-dtype bf16 --device 'model?formats=1'", "no float format", 1},
        {"--bias " + bip + " --device 'model?formats=1'", "--bias needs one", 1},
    };
    for (const auto &b : bad) {
        Result r{-1, ""};
        r.code = run_cmd(base + b.args, &r.out);   // stderr too
        EXPECT_EQ(r.code, b.code) << b.args << ": " << r.out;
        EXPECT_NE(r.out.find(b.msg), std::string::npos) << b.args << ": " << r.out;
    }
    std::remove(bfp.c_str());
    std::remove(bip.c_str());
    std::remove(bshort.c_str());
}

}  // namespace
