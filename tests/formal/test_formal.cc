// test_formal.cc -- equivalence proofs of the pipelined numerics units
// (hw/rtl/numerics/*_pipe.v, spu_acc_fx STAGES) against their
// combinational versions, on the miters of tests/formal/spu_eq_*.v: the
// unit at STAGES = K against STAGES = 0 fed its inputs K cycles late.
//   feed-forward units: Yosys turns the miter into an AIG (write_aiger
//     -zinit: a register without an initial value gets a free input for
//     it, so every initial state is covered); ABC unrolls it K+1 frames
//     (`frames`) and proves the OR of bad_o over the frames constant 0
//     (feed_forward_engine: &cec, iprove when &cec has no answer; BDDs
//     for the multipliers): the output at frame K+1 equals the
//     combinational unit's for the inputs of frame 1, for all inputs and
//     initial states -- the registers hold nothing older than K cycles,
//     so this covers every cycle.
//   spu_acc_fx (a loop): temporal induction (Yosys `sat -tempinduct`, k <= 10)
//     from the all-zero state with the two accumulators' sum and flag
//     registers proven equal too (SPLIT = 0; the input stages are covered
//     by k: they hold nothing older than STAGES cycles; they are not
//     compared register to register because bits a configuration leaves
//     unused are removed and would be free in the SAT model).
// Reference proofs (miters spu_eqref_*): the combinational unit against a
// second, plainly written model of its arithmetic (tests/formal/spu_ref_*.v,
// written from docs/numerics.md, not from the unit): spu_fx2f32, spu_cvt_f32
// and spu_mx_dot / mxint8 (ABC `iprove` on the combinational miter, all
// inputs; spu_ref_mx_dot rounds with spu_ref_fx2f32) and spu_acc_fx
// (induction over all input sequences).
// Sets: kQuick runs in `make test`; kCI (each unit family at its 48 MHz
// depth, the wide references) with SPU_FORMAL_SET=ci (`make test-formal`,
// a few minutes); kCI and kFull (every other format and depth that
// finishes, docs/numerics-rtl.md) with SPU_FORMAL_SET=full (`make
// test-formal-full`, which .ci/run runs); one test per proof, SKIPPED otherwise. Per proof time limit: SPU_FORMAL_TIMEOUT seconds (default 300).
// Negative tests: a wrong latency, a wrong pipeline register and a wrong
// reference must make the proofs fail (so a proof that passes is not
// vacuous). SKIPs when yosys or yosys-abc is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// SPU_FORMAL_TIMEOUT is CPU seconds per tool run (ulimit -t), not wall
// time: on a machine shared with other builds a proof gets its budget
// however slowly it is scheduled (a wall-clock limit failed proofs that
// take seconds alone). A wall limit of 20 times that only catches hangs.
int timeout_s()
{
    const char *t = std::getenv("SPU_FORMAL_TIMEOUT");
    return t && std::atoi(t) > 0 ? std::atoi(t) : 300;
}

// "(ulimit -t S; timeout 20S CMD)": the CPU and wall limits of one tool run
// (S: timeout_s(), or at least MIN_S for a proof known to need longer)
std::string limited(const std::string &cmd, int min_s = 0)
{
    const int s = std::max(timeout_s(), min_s);
    return "(ulimit -t " + std::to_string(s) + "; timeout " + std::to_string(20 * s) + " " + cmd + ")";
}

const char *kRtl[] = {"spu_pipe_stage", "spu_mul_int8_pipe", "spu_mul_fp_pipe", "spu_cvt_f32_pipe",
                      "spu_fx2f32_pipe", "spu_mx_dot_pipe", "spu_acc_fx", "spu_fx2f32", "spu_cvt_f32"};

// AIG route: Yosys writes the miter TOP (with CHP chparams) as an AIG, ABC
// proves it (ABC_CMD after read_aiger). Returns 0 proven, 1 refuted, 2 no
// answer (time limit, tool error).
// Answers: UNSATISFIABLE / SATISFIABLE (iprove, sat) or "Networks are
// equivalent" / "NOT EQUIVALENT" (&cec). FALLBACK (an ABC command) runs on
// the same AIG when ABC_CMD gave no answer.
int answer(const std::string &log)
{
    if (run("grep -q -e '^UNSATISFIABLE' -e 'Networks are equivalent' " + log) == 0) return 0;
    if (run("grep -q -e '^SATISFIABLE' -e 'Networks are NOT EQUIVALENT' " + log) == 0) return 1;
    return 2;
}

