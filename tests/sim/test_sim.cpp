// The flit-level simulator (sim/simulator.h): the fast engine equals the plain reference
// model packet by packet, conserves packets, is deterministic, delivers deterministic
// routings in order, deadlocks exactly where the verifier predicts, and agrees with the
// static analysis on channel loads.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>

#include "analysis/loads.h"
#include "core/errors.h"
#include "core/limits.h"
#include "core/random.h"
#include "deadlock_fixtures.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "routing/semantics.h"
#include "sim/engine.h"
#include "sim/reference/reference_model.h"
#include "sim/sim_json.h"
#include "sim/simulator.h"
#include "test_support.h"
#include "traffic/pattern.h"
#include "verify/verify.h"

namespace routelab {
namespace {

RoutingResult route(const std::string& engine, const Network& network, std::uint32_t addresses = 1) {
  RoutingContext context;
  context.seed = 1;
  context.addressesPerTerminal = addresses;
  return runEngine(engine, network, context);
}

std::vector<PacketRecord> sorted(std::vector<PacketRecord> records) {
  std::sort(records.begin(), records.end(), [](const PacketRecord& a, const PacketRecord& b) {
    return std::tie(a.source, a.destination, a.sequence) < std::tie(b.source, b.destination, b.sequence);
  });
  return records;
}

SimConfig drained(double load, std::uint64_t cycles, std::uint64_t seed) {
  SimConfig config;
  config.load = load;
  config.warmupCycles = 1;
  config.measureCycles = cycles - 1;
  config.drainAll = true;
  config.recordPackets = true;
  config.checkInvariants = true;
  config.seed = seed;
  return config;
}

/// The engine gives every packet the reference model's injection, delivery and release cycles
/// and hop count (at least `minimum` packets, so that the comparison means something).
void expectReferenceTimes(const Network& network, const RoutingResult& routing, const SimConfig& config,
                          std::size_t minimum, const std::string& label) {
  const SimResult fast = simulate(network, routing, config);
  ASSERT_FALSE(fast.deadlock) << label;
  const std::vector<PacketRecord> reference = sim::referenceSimulate(network, routing, config, 200000);
  const std::vector<PacketRecord> engine = sorted(fast.packets);
  ASSERT_GT(engine.size(), minimum) << label << ": too little traffic to compare";
  ASSERT_EQ(engine.size(), reference.size()) << label;
  for (std::size_t i = 0; i < engine.size(); ++i) {
    ASSERT_EQ(engine[i], reference[i]) << label << " packet " << i << ": " << engine[i].source << "->"
                                       << engine[i].destination << " #" << engine[i].sequence << " engine delivered "
                                       << engine[i].delivered << " reference " << reference[i].delivered;
  }
}

struct ReferenceCase {
  std::string fabric;
  std::string engine;
  Selection selection;
  double load;
  bool inOrder;
  std::uint32_t vcs;
  std::uint32_t addresses;
  PathPolicy paths;
};

class ReferenceEquality : public ::testing::TestWithParam<ReferenceCase> {};

TEST_P(ReferenceEquality, EveryPacketHasTheReferenceModelsTimes) {
  const ReferenceCase& c = GetParam();
  const Fabric fabric = loadFabric(c.fabric);
  const RoutingResult routing = route(c.engine, fabric.network, c.addresses);
  for (std::uint64_t seed : {1, 2, 3}) {
    SimConfig config = drained(c.load, 600, seed);
    config.selection = c.selection;
    config.inOrder = c.inOrder;
    config.reorderPackets = 3;
    config.vcs = c.vcs;
    config.pathPolicy = c.paths;
    config.bufferPackets = 1 + static_cast<std::uint32_t>(seed % 2);
    config.grouping = seed == 2 ? SimConfig::Grouping::Always : SimConfig::Grouping::Never;
    // Every arbitration on every case, one per seed.
    config.arbitration = std::array{Arbitration::RoundRobin, Arbitration::Age, Arbitration::SwitchRoundRobin}[seed - 1];
    ASSERT_NO_FATAL_FAILURE(expectReferenceTimes(fabric.network, routing, config, 50,
                                                 fmt::format("seed {} arbitration {}", seed, int(config.arbitration))));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Fabrics, ReferenceEquality,
    ::testing::Values(
        ReferenceCase{"kary-ntree:k=2,n=3", "dmodk", Selection::Sadp, 0.6, false, 0, 1, PathPolicy::Random},
        ReferenceCase{"kary-ntree:k=2,n=3", "ftree-adaptive", Selection::Sadp, 0.7, false, 0, 1, PathPolicy::Random},
        ReferenceCase{"kary-ntree:k=2,n=3", "ftree-adaptive", Selection::FirstFree, 0.7, true, 0, 1,
                      PathPolicy::Random},
        ReferenceCase{"kary-ntree:k=2,n=3", "ftree-adaptive", Selection::Random, 0.5, true, 2, 1, PathPolicy::Random},
        ReferenceCase{"kary-ntree:k=2,n=3", "ftree-adaptive", Selection::LeastOccupied, 0.8, false, 0, 1,
                      PathPolicy::Random},
        ReferenceCase{"kary-ntree:k=2,n=3", "ftree-adaptive", Selection::Oblivious, 0.8, false, 2, 1,
                      PathPolicy::Random},
        ReferenceCase{"kary-ntree:k=2,n=3", "ftree-adaptive", Selection::LeastCongested, 0.8, true, 2, 1,
                      PathPolicy::Random},
        ReferenceCase{"random:switches=8,seed=3", "lash", Selection::Sadp, 0.4, false, 0, 1, PathPolicy::Random},
        ReferenceCase{"random:switches=8,seed=3", "updown", Selection::Sadp, 0.4, false, 3, 1, PathPolicy::Random},
        ReferenceCase{"random:switches=8,seed=5", "escape", Selection::Random, 0.5, false, 0, 1, PathPolicy::Random},
        ReferenceCase{"random:switches=8,seed=5", "mp-lash", Selection::Sadp, 0.5, true, 0, 1, PathPolicy::Random},
        // A switch without cables (a top switch whose two cables are removed): no port to
        // allocate, which the greedy allocation's pass over the ports must take as such.
        ReferenceCase{"kary-ntree:k=2,n=3+remove-links=kt-s2-11[1].kt-s2-11[2]", "updown", Selection::Sadp, 0.6, false,
                      0, 1, PathPolicy::Random},
        // Duato's choices over 8 layers: at a leaf of the 4-ary 2-tree, 4 up ports in each of 7
        // adaptive layers and the escape layer's one, 29 in all: more than the 16 candidates a
        // packet keeps (Engine::routeHere's overflow list).
        ReferenceCase{"kary-ntree:k=4,n=2", "escape:layers=8", Selection::Random, 0.6, false, 0, 1, PathPolicy::Random},
        ReferenceCase{"kary-ntree:k=2,n=3", "dmodk", Selection::Sadp, 0.6, true, 0, 4, PathPolicy::Adaptive},
        // Paths in different layers (MP-LASH: an address per shortest path): their injection credits
        // differ, and ties among the later paths go by the round-robin order from the next path.
        ReferenceCase{"random:switches=8,seed=5", "mp-lash", Selection::Sadp, 0.7, false, 0, 1, PathPolicy::Adaptive},
        ReferenceCase{"kary-ntree:k=2,n=3", "dmodk", Selection::Sadp, 0.5, false, 0, 4, PathPolicy::RoundRobin},
        // Leaf switches of 65 ports, the narrowest wider than the allocator's 64-bit masks.
        ReferenceCase{"gft2:n=33,m=32,r=2", "ftree-adaptive", Selection::Random, 0.6, false, 0, 1, PathPolicy::Random},
        // Leaf switches of 66 ports: the allocator's path for switches wider than its 64-bit masks.
        ReferenceCase{"gft2:n=33,m=33,r=2", "ftree-adaptive", Selection::Random, 0.6, false, 0, 1, PathPolicy::Random},
        ReferenceCase{"gft2:n=33,m=33,r=2", "ftree-adaptive", Selection::Oblivious, 0.7, false, 0, 1,
                      PathPolicy::Random},
        ReferenceCase{"gft2:n=33,m=33,r=2", "dmodk", Selection::Sadp, 0.8, false, 2, 1, PathPolicy::Random}));

// The speed benchmarks' configuration (scripts/sim_speed.sh: routing delay 1, fly time 1, 4 VCs
// of two packets, random selection; BookSim's fat-tree example) on a 64-terminal fat-tree,
// below and beyond saturation: short credit round trips and links that wait for credits, where
// a grant's direct send (tryGrant) must find the link exactly as the cycle-by-cycle model does
// (a 16-terminal tree never met a link freeing two cycles after such a grant:
// mutant sim.direct-send-onto-a-busy-link survived it).
TEST(Simulator, SpeedCaseConfigurationHasTheReferenceModelsTimes) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=3");
  const RoutingResult routing = route("ftree-adaptive", fabric.network);
  for (double load : {0.5, 0.95}) {
    for (std::uint64_t seed : {1, 2}) {
      SimConfig config = drained(load, 800, seed);
      config.selection = Selection::Random;
      config.vcs = 4;
      config.bufferPackets = 2;
      config.routingDelay = 1;
      config.flyTime = 1;
      config.grouping = seed == 2 ? SimConfig::Grouping::Always : SimConfig::Grouping::Never;
      for (Arbitration arbitration : {Arbitration::RoundRobin, Arbitration::Age, Arbitration::SwitchRoundRobin}) {
        config.arbitration = arbitration;
        config.selection = seed == 2 && load > 0.9 ? Selection::Oblivious : Selection::Random;
        ASSERT_NO_FATAL_FAILURE(
            expectReferenceTimes(fabric.network, routing, config, 500,
                                 fmt::format("load {} seed {} arbitration {}", load, seed, int(arbitration))));
      }
    }
  }
}

// The largest VC count (--vcs 64: the range of the option, the width of the engine's VC
// masks; sim/model.h, "Virtual channels"): every VC of every output starts free — the mask of all 64 is not 2^64 - 1
// computed by a shift, which is undefined at 64 — and the engine keeps the reference model's
// times. One layer (ftree-adaptive) and three (mroots: VC v serves layer v mod 3, 64 not a
// multiple), each arbitration and both memory policies.
TEST(Simulator, SixtyFourVcsHaveTheReferenceModelsTimes) {
  for (const auto& [spec, engine] :
       {std::pair{"kary-ntree:k=2,n=3", "ftree-adaptive"}, std::pair{"random:switches=8,seed=3", "mroots:layers=3"}}) {
    const Fabric fabric = loadFabric(spec);
    const RoutingResult routing = route(engine, fabric.network);
    for (std::uint64_t seed : {1, 2, 3}) {
      SimConfig config = drained(0.8, 400, seed);
      config.vcs = 64;
      config.bufferPackets = 1;
      config.selection = seed == 2 ? Selection::Random : Selection::Sadp;
      config.grouping = seed == 2 ? SimConfig::Grouping::Always : SimConfig::Grouping::Never;
      config.arbitration =
          std::array{Arbitration::RoundRobin, Arbitration::Age, Arbitration::SwitchRoundRobin}[seed - 1];
      ASSERT_NO_FATAL_FAILURE(
          expectReferenceTimes(fabric.network, routing, config, 100, fmt::format("{} seed {}", spec, seed)));
    }
  }
}

// The memory policy (sim/memory_policy.h): Streaming exactly where the channel records pass
// 2 MiB. A channel's record is 192 bytes at 4 VCs of 2 packets (docs/RELIABILITY.md), so
// the threshold is 10,922 channels; a k-ary n-tree has 2 k^n channels per level boundary
// (both directions), terminals included: 2 n k^n. Always and Never override the size.
TEST(Simulator, StreamingPolicyExactlyWhereTheRecordsPassTwoMebibytes) {
  for (const auto& [spec, k, n] : {std::tuple{"kary-ntree:k=4,n=3", 4, 3}, std::tuple{"kary-ntree:k=4,n=4", 4, 4},
                                   std::tuple{"kary-ntree:k=4,n=5", 4, 5}, std::tuple{"kary-ntree:k=2,n=9", 2, 9},
                                   std::tuple{"kary-ntree:k=2,n=10", 2, 10}, std::tuple{"kary-ntree:k=4,n=6", 4, 6}}) {
    const Fabric fabric = loadFabric(spec);
    const std::uint64_t channels = 2 * static_cast<std::uint64_t>(n) * static_cast<std::uint64_t>(std::pow(k, n));
    ASSERT_EQ(fabric.network.channelCount(), channels) << spec;
    const RoutingResult routing = route("dmodk", fabric.network);
    const RoutingSemantics semantics(fabric.network, routing);
    SimConfig config;
    config.vcs = 4;
    config.bufferPackets = 2;
    EXPECT_EQ(sim::streams(fabric.network, semantics, config), channels * 192 > (std::uint64_t{1} << 21)) << spec;
    config.grouping = SimConfig::Grouping::Always;
    EXPECT_TRUE(sim::streams(fabric.network, semantics, config)) << spec;
    config.grouping = SimConfig::Grouping::Never;
    EXPECT_FALSE(sim::streams(fabric.network, semantics, config)) << spec;
  }
}

// Starvation (docs/SIMULATION.md "Arbitration and fairness"): on a 4-ary 2-tree with
// bit-reversal traffic past saturation, every source offers the same load and each
// destination hears from one source, so a fair allocator gives every source about the same
// share. The greedy rule with one pointer per switch (SwitchRoundRobin) favours the input
// ports after the one it last granted — the terminal on a leaf's last port gets under half
// of what the first gets — while the per-output arbiters (RoundRobin, Age) keep every source
// within 20 % of the best one.
TEST(Simulator, NoSourceStarvesUnderSymmetricTraffic) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=2");
  const RoutingResult routing = route("ftree-adaptive", fabric.network);
  SimConfig config;
  config.traffic = "bit-reversal";
  config.load = 1.0;
  config.selection = Selection::Random;
  config.vcs = 4;
  config.routingDelay = 1;
  config.flyTime = 1;
  config.warmupCycles = 2000;
  config.measureCycles = 10000;
  for (Arbitration arbitration : {Arbitration::RoundRobin, Arbitration::Age, Arbitration::SwitchRoundRobin}) {
    config.arbitration = arbitration;
    const SimResult result = simulate(fabric.network, routing, config);
    ASSERT_EQ(result.sources, 12U);  // 16 terminals, 4 fixed points
    const double share = result.sourceAcceptedMin / result.sourceAcceptedMax;
    if (arbitration == Arbitration::SwitchRoundRobin) {
      EXPECT_LT(share, 0.6) << "the unfair rule no longer starves: the documented evidence is gone";
    } else {
      EXPECT_GT(share, 0.8) << "arbitration " << int(arbitration) << ": a source starves (min "
                            << result.sourceAcceptedMin << ", max " << result.sourceAcceptedMax << ")";
      EXPECT_GT(result.sourceFairness, 0.99) << "arbitration " << int(arbitration);
    }
  }
}

// Per-source accepted throughput (SimResult::sourceAccepted, its min, max and Jain's index)
// recomputed from the packet records: a source's flits delivered in the window / window
// cycles, over the terminals that generated a packet in the window.
TEST(Simulator, PerSourceAcceptedThroughputIsRecomputedFromThePackets) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const RoutingResult routing = route("ftree-adaptive", fabric.network);
  for (const char* traffic : {"uniform", "bit-reversal"}) {
    SimConfig config;
    config.traffic = traffic;
    config.load = 0.9;
    config.warmupCycles = 300;
    config.measureCycles = 2000;
    config.recordPackets = true;
    config.drainAll = true;  // every packet generated is delivered: the records hold them all
    const SimResult result = simulate(fabric.network, routing, config);
    const std::uint64_t start = result.warmupCycles, end = start + result.measureCycles;
    std::vector<double> flits(fabric.network.terminalCount(), 0);
    std::vector<bool> source(fabric.network.terminalCount(), false);
    for (const PacketRecord& p : result.packets) {
      if (p.delivered >= start && p.delivered < end) flits[p.source] += config.packetFlits;
      if (p.generated >= start && p.generated < end) source[p.source] = true;
    }
    double sum = 0, squares = 0, least = 1e9, most = 0;
    std::uint32_t n = 0;
    ASSERT_EQ(result.sourceAccepted.size(), flits.size());
    for (std::size_t t = 0; t < flits.size(); ++t) {
      if (!source[t]) {
        EXPECT_EQ(result.sourceAccepted[t], -1.0) << traffic << " terminal " << t;
        continue;
      }
      const double x = flits[t] / double(result.measureCycles);
      EXPECT_DOUBLE_EQ(result.sourceAccepted[t], x) << traffic << " terminal " << t;
      sum += x;
      squares += x * x;
      least = std::min(least, x);
      most = std::max(most, x);
      ++n;
    }
    EXPECT_EQ(result.sources, n) << traffic;
    EXPECT_EQ(n, std::string(traffic) == "bit-reversal" ? 4U : 8U) << traffic;  // bit-reversal: 4 fixed points of 8
    EXPECT_DOUBLE_EQ(result.sourceAcceptedMin, least) << traffic;
    EXPECT_DOUBLE_EQ(result.sourceAcceptedMax, most) << traffic;
    EXPECT_NEAR(result.sourceFairness, sum * sum / (n * squares), 1e-12) << traffic;
    EXPECT_NEAR(sum / double(fabric.network.terminalCount()), result.accepted, 1e-12) << traffic;
  }
}

