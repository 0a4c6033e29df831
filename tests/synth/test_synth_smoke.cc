// Smoke test of the open FPGA flow (synth/): one small numerics unit end to
// end through yosys + nextpnr-ice40 + icetime, a report from spu-ppa, and
// the report checked against the schema with cJSON. SKIPs when the tools are
// missing. The full sweep is `make ppa`.
#include <gtest/gtest.h>

#include <cjson/cJSON.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>

namespace {

const std::string kSrc = SPU_SOURCE_DIR;
const std::string kBuild = SPU_BUILD_DIR;
const std::string kOut = kBuild + "/tests/synth_smoke";
const std::string kPpa = kBuild + "/bin/spu-ppa";

bool have_tool(const char *name)
{
    std::string cmd = std::string("command -v ") + name + " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

int run(const std::string &cmd)
{
    int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

cJSON *load(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return cJSON_Parse(ss.str().c_str());
}

double num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

class SynthSmoke : public ::testing::Test {
protected:
    void SetUp() override
    {
        for (const char *t : {"yosys", "nextpnr-ice40", "icetime", "icepack"})
            if (!have_tool(t))
                GTEST_SKIP() << t << " not installed (make deps)";
    }
};

// spu_mul_int8 on the UP5K: the smallest unit, ~2 s of tool time.
TEST_F(SynthSmoke, UnitThroughFlowAndReport)
{
    ASSERT_EQ(run("rm -rf " + kOut + " && mkdir -p " + kOut), 0);
    std::string env = "cd " + kSrc + " && QUIET=1 BUILD=" + kBuild + " SPU_PPA=" + kPpa + " ";
    ASSERT_EQ(run(env + "synth/flow.sh unit spu_mul_int8 up5k " + kOut + "/u spu_mul_int8 > " +
                  kOut + "/flow.log 2>&1"),
              0)
        << "see " << kOut << "/flow.log";
    ASSERT_EQ(run(kPpa + " report " + kOut + " " + kOut + "/u/entry.json > /dev/null"), 0);
    EXPECT_EQ(run(kPpa + " validate " + kOut + "/report.json > /dev/null"), 0);

    cJSON *r = load(kOut + "/report.json");
    ASSERT_NE(r, nullptr) << "report.json is not JSON";
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(r, "schema");
    ASSERT_TRUE(cJSON_IsString(schema));
    EXPECT_STREQ(schema->valuestring, "spu-ppa/1");
    const cJSON *es = cJSON_GetObjectItemCaseSensitive(r, "entries");
    ASSERT_TRUE(cJSON_IsArray(es));
    ASSERT_EQ(cJSON_GetArraySize(es), 1);
    const cJSON *e = cJSON_GetArrayItem(es, 0);

    // every column of the schema, with the type it must have
    for (const char *k : {"name", "kind", "device"})
        EXPECT_TRUE(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, k))) << k;
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(e, "kind")->valuestring, "unit");
    EXPECT_STREQ(cJSON_GetObjectItemCaseSensitive(e, "device")->valuestring, "up5k");
    for (const char *k : {"lcs", "dsps", "ebr", "spram", "transistors", "logic_depth"}) {
        double v = num(e, k);
        EXPECT_GE(v, 0) << k;
        EXPECT_EQ(v, static_cast<double>(static_cast<long>(v))) << k << " not an integer";
    }
    double fn = num(e, "fmax_nextpnr_mhz"), fi = num(e, "fmax_icetime_mhz"), f = num(e, "fmax_mhz");
    EXPECT_GT(fn, 0);
    EXPECT_GT(fi, 0);
    EXPECT_NEAR(f, fn < fi ? fn : fi, 0.011) << "fmax_mhz must be the lower figure";

    // facts about this unit that hold for any sane flow
    EXPECT_GT(num(e, "lcs"), 0);          // the harness at least
    EXPECT_LE(num(e, "dsps"), 8);         // UP5K has 8 SB_MAC16
    EXPECT_GT(num(e, "transistors"), 0);  // an 8x8 multiplier is not free
    EXPECT_GE(num(e, "logic_depth"), 4);

