// Sweeps: the sweep file, the results file, resuming and the exports (src/sweep/).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <sstream>
#include <thread>

#include "core/errors.h"
#include "request/request.h"
#include "request/simulate_request.h"
#include "sweep/point_kinds.h"
#include "sweep/report.h"
#include "sweep/results_store.h"
#include "sweep/runner.h"
#include "sweep/sweep_file.h"
#include "test_support.h"

namespace routelab {
namespace {

const char* kSmallSweep = R"(name = "small"
[[grid]]
kind = "analyze"
fabrics = ["gft2:n=2,m=2,r=4", "gft2:n=4,m=2,r=4"]
engines = ["dmodk", "minhop"]
metrics = ["worst", "abb", "pattern"]
pattern = "shift:s=1"
seeds = [1, 2]
precision = 0.1
)";

/// A fresh results path in the test's temporary folder.
std::string temporaryPath(const std::string& name) {
  const auto path = test::scratchDir() / name;
  std::filesystem::remove(path);
  return path.string();
}

std::string exportCsv(const std::string& path) {
  std::ostringstream out;
  writeResultsCsv(out, ResultStore::openExisting(path).results(), false);
  return out.str();
}

/// Runs every pending point of `sweep` into `path`; returns how many were computed.
std::size_t runInto(const Sweep& sweep, const std::string& path, RunOptions options = {}) {
  ResultStore store = ResultStore::openForSweep(path, sweep);
  const auto pending = pendingPoints(sweep, store.finishedKeys());
  return runPoints(pending, options, [&](const PointResult& r) { store.insert(r); }).computed;
}

TEST(SweepFile, ExpandsTheGridFirstKeySlowestAndDropsUnusedKeys) {
  const Sweep sweep = parseSweep(kSmallSweep, "small.toml");
  // worst and pattern do not use the seed-free keys ... every metric takes both seeds:
  // 2 fabrics x 2 engines x 3 metrics x 2 seeds.
  ASSERT_EQ(sweep.points.size(), 24U);
  EXPECT_EQ(sweep.name, "small");
  const nlohmann::json& first = sweep.points[0].config;
  EXPECT_EQ(first["fabric"], "gft2:n=2,m=2,r=4");
  EXPECT_EQ(first["engine"], "dmodk");
  EXPECT_EQ(first["metric"], "worst");
  EXPECT_EQ(first["seed"], 1);
  EXPECT_EQ(sweep.points[1].config["seed"], 2);
  EXPECT_EQ(sweep.points[12].config["fabric"], "gft2:n=4,m=2,r=4");
  EXPECT_FALSE(first.contains("pattern"));    // worst has no pattern
  EXPECT_FALSE(first.contains("precision"));  // nor sampling options
  EXPECT_EQ(first["load_model"], "even-split");
  EXPECT_EQ(first["kind"], "analyze");
  EXPECT_TRUE(first.contains("routelab_version"));
  EXPECT_EQ(sweep.points[2].config["metric"], "abb");
  EXPECT_DOUBLE_EQ(sweep.points[2].config["precision"].get<double>(), 0.1);
  EXPECT_EQ(sweep.points[4].config["pattern"], "shift:s=1");
  for (const SweepPoint& p : sweep.points) EXPECT_EQ(p.key, p.config.dump());
}

TEST(SweepFile, SameConfigurationFromTwoGridsIsOnePoint) {
  const Sweep sweep = parseSweep(R"([[grid]]
kind = "analyze"
fabric = "gft2:n=2,m=2,r=4"
engines = ["dmodk", "minhop"]
[[grid]]
kind = "analyze"
fabric = "gft2:n=2,m=2,r=4"
engine = "dmodk"
pattern = "ignored-for-worst"
)",
                                 "dup.toml");
  EXPECT_EQ(sweep.points.size(), 2U);
  EXPECT_EQ(sweep.name, "dup");
}

TEST(SweepFile, IdentityFollowsTheContent) {
  const Sweep a = parseSweep(kSmallSweep, "a.toml");
  const Sweep b = parseSweep(kSmallSweep, "elsewhere/b.toml");
  EXPECT_EQ(a.identity, b.identity);  // same name and points
  EXPECT_EQ(a.identity.size(), 16U);
  std::string changed = kSmallSweep;
  changed.replace(changed.find("0.1"), 3, "0.2");
  EXPECT_NE(parseSweep(changed, "a.toml").identity, a.identity);
}

