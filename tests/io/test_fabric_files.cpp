// Fabric file formats: every OpenSM/ibsim fixture imports equal to its generator, round
// trips through net and JSON, and malformed input gives file:line errors.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/errors.h"
#include "fabric/fabric.h"
#include "graph/builder.h"
#include "io/fabric_files.h"
#include "io/lid_map.h"
#include "io/output.h"
#include "support/test_support.h"
#include "topology/compare.h"
#include "topology/recognize.h"

using namespace routelab;

namespace {

struct Fixture {
  const char* directory;
  const char* spec;
};

// tests/data/opensm/README.md: the generator command of each directory.
const Fixture kFixtures[] = {
    {"k4n2", "kary-ntree:k=4,n=2"},
    {"k2n4", "kary-ntree:k=2,n=4"},
    {"k4n3", "kary-ntree:k=4,n=3"},
    {"gft_4_4_8", "gft2:n=4,m=4,r=8"},
    {"rnd16_s1", "random:switches=16,links=32,terminals=1,radix=16,seed=1"},
    {"k6n2", "kary-ntree:k=6,n=2"},  // 12-port switches: port numbers with two digits
};

std::string fixturePath(const Fixture& fixture, const char* file) {
  return test::fixturesDir() + "/" + fixture.directory + "/" + file;
}

/// The network a generator spec builds.
Network generate(const std::string& spec) { return loadFabric(spec).network; }

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out;
}

CompareOptions strict() {
  CompareOptions options;
  options.compareGuids = true;
  options.compareOrder = true;
  return options;
}

std::string netText(const Network& network) {
  std::ostringstream out;
  writeIbsimNet(network, out);
  return out.str();
}

std::string jsonText(const Network& network) {
  std::ostringstream out;
  writeNetworkJson(network, out);
  return out.str();
}

void expectSameLabels(const Network& a, const Network& b) {
  ASSERT_NE(a.xgft(), nullptr);
  ASSERT_NE(b.xgft(), nullptr);
  EXPECT_EQ(a.xgft()->params.m, b.xgft()->params.m);
  EXPECT_EQ(a.xgft()->params.w, b.xgft()->params.w);
  EXPECT_EQ(a.xgft()->family, b.xgft()->family);
  EXPECT_EQ(a.xgft()->level, b.xgft()->level);
  EXPECT_EQ(a.xgft()->indexInLevel, b.xgft()->indexInLevel);
}

}  // namespace

// ---- format detection ------------------------------------------------------------------

// A first record header cut off at or just after its opening quote is an ibsim net header (an
// ibnetdiscover id needs "S-"/"H-" and the GUID): detected as such, reading nothing past the line.
TEST(DetectFabricFormat, AHeaderCutAtItsQuoteIsAnIbsimNetHeader) {
  for (const std::string cut : {"Switch 4 \"", "Switch 4 \"S", "Hca 1 \"H", "Switch 4 \"S-", "Ca 1 \"H-"}) {
    EXPECT_EQ(detectFabricFormat(cut), FabricFormat::IbsimNet) << cut;
  }
  EXPECT_EQ(detectFabricFormat("Ca 1 \"H-1"), FabricFormat::Ibnetdiscover);  // an id, even unterminated
}

// ---- fixtures ---------------------------------------------------------------------------

class FixtureImport : public ::testing::TestWithParam<Fixture> {};

TEST_P(FixtureImport, TopologyNetEqualsGenerator) {
  const Network generated = generate(GetParam().spec);
  const std::string path = fixturePath(GetParam(), "topology.net");
  EXPECT_EQ(detectFabricFormat(readFileText(path)), FabricFormat::IbsimNet);
  const Network imported = readFabricFile(path);
  // Same nodes in the same order, same ports, same cables, same GUIDs as ibsim assigns.
  EXPECT_EQ(joined(networkDifferences(imported, generated, strict())), "");
}

TEST_P(FixtureImport, IbnetdiscoverEqualsGenerator) {
  const Network generated = generate(GetParam().spec);
  const std::string path = fixturePath(GetParam(), "ibnetdiscover.txt");
  EXPECT_EQ(detectFabricFormat(readFileText(path)), FabricFormat::Ibnetdiscover);
  const Network imported = readFabricFile(path);
  // ibnetdiscover lists switches first in discovery order; ascending GUID restores the
  // generator's order, NodeDescriptions restore the names, GUIDs are the ones ibsim gave.
  EXPECT_EQ(joined(networkDifferences(imported, generated, strict())), "");
  EXPECT_EQ(imported.guid(imported.terminalNode(0)), 0x100000u);
  EXPECT_EQ(imported.guid(imported.switchNode(0)), 0x200000u);
}

TEST_P(FixtureImport, IbnetdiscoverPortsEqualsGenerator) {
  const Network generated = generate(GetParam().spec);
  const std::string path = fixturePath(GetParam(), "ibnetdiscover-p.txt");
  EXPECT_EQ(detectFabricFormat(readFileText(path)), FabricFormat::IbnetdiscoverPorts);
  const Network imported = readFabricFile(path);
  // -p lists every port of a switch (down ones too) and only port 1 of a 1-port CA, so
  // port counts agree here; the option documents that in general they need not.
  CompareOptions options = strict();
  options.ignoreUnusedPorts = true;
  EXPECT_EQ(joined(networkDifferences(imported, generated, options)), "");
}

TEST_P(FixtureImport, FatTreesAreRecognisedWithTheGeneratorsLabels) {
  const Network generated = generate(GetParam().spec);
  for (const char* file : {"topology.net", "ibnetdiscover.txt"}) {
    const Network imported = readFabricFile(fixturePath(GetParam(), file));
    EXPECT_EQ(imported.xgft(), nullptr) << "readers attach no labels themselves";
    const auto recognized = recognizeFatTree(imported);
    if (generated.xgft()) {
      ASSERT_TRUE(recognized.has_value()) << file;
      expectSameLabels(*recognized, generated);
      // loadFabric does the same for file specs.
      const Fabric fabric = loadFabric(std::string("file:") + fixturePath(GetParam(), file));
      expectSameLabels(fabric.network, generated);
    } else {
      EXPECT_FALSE(recognized.has_value()) << file;
    }
  }
}

namespace {

/// Every line of `text` through `change` (lines without their '\n').
std::string eachLine(const std::string& text, const std::function<std::string(const std::string&)>& change) {
  std::istringstream in(text);
  std::string out, line;
  while (std::getline(in, line)) out += change(line) + "\n";
  return out;
}

/// The blank-line separated blocks of `text`, in reverse order.
std::string blocksReversed(const std::string& text) {
  std::vector<std::string> blocks(1);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) {
      if (!blocks.back().empty()) blocks.emplace_back();
    } else {
      blocks.back() += line + "\n";
    }
  }
  std::string out;
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) out += *it + "\n";
  return out;
}

/// docs/FORMATS.md's variations of a net / ibnetdiscover file, each with its name: CRLF line
/// ends, leading blanks, comment lines between the port lines of a record, and (net files)
/// an omitted remote port 1, (ibnetdiscover) records in any order (canonical order by GUID).
std::vector<std::pair<std::string, std::string>> documentedVariations(const std::string& text, bool ibnetdiscover) {
  std::vector<std::pair<std::string, std::string>> out;
  out.emplace_back("crlf", eachLine(text, [](const std::string& l) { return l + "\r"; }));
  out.emplace_back("leading blanks", eachLine(text, [](const std::string& l) { return l.empty() ? l : " \t " + l; }));
  out.emplace_back("comments between port lines", eachLine(text, [](const std::string& l) {
                     return l.starts_with("[") ? l + "\n# a comment line\n  # another, indented" : l;
                   }));
  if (ibnetdiscover) {
    out.emplace_back("records reversed", blocksReversed(text));
  } else {
    out.emplace_back("remote port 1 omitted", eachLine(text, [](const std::string& l) {
                       const std::size_t at = l.find("\"[1]");
                       if (!l.starts_with("[") || at == std::string::npos || l.find('(', at) != std::string::npos)
                         return l;
                       return l.substr(0, at + 1) + l.substr(at + 4);
                     }));
  }
  return out;
}

}  // namespace