// A saturated network piles the offered load up in the sources' queues without bound: with
// a small memory budget the run stops with a LimitError that says so, on one thread and on
// several; within the budget the same run completes.
TEST(Simulator, SaturatedSourceQueuesBeyondTheBudgetAreALimitError) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const RoutingResult routing = route("dmodk", fabric.network);
  SimConfig config;
  config.load = 1.0;
  config.warmupCycles = 100;
  config.measureCycles = 20000;
  config.memoryBudgetBytes = 64 * 1024;  // 2,048 queued packets of 32 bytes
  for (std::uint32_t threads : {1U, 2U}) {
    config.threads = threads;
    try {
      (void)simulate(fabric.network, routing, config);
      FAIL() << "no LimitError on " << threads << " threads";
    } catch (const LimitError& error) {
      EXPECT_NE(std::string(error.what()).find("the sources' queues hold"), std::string::npos) << error.what();
      EXPECT_NE(std::string(error.what()).find("lower --load"), std::string::npos) << error.what();
      // The count refused: the queued packets at twice their number (a growing vector's worst
      // case) plus the capacity of the queue that grows (a power of two, at least 1), over the
      // block's share of the budget.
      const std::string text = error.what();
      const std::size_t held = text.find("hold "), counted = text.find(" packet slots x 32 bytes = ");
      ASSERT_TRUE(held != std::string::npos && counted != std::string::npos) << text;
      const std::uint64_t queued = std::stoull(text.substr(held + 5));
      const std::uint64_t slots = std::stoull(text.substr(text.rfind(' ', counted - 1) + 1));
      ASSERT_GT(slots, 2 * queued) << text;
      EXPECT_TRUE(std::has_single_bit(slots - 2 * queued)) << text;
      EXPECT_GT(slots * 32, config.memoryBudgetBytes / threads) << text;
    }
  }
  config.threads = 1;
  config.measureCycles = 100;  // (and a drain of 400: 600 cycles)
  const SimResult result = simulate(fabric.network, routing, config);
  EXPECT_LT(result.accepted, 0.9 * result.offered);  // saturated indeed, and within the budget
}