void expectParseError(const std::string& text, const std::string& where, const std::string& what) {
  try {
    parseSweep(text, "bad.toml");
    FAIL() << "accepted: " << text;
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(SweepFile, BadFilesNameFileLineAndWhat) {
  const std::string head = "[[grid]]\nkind = \"analyze\"\nfabric = \"gft2:n=2,m=2,r=4\"\n";
  expectParseError(head + "engine = \"dmodk\"\nmetrik = \"abb\"\n", "bad.toml:5", "unknown key 'metrik'");
  expectParseError(head + "engine = \"dmodk\"\nseeds = [\"one\"]\n", "bad.toml:5", "'seed' must be an integer");
  expectParseError(head + "engines = []\n", "bad.toml:4", "empty list");
  expectParseError(head + "engine = \"dmodk\"\nengines = [\"x\"]\n", "bad.toml:5", "not both");
  expectParseError(head, "bad.toml:1", "needs 'engines'");
  expectParseError(head + "engine = \"dmodk\"\nmetric = \"pattern\"\n", "bad.toml:1", "needs a pattern");
  expectParseError(head + "engine = \"dmodk\"\nmetric = \"fastest\"\n", "bad.toml:1",
                   "analyze: metric must be one of worst, abb, afpb, adb, pattern, stages (got 'fastest')");
  expectParseError("[[grid]]\nkind = \"simulate-later\"\n", "bad.toml:2", "unknown point kind");
  const std::string sim = "[[grid]]\nkind = \"simulate\"\nfabric = \"kary-ntree:k=2,n=2\"\nengine = \"dmodk\"\n";
  expectParseError(sim + "load = 1.5\n", "bad.toml:1", "simulate: load must lie in (0, 1] (got 1.5)");
  expectParseError(sim + "selection = \"fastest\"\n", "bad.toml:1", "simulate: selection must be one of");
  expectParseError(sim + "in_order = 2\n", "bad.toml:1", "simulate: in-order must be true or false (got 2)");
  expectParseError(sim + "packet_flits = 0\n", "bad.toml:1", "simulate: packet-flits must lie in [1, 4096] (got 0)");
  expectParseError("name = \"x\"\n[[grid]\n", "bad.toml:2", "");
  expectParseError("name = \"x\"\n", "bad.toml:1", "no [[grid]]");
  expectParseError("grids = 3\n", "bad.toml:1", "unknown or mistyped top-level key 'grids'");
  expectParseError("name = 5\n" + head + "engine = \"dmodk\"\n", "bad.toml:1",
                   "unknown or mistyped top-level key 'name'");
}

// The top level: `name` names the sweep (else the file's stem), `description` is free text.
TEST(SweepFile, NameOrTheFileStemAndADescriptionThatNamesNothing) {
  const std::string grid = "[[grid]]\nkind = \"analyze\"\nfabric = \"gft2:n=2,m=2,r=4\"\nengine = \"dmodk\"\n";
  EXPECT_EQ(parseSweep("description = \"about\"\n" + grid, "dir/stem.toml").name, "stem");
  EXPECT_EQ(parseSweep("name = \"given\"\ndescription = \"about\"\n" + grid, "dir/stem.toml").name, "given");
  EXPECT_EQ(parseSweep("description = \"about\"\nname = \"given\"\n" + grid, "dir/stem.toml").name, "given");
  expectParseError("description = 3\n" + grid, "bad.toml:1", "unknown or mistyped top-level key 'description'");
}

// docs/RELIABILITY.md "Limits", sweep points: a sweep of exactly its most points is read and one
// more is refused with its message, whether the extra point is in the same grid or an earlier
// one. At kMaxSweepPoints the refusals come before any grid is expanded; the acceptance at the
// limit is shown at a lowered limit (parseSweep's maxPoints), since a million points take
// about 20 s to expand. The grids' points are analyze points of metric worst, which drops the
// pattern and the precision (point_kinds): each grid's points collapse to one configuration.
TEST(SweepFile, PointsAtTheLimitAreAcceptedAndOnePastRefused) {
  ASSERT_EQ(kMaxSweepPoints, 1'000'000U);
  auto grid = [](const std::string& engine, int patterns, int precisions) {
    std::string text = "[[grid]]\nkind = \"analyze\"\nfabric = \"gft2:n=2,m=2,r=4\"\nengine = \"" + engine + "\"\n";
    text += "metric = \"worst\"\npatterns = [";
    for (int i = 1; i <= patterns; ++i) text += (i > 1 ? ", \"shift:s=" : "\"shift:s=") + std::to_string(i) + "\"";
    text += "]\nprecisions = [";
    for (int i = 1; i <= precisions; ++i) text += (i > 1 ? ", " : "") + std::to_string(i) + ".5";
    return text + "]\n";
  };
  const std::string tooMany = "the sweep has more than 1000000 points";
  expectParseError(grid("dmodk", 1000, 1001), "bad.toml:1", tooMany);
  expectParseError(grid("dmodk", 1001, 1000), "bad.toml:1", tooMany);
  // One point from an earlier grid and a million in the next: the second grid (line 8) is refused.
  expectParseError(grid("minhop", 1, 1) + grid("dmodk", 1000, 1000), "bad.toml:8", tooMany);

  // At a limit of 12: 12 points in one grid, or 1 + 11 over two, are read; 13 are not.
  const Sweep atTheLimit = parseSweep(grid("dmodk", 3, 4), "limit.toml", 12);
  ASSERT_EQ(atTheLimit.points.size(), 1U);
  EXPECT_FALSE(atTheLimit.points[0].config.contains("pattern"));
  EXPECT_FALSE(atTheLimit.points[0].config.contains("precision"));
  EXPECT_EQ(parseSweep(grid("minhop", 1, 1) + grid("dmodk", 1, 11), "limit.toml", 12).points.size(), 2U);
  for (const std::string& text :
       {grid("dmodk", 3, 5), grid("dmodk", 13, 1), grid("minhop", 1, 1) + grid("dmodk", 3, 4)}) {
    try {
      parseSweep(text, "limit.toml", 12);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("the sweep has more than 12 points"), std::string::npos) << e.what();
    }
  }
}

TEST(ResultStore, RefusesAnotherSweepAndForeignFiles) {
  const std::string path = temporaryPath("refuse.sqlite");
  const Sweep sweep = parseSweep(kSmallSweep, "small.toml");
  { ResultStore::openForSweep(path, sweep); }
  EXPECT_NO_THROW(ResultStore::openForSweep(path, sweep));
  std::string other = kSmallSweep;
  other.replace(other.find("\"small\""), 7, "\"other\"");
  try {
    ResultStore::openForSweep(path, parseSweep(other, "other.toml"));
    FAIL() << "a second sweep was let into the results file";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("holds sweep 'small'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not this sweep 'other'"), std::string::npos) << e.what();
  }
  const std::string text = temporaryPath("not-results.sqlite");
  std::ofstream(text) << "hello\n";
  EXPECT_THROW(ResultStore::openForSweep(text, sweep), IoError);
  EXPECT_THROW(ResultStore::openExisting(temporaryPath("absent.sqlite")), IoError);
  // No temporary is left next to the results file.
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
    EXPECT_EQ(entry.path().string().find(".tmp-"), std::string::npos) << entry.path();
  }
}