int prove_aig(const std::string &name, const std::string &top, const std::string &chp,
              const std::string &files, const std::string &abc_cmd, const std::string &fallback = "",
              int abc_min_s = 0)
{
    std::string aig = kOut + "/" + name + ".aig", log = kOut + "/" + name + ".log";
    // no opt after techmap (ABC's strash does that work; MX N=8 at 10: 74 s
    // of Yosys instead of 125 s), except for the multiplier's BDD route,
    // whose variable order and speed depend on that AIG (fp16 at 1: 24 s
    // with it, no answer in 5 min without)
    // and the MX reference miters, whose iprove answer comes sooner on the
    // optimized AIG (N=8 e2m1: 14,439 AND nodes, proven in 294 CPU s; no
    // answer in 300 s on the 14,606 of the other)
    const std::string post_techmap =
        top == "spu_eq_mul_fp" || top == "spu_eqref_mx_dot" ? "opt -nodffe -nosdff; " : "opt_clean; ";
    std::string cmd = "mkdir -p " + kOut + " && cd " + kSrc + " && " +
                      limited("yosys -q -l " + log + " -p 'read_verilog" + files + "; " + chp + "hierarchy -top " +
                              top + "; proc; flatten; opt_clean; setundef -zero -undriven; opt -nodffe -nosdff;"
                              " techmap; " + post_techmap + "dffunmap; aigmap; opt_clean; write_aiger -zinit " +
                              aig + "'") +
                      " > /dev/null 2>&1 && " + limited("yosys-abc -c 'read_aiger " + aig + "; " + abc_cmd + "'", abc_min_s) +
                      " >> " + log + " 2>&1";
    run(cmd);
    int r = answer(log);
    if (r == 2 && !fallback.empty() && run("test -s " + aig) == 0) {
        run(limited("yosys-abc -c 'read_aiger " + aig + "; " + fallback + "'") + " >> " + log + " 2>&1");
        r = answer(log);
    }
    return r;
}

// spu_acc_fx with SPLIT = 1: one cycle more than STAGES
bool split(const Proof &p) { return std::string(p.params).find("SPLIT=1") != std::string::npos; }
// GOLD_STAGES=G (spu_eq_mul_fp): the unit at STAGES against itself at G,
// latency STAGES - G (one link of a chain STAGES = G = ... = 0)
int gold_stages(const Proof &p)
{
    const char *g = std::strstr(p.params, "GOLD_STAGES=");
    return g ? std::atoi(g + 12) : 0;
}
int latency(const Proof &p) { return p.stages - gold_stages(p) + (split(p) ? 1 : 0); }
// ABS_MUL (mxint8 MX dot proofs): spu_mul_int8_pipe replaced by its
// abstraction tests/formal/spu_abs_mul_int8_pipe.v (the product a * b,
// registered at STAGES 1); with the proof mul_int8 1 = 0 this is the
// compositional proof of the whole unit (docs/numerics-rtl.md)
bool abs_mul(const Proof &p) { return std::strstr(p.params, "ABS_MUL") != nullptr; }

// Engines for the unrolled miter of a feed-forward unit: ABC's &cec
// (simulation and SAT sweeping: it finds the internal points both sides
// share; 20 times faster than iprove on MX N=8 at 10, 2.6 s against 51 s;
// iprove runs when &cec gives no answer within its conflict limit); the
// multipliers
// (spu_mul_fp: a_sig * b_sig against its two partial products) have few
// such points, and there BDDs decide it: dc2 restructures the AIG, collapse
// builds the global BDD of the miter output (constant 0 when equal), sat
// reads the answer. fp16 x fp16 at STAGES 1: about 30 s, bf16 1 s (iprove:
// no answer in 10 min / 77 s). spu_mul_int8 likewise (1 s of CPU; &cec
// took 131 / 159 s at STAGES 1 / 2 under load).
const char *kCec = "&get; &cec -m -C 20000";
std::string feed_forward_engine(const Proof &p, int lat)
{
    const int frames = std::max(lat, p.stages) + 1;
    const std::string unroll = "frames -F " + std::to_string(frames) + " -i; strash; orpos; ";
    if ((std::string(p.miter) == "mul_fp" && gold_stages(p) == 0) || std::string(p.miter) == "mul_int8")
        return unroll + "dc2; collapse -B 20000000; strash; sat";
    return unroll + kCec;
}
std::string feed_forward_fallback(const Proof &p, int lat)
{
    return "frames -F " + std::to_string(std::max(lat, p.stages) + 1) + " -i; strash; orpos; iprove";
}

// "PARAM=VALUE ..." (a proof's params, a PPA row's) as (name, value) pairs;
// words without '=' (ABS_MUL) name a route, not a parameter, and are skipped
using Params = std::vector<std::pair<std::string, std::string>>;

Params parse_params(const std::string &text)
{
    Params ps;
    size_t i = 0;
    while (i < text.size()) {
        size_t j = text.find_first_of(" \t\r\n", i);
        if (j == std::string::npos) j = text.size();
        const std::string kv = text.substr(i, j - i);
        const size_t eq = kv.find('=');
        if (eq != std::string::npos) ps.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
        i = j + 1;
    }
    return ps;
}

