// test_install.cc -- `make install PREFIX=...` gives a usable SDK: headers
// (with the hw/isa tables they include), static and shared libraries, the CLI
// and spu.pc; a program built with pkg-config runs a GEMM on the model.
#include <gtest/gtest.h>

#include "run_cmd.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

int sh(const std::string &cmd, std::string *out = nullptr) { return run_cmd(cmd, out); }

TEST(Install, PkgConfigProgramRunsAGemm)
{
    const std::string build = SPU_BUILD_DIR;
    if (build.size() >= 5 && build.substr(build.size() - 5) == "/asan")
        GTEST_SKIP() << "the sanitizer build has no install tree; the plain suite covers it";
    char tmpl[] = "/tmp/spu_install_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string pfx = tmpl;
    std::string log;
    ASSERT_EQ(sh("make -s -C " SPU_SOURCE_DIR " BUILD=" SPU_BUILD_DIR " install PREFIX=" + pfx, &log), 0) << log;
    for (const char *f : {"/include/spu/spu.h", "/include/spu/spu_isa.def", "/include/spu/gemm.h",
                          "/lib/libspu.a", "/lib/libspu.so", "/bin/spu", "/lib/pkgconfig/spu.pc",
                          "/lib/udev/rules.d/99-spu.rules"})
        EXPECT_EQ(access((pfx + f).c_str(), R_OK), 0) << f;
    std::ofstream(pfx + "/use.c") << R"(#include <spu/gemm.h>
#include <stdio.h>
int main(void)
{
    spu_device *d;
    if (spu_open(&d, "model")) return 1;
    int8_t A[6] = {1, 2, 3, 4, 5, 6}, B[6] = {1, 0, 0, 1, 1, 1};
    int32_t C[4];
    int rc = spu_gemm_i8(d, 2, 2, 3, A, B, C, NULL, NULL);
    printf("%d %d %d %d %d %s\n", rc, C[0], C[1], C[2], C[3], spu_version());
    spu_close(d);
    return rc;
}
)";
    const std::string env = "PKG_CONFIG_PATH=" + pfx + "/lib/pkgconfig ";
    ASSERT_EQ(sh("cc -std=c11 -Wall -Werror -o " + pfx + "/use " + pfx + "/use.c $(" + env +
                     "pkg-config --cflags spu) $(" + env + "pkg-config --libs spu)", &log), 0) << log;
    std::string out;
    ASSERT_EQ(sh("LD_LIBRARY_PATH=" + pfx + "/lib " + pfx + "/use", &out), 0) << out;
    EXPECT_EQ(out.substr(0, 12), "0 4 5 10 11 ") << out;
    EXPECT_EQ(sh(pfx + "/bin/spu --version", &out), 0);
    sh("rm -rf " + pfx);
}

}  // namespace
