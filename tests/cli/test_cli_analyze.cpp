// End-to-end tests of `routelab analyze` (docs/ANALYSIS.md).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_text.h"
#include "net_file.h"
#include "test_support.h"

using routelab::test::fixturesDir;
using routelab::test::runRoutelab;

TEST(CliAnalyze, OptWorstOnSixteenPlusSixteenIsFour) {
  // The acceptance command: Nienaber Table I, T(16+16, 32), WORST_OPT = n/sqrt(m) = 4.
  const auto r = runRoutelab("analyze gft2:n=16,m=16,r=32 --engine opt --metric worst --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["metric"], "worst");
  EXPECT_EQ(j["value"], 4);
  EXPECT_EQ(j["ci99_halfwidth"], 0.0);
  EXPECT_TRUE(j.contains("samples"));
  EXPECT_EQ(j["engine"], "opt");
  EXPECT_EQ(j["spec"], "gft2:n=16,m=16,r=32");
  EXPECT_EQ(j["seed"], 1);
  EXPECT_EQ(j["witness"].size(), 4u);
  EXPECT_NE(j["channel"]["description"].get<std::string>().find(" -> "), std::string::npos);
}

TEST(CliAnalyze, DmodkWorstIsNText) {
  const auto r = runRoutelab("analyze gft2:n=8,m=8,r=16 --engine dmodk");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("WORST       8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("witness     8 pairs:"), std::string::npos) << r.out;
}

TEST(CliAnalyze, SampledMetricIsIndependentOfThreads) {
  const std::string base = "analyze gft2:n=6,m=4,r=8 --engine dmodk --metric afpb --seed 7 --format json";
  const auto one = runRoutelab(base + " --threads 1");
  const auto two = runRoutelab(base + " --threads 2");
  ASSERT_EQ(one.exitCode, 0) << one.err;
  ASSERT_EQ(two.exitCode, 0) << two.err;
  auto a = nlohmann::json::parse(one.out), b = nlohmann::json::parse(two.out);
  EXPECT_EQ(a["threads"], 1);
  EXPECT_EQ(b["threads"], 2);
  a.erase("threads");
  b.erase("threads");
  EXPECT_EQ(a, b);
  EXPECT_EQ(a["metric"], "afpb");
  EXPECT_EQ(a["pattern"], "full-permutation");
  EXPECT_GE(a["samples"].get<int>(), 1000);
  EXPECT_EQ(a["mean"], a["value"]);
  EXPECT_LE(a["ci99_halfwidth"].get<double>(), 0.01 * a["mean"].get<double>());
  EXPECT_EQ(a["seed"], 7);
}

TEST(CliAnalyze, PatternLoadsAndCsvExport) {
  const std::string csv = "/tmp/routelab-cli-analyze-loads.csv";
  std::remove(csv.c_str());
  const auto r = runRoutelab(
      "analyze gft2:n=4,m=2,r=4 --engine dmodk --metric pattern --pattern hot-spot:target=5 "
      "--format json --export-loads " +
      csv);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["value"], 15.0);  // all 15 others into terminal 5
  EXPECT_EQ(j["channel"]["to"], "gft-h1-1[1]");
  EXPECT_EQ(j["permutation"], false);
  std::ifstream in(csv);
  ASSERT_TRUE(in.good());
  std::string line;
  std::size_t lines = 0;
  bool found = false;
  while (std::getline(in, line)) {
    ++lines;
    if (line.find(",gft-h1-1,1,15") != std::string::npos) found = true;
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(lines, 2u + 2u * (16 + 8));  // comment, header, one line per channel
  // Each row's from, from_port, to, to_port is a cable of the fabric as its ibsim net export
  // lists it (record "<node>", then "[<port>] "<peer>"[<peer port>]"), each cable once per way.
  const std::string net = "/tmp/routelab-cli-analyze-loads.net";
  ASSERT_EQ(runRoutelab("topo gft2:n=4,m=2,r=4 --export net " + net).exitCode, 0);
  std::set<std::string> cables;
  for (const auto& p : routelab::test::readNetFile(net).ports) {
    cables.insert(p.node + "," + p.port + "," + p.peer + "," + p.peerPort);
  }
  EXPECT_EQ(cables.size(), 2u * (16 + 8));
  std::ifstream again(csv);
  std::getline(again, line);  // comment
  std::getline(again, line);
  EXPECT_EQ(line, "channel,from,from_port,to,to_port,load");
  std::set<std::string> exported;
  while (std::getline(again, line)) {
    const std::size_t first = line.find(','), last = line.rfind(',');
    const std::string ends = line.substr(first + 1, last - first - 1);
    EXPECT_TRUE(cables.contains(ends)) << line;
    exported.insert(ends);
  }
  EXPECT_EQ(exported, cables);
  std::remove(csv.c_str());
  std::remove(net.c_str());
}

TEST(CliAnalyze, StagesOfDeterministicFatTreeAreBalanced) {
  const auto r = runRoutelab("analyze kary-ntree:k=2,n=3 --engine ftree-deterministic --metric stages --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["balanced"], true);
  EXPECT_EQ(j["stages"].size(), 6u);
}

// The value of --metric stages is the largest path count of any stage: recomputed from the
// stages listed, on a fat-tree and on a lone terminal, whose stages carry no path (value 0).
TEST(CliAnalyze, StagesValueIsTheLargestPathCountOfAnyStage) {
  for (const std::string fabric : {"kary-ntree:k=4,n=2", "xgft:h=1,m=1,w=1"}) {
    SCOPED_TRACE(fabric);
    const auto r = runRoutelab("analyze " + fabric + " --engine dmodk --metric stages --format json");
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_FALSE(j["stages"].empty());
    std::uint64_t largest = 0;
    for (const auto& stage : j["stages"]) largest = std::max(largest, stage["max_paths"].get<std::uint64_t>());
    EXPECT_EQ(j["value"].get<std::uint64_t>(), largest);
    EXPECT_EQ(largest == 0, fabric == "xgft:h=1,m=1,w=1");
  }
}

// The text of --metric stages says what the JSON says: the pair count of its heading is every
// ordered pair of distinct terminals, N(N - 1), and each stage's row holds the JSON's stage
// (levels, direction, channels, min, max, mean to two decimals, balanced) — on a balanced
// routing and on updown, whose top stages are not.
TEST(CliAnalyze, StagesTextHoldsTheJsonStagesAndTheOrderedPairCount) {
  for (const std::string engine : {"ftree-deterministic", "updown"}) {
    SCOPED_TRACE(engine);
    const std::string command = "analyze kary-ntree:k=2,n=3 --engine " + engine + " --metric stages";
    const auto text = runRoutelab(command);
    const auto json = runRoutelab(command + " --format json");
    ASSERT_EQ(text.exitCode, 0) << text.err;
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    const std::uint64_t n = j["terminals"].get<std::uint64_t>();
    ASSERT_EQ(n, 8u);
    EXPECT_NE(text.out.find("all " + std::to_string(n * (n - 1)) + " ordered terminal pairs"), std::string::npos)
        << text.out;
    std::vector<std::vector<std::string>> rows;
    std::istringstream lines(text.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream words(line);
      std::vector<std::string> row;
      for (std::string word; words >> word;) row.push_back(word);
      if (row.size() == 7 && (row[1] == "up" || row[1] == "down")) rows.push_back(row);
    }
    ASSERT_EQ(rows.size(), j["stages"].size()) << text.out;
    bool unbalanced = false;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& stage = j["stages"][i];
      const std::uint64_t lower = stage["lower_level"].get<std::uint64_t>();
      char mean[32];
      std::snprintf(mean, sizeof mean, "%.2f", stage["mean_paths"].get<double>());
      const std::vector<std::string> expected = {std::to_string(lower) + "-" + std::to_string(lower + 1),
                                                 stage["direction"].get<std::string>(),
                                                 std::to_string(stage["channels"].get<std::uint64_t>()),
                                                 std::to_string(stage["min_paths"].get<std::uint64_t>()),
                                                 std::to_string(stage["max_paths"].get<std::uint64_t>()),
                                                 mean,
                                                 stage["balanced"].get<bool>() ? "yes" : "no"};
      EXPECT_EQ(rows[i], expected) << i;
      unbalanced = unbalanced || !stage["balanced"].get<bool>();
    }
    EXPECT_EQ(unbalanced, engine == "updown");
  }
}

TEST(CliAnalyze, OpenSmLftDumpOfFixture) {
  const std::string dir = fixturesDir() + "/k4n2";
  const auto r = runRoutelab("analyze file:" + dir + "/topology.net --engine file:" + dir +
                             "/lfts.minhop.dump --metric worst --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["value"].get<int>(), 1);
  EXPECT_LE(j["value"].get<int>(), 4);
}

TEST(CliAnalyze, ErrorsAreReportedWithExitCodes) {
  auto r = runRoutelab("analyze gft2:n=4,m=2,r=4 --engine dmodk --metric pattern");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--metric pattern needs --pattern"), std::string::npos) << r.err;
  r = runRoutelab("analyze gft2:n=4,m=2,r=4 --engine no-such-engine");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown routing engine 'no-such-engine'"), std::string::npos) << r.err;
  r = runRoutelab("analyze gft2:n=4,m=2,r=4 --engine dmodk --metric pattern --pattern bit-reversal:x=1");
  EXPECT_EQ(r.exitCode, 1);
  r = runRoutelab("analyze gft2:n=3,m=2,r=3 --engine dmodk --metric abb");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("even number of terminals"), std::string::npos) << r.err;
  // A value outside its row's range is a usage error, named by the library's row.
  r = runRoutelab("analyze gft2:n=4,m=2,r=4 --engine dmodk --metric abb --precision 0");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("analyze: precision must lie in (0, inf) (got 0)"), std::string::npos) << r.err;
  r = runRoutelab("analyze gft2:n=4,m=2,r=4 --engine dmodk --metric mean");
  EXPECT_EQ(r.exitCode, 2);
  r = runRoutelab("analyze gft2:n=4,m=2,r=4 --engine dmodk --metric worst --export-loads /tmp/routelab-never.csv");
  EXPECT_EQ(r.exitCode, 1);
}

TEST(CliAnalyze, ListShowsPatterns) {
  const auto r = runRoutelab("list --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("patterns"));
  std::vector<std::string> names;
  for (const auto& row : j["patterns"]) names.push_back(row["name"]);
  for (const char* name :
       {"random-permutation", "bisect", "full-permutation", "dissemination", "shift", "all-to-all", "bit-reversal",
        "bit-complement", "perfect-shuffle", "butterfly", "transpose", "hot-spot", "file"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  }
}

TEST(CliAnalyze, LoadModelIsNamedAndSinglePathRoutingsAreUnchanged) {
  // Single-path routing: the three models give the same WORST and ABB.
  std::vector<nlohmann::json> single;
  for (const std::string model : {"first-path", "even-split", "best-split"}) {
    const auto worst =
        runRoutelab("analyze gft2:n=4,m=2,r=4 --engine dmodk --metric worst --format json --load-model " + model);
    ASSERT_EQ(worst.exitCode, 0) << worst.err;
    const auto j = nlohmann::json::parse(worst.out);
    EXPECT_EQ(j["load_model"], model);
    EXPECT_EQ(j["single_path"], true);
    EXPECT_EQ(j["value"], 4);
    const auto abb = runRoutelab(
        "analyze gft2:n=4,m=2,r=4 --engine dmodk --metric abb --seed 3 --format json --load-model " + model);
    ASSERT_EQ(abb.exitCode, 0) << abb.err;
    single.push_back(nlohmann::json::parse(abb.out));
  }
  EXPECT_EQ(single[0]["mean"], single[1]["mean"]);
  EXPECT_EQ(single[0]["mean"], single[2]["mean"]);
  // Adaptive routing: the default model is even-split and says so; on a full fat-tree the even
  // split of every permutation loads no channel beyond 1 (WORST 1), while the first path does.
  const auto adaptive = runRoutelab("analyze kary-ntree:k=2,n=3 --engine ftree-adaptive --metric worst --format json");
  ASSERT_EQ(adaptive.exitCode, 0) << adaptive.err;
  const auto j = nlohmann::json::parse(adaptive.out);
  EXPECT_EQ(j["load_model"], "even-split");
  EXPECT_EQ(j["single_path"], false);
  EXPECT_EQ(j["value"], 1.0);
  const auto first =
      runRoutelab("analyze kary-ntree:k=2,n=3 --engine ftree-adaptive --metric worst --load-model first --format json");
  ASSERT_EQ(first.exitCode, 0) << first.err;
  EXPECT_GT(nlohmann::json::parse(first.out)["value"].get<double>(), 1.0);
  const auto text =
      runRoutelab("analyze kary-ntree:k=2,n=3 --engine ftree-adaptive --metric abb --load-model best-split");
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_NE(text.out.find("load model  best-split"), std::string::npos) << text.out;
  const auto bad = runRoutelab("analyze kary-ntree:k=2,n=3 --engine ftree-adaptive --load-model fluid");
  EXPECT_EQ(bad.exitCode, 2);
}

namespace {

/// The lmc and load-model lines of analyze's text, from its JSON.
std::vector<std::string> modelLines(const nlohmann::json& j) {
  std::vector<std::string> lines;
  const std::uint64_t lmc = j["lmc"].get<std::uint64_t>();
  if (lmc > 0) {
    lines.push_back("lmc         " + std::to_string(lmc) + " (" + std::to_string(1U << lmc) +
                    " addresses per terminal)");
  }
  const std::string model = j["load_model"].get<std::string>();
  if (j["single_path"].get<bool>()) {
    lines.push_back("load model  " + model + " (single-path routing: every model gives these numbers)");
  } else if (model == "first-path") {
    lines.push_back("load model  first-path (adaptive/multipath routing: only the preferred path is counted)");
  } else if (model == "even-split") {
    lines.push_back("load model  even-split (each pair divided equally over its allowed routes, hop by hop)");
  } else {
    lines.push_back("load model  best-split (least max load over splits of the allowed routes; bounds)");
  }
  return lines;
}

}  // namespace

// The text reports of the worst, sampled and pattern metrics are their JSON, line by line,
// rebuilt here from the JSON of the same run under each load model and with the optional lines
// (lmc, bounds, a stopping rule not met, the max-load histogram, a lower bound, ascending usage).
TEST(CliAnalyze, WorstSampledAndPatternTextIsTheJsonsFiguresLineByLine) {
  const std::string irregular = "random:switches=8,terminals=2,seed=3";
  const std::vector<std::string> commands = {
      "analyze kary-ntree:k=4,n=2 --engine dmodk --metric worst",
      "analyze " + irregular + " --engine mp-lash --metric worst --load-model even-split",
      "analyze " + irregular + " --engine mp-lash --metric worst --load-model best-split",
      "analyze kary-ntree:k=2,n=3 --engine ftree-adaptive --lmc 1 --metric worst --load-model first-path",
      "analyze kary-ntree:k=2,n=3 --engine dmodk --metric abb",
      "analyze " + irregular + " --engine mp-lash --metric abb --load-model best-split --max-samples 2000",
      "analyze " + irregular + " --engine minhop --metric afpb --precision 0.001 --max-samples 1000 --seed 4",
      "analyze kary-ntree:k=2,n=3 --engine ftree-adaptive --lmc 1 --metric pattern --pattern random-permutation "
      "--load-model best-split",
      "analyze " + irregular +
          " --engine mp-lash --metric pattern --pattern random-permutation --load-model best-split",
      "analyze " + irregular + " --engine mp-lash --metric pattern --pattern hot-spot --load-model even-split",
      "analyze kary-ntree:k=4,n=2 --engine dmodk --metric pattern --pattern shift:s=3",
      "analyze kary-ntree:k=4,n=3 --engine smodk --metric pattern --pattern random-permutation --seed 2"};
  std::set<std::string> seen;  // the optional lines reached
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const auto text = runRoutelab(command);
    const auto json = runRoutelab(command + " --format json");
    ASSERT_EQ(text.exitCode, 0) << text.err;
    ASSERT_EQ(json.exitCode, 0) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    const auto& u = routelab::test::unsignedText;
    const std::string metric = j["metric"].get<std::string>();
    std::vector<std::string> expected = {"fabric      " + j["spec"].get<std::string>(),
                                         "engine      " + j["engine"].get<std::string>()};
    if (metric == "pattern") {
      expected.push_back("pattern     " + j["pattern"].get<std::string>() +
                         (j["pattern_seed"].is_null() ? "" : ", seed " + u(j["pattern_seed"])) + " (" + u(j["pairs"]) +
                         " pairs" + (j["permutation"].get<bool>() ? ", a permutation" : "") + ")");
    }
    for (const std::string& line : modelLines(j)) expected.push_back(line);
    const std::string model = j["load_model"].get<std::string>();
    if (metric == "worst") {
      if (j["single_path"].get<bool>() || model == "first-path") {
        expected.push_back("WORST       " + routelab::test::shortestNumber(j["value"]) +
                           " (exact: maximum matching per channel, Nienaber Eq. 1)");
      } else if (model == "even-split") {
        expected.push_back("WORST       " + routelab::test::fixedDecimals(j["value"].get<double>(), 4) +
                           " (exact: maximum-weight matching of the split shares per channel)");
      } else {
        expected.push_back("WORST       in [" + routelab::test::fixedDecimals(j["lower_bound"].get<double>(), 4) +
                           ", " + routelab::test::fixedDecimals(j["value"].get<double>(), 4) +
                           "] (upper: least WORST of fixed splits; lower: best split of their witnesses)");
      }
      if (!j["channel"].is_null()) expected.push_back("channel     " + j["channel"]["description"].get<std::string>());
      std::string witness = "witness     " + std::to_string(j["witness"].size()) + " pairs:";
      for (const auto& pair : j["witness"])
        witness += " " + pair["source"].get<std::string>() + "->" + pair["destination"].get<std::string>();
      expected.push_back(witness);
      expected.push_back("solved      " + u(j["channels_solved"]) + " channel matchings (the others cannot beat it)");
    } else if (metric == "pattern") {
      expected.push_back("ML          " + routelab::test::shortestNumber(j["max_load"]) +
                         " (bandwidth 1/ML = " + routelab::test::fixedDecimals(j["bandwidth"].get<double>(), 4) +
                         ") on " + u(j["channels_at_max"]) + " channel(s)");
      if (j["lower_bound"] != j["max_load"]) {
        expected.push_back("lower bound " + routelab::test::shortestNumber(j["lower_bound"]) +
                           " (the best split's ML lies between)");
        seen.insert("lower bound");
      }
      if (!j["channel"].is_null()) expected.push_back("max channel " + j["channel"]["description"].get<std::string>());
      for (const auto& a : j["ascending_usage"]) {
        expected.push_back("level " + u(a["level"]) + "     " + u(a["switches_sending_up"]) +
                           " switch(es) send up, using " + u(a["min_channels_per_switch"]) + ".." +
                           u(a["max_channels_per_switch"]) + " of " + u(a["available_per_switch"]) +
                           " ascending channels each");
        seen.insert(a["min_channels_per_switch"] == a["max_channels_per_switch"] ? "ascending" : "ascending range");
      }
    } else {
      char head[16];
      std::snprintf(head, sizeof head, "%-11s", metric.c_str());
      expected.push_back(std::string(head) + " " + routelab::test::fixedDecimals(j["mean"].get<double>(), 4) + " ± " +
                         routelab::test::fixedDecimals(j["ci99_halfwidth"].get<double>(), 4) +
                         " (99% CI), mean of 1/ML over " + u(j["samples"]) + " random " +
                         j["pattern"].get<std::string>() + " patterns, seed " + u(j["seed"]));
      if (!j["exact"].get<bool>()) {
        expected.push_back(
            "bounds      best split lies in [" + routelab::test::fixedDecimals(j["mean"].get<double>(), 4) + ", " +
            routelab::test::fixedDecimals(j["bandwidth_upper_bound"].get<double>(), 4) + "] (per-sample gap at most " +
            routelab::test::fixedDecimals(100 * j["max_relative_gap"].get<double>(), 2) + "%)");
        seen.insert("bounds");
      }
      expected.push_back(
          "stopping    half-width <= " + routelab::test::shortestNumber(j["precision"]) + " x mean: " +
          (j["converged"].get<bool>() ? std::string("met") : "NOT met within " + u(j["max_samples"]) + " samples"));
      if (!j["converged"].get<bool>()) seen.insert("not met");
      expected.push_back("mean ML     " + routelab::test::fixedDecimals(j["mean_max_load"].get<double>(), 4));
      // The text lists integral max loads only (single path or first path); a split model's
      // fractional ones are in the JSON only (docs/ANALYSIS.md).
      const bool integral = j["single_path"].get<bool>() || model == "first-path";
      if (integral && !j["max_load_histogram"].empty()) {
        std::vector<std::pair<double, std::string>> counts;  // in increasing max load
        for (const auto& [ml, count] : j["max_load_histogram"].items())
          counts.emplace_back(std::stod(ml), " " + ml + ":" + u(count));
        std::sort(counts.begin(), counts.end());
        std::string line = "ML counts  ";
        for (const auto& [ml, entry] : counts) line += entry;
        expected.push_back(line);
        seen.insert("histogram");
      }
    }
    if (j["lmc"].get<int>() > 0) seen.insert("lmc");
    seen.insert(metric + " " + (j["single_path"].get<bool>() ? std::string("single-path") : model));
    EXPECT_EQ(routelab::test::linesOf(text.out), expected) << text.out;
  }
  for (const char* line : {"lower bound", "ascending", "ascending range", "bounds", "not met", "histogram", "lmc",
                           "worst even-split", "worst best-split", "worst first-path", "worst single-path"}) {
    EXPECT_TRUE(seen.contains(line)) << line;
  }
}
