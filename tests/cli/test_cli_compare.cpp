// End-to-end tests of `routelab compare` (docs/COMPARE.md): the table, the HTML report, bad
// input, and the report rendered by headless Chromium.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_text.h"
#include "test_support.h"

using routelab::test::runCommand;
using routelab::test::runRoutelab;

namespace {

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class CliCompare : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("routelab-compare-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" +
            std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  /// The line of `text` that contains `needle` ("" if none).
  static std::string lineWith(const std::string& text, const std::string& needle) {
    const std::size_t at = text.find(needle);
    if (at == std::string::npos) return "";
    const std::size_t begin = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
    return text.substr(begin, text.find('\n', at) - begin);
  }
  /// A refused engine's row lines up with the table: its name in the engine column, its
  /// reason from the kind column on.
  static void expectRefusedRowAligned(const std::string& out, const std::string& engine, const std::string& reason) {
    const std::string header = lineWith(out, "rank  engine");
    const std::string row = lineWith(out, "refused: " + reason);
    ASSERT_FALSE(header.empty()) << out;
    ASSERT_FALSE(row.empty()) << out;
    EXPECT_EQ(row.find(engine + " "), header.find("engine")) << row;
    EXPECT_EQ(row.find("refused: "), header.find("kind")) << header << "\n" << row;
  }
  std::string report() const { return (dir_ / "index.html").string(); }
  std::filesystem::path dir_;
};

TEST_F(CliCompare, DefaultFabricTableAndReport) {
  // No SPEC: the built-in 4-ary 3-tree, every engine; a few engines keep the test quick.
  const auto r =
      runRoutelab("compare --engine dmodk --engine opt --engine updown --seed 5 --output '" + dir_.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("fabric      kary-ntree:k=4,n=3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("seed        5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank  engine"), std::string::npos) << r.out;
  expectRefusedRowAligned(r.out, "opt", "opt needs a 2-level fat-tree");
  EXPECT_NE(r.out.find("Use dmodk: deadlock-free with 1 layer"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("compare: dmodk: route"), std::string::npos) << r.err;  // progress on stderr
  const std::string page = slurp(report());
  EXPECT_NE(page.find("<table id=\"ranking-table\" data-engines=\"3\">"), std::string::npos);
  EXPECT_NE(page.find("--seed 5"), std::string::npos);  // the exact command line
  EXPECT_EQ(page.find(" src="), std::string::npos);
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {  // no temporary left behind
    EXPECT_TRUE(entry.path().filename() == "index.html" || entry.path().filename() == "compare.json") << entry.path();
  }
}

// The constraints reach the decision: with adaptive switches allowed the adaptive engine is
// recommended; with one VL a two-layer routing is not deployable; --format json carries it all.
TEST_F(CliCompare, ConstraintsDecideAndJsonCarriesTheDecision) {
  const std::string engines = " --engine dmodk --engine ftree-adaptive --engine mroots:layers=2 --quiet ";
  auto r = runRoutelab("compare kary-ntree:k=2,n=3" + engines + "--format json --output '" + dir_.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  auto json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["verdict"]["recommended"], "dmodk");
  EXPECT_EQ(json["configuration"]["vls"], 8);
  EXPECT_EQ(json, nlohmann::json::parse(slurp(dir_ / "compare.json")));
  bool adaptiveRefused = false;
  for (const auto& e : json["engines"]) {
    if (e["name"] == "ftree-adaptive") {
      adaptiveRefused = !e["deployable"].get<bool>();
      EXPECT_EQ(e["not_deployable"][0], "needs adaptive switches (up to 2 outputs per destination)");
      EXPECT_TRUE(e.contains("simulation"));  // simulated for contrast
    }
  }
  EXPECT_TRUE(adaptiveRefused);
  r = runRoutelab("compare kary-ntree:k=2,n=3" + engines + "--adaptive-switches --format json --output '" +
                  dir_.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  json = nlohmann::json::parse(r.out);
  EXPECT_EQ(json["verdict"]["recommended"], "ftree-adaptive");
  EXPECT_EQ(json["configuration"]["adaptive_switches"], true);
  r = runRoutelab("compare kary-ntree:k=2,n=3" + engines + "--vls 1 --no-simulate --format json --output '" +
                  dir_.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  json = nlohmann::json::parse(r.out);
  for (const auto& e : json["engines"]) {
    EXPECT_FALSE(e.contains("simulation")) << e["name"];
    if (e["name"] == "mroots:layers=2") {
      EXPECT_EQ(e["not_deployable"][0], "needs 2 VLs, 1 available");
    }
  }
  r = runRoutelab("compare kary-ntree:k=2,n=3 --engine dmodk --in-order --quiet --output '" + dir_.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("in-order delivery required"), std::string::npos) << r.out;
}

TEST_F(CliCompare, ImpossibleConstraintsAndMissingGnuplotWriteNothing) {
  for (const char* vls : {"0", "16"}) {
    const auto r =
        runRoutelab(std::string("compare --engine dmodk --vls ") + vls + " --output '" + dir_.string() + "'");
    EXPECT_EQ(r.exitCode, 2) << vls;  // the request's row: a usage error
    EXPECT_NE(r.err.find(std::string("compare: vls must lie in [1, 15] (got ") + vls + ")"), std::string::npos)
        << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir_)) << vls;
  }
  const auto r = runCommand("PATH=/nonexistent '" + routelab::test::routelabBinary() +
                            "' compare kary-ntree:k=2,n=3 --engine dmodk --quiet --output '" + dir_.string() + "'");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("install the Debian package gnuplot-nox"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_));
}

TEST_F(CliCompare, BadInputIsAnErrorAndWritesNothing) {
  auto r = runRoutelab("compare --engine no-such-engine --output '" + dir_.string() + "'");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown routing engine 'no-such-engine'"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(report()));
  r = runRoutelab("compare kary-ntree:k=2 --output '" + (dir_ / "new" / "report").string() + "'");
  EXPECT_EQ(r.exitCode, 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "new"));  // the folders it created are gone again
  std::filesystem::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  r = runRoutelab("compare --engine dmodk --output '" + (dir_ / "file").string() + "'");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--output"), std::string::npos) << r.err;
  r = runRoutelab("compare --opensm-dir '" + (dir_ / "missing").string() + "' --output '" + dir_.string() + "'");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("--opensm-dir"), std::string::npos) << r.err;
  r = runRoutelab("compare --max-samples 1");
  EXPECT_EQ(r.exitCode, 2);
  // A list written with commas is named as one, with the separator to use.
  r = runRoutelab("compare kary-ntree:k=2,n=2 --engines 'dmodk,minhop' --output '" + dir_.string() + "'");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("engine spec 'dmodk,minhop' names several engines: specs are separated by ';'"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(report()));
}

// OpenSM's routings of the k4n3 fixture fabric, laid out as --opensm-dir expects, ranked
// beside routelab's; the refused one is named with OpenSM's text.
TEST_F(CliCompare, OpenSmDirectoryRankedBesideOurs) {
  const std::filesystem::path k4n3 = std::filesystem::path(routelab::test::fixturesDir()) / "k4n3";
  const std::filesystem::path opensm = dir_ / "opensm";
  std::filesystem::create_directories(opensm);
  std::filesystem::copy_file(k4n3 / "lfts.lash.dump.gz", opensm / "lash.lfts");
  std::filesystem::copy_file(k4n3 / "pathsl.lash.txt", opensm / "lash.sl");
  std::filesystem::copy_file(k4n3 / "lfts.minhop.dump.gz", opensm / "minhop.lfts");
  std::ofstream(opensm / "dor.error") << "dor: not a mesh\n";
  const auto r = runRoutelab("compare 'file:" + (k4n3 / "ibnetdiscover.txt").string() +
                             "' --engine updown --quiet --opensm-dir '" + opensm.string() + "' --output '" +
                             (dir_ / "report").string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("opensm:lash "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("opensm:minhop "), std::string::npos) << r.out;
  expectRefusedRowAligned(r.out, "opensm:dor", "dor: not a mesh");
  const std::string page = slurp(dir_ / "report" / "index.html");
  EXPECT_NE(page.find(">opensm:lash<"), std::string::npos);
  EXPECT_NE(page.find("data-engines=\"4\""), std::string::npos);
}

std::string chromium() {
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    const auto r = runCommand(std::string("command -v ") + name);
    if (r.exitCode == 0 && !r.out.empty()) return r.out.substr(0, r.out.find('\n'));
  }
  return {};
}

// The report renders in a real browser: its inline check script ran without error and found
// the table and every figure (data-report-check="ok" in the DOM), no console error, and a
// screenshot of the page is written.
TEST_F(CliCompare, ReportRendersInHeadlessChromium) {
  const std::string browser = chromium();
  if (browser.empty()) GTEST_SKIP() << "chromium is not installed (scripts/apt-packages.txt)";
  const auto r = runRoutelab("compare kary-ntree:k=2,n=3 --quiet --output '" + dir_.string() + "'");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars "
      "--user-data-dir='" +
      (dir_ / "profile").string() + "' ";
  const std::string url = "'file://" + report() + "'";
  const auto dom =
      runCommand("timeout 120 '" + browser + "'" + flags + "--enable-logging=stderr --v=0 --dump-dom " + url);
  ASSERT_EQ(dom.exitCode, 0) << dom.err;
  EXPECT_NE(dom.out.find("data-report-check=\"ok\""), std::string::npos) << dom.out.substr(0, 400);
  const std::size_t figures = dom.out.find("data-figures=\"");
  ASSERT_NE(figures, std::string::npos);
  // The metrics, latency and throughput figures (gnuplot), a heat map per engine.
  EXPECT_GE(std::stoi(dom.out.substr(figures + 14)), 3 + 1);
  EXPECT_EQ(dom.err.find("Uncaught"), std::string::npos) << dom.err;
  EXPECT_EQ(dom.err.find(":CONSOLE("), std::string::npos) << dom.err;  // nothing logged by the page
  const std::string png = (dir_ / "report.png").string();
  const auto shot =
      runCommand("timeout 120 '" + browser + "'" + flags + "--window-size=1200,1600 --screenshot='" + png + "' " + url);
  ASSERT_EQ(shot.exitCode, 0) << shot.err;
  const std::string image = slurp(png);
  ASSERT_GT(image.size(), 20000u);  // a blank page compresses to a few KB
  EXPECT_EQ(image.substr(1, 3), "PNG");
}

}  // namespace

