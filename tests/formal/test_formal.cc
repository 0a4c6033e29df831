// test_formal.cc -- equivalence proofs of the pipelined numerics units
// (hw/rtl/numerics/*_pipe.v, spu_acc_fx STAGES) against their
// combinational versions, with Yosys's SAT solver on the miters of
// tests/formal/spu_eq_*.v: the unit at STAGES = K against STAGES = 0 fed
// its inputs K cycles late.
//   feed-forward units: `sat -seq K+1 -prove-skip K`: the output at step
//     K+1 from any initial state equals the combinational unit's output for
//     the inputs of step 1, for all inputs -- the registers hold no state
//     beyond K cycles, so this covers every cycle.
//   spu_acc_fx (a loop): temporal induction from the all-zero state with the
//     two accumulators' registers and the input stage proven equal too.
// Reference proofs (miters spu_eqref_*): the combinational unit against a
// second, plainly written model of its arithmetic (tests/formal/spu_ref_*.v,
// written from docs/numerics.md, not from the unit): spu_fx2f32 (SAT, all
// inputs) and spu_acc_fx (induction over all input sequences).
// Two sets: kQuick runs in `make test`; kFull (every format and depth) runs
// when SPU_FORMAL_ALL=1 (`make test-formal`) and is SKIPPED otherwise.
// Negative tests: a wrong latency must make the proof fail (so a proof
// that passes is not vacuous). SKIPs when yosys is missing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

const std::string kSrc = SPU_SOURCE_DIR;
const std::string kOut = std::string(SPU_BUILD_DIR) + "/tests/formal";

struct Proof {
    const char *miter;   // tests/formal/spu_eq_<miter>.v
    int stages;
    const char *params;  // PARAM=VALUE ... of the miter
};