// A routing that loops (here: the top switches send terminal 2's packets back down to the
// leaf of terminals 0 and 1, which sends them up again) keeps its packets moving forever, so
// neither the watchdog nor the end of a trace would stop the run: a packet that has crossed
// more links than the fabric has channels stops it with a SimulationError naming the pair,
// at the first link past that count, on one thread and on two; for a trace (which runs until every packet is delivered)
// as for synthetic traffic.
TEST(Simulator, ARoutingLoopIsAnErrorNotAHang) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  const Network& network = fabric.network;
  RoutingResult routing = route("dmodk", network);
  const NodeId leaf = network.target(network.injectionChannel(network.terminalNode(0)));
  const Address toTerminal2 = routing.addresses.base(network.terminalNode(2));
  int changed = 0;
  for (PortNumber up = 1; up <= network.portCount(leaf); ++up) {
    const ChannelId channel = network.channelAt(leaf, up);
    if (!channel.valid() || !network.isSwitch(network.target(channel))) continue;
    const NodeId top = network.target(channel);
    for (PortNumber down = 1; down <= network.portCount(top); ++down) {
      const ChannelId back = network.channelAt(top, down);
      if (!back.valid() || network.target(back) != leaf) continue;
      for (ForwardingTable& table : routing.tables) table.set(network.switchIndex(top), toTerminal2, down);
      ++changed;
    }
  }
  ASSERT_EQ(changed, 2);
  const Trace trace = parseTrace("time,source,destination,bytes\n0,0,2,1024\n5,3,1,1024\n", "t.csv", network);
  for (std::uint32_t threads : {1U, 2U}) {
    SimConfig config;
    config.threads = threads;
    for (const Trace* input :
         {static_cast<const Trace*>(nullptr), &trace}) {  // (without the check, the trace run never ends)
      try {
        (void)simulate(network, routing, config, input);
        FAIL() << "no error on " << threads << " threads";
      } catch (const SimulationError& error) {
        EXPECT_NE(std::string(error.what()).find("the routing loops: a packet from terminal"), std::string::npos)
            << error.what();
        EXPECT_NE(std::string(error.what()).find("to 'kt-h2'"), std::string::npos) << error.what();
        // Stopped at the first link past the fabric's channels, not one before.
        const std::string crossed = "has crossed " + std::to_string(network.channelCount() + 1) +
                                    " links, more than the fabric's " + std::to_string(network.channelCount()) +
                                    " channels";
        EXPECT_NE(std::string(error.what()).find(crossed), std::string::npos) << error.what();
      }
    }
  }
}

// Sources whose next message lies thousands of cycles ahead (beyond the engine's calendar of
// generation cycles, in its heap) generate at their own cycles, and idle stretches are jumped
// over without skipping one: at a load of one message per ~2,000 cycles per source, every
// packet has the reference model's times (Bernoulli sources: the reference model's).
TEST(Simulator, SourcesFarAheadGenerateAtTheirOwnCycles) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const RoutingResult routing = route("ftree-adaptive", fabric.network);
  for (std::uint64_t seed : {7, 8}) {
    const SimConfig config = drained(0.004, 40000, seed);
    const SimResult fast = simulate(fabric.network, routing, config);
    const std::vector<PacketRecord> reference = sim::referenceSimulate(fabric.network, routing, config, 200000);
    const std::vector<PacketRecord> engine = sorted(fast.packets);
    ASSERT_GT(engine.size(), 100U) << "too little traffic to compare";
    std::vector<PacketRecord> bySource = engine;  // consecutive messages of a source more than 1,024 cycles apart
    std::sort(bySource.begin(), bySource.end(), [](const PacketRecord& a, const PacketRecord& b) {
      return std::tie(a.source, a.generated) < std::tie(b.source, b.generated);
    });
    std::uint64_t longGaps = 0;
    for (std::size_t i = 1; i < bySource.size(); ++i) {
      if (bySource[i].source == bySource[i - 1].source && bySource[i].generated > bySource[i - 1].generated + 1024) {
        ++longGaps;
      }
    }
    EXPECT_GT(longGaps, 20U) << "the case must exercise sources beyond the calendar";
    ASSERT_EQ(engine.size(), reference.size());
    for (std::size_t i = 0; i < engine.size(); ++i)
      ASSERT_EQ(engine[i], reference[i]) << "seed " << seed << " packet " << i;
  }
}

