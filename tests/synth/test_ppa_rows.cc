// The array rows of `make ppa` come from the one formats table
// (synth/ppa_rows.sh reads hw/isa/spu_cfg.def): a dtype added there gets its
// rows and its name in docs/fpga.md's "Formats per board" with no edit in
// synth/. No FPGA tools needed (awk and the shell only): runs in make test.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace {

const std::string kSrc = SPU_SOURCE_DIR;
const std::string kOut = std::string(SPU_BUILD_DIR) + "/tests/ppa_rows";

int run(const std::string &cmd)
{
    int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// name.device -> the row's parameters, from a generated table
std::map<std::string, std::string> spu_rows(const std::string &table)
{
    std::map<std::string, std::string> rows;
    std::istringstream in(table);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        std::string name, kind, dev, top, rest, p;
        if (!(ls >> name >> kind >> dev >> top) || name[0] == '#' || kind != "spu")
            continue;
        while (ls >> p) rest += (rest.empty() ? "" : " ") + p;
        EXPECT_EQ(rows.count(name + "." + dev), 0u) << "row twice: " << name << "." << dev;
        rows[name + "." + dev] = rest;
    }
    return rows;
}

class PpaRows : public ::testing::Test {
protected:
    std::string def = kOut + "/spu_cfg.def";
    void SetUp() override
    {
        ASSERT_EQ(run("rm -rf " + kOut + " && mkdir -p " + kOut), 0);
        // the project's formats table plus one array dtype and one that is not
        std::ofstream(def) << slurp(kSrc + "/hw/isa/spu_cfg.def")
                           << "SPU_DTYPE(TESTFMT, \"testfmt\", 13, 1, 1)\n"
                              "SPU_DTYPE(NOTARR,  \"notarr\",  14, 2, 0)\n";
    }
};

TEST_F(PpaRows, EveryArrayDtypeOfTheFormatsTableGetsItsRows)
{
    ASSERT_EQ(run("cd " + kSrc + " && synth/ppa_rows.sh synth/ppa_table.tsv " + def + " " + kOut + "/table.tsv " +
                  kOut + "/rows"),
              0);
    auto rows = spu_rows(slurp(kOut + "/table.tsv"));
    // every SPU_DTYPE with supported-by-array 1, read here with a regex
    std::regex re(R"re(SPU_DTYPE\(\s*\w+\s*,\s*"(\w+)"\s*,\s*(\d+)\s*,\s*\d+\s*,\s*([01])\s*\))re");
    std::string text = slurp(def);
    long all = 0;
    int n = 0;
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
        const std::string key = (*it)[1];
        const long code = std::stol((*it)[2]);
        const bool arr = (*it)[3] == "1";
        for (const char *b : {"icebreaker.up5k", "hx8k.hx8k"}) {
            std::string board(b), dev = board.substr(board.find('.') + 1);
            board = board.substr(0, board.find('.'));
            const std::string id = "spu_" + board + "_4x4_" + (key == "int8" ? "int8" : "int8_" + key) + "." + dev;
            if (!arr) {
                EXPECT_EQ(rows.count(id), 0u) << id << ": not an array dtype, no row";
                continue;
            }
            ASSERT_EQ(rows.count(id), 1u) << id << " missing";
            const long mask = key == "int8" ? 1 : 1 + (1L << code);
            EXPECT_EQ(rows[id], "ROWS=4 COLS=4 FORMATS=" + std::to_string(mask) + " CLK_MHZ=24") << id;
        }
        if (arr) { all |= 1L << code; n++; }
    }
    EXPECT_GE(n, 8);   // int8 e4m3 e5m2 bf16 mxfp8 x2 mxint8 + testfmt at least
    EXPECT_EQ(rows["spu_icebreaker_4x4_all.up5k"], "ROWS=4 COLS=4 FORMATS=" + std::to_string(all) + " CLK_MHZ=24");
    // the typed rows are kept (an HX8K 2x1 int8 row of synth/ppa_table.tsv)
    EXPECT_EQ(rows.count("spu_hx8k_2x1_int8.hx8k"), 1u);
    // each row's own file, and rewritten only when the row changes
    const std::string rf = kOut + "/rows/spu_hx8k_4x4_int8_testfmt.hx8k/row.tsv";
    EXPECT_EQ(slurp(rf), "spu_hx8k_4x4_int8_testfmt spu hx8k hx8k ROWS=4 COLS=4 FORMATS=8193 CLK_MHZ=24\n");
    struct stat a {}, b {};
    ASSERT_EQ(stat(rf.c_str(), &a), 0);
    ASSERT_EQ(stat((kOut + "/table.tsv").c_str(), &b), 0);
    ASSERT_EQ(run("sleep 0.05 && cd " + kSrc + " && synth/ppa_rows.sh synth/ppa_table.tsv " + def + " " + kOut +
                  "/table.tsv " + kOut + "/rows"),
              0);
    struct stat a2 {}, b2 {};
    ASSERT_EQ(stat(rf.c_str(), &a2), 0);
    ASSERT_EQ(stat((kOut + "/table.tsv").c_str(), &b2), 0);
    EXPECT_EQ(a.st_mtim.tv_nsec, a2.st_mtim.tv_nsec);
    EXPECT_EQ(b.st_mtim.tv_nsec, b2.st_mtim.tv_nsec);
}