// Runs one proof with latency LAT; returns 0 when proven.
int prove(const Proof &p, int lat)
{
    const bool ref = std::string(p.miter).rfind("ref_", 0) == 0;
    const std::string top = ref ? std::string("spu_eqref_") + (p.miter + 4) : std::string("spu_eq_") + p.miter;
    std::string chp = ref ? "" : "chparam -set STAGES " + std::to_string(p.stages) + " " + top +
                      "; chparam -set LAT " + std::to_string(lat) + " " + top + "; ";
    for (const auto &kv : parse_params(p.params)) {
        // chparam does not take "-32": a negative value as its 32-bit
        // pattern (the parameters are `integer`, so it reads back signed)
        std::string v = kv.second;
        if (!v.empty() && v[0] == '-') {
            char hex[24];
            // (the Yosys script is in single quotes: the ' of 32'h as '\'')
            snprintf(hex, sizeof hex, "32'\\''h%08x", (unsigned)std::atoi(v.c_str()));
            v = hex;
        }
        chp += "chparam -set " + kv.first + " " + v + " " + top + "; ";
    }
    std::string files;
    for (const char *f : kRtl)
        files += (abs_mul(p) && std::string(f) == "spu_mul_int8_pipe") ? std::string(" tests/formal/spu_abs_mul_int8_pipe.v")
                                                                      : std::string(" hw/rtl/numerics/") + f + ".v";
    files += " tests/formal/spu_eq_delay.v tests/formal/spu_ref_fx2f32.v tests/formal/spu_ref_acc_fx.v"
             " tests/formal/spu_ref_cvt_f32.v tests/formal/spu_ref_mx_dot.v";
    files += " tests/formal/" + top + ".v";
    const std::string name = proof_name(p, lat);
    std::string sat;
    if (std::string(p.miter) == "ref_acc_fx") {
        sat = "sat -tempinduct -set-init-zero -seq 1 -maxsteps 4 -prove bad_o 0"
              " -prove u_unit.acc_q u_ref.sum_q -prove u_unit.nan_q u_ref.nan_seen_q"
              " -prove u_unit.pinf_q u_ref.pinf_seen_q -prove u_unit.ninf_q u_ref.ninf_seen_q"
              " -prove u_unit.ovf_q u_ref.wrapped_q -verify";
    } else if (std::string(p.miter) == "acc_fx") {
        // SPLIT = 1 holds the sum as two halves and a carry, its input stage
        // a one's complement, and its outputs one cycle later: the
        // induction compares it through the outputs only (bad_o, k <= 10)
        sat = "sat -tempinduct -set-init-zero -seq 1 -maxsteps 10 -prove bad_o 0";
        if (!split(p))
            for (const char *r : {"acc_q", "nan_q", "pinf_q", "ninf_q", "ovf_q"})
                sat += std::string(" -prove u_gate.") + r + " u_gold." + r;
        sat += " -verify";
    } else if (ref) {
        // MX N=8 against the reference: &cec gets no answer in 300 CPU s,
        // nor &cec -C 200000, &fraig -x + iprove or dc2 + iprove in 150 s,
        // nor BDDs in 240 s; iprove answers in 294 CPU s (e2m1, this
        // machine): iprove alone, with 900 CPU s of room
        if (std::string(p.miter) == "ref_mx_dot" && std::strstr(p.params, "N=8"))
            return prove_aig(name, top, chp, files, "strash; iprove", "", 900);
        // mxint8 N=2: &cec no answer in 300 CPU s, iprove 66 s
        if (std::string(p.miter) == "ref_mx_dot" && std::strstr(p.params, "INT8=1"))
            return prove_aig(name, top, chp, files, "strash; iprove", std::string("strash; ") + kCec);
        return prove_aig(name, top, chp, files, std::string("strash; ") + kCec, "strash; iprove");
    } else {
        return prove_aig(name, top, chp, files, feed_forward_engine(p, lat), feed_forward_fallback(p, lat));
    }
    std::string log = kOut + "/" + name + ".log";
    std::string cmd = "mkdir -p " + kOut + " && cd " + kSrc + " && " +
                      limited("yosys -l " + log + " -q -p 'read_verilog" + files + "; " + chp + "hierarchy -top " +
                              top + "; proc; flatten; opt_clean; " + sat + "'") +
                      " > /dev/null 2>&1";
    return run(cmd);
}

// quick set (make test): the proofs that take seconds.
const std::vector<Proof> kQuick = {
    {"mul_fp", 1, ""},
    {"mul_fp", 2, ""},
    {"cvt_f32", 1, ""},
    {"cvt_f32", 3, ""},
    {"cvt_f32", 5, ""},
    {"fx2f32", 4, ""},
    {"fx2f32", 9, ""},
    {"acc_fx", 1, ""},
    {"acc_fx", 3, ""},
    {"acc_fx", 3, "SPLIT=1"},
    {"ref_acc_fx", 0, ""},
    {"ref_fx2f32", 0, "W=28 EW=9"},
    {"ref_cvt_f32", 0, ""},
};

#define E2M1 "A_EXP=2 A_MAN=1 A_SPEC=0 B_EXP=2 B_MAN=1 B_SPEC=0"
#define E2M3 "A_EXP=2 A_MAN=3 A_SPEC=0 B_EXP=2 B_MAN=3 B_SPEC=0"
#define E3M2 "A_EXP=3 A_MAN=2 A_SPEC=0 B_EXP=3 B_MAN=2 B_SPEC=0"
#define E5M2 "A_EXP=5 A_MAN=2 A_SPEC=1 B_EXP=5 B_MAN=2 B_SPEC=1"
#define E4M3_E5M2 "A_EXP=4 A_MAN=3 A_SPEC=2 B_EXP=5 B_MAN=2 B_SPEC=1"
#define BF16 "A_EXP=8 A_MAN=7 A_SPEC=1 B_EXP=8 B_MAN=7 B_SPEC=1"
#define FP16 "A_EXP=5 A_MAN=10 A_SPEC=1 B_EXP=5 B_MAN=10 B_SPEC=1"

