// test_cli_run.cc -- `spu run` and the end-state comparison of two devices.
#include <gtest/gtest.h>

#include "run_cmd.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <sys/wait.h>

extern "C" {
#include "spu/compare.h"
#include "spu/isa.h"
}

namespace {

const std::string kSpu = std::string(SPU_BUILD_DIR) + "/bin/spu";

int sh(const std::string &cmd, std::string *out = nullptr) { return run_cmd(cmd, out); }

std::string write_tmp(const char *name, const std::string &text)
{
    std::string path = std::string(::testing::TempDir()) + name;
    std::ofstream(path) << text;
    return path;
}

const char *kMmProgram = R"(
    li r9, 16
    mm r1, r2, r9
    st r3
    halt
)";

TEST(CliRun, CompareEqualAndTheFirstDifference)
{
    std::string prog = write_tmp("spu_run_mm.s", kMmProgram), out;
    // A and B in banks 0 and 1 of a 4-bank model; same program on a 1-bank
    // model pays a conflict per k-step, so the counters must differ.
    EXPECT_EQ(sh(kSpu + " run " + prog + " --args 0,65536,131072 --compare model", &out), 0) << out;
    EXPECT_NE(out.find("same state"), std::string::npos) << out;
    EXPECT_EQ(sh(kSpu + " run " + prog + " --args 0,65536,131072 --compare 'model?banks=1'", &out), 1) << out;
    EXPECT_NE(out.find("first difference: counter cycles"), std::string::npos) << out;
}

TEST(CliRun, TrapsAndBadPrograms)
{
    std::string out;
    std::string prog = write_tmp("spu_run_trap.s", "li r9, 1\nmm r1, r0, r9\nhalt\n");
    // a trapped program is reported in full and exits 3 (not 0: scripts see it)
    EXPECT_EQ(sh(kSpu + " run " + prog + " --args 3 --json", &out), 3) << out;
    EXPECT_NE(out.find("\"trap\":\"MISALIGNED\""), std::string::npos) << out;
    EXPECT_EQ(sh(kSpu + " run " + prog + " --args 3", &out), 3) << out;
    EXPECT_NE(out.find(": TRAPPED (MISALIGNED) at pc"), std::string::npos) << out;
    // with --compare the exit says whether the two end states agree, trap or not
    EXPECT_EQ(sh(kSpu + " run " + prog + " --args 3 --compare model", &out), 0) << out;
    std::string loop = write_tmp("spu_run_loop.s", "top: jmp top\n");
    EXPECT_EQ(sh(kSpu + " run " + loop + " --watchdog 1000 --json", &out), 3) << out;
    EXPECT_NE(out.find("\"trap\":\"WATCHDOG\""), std::string::npos) << out;
    std::string bad = write_tmp("spu_run_bad.s", "frobnicate r1\n");
    EXPECT_EQ(sh(kSpu + " run " + bad, &out), 1);
    EXPECT_NE(out.find("spu_run_bad.s:1:1: error"), std::string::npos) << out;
    std::string odd = write_tmp("spu_run_odd.bin", "abc");
    EXPECT_EQ(sh(kSpu + " run " + odd, &out), 1);
    EXPECT_EQ(sh(kSpu + " run " + prog + " --args 1,2,3,4,5,6,7,8,9", &out), 2);
}

TEST(CliRun, TraceListsEveryRetiredInstruction)
{
    std::string prog = write_tmp("spu_run_trace.s", "li r9, 3\nloop r9, e\naddi r10, r10, 5\ne: halt\n"), out;
    ASSERT_EQ(sh(kSpu + " run " + prog + " --trace", &out), 0) << out;
    // li, loop, 3 x addi, halt = 6 retired instructions, then the end state
    size_t n = 0;
    for (size_t p = out.find("addi r10, r10, 5"); p != std::string::npos; p = out.find("addi r10, r10, 5", p + 1)) n++;
    EXPECT_EQ(n, 3u) << out;
    EXPECT_NE(out.find("r10 = 0x0000000f"), std::string::npos) << out;
    // overlapped issue (the default model, docs/isa.md): li and loop 2 each,
    // each addi 2 (the next, addi r10 again, names the r10 it writes), the
    // last addi's FETCH-ahead halt 1 earlier: 11 (12 without)
    EXPECT_NE(out.find("        11      3  HALTED"), std::string::npos) << out;
}

}  // namespace
