// `spu infer` end to end: the JSON report, the sim run checked against the
// model, and clear errors with non-zero exits.
#include <cjson/cJSON.h>
#include <gtest/gtest.h>

#include <cstring>

#include <algorithm>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace {
struct Out {
    int code;
    std::string text;
};

Out run(const std::string &args)
{
    const std::string cmd = std::string(SPU_BUILD_DIR "/bin/spu infer ") + args + " 2>&1";
    Out o{ -1, "" };
    FILE *p = popen(cmd.c_str(), "r");
    if (!p)
        return o;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        o.text.append(buf, n);
    int st = pclose(p);
    o.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return o;
}
} // namespace

TEST(InferCli, JsonReportOnModel)
{
    Out o = run("--model fmnist-mlp --device model --images 50 --offset 10 --json --layers");
    ASSERT_EQ(o.code, 0) << o.text;
    cJSON *j = cJSON_Parse(o.text.c_str());
    ASSERT_NE(j, nullptr) << o.text;
    EXPECT_EQ(cJSON_GetObjectItem(j, "images")->valuedouble, 50);
    EXPECT_EQ(cJSON_GetObjectItem(j, "offset")->valuedouble, 10);
    const double acc = cJSON_GetObjectItem(j, "accuracy")->valuedouble;
    EXPECT_GT(acc, 0.7);
    EXPECT_LE(acc, 1.0);
    EXPECT_GT(cJSON_GetObjectItem(j, "fp32_agreement")->valuedouble, 0.9);
    EXPECT_TRUE(cJSON_IsNull(cJSON_GetObjectItem(j, "bitexact")));
    // 784*256 + 256*128 + 128*10 MACs per image
    EXPECT_EQ(cJSON_GetObjectItem(j, "macs_per_image")->valuedouble, 234752);
    EXPECT_GT(cJSON_GetObjectItem(j, "cycles_per_image")->valuedouble, 234752.0 / 64);
    cJSON *h = cJSON_GetObjectItem(j, "host_ops");
    ASSERT_TRUE(cJSON_IsArray(h));
    // the MLP runs as the int8 chain on `model` (docs/runtime.md "Int8
    // chain"): no host step between the input and the logits
    ASSERT_EQ(cJSON_GetArraySize(h), 0);
    cJSON *L = cJSON_GetObjectItem(j, "layers");
    ASSERT_EQ(cJSON_GetArraySize(L), 6);
    EXPECT_STREQ(cJSON_GetObjectItem(cJSON_GetArrayItem(L, 1), "runs_on")->valuestring, "device");
    EXPECT_GT(cJSON_GetObjectItem(cJSON_GetArrayItem(L, 1), "cycles_per_image")->valuedouble, 0);
    EXPECT_STREQ(cJSON_GetObjectItem(cJSON_GetArrayItem(L, 2), "runs_on")->valuestring, "device");
    cJSON_Delete(j);
}

TEST(InferCli, SimIsBitExactWithModel)
{
    Out o = run("--model fmnist-mlp --device sim --images 5 --json");
    ASSERT_EQ(o.code, 0) << o.text;
    cJSON *j = cJSON_Parse(o.text.c_str());
    ASSERT_NE(j, nullptr) << o.text;
    EXPECT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(j, "bitexact"))) << o.text;
    EXPECT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(j, "cycle_exact"))) << o.text;
    EXPECT_GT(cJSON_GetObjectItem(j, "link_bytes_per_image")->valuedouble, 0);
    cJSON_Delete(j);
}

TEST(InferCli, E4m3AndE5m2)
{
    for (const char *f : { "e4m3", "e5m2" }) {
        Out o = run(std::string("--model fmnist-cnn --device model --images 40 --json --format ") + f);
        ASSERT_EQ(o.code, 0) << o.text;
        cJSON *j = cJSON_Parse(o.text.c_str());
        ASSERT_NE(j, nullptr) << o.text;
        EXPECT_STREQ(cJSON_GetObjectItem(j, "format")->valuestring, f);
        EXPECT_GT(cJSON_GetObjectItem(j, "accuracy")->valuedouble, 0.7) << o.text;
        EXPECT_GT(cJSON_GetObjectItem(j, "fp32_agreement")->valuedouble, 0.9) << o.text;
        EXPECT_GT(cJSON_GetObjectItem(j, "gemms_per_image")->valuedouble, 0) << o.text;
        cJSON_Delete(j);
    }
    Out o = run("--model fmnist-vit --device sim --images 2 --format e5m2 --json");
    ASSERT_EQ(o.code, 0) << o.text;
    cJSON *j = cJSON_Parse(o.text.c_str());
    ASSERT_NE(j, nullptr) << o.text;
    EXPECT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(j, "bitexact"))) << o.text;
    EXPECT_TRUE(cJSON_IsTrue(cJSON_GetObjectItem(j, "cycle_exact"))) << o.text;
    cJSON_Delete(j);
}

TEST(InferCli, BriefIsOneLine)
{
    Out o = run("--model fmnist-cnn --device model --images 20 --brief");
    ASSERT_EQ(o.code, 0) << o.text;
    EXPECT_EQ(std::count(o.text.begin(), o.text.end(), '\n'), 1) << o.text;
    EXPECT_EQ(o.text.rfind("fmnist-cnn  int8  model      20 images  accuracy ", 0), 0u) << o.text;
    EXPECT_NE(o.text.find("bitexact n/a"), std::string::npos) << o.text;
}

TEST(InferCli, Errors)
{
    Out o = run("--model fmnist-mlp --format e4m3 --device 'model?formats=1' --images 5");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("device 'model?formats=1' does not carry e4m3 (INFO formats: int8)"), std::string::npos)
        << o.text;
    o = run("--model fmnist-mlp --format int4 --images 5");     // mxfp4 arrives with mx6's dtype rows
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("format int4 is not carried by the array yet"), std::string::npos) << o.text;
    o = run("--model fmnist-mlp --format fp32 --images 5");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("format fp32 is not a device format"), std::string::npos) << o.text;
    o = run("--model fmnist-mlp --format int3");
    EXPECT_EQ(o.code, 2);
    EXPECT_NE(o.text.find("unknown format 'int3'"), std::string::npos) << o.text;
    // the list of formats comes from the dtype table: its last array row is named
    EXPECT_NE(o.text.find("mxfp4_e2m1)"), std::string::npos) << o.text;
    o = run("--model fmnist-nothing");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("not found"), std::string::npos) << o.text;
    o = run("--model /nonexistent/graph.json");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("cannot open the graph file"), std::string::npos) << o.text;
    o = run("--model fmnist-mlp --images 0");
    EXPECT_EQ(o.code, 2);
    o = run("--model fmnist-mlp --offset 9990 --images 20");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("beyond the 10000 test images"), std::string::npos) << o.text;
    o = run("--model fmnist-mlp --data /nonexistent");
    EXPECT_EQ(o.code, 1);
    EXPECT_NE(o.text.find("/nonexistent/t10k-images-idx3-ubyte.gz"), std::string::npos) << o.text;
    o = run("");
    EXPECT_EQ(o.code, 2);
}