TEST(Simulator, EveryInjectedPacketIsDeliveredExactlyOnce) {
  int runs = 0;
  for (const char* fabricSpec : {"kary-ntree:k=4,n=2", "random:switches=12,seed=2"}) {
    const Fabric fabric = loadFabric(fabricSpec);
    const bool tree = std::string(fabricSpec).starts_with("kary");
    for (const std::string& engine : tree ? std::vector<std::string>{"dmodk", "ftree-adaptive", "smodk"}
                                          : std::vector<std::string>{"updown", "lash", "escape", "a-lash"}) {
      const RoutingResult routing = route(engine, fabric.network);
      for (const char* pattern : {"uniform", "random-permutation", "uniform-hot-spot:fraction=0.2"}) {
        for (std::uint64_t seed : {1, 7}) {
          SimConfig config = drained(seed == 1 ? 0.3 : 0.9, 1500, seed);
          config.traffic = pattern;
          config.inOrder = seed == 7;
          config.selection = seed == 7 ? Selection::Random : Selection::Sadp;
          const SimResult result = simulate(fabric.network, routing, config);
          ++runs;
          ASSERT_FALSE(result.deadlock) << engine << " " << pattern;
          EXPECT_EQ(result.packetsGenerated, result.packetsInjected) << engine << " " << pattern;
          EXPECT_EQ(result.packetsInjected, result.packetsDelivered) << engine << " " << pattern;
          std::set<std::tuple<std::uint32_t, std::uint32_t, std::uint64_t>> seen;
          for (const PacketRecord& r : result.packets) {
            EXPECT_TRUE(seen.emplace(r.source, r.destination, r.sequence).second) << "delivered twice";
            EXPECT_GE(r.delivered, r.injected + 1);
            EXPECT_GE(r.released, r.delivered);
          }
          EXPECT_EQ(seen.size(), result.packetsGenerated);
          if (config.inOrder) {
            // Released in sequence order per pair: the reorder buffer did its job.
            std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> next;
            for (const PacketRecord& r : result.packets) {
              const std::pair<std::uint32_t, std::uint32_t> pair{r.source, r.destination};
              EXPECT_EQ(next[pair]++, r.sequence);
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(runs, 3 * 3 * 2 + 4 * 3 * 2);
}

TEST(Simulator, SameSeedSameResultOnAnyThreadCount) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=2");
  const RoutingResult routing = route("ftree-adaptive", fabric.network);
  SimConfig config;
  config.warmupCycles = 500;
  config.measureCycles = 2000;
  config.selection = Selection::Random;
  const std::vector<double> loads = {0.2, 0.5, 0.8};
  const auto one = simulateLoads(fabric.network, routing, config, loads, 1);
  const auto two = simulateLoads(fabric.network, routing, config, loads, 2);
  for (std::size_t i = 0; i < loads.size(); ++i) {
    EXPECT_EQ(one[i].packetsDelivered, two[i].packetsDelivered);
    EXPECT_EQ(one[i].latencyAvg, two[i].latencyAvg);
    EXPECT_EQ(one[i].channelUtilization, two[i].channelUtilization);
    EXPECT_NEAR(one[i].offered, loads[i], 0.05 + 0.1 * loads[i]);
  }
  config.seed = 2;
  config.load = 0.5;
  const SimResult other = simulate(fabric.network, routing, config);
  EXPECT_NE(other.latencyAvg, one[1].latencyAvg) << "the seed must matter";
}

TEST(Simulator, DeterministicRoutingDeliversInOrderAdaptiveDoesNot) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=3");
  SimConfig config;
  config.load = 0.7;
  config.warmupCycles = 1000;
  config.measureCycles = 4000;
  const SimResult deterministic = simulate(fabric.network, route("ftree-deterministic", fabric.network), config);
  EXPECT_EQ(deterministic.outOfOrder, 0U);
  EXPECT_GT(deterministic.packetsDelivered, 1000U);
  config.selection = Selection::FirstFree;
  const SimResult adaptive = simulate(fabric.network, route("ftree-adaptive", fabric.network), config);
  EXPECT_GT(adaptive.outOfOrder, 0U) << "adaptive routing at high load reorders some packets";
}

TEST(Simulator, DeadlocksExactlyWhereTheVerifierPredicts) {
  for (const std::string& fabricSpec : {test::ringFabric(5, "ring"), std::string("random:switches=16,seed=1")}) {
    const Fabric fabric = loadFabric(fabricSpec);
    for (const char* engine : {"minhop", "updown", "lash"}) {
      const RoutingResult routing = route(engine, fabric.network);
      const VerifyResult verdict = verifyRouting(fabric.network, routing);
      // Saturating load on small buffers: a deadlock-prone routing fills a waiting cycle
      // within a few seeds (each with another arbitration: the fair ones make some cycles
      // rarer — the 5-ring's minhop ran 100,000 cycles without one under round-robin, seeds
      // 1-6); a deadlock-free one never stops moving under any.
      bool deadlocked = false;
      for (std::uint64_t seed = 1; seed <= 3 && !deadlocked; ++seed) {
        SimConfig config = test::deadlockProneConfig(seed);
        config.flyTime = 1;
        config.drainAll = true;  // then every generated packet must arrive
        const SimResult result = simulate(fabric.network, routing, config);
        deadlocked = result.deadlock;
        if (result.deadlock) {
          EXPECT_GE(result.deadlockReport.channels.size(), 2U) << "a waiting cycle names its channels";
          EXPECT_FALSE(result.deadlockReport.packets.empty());
          EXPECT_GE(result.deadlockReport.cycle, result.deadlockReport.lastMove + config.watchdogCycles);
          // The JSON output carries the report as it is (docs/SIMULATION.md "Output").
          const nlohmann::json json = simResultJson(result);
          EXPECT_EQ(json["deadlock"], true);
          EXPECT_EQ(json["deadlock_cycle"], result.deadlockReport.cycle);
          EXPECT_EQ(json["deadlock_last_move"], result.deadlockReport.lastMove);
          EXPECT_EQ(json["deadlock_channels"], result.deadlockReport.channels);
          EXPECT_EQ(json["deadlock_packets"], result.deadlockReport.packets);
        } else {
          EXPECT_EQ(result.packetsDelivered, result.packetsGenerated) << "no packet stuck";
          const nlohmann::json json = simResultJson(result);
          EXPECT_EQ(json["deadlock"], false);
          EXPECT_FALSE(json.contains("deadlock_cycle") || json.contains("deadlock_channels"));
        }
      }
      EXPECT_EQ(deadlocked, !verdict.deadlockFree) << fabricSpec << " " << engine;
    }
  }
}

// The deadlock report is one cycle of the wait-for graph of (channel, VC) queues
// (sim/watchdog.h): each named queue's channel leads into the switch the next one leaves, the
// last into the first's, each at a VC the configuration has, each with its front packet. Two
// VCs per link, so that a queue's index (channel x VCs + VC) and its channel differ.
TEST(Simulator, TheDeadlockReportIsAWaitingCycleOfChannelVcQueues) {
  const Fabric fabric = loadFabric(test::ringFabric(5, "report_vcs"));
  const Network& network = fabric.network;
  const RoutingResult routing = route("minhop", network);
  std::map<std::string, ChannelId> channelNamed;
  for (std::size_t c = 0; c < network.channelCount(); ++c) {
    channelNamed[network.describeChannel(ChannelId::fromIndex(c))] = ChannelId::fromIndex(c);
  }
  bool deadlocked = false;
  for (std::uint64_t seed = 1; seed <= 3 && !deadlocked; ++seed) {
    SimConfig config = test::deadlockProneConfig(seed);
    config.vcs = 2;
    const SimResult result = simulate(network, routing, config);
    deadlocked = result.deadlock;
    if (!deadlocked) continue;
    const std::vector<std::string>& named = result.deadlockReport.channels;
    ASSERT_GE(named.size(), 2U);
    EXPECT_EQ(result.deadlockReport.packets.size(), named.size()) << "a packet at the front of every queue";
    std::vector<ChannelId> cycle;
    std::set<std::pair<std::uint32_t, std::uint32_t>> queues;
    for (const std::string& text : named) {
      const std::size_t vcAt = text.rfind(" vc ");
      ASSERT_NE(vcAt, std::string::npos) << text;
      const auto found = channelNamed.find(text.substr(0, vcAt));
      ASSERT_NE(found, channelNamed.end()) << text << ": no channel of the fabric";
      const std::uint32_t vc = static_cast<std::uint32_t>(std::stoul(text.substr(vcAt + 4)));
      EXPECT_LT(vc, config.vcs) << text;
      EXPECT_TRUE(queues.insert({static_cast<std::uint32_t>(found->second.index()), vc}).second) << text << " twice";
      cycle.push_back(found->second);
    }
    for (std::size_t i = 0; i < cycle.size(); ++i) {
      const ChannelId next = cycle[(i + 1) % cycle.size()];
      EXPECT_TRUE(network.isSwitch(network.target(cycle[i]))) << named[i];
      EXPECT_EQ(network.target(cycle[i]), network.source(next))
          << named[i] << " then " << named[(i + 1) % cycle.size()];
    }
  }
  EXPECT_TRUE(deadlocked) << "minhop on a 5-ring with two VCs deadlocks within three seeds";
}

// The watchdog's wait-for graph follows each waiting packet's choices at its switch; a choice
// that leads nowhere — a port without a cable, which a candidate list may hold
// (routing/semantics.h, DeadPort) — adds no wait. Here every list of a 5-ring's minhop ends in
// port 4 of its 3-port switch: the run deadlocks as minhop alone does, and the report names
// the ring's channels only.
TEST(Simulator, AChoiceWithoutACableIsNoWaitInTheDeadlockReport) {
  const Fabric fabric = loadFabric(test::ringFabric(5, "deadport"));
  RoutingResult routing = route("minhop", fabric.network);
  ForwardingTable& table = routing.tables[0];
  std::size_t lists = 0;
  for (std::uint32_t s = 0; s < table.switchCount(); ++s) {
    for (Address a = 0; a < table.addressCount(); ++a) {
      const PortNumber port = table.port(s, a);
      if (port == kNoRoute || port == 0) continue;
      const std::array<PortNumber, 2> ports{port, 4};
      table.setCandidates(s, a, ports);
      ++lists;
    }
  }
  ASSERT_EQ(lists, 5u * 5u);  // every switch to every terminal
  routing.deterministic = false;
  bool deadlocked = false;
  for (std::uint64_t seed = 1; seed <= 3 && !deadlocked; ++seed) {
    const SimResult result = simulate(fabric.network, routing, test::deadlockProneConfig(seed));
    deadlocked = result.deadlock;
    if (!deadlocked) continue;
    ASSERT_GE(result.deadlockReport.channels.size(), 2u);
    for (const std::string& channel : result.deadlockReport.channels) {
      EXPECT_EQ(channel.find("h"), std::string::npos) << channel << ": a terminal's channel is never waited on";
    }
  }
  EXPECT_TRUE(deadlocked);
}

TEST(Simulator, ChannelUtilizationIsOfferedLoadTimesTheStaticLoads) {
  // Uniform traffic: every source picks each other terminal with probability 1/(N-1), so a
  // channel carries load x (all-to-all load of the channel) / (N-1) flits per cycle.
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=2");
  const RoutingResult routing = route("dmodk", fabric.network);
  const std::size_t n = fabric.network.terminalCount();
  const TrafficPattern all = makePattern("all-to-all", fabric.network, 1);
  const LinkLoads loads = patternLoads(fabric.network, routing, all);
  SimConfig config;
  config.load = 0.3;
  config.warmupCycles = 2000;
  config.measureCycles = 200000;
  const SimResult result = simulate(fabric.network, routing, config);
  ASSERT_FALSE(result.saturated);
  double worst = 0;
  for (std::size_t c = 0; c < loads.load.size(); ++c) {
    const double expected = result.offered * loads.load[c] / double(n - 1);
    worst = std::max(worst, std::abs(result.channelUtilization[c] - expected));
    EXPECT_NEAR(result.channelUtilization[c], expected, 0.02)
        << fabric.network.describeChannel(ChannelId::fromIndex(c));
  }
  EXPECT_GT(worst, 0.0) << "sampling noise exists: the comparison is not vacuous";
}

TEST(Simulator, TraceIsDeliveredCompletely) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const Trace trace = parseTrace("time,source,destination,bytes\n0,0,7,3000\n5,1,6,100\n# comment\n10,7,0,1024\n",
                                 "t.csv", fabric.network);
  ASSERT_EQ(trace.messages.size(), 3U);
  SimConfig config;
  config.recordPackets = true;
  const SimResult result = simulate(fabric.network, route("dmodk", fabric.network), config, &trace);
  EXPECT_EQ(result.packetsDelivered, 3U + 1U + 1U);  // 3000 bytes = 3 packets of 1 KiB
  EXPECT_GT(result.lastDelivery, 10U);
  EXPECT_FALSE(result.deadlock);
}

// docs/SIMULATION.md "Traces": terminals by name or index, `#` comments, lines in any order —
// each variation of one trace simulates to the same packets, cycle for cycle.
TEST(Simulator, TraceVariationsSimulateAlike) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const Network& network = fabric.network;
  const std::vector<std::array<std::uint64_t, 4>> rows = {{0, 0, 7, 3000}, {0, 3, 1, 1024},  {5, 1, 6, 100},
                                                          {5, 6, 1, 2048}, {10, 7, 0, 1024}, {40, 2, 5, 512}};
  auto text = [&](bool names, bool reversed, bool comments) {
    std::string out = "time,source,destination,bytes\n";
    std::vector<std::array<std::uint64_t, 4>> order = rows;
    if (reversed) std::reverse(order.begin(), order.end());
    for (const auto& [time, source, destination, bytes] : order) {
      auto terminal = [&](std::uint64_t t) {
        return names ? network.name(network.terminalNode(static_cast<std::uint32_t>(t))) : std::to_string(t);
      };
      if (comments) out += "# the next message\n";
      out += fmt::format("{},{},{},{}\n", time, terminal(source), terminal(destination), bytes);
    }
    return out;
  };
  SimConfig config;
  config.recordPackets = true;
  const RoutingResult routing = route("ftree-adaptive", network);
  const Trace canonical = parseTrace(text(false, false, false), "t.csv", network);
  const SimResult expected = simulate(network, routing, config, &canonical);
  ASSERT_EQ(expected.packetsDelivered, 3U + 1U + 1U + 2U + 1U + 1U);
  for (int variant = 1; variant < 8; ++variant) {
    const Trace trace = parseTrace(text(variant & 1, variant & 2, variant & 4), "t.csv", network);
    const SimResult result = simulate(network, routing, config, &trace);
    EXPECT_EQ(result.lastDelivery, expected.lastDelivery) << variant;
    EXPECT_EQ(sorted(result.packets), sorted(expected.packets)) << variant;
  }
}

// docs/SIMULATION.md "Traces": lines in any order, sorted by time; messages of the same time
// keep their file order (a source's messages of one cycle are sent in that order).
TEST(Simulator, TraceMessagesOfOneTimeKeepTheirFileOrder) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const std::vector<std::array<std::uint64_t, 4>> lines = {{7, 0, 5, 100}, {3, 1, 2, 10}, {7, 0, 6, 200},
                                                           {7, 2, 1, 300}, {3, 1, 3, 20}, {7, 0, 4, 400}};
  std::string text = "time,source,destination,bytes\n";
  for (const auto& [time, source, destination, bytes] : lines) {
    text += fmt::format("{},{},{},{}\n", time, source, destination, bytes);
  }
  const Trace trace = parseTrace(text, "t.csv", fabric.network);
  std::vector<std::array<std::uint64_t, 4>> expected;  // by time; within a time, as in the file
  for (const std::uint64_t time : {3U, 7U}) {
    for (const auto& line : lines) {
      if (line[0] == time) expected.push_back(line);
    }
  }
  ASSERT_EQ(trace.messages.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const TraceMessage& m = trace.messages[i];
    EXPECT_EQ((std::array<std::uint64_t, 4>{m.cycle, m.source, m.destination, m.bytes}), expected[i]) << i;
  }
}

// formatTrace writes what parseTrace reads: the same messages back, names for terminals.
TEST(Simulator, AFormattedTraceReadsBackToTheSameMessages) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const Trace trace = generateIoTrace(fabric.network, parseIoTraceSpec("io:storage=2,clients=3,requests=5", 4));
  const std::string text = formatTrace(trace, fabric.network);
  EXPECT_EQ(text.substr(0, text.find('\n')), "time,source,destination,bytes");
  const Trace back = parseTrace(text, "back.csv", fabric.network);
  ASSERT_EQ(back.messages.size(), trace.messages.size());
  for (std::size_t i = 0; i < trace.messages.size(); ++i) {
    const TraceMessage& a = trace.messages[i];
    const TraceMessage& b = back.messages[i];
    EXPECT_EQ(std::tie(a.cycle, a.source, a.destination, a.bytes), std::tie(b.cycle, b.source, b.destination, b.bytes))
        << i;
  }
  const std::string firstLine = text.substr(text.find('\n') + 1, text.find('\n', text.find('\n') + 1));
  EXPECT_NE(firstLine.find(fabric.network.name(fabric.network.terminalNode(trace.messages[0].source))),
            std::string::npos)
      << firstLine;
}

