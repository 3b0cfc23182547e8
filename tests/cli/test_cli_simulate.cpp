// `routelab simulate` through the CLI: what its text prints is what its JSON carries, and the
// saturation search's answer lies on the grid docs/SIMULATION.md states (0.01 + k x 0.99 / 2^7).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_text.h"
#include "net_file.h"
#include "test_support.h"

using routelab::test::runRoutelab;

namespace {

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
  const std::string line = "saturation  " + routelab::test::fixedDecimals(accepted, 4) +
                           " flits/terminal/cycle accepted at offered load " + routelab::test::fixedDecimals(load, 4) +
                           "\n";
  EXPECT_NE(text.out.find(line), std::string::npos) << text.out;
}

}  // namespace

// The text report is the JSON of the same run, line by line: the header echoes the effective
// configuration and each table row holds one point's figures in the documented columns. Rebuilt
// here from the JSON on a curve with a saturated point, a deadlock (its waiting cycle listed),
// every non-default model choice at once, and a trace run (its completion line).
TEST(CliSimulate, TextReportIsTheJsonsFiguresLineByLine) {
  const std::string deadlock =
      "simulate random:switches=16,seed=1 --engine minhop --load 1 --warmup 100 --cycles 100000 --watchdog 2000 "
      "--routing-delay 2 --buffer-packets 1 --fly-time 1";
  const std::vector<std::string> commands = {
      "simulate kary-ntree:k=2,n=3 --engine ftree-deterministic --loads 0.2,0.9 --cycles 2000", deadlock,
      "simulate kary-ntree:k=2,n=3 --engine ftree-adaptive --in-order --reorder-buffer 32 --vcs 2 --selection ff "
      "--arbitration age --paths round-robin --lmc 1 --injection poisson --packet-flits 4 --buffer-packets 3 "
      "--routing-delay 5 --fly-time 2 --traffic bit-reversal --load 0.5 --cycles 2000 --seed 3",
      "simulate kary-ntree:k=2,n=3 --engine ftree-deterministic --trace-generate "
      "io:storage=2,clients=6,requests=20,gap=2000 --compression 2.5 --payload 512"};
  bool sawDeadlock = false, sawSaturated = false;
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const auto text = runRoutelab(command);
    const auto json = runRoutelab(command + " --format json");
    ASSERT_EQ(text.exitCode, command == deadlock ? 4 : 0) << text.err;  // 4: a deadlock (docs/SIMULATION.md)
    ASSERT_EQ(json.exitCode, text.exitCode) << json.err;
    const auto j = nlohmann::json::parse(json.out);
    const auto& u = routelab::test::unsignedText;
    EXPECT_EQ(j["lmc"], command.find("--lmc 1") == std::string::npos ? 0 : 1);
    std::vector<std::string> expected = {
        "fabric      " + j["fabric"].get<std::string>() + " (" + u(j["terminals"]) + " terminals)",
        "engine      " + j["engine"].get<std::string>() +
            (j["lmc"].get<int>() > 0 ? " (lmc " + u(j["lmc"]) + ")" : "") + ", " + u(j["vcs"]) + " VCs, selection " +
            j["selection"].get<std::string>() + ", arbitration " + j["arbitration"].get<std::string>() + ", paths " +
            j["paths"].get<std::string>(),
        "model       " + u(j["packet_flits"]) + " flits/packet, " + u(j["buffer_packets"]) +
            " packets/VC queue, routing " + u(j["routing_delay"]) + " cycles, fly " + u(j["fly_time"]) + " cycles" +
            (j["in_order"].get<bool>() ? ", in order (reorder " + u(j["reorder_buffer"]) + " packets)" : "")};
    if (j.contains("trace")) {
      expected.push_back("traffic     trace " + j["trace"].get<std::string>() + ", compression " +
                         j["compression"].dump() + ", payload " + u(j["payload"]) + " bytes, seed " + u(j["seed"]));
    } else {
      expected.push_back("traffic     " + j["traffic"].get<std::string>() + ", " + j["injection"].get<std::string>() +
                         " injection, seed " + u(j["seed"]));
    }
    expected.push_back(
        " offered  accepted   lat avg   lat p99 total avg  oo-order     hops     cycles  src min  src max "
        "  jain  ");
    const nlohmann::json points = j.contains("points") ? j["points"] : nlohmann::json::array({j});
    for (const auto& p : points) {
      const bool deadlocked = p["deadlock"].get<bool>(), saturated = p["saturated"].get<bool>();
      char row[256];
      std::snprintf(row, sizeof row, "%8.4f %9.4f %9.1f %9.1f %9.1f %9llu %8.2f %10llu %8.4f %8.4f %6.4f  %s",
                    p["offered"].get<double>(), p["accepted"].get<double>(), p["latency_avg"].get<double>(),
                    p["latency_p99"].get<double>(), p["total_latency_avg"].get<double>(),
                    p["out_of_order"].get<unsigned long long>(), p["average_hops"].get<double>(),
                    p["simulated_cycles"].get<unsigned long long>(), p["source_accepted_min"].get<double>(),
                    p["source_accepted_max"].get<double>(), p["source_fairness"].get<double>(),
                    deadlocked  ? "DEADLOCK"
                    : saturated ? (p["warmup_settled"].get<bool>() ? "saturated" : "saturated (unstable)")
                                : "");
      expected.push_back(row);
      sawDeadlock = sawDeadlock || deadlocked;
      sawSaturated = sawSaturated || (saturated && !deadlocked);
      if (deadlocked) {
        expected.push_back("deadlock at cycle " + u(p["deadlock_cycle"]) + " (nothing moved since " +
                           u(p["deadlock_last_move"]) + "); waiting cycle of queues:");
        for (const auto& channel : p["deadlock_channels"]) expected.push_back("  " + channel.get<std::string>());
      }
    }
    if (j.contains("trace")) expected.push_back("trace       delivered completely at cycle " + u(j["last_delivery"]));
    EXPECT_EQ(routelab::test::linesOf(text.out), expected) << text.out;
  }
  EXPECT_TRUE(sawDeadlock);
  EXPECT_TRUE(sawSaturated);
}

