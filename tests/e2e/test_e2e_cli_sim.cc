// test_e2e_cli_sim.cc -- the CLI on the sim device under bad input and link
// faults: an endless loop without a watchdog, an unwritable trace, and
// `--json` reporting the link's retries.
#include <gtest/gtest.h>

#include "../model/run_cmd.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

namespace {

const std::string kSpu = std::string(SPU_BUILD_DIR) + "/bin/spu";

std::string tmpfile_with(const std::string &name, const std::string &text)
{
    std::string p = std::string(::testing::TempDir()) + "spu_e2e_cli_" + name;
    std::ofstream(p) << text;
    return p;
}

}  // namespace

// On main `spu run` waited 600 s for this and reported a timeout; now the
// default wait with --watchdog 0 is 10 s, after which the device is reset
// (and keeps answering).
TEST(CliSim, EndlessLoopWithoutWatchdogIsStoppedAndReported)
{
    const std::string loop = tmpfile_with("loop.s", "top:\n  jmp top\n");
    std::string out;
    int rc = run_cmd("timeout 300 " + kSpu + " run " + loop + " --device sim --watchdog 0 --timeout 2", &out);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find("did not halt within 2 s"), std::string::npos) << out;
    EXPECT_NE(out.find("the device was reset"), std::string::npos) << out;
    unlink(loop.c_str());
}

TEST(CliSim, UnwritableTraceFailsClearly)
{
    std::string out;
    int rc = run_cmd(kSpu + " info --device 'sim?trace=/nonexistent/dir/t.fst'", &out);
    EXPECT_EQ(rc, 1) << out;
    EXPECT_NE(out.find("cannot write /nonexistent/dir/t.fst"), std::string::npos) << out;
}

// A GEMM through the CLI over a noisy link: bit-exact, and --json says how
// many frames had to be sent again.
TEST(CliSim, GemmJsonReportsRetriesOnANoisyLink)
{
    std::string out;
    int rc = run_cmd(kSpu + " gemm --device 'sim?ber=1e-3&drop=1e-4&seed=9&timeout=15&retries=60' "
                            "--m 16 --n 16 --k 40 --json", &out, true);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("\"bitexact\":true"), std::string::npos) << out;
    size_t at = out.find("\"retries\":");
    ASSERT_NE(at, std::string::npos) << out;
    EXPECT_GT(atoi(out.c_str() + at + 10), 0) << out;
    rc = run_cmd(kSpu + " gemm --device sim --m 8 --n 8 --k 8 --json", &out, true);
    ASSERT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("\"retries\":0"), std::string::npos) << out;
}