// CI set (make test-formal, also run by make test-formal-full): every unit
// family at its 48 MHz depth (MX: the deepest, at N = 2), the e5m2
// accumulator and the wide reference proofs.
const std::vector<Proof> kCI = {
    {"mul_fp", 1, E5M2},
    {"mul_fp", 1, BF16},
    // fp16 x fp16: STAGES 1 = 0 (BDD), STAGES 2 = STAGES 1 one cycle later
    // (iprove: the output register is the only difference), so 2 = 0
    {"mul_fp", 1, FP16},
    {"mul_fp", 2, "GOLD_STAGES=1 " FP16},
    {"cvt_f32", 5, "E=8 M=7 SPEC=1"},
    {"cvt_f32", 5, "E=5 M=2 SPEC=1"},
    {"fx2f32", 9, "W=64 EW=10"},
    {"acc_fx", 3, "SIG_W=6 PE_W=8 LSB_EXP=-32 ACC_W=80"},
    {"acc_fx", 3, "SIG_W=6 PE_W=8 LSB_EXP=-32 ACC_W=80 SPLIT=1"},
    {"mx_dot", 12, "N=2 " E2M1},
    {"ref_acc_fx", 0, "SIG_W=6 PE_W=8 LSB_EXP=-32 ACC_W=80"},
    {"ref_fx2f32", 0, "W=48 EW=10"},
    {"ref_cvt_f32", 0, "E=8 M=7 SPEC=1"},
    {"ref_cvt_f32", 0, "E=5 M=2 SPEC=1"},
    {"ref_mx_dot", 0, "N=2 " E2M1},
    {"ref_mx_dot", 0, "N=2"},
};

// full set (make test-formal-full): the rest of every pipelined variant
// whose proof finishes here, the reference proofs. Not in it (docs/numerics-rtl.md says how
// they are covered): MX against the reference beyond N=8 e2m1 (a chain of
// adds against a tree). (fp16 x fp16 at STAGES 1, 2 is in the CI set.)
const std::vector<Proof> kFull = {
    {"mul_fp", 2, E5M2},
    {"mul_fp", 2, BF16},
    {"cvt_f32", 4, "E=8 M=7 SPEC=1"},
    {"cvt_f32", 4, "E=5 M=2 SPEC=1"},
    {"fx2f32", 7, "W=64 EW=10"}, {"fx2f32", 8, "W=64 EW=10"},
    {"mx_dot", 10, "N=8"}, {"mx_dot", 12, "N=8"}, {"mx_dot", 7, "N=2 " E2M1},
    {"mul_int8", 1, ""},
    {"mul_int8", 2, ""},
    {"mul_fp", 1, E4M3_E5M2}, {"mul_fp", 2, E4M3_E5M2},
    {"mul_fp", 1, E2M1},      {"mul_fp", 2, E2M1},
    {"mul_fp", 1, E2M3},      {"mul_fp", 2, E2M3},
    {"mul_fp", 1, E3M2},      {"mul_fp", 2, E3M2},
    {"cvt_f32", 2, ""},       {"cvt_f32", 4, ""},
    {"cvt_f32", 1, "E=8 M=7 SPEC=1"}, {"cvt_f32", 2, "E=8 M=7 SPEC=1"}, {"cvt_f32", 3, "E=8 M=7 SPEC=1"},
    {"cvt_f32", 1, "E=5 M=2 SPEC=1"}, {"cvt_f32", 2, "E=5 M=2 SPEC=1"}, {"cvt_f32", 3, "E=5 M=2 SPEC=1"},
    {"fx2f32", 1, ""}, {"fx2f32", 2, ""}, {"fx2f32", 3, ""}, {"fx2f32", 5, ""}, {"fx2f32", 6, ""}, {"fx2f32", 7, ""},
    {"fx2f32", 1, "W=64 EW=10"}, {"fx2f32", 2, "W=64 EW=10"}, {"fx2f32", 3, "W=64 EW=10"},
    {"fx2f32", 4, "W=64 EW=10"}, {"fx2f32", 5, "W=64 EW=10"}, {"fx2f32", 6, "W=64 EW=10"},
    {"fx2f32", 8, ""},
    {"acc_fx", 1, "SIG_W=6 PE_W=8 LSB_EXP=-32 ACC_W=80"},
    {"acc_fx", 2, ""}, {"acc_fx", 0, "SPLIT=1"}, {"acc_fx", 1, "SPLIT=1"}, {"acc_fx", 2, "SPLIT=1"},
    {"mx_dot", 3, "N=2 " E2M1},
    {"mx_dot", 1, "N=8"}, {"mx_dot", 2, "N=8"}, {"mx_dot", 3, "N=8"}, {"mx_dot", 7, "N=8"},
    // the depths no other MX proof has (so every depth 1..12 is proven for some format and N)
    {"mx_dot", 8, "N=8"}, {"mx_dot", 9, "N=8"}, {"mx_dot", 11, "N=8"},
    // mxint8: compositional (ABS_MUL: the products abstracted, with
    // mul_int8 1 = 0 above; docs/numerics-rtl.md), each a few seconds
    {"mx_dot", 2, "N=8 INT8=1 ABS_MUL"}, {"mx_dot", 12, "N=8 INT8=1 ABS_MUL"},
    {"mx_dot", 2, "N=32 INT8=1 ABS_MUL"}, {"mx_dot", 4, "N=32 INT8=1 ABS_MUL"},
    // every depth of the PPA study's MX rows (synth/ppa_table.tsv) is proven
    {"mx_dot", 3, "N=8 INT8=1 ABS_MUL"}, {"mx_dot", 10, "N=32 INT8=1 ABS_MUL"},
    {"mx_dot", 4, "N=32 " E2M1},
    {"mx_dot", 10, "N=32"},
    {"mx_dot", 12, "N=32 " E2M1},
    {"mx_dot", 12, "N=32 INT8=1 ABS_MUL"},
    {"mx_dot", 5, "N=32 " E2M1},
    {"mx_dot", 10, "N=32 " E2M1},
    {"mx_dot", 4, "N=32 " E3M2},
    {"mx_dot", 6, "N=32 " E2M3},
    {"mx_dot", 2, "N=32 " E5M2},
    {"mx_dot", 3, "N=32 " E4M3_E5M2},
    {"ref_fx2f32", 0, "W=64 EW=10"},
    {"ref_mx_dot", 0, "N=2 " E5M2},
    {"ref_mx_dot", 0, "N=2 INT8=1"},
    {"ref_mx_dot", 0, "N=8 " E2M1},
};