// The configuration printed before the table is compare.json's "configuration", line by line:
// rebuilt here from the JSON for runs with every option away from its default, simulation off,
// on and forced (--simulate), so a header line that prints another option fails.
TEST_F(CliCompare, TextHeaderIsTheConfigurationOfCompareJson) {
  const std::vector<std::string> runs = {
      "--engines 'dmodk;updown' --no-simulate --precision 0.05 --max-samples 5000 --vls 4 --in-order",
      "--engines 'dmodk;updown;ftree-adaptive' --simulate-leaders 2 --simulate-cycles 500 --simulate-steps 2 "
      "--adaptive-switches --max-shifts 8 --detail-terminals 64 --max-addresses-per-terminal 4 "
      "--generic-engine-switches 100 --seed 5",
      "--engines 'dmodk' --simulate --simulate-terminals 4 --simulate-leaders 1 --simulate-cycles 300 "
      "--simulate-steps 1"};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    SCOPED_TRACE(runs[i]);
    const std::filesystem::path output = dir_ / ("run" + std::to_string(i));
    const auto r = runRoutelab("compare kary-ntree:k=2,n=3 " + runs[i] + " --quiet --output " + output.string());
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const auto c = nlohmann::json::parse(slurp(output / "compare.json"))["configuration"];
    const auto& u = routelab::test::unsignedText;
    std::string engines;
    for (const auto& e : c["engines"]) engines += (engines.empty() ? "" : " ") + e.get<std::string>();
    std::vector<std::string> expected = {
        "fabric      " + c["fabric"].get<std::string>(),
        "engines     " + engines,
        "seed        " + u(c["seed"]),
        "sampling    ABB/AFPB/ADB until the 99% half-width <= " + routelab::test::shortestNumber(c["precision"]) +
            " x mean, at most " + u(c["max_samples"]) + " samples",
        "all-to-all  at most " + u(c["max_shifts"]) + " shifts (stage counts over the same pairs)",
        "detail      AFPB, ADB and split load models up to " + u(c["detail_terminals"]) +
            " terminals; beyond, analysis up to " + u(c["max_addresses_per_terminal"]) +
            " addresses per terminal; generic engines on fat-trees up to " + u(c["generic_engine_switches"]) +
            " switches"};
    if (!c["opensm_dir"].get<std::string>().empty())
      expected.push_back("opensm      " + c["opensm_dir"].get<std::string>());
    expected.push_back(
        "fabric has  " + u(c["vls"]) + " VLs, " +
        (c["adaptive_switches"].get<bool>() ? "adaptive switches" : "LFT switches (one output per destination)") +
        (c["in_order"].get<bool>() ? ", in-order delivery required" : ""));
    expected.push_back("simulation  " +
                       (!c["simulate"].get<bool>()
                            ? std::string("off (--no-simulate)")
                            : "the " + u(c["simulate_leaders"]) +
                                  " leading deployable routings and each relaxed constraint's best, on fabrics up to " +
                                  u(c["simulate_terminals"]) + " terminals" +
                                  (c["simulate_always"].get<bool>() ? " (--simulate: any size)" : "") + ": " +
                                  u(c["simulate_cycles"]) + " cycles per point, saturation search with " +
                                  u(c["simulate_steps"]) + " halvings"));
    expected.push_back("report      " + (output / "index.html").string());
    std::vector<std::string> lines;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line) && !line.empty();) lines.push_back(line);
    EXPECT_EQ(lines, expected) << r.out;
  }
}
