// End-to-end tests of `routelab verify` (docs/VERIFY.md): output, witness, exit codes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_text.h"
#include "test_support.h"

using routelab::test::fixturesDir;
using routelab::test::runRoutelab;

namespace {
const std::string kRnd16 = "random:switches=16,links=32,terminals=1,radix=16,seed=1";
}

TEST(CliVerify, MinhopOnTheRandomFixtureIsDeadlockProneWithAWitness) {
  const auto r =
      runRoutelab("verify " + kRnd16 + " --engine file:" + fixturesDir() + "/rnd16_s1/lfts.minhop.dump --format json");
  ASSERT_EQ(r.exitCode, 4) << r.err << r.out;  // connected but deadlock-prone
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["connected"], true);
  EXPECT_EQ(j["loop_free"], true);
  EXPECT_EQ(j["deadlock_free"], false);
  EXPECT_EQ(j["layers"], 1);
  EXPECT_EQ(j["spec"], kRnd16);
  EXPECT_NE(j["engine"].get<std::string>().find("lfts.minhop.dump"), std::string::npos);
  ASSERT_TRUE(j["cycle"].is_array());
  EXPECT_GE(j["cycle"].size(), 2u);
  for (const auto& channel : j["cycle"]) {
    EXPECT_NE(channel.get<std::string>().find("] -> rnd-sw"), std::string::npos) << channel;
  }
  EXPECT_EQ(j["counts"]["routes"], 240);
}