// Lazy credits keep 32-bit cycles (sim/credit_flow.h): they are counted in at least every 2^30
// cycles and all of them before a jump past their cycles. A trace whose second burst comes
// after an idle gap of more than 3 x 2^30 cycles makes the run jump over it: that burst's packets
// must take exactly the times they take after a short gap (the network is empty both times),
// with grouped events (lazy credits) and without.
TEST(Simulator, LazyCreditsSurviveAJumpOfBillionsOfCycles) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const RoutingResult routing = route("dmodk", fabric.network);
  const auto burstsAt = [](std::uint64_t second) {
    Trace trace;
    trace.name = "bursts";
    for (const std::uint64_t start : {std::uint64_t{0}, second}) {
      for (std::uint32_t s = 0; s < 8; ++s) trace.messages.push_back({start + s, s, (s + 3) % 8, 4096});
    }
    return trace;
  };
  constexpr std::uint64_t kShort = 20000, kLong = (std::uint64_t{3} << 30) + 12345;
  for (const SimConfig::Grouping grouping : {SimConfig::Grouping::Always, SimConfig::Grouping::Never}) {
    SimConfig config;
    config.recordPackets = true;
    config.grouping = grouping;
    config.threads = 2;
    const Trace near = burstsAt(kShort), far = burstsAt(kLong);
    const SimResult a = simulate(fabric.network, routing, config, &near);
    const SimResult b = simulate(fabric.network, routing, config, &far);
    ASSERT_EQ(a.packets.size(), 64U);  // 16 messages of 4 packets
    ASSERT_EQ(b.packets.size(), a.packets.size());
    EXPECT_FALSE(b.deadlock);
    for (std::size_t i = 0; i < a.packets.size(); ++i) {
      const PacketRecord& x = a.packets[i];
      const PacketRecord& y = b.packets[i];
      const std::uint64_t shift = x.generated >= kShort ? kLong - kShort : 0;
      EXPECT_EQ(std::tie(x.source, x.destination, x.sequence, x.hops),
                std::tie(y.source, y.destination, y.sequence, y.hops))
          << i;
      EXPECT_EQ(y.generated, x.generated + shift) << i;
      EXPECT_EQ(y.injected, x.injected + shift) << i;
      EXPECT_EQ(y.delivered, x.delivered + shift) << i;
    }
    EXPECT_EQ(b.lastDelivery, a.lastDelivery + (kLong - kShort));
  }
}

// Per client (the first `clients` terminals of an io trace), the times of its requests, sorted.
static std::map<std::uint32_t, std::vector<std::uint64_t>> requestTimesByClient(const Trace& trace,
                                                                                std::uint32_t clients) {
  std::map<std::uint32_t, std::vector<std::uint64_t>> requests;
  for (const TraceMessage& m : trace.messages) {
    if (m.source < clients) requests[m.source].push_back(m.cycle);
  }
  for (auto& [client, times] : requests) std::sort(times.begin(), times.end());
  return requests;
}

// The io generator's bursts (docs/SIMULATION.md): geometric length >= 1 of mean `burst`,
// each burst after an exponential gap of mean `gap`. With burst = 1 every request of a client
// follows its previous one by a gap draw plus 1..64 cycles: with a mean gap of 10^6 cycles,
// a distance of at most 64 cycles has probability 6.4e-5, so among 4 x 199 distances none is
// expected (bursts of two would make half of them so close).
TEST(Simulator, IoTraceBurstsOfOneAreEachAfterAGap) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const Trace trace =
      generateIoTrace(fabric.network, parseIoTraceSpec("io:storage=2,clients=4,requests=200,burst=1,gap=1000000", 3));
  std::map<std::uint32_t, std::vector<std::uint64_t>> requests = requestTimesByClient(trace, 4);
  ASSERT_EQ(requests.size(), 4U);
  std::size_t close = 0, distances = 0;
  for (auto& [client, times] : requests) {
    ASSERT_EQ(times.size(), 200U) << client;
    for (std::size_t i = 1; i < times.size(); ++i, ++distances) close += times[i] - times[i - 1] <= 64;
  }
  EXPECT_EQ(distances, 4U * 199U);
  EXPECT_LE(close, 2U) << "requests of one client closer than a gap: bursts longer than one";
}

// The io generator's bursts measured (docs/SIMULATION.md "Traces"): geometric burst lengths of
// mean `burst` and exponential gaps of mean `gap` between bursts. Within a burst requests
// follow each other by 1..64 cycles; with gap = 10^6 a gap of at most 64 cycles has probability
// 6.4e-5, so the bursts are read back by splitting each client's request times where they are
// more than 64 cycles apart. 4 clients x 2,000 requests with burst = 4: about 2,000 bursts;
// the mean length (variance 12 for p = 1/4) has a deviation of 0.08, the mean gap (plus
// 1..64 cycles) one of 22,400 cycles: each within 5 deviations.
TEST(Simulator, IoTraceBurstsHaveTheDocumentedMeanLengthAndGap) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const Trace trace =
      generateIoTrace(fabric.network, parseIoTraceSpec("io:storage=2,clients=4,requests=2000,burst=4,gap=1000000", 5));
  std::map<std::uint32_t, std::vector<std::uint64_t>> requests = requestTimesByClient(trace, 4);
  ASSERT_EQ(requests.size(), 4U);
  std::vector<double> lengths, gaps;
  for (auto& [client, times] : requests) {
    ASSERT_EQ(times.size(), 2000U) << client;
    std::size_t length = 1;
    for (std::size_t i = 1; i < times.size(); ++i) {
      const std::uint64_t distance = times[i] - times[i - 1];
      if (distance <= 64) {
        ++length;
        continue;
      }
      lengths.push_back(double(length));
      gaps.push_back(double(distance));
      length = 1;
    }  // (each client's last burst may be cut short by `requests`: left out)
  }
  ASSERT_GT(lengths.size(), 1500U);
  const double meanLength = std::accumulate(lengths.begin(), lengths.end(), 0.0) / double(lengths.size());
  const double meanGap = std::accumulate(gaps.begin(), gaps.end(), 0.0) / double(gaps.size());
  EXPECT_NEAR(meanLength, 4.0, 5 * std::sqrt(12.0 / double(lengths.size())));
  EXPECT_NEAR(meanGap, 1e6 + 32.5, 5 * 1e6 / std::sqrt(double(gaps.size())));
}

// A client's first burst, too, starts after one gap (docs/SIMULATION.md "Traces"): its first
// request comes an exponential gap of mean `gap` plus 1..64 cycles after cycle 0. 40 seeds x 6
// clients: the mean of 240 first requests (deviation 10^6 / sqrt(240) = 64,550 cycles) lies
// within 5 deviations of 10^6 + 32.5; two gaps before the first burst would put it near 2 x 10^6.
TEST(Simulator, IoTraceFirstBurstStartsOneGapAfterCycleZero) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  std::vector<double> firsts;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const Trace trace = generateIoTrace(
        fabric.network, parseIoTraceSpec("io:storage=2,clients=6,requests=1,burst=1,gap=1000000", seed));
    for (const auto& [client, times] : requestTimesByClient(trace, 6)) firsts.push_back(double(times.front()));
  }
  ASSERT_EQ(firsts.size(), 240U);
  const double mean = std::accumulate(firsts.begin(), firsts.end(), 0.0) / double(firsts.size());
  EXPECT_NEAR(mean, 1e6 + 32.5, 5 * 1e6 / std::sqrt(double(firsts.size())));
}

// The io generator's messages (docs/SIMULATION.md "Traces"): each request goes from one of the
// first `clients` terminals to one of the last `storage`, and is answered `service` cycles
// later the other way; a read is a 64-byte request answered by 4, 8, 16, 64 or 256 KiB, a write
// that much data answered by a 64-byte acknowledgement; about `writes` of them are writes.
TEST(Simulator, IoTraceSpecDefaultsAreTheDocumentedValuesAndEveryKeyReachesItsField) {
  // docs/SIMULATION.md: io:storage=23,clients=105,requests=200,burst=8,gap=20000,service=200,
  // writes=0.3 are the defaults; every key is optional.
  // Each of the seven keys' fields, as given.
  auto expectFields = [](const IoTraceSpec& spec, std::uint32_t storage, std::uint32_t clients, std::uint32_t requests,
                         double burst, double gap, std::uint64_t service, double writes) {
    EXPECT_EQ(spec.storage, storage);
    EXPECT_EQ(spec.clients, clients);
    EXPECT_EQ(spec.requests, requests);
    EXPECT_EQ(spec.burst, burst);
    EXPECT_EQ(spec.gap, gap);
    EXPECT_EQ(spec.service, service);
    EXPECT_EQ(spec.writes, writes);
  };
  const IoTraceSpec defaults = parseIoTraceSpec("io", 7);
  expectFields(defaults, 23, 105, 200, 8, 20000, 200, 0.3);
  EXPECT_EQ(defaults.seed, 7U);
  for (const char* key : {"storage", "clients", "requests", "burst", "gap", "service", "writes"}) {
    std::string spec = "io";
    for (const char* other : {"storage", "clients", "requests", "burst", "gap", "service", "writes"}) {
      if (std::string(other) != key) spec += std::string(spec == "io" ? ":" : ",") + other + "=1";
    }
    EXPECT_NO_THROW(parseIoTraceSpec(spec, 1)) << spec << ": '" << key << "' is optional";
  }
  const IoTraceSpec given = parseIoTraceSpec("io:storage=2,clients=3,requests=4,burst=5,gap=6,service=7,writes=0.5", 1);
  expectFields(given, 2, 3, 4, 5, 6, 7, 0.5);
  // writes is a share: 0 and 1 are accepted, anything outside [0, 1] is refused by name.
  EXPECT_EQ(parseIoTraceSpec("io:writes=0", 1).writes, 0.0);
  EXPECT_EQ(parseIoTraceSpec("io:writes=1", 1).writes, 1.0);
  for (const char* spec :
       {"io:writes=-0.01", "io:writes=1.01", "io:writes=-1", "io:writes=2", "io:burst=0.99", "io:gap=0", "io:gap=-1"}) {
    try {
      parseIoTraceSpec(spec, 1);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const SpecError& error) {
      EXPECT_NE(std::string(error.what()).find("needs burst >= 1, gap > 0 and writes in [0, 1]"), std::string::npos)
          << spec << ": " << error.what();
    }
  }
  EXPECT_EQ(parseIoTraceSpec("io:burst=1", 1).burst, 1.0);
}

