// End-to-end tests of `routelab verify` (docs/VERIFY.md): output, witness, exit codes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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
