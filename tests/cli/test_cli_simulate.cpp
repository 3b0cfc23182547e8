// `routelab simulate` through the CLI: what its text prints is what its JSON carries, and the
// saturation search's answer lies on the grid docs/SIMULATION.md states (0.01 + k x 0.99 / 2^7).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.h"

using routelab::test::runRoutelab;

namespace {

std::string fourDecimals(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", value);
  return text;
}

TEST(CliSimulate, SaturationPrintsTheLoadFoundAndTheThroughputThereAsItsJsonDoes) {
  // An irregular fabric routed by LASH that saturates inside (0.01, 1).
  const std::string arguments =
      "simulate random:switches=16,seed=1 --engine lash --warmup 1000 --cycles 4000 --packet-flits 4 --seed 5 "
      "--saturation";
  const auto json = runRoutelab(arguments + " --format json");
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  const double load = j.at("saturation_load").get<double>();
  const double accepted = j.at("saturation_throughput").get<double>();
  const double grid = (load - 0.01) / (0.99 / 128);
  EXPECT_NEAR(grid, std::round(grid), 1e-9) << load;
  EXPECT_GT(load, 0.01);
  EXPECT_LT(load, 1.0);
  // The rest of the result is the run at that load: unsaturated, its accepted traffic.
  EXPECT_FALSE(j.at("saturated").get<bool>());
  EXPECT_EQ(j.at("accepted").get<double>(), accepted);
  EXPECT_FALSE(j.contains("load"));

  const auto text = runRoutelab(arguments);
  ASSERT_EQ(text.exitCode, 0) << text.err;
  const std::string line = "saturation  " + fourDecimals(accepted) + " flits/terminal/cycle accepted at offered load " +
                           fourDecimals(load) + "\n";
  EXPECT_NE(text.out.find(line), std::string::npos) << text.out;
}

}  // namespace