class Formal : public ::testing::Test {
protected:
    void SetUp() override
    {
        if (run("command -v yosys > /dev/null 2>&1 && command -v yosys-abc > /dev/null 2>&1") != 0)
            GTEST_SKIP() << "yosys / yosys-abc not installed (make deps)";
    }
};

TEST_F(Formal, QuickSetPipelinesEqualCombinational)
{
    for (const Proof &p : kQuick)
        EXPECT_EQ(prove(p, latency(p)), 0) << "not proven: " << proof_name(p, latency(p))
                                         << " (log in " << kOut << ")";
}

// A wrong latency is caught: the same miters with LAT = STAGES - 1 fail.
TEST_F(Formal, WrongLatencyIsRefuted)
{
    EXPECT_NE(prove({"mul_fp", 2, ""}, 1), 0);
    EXPECT_NE(prove({"cvt_f32", 5, ""}, 4), 0);
    EXPECT_NE(prove({"fx2f32", 8, ""}, 7), 0);
    EXPECT_NE(prove({"acc_fx", 1, ""}, 2), 0);
    EXPECT_NE(prove({"acc_fx", 3, "SPLIT=1"}, 3), 0);
}

// A pipeline register that takes one field from the wrong stage is caught:
// a copy of spu_cvt_f32_pipe whose B1 cut takes rand_i instead of the
// A-stage copy of it (STAGES >= 3 only; STAGES = 0 unchanged).
TEST_F(Formal, WrongPipelineRegisterIsRefuted)
{
    const std::string bad = kOut + "/spu_cvt_f32_pipe_bad.v";
    ASSERT_EQ(run("mkdir -p " + kOut + " && sed 's/fm1_b, rand_b}), .q_o(b1_q)/fm1_b, rand_i}), .q_o(b1_q)/' " +
                  kSrc + "/hw/rtl/numerics/spu_cvt_f32_pipe.v > " + bad),
              0);
    ASSERT_EQ(run("grep -q 'fm1_b, rand_i})' " + bad), 0) << "mutation not applied";
    std::string files = " hw/rtl/numerics/spu_pipe_stage.v " + bad + " tests/formal/spu_eq_delay.v"
                        " tests/formal/spu_eq_cvt_f32.v";
    EXPECT_EQ(prove_aig("cvt_bad_reg", "spu_eq_cvt_f32", "chparam -set STAGES 4 spu_eq_cvt_f32; ", files,
                        feed_forward_engine({"cvt_f32", 4, ""}, 4), feed_forward_fallback({"cvt_f32", 4, ""}, 4)),
              1);
}

// A wrong reference is caught too: fx2f32 against a reference whose ties go
// away from zero (a W=28, EW=9 instance, where ties and subnormals exist).
TEST_F(Formal, WrongReferenceIsRefuted)
{
    ASSERT_EQ(run("mkdir -p " + kOut + " && sed 's/(rem == half \\&\\& q\\[0\\])/(rem == half)/' " + kSrc +
                  "/tests/formal/spu_ref_fx2f32.v > " + kOut + "/spu_ref_fx2f32_bad.v"),
              0);
    EXPECT_EQ(run("grep -c 'rem == half)' " + kOut + "/spu_ref_fx2f32_bad.v > /dev/null"), 0) << "mutation not applied";
    std::string files = " hw/rtl/numerics/spu_pipe_stage.v hw/rtl/numerics/spu_fx2f32_pipe.v"
                        " hw/rtl/numerics/spu_fx2f32.v " + kOut + "/spu_ref_fx2f32_bad.v tests/formal/spu_eqref_fx2f32.v";
    EXPECT_EQ(prove_aig("ref_bad", "spu_eqref_fx2f32", "chparam -set W 28 -set EW 9 spu_eqref_fx2f32; ", files,
                        "strash; iprove"),
              1);
}

