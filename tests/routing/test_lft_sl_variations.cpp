// The documented input variations of the OpenSM LFT dump reader (docs/ROUTING.md "OpenSM LFT
// dumps": gzipped files, switch blocks found by GUID else by NodeDescription, destinations by
// port GUID else by exact name, blocks in OpenSM's order or any other, LIDs without a route
// not printed) and of the SL file reader (docs/VERIFY.md "Per-pair layers from an SL file":
// `#` comments, `NA`, whitespace-separated decimal fields, gzipped), each fed in and the
// result compared with the canonical file's. Lines may end in CRLF or trailing blanks
// (docs/FORMATS.md, every reader).
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <tuple>

#include <fmt/format.h>

#include "core/errors.h"
#include "io/lft_dump.h"
#include "io/output.h"
#include "io/sl_table.h"
#include "test_support.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string joined(const std::vector<std::string>& lines, const std::string& end = "\n") {
  std::string text;
  for (const std::string& line : lines) text += line + end;
  return text;
}

/// Writes `text` to the scratch folder as `name`, and gzipped as `name.gz` and (gzip magic
/// alone) `name-gzipped`; returns the three paths.
std::vector<std::string> plainAndGzipped(const std::string& name, const std::string& text) {
  const std::string path = (test::scratchDir() / name).string();
  std::ofstream(path, std::ios::binary) << text;
  const std::string gz = path + ".gz", bare = path + "-gzipped";
  EXPECT_EQ(test::runCommand("gzip -c '" + path + "' > '" + gz + "' && cp '" + gz + "' '" + bare + "'").exitCode, 0);
  return {path, gz, bare};
}

/// A routing as the LFT writer prints it (LIDs, owners and every entry): equal text = equal
/// routing.
std::string canonical(const Network& net, const RoutingResult& r) {
  std::ostringstream out;
  writeLftDump(net, r, out);
  return out.str();
}

/// Switch blocks of a dump: each block's lines (header first); the trailer apart.
std::vector<std::vector<std::string>> blocksOf(const std::vector<std::string>& lines, std::string& trailer) {
  std::vector<std::vector<std::string>> blocks;
  for (const std::string& line : lines) {
    if (line.rfind("Unicast lids", 0) == 0)
      blocks.emplace_back(1, line);
    else if (line.rfind("0x", 0) == 0)
      blocks.back().push_back(line);
    else
      trailer = line;
  }
  return blocks;
}

/// Replaces every "portguid 0x<16 hex>" (destinations) or every " guid 0x<16 hex>" (switch
/// headers) by GUIDs no node has, so that the reader must find the nodes by name.
std::string unknownGuids(std::string text, const std::string& key) {
  for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + key.size())) {
    text.replace(at + key.size(), 16, "00000000deadbeef");
  }
  return text;
}

using SlRow = std::tuple<std::uint32_t, std::uint32_t, int, bool>;

std::vector<SlRow> sortedRows(const SlTable& table) {
  std::vector<SlRow> rows;
  for (const auto& e : table.entries) rows.emplace_back(e.slid, e.dlid, e.answered ? e.sl : -1, e.answered);
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace

TEST(LftVariations, EveryDocumentedVariationReadsAsTheCanonicalDump) {
  const Network net = makeKaryNtree(4, 2);
  for (const std::string engine : {"minhop", "lash", "updn"}) {
    SCOPED_TRACE(engine);
    const std::string text = readFileText(test::fixturesDir() + "/k4n2/lfts." + engine + ".dump");
    const std::string expected = canonical(net, parseLftDump(text, "canonical", net));
    const std::vector<std::string> lines = linesOf(text);
    std::string trailer;
    auto blocks = blocksOf(lines, trailer);
    ASSERT_EQ(blocks.size(), net.switchCount());
    std::vector<std::pair<std::string, std::string>> variants;
    variants.emplace_back("crlf", joined(lines, "\r\n"));
    variants.emplace_back("trailing-blanks", joined(lines, " \t \n"));
    variants.emplace_back("blank-lines", joined(lines, "\n\n"));
    std::vector<std::string> reversed;
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) reversed.insert(reversed.end(), it->begin(), it->end());
    reversed.push_back(trailer);
    variants.emplace_back("blocks-reversed", joined(reversed));
    variants.emplace_back("switches-by-name", unknownGuids(text, " guid 0x"));
    variants.emplace_back("destinations-by-name", unknownGuids(text, "portguid 0x"));
    for (const auto& [what, variant] : variants) {
      ASSERT_NE(variant, text) << what;
      for (const std::string& path : plainAndGzipped("lfts-" + what, variant)) {
        EXPECT_EQ(canonical(net, readLftDump(path, net)), expected) << what << ": " << path;
      }
    }
  }
}

