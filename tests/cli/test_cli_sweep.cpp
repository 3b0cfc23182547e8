// End-to-end tests of `routelab sweep`, `results` and `plot` (docs/SWEEPS.md).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_text.h"
#include "test_support.h"

using routelab::test::runRoutelab;

namespace {

const char* kSweep = R"(name = "cli-small"
[[grid]]
kind = "analyze"
fabrics = ["gft2:n=2,m=2,r=4", "gft2:n=4,m=4,r=4"]
engines = ["dmodk", "smodk"]
metrics = ["worst", "abb"]
seeds = [3, 4]
precision = 0.1
)";

/// A fresh folder for one test.
std::string folder(const std::string& name) {
  const auto dir = routelab::test::scratchDir() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

std::string write(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST(CliSweep, MaxPointsThenResumeEqualsOneRun) {
  const std::string dir = folder("resume");
  const std::string file = write(dir + "/s.toml", kSweep);
  auto r = runRoutelab("sweep " + file + " --results " + dir + "/whole.sqlite --jobs 2");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("16 in all: 0 stored before, 16 computed now (0 failed), 0 left"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("16/16 100%"), std::string::npos) << r.err;  // the progress bar reached the end
  EXPECT_NE(r.err.find("ETA"), std::string::npos) << r.err;

  r = runRoutelab("sweep " + file + " --results " + dir + "/parts.sqlite --max-points 6 --jobs 1");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("6 computed now (0 failed), 10 left"), std::string::npos) << r.out;
  r = runRoutelab("sweep " + file + " --results " + dir + "/parts.sqlite --quiet");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("6 stored before, 10 computed now"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");  // --quiet

  const auto whole = runRoutelab("results " + dir + "/whole.sqlite --format csv --no-timings");
  const auto parts = runRoutelab("results " + dir + "/parts.sqlite --format csv --no-timings");
  ASSERT_EQ(whole.exitCode, 0) << whole.err;
  EXPECT_EQ(whole.out, parts.out);
  EXPECT_EQ(std::count(whole.out.begin(), whole.out.end(), '\n'), 17);  // header + 16 points

  const auto json = runRoutelab("results " + dir + "/parts.sqlite --format json --output " + dir + "/r.json");
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const auto j = nlohmann::json::parse(std::ifstream(dir + "/r.json"));
  EXPECT_EQ(j["sweep"]["name"], "cli-small");
  EXPECT_EQ(j["results"].size(), 16U);
  EXPECT_EQ(j["results"][0]["config"]["seed"], 3);
  EXPECT_TRUE(j["results"][0].contains("seconds"));
}

TEST(CliSweep, SigintKeepsFinishedPointsAndTheRerunCompletes) {
  const std::string dir = folder("sigint");
  // 40 points of some 60 ms each (one job, release build; more under the sanitizers): the
  // interrupt after 1 s lands mid-sweep. (Points of 2 ms let the sweep finish first.)
  constexpr int kPoints = 40;
  std::string text =
      "name = \"sigint\"\n[[grid]]\nkind = \"analyze\"\nfabric = \"kary-ntree:k=8,n=3\"\n"
      "engines = [\"dmodk\", \"smodk\"]\nmetric = \"abb\"\nseeds = [1";
  for (int seed = 2; seed <= kPoints / 2; ++seed) text += ", " + std::to_string(seed);
  text += "]\n";
  const std::string file = write(dir + "/s.toml", text);
  const std::string results = dir + "/r.sqlite";
  const std::string errors = dir + "/err.txt";
  const std::string output = dir + "/out.txt";
  const auto r = runRoutelab("sweep " + file + " --results " + results + " --jobs 1 >" + output + " 2>" + errors +
                             " & sleep 1; kill -INT $!; wait $!");
  const auto slurp = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string err = slurp(errors);
  const std::string out = slurp(output);
  if (r.exitCode == 0) GTEST_SKIP() << "the sweep finished before the interrupt";
  ASSERT_EQ(r.exitCode, 1) << err;
  EXPECT_NE(err.find("interrupted"), std::string::npos) << err;
  // "points      16 in all: 0 stored before, K computed now (0 failed), 16-K left"
  const auto at = out.find("stored before, ");
  ASSERT_NE(at, std::string::npos) << out;
  const int computed = std::stoi(out.substr(at + 15));
  EXPECT_LT(computed, kPoints);
  const auto rerun = runRoutelab("sweep " + file + " --results " + results + " --quiet");
  ASSERT_EQ(rerun.exitCode, 0) << rerun.err;
  // The rerun computes exactly the points the interrupted run did not store.
  EXPECT_NE(rerun.out.find(std::to_string(computed) + " stored before, " + std::to_string(kPoints - computed) +
                           " computed now (0 failed), 0 left"),
            std::string::npos)
      << rerun.out;
}

TEST(CliSweep, AnotherSweepIsRefusedAndBadFilesNameTheLine) {
  const std::string dir = folder("refuse");
  const std::string file = write(dir + "/s.toml", kSweep);
  ASSERT_EQ(runRoutelab("sweep " + file + " --results " + dir + "/r.sqlite --max-points 1 --quiet").exitCode, 0);
  std::string other = kSweep;
  other.replace(other.find("seeds = [3, 4]"), 14, "seeds = [3, 5]");
  const std::string otherFile = write(dir + "/other.toml", other);
  auto r = runRoutelab("sweep " + otherFile + " --results " + dir + "/r.sqlite");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("holds sweep 'cli-small'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("give another --results file"), std::string::npos) << r.err;

  const std::string bad = write(dir + "/bad.toml", "[[grid]]\nkind = \"analyze\"\nfabric = \"x\"\nengine = 3\n");
  r = runRoutelab("sweep " + bad + " --results " + dir + "/bad.sqlite");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("bad.toml:4: 'engine' must be a string"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/bad.sqlite"));  // nothing created for a bad sweep
  // --jobs and --threads: unsigned, the threads in the requests' range [0, 4096]; a usage
  // error naming the option and the value, nothing created.
  for (const auto& [option, said] : std::vector<std::pair<std::string, std::string>>{
           {"--threads -1", "--threads: '-1' is not an unsigned decimal integer"},
           {"--threads 4097", "--threads: '4097' is out of range 0..4096"},
           {"--jobs -2", "--jobs: '-2' is not an unsigned decimal integer"}}) {
    r = runRoutelab("sweep " + file + " --results " + dir + "/options.sqlite " + option);
    EXPECT_EQ(r.exitCode, 2) << option;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir + "/options.sqlite")) << option;
  }
  r = runRoutelab("results " + dir + "/absent.sqlite");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
}

TEST(CliSweep, FailedPointsAreStoredAndMakeExitOne) {
  const std::string dir = folder("failed");
  const std::string file = write(dir + "/s.toml",
                                 "[[grid]]\nkind = \"analyze\"\nfabrics = [\"gft2:n=2,m=2,r=4\", "
                                 "\"kary-ntree:k=2,n=3\"]\nengine = \"opt\"\n");
  const auto r = runRoutelab("sweep " + file + " --results " + dir + "/r.sqlite --quiet");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("1 point(s) failed"), std::string::npos) << r.err;
  const auto csv = runRoutelab("results " + dir + "/r.sqlite --no-timings");
  EXPECT_NE(csv.out.find(",ok,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find(",error,"), std::string::npos) << csv.out;
}

TEST(CliSweep, PlotWritesPngAndSvg) {
  if (std::system("gnuplot --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const std::string dir = folder("plot");
  const std::string file = write(dir + "/s.toml", kSweep);
  ASSERT_EQ(runRoutelab("sweep " + file + " --results " + dir + "/r.sqlite --quiet").exitCode, 0);
  const auto r = runRoutelab("plot " + dir + "/r.sqlite --output-dir " + dir + "/plots");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* name : {"analyze-worst-1", "analyze-abb-2"}) {
    for (const char* ext : {".png", ".svg"}) {
      const std::string path = dir + "/plots/" + name + ext;
      ASSERT_TRUE(std::filesystem::exists(path)) << path << "\n" << r.out;
      EXPECT_GT(std::filesystem::file_size(path), 1000U) << path;
    }
  }
  std::ifstream png(dir + "/plots/analyze-worst-1.png", std::ios::binary);
  std::string magic(4, '\0');
  png.read(magic.data(), 4);
  EXPECT_EQ(magic, "\x89PNG");
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/plots")) {
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

// --dry-run lists exactly the points a run then stores: its header is the stored sweep's name,
// identity, point count and file, and each "point I CONFIG" line the stored configuration of
// point I (compact JSON, keys sorted). A run with a failing point counts it in the summary,
// names the count on stderr and exits 1.
TEST(CliSweep, DryRunListsThePointsTheRunStoresAndFailuresAreCounted) {
  const std::string dir = folder("dry-run");
  const std::string file = write(dir + "/s.toml", kSweep);
  const auto dry = runRoutelab("sweep " + file + " --dry-run");
  ASSERT_EQ(dry.exitCode, 0) << dry.err;
  EXPECT_FALSE(std::filesystem::exists(dir + "/s.sqlite"));  // nothing computed, nothing written
  const auto run = runRoutelab("sweep " + file + " --quiet");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto stored = runRoutelab("results " + dir + "/s.sqlite --format json");
  ASSERT_EQ(stored.exitCode, 0) << stored.err;
  const auto j = nlohmann::json::parse(stored.out);
  const auto& sweep = j["sweep"];
  std::vector<std::string> expected = {
      "sweep       " + sweep["name"].get<std::string>() + " (identity " + sweep["identity"].get<std::string>() + ", " +
      std::to_string(sweep["points"].get<int>()) + " points, from " + sweep["source"].get<std::string>() + ")"};
  ASSERT_EQ(j["results"].size(), 16u);
  for (const auto& r : j["results"]) {
    std::string index = std::to_string(r["index"].get<int>());
    index.resize(std::max<std::size_t>(index.size(), 5), ' ');
    expected.push_back("point " + index + " " + r["config"].dump());
  }
  EXPECT_EQ(routelab::test::linesOf(dry.out), expected) << dry.out;

  const std::string failing = write(dir + "/f.toml", R"(name = "one-fails"
[[grid]]
kind = "analyze"
fabrics = ["random:switches=8,seed=1"]
engines = ["dmodk", "updown"]
metrics = ["worst"]
)");
  const auto failed = runRoutelab("sweep " + failing + " --quiet");
  EXPECT_EQ(failed.exitCode, 1);
  EXPECT_NE(failed.out.find("points      2 in all: 0 stored before, 2 computed now (1 failed), 0 left"),
            std::string::npos)
      << failed.out;
  EXPECT_NE(failed.err.find("1 point(s) failed; their errors are in the results (status error)"), std::string::npos)
      << failed.err;
}