// Every field of a stored point reads back as it was written (docs/SWEEPS.md "Results file"),
// each with a value of its own; rows come back in index order.
TEST(ResultStore, EveryFieldOfAStoredPointReadsBackAsWritten) {
  const std::string path = temporaryPath("fields.sqlite");
  const Sweep sweep = parseSweep(kSmallSweep, "small.toml");
  ASSERT_GE(sweep.points.size(), 3U);
  {
    ResultStore store = ResultStore::openForSweep(path, sweep);
    PointResult ok;
    ok.index = 2;
    ok.key = sweep.points[2].key;
    ok.result = {{"value", 2.5}, {"note", "n"}};
    ok.seconds = 1.25;
    ok.worker = "rank 3";
    PointResult failed;
    failed.index = 1;
    failed.key = sweep.points[1].key;
    failed.ok = false;
    failed.result = {{"error", "no route"}};
    failed.seconds = 0.375;
    failed.worker = "thread";
    store.insert(ok);
    store.insert(failed);
  }
  const std::vector<PointResult> back = ResultStore::openExisting(path).results();
  ASSERT_EQ(back.size(), 2U);
  EXPECT_EQ(back[0].index, 1U);
  EXPECT_EQ(back[0].key, sweep.points[1].key);
  EXPECT_FALSE(back[0].ok);
  EXPECT_EQ(back[0].result, nlohmann::json({{"error", "no route"}}));
  EXPECT_EQ(back[0].seconds, 0.375);
  EXPECT_EQ(back[0].worker, "thread");
  EXPECT_EQ(back[1].index, 2U);
  EXPECT_EQ(back[1].key, sweep.points[2].key);
  EXPECT_TRUE(back[1].ok);
  EXPECT_EQ(back[1].result, nlohmann::json({{"value", 2.5}, {"note", "n"}}));
  EXPECT_EQ(back[1].seconds, 1.25);
  EXPECT_EQ(back[1].worker, "rank 3");
  // The table as a user queries it (docs/SWEEPS.md: points(key, idx, status, value, result,
  // seconds, worker)): `value` is the result's value, NULL for a failed point.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* select = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT idx, status, value, seconds, worker FROM points ORDER BY idx", -1, &select,
                               nullptr),
            SQLITE_OK);
  std::vector<std::string> rows;
  while (sqlite3_step(select) == SQLITE_ROW) {
    const bool noValue = sqlite3_column_type(select, 2) == SQLITE_NULL;
    rows.push_back(fmt::format("{} {} {} {} {}", sqlite3_column_int64(select, 0),
                               reinterpret_cast<const char*>(sqlite3_column_text(select, 1)),
                               noValue ? std::string("NULL") : fmt::format("{}", sqlite3_column_double(select, 2)),
                               sqlite3_column_double(select, 3),
                               reinterpret_cast<const char*>(sqlite3_column_text(select, 4))));
  }
  sqlite3_finalize(select);
  sqlite3_close(db);
  EXPECT_EQ(rows, (std::vector<std::string>{"1 error NULL 0.375 thread", "2 ok 2.5 1.25 rank 3"}));
}

TEST(Runner, InterruptedAndResumedEqualsUninterruptedAtAnyJobCount) {
  const Sweep sweep = parseSweep(kSmallSweep, "small.toml");
  const std::string whole = temporaryPath("whole.sqlite");
  RunOptions serial;
  serial.jobs = 1;
  EXPECT_EQ(runInto(sweep, whole, serial), sweep.points.size());
  EXPECT_EQ(runInto(sweep, whole), 0U);  // nothing left to compute

  const std::string parts = temporaryPath("parts.sqlite");
  RunOptions limited;
  limited.jobs = 3;
  limited.maxPoints = 5;
  EXPECT_EQ(runInto(sweep, parts, limited), 5U);
  EXPECT_EQ(ResultStore::openExisting(parts).finishedKeys().size(), 5U);
  std::atomic<bool> stop{true};
  RunOptions stopped;
  stopped.stop = &stop;
  EXPECT_EQ(runInto(sweep, parts, stopped), 0U);  // a stop request starts nothing
  RunOptions parallel;
  parallel.jobs = 4;
  EXPECT_EQ(runInto(sweep, parts, parallel), sweep.points.size() - 5);

  const std::string csv = exportCsv(whole);
  EXPECT_EQ(csv, exportCsv(parts));
  // Real numbers: WORST of dmodk on T(2+2, 4) is 2 (point 0), every point succeeded.
  const auto results = ResultStore::openExisting(whole).results();
  ASSERT_EQ(results.size(), sweep.points.size());
  EXPECT_EQ(results[0].result["value"], 2);
  for (const PointResult& r : results) EXPECT_TRUE(r.ok) << r.result.dump();
  EXPECT_GT(results[2].result["samples"].get<int>(), 0);
  // Each stored row reads back as its point: position, key, worker and a time.
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].index, i);
    EXPECT_EQ(results[i].key, sweep.points[i].key);
    EXPECT_FALSE(results[i].worker.empty()) << i;
    EXPECT_GE(results[i].seconds, 0.0) << i;
  }
  std::set<std::string> keys;
  for (const SweepPoint& point : sweep.points) keys.insert(point.key);
  EXPECT_EQ(ResultStore::openExisting(whole).finishedKeys(), keys);
}

TEST(Runner, AFailingPointIsStoredAsAnErrorAndTheOthersRun) {
  const Sweep sweep = parseSweep(R"([[grid]]
kind = "analyze"
fabrics = ["gft2:n=2,m=2,r=4", "kary-ntree:k=2,n=3"]
engine = "opt"
)",
                                 "fail.toml");
  const std::string path = temporaryPath("fail.sqlite");
  EXPECT_EQ(runInto(sweep, path), 2U);
  const auto results = ResultStore::openExisting(path).results();
  ASSERT_EQ(results.size(), 2U);
  EXPECT_TRUE(results[0].ok);
  EXPECT_FALSE(results[1].ok);
  EXPECT_FALSE(results[1].result["error"].get<std::string>().empty());
  EXPECT_EQ(runInto(sweep, path), 0U);  // a failed point is finished too
}