    // the CSV has a header and one row, the Markdown a table
    std::ifstream csv(kOut + "/report.csv");
    std::string header, row, extra;
    std::getline(csv, header);
    std::getline(csv, row);
    EXPECT_EQ(header.rfind("name,kind,device,lcs,", 0), 0u) << header;
    EXPECT_EQ(row.rfind("spu_mul_int8,unit,up5k,", 0), 0u) << row;
    EXPECT_FALSE(std::getline(csv, extra) && !extra.empty());
    cJSON_Delete(r);

    // diff of a report with itself: nothing changed, exit 0
    EXPECT_EQ(run(kPpa + " diff " + kOut + "/report.json " + kOut + "/report.json --threshold 0 > " +
                  kOut + "/diff.txt"),
              0);
}

// A probe with two clocks (synth/probes/spram_2x.v: SPRAM read at 48 MHz
// beside a 24 MHz system clock) through the flow: nextpnr times the fast
// clock against twice the target, and the entry's system clock is the lowest
// of the bounds the two domains and their crossings set, recomputed here
// from nextpnr's own report.
TEST_F(SynthSmoke, ProbeWithTwoClocksThroughFlow)
{
    const std::string d = kOut + "/probe";
    ASSERT_EQ(run("rm -rf " + d + " && mkdir -p " + d), 0);
    std::string env = "cd " + kSrc + " && QUIET=1 BUILD=" + kBuild + " SPU_PPA=" + kPpa + " ";
    ASSERT_EQ(run(env + "synth/flow.sh probe spram_2x up5k " + d + " CLK_MHZ=24 > " + d + "/flow.log 2>&1"), 0)
        << "see " << d << "/flow.log";
    cJSON *np = load(d + "/nextpnr.json");
    cJSON *e = load(d + "/entry.json");
    ASSERT_NE(np, nullptr);
    ASSERT_NE(e, nullptr);
    const cJSON *fm = cJSON_GetObjectItemCaseSensitive(np, "fmax");
    const cJSON *fast = cJSON_GetObjectItemCaseSensitive(fm, "clk2x");
    const cJSON *sys = cJSON_GetObjectItemCaseSensitive(fm, "clk1x");
    ASSERT_NE(fast, nullptr);
    ASSERT_NE(sys, nullptr);
    EXPECT_NEAR(num(fast, "constraint"), 48.0, 0.01) << "the fast clock is timed at twice the target";
    EXPECT_NEAR(num(sys, "constraint"), 24.0, 0.01);
    double worst = 0;
    int crossings = 0;
    const cJSON *cp;
    cJSON_ArrayForEach(cp, cJSON_GetObjectItemCaseSensitive(np, "critical_paths"))
    {
        std::string from = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cp, "from"));
        std::string to = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cp, "to"));
        if (from.find("clk") == std::string::npos || to.find("clk") == std::string::npos || from == to)
            continue;
        double ns = 0;
        const cJSON *seg;
        cJSON_ArrayForEach(seg, cJSON_GetObjectItemCaseSensitive(cp, "path")) ns += num(seg, "delay");
        worst = ns > worst ? ns : worst;
        crossings++;
    }
    EXPECT_EQ(crossings, 2) << "addresses 24 -> 48 MHz, the accumulator 48 -> 24 MHz";
    double bound = num(fast, "achieved") / 2;
    bound = num(sys, "achieved") < bound ? num(sys, "achieved") : bound;
    bound = 500.0 / worst < bound ? 500.0 / worst : bound;
    EXPECT_NEAR(num(e, "fmax_nextpnr_mhz"), bound, 0.011);
    const cJSON *tc = cJSON_GetObjectItemCaseSensitive(e, "two_clocks");
    ASSERT_NE(tc, nullptr);
    EXPECT_NEAR(num(tc, "crossing_max_ns"), worst, 0.011);
    EXPECT_NEAR(num(tc, "fmax_fast_nextpnr_mhz"), num(fast, "achieved"), 0.011);
    EXPECT_EQ(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(tc, "crossings")), 2);
    EXPECT_STREQ(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "kind")), "probe");
    EXPECT_EQ(num(e, "spram"), 4) << "the probe reads all four SPRAM blocks";
    cJSON_Delete(np);
    cJSON_Delete(e);
}