TEST_F(PpaRows, TypedRowReplacesTheGeneratedOne)
{
    std::ofstream(kOut + "/typed.tsv") << slurp(kSrc + "/synth/ppa_table.tsv")
                                       << "spu_icebreaker_4x4_int8_testfmt spu up5k icebreaker ROWS=4 COLS=4 "
                                          "FORMATS=8193 CLK_MHZ=12\n";
    ASSERT_EQ(run("cd " + kSrc + " && synth/ppa_rows.sh " + kOut + "/typed.tsv " + def + " " + kOut + "/t2.tsv"), 0);
    auto rows = spu_rows(slurp(kOut + "/t2.tsv"));
    EXPECT_EQ(rows["spu_icebreaker_4x4_int8_testfmt.up5k"], "ROWS=4 COLS=4 FORMATS=8193 CLK_MHZ=12");
}

TEST_F(PpaRows, UnreadableDtypeRowIsAnError)
{
    std::ofstream(kOut + "/bad.def") << slurp(def) << "SPU_DTYPE(BAD, \"bad\", x, 1, 1)\n";
    EXPECT_NE(run("cd " + kSrc + " && synth/ppa_rows.sh synth/ppa_table.tsv " + kOut + "/bad.def " + kOut +
                  "/t3.tsv 2> " + kOut + "/bad.err"),
              0);
    EXPECT_NE(slurp(kOut + "/bad.err").find("cannot read"), std::string::npos);
    std::ofstream(kOut + "/wide.def") << slurp(def) << "SPU_DTYPE(WIDE, \"wide\", 32, 1, 1)\n";
    EXPECT_NE(run("cd " + kSrc + " && synth/ppa_rows.sh synth/ppa_table.tsv " + kOut + "/wide.def " + kOut +
                  "/t4.tsv 2> /dev/null"),
              0);
}