TEST(LftVariations, AnUnprintedLidHasNoRouteAtThatSwitchOnly) {
  const Network net = makeKaryNtree(4, 2);
  const std::string text = readFileText(test::fixturesDir() + "/k4n2/lfts.minhop.dump");
  const RoutingResult full = parseLftDump(text, "full", net);
  // The entry of one host's LID removed from the first switch's block: that entry only is
  // without a route, every other entry as in the full dump.
  std::vector<std::string> lines = linesOf(text);
  const auto removed = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.rfind("0x", 0) == 0 && l.find("Channel Adapter") != std::string::npos &&
           l.find(" 001 ") == std::string::npos;
  });
  ASSERT_NE(removed, lines.end());
  const std::string removedLine = *removed;
  lines.erase(removed);
  const RoutingResult partial = parseLftDump(joined(lines), "partial", net);
  ASSERT_EQ(partial.addresses.count(), full.addresses.count());
  std::size_t differences = 0;
  for (std::uint32_t s = 0; s < net.switchCount(); ++s) {
    for (Address a = 0; a < full.addresses.count(); ++a) {
      ASSERT_EQ(partial.addresses.lid(a), full.addresses.lid(a));
      if (partial.table().port(s, a) == full.table().port(s, a)) continue;
      ++differences;
      EXPECT_EQ(s, 0u) << removedLine;
      EXPECT_EQ(partial.table().port(s, a), kNoRoute);
      EXPECT_EQ(fmt::format("0x{:04x}", full.addresses.lid(a)), removedLine.substr(0, 6));
    }
  }
  EXPECT_EQ(differences, 1u);
}

TEST(SlVariations, EveryDocumentedVariationReadsAsTheCanonicalFile) {
  for (const std::string file : {"pathsl.lash.txt", "pathsl.nue8.txt", "dfsssp-vl-table.txt"}) {
    SCOPED_TRACE(file);
    const std::string text = readFileText(test::fixturesDir() + "/k4n2/" + file);
    const std::vector<SlRow> expected = sortedRows(parseSlTable(text, "canonical"));
    ASSERT_GT(expected.size(), 100u);
    const std::vector<std::string> lines = linesOf(text);
    std::vector<std::string> reversed(lines.rbegin(), lines.rend());
    std::vector<std::string> commented, spaced;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      commented.push_back("# line " + std::to_string(i));
      commented.push_back(lines[i] + (lines[i].rfind('#', 0) == 0 ? "" : "   # a trailing comment"));
      std::string wide = lines[i];
      if (wide.rfind('#', 0) != 0) {
        std::replace(wide.begin(), wide.end(), ' ', '\t');
        wide = "  " + wide + " \t";
      }
      spaced.push_back(wide);
    }
    const std::vector<std::pair<std::string, std::string>> variants = {{"crlf", joined(lines, "\r\n")},
                                                                       {"blank-lines", joined(lines, "\n\n")},
                                                                       {"reversed", joined(reversed)},
                                                                       {"comments", joined(commented)},
                                                                       {"tabs-and-blanks", joined(spaced)}};
    for (const auto& [what, variant] : variants) {
      for (const std::string& path : plainAndGzipped("sl-" + what, variant)) {
        EXPECT_EQ(sortedRows(readSlTable(path)), expected) << what << ": " << path;
      }
    }
  }
  // NA (no answer) is read as a pair without an SL, wherever it stands.
  const SlTable na = parseSlTable("# slid dlid sl\n1 5 NA\n5 1 3 # answered\n", "na.txt");
  EXPECT_EQ(sortedRows(na), (std::vector<SlRow>{{1, 5, -1, false}, {5, 1, 3, true}}));
}
