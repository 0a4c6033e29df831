// test_protocol_doc.cc -- docs/protocol.md's command and status tables must
// list exactly the entries of hw/isa/spu_link.def, with the same codes, in order.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Row {
    std::string name;
    long code;
};

const std::vector<Row> kCommands = {
#define SPU_CMD(name, code, req, resp) {#name, code},
#include "spu_link.def"
};
const std::vector<Row> kStatus = {
#define SPU_LINK_STATUS(name, code, summary) {#name, code},
#include "spu_link.def"
};

// Rows "| `NAME` | CODE | ..." between "<!-- TAG" and "<!-- /TAG".
std::vector<Row> doc_table(const std::string &tag)
{
    std::ifstream f(SPU_SOURCE_DIR "/docs/protocol.md");
    EXPECT_TRUE(f.good()) << "docs/protocol.md missing";
    std::vector<Row> rows;
    std::string line;
    bool in = false;
    while (std::getline(f, line)) {
        if (line.rfind("<!-- " + tag, 0) == 0) {
            in = true;
            continue;
        }
        if (line.rfind("<!-- /" + tag, 0) == 0)
            break;
        if (!in || line.rfind("| `", 0) != 0)
            continue;
        size_t a = 3, b = line.find('`', a);
        size_t c = line.find('|', b) + 1, d = line.find('|', c);
        std::string code = line.substr(c, d - c);
        rows.push_back({line.substr(a, b - a), std::strtol(code.c_str(), nullptr, 0)});
    }
    return rows;
}

void expect_same(const std::vector<Row> &doc, const std::vector<Row> &def)
{
    ASSERT_EQ(doc.size(), def.size());
    for (size_t i = 0; i < def.size(); i++) {
        EXPECT_EQ(doc[i].name, def[i].name) << "row " << i;
        EXPECT_EQ(doc[i].code, def[i].code) << def[i].name;
    }
}

TEST(ProtocolDoc, CommandTableMatchesLinkDef) { expect_same(doc_table("command-table"), kCommands); }
TEST(ProtocolDoc, StatusTableMatchesLinkDef) { expect_same(doc_table("status-table"), kStatus); }

TEST(ProtocolDoc, MaxPayloadMatchesLinkDef)
{
#define SPU_LINK_CONST(name, value) const long LINK_##name = value;
#include "spu_link.def"
    std::ifstream f(SPU_SOURCE_DIR "/docs/protocol.md");
    std::stringstream ss;
    ss << f.rdbuf();
    EXPECT_NE(ss.str().find("MAX_PAYLOAD = " + std::to_string(LINK_MAX_PAYLOAD)), std::string::npos);
    (void)LINK_RESP_BIT;
}

}   // namespace