// docs/SWEEPS.md: --jobs (0: every core) points at once, never more than there are points;
// --threads inside each point, 0 meaning the cores left to each job. Recomputed by hand for
// an 8-core and a 2-core machine.
TEST(Runner, JobsAndThreadsPerPointAreTheOnesAskedForOrTheCoresSharedOut) {
  const auto of = [](unsigned jobs, int threads, std::size_t points, unsigned cores) {
    RunOptions options;
    options.jobs = jobs;
    options.threadsPerPoint = threads;
    const Parallelism p = parallelismFor(options, points, cores);
    return std::pair<unsigned, int>{p.jobs, p.threadsPerPoint};
  };
  using Expected = std::pair<unsigned, int>;
  EXPECT_EQ(of(0, 0, 100, 8), (Expected{8, 1}));  // every core, a thread each
  EXPECT_EQ(of(2, 0, 100, 8), (Expected{2, 4}));  // the cores shared out
  EXPECT_EQ(of(3, 0, 100, 8), (Expected{3, 2}));
  EXPECT_EQ(of(1, 1, 100, 8), (Expected{1, 1}));  // one thread asked for is one thread
  EXPECT_EQ(of(1, 2, 100, 8), (Expected{1, 2}));
  EXPECT_EQ(of(1, 16, 100, 8), (Expected{1, 16}));
  EXPECT_EQ(of(4, 0, 2, 8), (Expected{2, 4}));    // no more jobs than points
  EXPECT_EQ(of(0, 0, 0, 8), (Expected{1, 8}));    // nothing to compute: one job
  EXPECT_EQ(of(3, 0, 100, 2), (Expected{3, 1}));  // more jobs than cores: a thread each
  EXPECT_EQ(of(0, 0, 100, 0), (Expected{1, 1}));  // the core count unknown: one
  // Options left at their defaults (a library caller's RunOptions{}): every core, every point.
  const Parallelism defaults = parallelismFor(RunOptions{}, 100, 8);
  EXPECT_EQ((Expected{defaults.jobs, defaults.threadsPerPoint}), (Expected{8, 1}));
  EXPECT_EQ(RunOptions{}.maxPoints, 0u);
  EXPECT_EQ(RunOptions{}.stop, nullptr);
  // The runner reports what it used.
  const Sweep sweep = parseSweep(kSmallSweep, "small.toml");
  ResultStore store = ResultStore::openForSweep(temporaryPath("workers.sqlite"), sweep);
  RunOptions options;
  options.jobs = 1;
  options.threadsPerPoint = 1;
  options.maxPoints = 1;
  const RunSummary summary =
      runPoints(pendingPoints(sweep, {}), options, [&](const PointResult& r) { store.insert(r); });
  EXPECT_EQ(summary.workers, "1 point at a time, 1 thread per point");
  options.jobs = 2;
  options.threadsPerPoint = 3;
  options.maxPoints = 2;
  EXPECT_EQ(
      runPoints(pendingPoints(sweep, store.finishedKeys()), options, [&](const PointResult& r) { store.insert(r); })
          .workers,
      "2 points at a time, 3 threads per point");
}

TEST(Report, CsvQuotesSpecsAndJsonCarriesTheConfiguration) {
  PointResult r;
  r.index = 3;
  r.key = R"({"engine":"dmodk","fabric":"gft2:n=2,m=2,r=4","kind":"analyze","seed":1})";
  r.result = {{"value", 2.5}, {"note", "say \"hi\""}, {"list", {1, 2}}};
  r.seconds = 1.25;
  r.worker = "rank 1";
  std::ostringstream out;
  writeResultsCsv(out, {r}, true);
  EXPECT_EQ(out.str(),
            "index,engine,fabric,kind,seed,status,value,note,seconds,worker\n"
            "3,dmodk,\"gft2:n=2,m=2,r=4\",analyze,1,ok,2.5,\"say \"\"hi\"\"\",1.250000,rank 1\n");
  const nlohmann::json j = resultsJson(ResultsHeader{"s", "0123", "s.toml", 9, "0.1.0"}, {r}, false);
  EXPECT_EQ(j["results"][0]["config"]["fabric"], "gft2:n=2,m=2,r=4");
  EXPECT_FALSE(j["results"][0].contains("seconds"));
  EXPECT_EQ(j["sweep"]["points"], 9);
  // A result key that is also a configuration key gets its own column, prefixed.
  r.result["seed"] = 7;
  std::ostringstream both;
  writeResultsCsv(both, {r}, false);
  EXPECT_EQ(both.str(),
            "index,engine,fabric,kind,seed,status,value,note,result.seed\n"
            "3,dmodk,\"gft2:n=2,m=2,r=4\",analyze,1,ok,2.5,\"say \"\"hi\"\"\",7\n");
}

const char* kSimulateSweep = R"(name = "curve"
[[grid]]
kind = "simulate"
fabric = "kary-ntree:k=2,n=3"
engines = ["dmodk", "ftree-adaptive"]
loads = [0.1, 0.3]
warmup = 500
cycles = 1500
)";