// Two clocks, figures given: each bound in turn limits the system clock, and
// check names the one that failed.
TEST(SynthBoardReport, TwoClocksBoundTheSystemClock)
{
    const std::string d = kOut + "/two_clocks";
    ASSERT_EQ(run("rm -rf " + d + " && mkdir -p " + d), 0);
    // the fast clock's net as nextpnr names it: clk2x at the top, or inside
    // the flattened board top (u_board.clk2x); u_board.myclk2x is not it
    auto entry = [&](const std::string &tag, double sys, double fast, double cross_ns,
                     const std::string &fnet = "clk2x", const std::string &snet = "clk") {
        std::ofstream(d + "/np_" + tag + ".json")
            << R"({"utilization":{"ICESTORM_LC":{"used":5000,"available":5280}},)"
            << R"("fmax":{")" << snet << R"(":{"achieved":)" << sys << R"(,"constraint":24},")" << fnet
            << R"(":{"achieved":)" << fast << R"(,"constraint":48}},"critical_paths":[)"
            << R"({"from":"posedge )" << fnet << R"(","to":"posedge )" << fnet << R"(","path":[{"delay":10.0}]},)"
            << R"({"from":"<async>","to":"posedge )" << snet << R"(","path":[{"delay":30.0}]},)"
            // an unregistered SB_MAC16's tied clock: nextpnr lists it, it is no crossing
            << R"({"from":"posedge $PACKER_GND_NET","to":"posedge )" << snet << R"(","path":[{"delay":40.0}]},)"
            << R"({"from":"posedge )" << snet << R"(","to":"posedge )" << fnet << R"(","path":[{"delay":1.5},{"delay":)"
            << cross_ns - 1.5 << R"(}]}]})";
        std::ofstream(d + "/it.json") << R"([[{"cell":"a","delay_ns":20.0}]])";   // 50 MHz
        return run(kPpa + " entry --name spu_icebreaker --kind spu --device up5k --target-mhz 24 --macs 32"
                          " --fast-clock clk2x --nextpnr " + d + "/np_" + tag + ".json --icetime " + d +
                   "/it.json -o " + d + "/" + tag + ".json");
    };
    auto limit = [&](const std::string &tag) {
        cJSON *e = load(d + "/" + tag + ".json");
        const char *lv = e ? cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "fmax_limit")) : nullptr;
        std::string l = lv ? lv : "";
        double f = e ? num(e, "fmax_mhz") : -1;
        cJSON_Delete(e);
        return std::make_pair(l, f);
    };
    ASSERT_EQ(entry("sys", 25.0, 60.0, 10.0), 0);
    EXPECT_EQ(limit("sys"), std::make_pair(std::string("system clock"), 25.0));
    ASSERT_EQ(entry("fast", 30.0, 52.0, 10.0), 0);
    EXPECT_EQ(limit("fast"), std::make_pair(std::string("fast clock"), 26.0));
    ASSERT_EQ(entry("cross", 30.0, 60.0, 25.0), 0);   // 1000 / (2 x 25 ns)
    EXPECT_EQ(limit("cross"), std::make_pair(std::string("clock crossing"), 20.0));
    ASSERT_EQ(entry("flat", 30.0, 60.0, 25.0, "u_board.clk2x", "u_board.clk"), 0);
    EXPECT_EQ(limit("flat"), std::make_pair(std::string("clock crossing"), 20.0));
    ASSERT_EQ(entry("other", 30.0, 60.0, 25.0, "u_board.myclk2x", "u_board.clk"), 0);
    {
        // no fast clock: the slowest domain, as for one clock, and no two_clocks
        cJSON *o = load(d + "/other.json");
        ASSERT_NE(o, nullptr);
        EXPECT_EQ(cJSON_GetObjectItemCaseSensitive(o, "two_clocks"), nullptr);
        EXPECT_DOUBLE_EQ(num(o, "fmax_nextpnr_mhz"), 30.0);
        cJSON_Delete(o);
    }
    cJSON *e = load(d + "/sys.json");
    ASSERT_NE(e, nullptr);
    EXPECT_DOUBLE_EQ(num(e, "gmacs"), 0.8);   // 32 MACs per system cycle x 25 MHz
    cJSON_Delete(e);
    // the crossing misses half the system period: check fails and says so
    EXPECT_NE(run(kPpa + " check " + d + "/cross.json > " + d + "/check.txt 2>&1"), 0);
    std::ifstream cf(d + "/check.txt");
    std::string check((std::istreambuf_iterator<char>(cf)), std::istreambuf_iterator<char>());
    EXPECT_NE(check.find("FAIL spu_icebreaker: timing not met: fmax 20.00 MHz"), std::string::npos) << check;
    EXPECT_NE(check.find("fast clock clk2x 60.00 MHz, crossings 25.00 ns; limit: clock crossing"),
              std::string::npos)
        << check;
    EXPECT_EQ(run(kPpa + " check " + d + "/sys.json > /dev/null"), 0);
}