int run(const std::string &cmd)
{
    int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string proof_name(const Proof &p, int lat)
{
    std::string n = std::string(p.miter) + "_s" + std::to_string(p.stages) + "_l" + std::to_string(lat);
    for (const char *c = p.params; *c; c++)
        n += (*c == ' ' || *c == '=') ? '_' : *c;
    return n;
}

// Runs one proof with latency LAT; returns yosys's exit status (0: proven).
int prove(const Proof &p, int lat)
{
    const bool ref = std::string(p.miter).rfind("ref_", 0) == 0;
    const std::string top = ref ? std::string("spu_eqref_") + (p.miter + 4) : std::string("spu_eq_") + p.miter;
    std::string chp = ref ? "" : "chparam -set STAGES " + std::to_string(p.stages) + " " + top +
                      "; chparam -set LAT " + std::to_string(lat) + " " + top + "; ";
    std::string ps = p.params;
    size_t i = 0;
    while (i < ps.size()) {
        size_t j = ps.find(' ', i);
        if (j == std::string::npos) j = ps.size();
        std::string kv = ps.substr(i, j - i);
        size_t eq = kv.find('=');
        if (eq != std::string::npos)
            chp += "chparam -set " + kv.substr(0, eq) + " " + kv.substr(eq + 1) + " " + top + "; ";
        i = j + 1;
    }
    std::string sat;
    if (std::string(p.miter) == "ref_acc_fx") {
        sat = "sat -tempinduct -set-init-zero -seq 1 -maxsteps 4 -prove bad_o 0"
              " -prove u_unit.acc_q u_ref.sum_q -prove u_unit.nan_q u_ref.nan_seen_q"
              " -prove u_unit.pinf_q u_ref.pinf_seen_q -prove u_unit.ninf_q u_ref.ninf_seen_q"
              " -prove u_unit.ovf_q u_ref.wrapped_q -verify";
    } else if (ref) {
        sat = "sat -prove bad_o 0 -verify";
    } else if (std::string(p.miter) == "acc_fx") {
        sat = "sat -tempinduct -set-init-zero -seq 1 -maxsteps 4 -prove bad_o 0";
        for (const char *r : {"acc_q", "nan_q", "pinf_q", "ninf_q", "ovf_q", "s_q"})
            sat += std::string(" -prove u_gate.") + r + " u_gold." + r;
        sat += " -verify";
    } else {
        sat = "sat -seq " + std::to_string(lat + 1) + " -prove-skip " + std::to_string(lat) +
              " -prove bad_o 0 -verify";
    }
    std::string files;
    for (const char *f : {"spu_pipe_stage", "spu_mul_int8_pipe", "spu_mul_fp_pipe", "spu_cvt_f32_pipe",
                          "spu_fx2f32_pipe", "spu_mx_dot_pipe", "spu_acc_fx", "spu_fx2f32"})
        files += std::string(" hw/rtl/numerics/") + f + ".v";
    files += " tests/formal/spu_eq_delay.v tests/formal/spu_ref_fx2f32.v tests/formal/spu_ref_acc_fx.v";
    files += " tests/formal/" + top + ".v";
    std::string log = kOut + "/" + proof_name(p, lat) + ".log";
    std::string cmd = "mkdir -p " + kOut + " && cd " + kSrc + " && timeout 1200 yosys -l " + log +
                      " -q -p 'read_verilog" + files + "; " + chp + "hierarchy -top " + top +
                      "; proc; flatten; opt_clean; " + sat + "' > /dev/null 2>&1";
    return run(cmd);
}

// quick set (make test, about a minute): the proofs that take seconds. The
// int8 multiplier (an 8x8 multiplier against its partial-product split is
// hard for SAT: ~7 min each here) and fx2f32 (~7 min) are in the full set.
const std::vector<Proof> kQuick = {
    {"mul_fp", 1, ""},
    {"mul_fp", 2, ""},
    {"cvt_f32", 1, ""},
    {"cvt_f32", 2, ""},
    {"cvt_f32", 3, ""},
    {"acc_fx", 1, ""},
    {"ref_acc_fx", 0, ""},
};

const std::vector<Proof> kFull = {
    {"mul_int8", 1, ""},
    {"mul_int8", 2, ""},
    {"fx2f32", 1, ""},
    {"mul_fp", 1, "A_EXP=5 A_MAN=2 A_SPEC=1 B_EXP=5 B_MAN=2 B_SPEC=1"},
    {"mul_fp", 2, "A_EXP=5 A_MAN=2 A_SPEC=1 B_EXP=5 B_MAN=2 B_SPEC=1"},
    {"mul_fp", 1, "A_EXP=4 A_MAN=3 A_SPEC=2 B_EXP=5 B_MAN=2 B_SPEC=1"},
    {"mul_fp", 2, "A_EXP=4 A_MAN=3 A_SPEC=2 B_EXP=5 B_MAN=2 B_SPEC=1"},
    {"mul_fp", 1, "A_EXP=8 A_MAN=7 A_SPEC=1 B_EXP=8 B_MAN=7 B_SPEC=1"},
    {"mul_fp", 2, "A_EXP=8 A_MAN=7 A_SPEC=1 B_EXP=8 B_MAN=7 B_SPEC=1"},
    {"mul_fp", 1, "A_EXP=5 A_MAN=10 A_SPEC=1 B_EXP=5 B_MAN=10 B_SPEC=1"},
    {"mul_fp", 2, "A_EXP=5 A_MAN=10 A_SPEC=1 B_EXP=5 B_MAN=10 B_SPEC=1"},
    {"mul_fp", 2, "A_EXP=2 A_MAN=1 A_SPEC=0 B_EXP=2 B_MAN=1 B_SPEC=0"},
    {"mul_fp", 2, "A_EXP=2 A_MAN=3 A_SPEC=0 B_EXP=2 B_MAN=3 B_SPEC=0"},
    {"mul_fp", 2, "A_EXP=3 A_MAN=2 A_SPEC=0 B_EXP=3 B_MAN=2 B_SPEC=0"},
    {"cvt_f32", 1, "E=8 M=7 SPEC=1"},
    {"cvt_f32", 2, "E=8 M=7 SPEC=1"},
    {"cvt_f32", 3, "E=8 M=7 SPEC=1"},
    {"cvt_f32", 3, "E=5 M=2 SPEC=1"},
    {"fx2f32", 2, ""},
    {"fx2f32", 3, ""},
    {"fx2f32", 4, ""},
    {"fx2f32", 4, "W=64 EW=10"},
    {"acc_fx", 1, "SIG_W=6 PE_W=8 LSB_EXP=-32 ACC_W=80"},
    {"mx_dot", 3, "N=2 A_EXP=2 A_MAN=1 A_SPEC=0 B_EXP=2 B_MAN=1 B_SPEC=0"},
    {"mx_dot", 7, "N=2 A_EXP=2 A_MAN=1 A_SPEC=0 B_EXP=2 B_MAN=1 B_SPEC=0"},
    {"ref_acc_fx", 0, "SIG_W=6 PE_W=8 LSB_EXP=-32 ACC_W=80"},
    {"ref_fx2f32", 0, "W=48 EW=10"},
};

class Formal : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (run("command -v yosys > /dev/null 2>&1") != 0)
            GTEST_SKIP() << "yosys not installed (make deps)";
    }
};