TEST(SimulateKind, PointsAreSimulationsDeterministicAndPlottedAgainstTheLoad) {
  const Sweep sweep = parseSweep(kSimulateSweep, "curve.toml");
  ASSERT_EQ(sweep.points.size(), 4U);
  EXPECT_EQ(sweep.points[1].config["engine"], "dmodk");  // fabric, engine, traffic, load: load fastest
  EXPECT_DOUBLE_EQ(sweep.points[1].config["load"].get<double>(), 0.3);
  EXPECT_FALSE(sweep.points[0].config.contains("reorder_buffer"));  // in_order = 0 does not use it
  const std::string path = temporaryPath("curve.sqlite");
  RunOptions twoJobs;
  twoJobs.jobs = 2;
  EXPECT_EQ(runInto(sweep, path, twoJobs), 4U);
  const std::string twoJobsCsv = exportCsv(path);
  const std::string again = temporaryPath("curve-again.sqlite");
  RunOptions oneJob;
  oneJob.jobs = 1;
  EXPECT_EQ(runInto(sweep, again, oneJob), 4U);
  EXPECT_EQ(exportCsv(again), twoJobsCsv);  // same configuration, same result at any job count
  const std::vector<PointResult> results = ResultStore::openExisting(path).results();
  ASSERT_EQ(results.size(), 4U);
  for (const PointResult& r : results) {
    ASSERT_TRUE(r.ok) << r.result.dump();
    // Below saturation the network accepts what is offered, and every packet arrives.
    EXPECT_NEAR(r.result["accepted"].get<double>(), r.result["offered"].get<double>(), 0.02) << r.key;
    EXPECT_FALSE(r.result["deadlock"].get<bool>());
    EXPECT_DOUBLE_EQ(r.result["value"].get<double>(), r.result["latency_avg"].get<double>());
    EXPECT_GT(r.result["value"].get<double>(), 20.0);  // at least the routing delay
  }
  const auto plots = standardPlots(results);
  ASSERT_EQ(plots.size(), 2U);  // latency and accepted load, x = offered load, a line per engine
  EXPECT_EQ(plots[0].xAxis, "load");
  EXPECT_EQ(plots[0].xLabels, (std::vector<std::string>{"0.1", "0.3"}));
  ASSERT_EQ(plots[0].series.size(), 2U);
  EXPECT_EQ(plots[1].name, "simulate-accepted-2");
  EXPECT_LT(plots[0].series[0].points[0].mean, plots[0].series[0].points[1].mean);  // latency grows with load
  const std::string script = gnuplotScript(plots[0], "o.png", "o.svg");
  EXPECT_NE(script.find("set xlabel 'load'"), std::string::npos);
  EXPECT_NE(script.find(".\"\\n\"."), std::string::npos);  // the long title is broken into lines
}

// normalizeSimulate: `arbitration` at its default (round-robin) is left out of a point's
// configuration, so points of results files written before the key existed keep their
// identity; any other arbitration stays in the configuration (and reaches the simulator).
TEST(SimulateKind, ArbitrationIsInAPointOnlyAwayFromItsDefault) {
  const Sweep sweep = parseSweep(R"(name = "arb"
[[grid]]
kind = "simulate"
fabric = "kary-ntree:k=2,n=2"
engine = "dmodk"
load = 0.1
arbitrations = ["round-robin", "age", "switch-round-robin"]
)",
                                 "arb.toml");
  ASSERT_EQ(sweep.points.size(), 3U);
  EXPECT_FALSE(sweep.points[0].config.contains("arbitration")) << sweep.points[0].config.dump();
  EXPECT_EQ(sweep.points[1].config.value("arbitration", ""), "age");
  EXPECT_EQ(sweep.points[2].config.value("arbitration", ""), "switch-round-robin");
}

// gnuplotScript: a title longer than ~110 characters is set as quoted pieces joined by
// ."\n". , each piece ending after its last ", " within 110 characters (or at 110 when there
// is none); read back, the pieces are the title, whole and in order.
TEST(Report, ALongPlotTitleIsBrokenAfterCommasAndReadsBackWhole) {
  PlotSpec plot;
  plot.name = "t";
  plot.yLabel = "ABB";
  plot.xLabels = {"kary-ntree:k=4,n=3"};
  plot.series = {{"dmodk", {{0, 0.5, 0.4, 0.6}}}};
  std::string commas;
  for (int i = 0; commas.size() < 300; ++i) commas += fmt::format("{}key{} = value {}", i ? ", " : "", i, i);
  const std::string unbroken(250, 'x');
  for (const std::string& title : {commas, unbroken, std::string("short, 'quoted' title")}) {
    plot.title = title;
    const std::string script = gnuplotScript(plot, "o.png", "o.svg");
    const std::size_t at = script.find("set title ");
    ASSERT_NE(at, std::string::npos);
    const std::string line = script.substr(at + 10, script.find(" noenhanced\n", at) - at - 10);
    // Unquote 'piece'.\"\\n\".'piece'... (gnuplot doubles a quote inside single quotes).
    std::vector<std::string> pieces;
    std::size_t i = 0;
    while (i < line.size()) {
      ASSERT_EQ(line[i], '\'') << line;
      std::string piece;
      for (++i; i < line.size(); ++i) {
        if (line[i] == '\'' && i + 1 < line.size() && line[i + 1] == '\'') {
          piece += '\'';
          ++i;
        } else if (line[i] == '\'') {
          break;
        } else {
          piece += line[i];
        }
      }
      pieces.push_back(piece);
      ++i;
      if (i < line.size()) {
        ASSERT_EQ(line.substr(i, 6), ".\"\\n\".") << line;
        i += 6;
      }
    }
    std::string joined;
    for (std::size_t p = 0; p < pieces.size(); ++p) {
      EXPECT_LE(pieces[p].size(), 112u) << p << ": " << pieces[p];  // up to 110, then the ", "
      if (p + 1 < pieces.size() && title == commas) {
        EXPECT_TRUE(pieces[p].ends_with(", ")) << pieces[p];
      }
      joined += pieces[p];
    }
    EXPECT_EQ(joined, title);
    if (title == unbroken) {
      ASSERT_EQ(pieces.size(), 3u) << line;  // 110 + 110 + 30
      EXPECT_EQ(pieces[0].size(), 110u);
      EXPECT_EQ(pieces[1].size(), 110u);
    } else if (title == commas) {
      EXPECT_GE(pieces.size(), 3u) << line;
    } else {
      EXPECT_EQ(pieces.size(), 1u) << line;
    }
  }
  // At the limit: 110 characters (with commas) stay one piece, 111 are broken after the last
  // ", " within the first 110.
  auto titlePieces = [&](const std::string& title) {
    plot.title = title;
    const std::string script = gnuplotScript(plot, "o.png", "o.svg");
    const std::size_t at = script.find("set title ");
    const std::string line = script.substr(at, script.find('\n', at) - at);
    std::size_t pieces = 1;
    for (std::size_t i = line.find(".\"\\n\"."); i != std::string::npos; i = line.find(".\"\\n\".", i + 1)) ++pieces;
    return pieces;
  };
  std::string limit = "a, b, ";
  limit += std::string(110 - limit.size(), 'c');
  ASSERT_EQ(limit.size(), 110u);
  EXPECT_EQ(titlePieces(limit), 1u);
  EXPECT_EQ(titlePieces(limit + "d"), 2u);
  // The x axis spans the categories 0..n-1 with half a category either side.
  plot.xLabels = {"a", "b", "c"};
  EXPECT_NE(gnuplotScript(plot, "o.png", "o.svg").find("set xrange [-0.5:2.5]\nset xtics ('a' 0, 'b' 1, 'c' 2)"),
            std::string::npos);
}

