// test_usb_qemu.cc -- `make test-usb`: each test boots a QEMU (TCG) guest
// with a real Linux USB stack (tests/usb/run_qemu.sh) and checks what the
// guest reported on its serial console: every SPU-CHECK passed, the GEMMs
// were bit-exact, the device tests (tests/usb/device) ran and passed -- none
// skipped -- through libftdi1 / libusb inside the guest. The guest's link
// throughput lines are printed here.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace {

const std::string kSrc = SPU_SOURCE_DIR;
const std::string kBuild = SPU_BUILD_DIR;

struct GuestRun {
    int rc = -1;
    std::string console;
};

GuestRun boot(const std::string &which)
{
    GuestRun g;
    const std::string out = kBuild + "/usb/run-" + which;
    const std::string cmd = "BUILD='" + kBuild + "' '" + kSrc + "/tests/usb/run_qemu.sh' " + which + " '" + out + "' 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    std::string log;
    if (p) {
        char buf[4096];
        size_t n;
        while ((n = fread(buf, 1, sizeof buf, p)) > 0)
            log.append(buf, n);
        int st = pclose(p);
        g.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    }
    std::ifstream f(out + "/console.log");
    std::stringstream ss;
    ss << f.rdbuf();
    g.console = ss.str();
    printf("%s", log.c_str());
    return g;
}

void print_lines(const std::string &text, const std::regex &re)
{
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (std::regex_search(line, re))
            printf("  guest| %s\n", line.c_str());
}

// The checks every case must report as passed (guest_init.sh names them).
void expect_checks(const GuestRun &g, std::initializer_list<const char *> names)
{
    for (const char *n : names) {
        EXPECT_NE(g.console.find(std::string("SPU-CHECK ") + n + " PASS"), std::string::npos)
            << "check '" << n << "' did not pass in the guest";
    }
    EXPECT_EQ(g.console.find(" FAIL"), std::string::npos) << "a guest check failed";
    EXPECT_NE(g.console.find("SPU-DONE fails=0"), std::string::npos) << "the guest did not finish";
    // spu gemm's own verdict, and the device tests: all ran, none skipped or failed
    EXPECT_NE(g.console.find("bit-exact vs plain C reference"), std::string::npos);
    std::smatch m;
    EXPECT_TRUE(std::regex_search(g.console, m, std::regex("\\[  PASSED  \\] ([0-9]+) tests?\\.")))
        << "the device tests did not report";
    if (!m.empty()) {
        EXPECT_EQ(m[1].str(), "6") << "device tests passed";
    }
    EXPECT_EQ(g.console.find("[  SKIPPED ]"), std::string::npos) << "device tests skipped in the guest";
    EXPECT_EQ(g.console.find("[  FAILED  ]"), std::string::npos);
    print_lines(g.console, std::regex("^\\[ (link|gemm) +\\]|^SPU-CHECK|^SPU-GUEST|bit-exact|wall"));
}

TEST(UsbQemu, FtdiGemmBitExactThroughEmulatedFt232)
{
    GuestRun g = boot("ftdi");
    EXPECT_EQ(g.rc, 0) << g.console;
    expect_checks(g, { "enumerate", "ftdi_sio_bound", "devices_lists_ftdi", "gemm", "device_tests",
                       "absent_chip", "refused_baud", "still_answers" });
}

TEST(UsbQemu, UsbGemmBitExactThroughUsbredirBridge)
{
    GuestRun g = boot("usb");
    EXPECT_EQ(g.rc, 0) << g.console;
    expect_checks(g, { "enumerate", "devices_lists_usb", "gemm", "device_tests", "absent_device",
                       "no_interface", "wrong_endpoint", "still_answers" });
}

// The raw bulk pipe of the usb:// path (no link protocol, no spu-sim):
// every byte echoed and compared; the throughput is printed, not asserted.
TEST(UsbQemu, RawBulkEchoThroughUsbredirBridge)
{
    GuestRun g = boot("echo");
    EXPECT_EQ(g.rc, 0) << g.console;
    for (const char *n : { "enumerate", "echo_64k", "echo_4k", "not_an_spu" })
        EXPECT_NE(g.console.find(std::string("SPU-CHECK ") + n + " PASS"), std::string::npos) << n;
    EXPECT_NE(g.console.find("SPU-DONE fails=0"), std::string::npos);
    print_lines(g.console, std::regex("^echo:|^SPU-CHECK"));
}

}  // namespace