TEST_F(Formal, QuickSetPipelinesEqualCombinational)
{
    for (const Proof &p : kQuick)
        EXPECT_EQ(prove(p, p.stages), 0) << "not proven: " << proof_name(p, p.stages)
                                         << " (log in " << kOut << ")";
}

// A wrong latency is caught: the same miters with LAT = STAGES - 1 fail.
TEST_F(Formal, WrongLatencyIsRefuted)
{
    EXPECT_NE(prove({"mul_fp", 2, ""}, 1), 0);
    EXPECT_NE(prove({"cvt_f32", 3, ""}, 2), 0);
    EXPECT_NE(prove({"acc_fx", 1, ""}, 2), 0);
}

// A wrong reference is caught too: fx2f32 against a reference whose ties go
// away from zero (a W=28, EW=9 instance, where ties and subnormals exist).
TEST_F(Formal, WrongReferenceIsRefuted)
{
    ASSERT_EQ(run("mkdir -p " + kOut + " && sed 's/(rem == half \\&\\& q\\[0\\])/(rem == half)/' " + kSrc +
                  "/tests/formal/spu_ref_fx2f32.v > " + kOut + "/spu_ref_fx2f32_bad.v"),
              0);
    std::string cmd = "cd " + kSrc + " && timeout 1200 yosys -q -l " + kOut + "/ref_bad.log -p 'read_verilog "
                      "hw/rtl/numerics/spu_pipe_stage.v hw/rtl/numerics/spu_fx2f32_pipe.v hw/rtl/numerics/spu_fx2f32.v " +
                      kOut + "/spu_ref_fx2f32_bad.v tests/formal/spu_eqref_fx2f32.v; chparam -set W 28 -set EW 9 "
                      "spu_eqref_fx2f32; hierarchy -top spu_eqref_fx2f32; proc; flatten; opt; sat -prove bad_o 0 -verify'"
                      " > /dev/null 2>&1";
    EXPECT_EQ(run("grep -c 'rem == half)' " + kOut + "/spu_ref_fx2f32_bad.v > /dev/null"), 0) << "mutation not applied";
    EXPECT_NE(run(cmd), 0);
}

TEST_F(Formal, FullSetEveryFormatAndDepth)
{
    const char *all = std::getenv("SPU_FORMAL_ALL");
    if (!all || std::string(all) != "1")
        GTEST_SKIP() << "the full proof set runs with SPU_FORMAL_ALL=1 (make test-formal)";
    for (const Proof &p : kFull)
        EXPECT_EQ(prove(p, p.stages), 0) << "not proven: " << proof_name(p, p.stages)
                                         << " (log in " << kOut << ")";
}

}  // namespace
