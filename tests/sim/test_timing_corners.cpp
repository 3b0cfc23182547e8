// Timing corners of the simulator (docs/SIMULATION.md "Measurement", "Traces"), each number
// recomputed from the same run's packet records: the smallest explicit windows (a 1-cycle
// warm-up and a 1-cycle measurement, with the default drain of 4 x the window and with a long
// one), a trace that ends long before the default measurement window would, and a deadlock
// that forms after every source has stopped (docs/SIMULATION.md "Deadlock watchdog").
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "deadlock_fixtures.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "record_statistics.h"
#include "sim/simulator.h"

namespace routelab {
namespace {

using test::mean;
using test::nearestRank;

struct Window {
  std::uint64_t begin = 0, end = 0;
};

/// The window's statistics from the records, by the documented definitions; checks them
/// against `result`.
void expectWindowStatistics(const SimResult& result, const SimConfig& config, std::uint32_t terminals, Window w) {
  std::vector<std::uint64_t> network, total, reorder, hops;
  std::uint64_t flitsDelivered = 0, lastDelivery = 0;
  for (const PacketRecord& r : result.packets) {
    hops.push_back(r.hops);
    if (r.generated >= w.begin && r.generated < w.end) {
      network.push_back(r.delivered - r.injected);
      total.push_back(r.released - r.generated);
      reorder.push_back(r.released - r.delivered);
    }
    if (r.delivered >= w.begin && r.delivered < w.end) flitsDelivered += config.packetFlits;
    lastDelivery = std::max(lastDelivery, r.delivered);
  }
  const double perTerminalCycle = double(terminals) * double(w.end - w.begin);
  EXPECT_EQ(result.warmupCycles, w.begin);
  EXPECT_EQ(result.measureCycles, w.end - w.begin);
  EXPECT_EQ(result.measuredDelivered, network.size());
  EXPECT_DOUBLE_EQ(result.offered, double(result.measuredPackets * config.packetFlits) / perTerminalCycle);
  EXPECT_DOUBLE_EQ(result.accepted, double(flitsDelivered) / perTerminalCycle);
  // Means over the measured packets delivered (0 when there are none).
  EXPECT_DOUBLE_EQ(result.latencyAvg, mean(network));
  EXPECT_DOUBLE_EQ(result.totalLatencyAvg, mean(total));
  EXPECT_DOUBLE_EQ(result.reorderDelayAvg, mean(reorder));
  EXPECT_EQ(result.totalLatencyP99, nearestRank(total, 0.99));
  EXPECT_EQ(result.latencyP50, nearestRank(network, 0.5));
  EXPECT_EQ(result.latencyP99, nearestRank(network, 0.99));
  EXPECT_EQ(result.latencyMax, network.empty() ? 0 : double(*std::max_element(network.begin(), network.end())));
  EXPECT_EQ(result.lastDelivery, lastDelivery);
  // Over every packet delivered in the run, measured or not (0 when there is none).
  EXPECT_EQ(result.packetsDelivered, result.packets.size());
  EXPECT_DOUBLE_EQ(result.averageHops, mean(hops));
  EXPECT_EQ(result.saturated, result.measuredDelivered < result.measuredPackets ||
                                  double(flitsDelivered) / perTerminalCycle < 0.95 * result.offered);
}

TEST(TimingCorners, OneCycleWarmupAndOneCycleWindow) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=3");
  const RoutingResult routing = runEngine("dmodk", fabric.network);
  const std::uint32_t terminals = fabric.network.terminalCount();
  std::uint64_t packetsInWindows = 0;
  for (const std::uint64_t seed : {1, 2, 3}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    SimConfig config;
    config.load = 0.9;
    config.warmupCycles = 1;
    config.measureCycles = 1;
    config.seed = seed;
    config.recordPackets = true;
    // The default drain (4 x the 1-cycle window) ends before a packet can cross the fabric:
    // the measured packets are left undelivered, which marks the point saturated.
    const SimResult shortDrain = simulate(fabric.network, routing, config);
    ASSERT_FALSE(shortDrain.deadlock);
    expectWindowStatistics(shortDrain, config, terminals, {1, 2});
    ASSERT_GT(shortDrain.measuredPackets, 0u) << "a window without packets shows nothing";
    EXPECT_EQ(shortDrain.packetsDelivered, 0u) << "no packet crosses the fabric in the 4-cycle drain";
    EXPECT_LT(shortDrain.measuredDelivered, shortDrain.measuredPackets);
    EXPECT_TRUE(shortDrain.saturated);
    // A drain long enough: every packet of the 1-cycle window is delivered, and its latencies
    // are those of the records.
    config.drainCycles = 2000;
    const SimResult drained = simulate(fabric.network, routing, config);
    ASSERT_FALSE(drained.deadlock);
    expectWindowStatistics(drained, config, terminals, {1, 2});
    EXPECT_EQ(drained.measuredDelivered, drained.measuredPackets);
    EXPECT_EQ(drained.measuredPackets, shortDrain.measuredPackets) << "the same sources draw the same packets";
    packetsInWindows += drained.measuredPackets;
  }
  EXPECT_GT(packetsInWindows, 3u);
}

TEST(TimingCorners, BernoulliSourcesAtOneMessagePerCycleGenerateEveryCycle) {
  // docs/SIMULATION.md "Traffic": generation is Bernoulli, each cycle a message with
  // probability load / message flits. At 1-flit packets and load 1 that is every cycle: each
  // source generates exactly one packet in each cycle of the window (the rest queue at the
  // source), and the offered load is exactly 1.
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  const RoutingResult routing = runEngine("dmodk", fabric.network);
  const std::uint32_t terminals = fabric.network.terminalCount();
  SimConfig config;
  config.load = 1.0;
  config.packetFlits = 1;
  config.warmupCycles = 50;
  config.measureCycles = 200;
  config.drainCycles = 2000;
  config.recordPackets = true;
  const SimResult result = simulate(fabric.network, routing, config);
  ASSERT_FALSE(result.deadlock);
  EXPECT_EQ(result.measuredPackets, std::uint64_t{terminals} * 200);
  EXPECT_DOUBLE_EQ(result.offered, 1.0);
  std::map<std::uint32_t, std::set<std::uint64_t>> generated;  // per source: its generation cycles
  for (const PacketRecord& r : result.packets) {
    EXPECT_TRUE(generated[r.source].insert(r.generated).second) << "two packets of one source in one cycle";
  }
  // At load 0.5 each cycle generates with probability 1/2: 400 expected of the 800
  // source-cycles (4 terminals x 200; standard deviation 14); within 15 % (4 deviations).
  config.load = 0.5;
  const SimResult half = simulate(fabric.network, routing, config);
  EXPECT_NEAR(double(half.measuredPackets), terminals * 200 * 0.5, terminals * 200 * 0.5 * 0.15);
}

// Gaps as long as the sources' calendar (sim/engine.h: kCalendarSize = 1024 cycles; a later
// generation waits in a heap): at one message per 1024 cycles on average, some gaps are
// exactly 1024 cycles, whose generation lands in the calendar slot of the current cycle. Each
// must still happen 1024 cycles later: no source generates twice in one cycle, and every
// source keeps generating to the end of the window (30,000 silent cycles have probability
// e^-29), under both memory policies.
TEST(TimingCorners, AGapOfTheCalendarsLengthGeneratesOnTime) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=2");
  const RoutingResult routing = runEngine("dmodk", fabric.network);
  for (const auto grouping : {SimConfig::Grouping::Never, SimConfig::Grouping::Always}) {
    SimConfig config;
    config.load = double(config.packetFlits) / 1024;  // one message per 1024 cycles
    config.warmupCycles = 1;
    config.measureCycles = 1200000;
    config.drainAll = true;
    config.recordPackets = true;
    config.grouping = grouping;
    config.seed = 3;
    const SimResult result = simulate(fabric.network, routing, config);
    ASSERT_FALSE(result.deadlock);
    std::map<std::uint32_t, std::set<std::uint64_t>> generated;  // per source: its generation cycles
    for (const PacketRecord& r : result.packets) {
      EXPECT_TRUE(generated[r.source].insert(r.generated).second) << "two packets of one source in one cycle";
    }
    ASSERT_EQ(generated.size(), fabric.network.terminalCount());
    std::size_t calendarGaps = 0;
    for (const auto& [source, cycles] : generated) {
      EXPECT_GE(*cycles.rbegin(), config.warmupCycles + config.measureCycles - 30000) << "source " << source;
      for (auto it = std::next(cycles.begin()); it != cycles.end(); ++it) calendarGaps += *it - *std::prev(it) == 1024;
    }
    EXPECT_GT(calendarGaps, 0U) << "the case needs gaps of exactly the calendar's length";
  }
}

