// The comparison behind `routelab compare` (report/comparison.h, report/html.h); its
// OpenSM engine directory reader is tested in tests/verify/test_opensm_engine_dir.cpp.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <span>
#include <sstream>

#include "analysis/loads.h"
#include "analysis/split.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "report/comparison.h"
#include "report/html.h"
#include "sim/deadlock_fixtures.h"
#include "test_support.h"
#include "traffic/pattern.h"

namespace routelab {
namespace {

EngineComparison analysedEngine(const std::string& name, double abb, double worst, std::size_t layers,
                                bool deadlockFree = true) {
  EngineComparison e;
  e.name = name;
  e.origin = "routelab";
  e.connected = e.loopFree = true;
  e.deadlockFree = deadlockFree;
  e.layers = e.layersUsed = layers;
  e.deployment.vls = layers;
  e.meanHops = 4;
  ModelMetrics m;
  m.abb.mean = abb;
  m.abb.samples = 1000;
  m.worst = m.worstLower = worst;
  e.models.push_back(m);
  return e;
}

TEST(ReportRanking, PassingBeforeFailingBeforeRefusedThenAbbWorstLayers) {
  std::vector<EngineComparison> engines;
  EngineComparison refused;
  refused.name = "aaa-refused";
  refused.refused = true;
  refused.reason = "needs a 2-level fat-tree";
  engines.push_back(refused);
  engines.push_back(analysedEngine("fast-but-deadlocks", 0.9, 1, 1, false));
  engines.push_back(analysedEngine("two-layers", 0.5, 4, 2));
  engines.push_back(analysedEngine("one-layer", 0.5, 4, 1));
  engines.push_back(analysedEngine("lower-worst", 0.5, 3, 3));
  engines.push_back(analysedEngine("best-abb", 0.6, 8, 4));
  rankEngines(engines);
  std::vector<std::string> order;
  for (const auto& e : engines) order.push_back(e.name);
  EXPECT_EQ(order, (std::vector<std::string>{"best-abb", "lower-worst", "one-layer", "two-layers", "fast-but-deadlocks",
                                             "aaa-refused"}));
}

TEST(ReportRanking, RecommendationNamesTheWinnerAndWhy) {
  Comparison c;
  c.engines = {analysedEngine("dmodk", 0.45, 4, 1), analysedEngine("minhop", 0.45, 4, 1, false)};
  EngineComparison refused;
  refused.name = "opt";
  refused.refused = true;
  c.engines.push_back(refused);
  rankEngines(c.engines);
  c.verdict = decide(c);
  const std::string text = recommendation(c);
  EXPECT_EQ(text.rfind("Use dmodk: deadlock-free with 1 layer, ABB 0.450", 0), 0u) << text;
  EXPECT_NE(text.find("worst-case permutation load 4"), std::string::npos) << text;
  EXPECT_NE(text.find("Not recommended (deadlock-prone or not delivering every pair): minhop"), std::string::npos);
  EXPECT_NE(text.find("Refused this fabric: opt"), std::string::npos);
}

// Equal on every criterion and in deployment cost: the order they were listed in decides,
// never the name, and the recommendation says so.
TEST(ReportRanking, TiesAreNamedAndTheListingDecidesNotTheName) {
  Comparison c;
  c.engines = {analysedEngine("b-engine", 1.0, 1, 1), analysedEngine("a-engine", 1.0, 1, 1),
               analysedEngine("c-engine", 0.5, 4, 1)};
  for (std::size_t i = 0; i < c.engines.size(); ++i) c.engines[i].listedOrder = i;
  rankEngines(c.engines);
  EXPECT_EQ(c.engines.front().name, "b-engine");
  EXPECT_EQ(c.engines[0].group, c.engines[1].group);
  EXPECT_NE(c.engines[1].group, c.engines[2].group);
  c.verdict = decide(c);
  const std::string text = recommendation(c);
  EXPECT_NE(text.find("Equal on every measured criterion: a-engine; named first because a-engine costs the same to "
                      "deploy and was listed later."),
            std::string::npos)
      << text;
}

TEST(ReportShifts, EveryShiftWhenFewElseSpreadEvenly) {
  EXPECT_EQ(evaluatedShifts(5, 256), (std::vector<std::int64_t>{1, 2, 3, 4}));
  const auto spread = evaluatedShifts(4096, 256);
  ASSERT_EQ(spread.size(), 256u);
  EXPECT_EQ(spread.front(), 1);
  EXPECT_LT(spread.back(), 4096);
  EXPECT_TRUE(std::is_sorted(spread.begin(), spread.end()));
  EXPECT_TRUE(evaluatedShifts(1, 256).empty());
}

/// The report without its timings (every one is inside <span class="t">).
std::string withoutTimings(const std::string& html) {
  // (No std::regex: GCC 12 warns about its internals under the sanitizers.)
  const std::string open = "<span class=\"t\">";
  std::string out;
  std::size_t at = 0;
  for (std::size_t found; (found = html.find(open, at)) != std::string::npos;) {
    out += html.substr(at, found - at) + "T";
    at = html.find("</span>", found) + 7;
  }
  return out + html.substr(at);
}

std::string html(const Comparison& c) {
  std::ostringstream out;
  writeHtmlReport(c, out);
  return out.str();
}

CompareOptions smallOptions() {
  CompareOptions options;
  options.spec = "kary-ntree:k=2,n=3";
  options.engines = {"dmodk", "opt", "ftree-adaptive", "minhop", "updown"};
  options.seed = 3;
  options.simulateCycles = 2000;
  return options;
}

// The sampled bandwidths need an even number of terminals (a bisection): 2 terminals have
// them (every pair has its own links: 1), 3 terminals have none (samples 0), and the other
// metrics are there either way.
TEST(ReportCompare, SampledBandwidthsOnTheSmallestEvenFabricAndNoneOnAnOddOne) {
  CompareOptions options;
  options.engines = {"ftree-adaptive"};  // two paths between the leaves: the split models too
  options.simulate = false;
  options.spec = "xgft:h=2,m=1.2,w=1.2";  // 2 terminals, each on its own leaf
  const Comparison two = compareEngines(options);
  ASSERT_EQ(two.terminals, 2u);
  const std::vector<ModelMetrics>& even = two.engines.front().models;
  ASSERT_EQ(even.size(), 3u);  // first-path, even-split, best-split on a fabric this small
  for (const ModelMetrics& m : even) {
    SCOPED_TRACE(loadModelName(m.model));
    EXPECT_DOUBLE_EQ(m.abb.mean, 1.0);
    EXPECT_GT(m.abb.samples, 0u);
    if (m.model != LoadModel::BestSplit) {
      EXPECT_DOUBLE_EQ(m.afpb.mean, 1.0);
    }
  }
  options.spec = "xgft:h=2,m=1.3,w=1.2";  // 3 terminals, each on its own leaf
  const Comparison three = compareEngines(options);
  ASSERT_EQ(three.terminals, 3u);
  const EngineComparison& odd = three.engines.front();
  ASSERT_EQ(odd.models.size(), 3u);
  for (const ModelMetrics& m : odd.models) {
    SCOPED_TRACE(loadModelName(m.model));
    EXPECT_EQ(m.abb.samples + m.afpb.samples + m.adb.samples, 0u);
    EXPECT_EQ(m.worst, 1u);
  }
  EXPECT_NE(std::find(odd.notes.begin(), odd.notes.end(),
                      "ABB/AFPB/ADB need an even number of terminals (this fabric has 3)"),
            odd.notes.end());
}

TEST(ReportCompare, EveryEngineRankedOrRefusedWithEveryFigure) {
  std::vector<std::string> progress;
  CompareOptions options = smallOptions();
  options.progress = [&](const std::string& line) { progress.push_back(line); };
  const Comparison c = compareEngines(options);
  EXPECT_FALSE(progress.empty());
  ASSERT_EQ(c.engines.size(), 5u);
  EXPECT_EQ(c.terminals, 8u);
  EXPECT_TRUE(c.fatTree);
  const EngineComparison& last = c.engines.back();
  EXPECT_EQ(last.name, "opt");
  EXPECT_TRUE(last.refused);
  EXPECT_NE(last.reason.find("2-level fat-tree"), std::string::npos) << last.reason;
  for (std::size_t i = 0; i + 1 < c.engines.size(); ++i) {
    const EngineComparison& e = c.engines[i];
    EXPECT_TRUE(e.passed()) << e.name;
    ASSERT_NE(e.rankingModel(), nullptr) << e.name;
    EXPECT_FALSE(e.stages.empty()) << e.name;
    EXPECT_GT(e.meanHops, 0) << e.name;
  }
  // The adaptive engine reaches full bisection bandwidth on a k-ary n-tree (even-split), but
  // needs adaptive switches: it ranks first among those not deployable here, after dmodk.
  EXPECT_EQ(c.engines.front().name, "dmodk");
  EXPECT_TRUE(c.engines.front().deployable());
  const auto adaptive = std::find_if(c.engines.begin(), c.engines.end(),
                                     [](const EngineComparison& e) { return !e.notDeployable.empty(); });
  ASSERT_NE(adaptive, c.engines.end());
  EXPECT_EQ(adaptive->name, "ftree-adaptive");
  EXPECT_EQ(adaptive->rankingModel()->model, LoadModel::EvenSplit);
  EXPECT_EQ(adaptive->rankingModel()->abb.mean, 1.0);
  EXPECT_EQ(c.verdict.recommended, "dmodk");
  const std::string page = html(c);
  for (const auto& e : c.engines) EXPECT_NE(page.find(">" + e.name + "<"), std::string::npos) << e.name;
  for (const char* id : {"deployment-table", "evidence-table"}) {
    EXPECT_NE(page.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  EXPECT_NE(page.find("refused"), std::string::npos);
  EXPECT_EQ(page.find("id=\"latency\""), std::string::npos);  // figures not rendered here: no section
  // Self-contained: nothing loaded from elsewhere.
  EXPECT_EQ(page.find(" src="), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(page.find("@import"), std::string::npos);
}

/// The cells of every body row of the first table after `anchor` (a row's own attributes and
/// the cells' tags stripped).
std::vector<std::vector<std::string>> rowsAfter(const std::string& page, const std::string& anchor) {
  std::vector<std::vector<std::string>> rows;
  const std::size_t table = page.find(anchor);
  const std::size_t body = page.find("<tbody>", table), end = page.find("</tbody>", table);
  if (table == std::string::npos || body == std::string::npos || end == std::string::npos) return rows;
  auto nextRow = [&](std::size_t from) {
    std::size_t at = page.find("<tr", from);
    while (at < end && page[at + 3] != '>' && page[at + 3] != ' ') at = page.find("<tr", at + 1);
    return at;
  };
  for (std::size_t at = nextRow(body); at < end; at = nextRow(at + 1)) {
    std::vector<std::string> cells;
    const std::size_t rowEnd = page.find("</tr>", at);
    for (std::size_t cell = page.find("<td", at); cell < rowEnd; cell = page.find("<td", cell + 1)) {
      const std::size_t open = page.find('>', cell) + 1;
      cells.push_back(page.substr(open, page.find("</td>", open) - open));
    }
    rows.push_back(cells);
  }
  return rows;
}

/// The cells of every body row of the table with the given id.
std::vector<std::vector<std::string>> tableRows(const std::string& page, const std::string& id) {
  return rowsAfter(page, "<table id=\"" + id + "\"");
}

/// Every number of the evidence table, recomputed from compare.json's pattern records: the
/// loads at 50 % and 80 % are those fractions of the pattern's reference load (docs/COMPARE.md),
/// and each is the load of one of the pattern's simulated points, whose latency is the one shown.
TEST(ReportCompare, EvidenceTableIsTheJsonsPatternRecords) {
  const Comparison c = compareEngines(smallOptions());
  const nlohmann::json j = nlohmann::json::parse(comparisonJson(c));
  const auto rows = tableRows(html(c), "evidence-table");
  std::size_t row = 0;
  for (const nlohmann::json& e : j.at("engines")) {
    if (!e.contains("simulation")) continue;
    for (const nlohmann::json& p : e.at("simulation").at("patterns")) {
      ASSERT_LT(row, rows.size());
      const std::vector<std::string>& cells = rows[row++];
      ASSERT_EQ(cells.size(), 11u);
      EXPECT_EQ(cells[0], e.at("name").get<std::string>());
      EXPECT_EQ(cells[2], p.at("traffic").get<std::string>());
      const double reference = p.at("reference_load").get<double>();
      EXPECT_GT(reference, 0.0);
      const auto number = [](double v, int digits) { return fmt::format("{:.{}f}", v, digits); };
      EXPECT_EQ(cells[3], number(p.at("saturation_load").get<double>(), 3));
      EXPECT_EQ(cells[4], number(p.at("saturation_accepted").get<double>(), 3));
      for (const auto& [cell, fraction, latency] :
           {std::tuple{5, 0.5, "latency_at_50"}, std::tuple{7, 0.8, "latency_at_80"}}) {
        EXPECT_EQ(cells[cell], number(fraction * reference, 3)) << e.at("name") << " " << fraction;
        EXPECT_EQ(cells[cell + 1], number(p.at(latency).get<double>(), 1)) << e.at("name") << " " << fraction;
        const auto& points = p.at("points");
        const double load = fraction * reference;  // (a lambda may not capture a structured binding in C++20)
        const double atLoad = p.at(latency).get<double>();
        EXPECT_TRUE(std::any_of(points.begin(), points.end(),
                                [&](const nlohmann::json& q) {
                                  return std::abs(q.at("load").get<double>() - load) < 1e-12 &&
                                         q.at("latency").get<double>() == atLoad;
                                }))
            << e.at("name") << " " << fraction;
      }
      EXPECT_EQ(cells[9], number(p.at("fairness_at_80").get<double>(), 3));
      EXPECT_EQ(cells[10], number(p.at("worst_source_at_80").get<double>(), 3));
    }
  }
  EXPECT_GT(row, 0u);
  EXPECT_EQ(row, rows.size());
}

TEST(ReportCompare, SameSeedSameReportApartFromTimings) {
  const Comparison a = compareEngines(smallOptions());
  CompareOptions options = smallOptions();
  options.threads = 1;
  Comparison b = compareEngines(options);
  b.options.threads = 0;
  EXPECT_EQ(withoutTimings(html(a)), withoutTimings(html(b)));
  options.seed = 4;
  const Comparison other = compareEngines(options);
  EXPECT_NE(withoutTimings(html(a)), withoutTimings(html(other)));
}

TEST(ReportCompare, RenderedFiguresAppearInTheirSections) {
  const Comparison c = compareEngines(smallOptions());
  std::vector<RenderedFigure> figures;
  for (const FigureSpec& spec : comparisonFigures(c)) figures.push_back({spec, "<svg id='x'><g/></svg>"});
  ASSERT_EQ(figures.size(), 3u + 4u);  // metrics, latency, throughput, a heat map per analysed engine
  std::ostringstream out;
  writeHtmlReport(c, figures, out);
  const std::string page = out.str();
  for (const char* id :
       {"id=\"figures\"", "id=\"latency\"", "id=\"stages\"", "id=\"fig-metrics\"", "id=\"fig-latency\"",
        "id=\"fig-throughput\"", "id=\"fig-stages-dmodk\"", "id=\"fig-stages-ftree-adaptive\""}) {
    EXPECT_NE(page.find(id), std::string::npos) << id;
  }
  // Each figure inside its own section: the static metrics under "Figures", the simulation's
  // curves under "Latency and throughput", each engine's stage heat map under "stages".
  const auto section = [&](const std::string& id) {
    const std::size_t start = page.find("<section id=\"" + id + "\">");
    EXPECT_NE(start, std::string::npos) << id;
    if (start == std::string::npos) return std::string();
    return page.substr(start, page.find("</section>", start) - start);
  };
  const std::map<std::string, std::vector<std::string>> expected = {
      {"figures", {"fig-metrics"}},
      {"latency", {"fig-latency", "fig-throughput"}},
      {"stages", {"fig-stages-dmodk", "fig-stages-ftree-adaptive"}}};
  for (const auto& [id, inside] : expected) {
    const std::string text = section(id);
    for (const auto& [otherId, others] : expected) {
      for (const std::string& figure : others) {
        EXPECT_EQ(text.find("id=\"" + figure + "\"") != std::string::npos, otherId == id)
            << "figure " << figure << " in section " << id;
      }
    }
  }
}

TEST(ReportCompare, UnknownEngineAndBadSpecAreErrors) {
  CompareOptions options = smallOptions();
  options.engines = {"dmodk", "no-such-engine"};
  EXPECT_THROW(compareEngines(options), SpecError);
  options.engines = {"mroots:layers=99x"};
  EXPECT_THROW(compareEngines(options), SpecError);
  options = smallOptions();
  options.spec = "kary-ntree:k=2";
  EXPECT_THROW(compareEngines(options), Error);
}

// The large-fabric defaults, forced on a small fabric: above --detail-terminals only the
// ranking metrics (no AFPB/ADB, first-path only); beyond --max-addresses-per-terminal the routing is
// routed, not analysed, and ranked after the analysed ones.
TEST(ReportCompare, DetailAndAddressThresholdsSkipWithANote) {
  CompareOptions options = smallOptions();
  options.engines = {"ftree-adaptive", "smodk", "dmodk"};
  options.detailTerminals = 4;
  options.maxAddressesPerTerminal = 1;  // dmodk and ftree-adaptive: 1; smodk: one per source class
  const Comparison c = compareEngines(options);
  ASSERT_EQ(c.engines.size(), 3u);
  EXPECT_EQ(c.engines.back().name, "smodk");
  EXPECT_TRUE(c.engines.back().skipped);
  EXPECT_FALSE(c.engines.back().passed());
  EXPECT_NE(c.engines.back().notes.front().find("--max-addresses-per-terminal 1"), std::string::npos);
  for (std::size_t i = 0; i < 2; ++i) {
    const EngineComparison& e = c.engines[i];
    ASSERT_EQ(e.models.size(), 1u) << e.name;
    EXPECT_EQ(e.models[0].model, LoadModel::FirstPath);
    EXPECT_GT(e.models[0].abb.samples, 0u);
    EXPECT_EQ(e.models[0].afpb.samples, 0u);
    EXPECT_EQ(e.models[0].adb.samples, 0u);
  }
  EXPECT_NE(recommendation(c).find("Too large to analyse at this size (see the notes): smodk"), std::string::npos);
}

// Both thresholds at their limit and one past it (docs/COMPARE.md: "AFPB, ADB and split models up
// to N terminals"; "above --detail-terminals, analyse routings up to N addresses per terminal").
// kary-ntree:k=2,n=3 has 8 terminals; smodk gives each as many addresses as it has source classes.
TEST(ReportCompare, DetailTerminalsAndAddressesPerTerminalAreInclusiveLimits) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const std::size_t terminals = fabric.network.terminalCount();
  ASSERT_EQ(terminals, 8u);
  const std::size_t perTerminal = runEngine("smodk", fabric.network).addresses.count() / terminals;
  ASSERT_GT(perTerminal, 1u);
  CompareOptions options = smallOptions();
  options.simulate = false;
  options.engines = {"ftree-adaptive", "smodk"};
  for (const std::size_t detail : {terminals, terminals - 1}) {
    options.detailTerminals = detail;
    options.maxAddressesPerTerminal = perTerminal;
    const Comparison c = compareEngines(options);
    for (const EngineComparison& e : c.engines) {
      ASSERT_FALSE(e.skipped) << e.name << " at " << detail;
      const bool detailed = detail == terminals;
      const ModelMetrics& first = e.models.at(0);
      EXPECT_EQ(first.model, LoadModel::FirstPath);
      EXPECT_EQ(first.afpb.samples > 0, detailed) << e.name << " at " << detail;
      EXPECT_EQ(first.adb.samples > 0, detailed) << e.name << " at " << detail;
      EXPECT_GT(first.abb.samples, 0u) << e.name << " at " << detail;
      const bool noted = std::any_of(e.notes.begin(), e.notes.end(), [&](const std::string& note) {
        return note.starts_with(fmt::format("8 terminals > --detail-terminals {}: AFPB, ADB", detail));
      });
      EXPECT_EQ(noted, !detailed) << e.name << " at " << detail;
      if (e.name == "ftree-adaptive") {
        EXPECT_EQ(e.models.size(), detailed ? 3u : 1u) << detail;
      }
    }
  }
  // Above --detail-terminals, a routing at exactly --max-addresses-per-terminal is analysed; one
  // address per terminal fewer allowed and it is routed only.
  options.detailTerminals = terminals - 1;
  for (const std::size_t allowed : {perTerminal, perTerminal - 1}) {
    options.maxAddressesPerTerminal = allowed;
    options.engines = {"smodk"};
    const Comparison c = compareEngines(options);
    ASSERT_EQ(c.engines.size(), 1u);
    EXPECT_EQ(c.engines[0].skipped, allowed < perTerminal) << allowed;
  }
}

// On a fat-tree above --generic-engine-switches, the default list leaves the generic engines
// out (listed, not run, ranked after the routed ones); naming one runs it.
TEST(ReportCompare, GenericEnginesAreNotRunOnLargeFatTreesUnlessNamed) {
  CompareOptions options = smallOptions();  // kary-ntree:k=2,n=3: 12 switches
  options.engines.clear();
  options.genericEngineSwitches = 11;
  options.detailTerminals = 4;  // keep it quick: first-path metrics only
  const Comparison c = compareEngines(options);
  std::size_t notRun = 0;
  for (const EngineComparison& e : c.engines) {
    const bool generic = e.name == "minhop" || e.name == "updown" || e.name == "updown-dfs" || e.name == "mroots" ||
                         e.name == "d-mroots" || e.name == "lash" || e.name == "mp-lash" || e.name == "a-lash" ||
                         e.name == "escape";
    EXPECT_EQ(e.notRun, generic) << e.name;
    if (!e.notRun) continue;
    ++notRun;
    EXPECT_TRUE(e.timings.empty()) << e.name;  // not even routed
    ASSERT_EQ(e.notes.size(), 1u);
    EXPECT_NE(e.notes.front().find("12 switches > --generic-engine-switches 11"), std::string::npos);
  }
  EXPECT_EQ(notRun, 9u);
  EXPECT_TRUE(c.engines.front().passed());  // a fat-tree engine ranks first
  EXPECT_NE(recommendation(c).find("Not run at this size"), std::string::npos);
  const auto rows = rankingTable(c);
  EXPECT_EQ(std::count_if(rows.begin(), rows.end(), [](const auto& row) { return row[2] == "not run"; }), 9);
  // Every row as wide as the header; a row not run or refused says why in the last column
  // ("model"), the columns between blank.
  ASSERT_EQ(rows.size(), c.engines.size() + 1);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const EngineComparison& e = c.engines[i - 1];
    ASSERT_EQ(rows[i].size(), rows.front().size()) << e.name;
    EXPECT_EQ(rows[i][1], e.name);
    if (!e.notRun && !e.refused) continue;
    EXPECT_EQ(rows[i].back(), e.refused ? e.reason : "at this size (see the notes)") << e.name;
    for (std::size_t k = 3; k + 1 < rows[i].size(); ++k) EXPECT_EQ(rows[i][k], "") << e.name << " column " << k;
  }
  options.engines = {"minhop", "dmodk"};  // named: run whatever the size
  const Comparison named = compareEngines(options);
  for (const EngineComparison& e : named.engines) EXPECT_FALSE(e.notRun) << e.name;
  options.engines = {};  // at the limit (12 switches, --generic-engine-switches 12): every engine runs
  options.genericEngineSwitches = 12;
  const Comparison atTheLimit = compareEngines(options);
  EXPECT_EQ(atTheLimit.engines.size(), c.engines.size());
  for (const EngineComparison& e : atTheLimit.engines) EXPECT_FALSE(e.notRun) << e.name;
}

// The all-to-all shift metrics compare ranks by (docs/COMPARE.md; Gómez et al. 2007 Fig. 3's shifts),
// recomputed here per model from each evaluated shift's pairs: the largest ML, the mean of
// 1/ML, and the mean hops (channels per path, terminal channels included). First-path loads
// are recounted by walking each pair's path 0; the split models' per-shift ML comes from
// the pattern loads (the aggregation is what is checked).
TEST(ReportCompare, ShiftMetricsAreRecomputedFromEachShiftsPairs) {
  CompareOptions options = smallOptions();
  options.spec = "gft2:n=4,m=2,r=3";  // T(4+2, 3): oversubscribed, so that split loads exceed 1 too
  options.simulate = false;
  const Comparison c = compareEngines(options);
  const Fabric fabric = loadFabric(options.spec);
  const Network& net = fabric.network;
  const std::size_t n = net.terminalCount();
  ASSERT_LE(n - 1, options.maxShifts);  // every shift is evaluated
  std::size_t modelsSeen = 0, splitAboveOne = 0;
  for (const EngineComparison& e : c.engines) {
    if (e.models.empty()) continue;
    const RoutingResult routing = runEngine(e.name, net);
    for (const ModelMetrics& m : e.models) {
      const std::string what = e.name + " " + loadModelName(m.model);
      double largest = 0, inverseSum = 0;
      std::uint64_t channels = 0;
      for (std::size_t shift = 1; shift < n; ++shift) {
        std::map<std::uint32_t, std::uint32_t> pathsOn;  // channel -> paths of this shift
        TrafficPattern pattern;
        pattern.terminals = n;
        for (std::size_t i = 0; i < n; ++i) {
          const NodeId source = net.terminalNode(static_cast<std::uint32_t>(i));
          const NodeId destination = net.terminalNode(static_cast<std::uint32_t>((i + shift) % n));
          pattern.pairs.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>((i + shift) % n)});
          const Path path = routing.path(net, source, routing.addressFor(source, destination));
          ASSERT_EQ(path.status, PathStatus::Delivered) << what;
          channels += path.channels.size();
          for (const ChannelId channel : path.channels) ++pathsOn[channel.value];
        }
        double ml = 0;
        if (m.model == LoadModel::FirstPath) {
          for (const auto& [channel, paths] : pathsOn) ml = std::max(ml, static_cast<double>(paths));
        } else {
          ml = std::max(1.0, patternLoads(net, routing, pattern, m.model).maxLoad);
        }
        largest = std::max(largest, ml);
        inverseSum += 1.0 / ml;
      }
      if (m.model != LoadModel::FirstPath && largest > 1) ++splitAboveOne;
      EXPECT_DOUBLE_EQ(m.shiftMaxLoad, largest) << what;
      EXPECT_NEAR(m.shiftMeanBandwidth, inverseSum / static_cast<double>(n - 1), 1e-12) << what;
      EXPECT_NEAR(e.meanHops, static_cast<double>(channels) / static_cast<double>(n * (n - 1)), 1e-12) << what;
      ++modelsSeen;
    }
  }
  EXPECT_GE(modelsSeen, c.engines.size() + 1);  // the adaptive routing has a split model too
  EXPECT_GE(splitAboveOne, 1u);                 // where 1/ML and ML differ
}

TEST(ReportHtml, EscapesText) {
  EXPECT_EQ(htmlEscape("<a href='x'>&\"</a>"), "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
}

// The report's recommendation: the choice as its lead, every other sentence of
// recommendationParts one list item in order (escaped), except the "Deploy: " sentence, whose
// commands follow the list one per line instead.
TEST(ReportHtml, RecommendationListsEveryReasonOnceAndTheDeployCommandsApart) {
  Comparison c;
  c.engines = {analysedEngine("dmodk", 0.45, 4, 1), analysedEngine("minhop", 0.45, 4, 1, false)};
  c.engines[0].deployment.deploy = {"opensm -R file -U <lfts>", "opensm --lmc 0"};
  EngineComparison refused;
  refused.name = "opt";
  refused.refused = true;
  c.engines.push_back(refused);
  rankEngines(c.engines);
  c.verdict = decide(c);
  const std::vector<std::string> parts = recommendationParts(c);
  ASSERT_GE(parts.size(), 4u);
  std::vector<std::string> expected;
  for (std::size_t i = 1; i < parts.size(); ++i) {
    if (parts[i].rfind("Deploy: ", 0) != 0) expected.push_back("<li>" + htmlEscape(parts[i]) + "</li>");
  }
  ASSERT_EQ(expected.size() + 2, parts.size()) << "one Deploy sentence among the parts";
  const std::string page = html(c);
  EXPECT_NE(page.find("<p class=\"lead\">" + htmlEscape(parts.front()) + "</p>"), std::string::npos);
  const std::size_t open = page.find("<ul class=\"why\">");
  ASSERT_NE(open, std::string::npos);
  const std::size_t close = page.find("</ul>", open);
  std::vector<std::string> items;
  for (std::size_t at = page.find("<li>", open); at < close; at = page.find("<li>", at + 1)) {
    items.push_back(page.substr(at, page.find("</li>", at) + 5 - at));
  }
  EXPECT_EQ(items, expected);
  EXPECT_NE(page.find("<p>Deploy it:</p><pre>opensm -R file -U &lt;lfts&gt;\nopensm --lmc 0\n</pre>", close),
            std::string::npos)
      << page.substr(close, 400);
}

// The deployment and load-model tables, cell by cell, against the fields they show: a routing
// that fails verification says so whatever it would need, one not deployable lists every need,
// refused and not-run routings have no deployment row; WORST as one number or a certified
// range, a bandwidth "-" without samples and its upper bound only where it lies above the mean.
TEST(ReportHtml, DeploymentAndModelTablesShowEveryFieldOfEachRouting) {
  Comparison c;
  c.engines = {analysedEngine("dmodk", 0.45, 4, 1), analysedEngine("ftree-adaptive", 1.0, 2, 1),
               analysedEngine("minhop", 0.45, 4, 1, false)};
  DeploymentProfile& dmodk = c.engines[0].deployment;
  dmodk.deploy = {"opensm -R file -U <lfts>"};
  dmodk.entriesPerSwitch = 28;
  ModelMetrics& first = c.engines[0].models[0];
  first.abb.ci99 = 0.0123;
  first.adb = {0.25, 0.01, 500, true, 0.3};
  first.afpb = {0.5, 0.02, 700, true, 0.5};
  first.shiftMaxLoad = 3;
  first.shiftMeanBandwidth = 1.0 / 3;
  EngineComparison& adaptive = c.engines[1];
  adaptive.notDeployable = {"needs adaptive switches", "needs 9 VLs"};
  DeploymentProfile& spread = adaptive.deployment;
  spread.switchModel = SwitchModel::Adaptive;
  spread.kind = "adaptive";
  spread.tables = 2;
  spread.addressesPerTerminal = 4;
  spread.lmc = 2;
  spread.vls = 9;
  spread.perPairSl = true;
  spread.entriesPerSwitch = 32;
  spread.inOrder = false;
  adaptive.meanHops = 3.5;
  ModelMetrics& even = adaptive.models[0];
  even.model = LoadModel::EvenSplit;
  even.worstLower = 1.5;
  c.engines[2].notDeployable = {"needs 3 VLs"};
  c.engines[2].deployment.deploy = {"opensm -R minhop", "opensm --lmc 0"};
  EngineComparison refused, notRun;
  refused.name = "opt";
  refused.refused = true;
  notRun.name = "lash";
  notRun.notRun = true;
  notRun.notes = {"not run at this size"};
  notRun.connected = notRun.loopFree = notRun.deadlockFree = true;
  c.engines.push_back(refused);
  c.engines.push_back(notRun);
  rankEngines(c.engines);
  c.verdict = decide(c);
  const std::string page = html(c);
  using Row = std::vector<std::string>;
  std::map<std::string, Row> deployment;  // by engine: the table's order is the ranking's
  for (const Row& row : rowsAfter(page, "<table id=\"deployment-table\"")) deployment[row.at(0)] = row;
  EXPECT_EQ(deployment,
            (std::map<std::string, Row>{
                {"dmodk",
                 {"dmodk", "yes", "deterministic", "LFT", "1", "0", "1", "28", "1", "no", "yes",
                  "<details><summary>1 command</summary><pre>opensm -R file -U &lt;lfts&gt;\n</pre></details>"}},
                {"ftree-adaptive",
                 {"ftree-adaptive", "no: needs adaptive switches; needs 9 VLs", "adaptive", "adaptive", "9", "2", "4",
                  "32", "2", "yes", "no", "no subnet manager configures it: needs adaptive switches"}},
                {"minhop",
                 {"minhop", "no: fails verification", "deterministic", "LFT", "1", "0", "1", "0", "1", "no", "yes",
                  "<details><summary>2 commands</summary><pre>opensm -R minhop\nopensm --lmc 0\n</pre></details>"}}}));
  EXPECT_NE(page.find("<tr class=\"ok\"><td class=\"l\">dmodk</td>"), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"refused\"><td class=\"l\">ftree-adaptive</td>"), std::string::npos);
  EXPECT_NE(page.find("<tr class=\"refused\"><td class=\"l\">minhop</td>"), std::string::npos);
  std::map<std::string, Row> models;
  for (const Row& row : rowsAfter(page, "<section id=\"models\">")) models[row.at(0)] = row;
  EXPECT_EQ(models,
            (std::map<std::string, Row>{
                {"dmodk",
                 {"dmodk", "first-path", "4", "0.4500 ± 0.0123 (1000 samples)", "0.5000 ± 0.0200 (700 samples)",
                  "0.2500 ± 0.0100 (500 samples) ≤ 0.3000", "3", "0.3333", "4.000"}},
                {"ftree-adaptive",
                 {"ftree-adaptive", "even-split", "1.500..2.000", "1.0000 ± 0.0000 (1000 samples)", "-", "-", "0",
                  "0.0000", "3.500"}},
                {"minhop",
                 {"minhop", "first-path", "4", "0.4500 ± 0.0000 (1000 samples)", "-", "-", "0", "0.0000", "4.000"}}}));
}

/// A directory laid out as --opensm-dir expects, from the committed k4n3 fixtures.
class OpenSmDirectory : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("routelab-opensm-dir-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    const std::filesystem::path k4n3 = std::filesystem::path(test::fixturesDir()) / "k4n3";
    std::filesystem::copy_file(k4n3 / "lfts.ftree.dump.gz", dir_ / "ftree.lfts");
    std::filesystem::copy_file(k4n3 / "lfts.lash.dump.gz", dir_ / "lash.lfts");
    std::filesystem::copy_file(k4n3 / "pathsl.lash.txt", dir_ / "lash.sl");
    std::ofstream(dir_ / "torus-2QoS.error") << "torus-2QoS: no torus found in this fabric\n";
    std::ofstream(dir_ / "lash.options") << "  -R lash -Q --lmc 0  \n# the second line is not read\n";
    fabric_ = "file:" + (k4n3 / "ibnetdiscover.txt").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
  std::string fabric_;
};

TEST_F(OpenSmDirectory, RankedBesideOurEngines) {
  CompareOptions options;
  options.spec = fabric_;
  options.engines = {"updown", "lash"};
  options.opensmDirectory = dir_.string();
  const Comparison c = compareEngines(options);
  ASSERT_EQ(c.engines.size(), 5u);
  std::map<std::string, const EngineComparison*> byName;
  for (const auto& e : c.engines) byName[e.name] = &e;
  ASSERT_TRUE(byName.count("opensm:ftree"));
  ASSERT_TRUE(byName.count("opensm:lash"));
  EXPECT_EQ(byName["opensm:ftree"]->origin, "OpenSM");
  EXPECT_TRUE(byName["opensm:ftree"]->passed());
  EXPECT_TRUE(byName["opensm:lash"]->passed());  // deadlock-free thanks to its SLs
  EXPECT_TRUE(byName["opensm:torus-2QoS"]->refused);
  EXPECT_EQ(c.engines.back().name, "opensm:torus-2QoS");
  EXPECT_NE(html(c).find("no torus found in this fabric"), std::string::npos);
  // How to deploy an OpenSM engine: the options it ran with (the first line of E.options,
  // trimmed), else `-R` and its name.
  EXPECT_EQ(byName["opensm:lash"]->opensmOptions, "-R lash -Q --lmc 0");
  ASSERT_FALSE(byName["opensm:lash"]->deployment.deploy.empty());
  EXPECT_EQ(byName["opensm:lash"]->deployment.deploy.front(), "opensm -R lash -Q --lmc 0");
  EXPECT_EQ(byName["opensm:ftree"]->opensmOptions, "");
  EXPECT_EQ(byName["opensm:ftree"]->deployment.deploy, std::vector<std::string>{"opensm -R ftree"});
}

// The simulation's bounds (docs/COMPARE.md): leaders >= 1, cycles >= 1, steps 1..20, each at
// the limit and one past it, refused with the message; a caller's routing of another fabric is
// refused by name.
TEST(ReportCompare, SimulationBoundsAndAForeignRoutingAreRefusedWithTheirMessage) {
  const auto errorOf = [](const CompareOptions& options) {
    return test::thrownMessage<SpecError>([&] { compareEngines(options); }, "accepted");
  };
  CompareOptions options = smallOptions();
  options.engines = {"dmodk"};
  options.simulateLeaders = 0;
  EXPECT_EQ(errorOf(options),
            "simulation of the leading routings needs --simulate-leaders >= 1, --simulate-cycles >= 1 and "
            "--simulate-steps 1..20 (got 0, 2000, 6)");
  options.simulateLeaders = 1;
  options.simulateCycles = 0;
  EXPECT_NE(errorOf(options).find("(got 1, 0, 6)"), std::string::npos);
  options.simulateCycles = 200;
  options.simulateSteps = 0;
  EXPECT_NE(errorOf(options).find("(got 1, 200, 0)"), std::string::npos);
  options.simulateSteps = 21;
  EXPECT_NE(errorOf(options).find("(got 1, 200, 21)"), std::string::npos);
  options.simulate = false;  // the bounds are the simulation's: not checked without it
  EXPECT_EQ(errorOf(options), "accepted");
  options.simulate = true;
  for (const int steps : {1, 20}) {
    options.simulateSteps = steps;
    const Comparison c = compareEngines(options);
    EXPECT_DOUBLE_EQ(c.simulationResolution, 0.99 / std::pow(2.0, steps)) << steps;
  }

  options = smallOptions();
  options.engines = {"dmodk"};
  options.simulate = false;
  const Fabric other = loadFabric("kary-ntree:k=2,n=2");
  RoutingContext context;
  options.routings = {{"mine", std::make_shared<RoutingResult>(runEngine("dmodk", other.network, context))}};
  EXPECT_EQ(errorOf(options), "compare: routing 'mine' does not route the fabric kary-ntree:k=2,n=3 (12 switches)");
  // A routing of the right fabric without addresses, without tables, or none at all: refused
  // by name as well, before anything is evaluated.
  const Fabric same = loadFabric(options.spec);
  const RoutingResult routed = runEngine("dmodk", same.network, context);
  RoutingResult noAddresses = routed;
  noAddresses.addresses = AddressMap{};
  ASSERT_EQ(noAddresses.addresses.count(), 0U);
  RoutingResult noTables = routed;
  noTables.tables.clear();
  for (const auto& broken : {std::make_shared<RoutingResult>(noAddresses), std::make_shared<RoutingResult>(noTables),
                             std::shared_ptr<RoutingResult>()}) {
    options.routings = {{"mine", broken}};
    EXPECT_EQ(errorOf(options), "compare: routing 'mine' does not route the fabric kary-ntree:k=2,n=3 (12 switches)");
  }
  options.routings = {{"mine", std::make_shared<RoutingResult>(routed)}};
  EXPECT_EQ(errorOf(options), "accepted");
}

// A fabric with an odd number of terminals has no bisection: the sampled bandwidths are left
// out with a note, and the rest of the comparison stands.
TEST(ReportCompare, AnOddTerminalCountLeavesTheBandwidthsOutWithANote) {
  CompareOptions options;
  options.spec = test::ringFabric(5, "compare_odd");
  options.engines = {"updown"};
  options.simulate = false;
  const Comparison c = compareEngines(options);
  ASSERT_EQ(c.engines.size(), 1U);
  const EngineComparison& e = c.engines[0];
  ASSERT_TRUE(e.passed()) << e.reason;
  EXPECT_NE(
      std::find(e.notes.begin(), e.notes.end(), "ABB/AFPB/ADB need an even number of terminals (this fabric has 5)"),
      e.notes.end());
  ASSERT_FALSE(e.models.empty());
  EXPECT_EQ(e.models[0].abb.samples, 0U);
  EXPECT_GT(e.models[0].worst, 0);  // WORST and the shift loads stand
}

// A routing that does not deliver every pair is verified and profiled but not analysed: it
// says so, fails verification and is ranked after every routing that passes.
TEST(ReportCompare, ARoutingThatLoopsIsNotAnalysedAndSaysWhy) {
  CompareOptions options = smallOptions();
  options.engines = {"dmodk"};
  options.simulate = false;
  const Fabric fabric = loadFabric(options.spec);
  RoutingContext context;
  RoutingResult looping = runEngine("dmodk", fabric.network, context);
  // kt-s0-00 sends kt-h4's traffic up port 3 to kt-s1-00, which sends it back down port 1 to
  // kt-s0-00 (a forwarding loop for kt-h0 and kt-h1).
  const auto sw = [&](const char* name) { return fabric.network.switchIndex(fabric.network.findNode(name).value()); };
  const Address a = looping.addresses.base(fabric.network.findNode("kt-h4").value());
  RoutingResult unrouted = looping;
  looping.tables[0].set(sw("kt-s0-00"), a, 3);
  looping.tables[0].set(sw("kt-s1-00"), a, 1);
  // And one that is loop-free but leaves kt-h4 unreachable from kt-s0-00.
  unrouted.tables[0].set(sw("kt-s0-00"), a, kNoRoute);
  options.routings = {{"looping", std::make_shared<RoutingResult>(std::move(looping))},
                      {"unrouted", std::make_shared<RoutingResult>(std::move(unrouted))}};
  const Comparison c = compareEngines(options);
  ASSERT_EQ(c.engines.size(), 3U);
  EXPECT_EQ(c.engines[0].name, "dmodk");
  for (const EngineComparison& e : std::span(c.engines).subspan(1)) {
    EXPECT_FALSE(e.passed()) << e.name;
    EXPECT_TRUE(e.models.empty()) << e.name;
    EXPECT_NE(std::find(e.notes.begin(), e.notes.end(),
                        "not analysed: the routing does not deliver every pair (see routelab verify)"),
              e.notes.end())
        << e.name;
    EXPECT_EQ(e.loopFree, e.name == "unrouted");
    EXPECT_FALSE(e.connected) << e.name;
  }
  EXPECT_EQ(c.verdict.recommended, "dmodk");
}

}  // namespace
}  // namespace routelab
