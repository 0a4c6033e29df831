// test_device.cc -- the public device API: URIs, argument and range checks,
// error table, programs and status on the model device.
#include <gtest/gtest.h>

#include <cstring>

#include <set>
#include <string>
#include <vector>

extern "C" {
#include "spu/isa.h"
#include "spu/spu.h"
}

namespace {

TEST(Device, UriSchemes)
{
    spu_device *d = nullptr;
    EXPECT_EQ(spu_open(&d, "model"), 0);
    spu_close(d);
    // the USB transports are always built; with no such board: ENODEV and a why
    EXPECT_EQ(spu_open(&d, "ftdi://0403:6010/2"), SPU_ENODEV);
    EXPECT_EQ(d, nullptr);
    EXPECT_NE(strstr(spu_error_detail(), "FTDI device 0403:6010 interface B"), nullptr) << spu_error_detail();
    EXPECT_EQ(spu_open(&d, "usb://0403:6010"), SPU_ENODEV);
    EXPECT_NE(strstr(spu_error_detail(), "USB device 0403:6010 not found"), nullptr) << spu_error_detail();
    EXPECT_EQ(spu_open(&d, "model"), 0);
    EXPECT_STREQ(spu_error_detail(), "");   // cleared by the next spu_open
    spu_close(d);
    EXPECT_EQ(spu_open(&d, "bogus:x"), SPU_EINVAL);
    EXPECT_EQ(spu_open(&d, ""), SPU_EINVAL);
    EXPECT_EQ(spu_open(&d, nullptr), SPU_EINVAL);
    EXPECT_EQ(spu_open(&d, "Model"), SPU_EINVAL);
    EXPECT_EQ(spu_open(&d, "model?rows=0"), SPU_EINVAL);
    EXPECT_EQ(spu_open(&d, "model?rows=abc"), SPU_EINVAL);
    EXPECT_EQ(spu_open(&d, "model?spad=1000"), SPU_EINVAL);  // not a multiple of banks*word
    EXPECT_EQ(spu_open(&d, "model?chain=2"), SPU_EINVAL);     // 0 or 1 (docs/isa.md "Chained streams")
    EXPECT_EQ(spu_open(&d, "model?chain=1&spram=1&vector=0"), SPU_EINVAL);
    spu_close(nullptr);
}

TEST(Device, InfoOfAConfiguredModel)
{
    spu_device *d;
    ASSERT_EQ(spu_open(&d, "model?rows=4&cols=6&spad=12288&banks=2&ucode=64"), 0);
    spu_info_t in;
    ASSERT_EQ(spu_info(d, &in), 0);
    EXPECT_EQ(in.rows, 4u);
    EXPECT_EQ(in.cols, 6u);
    EXPECT_EQ(in.word_bytes, 6u);
    EXPECT_EQ(in.spad_bytes, 12288u);
    EXPECT_EQ(in.spad_banks, 2u);
    EXPECT_EQ(in.ucode_words, 64u);
    EXPECT_EQ(in.isa_hash, spu_isa_hash());
    EXPECT_EQ(in.formats & (1u << SPU_DTYPE_INT8), 1u << SPU_DTYPE_INT8);
    spu_close(d);
}

TEST(Device, ScratchpadBounds)
{
    spu_device *d;
    ASSERT_EQ(spu_open(&d, "model"), 0);
    std::vector<uint8_t> buf(256), back(256);
    for (size_t i = 0; i < buf.size(); i++) buf[i] = (uint8_t)(i * 7 + 1);
    EXPECT_EQ(spu_write(d, 262144 - 256, buf.data(), 256), 0);
    EXPECT_EQ(spu_read(d, 262144 - 256, back.data(), 256), 0);
    EXPECT_EQ(buf, back);
    EXPECT_EQ(spu_write(d, 262144 - 255, buf.data(), 256), SPU_ERANGE);
    EXPECT_EQ(spu_read(d, 262144, back.data(), 1), SPU_ERANGE);
    EXPECT_EQ(spu_read(d, 0xFFFFFFFFu, back.data(), 2), SPU_ERANGE);
    EXPECT_EQ(spu_write(d, 262144, buf.data(), 0), 0);
    EXPECT_EQ(spu_write(d, 0, nullptr, 4), SPU_EINVAL);
    spu_close(d);
}

TEST(Device, ProgramsRunsAndTraps)
{
    spu_device *d;
    ASSERT_EQ(spu_open(&d, "model?ucode=16"), 0);
    uint32_t args[2] = {1, 2};
    EXPECT_EQ(spu_run(d, args, 2), SPU_EINVAL);  // no program yet
    std::vector<uint32_t> big(17, 0);
    spu_program p = {big.data(), big.size(), 0};
    EXPECT_EQ(spu_load_program(d, &p), SPU_ERANGE);
    uint32_t w[2];
    spu_insn jmp = {SPU_OP_JMP, 0, 0, 0, 0}, halt = {SPU_OP_HALT, 0, 0, 0, 0};
    spu_isa_encode(&jmp, &w[0]);
    spu_isa_encode(&halt, &w[1]);
    p = {w, 1, 0};
    ASSERT_EQ(spu_load_program(d, &p), 0);
    ASSERT_EQ(spu_set_watchdog(d, 1000), 0);
    ASSERT_EQ(spu_run(d, args, 2), 0);
    spu_status_t st;
    EXPECT_EQ(spu_wait(d, 1000, &st), SPU_ETRAP);
    EXPECT_EQ(st.state, SPU_STATE_TRAPPED);
    EXPECT_EQ(st.trap, SPU_TRAP_WATCHDOG);
    EXPECT_EQ(spu_ping(d), 0);
    EXPECT_EQ(spu_reset(d), 0);
    ASSERT_EQ(spu_status(d, &st), 0);
    EXPECT_EQ(st.state, SPU_STATE_IDLE);
    p = {w + 1, 1, 0};
    ASSERT_EQ(spu_load_program(d, &p), 0);
    ASSERT_EQ(spu_run(d, nullptr, 0), 0);
    EXPECT_EQ(spu_wait(d, 1000, &st), 0);
    EXPECT_EQ(st.state, SPU_STATE_HALTED);
    EXPECT_EQ(spu_run(d, args, SPU_NARGS + 1), SPU_EINVAL);
    spu_close(d);
}

TEST(Errors, TableIsCompleteAndDistinct)
{
    std::set<std::string> msgs, names;
    int n = 0;
#define X(name, value, msg)                                           \
    EXPECT_STREQ(spu_strerror(value), msg);                           \
    EXPECT_EQ(std::string(spu_error_name(value)), "SPU_" #name);      \
    msgs.insert(spu_strerror(value));                                 \
    names.insert(spu_error_name(value));                              \
    n++;
    SPU_ERRORS(X)
#undef X
    EXPECT_EQ((int)msgs.size(), n);
    EXPECT_EQ((int)names.size(), n);
    EXPECT_STREQ(spu_strerror(-999), "unknown error");
    EXPECT_STREQ(spu_trap_name(SPU_TRAP_WATCHDOG), "WATCHDOG");
    EXPECT_STREQ(spu_counter_name(SPU_CNT_MAC_ACTIVE), "mac_active");
    EXPECT_STREQ(spu_state_name(SPU_STATE_HALTED), "HALTED");
}

TEST(Version, MatchesMacros)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d.%d", SPU_VERSION_MAJOR, SPU_VERSION_MINOR, SPU_VERSION_PATCH);
    EXPECT_STREQ(spu_version(), buf);
}

}  // namespace