// The y axis of an analyze sweep's plot names what its metric is: a plot of pattern loads
// labelled as bandwidths would misread every point.
TEST(Report, EachAnalyzeMetricNamesItsAxis) {
  const std::vector<std::pair<std::string, std::string>> labels = {
      {"worst", "WORST (max channel load over all permutations)"},
      {"abb", "abb (mean bandwidth 1/ML, 99% CI)"},
      {"afpb", "afpb (mean bandwidth 1/ML, 99% CI)"},
      {"adb", "adb (mean bandwidth 1/ML, 99% CI)"},
      {"pattern", "ML (max channel load of the pattern)"},
      {"stages", "most paths per channel"}};
  for (const auto& [metric, label] : labels) {
    PointResult r;
    r.key =
        nlohmann::json{{"kind", "analyze"}, {"metric", metric}, {"fabric", "f"}, {"engine", "e"}, {"seed", 1}}.dump();
    r.result = {{"value", 1.0}};
    const auto plots = standardPlots({r});
    ASSERT_EQ(plots.size(), 1U) << metric;
    EXPECT_EQ(plots[0].yLabel, label) << metric;
    EXPECT_NE(gnuplotScript(plots[0], "o.png", "o.svg").find("set ylabel '" + label + "'"), std::string::npos)
        << metric;
  }
}

TEST(Report, PlotsAverageSeedsPerEngineAndFabric) {
  std::vector<PointResult> results;
  const auto add = [&](const std::string& fabric, const std::string& engine, int seed, double value, double ci) {
    PointResult r;
    r.key =
        nlohmann::json{{"kind", "analyze"}, {"metric", "abb"}, {"fabric", fabric}, {"engine", engine}, {"seed", seed}}
            .dump();
    r.result = {{"value", value}, {"ci99_halfwidth", ci}};
    results.push_back(r);
  };
  add("f1", "a", 1, 0.5, 0.1);
  add("f1", "a", 2, 0.7, 0.1);
  add("f2", "a", 1, 0.9, 0.0);
  add("f2", "b", 1, 0.3, 0.0);
  results.push_back(results[0]);
  results.back().ok = false;  // failed points are not drawn
  results.back().result = {{"error", "x"}, {"value", nullptr}};
  const auto plots = standardPlots(results);
  ASSERT_EQ(plots.size(), 1U);
  EXPECT_EQ(plots[0].xLabels, (std::vector<std::string>{"f1", "f2"}));
  ASSERT_EQ(plots[0].series.size(), 2U);
  EXPECT_EQ(plots[0].series[0].label, "a");
  ASSERT_EQ(plots[0].series[0].points.size(), 2U);
  EXPECT_DOUBLE_EQ(plots[0].series[0].points[0].mean, 0.6);
  EXPECT_DOUBLE_EQ(plots[0].series[0].points[0].low, 0.4);
  EXPECT_DOUBLE_EQ(plots[0].series[0].points[0].high, 0.8);
  ASSERT_EQ(plots[0].series[1].points.size(), 1U);
  EXPECT_EQ(plots[0].series[1].points[0].x, 1U);
  const std::string script = gnuplotScript(plots[0], "o.png", "o.svg");
  EXPECT_NE(script.find("set output 'o.png'"), std::string::npos);
  EXPECT_NE(script.find("set output 'o.svg'"), std::string::npos);
  // The data blocks: a line per point, "x mean low high", the engines' points side by side
  // about their label's x, 0.06 apart and centred on it (report.h).
  const auto block = [&](const std::string& name) {
    const std::size_t start = script.find(name + " << EOD\n");
    EXPECT_NE(start, std::string::npos) << name;
    const std::size_t end = script.find("EOD\n", start + name.size() + 8);
    std::istringstream lines(script.substr(start + name.size() + 8, end - start - name.size() - 8));
    std::vector<std::array<double, 4>> rows;
    for (std::array<double, 4> row{}; lines >> row[0] >> row[1] >> row[2] >> row[3];) rows.push_back(row);
    return rows;
  };
  const auto first = block("$series0");
  ASSERT_EQ(first.size(), 2U);
  EXPECT_NEAR(first[0][0], 0 - 0.03, 1e-9);
  EXPECT_NEAR(first[1][0], 1 - 0.03, 1e-9);
  EXPECT_DOUBLE_EQ(first[0][1], 0.6);
  EXPECT_DOUBLE_EQ(first[0][2], 0.4);
  EXPECT_DOUBLE_EQ(first[0][3], 0.8);
  const auto second = block("$series1");
  ASSERT_EQ(second.size(), 1U);
  EXPECT_NEAR(second[0][0], 1 + 0.03, 1e-9);
  EXPECT_DOUBLE_EQ(second[0][1], 0.3);
}

}  // namespace
}  // namespace routelab

namespace routelab {
namespace {

/// An all-reduce over `parts` threads, standing in for MPI_Allreduce (routelab-mpi).
class ThreadSum {
 public:
  explicit ThreadSum(std::ptrdiff_t parts) : barrier_(parts) {}
  void sum(std::span<double> values, std::uint32_t part) {
    barrier_.arrive_and_wait();
    if (part == 0) total_.assign(values.size(), 0.0);
    barrier_.arrive_and_wait();
    {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < values.size(); ++i) total_[i] += values[i];
    }
    barrier_.arrive_and_wait();
    std::copy(total_.begin(), total_.end(), values.begin());
    barrier_.arrive_and_wait();
  }