// docs/fpga.md's block names the formats from the FORMATS bits (the row
// names are not parsed: keys like mxfp8_e4m3 hold underscores).
TEST_F(PpaRows, FormatsBlockNamesTheFormatsFromTheMask)
{
    ASSERT_EQ(run("cd " + kSrc + " && synth/ppa_rows.sh synth/ppa_table.tsv " + def + " " + kOut + "/table.tsv"), 0);
    std::ofstream(kOut + "/r.csv") << "name,kind,device,lcs,dsps,ebr,fmax_mhz,status\n"
                                      "spu_hx8k_4x4_int8_testfmt,spu,hx8k,7000,0,30,30.5,ok\n";
    std::ofstream(kOut + "/doc.md") << "# x\n<!-- ppa-formats:begin -->\nold\n<!-- ppa-formats:end -->\ntail\n";
    ASSERT_EQ(run("cd " + kSrc + " && synth/ppa_formats.sh " + kOut + "/table.tsv " + kOut + "/r.csv " + kOut +
                  "/doc.md " + def + " > /dev/null"),
              0);
    const std::string doc = slurp(kOut + "/doc.md");
    EXPECT_NE(doc.find("| HX8K | 4x4 | int8 + testfmt | `make bitstream BOARD=hx8k ROWS=4 COLS=4 FORMATS=8193 "
                       "CLK_MHZ=24` | 7000 / 7680 | 0 | 30 | 30.5 | 24 | **fits** |"),
              std::string::npos)
        << doc;
    EXPECT_NE(doc.find("| iCEBreaker (UP5K) | 4x4 | int8 + mxfp8_e4m3 | "), std::string::npos);
    EXPECT_EQ(doc.find("old"), std::string::npos);
    EXPECT_NE(doc.find("tail"), std::string::npos);
}

// The result column and the per-board lines tell apart a row that does not
// fit (Yosys's LC count, shown as the estimate), one that places but misses
// its clock, and one whose flow failed for another reason.
TEST_F(PpaRows, FormatsBlockClassifiesTheResults)
{
    ASSERT_EQ(run("cd " + kSrc + " && synth/ppa_rows.sh synth/ppa_table.tsv " + def + " " + kOut + "/table.tsv"), 0);
    std::ofstream(kOut + "/r.csv")
        << "name,kind,device,lcs,dsps,ebr,fmax_mhz,status\n"
           "spu_hx8k_4x4_int8_testfmt,spu,hx8k,,,,,\"FAIL: the design needs at least 16555 logic cells (16555 "
           "SB_LUT4, 4282 flip-flops); the hx8k has 7680\"\n"
           "spu_icebreaker_4x4_int8_testfmt,spu,up5k,5200,8,29,22.1,\"FAIL spu_icebreaker_4x4_int8_testfmt: timing "
           "not met: fmax 22.10 MHz (nextpnr 23.00, icetime 22.10) < 24 MHz\"\n"
           "spu_hx8k_4x4_int8,spu,hx8k,,,,,\"FAIL: yosys failed (log: x/yosys.log); last lines:\"\n";
    std::ofstream(kOut + "/doc.md") << "<!-- ppa-formats:begin -->\n<!-- ppa-formats:end -->\n";
    ASSERT_EQ(run("cd " + kSrc + " && synth/ppa_formats.sh " + kOut + "/table.tsv " + kOut + "/r.csv " + kOut +
                  "/doc.md " + def + " > /dev/null"),
              0);
    const std::string doc = slurp(kOut + "/doc.md");
    EXPECT_NE(doc.find("| >= 16555 (Yosys estimate) / 7680 |  |  |  | 24 | does not fit: FAIL: the design needs at "
                       "least 16555"),
              std::string::npos)
        << doc;
    EXPECT_NE(doc.find("| 5200 / 5280 | 8 | 29 | 22.1 | 24 | misses its clock: FAIL"), std::string::npos) << doc;
    EXPECT_NE(doc.find("| 24 | flow failed: FAIL: yosys failed"), std::string::npos) << doc;
    EXPECT_NE(doc.find("- **HX8K** fits: none of the rows; does not fit: 4x4 int8 + testfmt; flow failed (see the "
                       "row's flow.log): 4x4 int8; not run: "),
              std::string::npos)
        << doc;
    EXPECT_NE(doc.find("- **iCEBreaker (UP5K)** fits: none of the rows; does not fit: none of the rows; places but "
                       "misses its clock: 4x4 int8 + testfmt; not run: "),
              std::string::npos)
        << doc;
}

}  // namespace
