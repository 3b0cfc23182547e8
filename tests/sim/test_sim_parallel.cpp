// The parallel engine (SimConfig::threads, docs/SIMULATION.md "Parallel engine"): one
// simulation split over 1, 2, 3 or 4 threads gives bit for bit the same SimResult — every
// statistic, the channel utilizations, the recorded packets and the deadlock report — over
// engines, patterns, loads below and above saturation, fly times and seeds; conserves
// packets; and refuses what it cannot make exact (in-order delivery).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include "core/errors.h"
#include "deadlock_fixtures.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "sim/simulator.h"

namespace routelab {
namespace {

RoutingResult route(const std::string& engine, const Network& network) {
  RoutingContext context;
  context.seed = 1;
  return runEngine(engine, network, context);
}

/// Bit-for-bit equality of two doubles (EXPECT_EQ would let 0.0 equal -0.0).
bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Every field of two results, bit for bit; `what` names the case in failures.
void expectIdentical(const SimResult& a, const SimResult& b, const std::string& what) {
  const double doubles[][2] = {{a.offered, b.offered},
                               {a.accepted, b.accepted},
                               {a.latencyAvg, b.latencyAvg},
                               {a.latencyP50, b.latencyP50},
                               {a.latencyP99, b.latencyP99},
                               {a.latencyMax, b.latencyMax},
                               {a.totalLatencyAvg, b.totalLatencyAvg},
                               {a.totalLatencyP99, b.totalLatencyP99},
                               {a.reorderDelayAvg, b.reorderDelayAvg},
                               {a.averageHops, b.averageHops}};
  for (std::size_t i = 0; i < std::size(doubles); ++i) {
    EXPECT_TRUE(sameBits(doubles[i][0], doubles[i][1]))
        << what << ": statistic " << i << " " << doubles[i][0] << " != " << doubles[i][1];
  }
  const std::uint64_t counts[][2] = {{a.cycles, b.cycles},
                                     {a.warmupCycles, b.warmupCycles},
                                     {a.measureCycles, b.measureCycles},
                                     {a.packetsGenerated, b.packetsGenerated},
                                     {a.packetsInjected, b.packetsInjected},
                                     {a.packetsDelivered, b.packetsDelivered},
                                     {a.measuredPackets, b.measuredPackets},
                                     {a.measuredDelivered, b.measuredDelivered},
                                     {a.outOfOrder, b.outOfOrder},
                                     {a.maxReorderOccupancy, b.maxReorderOccupancy},
                                     {a.lastDelivery, b.lastDelivery},
                                     {a.vcs, b.vcs}};
  for (std::size_t i = 0; i < std::size(counts); ++i) {
    EXPECT_EQ(counts[i][0], counts[i][1]) << what << ": count " << i;
  }
  EXPECT_EQ(a.saturated, b.saturated) << what;
  EXPECT_EQ(a.warmupSettled, b.warmupSettled) << what;
  EXPECT_EQ(a.sources, b.sources) << what;
  EXPECT_TRUE(sameBits(a.sourceAcceptedMin, b.sourceAcceptedMin)) << what;
  EXPECT_TRUE(sameBits(a.sourceAcceptedMax, b.sourceAcceptedMax)) << what;
  EXPECT_TRUE(sameBits(a.sourceFairness, b.sourceFairness)) << what;
  ASSERT_EQ(a.sourceAccepted.size(), b.sourceAccepted.size()) << what;
  for (std::size_t t = 0; t < a.sourceAccepted.size(); ++t) {
    ASSERT_TRUE(sameBits(a.sourceAccepted[t], b.sourceAccepted[t])) << what << ": source " << t;
  }
  EXPECT_EQ(a.deadlock, b.deadlock) << what;
  EXPECT_EQ(a.deadlockReport.cycle, b.deadlockReport.cycle) << what;
  EXPECT_EQ(a.deadlockReport.lastMove, b.deadlockReport.lastMove) << what;
  EXPECT_EQ(a.deadlockReport.channels, b.deadlockReport.channels) << what;
  EXPECT_EQ(a.deadlockReport.packets, b.deadlockReport.packets) << what;
  ASSERT_EQ(a.channelUtilization.size(), b.channelUtilization.size()) << what;
  for (std::size_t c = 0; c < a.channelUtilization.size(); ++c) {
    ASSERT_TRUE(sameBits(a.channelUtilization[c], b.channelUtilization[c])) << what << ": channel " << c;
  }
  EXPECT_EQ(a.packets, b.packets) << what << ": recorded packets";
}

struct ParallelCase {
  std::string fabric;
  std::string engine;
  Selection selection;
  std::string traffic;
  std::uint32_t flyTime;
  std::uint32_t vcs;
};

void PrintTo(const ParallelCase& c, std::ostream* out) {
  *out << c.fabric << " " << c.engine << " " << c.traffic << " fly " << c.flyTime << " vcs " << c.vcs;
}

class ParallelEquality : public ::testing::TestWithParam<ParallelCase> {};

TEST_P(ParallelEquality, AnyThreadCountGivesTheOneThreadResult) {
  const ParallelCase& c = GetParam();
  const Fabric fabric = loadFabric(c.fabric);
  const RoutingResult routing = route(c.engine, fabric.network);
  for (const double load : {0.25, 0.95}) {  // below and above saturation
    for (const std::uint64_t seed : {1, 2}) {
      SimConfig config;
      config.load = load;
      config.seed = seed;
      config.selection = c.selection;
      // Every arbitration: round-robin on seed 1, age and the greedy rule on seed 2.
      config.arbitration =
          seed == 1 ? Arbitration::RoundRobin : (load > 0.5 ? Arbitration::Age : Arbitration::SwitchRoundRobin);
      config.traffic = c.traffic;
      config.flyTime = c.flyTime;
      config.vcs = c.vcs;
      config.routingDelay = 2;
      config.warmupCycles = 150;
      config.measureCycles = 450;
      config.drainCycles = 300;
      config.recordPackets = true;
      config.checkInvariants = seed == 1;
      const SimResult one = simulate(fabric.network, routing, config);
      ASSERT_GT(one.packetsDelivered, 50U) << "too little traffic to compare";
      for (const std::uint32_t threads : {2, 3, 4}) {
        config.threads = threads;
        // Events grouped by switch in every block (the one-block run: ungrouped) on seed 2.
        config.grouping = seed == 2 ? SimConfig::Grouping::Always : SimConfig::Grouping::Auto;
        const SimResult parallel = simulate(fabric.network, routing, config);
        expectIdentical(one, parallel,
                        c.engine + " " + c.traffic + " load " + std::to_string(load) + " seed " + std::to_string(seed) +
                            " threads " + std::to_string(threads));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fabrics, ParallelEquality,
    ::testing::Values(
        ParallelCase{"kary-ntree:k=4,n=2", "ftree-adaptive", Selection::Sadp, "uniform", 8, 0},
        ParallelCase{"kary-ntree:k=4,n=2", "ftree-adaptive", Selection::Random, "random-permutation", 1, 2},
        ParallelCase{"kary-ntree:k=4,n=2", "ftree-adaptive", Selection::Oblivious, "bit-reversal", 2, 0},
        ParallelCase{"kary-ntree:k=2,n=4", "ftree-adaptive", Selection::Random, "uniform", 3, 0},
        ParallelCase{"kary-ntree:k=4,n=2", "dmodk", Selection::Sadp, "uniform-hot-spot:fraction=0.2", 8, 0},
        ParallelCase{"kary-ntree:k=2,n=4", "dmodk", Selection::Sadp, "bit-reversal", 2, 0},
        ParallelCase{"random:switches=12,seed=2", "lash", Selection::Sadp, "uniform", 4, 0},
        ParallelCase{"random:switches=12,seed=2", "updown", Selection::LeastOccupied, "uniform", 8, 2},
        ParallelCase{"random:switches=12,seed=5", "escape", Selection::Random, "random-permutation", 1, 0}));

// At a very low load the whole network is often idle but for one packet on a wire into
// another block: the run must not jump over its arrival (a message between blocks counts as
// work in flight, Engine::posted_).
TEST(ParallelSimulator, IdleJumpsWaitForMessagesBetweenBlocks) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const RoutingResult routing = route("ftree-adaptive", fabric.network);
  SimConfig config;
  config.load = 0.002;
  config.packetFlits = 1;  // (a short packet and a long wire: often nothing but the message is in flight)
  config.flyTime = 16;
  config.routingDelay = 0;
  config.warmupCycles = 2000;
  config.measureCycles = 20000;
  config.recordPackets = true;
  const SimResult one = simulate(fabric.network, routing, config);
  ASSERT_GT(one.packetsDelivered, 20U) << "too little traffic to compare";
  for (const std::uint32_t threads : {2, 4}) {
    config.threads = threads;
    expectIdentical(one, simulate(fabric.network, routing, config), "threads " + std::to_string(threads));
  }
}

// Beyond 1,024 terminals the pairs' sequence numbers live in a map, kept small by forgetting
// the pairs with nothing under way (PairTable::forgetIdlePairs) unless the packets are
// recorded; a partitioned run forgets only the pairs within one block. All give the same run,
// with and without in-order delivery (which runs on one thread).
TEST(ParallelSimulator, ForgettingIdlePairsChangesNoResult) {
  const Fabric fabric = loadFabric("kary-ntree:k=6,n=4");  // 1,296 terminals
  const RoutingResult routing = route("ftree-adaptive", fabric.network);
  for (const bool inOrder : {false, true}) {
    SimConfig config;
    config.load = 0.5;
    config.selection = Selection::Random;
    config.vcs = 2;
    config.packetFlits = 4;
    config.flyTime = 1;
    config.routingDelay = 1;
    config.warmupCycles = 50;
    config.measureCycles = 100;
    config.inOrder = inOrder;
    config.reorderPackets = 4;
    const SimResult forgetting = simulate(fabric.network, routing, config);
    ASSERT_GT(forgetting.outOfOrder, 0U) << "no reordering: nothing to compare";
    config.recordPackets = true;
    SimResult recorded = simulate(fabric.network, routing, config);
    EXPECT_EQ(recorded.packets.size(), recorded.packetsDelivered);
    recorded.packets.clear();
    const std::string what = inOrder ? "in order" : "any order";
    expectIdentical(forgetting, recorded, what + ", packets recorded");
    if (inOrder) continue;  // (in-order delivery runs on one thread)
    config.recordPackets = false;
    config.threads = 2;
    expectIdentical(forgetting, simulate(fabric.network, routing, config), what + ", two threads");
  }
}

TEST(ParallelSimulator, AutomaticWarmupAndDrainAllAgreeAndConserve) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=2");
  const RoutingResult routing = route("ftree-adaptive", fabric.network);
  SimConfig config;
  config.load = 0.6;
  config.selection = Selection::Random;
  config.warmupCycles = 0;  // automatic: decided between windows, the same for every count
  config.measureCycles = 600;
  config.drainAll = true;
  config.recordPackets = true;
  const SimResult one = simulate(fabric.network, routing, config);
  EXPECT_GT(one.warmupCycles, 0U);
  for (const std::uint32_t threads : {2, 3, 4}) {
    config.threads = threads;
    const SimResult parallel = simulate(fabric.network, routing, config);
    expectIdentical(one, parallel, "threads " + std::to_string(threads));
    // Conservation: every generated packet delivered exactly once.
    EXPECT_EQ(parallel.packetsGenerated, parallel.packetsInjected);
    EXPECT_EQ(parallel.packetsInjected, parallel.packetsDelivered);
    EXPECT_EQ(parallel.packets.size(), parallel.packetsGenerated);
  }
}

TEST(ParallelSimulator, TheSameDeadlockIsReportedOnAnyThreadCount) {
  const Fabric fabric = loadFabric(test::ringFabric(6, "parallel-ring"));
  const RoutingResult routing = route("minhop", fabric.network);
  int deadlocks = 0;
  for (const std::uint64_t seed : {1, 2, 3}) {
    SimConfig config = test::deadlockProneConfig(seed);
    config.flyTime = 1;
    config.drainAll = true;
    config.checkInvariants = true;
    config.threads = 1;
    const SimResult one = simulate(fabric.network, routing, config);
    deadlocks += one.deadlock ? 1 : 0;
    for (const std::uint32_t threads : {2, 3, 4}) {
      config.threads = threads;
      expectIdentical(one, simulate(fabric.network, routing, config), "seed " + std::to_string(seed));
    }
  }
  EXPECT_GT(deadlocks, 0) << "minhop on a ring deadlocks under saturating load";
}

TEST(ParallelSimulator, TraceReplayIsExact) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const RoutingResult routing = route("dmodk", fabric.network);
  const Trace trace = parseTrace(
      "time,source,destination,bytes\n0,0,7,3000\n5,1,6,100\n10,7,0,1024\n10,3,4,5000\n40,5,2,2048\n900,6,1,64\n",
      "t.csv", fabric.network);
  SimConfig config;
  config.recordPackets = true;
  config.checkInvariants = true;
  const SimResult one = simulate(fabric.network, routing, config, &trace);
  EXPECT_EQ(one.packetsDelivered, 3U + 1U + 1U + 5U + 2U + 1U);
  for (const std::uint32_t threads : {2, 4}) {
    config.threads = threads;
    expectIdentical(one, simulate(fabric.network, routing, config, &trace), "threads " + std::to_string(threads));
  }
}

TEST(ParallelSimulator, InOrderDeliveryIsRefusedOnSeveralThreads) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const RoutingResult routing = route("dmodk", fabric.network);
  SimConfig config;
  config.inOrder = true;
  config.threads = 2;
  try {
    simulate(fabric.network, routing, config);
    FAIL() << "in-order delivery on two threads must be refused";
  } catch (const SpecError& e) {
    EXPECT_NE(std::string(e.what()).find("in-order"), std::string::npos) << e.what();
  }
  config.threads = 1;
  config.measureCycles = 200;
  EXPECT_NO_THROW(simulate(fabric.network, routing, config));
}

TEST(ParallelSimulator, MoreThreadsThanSwitchesAndEveryCoreWork) {
  const Fabric fabric = loadFabric(test::ringFabric(3, "parallel-ring"));
  const RoutingResult routing = route("updown", fabric.network);
  SimConfig config;
  config.load = 0.3;
  config.warmupCycles = 100;
  config.measureCycles = 300;
  const SimResult one = simulate(fabric.network, routing, config);
  for (const std::uint32_t threads : {0, 8}) {  // 0 = every hardware thread; 8 > 3 switches
    config.threads = threads;
    expectIdentical(one, simulate(fabric.network, routing, config), "threads " + std::to_string(threads));
  }
}

}  // namespace
}  // namespace routelab