// The report generator rejects a report that breaks the schema.
TEST(SynthSchema, ValidateRejectsBadReport)
{
    ASSERT_EQ(run("mkdir -p " + kOut), 0);
    std::ofstream(kOut + "/bad.json")
        << R"({"schema":"spu-ppa/1","entries":[{"name":"x","kind":"unit","device":"up5k"}]})";
    EXPECT_NE(run(kPpa + " validate " + kOut + "/bad.json 2>/dev/null"), 0);
    std::ofstream(kOut + "/bad2.json") << R"({"schema":"spu-ppa/1","entries":[{"name":"x",)"
                                          R"("kind":"unit","device":"up5k","lcs":1,"dsps":0,"ebr":0,)"
                                          R"("spram":0,"fmax_nextpnr_mhz":100,"fmax_icetime_mhz":90,)"
                                          R"("fmax_mhz":100,"transistors":1,"logic_depth":1}]})";
    EXPECT_NE(run(kPpa + " validate " + kOut + "/bad2.json 2>/dev/null"), 0)
        << "fmax_mhz must be the lower of the two figures";
}

// make bitstream's report: GMAC/s = MACs per cycle x the LOWER of nextpnr's
// and icetime's Fmax, slack against the target, the seed, and README.md's
// board status region rewritten from per-seed entries (tool outputs in the
// JSON shapes nextpnr-ice40 --report and icetime -j write).
TEST(SynthBoardReport, GmacsSlackSeedAndReadmeRegion)
{
    const std::string d = kOut + "/board_report";
    ASSERT_EQ(run("rm -rf " + d + " && mkdir -p " + d), 0);
    auto write_run = [&](const std::string &tag, double np, double it_ns) {
        std::ofstream(d + "/np_" + tag + ".json")
            << R"({"utilization":{"ICESTORM_LC":{"used":4836,"available":5280},)"
            << R"("ICESTORM_DSP":{"used":8,"available":8},"ICESTORM_RAM":{"used":13,"available":30},)"
            << R"("ICESTORM_SPRAM":{"used":4,"available":4}},)"
            << R"("fmax":{"clk":{"achieved":)" << np << R"(,"constraint":24}}})";
        std::ofstream(d + "/it_" + tag + ".json")
            << R"([[{"cell":"a","delay_ns":1.0},{"cell":"b","delay_ns":)" << it_ns << "}]]";
    };
    write_run("s1", 27.13, 1000.0 / 26.5);   // icetime lower: 26.50 MHz
    write_run("s2", 25.0, 1000.0 / 30.0);    // nextpnr lower: 25.00 MHz
    for (const char *s : {"s1", "s2"}) {
        std::string seed = s[1] == '1' ? "1" : "2";
        ASSERT_EQ(run(kPpa + " entry --name spu_icebreaker --kind spu --device up5k --top t --target-mhz 24"
                             " --macs 16 --seed " + seed + (seed == "1" ? " --commit abc1234" : "") + " --nextpnr " + d + "/np_" + s + ".json --icetime " +
                      d + "/it_" + s + ".json -o " + d + "/entry-seed" + seed + ".json"),
                  0);
    }
    cJSON *e1 = load(d + "/entry-seed1.json");
    ASSERT_NE(e1, nullptr);
    EXPECT_DOUBLE_EQ(num(e1, "fmax_mhz"), 26.5);
    EXPECT_DOUBLE_EQ(num(e1, "gmacs"), 0.42);   // 16 * 26.5 MHz = 0.424
    EXPECT_DOUBLE_EQ(num(e1, "macs_per_cycle"), 16);
    EXPECT_DOUBLE_EQ(num(e1, "seed"), 1);
    EXPECT_DOUBLE_EQ(num(e1, "slack_pct"), 10.42);   // (26.5 - 24) / 24
    cJSON_Delete(e1);
    cJSON *e2 = load(d + "/entry-seed2.json");
    ASSERT_NE(e2, nullptr);
    EXPECT_DOUBLE_EQ(num(e2, "gmacs"), 0.4);   // nextpnr's 25.00 is the lower
    cJSON_Delete(e2);
    // check prints GMAC/s beside Fmax
    ASSERT_EQ(run(kPpa + " check " + d + "/entry-seed1.json > " + d + "/check.txt"), 0);
    std::ifstream cf(d + "/check.txt");
    std::string check((std::istreambuf_iterator<char>(cf)), std::istreambuf_iterator<char>());
    EXPECT_NE(check.find("fmax 26.50 MHz"), std::string::npos) << check;
    EXPECT_NE(check.find("0.42 GMAC/s (16 MACs/cycle)"), std::string::npos) << check;
    EXPECT_NE(check.find("slack 10.4 %"), std::string::npos) << check;
    // a failed placement (no timing) as make bitstream records it
    ASSERT_EQ(run(kPpa + " entry --name spu_hx8k --kind spu --device hx8k --target-mhz 24 --seed 1"
                         " --status 'FAIL: nextpnr-ice40 failed' -o " + d + "/hx-seed1.json"),
              0);
    // README region: replaced between the markers, everything else kept
    std::ofstream(d + "/README.md") << "# title\nbefore\n<!-- board-status:begin (x) -->\nold line\n"
                                       "<!-- board-status:end -->\nafter\n";
    ASSERT_EQ(run(kPpa + " readme " + d + "/README.md " + d + "/entry-seed2.json " + d + "/entry-seed1.json " +
                  d + "/hx-seed1.json > /dev/null"),
              0);
    std::ifstream rf(d + "/README.md");
    std::string readme((std::istreambuf_iterator<char>(rf)), std::istreambuf_iterator<char>());
    EXPECT_EQ(readme.find("old line"), std::string::npos) << readme;
    EXPECT_EQ(readme.rfind("# title\nbefore\n<!-- board-status:begin (x) -->\n", 0), 0u) << readme;
    EXPECT_NE(readme.find("<!-- board-status:end -->\nafter\n"), std::string::npos) << readme;
    EXPECT_NE(readme.find("`spu_icebreaker` (up5k, 16 MACs/cycle, target 24 MHz): worst 0.40 GMAC/s, "
                          "worst slack 4.2 %"),
              std::string::npos)
        << readme;
    EXPECT_NE(readme.find("seed 1 at abc1234: 26.50 MHz (nextpnr 27.13, icetime 26.50), 0.42 GMAC/s, 4836/5280 LCs; "
                          "seed 2: 25.00 MHz"),
              std::string::npos)
        << readme;
    EXPECT_NE(readme.find("`spu_hx8k` (hx8k"), std::string::npos) << readme;
    EXPECT_NE(readme.find("seed 1: FAIL: nextpnr-ice40 failed"), std::string::npos) << readme;
    // a README without the markers is refused, not rewritten
    std::ofstream(d + "/R2.md") << "no markers\n";
    EXPECT_NE(run(kPpa + " readme " + d + "/R2.md " + d + "/entry-seed1.json 2>/dev/null"), 0);
}

}  // namespace

