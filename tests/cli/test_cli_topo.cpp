// End-to-end tests of `routelab topo` and `routelab list` on generated fabrics.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

using routelab::test::runRoutelab;

TEST(CliTopo, SixteenAryFourTreeJson) {
  const auto r = runRoutelab("topo kary-ntree:k=16,n=4 --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["terminals"], 65536);
  // Gómez §2: n k^(n-1) switches = 4 x 4096; 4096 per stage.
  EXPECT_EQ(j["switches"], 16384);
  EXPECT_EQ(j["switches_per_level"], nlohmann::json({4096, 4096, 4096, 4096}));
  EXPECT_EQ(j["links"], 65536 + 3 * 65536);
  EXPECT_EQ(j["levels"], 4);
  EXPECT_EQ(j["bisection_width"], 32768);
  EXPECT_EQ(j["diameter"], 8);
  EXPECT_EQ(j["spec"], "kary-ntree:k=16,n=4");
}

TEST(CliTopo, TextSummaryOfGft2) {
  const auto r = runRoutelab("topo gft2:n=8,m=4,r=6");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("terminals   48"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("switches    10"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bisection   12 links"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("XGFT(2; 8,6; 1,4)"), std::string::npos) << r.out;
}

TEST(CliTopo, BadSpecsFailWithPreciseMessages) {
  auto r = runRoutelab("topo kary-ntree:k=4");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("kary-ntree: missing required option 'n'"), std::string::npos) << r.err;
  r = runRoutelab("topo fat-tree:k=4");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown topology 'fat-tree' (known: kary-ntree, gft2"), std::string::npos) << r.err;
  r = runRoutelab("topo 'kary-ntree:k=4,n=3,z=1'");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown option 'z'"), std::string::npos) << r.err;
  r = runRoutelab("topo kary-ntree:k=4,n=3 --format yaml");
  EXPECT_EQ(r.exitCode, 2);  // usage error from the argument parser
  r = runRoutelab("topo kary-ntree:k=4,n=3 --export pdf /tmp/routelab-never-written.pdf");
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("unknown format 'pdf'"), std::string::npos) << r.err;
}

TEST(CliList, ListsEveryRegistry) {
  const auto r = runRoutelab("list --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::vector<std::string> names;
  for (const auto& row : j["topologies"]) names.push_back(row["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"kary-ntree", "gft2", "ft", "xgft", "random"}));
  EXPECT_TRUE(j.contains("engines"));
  EXPECT_TRUE(j.contains("modifiers"));
  const auto text = runRoutelab("list");
  EXPECT_NE(text.out.find("Gómez et al. 2007 §2"), std::string::npos);
}

TEST(CliHelp, EveryCommandHasHelp) {
  for (const char* command : {"--help", "topo --help", "list --help"}) {
    const auto r = runRoutelab(command);
    EXPECT_EQ(r.exitCode, 0) << command;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << command;
  }
}

TEST(CliTopo, ModifiersEchoAnEffectiveSpecThatParsesBack) {
  // `+fail-links=3,seed=5` is echoed as written (Options::effectiveModifier), defaults filled
  // in, and the echoed spec loads the same fabric with the same echo.
  const auto r = runRoutelab("topo random:switches=16+fail-links=3,seed=5+fail-switches=1 --format json");
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::string echoed = j["spec"];
  EXPECT_EQ(echoed, "random:switches=16,terminals=1,radix=16,seed=1+fail-links=3,seed=5+fail-switches=1,seed=1");
  EXPECT_EQ(j["modifiers"][0]["modifier"], "fail-links=3,seed=5");
  const auto again = runRoutelab("topo '" + echoed + "' --format json");
  ASSERT_EQ(again.exitCode, 0) << again.err;
  const auto k = nlohmann::json::parse(again.out);
  EXPECT_EQ(k["spec"], echoed);
  EXPECT_EQ(k["links"], j["links"]);
  EXPECT_EQ(k["switches"], j["switches"]);
  EXPECT_EQ(k["modifiers"], j["modifiers"]);
}