// Each documented variation of a fixture, plain and gzipped (with and without the .gz name),
// reads as the same fabric as the file itself: nodes, order, ports, cables and GUIDs.
TEST_P(FixtureImport, DocumentedVariationsReadAsTheSameFabric) {
  for (const char* file : {"topology.net", "ibnetdiscover.txt"}) {
    const std::string path = fixturePath(GetParam(), file);
    const Network canonical = readFabricFile(path);
    const bool ibnetdiscover = std::string(file) == "ibnetdiscover.txt";
    int changed = 0;
    for (const auto& [name, text] : documentedVariations(readFileText(path), ibnetdiscover)) {
      const std::string what = std::string(GetParam().directory) + "/" + file + " " + name;
      const std::filesystem::path variant = test::scratchDir() / (std::string(GetParam().directory) + "-variant");
      std::ofstream(variant, std::ios::binary) << text;
      changed += text != readFileText(path);
      EXPECT_EQ(joined(networkDifferences(readFabricFile(variant.string()), canonical, strict())), "") << what;
      const std::string gz = variant.string() + ".gz", bare = variant.string() + "-gzipped";
      ASSERT_EQ(test::runCommand("gzip -c '" + variant.string() + "' > '" + gz + "' && cp '" + gz + "' '" + bare + "'")
                    .exitCode,
                0);
      EXPECT_EQ(joined(networkDifferences(readFabricFile(gz), canonical, strict())), "") << what << " (.gz)";
      EXPECT_EQ(joined(networkDifferences(readFabricFile(bare), canonical, strict())), "") << what << " (gzip magic)";
    }
    EXPECT_EQ(changed, 4) << file << ": every variation changes the text";
  }
  // ibnetdiscover -p: one line per port, in any order; blank and comment lines skipped, CRLF
  // line ends and leading blanks taken (docs/FORMATS.md "ibnetdiscover -p output").
  const std::string path = fixturePath(GetParam(), "ibnetdiscover-p.txt");
  const std::string text = readFileText(path);
  std::istringstream in(text);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::string reversed;
  for (auto it = lines.rbegin(); it != lines.rend(); ++it) reversed += *it + "\n";
  const std::vector<std::pair<std::string, std::string>> variations = {
      {"reversed", reversed},
      {"blank and comment lines",
       "# ibnetdiscover -p of the fabric\n\n" +
           eachLine(text,
                    [](const std::string& l) { return l + "\n\n# a comment line\n  # another, indented\n \t "; })},
      {"crlf", eachLine(text, [](const std::string& l) { return l + "\r"; })},
      {"leading blanks", eachLine(text, [](const std::string& l) { return l.empty() ? l : " \t " + l; })}};
  const Network canonical = readFabricFile(path);
  for (const auto& [name, variation] : variations) {
    ASSERT_NE(variation, text) << name;
    const std::filesystem::path variant = test::scratchDir() / (std::string(GetParam().directory) + "-p-variant");
    std::ofstream(variant, std::ios::binary) << variation;
    EXPECT_EQ(joined(networkDifferences(readFabricFile(variant.string()), canonical, strict())), "")
        << GetParam().directory << "/ibnetdiscover-p.txt " << name;
  }
}

INSTANTIATE_TEST_SUITE_P(OpenSmFixtures, FixtureImport, ::testing::ValuesIn(kFixtures),
                         [](const auto& parameter) { return std::string(parameter.param.directory); });

// ---- round trips ------------------------------------------------------------------------

class RoundTrip : public ::testing::TestWithParam<const char*> {};

TEST_P(RoundTrip, NetFile) {
  const Network generated = generate(GetParam());
  const Network back = parseFabricText(netText(generated), "roundtrip.net");
  EXPECT_EQ(joined(networkDifferences(back, generated, strict())), "");
  // Writing the re-read network gives the same text apart from the origin comment.
  auto withoutOrigin = [](std::string text) { return text.substr(text.find("# totals")); };
  EXPECT_EQ(withoutOrigin(netText(back)), withoutOrigin(netText(generated)));
  // The origin comment, the second line, where the network has an origin; none without.
  ASSERT_FALSE(generated.origin().empty());
  const std::string text = netText(generated);
  EXPECT_EQ(text.rfind("# ibsim net file written by routelab\n# origin: " + generated.origin() + "\n", 0), 0u);
  // The totals a user starts ibsim with, recounted: every node's ports, plus port 0 of each
  // switch; ibsim's -N counts nodes.
  std::size_t ports = generated.switchCount();
  for (std::size_t i = 0; i < generated.nodeCount(); ++i) ports += generated.portCount(NodeId::fromIndex(i));
  EXPECT_NE(text.find(fmt::format("\n# totals: {} switches, {} CAs, {} links, {} ports (switch port 0 included)\n"
                                  "# ibsim needs -S >= {} -N >= {} -P >= {} beyond its defaults (256/2048/13312)\n",
                                  generated.switchCount(), generated.terminalCount(), generated.linkCount(), ports,
                                  generated.switchCount(), generated.nodeCount(), ports)),
            std::string::npos)
      << text.substr(0, 400);
  const std::string plain = netText(generated.withOrigin(""));
  EXPECT_EQ(plain.find("origin"), std::string::npos) << plain.substr(0, 200);
  EXPECT_EQ(withoutOrigin(plain), withoutOrigin(text));
}

TEST_P(RoundTrip, JsonKeepsEverythingIncludingXgftLabels) {
  const Network generated = generate(GetParam());
  const std::string text = jsonText(generated);
  EXPECT_EQ(detectFabricFormat(text), FabricFormat::Json);
  const Network back = parseFabricText(text, "roundtrip.json");
  EXPECT_EQ(joined(networkDifferences(back, generated, strict())), "");
  EXPECT_EQ(back.origin(), generated.origin());
  if (generated.xgft())
    expectSameLabels(back, generated);
  else
    EXPECT_EQ(back.xgft(), nullptr);
  EXPECT_EQ(jsonText(back), text);
}