TEST(Simulator, IoTraceRequestsAreAnsweredAsDocumented) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const Trace trace = generateIoTrace(
      fabric.network, parseIoTraceSpec("io:storage=3,clients=4,requests=300,burst=4,gap=500,service=77,writes=0.3", 9));
  const std::set<std::uint64_t> dataSizes = {4096, 8192, 16384, 65536, 262144};
  std::multimap<std::array<std::uint64_t, 3>, std::uint64_t> answers;  // (cycle, server, client) -> bytes
  for (const TraceMessage& m : trace.messages) {
    if (m.source >= 5) answers.insert({{m.cycle, m.source, m.destination}, m.bytes});
  }
  std::size_t requests = 0, writes = 0;
  std::set<std::uint64_t> sizesSeen;
  for (const TraceMessage& m : trace.messages) {
    if (m.source >= 5) continue;
    ++requests;
    ASSERT_LT(m.source, 4U) << "clients are the first 4 terminals";
    ASSERT_GE(m.destination, 5U) << "servers are the last 3";
    const auto answer = answers.find({m.cycle + 77, m.destination, m.source});
    ASSERT_NE(answer, answers.end()) << "no answer " << m.destination << " -> " << m.source << " at " << m.cycle + 77;
    const bool write = m.bytes != 64;
    writes += write;
    const std::uint64_t data = write ? m.bytes : answer->second;
    EXPECT_EQ(write ? answer->second : m.bytes, 64U) << "the other message of the pair is 64 bytes";
    EXPECT_EQ(dataSizes.count(data), 1U) << data;
    sizesSeen.insert(data);
    answers.erase(answer);
  }
  EXPECT_EQ(requests, 4U * 300U);
  EXPECT_TRUE(answers.empty()) << answers.size() << " answers without a request";
  EXPECT_EQ(sizesSeen, dataSizes);
  // 1,200 requests, each a write with probability 0.3: 360 expected, deviation 15.9; within 80
  // (5 deviations).
  EXPECT_NEAR(double(writes), 360.0, 80.0);
}

// Every refusal of the trace reader with its line and message (docs/FORMATS.md "Simulation
// traces"), and each limit at the limit (read) and one past it (refused): bytes 1 .. 2^40,
// time 0 .. 10^18 cycles, terminal indices below the fabric's count.
TEST(Simulator, TraceReaderRefusalsAndLimitsOneByOne) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");  // 8 terminals, kt-h0 .. kt-h7
  const std::string header = "time,source,destination,bytes\n";
  const auto errorOf = [&](const std::string& text) {
    try {
      parseTrace(text, "t.csv", fabric.network);
    } catch (const ParseError& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"time,src,destination,bytes\n", "t.csv:1: expected the header 'time,source,destination,bytes'"},
      {"# only a comment\n", "t.csv:1: empty trace: expected the header 'time,source,destination,bytes'"},
      {header + "0,0,1\n", "t.csv:2: expected 4 fields, found 3"},
      {header + "x,0,1,10\n", "t.csv:2: time 'x' is not a non-negative number of cycles"},
      {header + "1e19,0,1,10\n", "t.csv:2: time '1e19' is not a non-negative number of cycles"},
      {header + "0,nobody,1,10\n", "t.csv:2: 'nobody' is neither a terminal name nor a terminal index"},
      {header + "0,0,,10\n", "t.csv:2: '' is neither a terminal name nor a terminal index"},
      {header + "0,0,8,10\n", "t.csv:2: terminal index 8 out of range (the fabric has 8)"},
      {header + "0,kt-h3,3,10\n", "t.csv:2: source and destination are the same terminal"},
      {header + "0,0,1,0\n", "t.csv:2: bytes '0' is not a positive integer (at most 2^40)"},
      {header + "0,0,1,1099511627777\n", "t.csv:2: bytes '1099511627777' is not a positive integer (at most 2^40)"},
      {header + "0,0,1,12x\n", "t.csv:2: bytes '12x' is not a positive integer (at most 2^40)"},
  };
  for (const auto& [text, expected] : cases) {
    const std::string message = errorOf(text);
    ASSERT_GE(message.size(), expected.size()) << message;
    EXPECT_EQ(message.substr(message.size() - expected.size()), expected) << message;
  }
  // At the limits: read, with the values as given.
  const Trace limits = parseTrace(header + "1e18,0,7,1099511627776\n0,kt-h7,0,1\n", "t.csv", fabric.network);
  ASSERT_EQ(limits.messages.size(), 2U);
  EXPECT_EQ(limits.messages[1].cycle, std::uint64_t{1000000000000000000});
  EXPECT_EQ(limits.messages[1].bytes, std::uint64_t{1} << 40);
  EXPECT_EQ(limits.messages[1].destination, 7U);
  EXPECT_EQ(limits.messages[0].source, 7U);
  EXPECT_EQ(limits.messages[0].bytes, 1U);
}

TEST(Simulator, BadTracesAndParametersAreRefusedWithTheirPlace) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  EXPECT_THROW(parseTrace("", "t.csv", fabric.network), ParseError);
  try {
    parseTrace("time,source,destination,bytes\n0,0,9,10\n", "t.csv", fabric.network);
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("t.csv:2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parseTrace("time,source,destination,bytes\n0,1,1,10\n", "t.csv", fabric.network), ParseError);
  EXPECT_THROW(parseTrace("time,source,destination,bytes\n-1,0,1,10\n", "t.csv", fabric.network), ParseError);
  const RoutingResult routing = route("lash", fabric.network);
  SimConfig config;
  config.load = 1.5;
  EXPECT_THROW(simulate(fabric.network, routing, config), SpecError);
  config.load = 0.1;
  config.traffic = "uniform-hot-spot:fraction=2";
  EXPECT_THROW(simulate(fabric.network, routing, config), SpecError);
  config.traffic = "no-such-pattern";
  EXPECT_THROW(simulate(fabric.network, routing, config), SpecError);
  config.traffic = "uniform:fraction=0.5";
  EXPECT_EQ(test::thrownMessage<SpecError>([&] { simulate(fabric.network, routing, config); }),
            "traffic 'uniform' takes no options (got 'uniform:fraction=0.5')");
  EXPECT_EQ(test::thrownMessage<SpecError>([] { parseLoadRange("0.1:x:0.1"); }),
            "--loads '0.1:x:0.1': 'x' is not a number");
  EXPECT_THROW(parseLoadRange("0.5:0.1:0.1"), SpecError);
  EXPECT_EQ(parseLoadRange("0.1:0.5:0.1").size(), 5U);
}

// The engine checks each hop's choices against its cached port table (RoutingSemantics::step
// rules): a port into the wrong terminal is skipped among several choices, and is an error
// naming the pair, the switch and the port when it is the only one. The reference model skips
// and refuses alike.
TEST(Simulator, ChoicesIntoTheWrongTerminalAreSkippedOrRefused) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=2");
  const Network& network = fabric.network;
  RoutingResult routing = route("dmodk", network);
  ForwardingTable& table = routing.tables[routing.tableOfLayer[0]];
  // A leaf switch's entry for one of its own terminals, and another terminal's port there.
  const NodeId leaf = network.target(network.injectionChannel(network.terminalNode(0)));
  const std::uint32_t leafIndex = network.switchIndex(leaf);
  const Address a = routing.addressFor(network.terminalNode(1), network.terminalNode(0));
  const PortNumber right = table.port(leafIndex, a);
  ASSERT_EQ(network.target(network.channelAt(leaf, right)), network.terminalNode(0));
  PortNumber wrong = kNoRoute;
  for (PortNumber port = 1; port <= network.portCount(leaf) && wrong == kNoRoute; ++port) {
    const ChannelId channel = network.channelAt(leaf, port);
    if (channel.valid() && network.isTerminal(network.target(channel)) && port != right) wrong = port;
  }
  ASSERT_NE(wrong, kNoRoute);
  SimConfig config = drained(0.3, 2000, 1);
  const std::array<PortNumber, 2> wrongFirst{wrong, right};
  table.setCandidates(leafIndex, a, wrongFirst);
  const SimResult skipped = simulate(network, routing, config);
  EXPECT_FALSE(skipped.deadlock);
  EXPECT_EQ(skipped.packetsDelivered, skipped.packetsGenerated);
  ASSERT_NO_FATAL_FAILURE(expectReferenceTimes(network, routing, config, 50, "the wrong terminal listed first"));
  table.setCandidates(leafIndex, a, std::array<PortNumber, 1>{wrong});
  const std::string reference = test::thrownMessage<SimulationError>(
      [&] { sim::referenceSimulate(network, routing, config, 200000); }, "simulated by the reference model");
  EXPECT_NE(reference.find(fmt::format("-> 0 no usable port at '{}'", network.name(leaf))), std::string::npos)
      << reference;
  try {
    simulate(network, routing, config);
    FAIL() << "a routing into the wrong terminal was simulated";
  } catch (const SimulationError& e) {
    const std::string text = e.what();
    EXPECT_NE(text.find("does not deliver terminal"), std::string::npos) << text;
    EXPECT_NE(text.find(fmt::format("(port {})", wrong)), std::string::npos) << text;
    EXPECT_NE(text.find(network.name(leaf)), std::string::npos) << text;
  }
  // The same refusal whichever of the leaf's other terminals the one port leads to, for a
  // destination with terminals on both sides of its port (the leaf's third): the check reads
  // the terminal behind the port the table names, not a neighbour's.
  const NodeId third = network.terminalNode(2);
  ASSERT_EQ(network.target(network.injectionChannel(third)), leaf);
  const Address toThird = routing.addressFor(network.terminalNode(0), third);
  const PortNumber thirdPort = table.port(leafIndex, toThird);
  for (PortNumber port = 1; port <= network.portCount(leaf); ++port) {
    const ChannelId channel = network.channelAt(leaf, port);
    if (!channel.valid() || !network.isTerminal(network.target(channel)) || port == thirdPort) continue;
    RoutingResult broken = route("dmodk", network);
    broken.tables[broken.tableOfLayer[0]].setCandidates(leafIndex, toThird, std::array<PortNumber, 1>{port});
    try {
      simulate(network, broken, config);
      ADD_FAILURE() << "a routing from " << network.name(leaf) << " port " << unsigned(port) << " into "
                    << network.name(network.target(channel)) << " was simulated";
    } catch (const SimulationError& e) {
      const std::string text = e.what();
      EXPECT_NE(text.find("does not deliver terminal"), std::string::npos) << text;
      EXPECT_NE(text.find(fmt::format("(port {})", port)), std::string::npos) << text;
    }
  }
  const std::array<PortNumber, 2> bothWrong{wrong, static_cast<PortNumber>(network.portCount(leaf) + 1)};
  table.setCandidates(leafIndex, a, bothWrong);
  EXPECT_THROW(sim::referenceSimulate(network, routing, config, 200000), SimulationError);
  try {
    simulate(network, routing, config);
    FAIL() << "a routing with no usable port was simulated";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("no usable port"), std::string::npos) << e.what();
  }
}