 private:
  std::barrier<> barrier_;
  std::mutex mutex_;
  std::vector<double> total_;
};

TEST(SampleSplit, SharesCoverEveryIndexOnce) {
  std::uint64_t next = 1000;
  for (std::uint32_t part = 0; part < 7; ++part) {
    const auto [from, to] = sampleShare(1000, 2003, part, 7);
    EXPECT_EQ(from, next);
    EXPECT_GE(to - from, 143U);
    EXPECT_LE(to - from, 144U);
    next = to;
  }
  EXPECT_EQ(next, 2003U);
}

TEST(SampleSplit, SamplesSplitOverThreePartsGiveTheOneProcessResultBitForBit) {
  const SweepPoint point{0,
                         {{"kind", "analyze"},
                          {"fabric", "gft2:n=4,m=4,r=8"},
                          {"engine", "dmodk"},
                          {"metric", "abb"},
                          {"seed", 5},
                          {"lmc", 0},
                          {"load_model", "even-split"},
                          {"precision", 0.004},
                          {"max_samples", 1 << 20}},
                         ""};
  const PointResult whole = computePoint(point, 1, "one");
  ASSERT_TRUE(whole.ok) << whole.result.dump();
  ASSERT_GT(whole.result["samples"].get<std::uint64_t>(), 2000U);  // several doubling rounds
  constexpr std::uint32_t kParts = 3;
  ThreadSum reduce(kParts);
  std::vector<PointResult> parts(kParts);
  {
    std::vector<std::jthread> threads;
    for (std::uint32_t p = 0; p < kParts; ++p) {
      threads.emplace_back([&, p] {
        SampleSplit split{p, kParts, [&reduce, p](std::span<double> values) { reduce.sum(values, p); }};
        parts[p] = computePoint(point, 1, "part", split);
      });
    }
  }
  for (const PointResult& part : parts) EXPECT_EQ(part.result.dump(), whole.result.dump());
}

// docs/SWEEPS.md, `routelab-mpi sweep --split-samples`: the sampled points (ABB/AFPB/ADB) are
// computed by every rank together, the others one per rank; splitsSamples(config) is what
// routelab-mpi reads to choose. It must hold for exactly the points whose evaluation draws its
// samples through the split — seen here by computing each point in two parts (threads standing
// in for ranks) and noting whether the parts summed anything — for every analyze metric of the
// request schema and a point of another kind; a split point still gives the one-process result.
TEST(SampleSplit, ExactlyThePointsThatSampleThroughTheSplitAreSplit) {
  const OptionSchema& schema = requestSchema("analyze");
  const auto metric =
      std::find_if(schema.begin(), schema.end(), [](const OptionSpec& row) { return row.key == "metric"; });
  ASSERT_NE(metric, schema.end());
  std::string metrics;
  for (const std::string& choice : metric->choices) metrics += (metrics.empty() ? "\"" : ", \"") + choice + "\"";
  const Sweep sweep = parseSweep(
      "[[grid]]\nkind = \"analyze\"\nfabric = \"gft2:n=2,m=2,r=4\"\nengine = \"dmodk\"\n"
      "metrics = [" +
          metrics +
          "]\npattern = \"shift:s=1\"\nprecision = 0.1\n"
          "[[grid]]\nkind = \"verify\"\nfabric = \"gft2:n=2,m=2,r=4\"\nengine = \"dmodk\"\n",
      "split.toml");
  ASSERT_EQ(sweep.points.size(), metric->choices.size() + 1);
  std::size_t sampled = 0;
  for (const SweepPoint& point : sweep.points) {
    constexpr std::uint32_t kParts = 2;
    ThreadSum reduce(kParts);
    std::atomic<int> sums = 0;
    std::vector<PointResult> parts(kParts);
    {
      std::vector<std::jthread> threads;
      for (std::uint32_t p = 0; p < kParts; ++p) {
        threads.emplace_back([&, p] {
          SampleSplit split{p, kParts, [&reduce, &sums, p](std::span<double> values) {
                              ++sums;
                              reduce.sum(values, p);
                            }};
          parts[p] = computePoint(point, 1, "part", split);
        });
      }
    }
    const PointResult whole = computePoint(point, 1, "one");
    ASSERT_TRUE(whole.ok) << point.key << " " << whole.result.dump();
    EXPECT_EQ(splitsSamples(point.config), sums.load() > 0) << point.key;
    if (sums.load() > 0) {
      ++sampled;
      for (const PointResult& part : parts) EXPECT_EQ(part.result.dump(), whole.result.dump()) << point.key;
    }
  }
  EXPECT_GT(sampled, 0U);                       // some points sample ...
  EXPECT_LT(sampled, sweep.points.size() - 1);  // ... and some analyze points do not
}

}  // namespace
}  // namespace routelab

