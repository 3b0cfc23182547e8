// End-to-end tests of `routelab topo` and `routelab list` on generated fabrics.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_text.h"
#include "test_support.h"

using routelab::test::runRoutelab;

TEST(CliTopo, SixteenAryFourTreeJson) {
  const auto r = runRoutelab("topo kary-ntree:k=16,n=4 --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["terminals"], 65536);
  // Gómez §2: n k^(n-1) switches = 4 x 4096; 4096 per stage.
  EXPECT_EQ(j["switches"], 16384);
  EXPECT_EQ(j["switches_per_level"], nlohmann::json({4096, 4096, 4096, 4096}));
  EXPECT_EQ(j["links"], 65536 + 3 * 65536);
  EXPECT_EQ(j["levels"], 4);
  EXPECT_EQ(j["bisection_width"], 32768);
  EXPECT_EQ(j["diameter"], 8);
  EXPECT_EQ(j["spec"], "kary-ntree:k=16,n=4");
}

TEST(CliTopo, TextSummaryOfGft2) {
  const auto r = runRoutelab("topo gft2:n=8,m=4,r=6");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("terminals   48"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("switches    10"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bisection   12 links"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("XGFT(2; 8,6; 1,4)"), std::string::npos) << r.out;
}

TEST(CliTopo, BadSpecsFailWithPreciseMessages) {
  auto r = runRoutelab("topo kary-ntree:k=4");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("kary-ntree: missing required option 'n'"), std::string::npos) << r.err;
  r = runRoutelab("topo fat-tree:k=4");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown topology 'fat-tree' (known: kary-ntree, gft2"), std::string::npos) << r.err;
  r = runRoutelab("topo 'kary-ntree:k=4,n=3,z=1'");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown option 'z'"), std::string::npos) << r.err;
  r = runRoutelab("topo kary-ntree:k=4,n=3 --format yaml");
  EXPECT_EQ(r.exitCode, 2);  // usage error from the argument parser
  r = runRoutelab("topo kary-ntree:k=4,n=3 --export pdf /tmp/routelab-never-written.pdf");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown format 'pdf'"), std::string::npos) << r.err;
}

TEST(CliList, ListsEveryRegistry) {
  const auto r = runRoutelab("list --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& row : j["topologies"]) names.push_back(row["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"kary-ntree", "gft2", "ft", "xgft", "random"}));
  EXPECT_TRUE(j.contains("engines"));
  EXPECT_TRUE(j.contains("modifiers"));
  const auto text = runRoutelab("list");
  EXPECT_NE(text.out.find("Gómez et al. 2007 §2"), std::string::npos);
}

TEST(CliHelp, EveryCommandHasHelp) {
  for (const char* command : {"--help", "topo --help", "list --help"}) {
    const auto r = runRoutelab(command);
    EXPECT_EQ(r.exitCode, 0) << command;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << command;
  }
}

TEST(CliTopo, ModifiersEchoAnEffectiveSpecThatParsesBack) {
  // `+fail-links=3,seed=5` is echoed as written (Options::effectiveModifier), defaults filled
  // in, and the echoed spec loads the same fabric with the same echo.
  const auto r = runRoutelab("topo random:switches=16+fail-links=3,seed=5+fail-switches=1 --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::string echoed = j["spec"];
  EXPECT_EQ(echoed, "random:switches=16,terminals=1,radix=16,seed=1+fail-links=3,seed=5+fail-switches=1,seed=1");
  EXPECT_EQ(j["modifiers"][0]["modifier"], "fail-links=3,seed=5");
  const auto again = runRoutelab("topo '" + echoed + "' --format json");
  ASSERT_EQ(again.exitCode, 0) << again.err;
  const auto k = nlohmann::json::parse(again.out);
  EXPECT_EQ(k["spec"], echoed);
  EXPECT_EQ(k["links"], j["links"]);
  EXPECT_EQ(k["switches"], j["switches"]);
  EXPECT_EQ(k["modifiers"], j["modifiers"]);
}

// topo's JSON, key by key, against counts made by hand on a 2-ary 3-tree (8 hosts, 12
// switches of 4 ports: 4 leaves and 4 middle switches use all 4, the 4 tops their 2 down
// ports; 8 host cables and 16 between switches) with one cable removed: a leaf's up cable
// (one leaf and one middle switch down to 3 cabled ports; still connected) or a host's (the
// host alone in a second component, its leaf at 3).
TEST(CliTopo, TheSummaryKeysCountedByHandWithOneCableRemoved) {
  auto summary = [](const std::string& spec) {
    const auto r = runRoutelab("topo '" + spec + "' --format json");
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json whole = summary("kary-ntree:k=2,n=3");
  EXPECT_EQ(whole["links"], 24);
  EXPECT_EQ(whole["switch_links"], 16);
  EXPECT_EQ(whole["channels"], 48);
  EXPECT_EQ(whole["radix_histogram"], nlohmann::json({{"4", 12}}));
  EXPECT_EQ(whole["degree_histogram"], nlohmann::json({{"2", 4}, {"4", 8}}));
  EXPECT_EQ(whole["modifiers"], nlohmann::json::array());

  const nlohmann::json leaf = summary("kary-ntree:k=2,n=3+remove-links=kt-s0-00[3]");
  EXPECT_EQ(leaf["terminals"], 8);
  EXPECT_EQ(leaf["switches"], 12);
  EXPECT_EQ(leaf["links"], 23);
  EXPECT_EQ(leaf["switch_links"], 15);
  EXPECT_EQ(leaf["channels"], 46);
  EXPECT_EQ(leaf["radix_histogram"], nlohmann::json({{"4", 12}}));
  EXPECT_EQ(leaf["degree_histogram"], nlohmann::json({{"2", 4}, {"3", 2}, {"4", 6}}));
  EXPECT_EQ(leaf["components"], 1);
  EXPECT_EQ(leaf["connected"], true);
  EXPECT_EQ(leaf["modifiers"], nlohmann::json::parse(R"([{"modifier": "remove-links=kt-s0-00[3]",
      "removed": ["kt-s0-00[3] -- kt-s1-00[1]"], "unreachable": [], "disconnected_terminals": 0}])"));

  const nlohmann::json host = summary("kary-ntree:k=2,n=3+remove-links=kt-h0[1]");
  EXPECT_EQ(host["links"], 23);
  EXPECT_EQ(host["switch_links"], 16);
  EXPECT_EQ(host["degree_histogram"], nlohmann::json({{"2", 4}, {"3", 1}, {"4", 7}}));
  EXPECT_EQ(host["components"], 2);
  EXPECT_EQ(host["connected"], false);
  EXPECT_EQ(host["modifiers"], nlohmann::json::parse(R"([{"modifier": "remove-links=kt-h0[1]",
      "removed": ["kt-h0[1] -- kt-s0-00[1]"], "unreachable": ["kt-h0"], "disconnected_terminals": 1}])"));
}

// The text summary is the JSON summary of the same fabric, line by line, rebuilt here from the
// JSON: a fat tree (structure, bisection), an irregular fabric, one left unconnected by a
// modifier (its removed and unreachable lines) and one whose histograms mix one- and two-digit
// port counts (ordered by port count, not as text).
TEST(CliTopo, TextSummaryIsTheJsonsFiguresLineByLine) {
  const std::vector<std::string> specs = {"gft2:n=8,m=4,r=6", "random:switches=16,seed=1",
                                          "kary-ntree:k=2,n=3+remove-switches=kt-s0-00",
                                          "kary-ntree:k=6,n=2+remove-switches=kt-s1-0"};
  for (const std::string& spec : specs) {
    SCOPED_TRACE(spec);
    const auto text = runRoutelab("topo " + spec);
    const auto json = runRoutelab("topo " + spec + " --format json");
    ASSERT_EQ(text.exitCode, 0) << text.err;
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    const auto& u = routelab::test::unsignedText;
    // "count x ports" in increasing port count, from the JSON object {"ports": count}.
    const auto histogram = [&](const nlohmann::json& h) {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> entries;
      for (const auto& [ports, count] : h.items()) entries.emplace_back(std::stoull(ports), count.get<std::uint64_t>());
      std::sort(entries.begin(), entries.end());
      std::string out;
      for (const auto& [ports, count] : entries)
        out += (out.empty() ? "" : ", ") + std::to_string(count) + "x" + std::to_string(ports);
      return out.empty() ? std::string("-") : out;
    };
    std::vector<std::string> expected = {"fabric      " + j["spec"].get<std::string>()};
    if (j.contains("xgft")) {
      std::string perLevel;
      for (const auto& count : j["switches_per_level"]) perLevel += (perLevel.empty() ? "" : " + ") + u(count);
      expected.push_back("structure   " + j["xgft"].get<std::string>() + " (" + u(j["levels"]) +
                         " switch levels: " + perLevel + " switches, leaves first)");
    }
    expected.push_back("terminals   " + u(j["terminals"]));
    expected.push_back("switches    " + u(j["switches"]));
    expected.push_back("links       " + u(j["links"]) + " (" + u(j["switch_links"]) + " switch-switch), " +
                       u(j["channels"]) + " channels");
    expected.push_back("radix       " + histogram(j["radix_histogram"]) + " (switches x ports)");
    expected.push_back("connected   " + histogram(j["degree_histogram"]) + " (switches x cabled ports)");
    expected.push_back("components  " + u(j["components"]) + (j["connected"].get<bool>() ? "" : "  (NOT CONNECTED)"));
    expected.push_back("diameter    " + u(j["diameter"]) + " hops terminal to terminal");
    if (j.contains("bisection_width")) expected.push_back("bisection   " + u(j["bisection_width"]) + " links");
    for (const auto& m : j["modifiers"]) {
      expected.push_back("modifier    " + m["modifier"].get<std::string>() + ": removed " +
                         std::to_string(m["removed"].size()) + "; " + u(m["disconnected_terminals"]) +
                         " terminal(s) unreachable");
      for (const auto& r : m["removed"]) expected.push_back("  removed     " + r.get<std::string>());
      for (const auto& x : m["unreachable"]) expected.push_back("  unreachable " + x.get<std::string>());
    }
    EXPECT_EQ(routelab::test::linesOf(text.out), expected) << text.out;
  }
}