// A table entry naming a port the switch has but no cable leaves, as the only choice: refused
// with the pair, the switch and the port (RoutingSemantics::step's "no route"), by the
// resolved-candidate path as by the general one. A ring of four 4-port switches, port 4 free.
TEST(Simulator, AnOnlyChoiceWithoutACableIsRefused) {
  const Fabric fabric = loadFabric(test::ringFabric(4, "uncabled", 4));
  const Network& network = fabric.network;
  const NodeId s0 = network.target(network.injectionChannel(network.terminalNode(0)));
  ASSERT_EQ(network.portCount(s0), 4U);
  ASSERT_FALSE(network.channelAt(s0, 4).valid());
  const SimConfig config = drained(0.3, 2000, 1);
  RoutingResult routing = route("updown", network);
  EXPECT_NO_THROW(simulate(network, routing, config));
  const Address toH2 = routing.addressFor(network.terminalNode(0), network.terminalNode(2));
  routing.tables[routing.tableOfLayer[0]].setCandidates(network.switchIndex(s0), toH2, std::array<PortNumber, 1>{4});
  const std::string text =
      test::thrownMessage<SimulationError>([&] { simulate(network, routing, config); }, "simulated");
  EXPECT_NE(text.find("does not deliver terminal 0 -> 2"), std::string::npos) << text;
  EXPECT_NE(text.find("at switch 's0' (port 4)"), std::string::npos) << text;
  // A list of two ports, neither with a cable (5-port switches, ports 4 and 5 free): no port
  // left to take, refused as such — a list the resolved path took as leading to switches would
  // send the packet into no channel.
  const Fabric wide = loadFabric(test::ringFabric(4, "uncabled-pair", 5));
  const NodeId w0 = wide.network.target(wide.network.injectionChannel(wide.network.terminalNode(0)));
  ASSERT_FALSE(wide.network.channelAt(w0, 4).valid());
  ASSERT_FALSE(wide.network.channelAt(w0, 5).valid());
  RoutingResult pair = route("updown", wide.network);
  pair.deterministic = false;
  pair.tables[pair.tableOfLayer[0]].setCandidates(
      wide.network.switchIndex(w0), pair.addressFor(wide.network.terminalNode(0), wide.network.terminalNode(2)),
      std::array<PortNumber, 2>{4, 5});
  for (const Selection selection : {Selection::FirstFree, Selection::Random}) {
    SimConfig adaptive = config;
    adaptive.selection = selection;
    const std::string none =
        test::thrownMessage<SimulationError>([&] { simulate(wide.network, pair, adaptive); }, "simulated");
    EXPECT_NE(none.find("the routing offers terminal 0 -> 2 no usable port at switch 's0'"), std::string::npos) << none;
  }
}

// A candidate list with a port the switch has but no cable leaves (routing/semantics.h,
// DeadPort) is never one the engine resolves for every packet: the port is skipped, as the
// reference model skips it. A ring of four 4-port switches, port 4 free, each list towards
// another switch given port 4 as a second choice; the cable test must look at the port's own
// exit (the next port's exits, or the next switch's, have cables).
TEST(Simulator, ListsWithAPortWithoutACableHaveTheReferenceModelsTimes) {
  const Fabric fabric = loadFabric(test::ringFabric(4, "deadlist", 4));
  const Network& network = fabric.network;
  RoutingResult routing = route("updown", network);
  ForwardingTable& table = routing.tables[routing.tableOfLayer[0]];
  std::size_t lists = 0;
  for (std::uint32_t s = 0; s < table.switchCount(); ++s) {
    ASSERT_FALSE(network.channelAt(network.switchNode(s), 4).valid());
    for (Address a = 0; a < table.addressCount(); ++a) {
      const PortNumber port = table.port(s, a);
      if (port != 2 && port != 3) continue;  // (port 1 delivers)
      table.setCandidates(s, a, std::array<PortNumber, 2>{port, 4});
      ++lists;
    }
  }
  ASSERT_EQ(lists, 4U * 3U);  // every switch to every other terminal
  routing.deterministic = false;
  SimConfig config = drained(0.5, 2000, 1);
  config.selection = Selection::Random;
  ASSERT_NO_FATAL_FAILURE(expectReferenceTimes(network, routing, config, 100, "ring with port 4 listed"));
}

// A candidate list with a port into a terminal is resolved per packet (engine.h, "Not
// resolved"): taken only by packets for that terminal. A complete graph of four switches —
// port 1 to s+1, port 2 to the host, 3 to s-1, 4 to s+2 — where s0 offers h2's packets
// {2 (h0), 4 (s2)}: each port of the list follows a port into a switch, so a check that
// looked at a neighbouring port's exit would take the list as usable by every packet.
TEST(Simulator, ListsWithAPortIntoATerminalAreUsedOnlyForThatTerminal) {
  const std::filesystem::path file = test::scratchDir() / "k4-hosts-on-port-2.net";
  {
    std::ofstream out(file);
    for (int s = 0; s < 4; ++s) {
      out << "Switch 4 \"s" << s << "\"\n[1] \"s" << (s + 1) % 4 << "\"[3]\n[2] \"h" << s << "\"[1]\n[3] \"s"
          << (s + 3) % 4 << "\"[1]\n[4] \"s" << (s + 2) % 4 << "\"[4]\n\n";
    }
    for (int s = 0; s < 4; ++s) out << "Hca 1 \"h" << s << "\"\n[1] \"s" << s << "\"[2]\n\n";
  }
  const Fabric fabric = loadFabric("net:" + file.string());
  const Network& network = fabric.network;
  RoutingResult routing = route("updown", network);
  const NodeId s0 = *network.findNode("s0"), h0 = *network.findNode("h0"), h2 = *network.findNode("h2");
  const Address a = routing.addressFor(h0, h2);
  ForwardingTable& table = routing.tables[routing.tableOfLayer[0]];
  table.setCandidates(network.switchIndex(s0), a, std::array<PortNumber, 2>{2, 4});
  ASSERT_EQ(network.target(network.channelAt(s0, 2)), h0);
  ASSERT_EQ(network.target(network.channelAt(s0, 4)), *network.findNode("s2"));
  for (Selection selection : {Selection::Sadp, Selection::Random}) {
    SimConfig config = drained(0.4, 3000, 5);
    config.selection = selection;
    const SimResult result = simulate(network, routing, config);
    ASSERT_FALSE(result.deadlock);
    EXPECT_EQ(result.packetsDelivered, result.packetsGenerated);
    std::size_t fromH0ToH2 = 0;
    for (const PacketRecord& r : result.packets) {
      if (network.terminalNode(r.source) != h0 || network.terminalNode(r.destination) != h2) continue;
      ++fromH0ToH2;
      EXPECT_EQ(r.hops, 3U) << "h0 -> s0 -> s2 -> h2";
    }
    EXPECT_GT(fromH0ToH2, 20U);
    expectReferenceTimes(network, routing, config, 200, "k4 list with a terminal port");
  }
}

TEST(Simulator, HotSpotSendsItsFractionToTheTarget) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=2");
  SimConfig config = drained(0.2, 20000, 3);
  config.checkInvariants = false;
  config.traffic = "uniform-hot-spot:fraction=0.2,target=5";
  const SimResult result = simulate(fabric.network, route("dmodk", fabric.network), config);
  std::size_t toTarget = 0, fromOthers = 0;
  for (const PacketRecord& r : result.packets) {
    if (r.source == 5) continue;
    ++fromOthers;
    if (r.destination == 5) ++toTarget;
  }
  // 0.2 directly + 0.8 / 15 uniformly.
  EXPECT_NEAR(double(toTarget) / double(fromOthers), 0.2 + 0.8 / 15, 0.02);
}

// The per-pair sequence numbers: the dense table (32-bit counters), the map, and a dense
// table that outgrows its counters and becomes a map half-way give the same numbers as a
// plain model, for every pair, in any order of calls.
TEST(PairTable, DenseMapAndConvertedTablesCountAlike) {
  constexpr std::uint32_t kTerminals = 9;
  sim::PairTable dense(kTerminals);
  sim::PairTable map(kTerminals, /*denseLimit=*/0);
  sim::PairTable converting(kTerminals, std::size_t{1} << 20, /*denseCounterLimit=*/40);
  ASSERT_TRUE(dense.dense());
  ASSERT_FALSE(map.dense());
  ASSERT_TRUE(converting.dense());
  std::vector<std::uint64_t> next(kTerminals * kTerminals, 0), expected(kTerminals * kTerminals, 0);
  Rng rng(7);
  for (int step = 0; step < 4000; ++step) {
    const auto source = static_cast<std::uint32_t>(rng.below(kTerminals));
    const auto destination = static_cast<std::uint32_t>(rng.below(kTerminals));
    const std::size_t pair = std::size_t{source} * kTerminals + destination;
    if (rng.below(2) == 0) {
      const auto count = static_cast<std::uint32_t>(1 + rng.below(3));
      for (sim::PairTable* table : {&dense, &map, &converting}) {
        ASSERT_EQ(table->takeSequences(source, destination, count), next[pair]) << "step " << step;
      }
      next[pair] += count;
    } else if (expected[pair] < next[pair]) {
      for (sim::PairTable* table : {&dense, &map, &converting}) {
        ASSERT_EQ(table->expected(source, destination), expected[pair]) << "step " << step;
        table->setExpected(source, destination, expected[pair] + 1);
      }
      ++expected[pair];
    }
  }
  EXPECT_FALSE(converting.dense());  // some pair passed 40 sequence numbers
  // The map forms hold one entry per pair that has sent (a dense table: none in a map).
  const auto sent = static_cast<std::size_t>(std::count_if(next.begin(), next.end(), [](auto n) { return n > 0; }));
  EXPECT_EQ(dense.mapPairs(), 0U);
  EXPECT_EQ(map.mapPairs(), sent);
  EXPECT_EQ(converting.mapPairs(), sent);
  for (std::uint32_t source = 0; source < kTerminals; ++source) {
    for (std::uint32_t destination = 0; destination < kTerminals; ++destination) {
      const std::size_t pair = std::size_t{source} * kTerminals + destination;
      for (sim::PairTable* table : {&dense, &map, &converting}) {
        EXPECT_EQ(table->expected(source, destination), expected[pair]);
        EXPECT_EQ(table->takeSequences(source, destination, 1), next[pair]);
      }
    }
  }
}