// The cvt and MX references are not vacuous either: a converter reference
// whose rne ignores the even rule or whose SR adds one more (make test), an
// MX reference that forgets "+Inf and -Inf products give NaN" or shifts
// every product one place too far (FormalCI: make test-formal, a minute of
// Yosys) must each be refuted.
struct Mutation {
    const char *file, *from, *to, *top, *chp;
};

void expect_refuted(const std::vector<Mutation> &muts, const std::string &tag)
{
    int i = 0;
    for (const Mutation &m : muts) {
        const std::string id = tag + std::to_string(i++);
        const std::string bad = kOut + "/" + m.file + "_" + id + ".v";
        ASSERT_EQ(run("mkdir -p " + kOut + " && sed 's/" + m.from + "/" + m.to + "/' " + kSrc + "/tests/formal/" +
                      m.file + ".v > " + bad),
                  0);
        ASSERT_NE(run("cmp -s " + bad + " " + kSrc + "/tests/formal/" + m.file + ".v"), 0)
            << "mutation " << id << " not applied";
        std::string files = " hw/rtl/numerics/spu_pipe_stage.v hw/rtl/numerics/spu_cvt_f32_pipe.v"
                            " hw/rtl/numerics/spu_cvt_f32.v hw/rtl/numerics/spu_mul_fp_pipe.v"
                            " hw/rtl/numerics/spu_mul_int8_pipe.v hw/rtl/numerics/spu_fx2f32_pipe.v"
                            " hw/rtl/numerics/spu_mx_dot_pipe.v tests/formal/spu_ref_fx2f32.v " + bad +
                            " tests/formal/" + m.top + ".v";
        EXPECT_EQ(prove_aig(id, m.top, m.chp, files, "strash; iprove"), 1)
            << "mutation " << id << " of " << m.file << " not refuted";
    }
}

TEST_F(Formal, WrongCvtReferenceIsRefuted)
{
    expect_refuted({{"spu_ref_cvt_f32", "(rem == half \\&\\& q\\[0\\])", "(rem == half)", "spu_eqref_cvt_f32", ""},
                    {"spu_ref_cvt_f32", "{1.b0, rand_i};", "{1'\\''b0, rand_i} + 1'\\''b1;", "spu_eqref_cvt_f32",
                     "chparam -set E 5 -set M 2 -set SPEC 1 spu_eqref_cvt_f32; "}},
                   "cvt_ref_bad");
}

class FormalCI : public Formal {
protected:
    void SetUp() override
    {
        Formal::SetUp();
        const char *set = std::getenv("SPU_FORMAL_SET");
        if (!set || (std::string(set) != "ci" && std::string(set) != "full"))
            GTEST_SKIP() << "runs with make test-formal / test-formal-full";
    }
};

TEST_F(FormalCI, WrongMxReferenceIsRefuted)
{
    expect_refuted({{"spu_ref_mx_dot", "nan || (pinf \\&\\& ninf);", "nan;", "spu_eqref_mx_dot",
                     "chparam -set N 2 -set A_EXP 5 -set A_MAN 2 -set A_SPEC 1 -set B_EXP 5 -set B_MAN 2 -set B_SPEC 1"
                     " spu_eqref_mx_dot; "},
                    {"spu_ref_mx_dot", "(aexp + bexp - LSB)", "(aexp + bexp - LSB + 1)", "spu_eqref_mx_dot",
                     "chparam -set N 2 -set A_EXP 2 -set A_MAN 1 -set A_SPEC 0 -set B_EXP 2 -set B_MAN 1 -set B_SPEC 0"
                     " spu_eqref_mx_dot; "}},
                   "mx_ref_bad");
}

// The multiplier BDD proof is not vacuous: a copy of spu_mul_fp_pipe whose
// low partial product is wrong for one significand pair (bf16: a_sig =
// 0xA5, b_sig = 0xC3) must be refuted (the same bug in fp16 gets no answer
// from the BDD in 5 CPU minutes: BDDs prove fp16 equal, they do not find
// its one wrong pair quickly), and so must the fp16 chain link STAGES 2 = 1
// with a latency of 0.
TEST_F(FormalCI, WrongMultiplierIsRefuted)
{
    const std::string bad = kOut + "/spu_mul_fp_pipe_bad.v";
    ASSERT_EQ(run("mkdir -p " + kOut + " && sed 's/pl_d = a_sig \\* b_sig\\[BL-1:0\\];/pl_d = (a_sig * b_sig[BL-1:0])"
                  " ^ (a_sig == 165 \\&\\& b_sig == 195);/' " + kSrc + "/hw/rtl/numerics/spu_mul_fp_pipe.v > " + bad),
              0);
    ASSERT_EQ(run("grep -q 'a_sig == 165 && b_sig == 195' " + bad), 0) << "mutation not applied";
    const std::string files = " hw/rtl/numerics/spu_pipe_stage.v " + bad +
                              " tests/formal/spu_eq_delay.v tests/formal/spu_eq_mul_fp.v";
    const Proof p = {"mul_fp", 1, BF16};
    EXPECT_EQ(prove_aig("mul_bf16_bad", "spu_eq_mul_fp",
                        "chparam -set STAGES 1 -set LAT 1 -set A_EXP 8 -set A_MAN 7 -set A_SPEC 1 -set B_EXP 8"
                        " -set B_MAN 7 -set B_SPEC 1 spu_eq_mul_fp; ",
                        files, feed_forward_engine(p, 1)),
              1);
    EXPECT_NE(prove({"mul_fp", 2, "GOLD_STAGES=1 " FP16}, 0), 0);
}