TEST(CliVerify, LashWithItsSlsPasses) {
  const std::string dir = fixturesDir() + "/rnd16_s1";
  const auto one = runRoutelab("verify " + kRnd16 + " --engine file:" + dir + "/lfts.lash.dump --format json");
  EXPECT_EQ(one.exitCode, 4) << one.err;
  const auto r = runRoutelab("verify " + kRnd16 + " --engine file:" + dir + "/lfts.lash.dump --sl " + dir +
                             "/pathsl.lash.txt --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["deadlock_free"], true);
  EXPECT_EQ(j["layers"], 2);
  EXPECT_TRUE(j["cycle"].is_null());
  EXPECT_EQ(j["sl_file"], dir + "/pathsl.lash.txt");
}

TEST(CliVerify, TextOutputNamesTheCycleAndTheVerdict) {
  const auto r = runRoutelab("verify random:switches=16,seed=1 --engine minhop");
  EXPECT_EQ(r.exitCode, 4);
  EXPECT_NE(r.out.find("deadlock-free NO"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cycle         layer 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verdict       FAIL: deadlock-prone (exit 4)"), std::string::npos) << r.out;
  const auto ok = runRoutelab("verify random:switches=16,seed=1 --engine updown");
  EXPECT_EQ(ok.exitCode, 0);
  EXPECT_NE(ok.out.find("verdict       PASS (exit 0)"), std::string::npos) << ok.out;
}

TEST(CliVerify, UnroutedRootPairsAreReportedApart) {
  const std::string dir = fixturesDir() + "/k4n2";
  const auto r =
      runRoutelab("verify kary-ntree:k=4,n=2 --engine file:" + dir + "/lfts.updn.dump --switch-traffic --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["switch_traffic"], true);
  EXPECT_EQ(j["connected"], true);
  EXPECT_EQ(j["counts"]["unrouted_switch_pairs"], 12);  // 4 roots, 4 x 3 ordered pairs
  EXPECT_FALSE(j["unrouted_switch_pair_examples"].empty());
}

TEST(CliVerify, DfssspVlTableWithSwitchTrafficIsCyclic) {
  const std::string dir = fixturesDir() + "/k4n2";
  const auto r = runRoutelab("verify kary-ntree:k=4,n=2 --engine file:" + dir + "/lfts.dfsssp.dump --sl " + dir +
                             "/dfsssp-vl-table.txt --switch-traffic --format json");
  EXPECT_EQ(r.exitCode, 4) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["deadlock_free"], false);
  EXPECT_TRUE(j["cycle"].is_array());
}

TEST(CliVerify, BadInputExitsOneWithAPreciseMessage) {
  const auto missing = runRoutelab("verify random:switches=16,seed=1 --engine minhop --sl /nonexistent/sl.txt");
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("/nonexistent/sl.txt"), std::string::npos) << missing.err;
  const auto engine = runRoutelab("verify random:switches=16,seed=1 --engine nosuchengine");
  EXPECT_EQ(engine.exitCode, 1);
  EXPECT_NE(engine.err.find("nosuchengine"), std::string::npos) << engine.err;
  // An SL file for another fabric: its LIDs do not exist here.
  const auto wrong =
      runRoutelab("verify kary-ntree:k=2,n=2 --engine minhop --sl " + fixturesDir() + "/k4n3/pathsl.lash.txt");
  EXPECT_EQ(wrong.exitCode, 1);
  EXPECT_NE(wrong.err.find("pathsl.lash.txt:"), std::string::npos) << wrong.err;
  const auto usage = runRoutelab("verify random:switches=16,seed=1");
  EXPECT_EQ(usage.exitCode, 2);  // --engine is required
}

TEST(CliVerify, LashFamilyUpDownFallbackLayerIsDeliveredAndDeadlockFree) {
  // Lysne §8.4 for lash, mp-lash and a-lash: a random fabric that needs at least 3 layers
  // (64 switches, 128 links: LASH needs 3-4, MP-LASH 4-6, A-LASH 5-7; docs/LAYERED.md),
  // routed with max-layers=2: one first-fit layer plus the UpDown layer. `route` delivers
  // every pair and `verify` passes (exit 0).
  const std::string spec = "random:switches=64,links=128,terminals=1,seed=1";
  for (const std::string engine : {"lash", "lash:addressing=pair", "mp-lash", "a-lash"}) {
    const std::string limited = engine + (engine.find(':') == std::string::npos ? ":" : ",") + "max-layers=2";
    SCOPED_TRACE(limited);
    const auto route = runRoutelab("route " + spec + " --engine " + limited + " --format json");
    ASSERT_EQ(route.exitCode, 0) << route.err << route.out;
    const auto r = nlohmann::json::parse(route.out);
    EXPECT_EQ(r["stats"]["layers_needed"], ">2");  // first-fit needs more than the budget
    EXPECT_EQ(r["tables"]["layers"], 2);
    EXPECT_EQ(r["stats"]["updown_layer"], 1);  // numeric statistics are JSON numbers
    EXPECT_EQ(r["checks"]["terminal_pairs_delivered"], r["checks"]["terminal_pairs"]);
    EXPECT_EQ(r["checks"]["passed"], true);
    const auto verify = runRoutelab("verify " + spec + " --engine " + limited + " --format json");
    ASSERT_EQ(verify.exitCode, 0) << verify.err << verify.out;
    const auto v = nlohmann::json::parse(verify.out);
    EXPECT_EQ(v["deadlock_free"], true);
    EXPECT_EQ(v["connected"], true);
    EXPECT_EQ(v["layers"], 2);
  }
}

// The text report is the JSON report of the same run, line by line: it is rebuilt here from the
// JSON, on a deadlock-prone routing (cycle), a passing one with SLs, one with unrouted switch
// pairs, one that is not connected (failures) and one with more destinations than sources (LMC), so a line printing
// another field fails.
TEST(CliVerify, TextReportIsTheJsonsFiguresLineByLine) {
  const std::string k4n2 = fixturesDir() + "/k4n2", rnd = fixturesDir() + "/rnd16_s1";
  const std::vector<std::string> commands = {
      "verify " + kRnd16 + " --engine file:" + rnd + "/lfts.minhop.dump",
      "verify " + kRnd16 + " --engine file:" + rnd + "/lfts.lash.dump --sl " + rnd + "/pathsl.lash.txt",
      "verify kary-ntree:k=4,n=2 --engine file:" + k4n2 + "/lfts.updn.dump --switch-traffic",
      "verify kary-ntree:k=4,n=2+remove-links=kt-s1-0[1] --engine file:" + k4n2 + "/lfts.minhop.dump",
      "verify random:switches=16,seed=1 --engine updown",
      "verify kary-ntree:k=2,n=3 --engine ftree-deterministic --lmc 1"};  // 8 sources, 16 destinations
  std::set<int> codes;
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const auto text = runRoutelab(command);
    const auto json = runRoutelab(command + " --format json");
    ASSERT_EQ(text.exitCode, json.exitCode) << text.err << json.err;
    const auto j = nlohmann::json::parse(json.out);
    ASSERT_EQ(j["exit_code"].get<int>(), json.exitCode);
    codes.insert(json.exitCode);
    const auto& n = j["counts"];
    const auto& u = routelab::test::unsignedText;
    const auto yes = [](const nlohmann::json& v) { return std::string(v.get<bool>() ? "yes" : "NO"); };
    const auto failure = [&](const nlohmann::json& f) {
      const auto lid = [&](const nlohmann::json& l) {
        return l.get<int>() == 0 ? std::string("no LID") : "LID " + u(l);
      };
      return f["source"].get<std::string>() + " (" + lid(f["source_lid"]) + ") -> " +
             f["destination"].get<std::string>() + " (" + lid(f["destination_lid"]) + ") layer " + u(f["layer"]) +
             ": " + f["status"].get<std::string>() +
             (f["stopped_at"].get<std::string>().empty() ? "" : " at " + f["stopped_at"].get<std::string>());
    };
    std::vector<std::string> expected = {
        "fabric        " + j["spec"].get<std::string>(),
        "engine        " + j["engine"].get<std::string>() +
            (j["sl_file"].is_null() ? "" : " (layers from SL file " + j["sl_file"].get<std::string>() + ")"),
        "traffic       " + std::string(j["switch_traffic"].get<bool>() ? "terminals and switches" : "terminals") +
            " (" + u(n["sources"]) + " sources, " + u(n["destinations"]) + " destinations, " + u(n["routes"]) +
            " routes checked)",
        "connected     " + yes(j["connected"]) +
            (j["connected"].get<bool>()
                 ? ""
                 : " (" + u(n["no_route"]) + " no route, " + u(n["dead_ports"]) + " dead port, " + u(n["loops"]) +
                       " loop" +
                       (n["no_address"].get<int>() ? ", " + u(n["no_address"]) + " pairs without an address" : "") +
                       (n["escape_failures"].get<int>() ? ", " + u(n["escape_failures"]) + " escape failures" : "") +
                       ")"),
        "loop-free     " + yes(j["loop_free"]),
        "deadlock-free " + yes(j["deadlock_free"]),
        "method        " + j["method"].get<std::string>()};
    std::string dependencies;
    for (const auto& d : j["dependencies"]) dependencies += (dependencies.empty() ? "" : ", ") + u(d);
    const int highest = j["highest_layer"].get<int>();
    expected.push_back("layers        " + u(j["layers_used"]) + " used" +
                       (highest >= 0 ? " (highest " + std::to_string(highest) + ")" : "") + ", " + u(j["layers"]) +
                       " in the routing (dependencies per layer: " + dependencies + ")");
    if (!j["cyclic_layers"].empty()) {
      std::string layers;
      for (const auto& l : j["cyclic_layers"]) layers += (layers.empty() ? "" : ", ") + u(l);
      expected.push_back("cyclic layers " + layers);
      expected.push_back("cycle         layer " + u(j["cycle_layer"]) + ", " + std::to_string(j["cycle"].size()) +
                         " channels:");
      for (const auto& c : j["cycle"]) expected.push_back("                " + c.get<std::string>());
      expected.push_back("                (back to " + j["cycle"][0].get<std::string>() + ")");
    }
    for (const auto& f : j["failures"]) expected.push_back("failure       " + failure(f));
    for (const auto& f : j["escape_failure_examples"]) expected.push_back("escape fails  " + failure(f));
    if (n["unrouted_switch_pairs"].get<int>() != 0) {
      expected.push_back("unrouted      " + u(n["unrouted_switch_pairs"]) +
                         " switch-to-switch pairs without a route (reported apart, not a failure)");
      for (const auto& f : j["unrouted_switch_pair_examples"]) expected.push_back("  e.g.        " + failure(f));
    }
    const int code = json.exitCode;
    expected.push_back(std::string("verdict       ") +
                       (code == 0   ? "PASS"
                        : code == 4 ? "FAIL: deadlock-prone"
                                    : "FAIL: not connected or loops") +
                       " (exit " + std::to_string(code) + ")");
    EXPECT_EQ(routelab::test::linesOf(text.out), expected) << text.out;
  }
  EXPECT_EQ(codes, (std::set<int>{0, 4, 5}));
}