// A map that forgets idle pairs (PairTable::forgetIdlePairs) numbers each pair's packets from 0
// again once all of them are delivered in order: its numbers are the plain model's minus what
// the pair had taken when it last fell idle, and it holds exactly the pairs with packets under
// way. Many pairs in a small start map: it grows, and removals meet long probe chains.
TEST(PairTable, ForgettingMapCountsFromEachIdleMoment) {
  constexpr std::uint32_t kTerminals = 64;
  sim::PairTable table(kTerminals, /*denseLimit=*/0);
  table.forgetIdlePairs(true);
  ASSERT_FALSE(table.dense());
  constexpr std::size_t kPairs = std::size_t{kTerminals} * kTerminals;
  std::vector<std::uint64_t> next(kPairs, 0), expected(kPairs, 0), base(kPairs, 0);
  std::size_t busy = 0;  // pairs with expected < next in the model
  std::size_t mostBusy = 0;
  Rng rng(11);
  for (int step = 0; step < 200000; ++step) {
    // Pairs from a quarter of the terminals, so that deliveries catch up and pairs fall idle.
    const auto source = static_cast<std::uint32_t>(rng.below(kTerminals / 4) * 4);
    const auto destination = static_cast<std::uint32_t>(rng.below(kTerminals));
    const std::size_t pair = std::size_t{source} * kTerminals + destination;
    if (rng.below(2) == 0) {
      const auto count = static_cast<std::uint32_t>(1 + rng.below(3));
      if (expected[pair] == next[pair]) ++busy;
      ASSERT_EQ(table.takeSequences(source, destination, count), next[pair] - base[pair]) << "step " << step;
      next[pair] += count;
    } else if (expected[pair] < next[pair]) {
      ASSERT_EQ(table.expected(source, destination), expected[pair] - base[pair]) << "step " << step;
      table.setExpected(source, destination, expected[pair] + 1 - base[pair]);
      if (++expected[pair] == next[pair]) {
        base[pair] = next[pair];
        --busy;
      }
    }
    ASSERT_EQ(table.mapPairs(), busy) << "step " << step;
    mostBusy = std::max(mostBusy, busy);
  }
  EXPECT_GT(mostBusy, 600U) << "the map must have grown past its first 1,024 entries (half full)";
  for (std::size_t pair = 0; pair < kPairs; ++pair) {
    const auto source = static_cast<std::uint32_t>(pair / kTerminals);
    const auto destination = static_cast<std::uint32_t>(pair % kTerminals);
    if (expected[pair] == next[pair]) continue;  // (a look-up would add an idle pair)
    EXPECT_EQ(table.expected(source, destination), expected[pair] - base[pair]) << "pair " << pair;
  }
}

// The map of pairs refuses to grow past its memory budget, before allocating, with a
// LimitError that says what grew; below the budget it keeps counting.
TEST(PairTable, MapGrowthBeyondTheBudgetIsALimitError) {
  constexpr std::uint64_t kBudget = 100 * 1024;  // (2,048 + 1,024) x 24 bytes fit, (4,096 + 2,048) x 24 do not
  sim::PairTable map(1000, /*denseLimit=*/0, sim::PairTable::kDenseCounterLimit, kBudget);
  std::uint32_t pairs = 0;
  try {
    for (; pairs < 1000 * 1000; ++pairs) ASSERT_EQ(map.takeSequences(pairs / 1000, pairs % 1000, 1), 0U);
    FAIL() << "no LimitError";
  } catch (const LimitError& error) {
    EXPECT_NE(std::string(error.what()).find("in-order tracking"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("memory budget"), std::string::npos) << error.what();
  }
  EXPECT_EQ(pairs, 1024U);  // it grew while the budget allowed (1,024 -> 2,048 entries, at most half full)
  EXPECT_EQ(map.takeSequences(0, 0, 1), 1U);  // what it holds is intact, and a known pair needs no growth
  EXPECT_EQ(map.expected(1, 23), 0U);
}

// Percentiles from the latency counts equal those of the sorted values (rank
// ceil(fraction x n) - 1), with values on both sides of the dense range and counts merged
// from several histograms (the blocks of a parallel run), and the maximum is the largest.
TEST(LatencyHistogram, PercentilesEqualThoseOfTheSortedValues) {
  EXPECT_EQ(sim::LatencyHistogram{}.percentile(0.99), 0U);
  Rng rng(11);
  std::vector<std::uint64_t> values;
  std::array<sim::LatencyHistogram, 3> parts;
  for (int i = 0; i < 5000; ++i) {
    const std::uint64_t value =
        rng.below(10) == 0 ? sim::LatencyHistogram::kDenseLatencies + rng.below(1000000) : rng.below(300);
    values.push_back(value);
    parts[rng.below(parts.size())].add(value);
  }
  sim::LatencyHistogram all;
  for (const sim::LatencyHistogram& part : parts) all.merge(part);
  std::sort(values.begin(), values.end());
  ASSERT_EQ(all.count(), values.size());
  EXPECT_EQ(all.max(), values.back());
  for (double fraction : {0.0001, 0.3, 0.5, 0.89, 0.9, 0.95, 0.99, 1.0}) {
    const auto rank = static_cast<std::size_t>(std::ceil(fraction * double(values.size()))) - 1;
    EXPECT_EQ(all.percentile(fraction), values[rank]) << fraction;
  }
}

// The engine's work lists: pushIf appends only what it takes, across growth, and a moved or
// swapped list keeps its items.
TEST(WorkList, PushIfAppendsOnlyTakenItemsAcrossGrowth) {
  sim::WorkList list;
  std::vector<std::uint64_t> expected;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    const bool take = i % 3 != 0;
    list.pushIf(take, i);
    if (take) expected.push_back(i);
    if (i % 7 == 0) {
      list.push_back(i * 10);
      expected.push_back(i * 10);
    }
  }
  ASSERT_EQ(list.size(), expected.size());
  EXPECT_TRUE(std::equal(list.begin(), list.end(), expected.begin()));
  sim::WorkList moved(std::move(list));
  EXPECT_EQ(moved.size(), expected.size());
  EXPECT_EQ(moved[5], expected[5]);
  sim::WorkList other;
  other.push_back(42);
  other.swap(moved);
  EXPECT_EQ(other.size(), expected.size());
  ASSERT_EQ(moved.size(), 1U);
  EXPECT_EQ(moved[0], 42U);
  moved.clear();
  EXPECT_TRUE(moved.empty());
  moved.resize(40);
  EXPECT_EQ(moved.size(), 40U);
}

// Each key of a result's JSON reads its own member (docs/SIMULATION.md "Output"): every value
// set apart, and the deadlock's four keys present only with a deadlock.
TEST(SimResultJson, EveryKeyReadsItsOwnMember) {
  SimResult r;
  r.offered = 0.5;
  r.accepted = 0.25;
  r.latencyAvg = 10.5;
  r.latencyP50 = 11.5;
  r.latencyP99 = 12.5;
  r.latencyMax = 13.5;
  r.totalLatencyAvg = 14.5;
  r.totalLatencyP99 = 15.5;
  r.reorderDelayAvg = 16.5;
  r.packetsGenerated = 101;
  r.packetsInjected = 102;
  r.packetsDelivered = 103;
  r.measuredPackets = 104;
  r.measuredDelivered = 105;
  r.outOfOrder = 106;
  r.maxReorderOccupancy = 107;
  r.averageHops = 3.75;
  r.cycles = 108;
  r.warmupCycles = 109;
  r.measureCycles = 110;
  r.lastDelivery = 111;
  r.sources = 112;
  r.sourceAcceptedMin = 0.125;
  r.sourceAcceptedMax = 0.375;
  r.sourceFairness = 0.875;
  r.warmupSettled = false;
  r.saturated = true;
  r.deadlock = false;
  const nlohmann::json expected = {{"offered", 0.5},
                                   {"accepted", 0.25},
                                   {"latency_avg", 10.5},
                                   {"latency_p50", 11.5},
                                   {"latency_p99", 12.5},
                                   {"latency_max", 13.5},
                                   {"total_latency_avg", 14.5},
                                   {"total_latency_p99", 15.5},
                                   {"reorder_delay_avg", 16.5},
                                   {"packets_generated", 101},
                                   {"packets_injected", 102},
                                   {"packets_delivered", 103},
                                   {"measured_packets", 104},
                                   {"measured_delivered", 105},
                                   {"out_of_order", 106},
                                   {"max_reorder_occupancy", 107},
                                   {"average_hops", 3.75},
                                   {"simulated_cycles", 108},
                                   {"warmup_cycles", 109},
                                   {"measure_cycles", 110},
                                   {"last_delivery", 111},
                                   {"sources", 112},
                                   {"source_accepted_min", 0.125},
                                   {"source_accepted_max", 0.375},
                                   {"source_fairness", 0.875},
                                   {"warmup_settled", false},
                                   {"saturated", true},
                                   {"deadlock", false}};
  EXPECT_EQ(simResultJson(r), expected) << simResultJson(r).dump(1);
  r.warmupSettled = true;
  r.saturated = false;
  r.deadlock = true;
  r.deadlockReport.cycle = 5000;
  r.deadlockReport.lastMove = 3000;
  r.deadlockReport.channels = {"channel 1 vc 0", "channel 2 vc 0"};
  r.deadlockReport.packets = {7, (std::uint64_t{3} << 32) + 2};
  nlohmann::json withDeadlock = expected;
  withDeadlock["warmup_settled"] = true;
  withDeadlock["saturated"] = false;
  withDeadlock["deadlock"] = true;
  withDeadlock["deadlock_cycle"] = 5000;
  withDeadlock["deadlock_last_move"] = 3000;
  withDeadlock["deadlock_channels"] = {"channel 1 vc 0", "channel 2 vc 0"};
  withDeadlock["deadlock_packets"] = {7, (std::uint64_t{3} << 32) + 2};
  EXPECT_EQ(simResultJson(r), withDeadlock) << simResultJson(r).dump(1);
}

}  // namespace
}  // namespace routelab