// The compositional mxint8 route (ABS_MUL) is not vacuous: with the
// products abstracted, a wrong latency and a copy of spu_mx_dot_pipe whose
// scales skip cut P (they take cut T's enable: at STAGES 2 the scales reach
// the rounder one cycle before their products) must be refuted; so must
// its other half, the int8 multiplier proof (BDDs), with a copy of
// spu_mul_int8_pipe whose low partial product is wrong for one operand
// pair (a = 0x5A, b[3:0] = 0xC: 16 of the 65 536 pairs). (A wrong latency
// is not tried on the BDD route: the miter then depends on two frames of
// operands and its BDD blows up -- no answer in 300 CPU s; the latency
// check of the same miter pattern is Formal.WrongLatencyIsRefuted.)
TEST_F(FormalCI, WrongMxInt8RouteIsRefuted)
{
    EXPECT_EQ(prove({"mx_dot", 2, "N=8 INT8=1 ABS_MUL"}, 1), 1);
    const std::string bad_mx = kOut + "/spu_mx_dot_pipe_bad.v";
    ASSERT_EQ(run("mkdir -p " + kOut + " && sed 's/spu_pipe_stage #(.W(16), .EN(CUT_P)) u_sc_p/"
                  "spu_pipe_stage #(.W(16), .EN(CUT_T)) u_sc_p/' " + kSrc + "/hw/rtl/numerics/spu_mx_dot_pipe.v > " +
                  bad_mx),
              0);
    ASSERT_EQ(run("grep -q 'EN(CUT_T)) u_sc_p' " + bad_mx), 0) << "mutation not applied";
    const Proof mx = {"mx_dot", 2, "N=8 INT8=1 ABS_MUL"};
    EXPECT_EQ(prove_aig("mx_int8_bad_sc", "spu_eq_mx_dot",
                        "chparam -set STAGES 2 -set LAT 2 -set N 8 -set INT8 1 spu_eq_mx_dot; ",
                        " hw/rtl/numerics/spu_pipe_stage.v hw/rtl/numerics/spu_mul_fp_pipe.v"
                        " hw/rtl/numerics/spu_fx2f32_pipe.v tests/formal/spu_abs_mul_int8_pipe.v " + bad_mx +
                        " tests/formal/spu_eq_delay.v tests/formal/spu_eq_mx_dot.v",
                        feed_forward_engine(mx, 2)),
              1);
    const std::string bad_mul = kOut + "/spu_mul_int8_pipe_bad.v";
    ASSERT_EQ(run("mkdir -p " + kOut + " && sed 's/pl_d = a_i \\* \\$signed({1.b0, b_i\\[3:0\\]});/"
                  "pl_d = (a_i * $signed({1'\\''b0, b_i[3:0]})) ^ (a_i == 8'\\''h5A \\&\\& b_i[3:0] == 4'\\''hC);/' " +
                  kSrc + "/hw/rtl/numerics/spu_mul_int8_pipe.v > " + bad_mul),
              0);
    ASSERT_EQ(run("grep -q 'a_i == 8.h5A' " + bad_mul), 0) << "mutation not applied";
    const Proof mul = {"mul_int8", 1, ""};
    EXPECT_EQ(prove_aig("mul_int8_bad", "spu_eq_mul_int8", "chparam -set STAGES 1 -set LAT 1 spu_eq_mul_int8; ",
                        " hw/rtl/numerics/spu_pipe_stage.v " + bad_mul + " tests/formal/spu_eq_delay.v"
                        " tests/formal/spu_eq_mul_int8.v",
                        feed_forward_engine(mul, 1)),
              1);
}

// The CI and full sets, one test per proof (gtest names them by miter,
// latency and parameters, so each proof's time is in the log).
// SPU_FORMAL_SET=ci runs CI/* (make test-formal: a few minutes), =full
// CI/* and Full/* (make test-formal-full); otherwise (make test) they are
// SKIPPED.
class FormalSet : public ::testing::TestWithParam<Proof> {
protected:
    void SetUp() override
    {
        if (run("command -v yosys > /dev/null 2>&1 && command -v yosys-abc > /dev/null 2>&1") != 0)
            GTEST_SKIP() << "yosys / yosys-abc not installed (make deps)";
        const char *set = std::getenv("SPU_FORMAL_SET");
        const std::string s = set ? set : "";
        const bool in_ci = std::string(::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name())
                               .rfind("CI/", 0) == 0;
        if (s != "full" && !(s == "ci" && in_ci))
            GTEST_SKIP() << (s == "ci" ? "not in the CI set: make test-formal-full"
                                       : "the proof sets run with make test-formal / test-formal-full");
    }
};

