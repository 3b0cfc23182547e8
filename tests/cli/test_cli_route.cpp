// `routelab route`: summary fields, exports, exit codes, refused requests write nothing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "cli_text.h"
#include "test_support.h"

using routelab::test::runRoutelab;

namespace {

std::string tempPath(const std::string& name) { return (routelab::test::scratchDir() / name).string(); }

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(CliRoute, JsonSummaryEchoesConfigurationAndChecks) {
  const auto r = runRoutelab("route kary-ntree:k=4,n=2 --engine ftree-deterministic --lmc 1 --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["spec"], "kary-ntree:k=4,n=2");
  EXPECT_EQ(j["engine"], "ftree-deterministic");
  EXPECT_EQ(j["lmc"], 1);
  EXPECT_EQ(j["addresses"]["count"], 32);
  EXPECT_EQ(j["addresses"]["per_terminal"], 2);
  EXPECT_EQ(j["tables"]["memory_bytes"], 8 * 32);  // one byte per (switch, address)
  EXPECT_TRUE(j["checks"]["passed"]);
  EXPECT_EQ(j["checks"]["terminal_pairs"], 16 * 15 * 2);
  EXPECT_EQ(j["checks"]["terminal_pairs_delivered"], 16 * 15 * 2);
  EXPECT_EQ(j["checks"]["loops"], 0);
  EXPECT_TRUE(j["checks"]["minimal_ok"]);
  EXPECT_EQ(j["checks"]["max_hops"], 4);
  ASSERT_FALSE(j["checks"]["stages"].empty());
  for (const auto& stage : j["checks"]["stages"]) EXPECT_EQ(stage["min_paths"], stage["max_paths"]);
}

TEST(CliRoute, ExportsLftFirAndIr) {
  const std::string lft = tempPath("lft.dump"), fir = tempPath("fir.txt"), ir = tempPath("ir.txt");
  auto r = runRoutelab("route kary-ntree:k=2,n=3 --engine ftree-deterministic --switch-addresses --export lft " + lft);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(slurp(lft).find("Unicast lids [0-20] of switch Lid 9 guid 0x0000000000200000 ('kt-s0-00'):\n"),
            std::string::npos);
  // The dump loads back as the file engine and routes the same.
  r = runRoutelab("route kary-ntree:k=2,n=3 --engine file:" + lft + " --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["addresses"]["count"], 20);
  r = runRoutelab("route kary-ntree:k=2,n=3 --engine ftree-deterministic --export fir " + fir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(slurp(fir).find("  port 4 label 3 up FI 001 LI 001 MR 001 RRR 0011\n"), std::string::npos);
  r = runRoutelab("route kary-ntree:k=2,n=3 --engine ftree-adaptive --export ir " + ir);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(slurp(ir).find("switch 0 'kt-s0-00' stage 0\n  port 1 label 0 down FI 0 LI 0\n"), std::string::npos);
  for (const auto& p : {lft, fir, ir}) std::remove(p.c_str());
}

// The register exports come from the registry rows (`list --format json` "exports"): every
// engine that routes kary-ntree:k=2,n=3 exports exactly the register files its row declares,
// and a refusal names the engines that declare that file.
TEST(CliRoute, EveryEngineExportsExactlyTheRegistersItsRowDeclares) {
  const auto list = runRoutelab("list --format json");
  ASSERT_EQ(list.exitCode, 0) << list.err;
  const std::string fabric = "kary-ntree:k=2,n=3", out = tempPath("declared.reg");
  std::map<std::string, std::string> declarers;  // format -> engines declaring it
  std::set<std::string> routed;
  const nlohmann::json engines = nlohmann::json::parse(list.out)["engines"];
  for (const auto& row : engines) {
    const std::string engine = row["name"];
    for (const std::string format : row["exports"])
      declarers[format] += (declarers[format].empty() ? "" : ", ") + engine;
  }
  ASSERT_EQ(declarers.size(), 2u);  // ir and fir
  for (const auto& row : engines) {
    const std::string engine = row["name"];
    if (runRoutelab("route " + fabric + " --engine " + engine).exitCode != 0) continue;  // not this fabric's
    routed.insert(engine);
    const std::vector<std::string> declared = row["exports"];
    for (const std::string format : {"ir", "fir"}) {
      std::remove(out.c_str());
      const auto r = runRoutelab("route " + fabric + " --engine " + engine + " --export " + format + " " + out);
      const bool expected = std::find(declared.begin(), declared.end(), format) != declared.end();
      EXPECT_EQ(r.exitCode == 0, expected) << engine << " --export " << format << ": " << r.err;
      EXPECT_EQ(std::filesystem::exists(out), expected) << engine << " --export " << format;
      if (!expected) {
        EXPECT_NE(r.err.find("registers describe " + declarers[format] + " ("), std::string::npos) << r.err;
      }
    }
  }
  for (const std::string engine : {"ftree-adaptive", "ftree-deterministic", "dmodk", "updown", "minhop"}) {
    EXPECT_TRUE(routed.count(engine)) << engine;
  }
  std::remove(out.c_str());
}

TEST(CliRoute, FallbackRoutingExportsAsLmcLftAndSlFile) {
  // LASH with the UpDown layer of Lysne §8.4 (two tables): the LFT gets a LID per table
  // (LMC 1) and the SL file picks each pair's LID and SL; verify loads both and passes,
  // and without the SL file the same dump is deadlock-prone (every LID in one layer).
  const std::string lft = tempPath("fallback.dump"), sl = tempPath("fallback.sl");
  const std::string fabric = "random:switches=32,seed=3";
  auto r = runRoutelab("route " + fabric + " --engine lash:max-layers=2 --export lft " + lft + " --export sl " + sl +
                       " --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["lmc_tables"],
            "2 tables on LMC 1 (LID offset t = table t; load the SL file with the LFT)");
  EXPECT_EQ(slurp(sl).rfind("# slid dlid sl", 0), 0u);
  r = runRoutelab("verify " + fabric + " --engine file:" + lft + " --sl " + sl + " --format json");
  ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["layers_used"], 2);
  r = runRoutelab("verify " + fabric + " --engine file:" + lft);
  EXPECT_EQ(r.exitCode, 4) << r.out;
  // An escape routing cannot be loaded this way: refused, nothing written.
  std::remove(lft.c_str());
  std::remove(sl.c_str());
  r = runRoutelab("route " + fabric + " --engine escape --export lft " + lft + " --export sl " + sl);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("escape routing changes layer inside the fabric"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(lft));
  EXPECT_FALSE(std::filesystem::exists(sl));
}

TEST(CliRoute, RefusedRequestsWriteNothing) {
  const std::string lft = tempPath("refused.dump"), fir = tempPath("refused.fir");
  auto r = runRoutelab("route gft2:n=4,m=4,r=8 --engine opt --export lft " + lft + " --export fir " + fir);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("the FIR registers describe ftree-deterministic"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(lft));
  EXPECT_FALSE(std::filesystem::exists(fir));
  r = runRoutelab("route kary-ntree:k=2,n=2 --engine ftree-deterministic --export csv " + lft);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown kind 'csv'"), std::string::npos);
  r = runRoutelab("route random:switches=6 --engine dmodk");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("dmodk needs a fat-tree (XGFT) fabric"), std::string::npos) << r.err;
  r = runRoutelab("route kary-ntree:k=2,n=2 --engine no-such-engine");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown routing engine 'no-such-engine'"), std::string::npos) << r.err;
}

TEST(CliRoute, OpenSmFixtureDumpPassesChecks) {
  const std::string dir = routelab::test::fixturesDir() + "/gft_4_4_8";
  const auto r = runRoutelab("route ibnetdiscover:" + dir + "/ibnetdiscover.txt --engine file:" + dir +
                             "/lfts.updn.dump --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["checks"]["terminal_pairs_delivered"], 32 * 31);
  EXPECT_EQ(j["addresses"]["count"], 32 + 12);
}

// Every figure of the text summary is the JSON summary's figure of the same run: the text is
// rebuilt line by line from the JSON, so a text line that prints another field (or none) fails.
TEST(CliRoute, TextSummaryIsTheJsonsFiguresLineByLine) {
  struct Case {
    std::string options;
    bool checked;
  };
  const std::vector<Case> cases = {
      {"--engine updown --lmc 1 --switch-addresses --seed 7", true},  // management pairs, not minimal
      {"--engine ftree-adaptive", true},                              // adaptive: several candidates
      {"--engine lash:addressing=pair", true},                        // source classes
      {"--engine ftree-deterministic --lmc 2 --no-checks", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.options);
    const std::string command = "route kary-ntree:k=2,n=3 " + c.options;
    const auto text = runRoutelab(command);
    const auto json = runRoutelab(command + " --format json");
    ASSERT_EQ(text.exitCode, 0) << text.err;
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    const auto& a = j["addresses"];
    const auto& t = j["tables"];
    const auto& u = routelab::test::unsignedText;
    const std::uint64_t classes = a["source_classes"].get<std::uint64_t>();
    std::vector<std::string> expected = {
        "fabric      " + j["spec"].get<std::string>(),
        "engine      " + j["engine"].get<std::string>() + "  [" + j["reference"].get<std::string>() + "]",
        "context     lmc " + u(j["lmc"]) + ", switch addresses " + (j["switch_addresses"].get<bool>() ? "yes" : "no") +
            ", seed " + u(j["seed"]),
        "addresses   " + u(a["count"]) + " (" + u(a["per_terminal"]) + " per terminal" +
            (classes > 1 ? " = " + u(a["source_classes"]) + " source classes x " +
                               std::to_string(a["per_terminal"].get<std::uint64_t>() / classes) + " paths"
                         : std::string()) +
            ", " + u(a["switch_addresses"]) + " switch addresses)",
        "tables      " + u(t["count"]) + " x " + u(t["switches"]) + " switches x " + u(a["count"]) + " addresses, " +
            u(t["memory_bytes"]) + " bytes, " + (j["deterministic"].get<bool>() ? "deterministic" : "adaptive") + ", " +
            (j["minimal_claimed"].get<bool>() ? "minimal (claimed)" : "minimality not claimed")};
    if (!c.checked) {
      expected.push_back("checks      skipped (--no-checks)");
      EXPECT_TRUE(j["checks"].is_null()) << json.out;
    } else {
      const auto& k = j["checks"];
      expected.push_back(std::string("checks      ") + (k["passed"].get<bool>() ? "PASSED" : "FAILED"));
      expected.push_back("  terminal pairs  " + u(k["terminal_pairs"]) + " walked, " +
                         u(k["terminal_pairs_delivered"]) + " delivered");
      if (k["management_pairs"].get<std::uint64_t>() > 0) {
        expected.push_back("  management      " + u(k["management_pairs"]) + " walked, " +
                           u(k["management_pairs_delivered"]) +
                           " delivered (switch addresses; unrouted pairs are not failures)");
      }
      expected.push_back("  failures        " + u(k["no_route"]) + " no route, " + u(k["loops"]) + " loops, " +
                         u(k["dead_ports"]) + " dead ports, " + u(k["bad_candidates"]) + " bad candidates, " +
                         u(k["candidate_cycles"]) + " candidate cycles, " + u(k["incomplete_choices"]) +
                         " incomplete choices");
      expected.push_back(std::string("  minimal         ") +
                         (!j["minimal_claimed"].get<bool>() ? "not claimed"
                          : k["minimal_ok"].get<bool>()     ? "yes"
                                                            : "NO") +
                         " (" + u(k["non_minimal_paths"]) + " longer paths, " + u(k["non_minimal_candidates"]) +
                         " candidates off shortest paths)");
      expected.push_back(std::string("  deterministic   ") +
                         (!j["deterministic"].get<bool>()     ? "not claimed (adaptive)"
                          : k["deterministic_ok"].get<bool>() ? "yes"
                                                              : "NO") +
                         " (" + u(k["multi_candidate_entries"]) + " of " + u(k["entries"]) +
                         " entries with several candidates)");
      expected.push_back("  path length     max " + u(k["max_hops"]) + " hops, mean " +
                         routelab::test::fixedDecimals(k["mean_hops"].get<double>(), 4) +
                         " (terminal pairs, channels incl. injection)");
      for (const auto& s : k["stages"]) {
        if (s["channels"].get<std::uint64_t>() == 0) continue;
        char head[64];
        const std::string name = "level " + u(s["level"]) + " " + s["direction"].get<std::string>();
        std::snprintf(head, sizeof head, "  stage %-13s %6s channels", name.c_str(), u(s["channels"]).c_str());
        expected.push_back(std::string(head) + ", paths per channel min " + u(s["min_paths"]) + " max " +
                           u(s["max_paths"]) + " mean " +
                           routelab::test::fixedDecimals(s["mean_paths"].get<double>(), 3));
      }
      EXPECT_TRUE(k["failures"].empty());
    }
    std::vector<std::string> lines;
    std::istringstream in(text.out);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("stats       ", 0) == 0) continue;  // the engine's own key=value pairs, checked below
      lines.push_back(line);
    }
    EXPECT_EQ(lines, expected) << text.out;
    // The stats line holds the JSON's stats, each key=value once.
    const std::size_t at = text.out.find("stats       ");
    if (j["stats"].empty()) {
      EXPECT_EQ(at, std::string::npos) << text.out;
    } else {
      ASSERT_NE(at, std::string::npos) << text.out;
      // key=value pairs in the engine's order, separated by spaces; a value may hold spaces
      // ("xgft=XGFT(3; 2,2,2; 1,2,2)"), so a word without '=' continues the value before it.
      std::istringstream words(text.out.substr(at + 12, text.out.find('\n', at) - at - 12));
      std::vector<std::string> pairs;
      for (std::string word; words >> word;) {
        if (word.find('=') == std::string::npos && !pairs.empty()) {
          pairs.back() += " " + word;
        } else {
          pairs.push_back(word);
        }
      }
      std::set<std::string> keys;
      for (const std::string& pair : pairs) {
        const std::size_t equals = pair.find('=');
        ASSERT_NE(equals, std::string::npos) << pair;
        const std::string key = pair.substr(0, equals);
        keys.insert(key);
        ASSERT_TRUE(j["stats"].contains(key)) << pair;
        const auto& value = j["stats"][key];
        EXPECT_EQ(pair.substr(equals + 1), value.is_string() ? value.get<std::string>() : value.dump()) << pair;
      }
      EXPECT_EQ(keys.size(), pairs.size()) << text.out;
      EXPECT_EQ(keys.size(), j["stats"].size()) << text.out;
    }
  }
}