namespace routelab {
namespace {

// Issue 36: the sweep keys are the request rows (request/request.h) in snake spelling, with
// the rows' defaults; every row is a sweep key unless it drives the run (threads, loads,
// saturation, traces, invariant checks).
TEST(PointKinds, KeysAreTheRequestRowsWithTheirDefaults) {
  const std::map<std::string, std::vector<std::string>> runMode = {
      {"analyze", {"threads"}}, {"simulate", simulateRunModeKeys()}, {"verify", {"examples"}}, {"schedule", {}}};
  ASSERT_EQ(pointKinds().size(), runMode.size());
  for (const auto& [operation, excluded] : runMode) {
    const PointKind& kind = findPointKind(operation);
    std::size_t matched = 0;
    for (const OptionSpec& row : requestSchema(operation)) {
      const auto key = std::find_if(kind.keys.begin(), kind.keys.end(),
                                    [&](const PointKey& k) { return k.name == snakeKey(row.key); });
      if (std::find(excluded.begin(), excluded.end(), row.key) != excluded.end()) {
        EXPECT_EQ(key, kind.keys.end()) << operation << " " << row.key;
        continue;
      }
      ASSERT_NE(key, kind.keys.end()) << operation << " " << row.key << " is not a sweep key";
      ++matched;
      if (row.required) {
        EXPECT_TRUE(key->defaultValue.is_null()) << row.key;
      } else if (row.type == OptionType::Flag) {
        EXPECT_EQ(key->defaultValue, row.defaultValue == "true" ? 1 : 0) << row.key;
      } else if (!row.defaultValue.empty()) {
        EXPECT_EQ(key->defaultValue, optionValueJson(row, row.defaultValue)) << row.key;
      }
    }
    EXPECT_EQ(matched, kind.keys.size()) << operation;
  }
  // One range everywhere: the simulator's packet limit holds in a sweep file at the limit.
  const std::string sim = "[[grid]]\nkind = \"simulate\"\nfabric = \"kary-ntree:k=2,n=2\"\nengine = \"dmodk\"\n";
  EXPECT_NO_THROW(parseSweep(sim + "packet_flits = 4096\n", "ok.toml"));
  expectParseError(sim + "packet_flits = 4097\n", "bad.toml:1",
                   "simulate: packet-flits must lie in [1, 4096] (got 4097)");
}

// Kind verify: a point is `routelab verify`'s verdict. Known verdicts on one random fabric:
// shortest paths without layers close a dependency cycle, Up*/Down* needs one layer
// (Schroeder et al. 1991), LASH more than one (Lysne et al. 2006 §4); a routing that is not
// deadlock-free is a result (exit code 4), not an error.
TEST(VerifyKind, PointsAreVerdictsWithTheLayersUsed) {
  const Sweep sweep = parseSweep(
      "[[grid]]\nkind = \"verify\"\nfabric = \"random:switches=16,links=32,terminals=2,seed=1\"\n"
      "engines = [\"minhop\", \"updown\", \"lash\"]\n",
      "verify.toml");
  ASSERT_EQ(sweep.points.size(), 3U);
  EXPECT_FALSE(sweep.points[0].config.contains("sl"));  // no SL table: not part of the point
  EXPECT_FALSE(sweep.points[0].config.contains("examples"));
  const std::string path = temporaryPath("verify.sqlite");
  EXPECT_EQ(runInto(sweep, path, RunOptions{}), 3U);
  std::map<std::string, nlohmann::json> byEngine;
  for (const PointResult& r : ResultStore::openExisting(path).results()) {
    ASSERT_TRUE(r.ok) << r.result.dump();
    byEngine[nlohmann::json::parse(r.key).at("engine").get<std::string>()] = r.result;
  }
  ASSERT_EQ(byEngine.size(), 3U);
  for (const auto& [engine, result] : byEngine) {
    EXPECT_TRUE(result.at("connected").get<bool>()) << engine;
    EXPECT_EQ(result.at("value"), result.at("layers_used")) << engine;
    EXPECT_EQ(result.at("exit_code").get<int>(), result.at("deadlock_free").get<bool>() ? 0 : 4) << engine;
    EXPECT_EQ(result.at("terminals").get<int>(), 32) << engine;
  }
  EXPECT_FALSE(byEngine["minhop"].at("deadlock_free").get<bool>());
  EXPECT_TRUE(byEngine["updown"].at("deadlock_free").get<bool>());
  EXPECT_EQ(byEngine["updown"].at("layers_used").get<int>(), 1);
  EXPECT_TRUE(byEngine["lash"].at("deadlock_free").get<bool>());
  EXPECT_GE(byEngine["lash"].at("layers_used").get<int>(), 2);
}

// Kind schedule: a point is `routelab schedule`'s experiment; every request of every sample
// is either granted or counted under exactly one failure (docs/SCHEDULING.md), and the plots
// draw one line per scheduler.
TEST(ScheduleKind, PointsAccountForEveryRequestAndArePlottedPerScheduler) {
  const Sweep sweep = parseSweep(
      "[[grid]]\nkind = \"schedule\"\nfabrics = [\"ft:l=2,m=4,w=4\", \"ft:l=3,m=4,w=4\"]\n"
      "schedulers = [\"level-wise\", \"local-greedy\"]\npermutations = 40\n",
      "schedule.toml");
  ASSERT_EQ(sweep.points.size(), 4U);
  const std::string path = temporaryPath("schedule.sqlite");
  EXPECT_EQ(runInto(sweep, path, RunOptions{}), 4U);
  const std::vector<PointResult> results = ResultStore::openExisting(path).results();
  for (const PointResult& r : results) {
    ASSERT_TRUE(r.ok) << r.result.dump();
    const nlohmann::json& x = r.result;
    const double requested = x.at("requests").get<double>() * 40;
    const auto failed = x.at("failures_no_common_port").get<double>() + x.at("failures_no_up_port").get<double>() +
                        x.at("failures_down_conflict").get<double>();
    EXPECT_DOUBLE_EQ(requested, x.at("granted_total").get<double>() + failed) << r.key;
    EXPECT_EQ(x.at("value"), x.at("ratio_mean"));
    EXPECT_LE(x.at("ratio_min").get<double>(), x.at("ratio_mean").get<double>());
    EXPECT_LE(x.at("ratio_mean").get<double>(), x.at("ratio_max").get<double>());
    EXPECT_LE(x.at("ratio_max").get<double>(), 1.0);
  }
  const auto plots = standardPlots(results);
  ASSERT_EQ(plots.size(), 1U);
  EXPECT_EQ(plots[0].xLabels, (std::vector<std::string>{"ft:l=2,m=4,w=4", "ft:l=3,m=4,w=4"}));
  ASSERT_EQ(plots[0].series.size(), 2U);
  EXPECT_EQ(plots[0].series[0].label, "level-wise");
  EXPECT_EQ(plots[0].series[1].label, "local-greedy");
  // Ding et al. §5: the level-wise scheduler schedules more than the local one.
  for (std::size_t x = 0; x < 2; ++x) {
    EXPECT_GT(plots[0].series[0].points[x].mean, plots[0].series[1].points[x].mean) << x;
  }
}

}  // namespace
}  // namespace routelab
