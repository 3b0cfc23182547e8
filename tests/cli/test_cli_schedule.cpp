// End-to-end tests of `routelab schedule` (docs/SCHEDULING.md).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_text.h"
#include "net_file.h"
#include "test_support.h"

using routelab::test::runRoutelab;

namespace {

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST(CliSchedule, JsonCarriesTheRatioAndEchoesTheConfiguration) {
  const auto r = runRoutelab("schedule ft:l=3,m=4,w=4 --scheduler level-wise --permutations 20 --seed 3 --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"ratio_mean", "ratio_min", "ratio_max", "requests", "spec", "scheduler", "seed", "pattern"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["spec"], "ft:l=3,m=4,w=4");
  EXPECT_EQ(j["xgft"], "XGFT(3; 4,4,4; 1,4,4)");
  EXPECT_EQ(j["scheduler"], "level-wise:policy=first,order=level,release-on-fail=false");
  EXPECT_EQ(j["seed"], 3);
  EXPECT_EQ(j["permutations"], 20);
  EXPECT_EQ(j["ratios"].size(), 20u);
  EXPECT_LE(j["ratio_min"].get<double>(), j["ratio_mean"].get<double>());
  EXPECT_LE(j["ratio_mean"].get<double>(), j["ratio_max"].get<double>());
  EXPECT_GT(j["ratio_mean"].get<double>(), 0.8);  // Ding: 78-95 % for level-wise
  EXPECT_TRUE(j["checked"]["conflict_free"].get<bool>());
  EXPECT_EQ(j["failures"]["down_conflict"], 0);
  // Same seed, same output, whatever the thread count.
  const auto again =
      runRoutelab("schedule ft:l=3,m=4,w=4 --scheduler level-wise --permutations 20 --seed 3 --format json");
  setenv("OMP_NUM_THREADS", "1", 1);
  const auto oneThread =
      runRoutelab("schedule ft:l=3,m=4,w=4 --scheduler level-wise --permutations 20 --seed 3 --format json");
  unsetenv("OMP_NUM_THREADS");
  EXPECT_EQ(r.out, again.out);
  EXPECT_EQ(r.out, oneThread.out);
}

// The text's schedulability line is the JSON's figures, each after its own word, to four
// decimals (a sample whose minimum and maximum differ, so a swap shows).
TEST(CliSchedule, TextSchedulabilityLineIsTheJsonsFigures) {
  const std::string command = "schedule ft:l=3,m=4,w=4 --scheduler level-wise --permutations 20 --seed 3";
  const auto text = runRoutelab(command);
  const auto json = runRoutelab(command + " --format json");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  ASSERT_LT(j["ratio_min"].get<double>(), j["ratio_max"].get<double>());
  char line[160];
  std::snprintf(line, sizeof line, "schedulability mean %.4f  min %.4f  max %.4f  (stddev %.4f)\n",
                j["ratio_mean"].get<double>(), j["ratio_min"].get<double>(), j["ratio_max"].get<double>(),
                j["ratio_stddev"].get<double>());
  EXPECT_NE(text.out.find(line), std::string::npos) << line << text.out;
}

TEST(CliSchedule, LocalSchedulersLoseOnTheWayDownAndReleaseIsEchoed) {
  const auto r = runRoutelab(
      "schedule kary-ntree:k=4,n=3 --scheduler local-random --release-on-fail "
      "--permutations 10 --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["scheduler"], "local-random:order=level,release-on-fail=true");
  EXPECT_GT(j["failures"]["down_conflict"].get<int>(), 0);
  EXPECT_LT(j["ratio_mean"].get<double>(), 0.8);
}

TEST(CliSchedule, RoundsAndPatterns) {
  const auto r = runRoutelab("schedule ft:l=2,m=4,w=4 --pattern all-to-all --rounds --permutations 1 --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["requests"], 240);
  EXPECT_EQ(j["rounds"]["lower_bound_max"], 15);
  EXPECT_GE(j["rounds"]["min"].get<int>(), 15);
  const auto shift = runRoutelab("schedule ft:l=2,m=4,w=4 --pattern shift:s=4 --permutations 2");
  ASSERT_EQ(shift.exitCode, 0) << shift.err;
  EXPECT_NE(shift.out.find("schedulability"), std::string::npos);
}

TEST(CliSchedule, ExportsLftAndPaths) {
  const std::string lft = testing::TempDir() + "schedule_lfts.dump";
  const std::string paths = testing::TempDir() + "schedule_paths.json";
  const auto r = runRoutelab("schedule ft:l=2,m=4,w=4 --permutations 1 --export lft " + lft + " --export paths " +
                             paths + " --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(readAll(lft).find("Unicast lids"), std::string::npos);
  const auto j = nlohmann::json::parse(readAll(paths));
  std::size_t granted = 0;
  for (const auto& c : j["circuits"]) {
    if (c["status"] == "granted") {
      ++granted;
      EXPECT_EQ(c["path"].size(), 2 * c["ancestor_level"].get<std::size_t>());
    }
  }
  EXPECT_EQ(granted, j["granted"].get<std::size_t>());
  // The exported tables load back as a routing (the file engine) and deliver the circuits.
  const auto route = runRoutelab("route ft:l=2,m=4,w=4 --engine file:" + lft + " --no-checks --format json");
  EXPECT_EQ(route.exitCode, 0) << route.err;
  // Both files read back by hand (docs/SCHEDULING.md): every granted circuit's hops
  // "A[p] -> B[q]" are cables of the fabric (its ibsim net export), chained from the source to
  // the destination, no channel used by two circuits, and at every switch on the way the LFT
  // dump's entry for the destination is the port the circuit leaves by.
  const std::string net = testing::TempDir() + "schedule_fabric.net";
  ASSERT_EQ(runRoutelab("topo ft:l=2,m=4,w=4 --export net " + net).exitCode, 0);
  std::set<std::string> cables;
  for (const auto& p : routelab::test::readNetFile(net).ports) {
    cables.insert(p.node + "[" + p.port + "] -> " + p.peer + "[" + p.peerPort + "]");
  }
  std::map<std::pair<std::string, std::string>, int> lftPort;  // (switch, destination) -> port
  {
    std::istringstream file(readAll(lft));
    std::string sw;
    for (std::string line; std::getline(file, line);) {
      const std::size_t open = line.rfind("'"), close = open == std::string::npos ? open : line.rfind("'", open - 1);
      if (line.starts_with("Unicast lids")) {
        sw = line.substr(close + 1, open - close - 1);
      } else if (line.starts_with("0x") && close != std::string::npos) {
        lftPort[{sw, line.substr(close + 1, open - close - 1)}] = std::stoi(line.substr(7, 3));
      }
    }
  }
  std::set<std::string> used;
  std::size_t hops = 0;
  for (const auto& c : j["circuits"]) {
    if (c["status"] != "granted") continue;
    std::string at = c["source"].get<std::string>();
    for (const auto& hop : c["path"]) {
      const std::string text = hop.get<std::string>();
      EXPECT_TRUE(cables.contains(text)) << text;
      EXPECT_TRUE(used.insert(text).second) << "two circuits on " << text;
      const std::size_t bracket = text.find('['), arrow = text.find(" -> ");
      EXPECT_EQ(text.substr(0, bracket), at) << text;
      const int port = std::stoi(text.substr(bracket + 1));
      if (at != c["source"].get<std::string>()) {
        const auto entry = lftPort.find({at, c["destination"].get<std::string>()});
        ASSERT_NE(entry, lftPort.end()) << at << " -> " << c["destination"];
        EXPECT_EQ(entry->second, port) << text;
      }
      at = text.substr(arrow + 4, text.rfind('[') - arrow - 4);
      ++hops;
    }
    EXPECT_EQ(at, c["destination"].get<std::string>());
  }
  EXPECT_GT(hops, 0u);
  std::remove(net.c_str());
  std::remove(lft.c_str());
  std::remove(paths.c_str());
}

TEST(CliSchedule, ClearErrors) {
  const auto unknown = runRoutelab("schedule ft:l=2,m=4,w=4 --scheduler global");
  EXPECT_EQ(unknown.exitCode, 1);
  EXPECT_NE(unknown.err.find("unknown scheduler 'global'"), std::string::npos) << unknown.err;
  const auto random = runRoutelab("schedule random:switches=8,terminals=1,seed=2");
  EXPECT_EQ(random.exitCode, 1);
  EXPECT_NE(random.err.find("fat-tree"), std::string::npos) << random.err;
  const auto option = runRoutelab("schedule ft:l=2,m=4,w=4 --scheduler level-wise:policy=best");
  EXPECT_EQ(option.exitCode, 1);
  EXPECT_NE(option.err.find("policy"), std::string::npos) << option.err;
  const auto kind = runRoutelab("schedule ft:l=2,m=4,w=4 --export csv out.csv");
  EXPECT_EQ(kind.exitCode, 1);
  const auto list = runRoutelab("list --format json");
  ASSERT_EQ(list.exitCode, 0);
  EXPECT_EQ(nlohmann::json::parse(list.out)["schedulers"].size(), 3u);
}

// The whole text report is the JSON of the same run, line by line: rebuilt here from the JSON
// for each scheduler, a fixed pattern, the rounds line and an export line.
TEST(CliSchedule, TextReportIsTheJsonsFiguresLineByLine) {
  const std::string paths = (routelab::test::scratchDir() / "schedule-text-paths.json").string();
  const std::vector<std::string> commands = {
      "schedule ft:l=3,m=4,w=4 --scheduler level-wise --permutations 20 --seed 3",
      "schedule kary-ntree:k=4,n=3 --scheduler local-random --release-on-fail --permutations 10 --rounds --seed 1",
      "schedule ft:l=2,m=4,w=4 --scheduler local-greedy --pattern shift:s=1 --permutations 3 --export paths " + paths};
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const auto text = runRoutelab(command);
    const auto json = runRoutelab(command + " --format json");
    ASSERT_EQ(text.exitCode, 0) << text.err;
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    const auto& u = routelab::test::unsignedText;
    const auto fixed = [](const nlohmann::json& v, int digits) {
      return routelab::test::fixedDecimals(v.get<double>(), digits);
    };
    std::vector<std::string> expected = {
        "fabric         " + j["spec"].get<std::string>() + " = " + j["xgft"].get<std::string>() + ", " +
            u(j["terminals"]) + " terminals",
        "scheduler      " + j["scheduler"].get<std::string>() + "  [" + j["reference"].get<std::string>() + "]",
        "pattern        " + j["pattern"].get<std::string>() + ", " + u(j["permutations"]) + " sample(s), seed " +
            u(j["seed"]),
        "requests       " + fixed(j["requests"], 1) + " per sample",
        "schedulability mean " + fixed(j["ratio_mean"], 4) + "  min " + fixed(j["ratio_min"], 4) + "  max " +
            fixed(j["ratio_max"], 4) + "  (stddev " + fixed(j["ratio_stddev"], 4) + ")",
        "failures       " + u(j["failures"]["no_common_port"]) + " no common port, " + u(j["failures"]["no_up_port"]) +
            " no free up port, " + u(j["failures"]["down_conflict"]) + " down conflicts",
        "checked        sample " + u(j["checked"]["sample"]) + ": " + u(j["checked"]["circuits"]) + " circuits on " +
            u(j["checked"]["channels"]) + " channels, conflict-free"};
    EXPECT_TRUE(j["checked"]["conflict_free"].get<bool>());
    if (j.contains("rounds")) {
      const auto& r = j["rounds"];
      EXPECT_LT(r["min"], r["max"]);  // tells the two apart
      expected.push_back("rounds         mean " + fixed(r["mean"], 2) + "  min " + u(r["min"]) + "  max " +
                         u(r["max"]) + "  (static load lower bound " + u(r["lower_bound_max"]) + ")");
    }
    for (const auto& file : j["exported"]) expected.push_back("exported       " + file["file"].get<std::string>());
    EXPECT_EQ(routelab::test::linesOf(text.out), expected) << text.out;
  }
}