// ---- formal equivalence of the area-optimized RTL (Yosys sat, all inputs) ----
namespace {

bool prove(const std::string &name, const std::string &script)
{
    std::string log = kOut + "/" + name + ".log";
    run("mkdir -p " + kOut);
    std::string cmd = "cd " + kSrc + " && yosys -p '" + script + "' > " + log + " 2>&1";
    if (run(cmd) != 0)
        return false;
    std::ifstream f(log);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str().find("SAT proof finished - no model found: SUCCESS!") != std::string::npos;
}

} // namespace

// The SB_MAC16 path of spu_mul8x2 (8x8 mode, signed, unregistered) against two
// plain signed multipliers, on Yosys's own simulation model of the cell (the
// RTL as written; the synthesized netlist: the test below).
TEST(Equivalence, Mul8x2DspMatchesMultiply)
{
    if (!have_tool("yosys"))
        GTEST_SKIP() << "yosys not installed (make deps)";
    const std::string s =
        "read_verilog -D SYNTHESIS hw/rtl/core/spu_sb_mac16.v hw/rtl/core/spu_mul8x2.v; "
        "chparam -set USE_ICE40_DSP 1 spu_mul8x2; hierarchy -top spu_mul8x2; "
        "script synth/ice40_cells.ys; delete spu_sb_mac16; "
        "read_verilog -D NO_ICE40_DEFAULT_ASSIGNMENTS +/ice40/cells_sim.v; hierarchy -top spu_mul8x2; "
        "select -assert-count 1 t:*SB_MAC16*; proc; flatten; hierarchy -top spu_mul8x2; "
        "design -stash dut; read_verilog tests/synth/spu_mul8x2_ref.v; proc; design -stash ref; "
        "design -copy-from dut -as dut spu_mul8x2; design -copy-from ref -as ref spu_mul8x2_ref; "
        "miter -equiv -flatten -make_assert ref dut miter; hierarchy -top miter; opt -fast; "
        "sat -verify -prove-asserts miter";
    EXPECT_TRUE(prove("equiv_mul8x2", s)) << "see " << kOut << "/equiv_mul8x2.log";
}

