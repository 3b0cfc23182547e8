// End-to-end tests of `routelab analyze` (docs/ANALYSIS.md).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

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
  std::remove(csv.c_str());
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