TEST(TimingCorners, ATraceEndingEarlyEndsTheRunAtItsLastDelivery) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const Network& network = fabric.network;
  const RoutingResult routing = runEngine("dmodk", network);
  // Five messages in the first cycles, one of 3 packets; the measurement window (10,000
  // cycles by default) plays no part in a trace run.
  const Trace trace = parseTrace(
      "time,source,destination,bytes\n0,0,7,3000\n0,3,1,1024\n1,5,6,100\n2,6,1,2048\n4,7,0,1\n", "t.csv", network);
  SimConfig config;
  config.recordPackets = true;
  const SimResult result = simulate(network, routing, config, &trace);
  ASSERT_FALSE(result.deadlock);
  ASSERT_EQ(result.packets.size(), 3u + 1u + 1u + 2u + 1u);
  EXPECT_EQ(result.packetsDelivered, result.packets.size());
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>, int> seen;
  std::uint64_t lastDelivery = 0;
  for (const PacketRecord& r : result.packets) {
    EXPECT_EQ(++seen[std::make_tuple(r.source, r.destination, r.sequence)], 1) << "a packet delivered twice";
    EXPECT_LE(r.generated, 4u);
    EXPECT_LE(r.generated, r.injected);
    EXPECT_LT(r.injected, r.delivered);
    lastDelivery = std::max(lastDelivery, r.delivered);
  }
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(result.lastDelivery, lastDelivery);
  // docs/SIMULATION.md "Traces": the trace is measured whole — every packet counts in the
  // latencies, recomputed here from the records (docs/SIMULATION.md "Results").
  EXPECT_EQ(result.measuredPackets, result.packets.size());
  EXPECT_EQ(result.measuredDelivered, result.packets.size());
  double networkSum = 0, total = 0, reorder = 0, largest = 0;
  for (const PacketRecord& r : result.packets) {
    networkSum += double(r.delivered - r.injected);
    total += double(r.released - r.generated);
    reorder += double(r.released - r.delivered);
    largest = std::max(largest, double(r.delivered - r.injected));
  }
  const double packets = double(result.packets.size());
  EXPECT_DOUBLE_EQ(result.latencyAvg, networkSum / packets);
  EXPECT_DOUBLE_EQ(result.totalLatencyAvg, total / packets);
  EXPECT_DOUBLE_EQ(result.reorderDelayAvg, reorder / packets);
  EXPECT_DOUBLE_EQ(result.latencyMax, largest);
  // The run stops once the trace is delivered, not at the end of a measurement window: at
  // the first window boundary after the last delivery (windows are flyTime cycles long,
  // docs/SIMULATION.md "Parallel engine"), whatever credits are still on their way back.
  EXPECT_GE(result.cycles, lastDelivery);
  EXPECT_LE(result.cycles, lastDelivery + config.flyTime) << "cycles " << result.cycles;
}