// spu_mul8x2 as the board flow builds it: synth_ice40 -dsp, then
// synth/ice40_cells.ys, with the cell's registers off (REG = 0) and on
// (REG = 1, ARRAY_2X: the products one clock edge late), simulated with
// Icarus on Yosys's model of the cell (where Yosys resolves +/) for all
// 2^16 operand pairs of each multiplier. Yosys 0.23's ice40_dsp rewrote an instantiated SB_MAC16 into
// 16x16 mode (wrong products), which the RTL-level proof above cannot see:
// hw/rtl/core/spu_sb_mac16.v hides the cell from it.
TEST(Equivalence, Mul8x2SynthesizedMatchesMultiply)
{
    if (!have_tool("yosys") || !have_tool("iverilog"))
        GTEST_SKIP() << "yosys / iverilog not installed (make deps)";
    for (int reg = 0; reg <= 1; reg++) {
        const std::string d = kOut + "/mul8x2_synth_reg" + std::to_string(reg);
        ASSERT_EQ(run("rm -rf " + d + " && mkdir -p " + d), 0);
        const std::string ys =
            "read_verilog -D SYNTHESIS hw/rtl/core/spu_sb_mac16.v hw/rtl/core/spu_mul8x2.v; "
            "chparam -set USE_ICE40_DSP 1 -set REG " + std::to_string(reg) + " spu_mul8x2; "
            "synth_ice40 -top spu_mul8x2 -dsp; script synth/ice40_cells.ys; "
            "select -assert-count 1 t:SB_MAC16; select -assert-count 0 t:spu_sb_mac16; "
            "write_verilog -noattr -selected " + d + "/net.v";
        ASSERT_EQ(run("cd " + kSrc + " && yosys -p '" + ys + "' > " + d + "/yosys.log 2>&1"), 0)
            << "see " << d << "/yosys.log";
        // p0 = a0 * b0 over every (a0, b0); p1 = a1 * b1 over every pair in
        // another order; the expected products wait REG ? 1 : 0 edges
        std::ofstream(d + "/tb.v")
            << "module tb;\n  reg clk = 0; reg [7:0] a0, b0, a1, b1; wire [15:0] p0, p1;\n"
               "  reg [15:0] w0 [0:2]; reg [15:0] w1 [0:2]; integer i, bad, lat;\n"
               "  spu_mul8x2 dut(.clk_i(clk), .a0_i(a0), .b0_i(b0), .a1_i(a1), .b1_i(b1), .p0_o(p0), .p1_o(p1));\n"
               "  initial begin bad = 0; lat = " << reg << ";\n"
               "    for (i = 0; i < 65536 + 2; i = i + 1) begin\n"
               "      a0 = i[7:0]; b0 = i[15:8]; a1 = i[15:8] ^ 8'h5a; b1 = i[7:0] + i[15:8];\n"
               "      w0[i % 3] = $signed(a0) * $signed(b0); w1[i % 3] = $signed(a1) * $signed(b1);\n"
               "      if (lat != 0) begin #1 clk = 1; #1 clk = 0; end\n"
               "      #1;\n"
               "      if (p0 !== w0[i % 3] || p1 !== w1[i % 3]) bad = bad + 1;\n"
               "    end\n"
               "    $display(\"bad=%0d\", bad); $finish;\n  end\nendmodule\n";
        ASSERT_EQ(run("cd " + d + " && iverilog -DNO_ICE40_DEFAULT_ASSIGNMENTS -o sim tb.v net.v "
                      "\"$(dirname \"$(command -v yosys)\")/../share/yosys/ice40/cells_sim.v\" > iverilog.log 2>&1"), 0)
            << "see " << d << "/iverilog.log";
        ASSERT_EQ(run("cd " + d + " && vvp -n sim > sim.log 2>&1"), 0);
        std::ifstream f(d + "/sim.log");
        std::stringstream ss;
        ss << f.rdbuf();
        EXPECT_NE(ss.str().find("bad=0"), std::string::npos) << "REG=" << reg << ": " << ss.str();
    }
}