TEST_P(FormalSet, PipelineOrReferenceProven)
{
    const Proof &p = GetParam();
    EXPECT_EQ(prove(p, latency(p)), 0) << "not proven: " << proof_name(p, latency(p)) << " (log in " << kOut << ")";
}

std::string test_name(const ::testing::TestParamInfo<Proof> &info)
{
    std::string n = proof_name(info.param, latency(info.param));
    for (char &c : n)
        if (!isalnum((unsigned char)c)) c = '_';
    return n;
}

INSTANTIATE_TEST_SUITE_P(CI, FormalSet, ::testing::ValuesIn(kCI), test_name);
INSTANTIATE_TEST_SUITE_P(Full, FormalSet, ::testing::ValuesIn(kFull), test_name);


// Every pipelined depth the PPA study reports (the unit rows of
// synth/ppa_table.tsv with STAGES > 0, or SPLIT = 1) has a proof in one of
// the three sets, for the same parameters (a miter's defaults, read from
// tests/formal/spu_eq_<miter>.v, count as given). GOLD_STAGES (a link of
// the fp16 chain) and ABS_MUL (the compositional mxint8 route) name how a
// proof is done, not what it proves, and are ignored here.
// The miter's parameters with their defaults ("parameter integer X = V").
Params miter_defaults(const std::string &miter)
{
    Params d;
    FILE *f = std::fopen((kSrc + "/tests/formal/spu_eq_" + miter + ".v").c_str(), "r");
    if (!f) return d;
    char line[512], name[64];
    int value;
    while (std::fgets(line, sizeof line, f))
        if (std::sscanf(line, " parameter integer %63s = %d", name, &value) == 2)
            d.emplace_back(name, std::to_string(value));
    std::fclose(f);
    return d;
}

// PARAMS with the miter's defaults filled in, without STAGES and the
// how-keys; sorted, so that two descriptions of one instance compare equal.
Params normalized(const Params &defaults, const Params &given)
{
    Params out;
    for (const auto &kv : defaults) {
        if (kv.first == "STAGES" || kv.first == "LAT" || kv.first == "GOLD_STAGES") continue;
        std::string v = kv.second;
        for (const auto &g : given)
            if (g.first == kv.first) v = g.second;
        out.emplace_back(kv.first, v);
    }
    for (const auto &g : given) {
        if (g.first == "STAGES" || g.first == "GOLD_STAGES" || g.first == "ABS_MUL") continue;
        bool known = false;
        for (const auto &o : out) known = known || o.first == g.first;
        if (!known) out.emplace_back(g.first, g.second);  // not a miter parameter: must match as given
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool proven(const std::string &miter, int stages, const Params &params)
{
    const Params defaults = miter_defaults(miter);
    const Params want = normalized(defaults, params);
    for (const auto *set : {&kQuick, &kCI, &kFull})
        for (const Proof &p : *set)
            if (miter == p.miter && stages == p.stages && want == normalized(defaults, parse_params(p.params)))
                return true;
    return false;
}

TEST(FormalCoverage, EveryPpaDepthHasAProof)
{
    FILE *f = std::fopen((kSrc + "/synth/ppa_table.tsv").c_str(), "r");
    ASSERT_NE(f, nullptr) << "synth/ppa_table.tsv";
    char line[1024];
    int rows = 0;
    std::vector<std::string> missing;
    while (std::fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        char name[128], kind[32], device[32], module[64];
        int off = 0;
        if (std::sscanf(line, "%127s %31s %31s %63s %n", name, kind, device, module, &off) != 4) continue;
        if (std::string(kind) != "unit") continue;
        std::string mod = module, miter = mod.substr(4);  // "spu_"
        const bool pipe = mod.size() > 5 && mod.compare(mod.size() - 5, 5, "_pipe") == 0;
        if (pipe) miter = miter.substr(0, miter.size() - 5);
        else if (mod != "spu_acc_fx") continue;  // a combinational unit: the gold itself
        const Params ps = parse_params(line + off);
        int stages = 0;
        bool split = false;
        for (const auto &kv : ps) {
            if (kv.first == "STAGES") stages = std::atoi(kv.second.c_str());
            if (kv.first == "SPLIT") split = kv.second == "1";
        }
        if (stages == 0 && !split) continue;
        rows++;
        if (!proven(miter, stages, ps)) missing.push_back(std::string(name) + "." + device);
    }
    std::fclose(f);
    EXPECT_GT(rows, 40) << "the PPA table's pipelined unit rows were not read";
    EXPECT_TRUE(missing.empty()) << "PPA rows with no proof of their depth: "
                                 << ::testing::PrintToString(missing);
    // and the check can say no: depths no set proves
    EXPECT_FALSE(proven("mx_dot", 5, parse_params("N=8 INT8=1")));
    EXPECT_FALSE(proven("cvt_f32", 6, {}));
    EXPECT_TRUE(proven("mul_fp", 2, parse_params("A_EXP=5 A_MAN=10 A_SPEC=1 B_EXP=5 B_MAN=10 B_SPEC=1")));
}

}  // namespace