TEST(TimingCorners, ADeadlockFormingAfterTheSourcesStoppedIsReported) {
  // Every host of a 5-switch ring sends 64 packets two hops clockwise, all at cycle 0, over
  // minhop (unique shortest paths, one layer: deadlock-prone by Dally-Seitz) with one-packet
  // buffers: the sources stop after cycle 0, the packets then fill the ring's clockwise
  // queues and wait for each other.
  const Fabric fabric = loadFabric(test::ringFabric(5, "corners_ring"));
  const Network& network = fabric.network;
  const RoutingResult routing = runEngine("minhop", network);
  std::string text = "time,source,destination,bytes\n";
  for (int s = 0; s < 5; ++s) text += fmt::format("0,{},{},{}\n", s, (s + 2) % 5, 64 * 1024);
  const Trace trace = parseTrace(text, "ring.csv", network);
  SimConfig config;
  config.recordPackets = true;
  config.bufferPackets = 1;
  config.vcs = 1;
  config.watchdogCycles = 500;
  const SimResult result = simulate(network, routing, config, &trace);
  ASSERT_TRUE(result.deadlock);
  const DeadlockReport& report = result.deadlockReport;
  // Generation ended at cycle 0; the watchdog fires at the first decision point at least
  // --watchdog cycles after the last move.
  EXPECT_EQ(result.packetsGenerated, 5u * 64u);
  EXPECT_GE(report.cycle, report.lastMove + config.watchdogCycles);
  EXPECT_LT(report.cycle, report.lastMove + 2 * config.watchdogCycles);
  std::uint64_t lastDelivery = 0;
  std::set<std::uint64_t> delivered;
  for (const PacketRecord& r : result.packets) {
    // One destination per source: a packet's sequence number is its injection count.
    delivered.insert((std::uint64_t{r.source} << 32) + r.sequence);
    lastDelivery = std::max(lastDelivery, r.delivered);
  }
  EXPECT_EQ(result.packetsDelivered, result.packets.size());
  EXPECT_LT(result.packetsDelivered, result.packetsGenerated);
  EXPECT_LE(lastDelivery, report.lastMove);
  // The waiting cycle: at least two queues, one front packet each, none of them delivered.
  EXPECT_GE(report.channels.size(), 2u);
  EXPECT_EQ(report.packets.size(), report.channels.size());
  for (const std::uint64_t id : report.packets) {
    EXPECT_EQ(delivered.count(id), 0u) << "packet " << id << " reported stuck and delivered";
    EXPECT_LT(id >> 32, 5u);
    EXPECT_LT(id & 0xffffffffULL, 64u);
  }
}

}  // namespace
}  // namespace routelab