// spu_requant (logarithmic shifter: sticky and fits from the stages) against
// the plain formulation, for all inputs.
TEST(Equivalence, RequantMatchesPlain)
{
    if (!have_tool("yosys"))
        GTEST_SKIP() << "yosys not installed (make deps)";
    const std::string s =
        "read_verilog -I" + kBuild + "/gen hw/rtl/core/spu_requant.v hw/rtl/core/spu_requant_pre.v "
        "hw/rtl/core/spu_requant_post.v tests/synth/spu_requant_ref.v; "
        "proc; opt_clean; miter -equiv -flatten -make_assert spu_requant_ref spu_requant miter; "
        "hierarchy -top miter; opt -fast; sat -verify -prove-asserts miter";
    EXPECT_TRUE(prove("equiv_requant", s)) << "see " << kOut << "/equiv_requant.log";
}

// The HX8K board flow's techmap (synth/ice40_mul8s_csa.v): every signed
// 8x8 -> 16 `$mul` becomes a carry-save array, equal to the product for all
// 2^16 inputs (the mapped netlist simulated exhaustively with Icarus: a SAT
// proof of a multiplier takes minutes); an unsigned one is left alone.
TEST(Equivalence, Mul8sCsaMatchesMultiply)
{
    if (!have_tool("yosys") || !have_tool("iverilog"))
        GTEST_SKIP() << "yosys / iverilog not installed (make deps)";
    const std::string d = kOut + "/mul8s_csa";
    ASSERT_EQ(run("rm -rf " + d + " && mkdir -p " + d), 0);
    std::ofstream(d + "/mul8s.v")
        << "module mul8s(input [7:0] a, input [7:0] b, output [15:0] p);\n"
           "  assign p = $signed(a) * $signed(b);\nendmodule\n"
           "module mul8u(input [7:0] a, input [7:0] b, output [15:0] p);\n  assign p = a * b;\nendmodule\n";
    std::ofstream(d + "/tb.v")
        << "module tb;\n  reg [7:0] a, b; reg signed [15:0] want; wire [15:0] p; integer i, bad;\n"
           "  mul8s dut(.a(a), .b(b), .p(p));\n"
           "  initial begin bad = 0;\n"
           "    for (i = 0; i < 65536; i = i + 1) begin\n"
           "      a = i[7:0]; b = i[15:8]; want = $signed(a) * $signed(b); #1;\n"
           "      if (p !== want) bad = bad + 1;\n"
           "    end\n"
           "    if (bad == 0) $display(\"ALL 65536 OK\"); else $display(\"MISMATCHES %0d\", bad);\n"
           "  end\nendmodule\n";
    const std::string ys = "read_verilog " + d + "/mul8s.v; wreduce; techmap -map synth/ice40_mul8s_csa.v; "
                           "opt_clean; select -assert-none mul8s/t:$mul; select -assert-count 1 mul8u/t:$mul; "
                           "write_verilog -noattr -selected " + d + "/gate.v";
    ASSERT_EQ(run("cd " + kSrc + " && yosys -p '" + ys + "' > " + d + "/yosys.log 2>&1"), 0)
        << "see " << d << "/yosys.log";
    ASSERT_EQ(run("iverilog -o " + d + "/sim " + d + "/tb.v " + d + "/gate.v > " + d + "/iverilog.log 2>&1"), 0);
    ASSERT_EQ(run("vvp " + d + "/sim > " + d + "/vvp.log 2>&1"), 0);
    std::ifstream f(d + "/vvp.log");
    std::string out((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    EXPECT_NE(out.find("ALL 65536 OK"), std::string::npos) << out;
}

// A failed row's status holds commas (the tools' message): report.csv
// quotes it (RFC 4180), so the CSV keeps one field per column.
TEST(PpaReport, CsvQuotesAStatusWithCommas)
{
    const std::string dir = kOut + "/csvq";
    ASSERT_EQ(run("mkdir -p " + dir + " && " + kPpa +
                  " entry --name u --kind unit --device up5k --stages 2 --latency 2"
                  " --status 'FAIL: needs 9 LCs (9 SB_LUT4, 1 \"FF\"); has 5' -o " + dir + "/e.json > /dev/null"),
              0);
    ASSERT_EQ(run(kPpa + " report " + dir + " " + dir + "/e.json > /dev/null"), 0);
    std::ifstream csv(dir + "/report.csv");
    std::string header, row;
    std::getline(csv, header);
    std::getline(csv, row);
    EXPECT_NE(row.find(",\"FAIL: needs 9 LCs (9 SB_LUT4, 1 \"\"FF\"\"); has 5\","), std::string::npos) << row;
    // as many columns as the header, counting only commas outside quotes
    int cols = 1, hcols = 1;
    bool q = false;
    for (char c : row) {
        if (c == '"') q = !q;
        else if (c == ',' && !q) cols++;
    }
    for (char c : header) hcols += c == ',';
    EXPECT_EQ(cols, hcols);
}