// A labelled JSON fabric must hold every (level, index) its XGFT parameters name
// (docs/FORMATS.md "routelab JSON"): without one node, at any level, the reader names the
// label no node has.
TEST(JsonXgftLabels, ALabelNoNodeHoldsIsNamedAtAnyLevel) {
  const Network generated = generate("kary-ntree:k=2,n=3");  // levels: 8 terminals, 4 + 4 + 4 switches
  const nlohmann::json whole = nlohmann::json::parse(jsonText(generated));
  for (const auto& [level, index] : std::vector<std::pair<int, int>>{{0, 0}, {0, 7}, {1, 2}, {2, 3}, {3, 0}}) {
    nlohmann::json document = whole;
    std::string removed;
    nlohmann::json nodes = nlohmann::json::array();
    for (const nlohmann::json& node : document["nodes"]) {
      if (node["xgft"]["level"] == level && node["xgft"]["index"] == index) {
        removed = node["name"];
        continue;
      }
      nodes.push_back(node);
    }
    ASSERT_FALSE(removed.empty()) << level << " " << index;
    nlohmann::json cables = nlohmann::json::array();
    for (const nlohmann::json& cable : document["cables"]) {
      if (cable["a"] != removed && cable["b"] != removed) cables.push_back(cable);
    }
    document["nodes"] = nodes;
    document["cables"] = cables;
    document.erase("counts");
    const std::string expected = fmt::format("no node has level {} index {}", level, index);
    try {
      parseFabricText(document.dump(1), "labels.json");
      ADD_FAILURE() << "read without " << removed;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  }
}

TEST_P(RoundTrip, RecognitionFindsTheGeneratorsLabels) {
  const Network generated = generate(GetParam());
  const Network imported = parseFabricText(netText(generated), "roundtrip.net");
  const auto recognized = recognizeFatTree(imported);
  EXPECT_EQ(recognized.has_value(), generated.xgft() != nullptr);
  if (recognized && generated.xgft()) expectSameLabels(*recognized, generated);
}

TEST_P(RoundTrip, DotHasEveryNodeAndOneEdgePerCable) {
  const Network generated = generate(GetParam());
  std::ostringstream out;
  writeDot(generated, out);
  const std::string dot = out.str();
  std::size_t edges = 0;
  for (std::size_t at = dot.find(" -- "); at != std::string::npos; at = dot.find(" -- ", at + 1)) ++edges;
  EXPECT_EQ(edges, generated.linkCount());
  for (NodeId node : generated.switches()) EXPECT_NE(dot.find('"' + generated.name(node) + '"'), std::string::npos);
  EXPECT_EQ(dot.rfind("}\n"), dot.size() - 2);
}

INSTANTIATE_TEST_SUITE_P(Families, RoundTrip,
                         ::testing::Values("kary-ntree:k=4,n=3", "kary-ntree:k=2,n=4", "kary-ntree:k=3,n=1",
                                           "gft2:n=4,m=3,r=5", "gft2:n=2,m=6,r=3", "ft:l=3,m=4,w=2",
                                           "xgft:h=3,m=2.3.2,w=1.2.3",
                                           "random:switches=12,links=20,terminals=2,radix=8,seed=3",
                                           "kary-ntree:k=4,n=3+fail-links=5,seed=2"));

TEST(NetWriter, KeepsNonDefaultGuidsAndMultiPortCas) {
  NetworkBuilder builder;
  const NodeId host = builder.addTerminal("host-a", 2, 0x0002c90300001dd0);
  const NodeId other = builder.addTerminal("host-b", 1);
  const NodeId sw1 = builder.addSwitch("sw-1", 8, 0x0008f10500200134);
  const NodeId sw2 = builder.addSwitch("sw-2", 4);
  builder.connect(host, 1, sw1, 3);
  builder.connect(host, 2, sw2, 1);
  builder.connect(other, 1, sw1, 8);
  builder.connect(sw1, 5, sw2, 4);
  builder.connect(sw1, 6, sw2, 3);  // parallel cables
  const Network network = builder.build();
  const std::string text = netText(network);
  EXPECT_NE(text.find("caguid=0x2c90300001dd0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("switchguid=0x8f10500200134\n"), std::string::npos) << text;
  const Network back = parseFabricText(text, "guids.net");
  EXPECT_EQ(joined(networkDifferences(back, network, strict())), "");
}

// GUIDs as ibsim assigns them (CAs from 0x100000, each reserving ports + 1; switches from
// 0x200000, one each, in file order) need no caguid=/switchguid= line: the writer predicts
// each next GUID, multi-port CAs included, and writes a line only where it differs.
TEST(NetWriter, IbsimDefaultGuidsNeedNoGuidLines) {
  const std::string net =
      "Switch 4 \"s1\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n[3] \"h3\"[1]\n[4] \"s2\"[4]\n\n"
      "Switch 4 \"s2\"\n[1] \"h1\"[2]\n[2] \"h2\"[3]\n[4] \"s1\"[4]\n\n"
      "Hca 2 \"h1\"\n[1] \"s1\"[1]\n[2] \"s2\"[1]\n\n"
      "Hca 3 \"h2\"\n[1] \"s1\"[2]\n[3] \"s2\"[2]\n\n"
      "Hca 1 \"h3\"\n[1] \"s1\"[3]\n\n";
  const Network network = parseFabricText(net, "defaults.net");
  const std::string text = netText(network);
  EXPECT_EQ(text.find("\ncaguid="), std::string::npos) << text;
  EXPECT_EQ(text.find("\nswitchguid="), std::string::npos) << text;
  EXPECT_EQ(joined(networkDifferences(parseFabricText(text, "back.net"), network, strict())), "");
}

TEST(RoundTrip, EveryFabricFormatAtItsLimits) {
  // Values at the limits of the formats' fields: a 254-port switch (the largest port number
  // of InfiniBand and of our readers) cabled on ports 1, 253 and 254, GUIDs near 2^64 (a
  // two-port CA whose port GUIDs are node GUID + 1 and + 2 still fit).
  NetworkBuilder builder;
  const NodeId first = builder.addTerminal("h-first", 1, 0x8000000000000000ULL);
  const NodeId last = builder.addTerminal("h-last", 2, 0xfffffffffffffff0ULL);
  const NodeId other = builder.addTerminal("h-other", 1, 0x10ULL);
  const NodeId big = builder.addSwitch("big", 254, 0xfffffffffffffffeULL);
  const NodeId small = builder.addSwitch("small", 2, 0x0000000000000001ULL);
  builder.connect(first, 1, big, 1);
  builder.connect(last, 2, big, 254);
  builder.connect(big, 253, small, 1);
  builder.connect(other, 1, small, 2);
  const Network network = builder.build();
  for (const auto& [format, text] : {std::pair{"net", netText(network)}, std::pair{"json", jsonText(network)}}) {
    const Network back = parseFabricText(text, std::string("limits.") + format);
    EXPECT_EQ(joined(networkDifferences(back, network, strict())), "") << format << "\n" << text;
    EXPECT_EQ(back.portCount(*back.findNode("big")), 254) << format;
    EXPECT_EQ(back.target(back.channelAt(*back.findNode("big"), 254)), *back.findNode("h-last")) << format;
  }
  // ibnetdiscover output at the same limits (we read it, ibnetdiscover writes it).
  const std::string discovered =
      "switchguid=0xfffffffffffffffe(fffffffffffffffe)\n"
      "Switch\t254 \"S-fffffffffffffffe\"\t\t# \"big\" base port 0 lid 49151 lmc 0\n"
      "[254]\t\"H-fffffffffffffff0\"[2](fffffffffffffff2)\t\t# \"h-last\" lid 1 4xHDR\n"
      "\n"
      "caguid=0xfffffffffffffff0\n"
      "Ca\t2 \"H-fffffffffffffff0\"\t\t# \"h-last\"\n"
      "[2](fffffffffffffff2)\t\"S-fffffffffffffffe\"[254]\t\t# lid 1 lmc 0 \"big\" lid 49151 4xHDR\n";
  ASSERT_EQ(detectFabricFormat(discovered), FabricFormat::Ibnetdiscover);
  const Network fromDiscover = parseFabricText(discovered, "limits-ibnetdiscover.txt");
  ASSERT_EQ(fromDiscover.switchCount(), 1u);
  EXPECT_EQ(fromDiscover.portCount(fromDiscover.switchNode(0)), 254);
  EXPECT_EQ(fromDiscover.guid(fromDiscover.switchNode(0)), 0xfffffffffffffffeULL);
  EXPECT_EQ(fromDiscover.guid(fromDiscover.terminalNode(0)), 0xfffffffffffffff0ULL);
  EXPECT_EQ(fromDiscover.target(fromDiscover.channelAt(fromDiscover.switchNode(0), 254)), fromDiscover.terminalNode(0));
  // ibnetdiscover -p lines at the same limits.
  const std::string ports =
      "SW     1 254 0xfffffffffffffffe 4x SDR - CA     2  2 0xfffffffffffffff2 ( 'big' - 'h-last' )\n"
      "CA     2   2 0xfffffffffffffff2 4x SDR - SW     1 254 0xfffffffffffffffe ( 'h-last' - 'big' )\n";
  const Network fromPorts = parseFabricText(ports, "limits-p.txt");
  ASSERT_EQ(fromPorts.switchCount(), 1u);
  EXPECT_EQ(fromPorts.portCount(fromPorts.switchNode(0)), 254);
  EXPECT_EQ(fromPorts.guid(fromPorts.terminalNode(0)), 0xfffffffffffffff0ULL);
  EXPECT_EQ(fromPorts.target(fromPorts.channelAt(fromPorts.switchNode(0), 254)), fromPorts.terminalNode(0));
  // The lowest CA port GUID of ibnetdiscover -p is its port number plus one: node GUID 1 (port
  // GUID minus the port number, docs/FORMATS.md "GUIDs"). The port number itself would give
  // node GUID 0, no GUID: refused (MalformedInput).
  const std::string lowest =
      "CA     2  2 0x0000000000000003 4x SDR - SW     1  1 0x0000000000000010 ( 'h-low' - 'small' )\n"
      "SW     1  1 0x0000000000000010 4x SDR - CA     2  2 0x0000000000000003 ( 'small' - 'h-low' )\n";
  const Network fromLowest = parseFabricText(lowest, "lowest-p.txt");
  ASSERT_EQ(fromLowest.terminalCount(), 1u);
  EXPECT_EQ(fromLowest.guid(fromLowest.terminalNode(0)), 1u);
  EXPECT_EQ(fromLowest.portCount(fromLowest.terminalNode(0)), 2);
}

// docs/FORMATS.md "Writer": names ibsim cannot take — containing '"', '#', '@' or control
// characters, or longer than 64 bytes (ibsim's NODEIDLEN, 65 with the terminating NUL) — are
// refused, naming the node; a name of exactly 64 bytes is written and reads back.
TEST(NetWriter, RejectsNamesIbsimCannotTake) {
  auto fabricWithHost = [](const std::string& name) {
    NetworkBuilder builder;
    const NodeId host = builder.addTerminal(name, 1);
    const NodeId sw = builder.addSwitch("sw", 2);
    builder.connect(host, 1, sw, 1);
    return builder.build();
  };
  auto errorOf = [&](const std::string& name) -> std::string {
    std::ostringstream out;
    try {
      writeIbsimNet(fabricWithHost(name), out);
    } catch (const TopologyError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string reserved = "' to an ibsim net file: '\"', '#', '@' and control characters are reserved (byte ";
  EXPECT_EQ(errorOf("a#b"), "cannot write node 'a#b" + reserved + "2 is '#')");
  EXPECT_EQ(errorOf("a@b"), "cannot write node 'a@b" + reserved + "2 is '@')");
  EXPECT_EQ(errorOf("quote\"d"), "cannot write node 'quote\"d" + reserved + "6 is '\"')");
  // Control bytes are quoted escaped, so the message reads whole: a NUL does not cut it.
  EXPECT_EQ(errorOf("tab\there"), "cannot write node 'tab\\x09here" + reserved + "4 is '\\x09')");
  EXPECT_EQ(errorOf("del\x7f"), "cannot write node 'del\\x7f" + reserved + "4 is '\\x7f')");
  EXPECT_EQ(errorOf(std::string("nul\0in", 6)), "cannot write node 'nul\\x00in" + reserved + "4 is '\\x00')");
  const std::string longest(64, 'h');
  EXPECT_EQ(errorOf(longest), "no error");
  const Network back = parseFabricText(netText(fabricWithHost(longest)), "longest.net");
  EXPECT_EQ(back.name(back.terminalNode(0)), longest);
  EXPECT_EQ(errorOf(longest + "h"), "cannot write node '" + longest +
                                        "...' to an ibsim net file: names are limited to 64 bytes (this one has 65)");
}

// ---- readers: accepted variants -----------------------------------------------------------

TEST(NetReader, AcceptsIbsimSyntaxVariants) {
  // Hca/Ca headers, unquoted description, comments inside records, ibnetdiscover
  // extra fields, port options, omitted remote port (ibsim: 1), CRLF line ends.
  const std::string text =
      "# a comment\r\n"
      "vendid=0x2c9\n"
      "devid=0x5a44\n"
      "Switch\t4 \"sw\"\t# sw-description enhanced port 0 lid 1 lmc 0\n"
      "[1]\t\"h1\"[1](100001)\t\t# \"h1\" lid 2 4xSDR\n"
      "# comment inside a record\n"
      "[2] \"h2\" w=3 s=1\n"
      "\n"
      "Ca 1 \"h1\"\n"
      "[1](100001) \"sw\"[1]\t# lid 2 lmc 0 \"sw\" lid 1 4xSDR\n"
      "\n"
      "Hca 2 \"h2\" # \"second host\"\n"
      "[1] \"sw\"[2]\n";
  const Network network = parseFabricText(text, "variants.net");
  EXPECT_EQ(network.terminalCount(), 2u);
  EXPECT_EQ(network.switchCount(), 1u);
  EXPECT_EQ(network.linkCount(), 2u);
  EXPECT_EQ(network.name(network.terminalNode(0)), "h1");
  EXPECT_EQ(network.portCount(network.terminalNode(1)), 2);
  // ibsim GUIDs in file order: CA h1 0x100000 (reserves 2), CA h2 0x100002, switch 0x200000.
  EXPECT_EQ(network.guid(network.terminalNode(0)), 0x100000u);
  EXPECT_EQ(network.guid(network.terminalNode(1)), 0x100002u);
  EXPECT_EQ(network.guid(network.switchNode(0)), 0x200000u);
}

TEST(NetReader, GuidBaseLinesFollowIbsim) {
  const std::string text =
      "switchguid=0x300000\n"
      "Switch 2 \"s0\"\n[1] \"s1\"[1]\n\n"
      "Switch 2 \"s1\"\n[1] \"s0\"[1]\n[2] \"h\"[1]\n\n"
      "caguid=0x500000\n"
      "Ca 3 \"h\"\n[1] \"s1\"[2]\n\n"
      "switchguid+0x10\n"
      "Switch 1 \"s2\"\n";
  const Network network = parseFabricText(text, "guids.net");
  EXPECT_EQ(network.guid(*network.findNode("s0")), 0x300000u);
  EXPECT_EQ(network.guid(*network.findNode("s1")), 0x300001u);
  EXPECT_EQ(network.guid(*network.findNode("h")), 0x500000u);
  EXPECT_EQ(network.guid(*network.findNode("s2")), 0x300010u);
}

TEST(NetReader, HexNumbersInEitherCase) {
  // ibsim reads numbers with strtoull(.., 0): "0x" and "0X" are both hexadecimal.
  const std::string text =
      "switchguid=0X3000AB\n"
      "Switch 2 \"s0\"\n[1] \"h\"[1]\n\n"
      "caguid=0x5000cd\n"
      "Ca 1 \"h\"\n[1] \"s0\"[1]\n";
  const Network network = parseFabricText(text, "hexcase.net");
  EXPECT_EQ(network.guid(*network.findNode("s0")), 0x3000abu);
  EXPECT_EQ(network.guid(*network.findNode("h")), 0x5000cdu);
}

TEST(IbnetdiscoverReader, DuplicateDescriptionsFallBackToIds) {
  const std::string text =
      "switchguid=0x10(10)\n"
      "Switch\t2 \"S-0000000000000010\"\t\t# \"MF0;switch\" base port 0 lid 1 lmc 0\n"
      "[1]\t\"H-0000000000000020\"[1](21)\t\t# \"MT4123 ConnectX\" lid 2 4xHDR\n"
      "[2]\t\"H-0000000000000030\"[1](31)\t\t# \"MT4123 ConnectX\" lid 3 4xHDR\n"
      "\n"
      "caguid=0x20\n"
      "Ca\t1 \"H-0000000000000020\"\t\t# \"MT4123 ConnectX\"\n"
      "[1](21)\t\"S-0000000000000010\"[1]\t\t# lid 2 lmc 0 \"MF0;switch\" lid 1 4xHDR\n"
      "\n"
      "Ca\t1 \"H-0000000000000030\"\t\t# \"MT4123 ConnectX\"\n"
      "[1](31)\t\"S-0000000000000010\"[2]\n";
  EXPECT_EQ(detectFabricFormat(text), FabricFormat::Ibnetdiscover);
  const Network network = parseFabricText(text, "dup.txt");
  EXPECT_EQ(network.name(network.switchNode(0)), "MF0;switch");
  EXPECT_EQ(network.name(network.terminalNode(0)), "H-0000000000000020");
  EXPECT_EQ(network.name(network.terminalNode(1)), "H-0000000000000030");
  EXPECT_EQ(network.guid(network.terminalNode(1)), 0x30u);  // from the H- id (no caguid line)
}

// An ibnetdiscover node is named by its NodeDescription when it is unique and not some other
// node's S-/H- id (it may be its own id); else by its id.
TEST(IbnetdiscoverReader, ADescriptionThatIsAnotherNodesIdFallsBackToTheOwnId) {
  const std::string text =
      "Switch\t2 \"S-0000000000000010\"\t\t# \"H-0000000000000030\" base port 0 lid 1 lmc 0\n"
      "[1]\t\"H-0000000000000020\"[1](21)\t\t# \"H-0000000000000020\" lid 2 4xHDR\n"
      "[2]\t\"H-0000000000000030\"[1](31)\t\t# \"h30\" lid 3 4xHDR\n"
      "\n"
      "Ca\t1 \"H-0000000000000020\"\t\t# \"H-0000000000000020\"\n"
      "[1](21)\t\"S-0000000000000010\"[1]\t\t# lid 2 lmc 0 \"H-0000000000000030\" lid 1 4xHDR\n"
      "\n"
      "Ca\t1 \"H-0000000000000030\"\t\t# \"h30\"\n"
      "[1](31)\t\"S-0000000000000010\"[2]\t\t# lid 3 lmc 0 \"H-0000000000000030\" lid 1 4xHDR\n";
  ASSERT_EQ(detectFabricFormat(text), FabricFormat::Ibnetdiscover);
  const Network network = parseFabricText(text, "ids.txt");
  EXPECT_EQ(network.name(network.switchNode(0)), "S-0000000000000010");    // described by the second Ca's id
  EXPECT_EQ(network.name(network.terminalNode(0)), "H-0000000000000020");  // described by its own id
  EXPECT_EQ(network.name(network.terminalNode(1)), "h30");
}

// A NodeDescription without quotes is read as ibsim's parse_node_desc reads it: from the first
// character after '#' and its blanks up to " enhanced port ", " base port ", " lid ", " lmc "
// or the end of the line, trimmed; the node is named by it as by a quoted one.
TEST(IbnetdiscoverReader, AnUnquotedDescriptionNamesItsNodeUpToTheFirstKeyword) {
  const std::string text =
      "Switch\t2 \"S-0000000000000010\"\t\t#  sw one enhanced port 0 lid 1 lmc 0\n"
      "[1]\t\"H-0000000000000020\"[1](21)\t\t# \"host a\" lid 2 4xHDR\n"
      "[2]\t\"H-0000000000000030\"[1](31)\t\t# \"host b\" lid 3 4xHDR\n"
      "\n"
      "Ca\t1 \"H-0000000000000020\"\t\t# host a  \n"
      "[1](21)\t\"S-0000000000000010\"[1]\t\t# lid 2 lmc 0 \"sw one\" lid 1 4xHDR\n"
      "\n"
      "Ca\t1 \"H-0000000000000030\"\t\t#host b base port 0 lid 3\n"
      "[1](31)\t\"S-0000000000000010\"[2]\t\t# lid 3 lmc 0 \"sw one\" lid 1 4xHDR\n";
  ASSERT_EQ(detectFabricFormat(text), FabricFormat::Ibnetdiscover);
  const Network network = parseFabricText(text, "unquoted.txt");
  EXPECT_EQ(network.name(network.switchNode(0)), "sw one");
  EXPECT_EQ(network.name(network.terminalNode(0)), "host a");
  EXPECT_EQ(network.name(network.terminalNode(1)), "host b");
}

// docs/FORMATS.md "GUIDs": in an ibnetdiscover file the GUID of the switchguid=/caguid= line
// before a record wins over the GUID in its S-/H- id, and only for that record; a record
// without such a line takes its id's GUID.
TEST(IbnetdiscoverReader, TheGuidLineBeforeARecordWinsOverItsIdForThatRecordOnly) {
  const std::string text =
      "switchguid=0x20(20)\n"
      "Switch\t2 \"S-0000000000000010\"\t\t# \"sw-a\" base port 0 lid 1 lmc 0\n"
      "[1]\t\"H-0000000000000030\"[1](31)\t\t# \"h\" lid 2 4xHDR\n"
      "[2]\t\"S-0000000000000040\"[1]\t\t# \"sw-b\" lid 3 4xHDR\n"
      "\n"
      "Switch\t1 \"S-0000000000000040\"\t\t# \"sw-b\" base port 0 lid 3 lmc 0\n"
      "[1]\t\"S-0000000000000010\"[2]\t\t# \"sw-a\" lid 1 4xHDR\n"
      "\n"
      "caguid=0x50\n"
      "Ca\t1 \"H-0000000000000030\"\t\t# \"h\"\n"
      "[1](31)\t\"S-0000000000000010\"[1]\t\t# lid 2 lmc 0 \"sw-a\" lid 1 4xHDR\n";
  ASSERT_EQ(detectFabricFormat(text), FabricFormat::Ibnetdiscover);
  const Network network = parseFabricText(text, "guid-lines.txt");
  EXPECT_EQ(network.guid(*network.findNode("sw-a")), 0x20u);  // its switchguid= line, not S-...10
  EXPECT_EQ(network.guid(*network.findNode("sw-b")), 0x40u);  // no line since the last record: its id
  EXPECT_EQ(network.guid(*network.findNode("h")), 0x50u);     // its caguid= line, not H-...30
  // The LIDs printed in the file are keyed by the same GUIDs (docs/FORMATS.md "Where the LIDs
  // come from"): each node finds its own.
  // A GUID line may be decimal (ibsim's and the fabric reader's strtoull rule): 32 = 0x20.
  std::string decimal = text;
  decimal.replace(0, std::string("switchguid=0x20(20)").size(), "switchguid=32");
  for (const std::string& file : {text, decimal}) {
    const Network fabric = parseFabricText(file, "guid-lines.txt");
    ASSERT_EQ(fabric.guid(*fabric.findNode("sw-a")), 0x20u);
    const LidMap lids = parseIbnetdiscoverLids(file, "guid-lines.txt");
    for (const auto& [name, lid] : {std::pair{"sw-a", 1u}, std::pair{"sw-b", 3u}, std::pair{"h", 2u}}) {
      const LidMap::Entry* entry = lids.find(fabric, *fabric.findNode(name));
      ASSERT_NE(entry, nullptr) << name << "\n" << file;
      EXPECT_EQ(entry->lid, lid) << name;
    }
  }
}

// ---- readers: malformed input -------------------------------------------------------------

struct BrokenInput {
  const char* what;
  const char* text;
  std::size_t line;     // expected line in the message
  const char* mention;  // expected part of the message
};

const BrokenInput kBroken[] = {
    {"truncated header", "Switch 8\n", 1, "node id"},
    {"header without port count", "Switch \"s\"\n", 1, "number of ports"},
    {"zero ports", "Switch 0 \"s\"\n", 1, "out of range"},
    {"too many ports", "Switch 300 \"s\"\n", 1, "out of range"},
    {"non-numeric port count", "Hca x1 \"h\"\n", 1, "number of ports"},
    {"missing closing quote", "Switch 4 \"s\n", 1, "closing quote"},
    {"missing quotes of remote", "Switch 4 \"s\"\n[1] h[1]\n", 2, "quoted remote node id"},
    {"bad port number", "Switch 4 \"s\"\n[x] \"h\"[1]\n", 2, "port number"},
    {"non-numeric remote port", "Switch 4 \"s\"\n[1] \"h\"[one]\n", 2, "remote port number"},
    {"missing bracket", "Switch 4 \"s\"\n[1 \"h\"[1]\n", 2, "']'"},
    {"port 0", "Switch 4 \"s\"\n[0] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[0]\n", 2, "port 0"},
    {"port above the port count", "Switch 4 \"s\"\n[5] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[5]\n", 2,
     "out of range 1..4"},
    {"remote port above its count", "Switch 4 \"s\"\n[1] \"h\"[2]\n\nHca 1 \"h\"\n[1] \"s\"[1]\n", 2,
     "out of range 1..1"},
    {"duplicate port",
     "Switch 4 \"s\"\n[1] \"h\"[1]\n[1] \"g\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[1]\n\nHca 1 \"g\"\n[1] \"s\"[1]\n", 3,
     "listed twice"},
    {"asymmetric link", "Switch 4 \"s\"\n[1] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[2]\n", 2, "asymmetric link"},
    {"one-sided link", "Switch 4 \"s\"\n[1] \"h\"[1]\n\nHca 1 \"h\"\n", 2, "asymmetric link"},
    {"unknown remote node", "Switch 4 \"s\"\n[1] \"nobody\"[1]\n", 2, "unknown remote node"},
    {"duplicate node id", "Switch 4 \"s\"\n\nSwitch 4 \"s\"\n", 3, "defined twice"},
    {"port cabled to itself", "Switch 4 \"s\"\n[1] \"s\"[1]\n", 2, "itself"},
    {"port line outside a record", "# x\n\n[1] \"s\"[1]\n", 3, "outside a node record"},
    // A blank line ends a record (docs/FORMATS.md): a port line after it belongs to no record.
    {"port line after the blank line ending a record",
     "Switch 4 \"s\"\n[1] \"h\"[1]\n\n[2] \"h\"[1]\n\nHca 1 \"h\"\n[1] \"s\"[1]\n", 4, "outside a node record"},
    {"garbage after remote port", "Switch 4 \"s\"\n[1] \"h\"[1] garbage\n", 2, "unexpected text"},
    {"garbage after node id", "Switch 4 \"s\" junk\n", 1, "unexpected text"},
    {"unknown line", "Switch 4 \"s\"\n\nthis is not a fabric\n", 3, "unexpected line"},
    // A message quotes at most 60 bytes of the line (detail::excerpt): at 60 all of it, past
    // 60 the first 60 and "...".
    {"unknown line of 60 bytes", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n", 1,
     "unexpected line 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' (expected"},
    {"unknown line of 61 bytes", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy\n", 1,
     "unexpected line 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (expected"},
    {"node id with a '#'", "Switch 4 \"s#1\"\n", 1, "bad node id \"s#1\": '#' and '@' are reserved by ibsim"},
    {"node id with an '@'", "Hca 1 \"h@2\"\n", 1, "bad node id \"h@2\": '#' and '@' are reserved by ibsim"},
    {"router", "Rt 2 \"r\"\n", 1, "routers"},
    {"include", "include \"other.net\"\n", 1, "ibsim 'include' lines are not supported"},
    {"module", "Switch 4 \"s\"\n\nmodule \"sub.net\"\n", 3, "ibsim 'module' lines are not supported"},
    {"do", "do \"set\"\n", 1, "ibsim 'do' lines are not supported"},
    {"bad guid line", "switchguid=zz\n", 1, "bad GUID"},
    {"empty file", "", 1, "empty"},
    {"only comments", "# nothing\n\n", 2, "empty"},
    {"binary garbage", "Switch 4 \"s\"\n\x01\x02\x7f\xfe", 2, "binary"},
    {"ibnetdiscover -p garbage", "SW 2 1 0x10 4x SDR - XX 3 1 0x20\n", 1, "CA or SW"},
    {"ibnetdiscover -p bad port", "SW 2 x 0x10 4x SDR\n", 1, "port number"},
    {"ibnetdiscover -p CA port GUID at its port", "CA 2 2 0x2 4x SDR - SW 1 1 0x10 ( 'h' - 's' )\n", 1,
     "bad local port GUID '0x2': a CA's port GUID is its node GUID (not 0) plus the port number 2"},
    {"ibnetdiscover -p CA port GUID below its port", "SW 1 1 0x10 4x SDR - CA 2 2 0x1 ( 's' - 'h' )\n", 1,
     "bad remote port GUID '0x1'"},
    {"json syntax", "{\n  \"format\": \"routelab-network\",\n  \"version\": 1,\n  \"nodes\": [\n}\n", 5,
     "invalid JSON"},
    {"json wrong format", "{\"format\": \"other\", \"version\": 1}\n", 1, "routelab-network"},
    {"json missing field",
     "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [\n  {\"name\": \"a\", \"kind\": \"switch\", "
     "\"ports\": 2},\n  {\"name\": \"b\", \"ports\": 2}\n ],\n \"cables\": []}\n",
     4, "nodes[1]: missing \"kind\""},
    // Escapes inside strings (a quote, a backslash before the closing quote) end nothing: the
    // element's line is still found.
    {"json missing field after escaped names",
     "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [\n  {\"name\": \"a\\\"1\\\\\", \"kind\": "
     "\"switch\", \"ports\": 2},\n  {\"name\": \"b\\\\\", \"kind\": \"switch\", \"ports\": 2},\n  {\"name\": \"c\", "
     "\"ports\": 2}\n ],\n \"cables\": []}\n",
     5, "nodes[2]: missing \"kind\""},
    {"json unknown cable end",
     "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [{\"name\": \"a\", \"kind\": \"switch\", "
     "\"ports\": 2}],\n \"cables\": [\n  {\"a\": \"a\", \"a_port\": 1, \"b\": \"zz\", \"b_port\": 1}\n ]}\n",
     4, "unknown node"},
    {"json port out of range",
     "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [{\"name\": \"a\", \"kind\": \"switch\", "
     "\"ports\": 2}, {\"name\": \"b\", \"kind\": \"terminal\", \"ports\": 1}],\n \"cables\": [\n"
     "  {\"a\": \"a\", \"a_port\": 1, \"b\": \"b\", \"b_port\": 1},\n"
     "  {\"a\": \"a\", \"a_port\": 3, \"b\": \"b\", \"b_port\": 1}\n ]}\n",
     5, "out of range"},
    {"json port used twice",
     "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [{\"name\": \"a\", \"kind\": \"switch\", "
     "\"ports\": 2}, {\"name\": \"b\", \"kind\": \"terminal\", \"ports\": 1}, {\"name\": \"c\", \"kind\": "
     "\"terminal\", "
     "\"ports\": 1}],\n \"cables\": [\n"
     "  {\"a\": \"a\", \"a_port\": 1, \"b\": \"b\", \"b_port\": 1},\n"
     "  {\"a\": \"c\", \"a_port\": 1, \"b\": \"a\", \"b_port\": 1}\n ]}\n",
     5, "used by two cables (also at line 4)"},
    {"json counts mismatch",
     "{\"format\": \"routelab-network\", \"version\": 1,\n \"counts\": {\"terminals\": 2, \"switches\": 1, "
     "\"cables\": 0},\n \"nodes\": [{\"name\": \"a\", \"kind\": \"switch\", \"ports\": 2}],\n \"cables\": []}\n",
     2, "\"terminals\" says 2 but the file has 0"},
    // nlohmann names the byte it stopped at: a line feed inside a string is on the line it ends.
    {"json line feed inside a string", "{\"format\": \"routelab-\nnetwork\", \"version\": 1}\n", 1,
     "invalid string: control character U+000A (LF) must be escaped"},
    {"json truncated", "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [\n", 3, "invalid JSON"},
    {"json version 2", "{\"format\": \"routelab-network\", \"version\": 2,\n \"nodes\": [], \"cables\": []}\n", 1,
     "unsupported \"version\" (this routelab reads version 1)"},
    // The version's range (0..2^30, to keep the number readable) at its end and one past.
    {"json version 2^30", "{\"format\": \"routelab-network\", \"version\": 1073741824,\n \"nodes\": []}\n", 1,
     "unsupported \"version\" (this routelab reads version 1)"},
    {"json version past 2^30", "{\"format\": \"routelab-network\", \"version\": 1073741825,\n \"nodes\": []}\n", 1,
     "\"version\" = 1073741825 is out of range 0..1073741824"},
    {"json node kind",
     "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [\n  {\"name\": \"a\", \"kind\": \"router\", "
     "\"ports\": 2}\n ],\n \"cables\": []}\n",
     3, "\"kind\" must be \"switch\" or \"terminal\", not \"router\""},
    {"json negative ports",
     "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [\n  {\"name\": \"a\", \"kind\": \"switch\", "
     "\"ports\": -1}\n ],\n \"cables\": []}\n",
     3, "\"ports\" must be a non-negative integer"},
    // JSON's -0 is the number 0 (a signed integer to the parser): read as 0, refused by its range.
    {"json ports -0",
     "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [\n  {\"name\": \"a\", \"kind\": \"switch\", "
     "\"ports\": -0}\n ],\n \"cables\": []}\n",
     3, "\"ports\" = 0 is out of range 1..254"},
    {"json bad guid",
     "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [\n  {\"name\": \"a\", \"kind\": \"switch\", "
     "\"ports\": 2, \"guid\": \"0xZZ\"}\n ],\n \"cables\": []}\n",
     3, "bad \"guid\" '0xZZ'"},
    // Found by fuzz_json (fuzz/regressions/json/): nlohmann's out_of_range escaped as an internal error.
    {"json number overflow", "{\"format\": \"routelab-network\",\n \"version\": 1E400}\n", 2,
     "invalid JSON: number overflow parsing '1E400'"},
};

class MalformedInput : public ::testing::TestWithParam<BrokenInput> {};

TEST_P(MalformedInput, GivesFileLineAndWhat) {
  const BrokenInput& input = GetParam();
  const std::string text = input.text;
  try {
    parseFabricText(text, "broken.net");
    FAIL() << input.what << ": no error";
  } catch (const ParseError& error) {
    EXPECT_EQ(error.file(), "broken.net");
    EXPECT_EQ(error.line(), input.line) << error.what();
    EXPECT_NE(std::string(error.what()).find(input.mention), std::string::npos) << error.what();
  } catch (const TopologyError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("broken.net:" + std::to_string(input.line) + ":"), std::string::npos) << message;
    EXPECT_NE(message.find(input.mention), std::string::npos) << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, MalformedInput, ::testing::ValuesIn(kBroken), [](const auto& parameter) {
  std::string name = parameter.param.what;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
});

TEST(MalformedFiles, DirectoryAndMissingFileAreIoErrors) {
  const std::string directory = test::fixturesDir();
  try {
    readFabricFile(directory);
    FAIL();
  } catch (const IoError& error) {
    EXPECT_NE(std::string(error.what()).find(directory), std::string::npos);
  }
  const std::string missing = directory + "/no-such-file.net";
  try {
    readFabricFile(missing);
    FAIL();
  } catch (const IoError& error) {
    EXPECT_NE(std::string(error.what()).find(missing), std::string::npos);
  }
}

TEST(MalformedFiles, DevicesAreRefusedInsteadOfReadForever) {
  try {
    readFabricFile("/dev/zero");
    FAIL();
  } catch (const IoError& error) {
    EXPECT_NE(std::string(error.what()).find("/dev/zero"), std::string::npos);
  }
}

TEST(MalformedFiles, ErrorsNameTheRealPath) {
  const auto path =
      std::filesystem::temp_directory_path() / ("routelab-io-broken-" + std::to_string(::getpid()) + ".net");
  {
    std::ofstream out(path);
    out << "# broken\nSwitch 4 \"s\"\n[1] \"h\"[9]\n\nHca 1 \"h\"\n[1] \"s\"[1]\n";
  }
  try {
    readFabricFile(path.string());
    FAIL();
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find(path.string() + ":3:"), std::string::npos) << error.what();
  }
  std::filesystem::remove(path);
}

// fabric_files.h's contract for text in the JSON form: UTF-8 as it is in the origin, node names
// and cable ends; bytes that are not UTF-8 (a 64-byte NodeDescription cut inside a character,
// a path in Latin-1) become U+FFFD, and the file still reads back.
TEST(JsonWriter, TextIsWrittenAsUtf8AndBytesThatAreNotBecomeTheReplacementCharacter) {
  const std::string replacement = "\xef\xbf\xbd";  // U+FFFD in UTF-8
  NetworkBuilder builder;
  const NodeId host = builder.addTerminal("h\xc3\xb4te-1", 1);  // "hôte-1"
  const NodeId cut = builder.addTerminal("cut-\xc3", 1);        // 'é' cut after its first byte
  const NodeId sw = builder.addSwitch("sw", 2);
  builder.connect(host, 1, sw, 1);
  builder.connect(cut, 1, sw, 2);
  const Network utf8 = builder.build().withOrigin("/data/m\xc3\xbcnchen.net");  // "münchen"
  const std::string text = jsonText(utf8);
  EXPECT_NE(text.find("\n  \"origin\": \"/data/m\xc3\xbcnchen.net\",\n"), std::string::npos) << text;
  EXPECT_NE(text.find("{\"name\":\"h\xc3\xb4te-1\",\"kind\":\"terminal\""), std::string::npos) << text;
  EXPECT_NE(text.find("{\"name\":\"cut-" + replacement + "\",\"kind\":\"terminal\""), std::string::npos) << text;
  EXPECT_NE(text.find("{\"a\":\"h\xc3\xb4te-1\",\"a_port\":1,\"b\":\"sw\""), std::string::npos) << text;
  EXPECT_NE(text.find("{\"a\":\"cut-" + replacement + "\",\"a_port\":1,\"b\":\"sw\""), std::string::npos) << text;
  EXPECT_EQ(text.find("\\u"), std::string::npos) << text;
  const Network back = parseFabricText(text, "utf8.json");
  EXPECT_EQ(back.origin(), utf8.origin());
  EXPECT_EQ(back.name(back.terminalNode(0)), "h\xc3\xb4te-1");
  EXPECT_EQ(back.name(back.terminalNode(1)), "cut-" + replacement);
  // A Latin-1 path ("m\xfcnchen") is not UTF-8: the origin keeps its other characters.
  const std::string latin1 = jsonText(utf8.withOrigin("/data/m\xfcnchen.net"));
  EXPECT_NE(latin1.find("\n  \"origin\": \"/data/m" + replacement + "nchen.net\",\n"), std::string::npos) << latin1;
}

TEST(JsonReader, RejectsInconsistentXgftLabels) {
  const Network network = loadFabric("kary-ntree:k=2,n=2").network;
  std::string text = jsonText(network);
  // Swap the labels of two level-1 switches: the cables no longer match the tuples.
  const std::string first = "\"xgft\":{\"level\":1,\"index\":0}", second = "\"xgft\":{\"level\":1,\"index\":1}";
  const std::size_t a = text.find(first), b = text.find(second);
  ASSERT_NE(a, std::string::npos);
  ASSERT_NE(b, std::string::npos);
  text.replace(b, second.size(), first);
  text.replace(a, first.size(), second);
  try {
    parseFabricText(text, "labels.json");
    FAIL();
  } catch (const ParseError& error) {
    EXPECT_NE(std::string(error.what()).find("xgft"), std::string::npos) << error.what();
  }
}

// A node's "guid" in each spelling docs/FORMATS.md allows: a hex string (0x or 0X), a decimal
// string (for GUIDs beyond the 2^53 that JSON numbers keep exactly in many tools) and an
// integer, each the same GUID; a string that is not a whole number is refused by name.
TEST(JsonReader, GuidsAreReadInEveryDocumentedSpelling) {
  const std::string text = jsonText(loadFabric("kary-ntree:k=2,n=2").network);
  auto withGuid = [&](const nlohmann::json& guid) {
    nlohmann::json root = nlohmann::json::parse(text);
    root["nodes"][0]["guid"] = guid;
    return root.dump();
  };
  for (const nlohmann::json& spelling :
       {nlohmann::json("0x1000"), nlohmann::json("0X1000"), nlohmann::json("4096"), nlohmann::json(4096)}) {
    EXPECT_EQ(parseFabricText(withGuid(spelling), "guid.json").guid(NodeId{0}), 4096U) << spelling.dump();
  }
  EXPECT_EQ(parseFabricText(withGuid("18446744073709551615"), "guid.json").guid(NodeId{0}), UINT64_MAX);
  for (const char* bad : {"0x", "", "0x10g", "12a", "-1", "0b101"}) {
    EXPECT_NE(test::thrownMessage<ParseError>([&] {
                parseFabricText(withGuid(bad), "guid.json");
              }).find(fmt::format("bad \"guid\" '{}'", bad)),
              std::string::npos)
        << bad;
  }
}

// The XGFT header's height limit (docs/FORMATS.md): "m" and "w" of 254 levels pass the
// header's check (the file then fails on its nodes, which are a 2-level tree's), 255 levels
// are refused by it, as are lists of different lengths.
TEST(JsonReader, XgftHeaderHeightAtTheLimitAndOnePast) {
  const std::string text = jsonText(loadFabric("kary-ntree:k=2,n=2").network);
  auto headerMessage = [&](std::size_t m, std::size_t w) {
    nlohmann::json root = nlohmann::json::parse(text);
    EXPECT_TRUE(root.contains("xgft"));
    root["xgft"]["m"] = std::vector<int>(m, 1);
    root["xgft"]["w"] = std::vector<int>(w, 1);
    return test::thrownMessage<ParseError>([&] { parseFabricText(root.dump(), "height.json"); }, "accepted");
  };
  const std::string limit = "must have the same length (the height, at most 254)";
  EXPECT_EQ(headerMessage(254, 254).find(limit), std::string::npos) << headerMessage(254, 254);
  EXPECT_NE(headerMessage(255, 255).find(limit), std::string::npos) << headerMessage(255, 255);
  EXPECT_NE(headerMessage(2, 3).find(limit), std::string::npos) << headerMessage(2, 3);
  EXPECT_NE(headerMessage(255, 255).find("height.json"), std::string::npos);
}

// Each arity of the XGFT header (docs/FORMATS.md: "m" and "w" hold integers 1..65535): 65535
// passes the list's check (the file then fails on its nodes, a 2-level tree's), 65536 and 0
// are refused by it, in "m" and in "w" alike.
TEST(JsonReader, XgftHeaderAritiesAtTheLimitAndOnePast) {
  const std::string text = jsonText(loadFabric("kary-ntree:k=2,n=2").network);
  for (const char* key : {"m", "w"}) {
    auto message = [&](std::int64_t value) {
      nlohmann::json root = nlohmann::json::parse(text);
      root["xgft"][key] = std::vector<std::int64_t>{value, 2};
      return test::thrownMessage<ParseError>([&] { parseFabricText(root.dump(), "arity.json"); }, "accepted");
    };
    const std::string refused = fmt::format("\"{}\" must hold integers 1..65535", key);
    EXPECT_EQ(message(65535).find(refused), std::string::npos) << key << ": " << message(65535);
    EXPECT_NE(message(65536).find(refused), std::string::npos) << key << ": " << message(65536);
    EXPECT_NE(message(0).find(refused), std::string::npos) << key << ": " << message(0);
    const std::int64_t own = std::string(key) == "m" ? 2 : 1;  // the file's own header: m = (2, 2), w = (1, 2)
    EXPECT_EQ(message(own), "accepted") << key;
  }
}

// A syntax error is reported as the parser's own description, whole, after our file and line
// (its "[json.exception...] parse error at line L, column C: " prefix replaced by ours): the
// description is taken here from nlohmann's exception for the same text.
TEST(JsonReader, SyntaxErrorsCarryTheParsersWholeDescription) {
  const std::vector<std::string> documents = {
      "{\n  \"format\": \"routelab-network\",\n  \"version\": 1,\n  \"nodes\": [\n}\n",
      "{\"format\": \"routelab-network\", \"version\": 1,\n \"nodes\": [\n",
      "{\"format\": \"routelab-network\" \"version\": 1}\n",
      "{\"format\": routelab}\n",
  };
  for (const std::string& text : documents) {
    std::string description;
    try {
      const nlohmann::json parsed = nlohmann::json::parse(text);
      ADD_FAILURE() << "valid JSON: " << parsed.dump();
    } catch (const nlohmann::json::parse_error& e) {
      const std::string what = e.what();
      const std::size_t column = what.find(", column ");
      ASSERT_NE(column, std::string::npos) << what;
      description = what.substr(what.find(": ", column) + 2);
    }
    ASSERT_FALSE(description.empty()) << text;
    ASSERT_EQ(description.rfind("syntax error while parsing ", 0), 0u) << description;
    try {
      parseFabricText(text, "broken.json");
      FAIL() << text;
    } catch (const ParseError& error) {
      const std::string message = error.what();
      const std::string expected = "invalid JSON: " + description;
      ASSERT_GE(message.size(), expected.size()) << message;
      EXPECT_EQ(message.substr(message.size() - expected.size()), expected) << message;
      EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
    }
  }
}

// ---- compare --------------------------------------------------------------------------------

TEST(NetworkDifferences, FindsEveryKindOfDifference) {
  const Network tree = loadFabric("kary-ntree:k=2,n=2").network;
  EXPECT_TRUE(networkDifferences(tree, tree).empty());
  const Network faulty = loadFabric("kary-ntree:k=2,n=2+fail-links=1,seed=1").network;
  const auto differences = networkDifferences(tree, faulty);
  ASSERT_FALSE(differences.empty());
  EXPECT_NE(joined(differences).find("(no cable)"), std::string::npos) << joined(differences);
  EXPECT_EQ(networkDifferences(tree, loadFabric("kary-ntree:k=4,n=2").network, 5).size(), 5u);
  EXPECT_EQ(networkDifferences(tree, loadFabric("kary-ntree:k=4,n=2").network, 5).back(), "... more differences");
  // Port counts: a node with an extra unused port differs unless told to ignore that.
  NetworkBuilder small, larger;
  for (NetworkBuilder* builder : {&small, &larger}) {
    const NodeId host = builder->addTerminal("h", 1);
    const NodeId sw = builder->addSwitch("s", builder == &small ? 2 : 4);
    builder->connect(host, 1, sw, 2);
  }
  const Network a = small.build(), b = larger.build();
  EXPECT_EQ(networkDifferences(a, b).size(), 1u);
  CompareOptions options;
  options.ignoreUnusedPorts = true;
  EXPECT_TRUE(networkDifferences(a, b, options).empty());
  // ... but not a port cabled on one side that the other side's node lacks (compare.h), on
  // either side: the port counts are named as well as the cable.
  NetworkBuilder cabled;
  const NodeId host = cabled.addTerminal("h", 1), other = cabled.addTerminal("g", 1);
  const NodeId sw = cabled.addSwitch("s", 4);
  cabled.connect(host, 1, sw, 2);
  cabled.connect(other, 1, sw, 4);
  const Network c = cabled.build();
  for (const auto& [first, second, counts] :
       {std::tuple{&a, &c, "node 's' has 2 ports vs 4"}, std::tuple{&c, &a, "node 's' has 4 ports vs 2"}}) {
    const std::vector<std::string> found = networkDifferences(*first, *second, options);
    EXPECT_NE(std::find(found.begin(), found.end(), counts), found.end()) << joined(found);
  }
}

// Each remaining kind of difference alone, named as documented (topology/compare.h): a node
// only on one side, a kind, a GUID (only when asked), the node order (only when asked).
TEST(NetworkDifferences, NamesEachKindAloneAndComparesGuidsAndOrderOnlyWhenAsked) {
  // h - s - t, built with `first` first: the same network in another node order.
  const auto pair = [](bool switchFirst, const std::string& terminal, bool terminalIsSwitch, std::uint64_t guid) {
    NetworkBuilder builder;
    NodeId s, h;
    if (switchFirst) s = builder.addSwitch("s", 2, 0x10);
    h = terminalIsSwitch ? builder.addSwitch(terminal, 1, guid) : builder.addTerminal(terminal, 1, guid);
    if (!switchFirst) s = builder.addSwitch("s", 2, 0x10);
    const NodeId t = builder.addTerminal("t", 1, 0x30);
    builder.connect(h, 1, s, 1);
    builder.connect(t, 1, s, 2);
    return builder.build();
  };
  const Network base = pair(false, "h", false, 0x20);
  EXPECT_TRUE(networkDifferences(base, pair(false, "h", false, 0x20)).empty());

  EXPECT_EQ(networkDifferences(base, pair(false, "g", false, 0x20)),
            (std::vector<std::string>{"node 'g' only in the second network", "node 'h' only in the first network",
                                      "s[1]: cable to h[1] vs g[1]"}));
  const std::vector<std::string> kinds = networkDifferences(base, pair(false, "h", true, 0x20));
  EXPECT_EQ(kinds.front(), "counts differ: 1 switches, 2 terminals, 2 cables vs 2 switches, 1 terminals, 2 cables");
  EXPECT_NE(std::find(kinds.begin(), kinds.end(), "node 'h' is a terminal vs a switch"), kinds.end()) << joined(kinds);

  const Network otherGuid = pair(false, "h", false, 0x21);
  EXPECT_TRUE(networkDifferences(base, otherGuid).empty());
  CompareOptions guids;
  guids.compareGuids = true;
  EXPECT_EQ(networkDifferences(base, otherGuid, guids),
            (std::vector<std::string>{"node 'h' has GUID 0x0000000000000020 vs 0x0000000000000021"}));

  const Network reordered = pair(true, "h", false, 0x20);
  EXPECT_TRUE(networkDifferences(base, reordered).empty());
  CompareOptions order;
  order.compareOrder = true;
  EXPECT_EQ(networkDifferences(base, reordered, order),
            (std::vector<std::string>{"node 'h' is node 0 in the first network, 1 in the second",
                                      "node 's' is node 1 in the first network, 0 in the second"}));
}

// ---- recognition ------------------------------------------------------------------------------

TEST(RecognizeFatTree, FamiliesAndRejections) {
  auto recognizedFamily = [](const std::string& spec) {
    const Network generated = loadFabric(spec).network;
    const auto recognized = recognizeFatTree(parseFabricText(netText(generated), "x.net"));
    return recognized ? recognized->xgft()->family : std::string("none");
  };
  EXPECT_EQ(recognizedFamily("kary-ntree:k=4,n=3"), "kary-ntree");
  EXPECT_EQ(recognizedFamily("gft2:n=4,m=3,r=5"), "gft2");
  EXPECT_EQ(recognizedFamily("ft:l=3,m=4,w=2"), "ft");
  EXPECT_EQ(recognizedFamily("xgft:h=3,m=2.3.2,w=1.2.3"), "xgft");
  // A 2-ary 3-tree whose top switches have only their 2 down ports: the k-ary n-tree family
  // has 2k ports on every level, the top included, so this is an XGFT.
  EXPECT_EQ(recognizedFamily("xgft:h=3,m=2.2.2,w=1.2.2"), "xgft");
  EXPECT_EQ(recognizedFamily("kary-ntree:k=4,n=3+fail-links=1,seed=4"), "none");

  // Same cabling but two up ports of a leaf swapped: not the documented convention.
  std::string text = netText(loadFabric("kary-ntree:k=2,n=2").network);
  const std::string up1 = "[3]\t\"kt-s1-0\"[1]", up2 = "[4]\t\"kt-s1-1\"[1]";
  const std::string down1 = "[1]\t\"kt-s0-0\"[3]", down2 = "[1]\t\"kt-s0-0\"[4]";
  // All four lines first (the replacements have the same length, positions stay valid).
  std::vector<std::pair<std::size_t, std::string>> edits;
  for (const auto& [from, to] : {std::pair{up1, "[4]\t\"kt-s1-0\"[1]"}, std::pair{up2, "[3]\t\"kt-s1-1\"[1]"},
                                 std::pair{down1, "[1]\t\"kt-s0-0\"[4]"}, std::pair{down2, "[1]\t\"kt-s0-0\"[3]"}}) {
    const std::size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    edits.emplace_back(at, to);
  }
  for (const auto& [at, to] : edits) text.replace(at, to.size(), to);
  const Network swapped = parseFabricText(text, "swapped.net");
  EXPECT_FALSE(recognizeFatTree(swapped).has_value());

  // The convention holds on level 0 too: a host of two ports cabled on its port 2 (its up
  // port must be port 1, w_1 = 1).
  std::string host = netText(loadFabric("kary-ntree:k=2,n=2").network);
  for (const auto& [from, to] :
       {std::pair{"Hca\t1 \"kt-h0\"", "Hca\t2 \"kt-h0\""}, std::pair{"[1]\t\"kt-s0-0\"[1]", "[2]\t\"kt-s0-0\"[1]"},
        std::pair{"[1]\t\"kt-h0\"[1]", "[1]\t\"kt-h0\"[2]"}}) {
    const std::size_t at = host.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    host.replace(at, std::string(from).size(), to);
  }
  const Network secondPort = parseFabricText(host, "second-port.net");
  EXPECT_EQ(secondPort.sourcePort(secondPort.injectionChannel(secondPort.terminalNode(0))), 2u);
  EXPECT_FALSE(recognizeFatTree(secondPort).has_value());
}

// What the recognizer reads back from a generated fat tree's file is the generator's own
// labelling: the same parameters and family, h + 1 levels of the same nodes in the same order,
// each node at its level and index.
TEST(RecognizeFatTree, LabelsAreTheGeneratorsOwn) {
  for (const std::string spec :
       {"kary-ntree:k=4,n=3", "gft2:n=4,m=3,r=5", "ft:l=3,m=4,w=2", "xgft:h=3,m=2.3.2,w=1.2.3"}) {
    const Network generated = loadFabric(spec).network;
    const auto recognized = recognizeFatTree(parseFabricText(netText(generated), "x.net"));
    ASSERT_TRUE(recognized.has_value()) << spec;
    const XgftLabels& want = *generated.xgft();
    const XgftLabels& got = *recognized->xgft();
    EXPECT_EQ(got.params.m, want.params.m) << spec;
    EXPECT_EQ(got.params.w, want.params.w) << spec;
    EXPECT_EQ(got.family, want.family) << spec;
    ASSERT_EQ(got.nodesAt.size(), want.params.height() + 1) << spec;
    ASSERT_EQ(got.nodesAt.size(), want.nodesAt.size()) << spec;
    for (std::size_t l = 0; l < want.nodesAt.size(); ++l) {
      ASSERT_EQ(got.nodesAt[l].size(), want.nodesAt[l].size()) << spec << " level " << l;
      for (std::size_t i = 0; i < want.nodesAt[l].size(); ++i) {
        EXPECT_EQ(recognized->name(got.nodesAt[l][i]), generated.name(want.nodesAt[l][i])) << spec << " level " << l;
      }
    }
    for (std::size_t n = 0; n < generated.nodeCount(); ++n) {
      const NodeId node = NodeId::fromIndex(n);
      const NodeId image = recognized->findNode(generated.name(node)).value();
      EXPECT_EQ(got.level[image.index()], want.level[n]) << spec << " " << generated.name(node);
      EXPECT_EQ(got.indexInLevel[image.index()], want.indexInLevel[n]) << spec << " " << generated.name(node);
    }
  }
}

// The recognizer takes fat trees of up to 254 switch levels, the height a JSON network's XGFT
// labels hold (docs/FORMATS.md): a chain of 254 switches with two terminals at its foot is
// XGFT(254; 2, 1, ..., 1; 1, ..., 1), one more level is not recognized.
TEST(RecognizeFatTree, TakesUpTo254SwitchLevels) {
  auto chain = [](std::size_t height) {
    NetworkBuilder builder;
    std::vector<NodeId> level(height + 1);  // level[l]: the one switch of level l >= 1
    for (std::size_t l = 1; l <= height; ++l) {
      const PortNumber down = l == 1 ? 2 : 1, up = l == height ? 0 : 1;
      level[l] = builder.addSwitch(fmt::format("s{}", l), static_cast<PortNumber>(down + up));
    }
    for (PortNumber p = 1; p <= 2; ++p) builder.connect(builder.addTerminal(fmt::format("t{}", p)), 1, level[1], p);
    for (std::size_t l = 2; l <= height; ++l) builder.connect(level[l - 1], l == 2 ? 3 : 2, level[l], 1);
    return recognizeFatTree(builder.build());
  };
  const auto tallest = chain(254);
  ASSERT_TRUE(tallest.has_value());
  EXPECT_EQ(tallest->xgft()->params.height(), 254U);
  EXPECT_EQ(tallest->xgft()->params.m.front(), 2U);
  EXPECT_FALSE(chain(255).has_value());
}