// The --export-* files read back (docs/SIMULATION.md "Output"): the utilization CSV has one row
// per channel of the fabric, named as its net export names the cable's ends, source_accepted on
// exactly the injection channels, and those values give the run's source_accepted_min/max, its
// Jain index and (every terminal a source) its mean accepted traffic; an exported trace, run as
// --trace, is the generated run packet for packet.
TEST(CliSimulate, ExportedUtilizationAndTraceAreTheRunsOwn) {
  const std::string dir = routelab::test::scratchDir().string();
  const std::string csv = dir + "/simulate-utilization.csv", net = dir + "/simulate-fabric.net";
  const auto run = runRoutelab(
      "simulate kary-ntree:k=2,n=3 --engine dmodk --load 0.3 --cycles 3000 --warmup 1000 --seed 4 --format json "
      "--export-utilization " +
      csv);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  const auto j = nlohmann::json::parse(run.out);
  ASSERT_EQ(runRoutelab("topo kary-ntree:k=2,n=3 --export net " + net).exitCode, 0);
  const routelab::test::NetFile fabric = routelab::test::readNetFile(net);
  const std::set<std::string>& terminals = fabric.terminals;
  std::set<std::pair<std::string, std::string>> cables;
  for (const auto& p : fabric.ports) cables.emplace(p.node, p.peer);
  ASSERT_EQ(terminals.size(), 8u);
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "channel,from,to,utilization,source_accepted");
  std::vector<double> accepted;
  std::size_t rows = 0;
  std::set<std::pair<std::string, std::string>> seen;
  while (std::getline(in, line)) {
    std::vector<std::string> field;
    std::stringstream fields(line);
    for (std::string f; std::getline(fields, f, ',');) field.push_back(f);
    if (line.ends_with(",")) field.emplace_back();
    ASSERT_EQ(field.size(), 5u) << line;
    EXPECT_EQ(field[0], std::to_string(rows)) << line;
    ++rows;
    EXPECT_TRUE(cables.contains({field[1], field[2]})) << line;
    seen.emplace(field[1], field[2]);
    const double utilization = std::stod(field[3]);
    EXPECT_GE(utilization, 0.0) << line;
    EXPECT_LE(utilization, 1.0) << line;
    EXPECT_EQ(!field[4].empty(), terminals.contains(field[1])) << line;
    if (!field[4].empty()) accepted.push_back(std::stod(field[4]));
  }
  EXPECT_EQ(seen, cables);
  EXPECT_EQ(rows, cables.size());
  ASSERT_EQ(accepted.size(), 8u);
  double sum = 0, squares = 0;
  for (double x : accepted) {
    sum += x;
    squares += x * x;
  }
  const auto near = [](double printed, double exact) { return std::abs(printed - exact) <= 1e-5 * exact; };
  EXPECT_TRUE(near(*std::min_element(accepted.begin(), accepted.end()), j["source_accepted_min"].get<double>()));
  EXPECT_TRUE(near(*std::max_element(accepted.begin(), accepted.end()), j["source_accepted_max"].get<double>()));
  EXPECT_TRUE(near(sum * sum / (8 * squares), j["source_fairness"].get<double>()));
  EXPECT_TRUE(near(sum / 8, j["accepted"].get<double>()));
  EXPECT_LT(j["source_accepted_min"].get<double>(), j["source_accepted_max"].get<double>());

  const std::string trace = dir + "/simulate-generated.trace";
  const std::string model = "simulate kary-ntree:k=2,n=3 --engine dmodk --seed 4 --format json ";
  const auto generated =
      runRoutelab(model + "--trace-generate io:storage=2,clients=6,requests=20,gap=500 --export-trace " + trace);
  ASSERT_EQ(generated.exitCode, 0) << generated.err;
  const auto replayed = runRoutelab(model + "--trace " + trace);
  ASSERT_EQ(replayed.exitCode, 0) << replayed.err;
  const auto a = nlohmann::json::parse(generated.out), b = nlohmann::json::parse(replayed.out);
  EXPECT_GT(a["packets_generated"].get<std::uint64_t>(), 20u);
  for (const char* key : {"packets_generated", "packets_delivered", "last_delivery", "latency_avg", "latency_max",
                          "total_latency_avg", "accepted"}) {
    EXPECT_EQ(a[key], b[key]) << key;
  }
}
