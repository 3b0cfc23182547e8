// The simulator's statistics recomputed from the same run's packet records (SimConfig::
// recordPackets) with the definitions of docs/SIMULATION.md "Measurement", by a plain
// implementation written apart from the engine's counters and histograms: the warm-up end
// (1000-cycle windows of mean network latency, stable within 5% twice in a row, at least 3
// and at most 10 windows), the measured packets (generated in the window), offered and
// accepted traffic, latency mean / p50 / p99 / max, total latency mean and p99, reorder delay,
// packets out of order, the reorder buffers' peak, hops, last delivery and the saturation flag. Nothing here is a
// stored number: every value is compared with what the records of that run say, so the tests hold whatever the
// arbitration does past saturation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "deadlock_fixtures.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "record_statistics.h"
#include "sim/simulator.h"

namespace routelab {
namespace {

using test::mean;
using test::nearestRank;

/// docs/SIMULATION.md: "until the mean network latency of 1000-cycle windows changes by at
/// most 5%, or by no more than three standard errors of the difference, twice in a row (at
/// least 3 windows, at most 10)" — a window with fewer than 2 deliveries counts as steady and
/// the next one is compared with the last window that had 2 or more — decided between the engine's
/// windows of flyTime cycles ("Decisions between windows"): latency window k ends at the
/// first window boundary at or after 1000 k and holds the packets delivered since the
/// previous one; the warm-up ends at the deciding boundary. While packets are in flight the
/// windows follow each other without a jump, so every boundary has the residue modulo
/// flyTime of the reported end (`phase`); the cases below keep the network busy.
/// The automatic warm-up's end and whether its latency settled (false: it ran into the cap of
/// 10 windows; the run is then saturated, docs/SIMULATION.md).
struct Warmup {
  std::uint64_t end = 0;
  bool settled = true;
};

Warmup recomputedWarmup(const std::vector<PacketRecord>& records, std::uint64_t phase, std::uint64_t flyTime) {
  constexpr std::uint64_t kWindow = 1000;
  const auto boundary = [&](std::uint64_t cycle) { return cycle + (phase + flyTime - cycle % flyTime) % flyTime; };
  double previous = -1, previousErrorSquared = 0;  // the last window with 2 or more deliveries
  int stable = 0;
  std::uint64_t begin = 0;
  for (std::uint64_t k = 1;; ++k) {
    const std::uint64_t end = boundary(k * kWindow);
    std::vector<std::uint64_t> latencies;
    for (const PacketRecord& r : records) {
      if (r.delivered >= begin && r.delivered < end) latencies.push_back(r.delivered - r.injected);
    }
    bool steady = true;
    if (latencies.size() >= 2) {
      const double current = mean(latencies), n = double(latencies.size());
      double squares = 0;  // two-pass sample variance
      for (const std::uint64_t x : latencies) squares += (double(x) - current) * (double(x) - current);
      const double errorSquared = squares / (n - 1) / n;
      const double change = std::abs(current - previous);
      steady =
          previous >= 0 && (change <= 0.05 * previous || change <= 3 * std::sqrt(previousErrorSquared + errorSquared));
      previous = current;
      previousErrorSquared = errorSquared;
    }
    stable = steady ? stable + 1 : 0;
    begin = end;
    if (k >= 3 && stable >= 2) return {end, true};
    if (k >= 10) return {end, false};
  }
}

struct Recomputed {
  std::uint64_t measuredDelivered = 0;
  double offeredIfAllDelivered = 0;
  double accepted = 0;
  double latencyAvg = 0, latencyP50 = 0, latencyP99 = 0, latencyMax = 0;
  double totalLatencyAvg = 0, totalLatencyP99 = 0, reorderDelayAvg = 0;
  double averageHops = 0;
  std::uint64_t lastDelivery = 0;
};

Recomputed recompute(const std::vector<PacketRecord>& records, std::uint64_t windowStart, std::uint64_t windowCycles,
                     std::uint32_t packetFlits, std::uint32_t terminals) {
  Recomputed out;
  const std::uint64_t windowEnd = windowStart + windowCycles;
  std::vector<std::uint64_t> network, total, reorder;
  std::uint64_t flitsDeliveredInWindow = 0, hops = 0;
  for (const PacketRecord& r : records) {
    if (r.generated >= windowStart && r.generated < windowEnd) {
      network.push_back(r.delivered - r.injected);
      total.push_back(r.released - r.generated);
      reorder.push_back(r.released - r.delivered);
    }
    if (r.delivered >= windowStart && r.delivered < windowEnd) flitsDeliveredInWindow += packetFlits;
    hops += r.hops;
    out.lastDelivery = std::max(out.lastDelivery, r.delivered);
  }
  const double perTerminalCycle = double(terminals) * double(windowCycles);
  out.measuredDelivered = network.size();
  out.offeredIfAllDelivered = double(network.size() * packetFlits) / perTerminalCycle;
  out.accepted = double(flitsDeliveredInWindow) / perTerminalCycle;
  out.latencyAvg = mean(network);
  out.latencyP50 = nearestRank(network, 0.5);
  out.latencyP99 = nearestRank(network, 0.99);
  out.latencyMax = network.empty() ? 0 : double(*std::max_element(network.begin(), network.end()));
  out.totalLatencyAvg = mean(total);
  out.totalLatencyP99 = nearestRank(total, 0.99);
  out.reorderDelayAvg = mean(reorder);
  out.averageHops = records.empty() ? 0 : double(hops) / double(records.size());
  return out;
}

/// docs/SIMULATION.md "In-order delivery": a packet is out of order when its tail reaches its
/// destination before an earlier packet of its pair (a lower sequence number, delivered later
/// or never: sequences count from 0 per pair, so a missing one is a packet still in flight).
/// Its destination's reorder buffer holds it until every earlier packet of its pair has
/// arrived (without --in-order it is handed on at once but held alike); the peak is the most
/// packets one destination held at once. A destination receives at most one tail a cycle
/// (one ejection link), so its arrivals have one order.
struct Reordering {
  std::uint64_t outOfOrder = 0, maxHeld = 0;
};

Reordering recomputedReordering(const std::vector<PacketRecord>& records) {
  Reordering out;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<const PacketRecord*>> pairs;
  for (const PacketRecord& r : records) pairs[{r.source, r.destination}].push_back(&r);
  for (const auto& [pair, packets] : pairs) {
    for (const PacketRecord* p : packets) {
      std::uint64_t earlierArrivedBefore = 0;
      for (const PacketRecord* q : packets)
        earlierArrivedBefore += q->sequence < p->sequence && q->delivered < p->delivered;
      out.outOfOrder += earlierArrivedBefore != p->sequence;
    }
  }
  std::map<std::uint32_t, std::vector<const PacketRecord*>> arrivals;
  for (const PacketRecord& r : records) arrivals[r.destination].push_back(&r);
  for (auto& [destination, packets] : arrivals) {
    std::sort(packets.begin(), packets.end(),
              [](const PacketRecord* a, const PacketRecord* b) { return a->delivered < b->delivered; });
    for (std::size_t i = 1; i < packets.size(); ++i) {
      EXPECT_NE(packets[i - 1]->delivered, packets[i]->delivered)
          << "two tails reach terminal " << destination << " in one cycle";
    }
    std::map<std::uint32_t, std::uint64_t> next;  // per source: the lowest sequence not yet arrived
    std::set<std::pair<std::uint32_t, std::uint64_t>> held;
    for (const PacketRecord* p : packets) {
      std::uint64_t& expected = next[p->source];
      if (p->sequence != expected) {
        held.insert({p->source, p->sequence});
        out.maxHeld = std::max<std::uint64_t>(out.maxHeld, held.size());
        continue;
      }
      for (++expected; held.erase({p->source, expected}) == 1;) ++expected;
    }
  }
  return out;
}

struct StatsCase {
  std::string name;
  std::string fabric;  ///< a spec, or "ring:N" for test::ringFabric
  std::string engine;
  double load = 0.2;
  Injection injection = Injection::Bernoulli;
  std::uint32_t messagePackets = 1;
  std::uint64_t warmup = 0;  ///< 0: automatic
  std::uint64_t measure = 3000;
  std::uint64_t drain = 0;
  std::uint32_t threads = 1;
  bool inOrder = false;
  std::string traffic = "uniform";
  std::uint32_t bufferPackets = 2;
};

void PrintTo(const StatsCase& c, std::ostream* os) { *os << c.name; }

class RecomputedStatistics : public ::testing::TestWithParam<StatsCase> {};

TEST_P(RecomputedStatistics, EveryNumberEqualsTheRecordsOfTheSameRun) {
  const StatsCase& c = GetParam();
  const std::string spec =
      c.fabric.rfind("ring:", 0) == 0 ? test::ringFabric(std::stoi(c.fabric.substr(5)), "stats_" + c.name) : c.fabric;
  const Fabric fabric = loadFabric(spec);
  RoutingContext context;
  context.seed = 1;
  const RoutingResult routing = runEngine(c.engine, fabric.network, context);
  const std::uint32_t terminals = fabric.network.terminalCount();
  for (std::uint64_t seed : {1, 2}) {
    SimConfig config;
    config.load = c.load;
    config.injection = c.injection;
    config.messagePackets = c.messagePackets;
    config.warmupCycles = c.warmup;
    config.measureCycles = c.measure;
    config.drainCycles = c.drain;
    config.traffic = c.traffic;
    config.bufferPackets = c.bufferPackets;
    config.threads = c.threads;
    config.inOrder = c.inOrder;
    config.seed = seed;
    config.recordPackets = true;
    const SimResult result = simulate(fabric.network, routing, config);
    SCOPED_TRACE(c.name + " seed " + std::to_string(seed));
    ASSERT_FALSE(result.deadlock);
    const std::vector<PacketRecord>& records = result.packets;
    ASSERT_EQ(records.size(), result.packetsDelivered) << "every delivered packet is recorded";
    ASSERT_GT(records.size(), 100u) << "too little traffic to mean anything";

    const Warmup automatic = c.warmup > 0
                                 ? Warmup{c.warmup, true}
                                 : recomputedWarmup(records, result.warmupCycles % config.flyTime, config.flyTime);
    const std::uint64_t warmup = automatic.end;
    ASSERT_EQ(result.warmupCycles, warmup);
    EXPECT_EQ(result.warmupSettled, automatic.settled);
    EXPECT_EQ(result.measureCycles, c.measure);
    const Recomputed r = recompute(records, warmup, c.measure, config.packetFlits, terminals);
    EXPECT_EQ(result.measuredDelivered, r.measuredDelivered);
    EXPECT_GE(result.measuredPackets, result.measuredDelivered);
    // What the records cannot show (generated, never delivered) only enters through
    // measuredPackets: offered is that count's flits per terminal per cycle.
    EXPECT_DOUBLE_EQ(result.offered,
                     double(result.measuredPackets) * config.packetFlits / (double(terminals) * double(c.measure)));
    if (result.measuredPackets == result.measuredDelivered) {
      EXPECT_DOUBLE_EQ(result.offered, r.offeredIfAllDelivered);
    }
    EXPECT_DOUBLE_EQ(result.accepted, r.accepted);
    EXPECT_DOUBLE_EQ(result.latencyAvg, r.latencyAvg);
    EXPECT_EQ(result.latencyP50, r.latencyP50);
    EXPECT_EQ(result.latencyP99, r.latencyP99);
    EXPECT_EQ(result.latencyMax, r.latencyMax);
    EXPECT_DOUBLE_EQ(result.totalLatencyAvg, r.totalLatencyAvg);
    EXPECT_EQ(result.totalLatencyP99, r.totalLatencyP99);
    EXPECT_DOUBLE_EQ(result.reorderDelayAvg, r.reorderDelayAvg);
    EXPECT_DOUBLE_EQ(result.averageHops, r.averageHops);
    const Reordering reordering = recomputedReordering(records);
    EXPECT_EQ(result.outOfOrder, reordering.outOfOrder);
    EXPECT_EQ(result.maxReorderOccupancy, reordering.maxHeld);
    EXPECT_EQ(result.lastDelivery, r.lastDelivery);
    const bool saturated =
        result.measuredDelivered < result.measuredPackets || r.accepted < 0.95 * result.offered || !automatic.settled;
    EXPECT_EQ(result.saturated, saturated);
  }
}

// Cases below and past saturation, automatic and explicit warm-ups (explicit ones not on a
// 1000-cycle boundary, windows not a multiple of the link time), several packets per
// message, Poisson sources, in-order delivery (release after delivery) on single and adaptive
// paths, two threads, and a drain too short for the last measured packets.
INSTANTIATE_TEST_SUITE_P(
    Sim, RecomputedStatistics,
    ::testing::Values(
        StatsCase{"tree_auto_low", "kary-ntree:k=2,n=3", "dmodk", 0.15},
        StatsCase{"tree_auto_mid_poisson", "kary-ntree:k=4,n=2", "dmodk", 0.4, Injection::Poisson},
        StatsCase{"tree_messages", "kary-ntree:k=2,n=3", "updown", 0.3, Injection::Bernoulli, 3},
        StatsCase{"tree_explicit_window", "kary-ntree:k=2,n=3", "dmodk", 0.3, Injection::Bernoulli, 1, 1237, 2501},
        StatsCase{"random_two_threads", "random:switches=8,links=12,terminals=2,seed=3", "updown", 0.25,
                  Injection::Bernoulli, 1, 0, 3000, 0, 2},
        StatsCase{"random_in_order", "random:switches=6,links=9,terminals=2,seed=2", "lash", 0.2, Injection::Poisson, 2,
                  0, 2000, 0, 1, true},
        // Adaptive paths with reorder buffers: packets arrive out of order and wait (a reorder
        // delay above 0; single-path routings never wait).
        StatsCase{"tree_adaptive_in_order", "kary-ntree:k=4,n=2", "ftree-adaptive", 0.5, Injection::Bernoulli, 1, 0,
                  2000, 0, 1, true},
        // The same without reorder buffers: packets out of order are counted and handed on.
        StatsCase{"tree_adaptive_unordered", "kary-ntree:k=4,n=2", "ftree-adaptive", 0.5, Injection::Bernoulli, 1, 0,
                  2000},
        StatsCase{"ring_past_saturation", "ring:6", "updown", 0.9},
        StatsCase{"ring_past_saturation_explicit", "ring:6", "updown", 0.7, Injection::Poisson, 1, 777, 1500},
        StatsCase{"tree_short_drain", "kary-ntree:k=2,n=3", "dmodk", 0.5, Injection::Bernoulli, 1, 500, 1000, 3},
        // A hot spot filling deep buffers: its latency drifts past the 10-window cap.
        StatsCase{"tree_hot_spot_drifting", "kary-ntree:k=4,n=3", "dmodk", 0.3, Injection::Bernoulli, 1, 0, 3000, 0, 1,
                  false, "uniform-hot-spot:fraction=0.2", 64}),
    [](const ::testing::TestParamInfo<StatsCase>& param) { return param.param.name; });

// The cases above cover both values of the flag and all of its reasons, a warm-up decided by
// the stability rule and one capped at 10 windows (a comparison that a constant flag or a
// fixed warm-up would pass would mean nothing).
TEST(RecomputedStatisticsCases, CoverBothSaturationReasonsAndAnUnsaturatedRun) {
  const Fabric tree = loadFabric("kary-ntree:k=2,n=3");
  const Fabric ring = loadFabric(test::ringFabric(6, "stats_flag"));
  RoutingContext context;
  SimConfig low;
  low.load = 0.1;
  const SimResult unsaturated = simulate(tree.network, runEngine("dmodk", tree.network, context), low);
  EXPECT_FALSE(unsaturated.saturated);
  EXPECT_LT(unsaturated.warmupCycles, 10000u) << "a stable load ends its warm-up before the 10-window maximum";
  EXPECT_GE(unsaturated.warmupCycles, 3000u);
  SimConfig past;
  past.load = 0.9;
  const SimResult overloaded = simulate(ring.network, runEngine("updown", ring.network, context), past);
  EXPECT_TRUE(overloaded.saturated);
  EXPECT_LT(overloaded.accepted, 0.95 * overloaded.offered);
  SimConfig shortDrain;
  shortDrain.load = 0.5;
  shortDrain.warmupCycles = 500;
  shortDrain.measureCycles = 1000;
  shortDrain.drainCycles = 3;
  const SimResult drained = simulate(tree.network, runEngine("dmodk", tree.network, context), shortDrain);
  EXPECT_LT(drained.measuredDelivered, drained.measuredPackets);
  EXPECT_TRUE(drained.saturated);
  // Latency drifting for 10 windows: saturated by the unsettled warm-up, whatever else holds.
  const Fabric larger = loadFabric("kary-ntree:k=4,n=3");
  SimConfig drifting;
  drifting.load = 0.3;
  drifting.traffic = "uniform-hot-spot:fraction=0.2";
  drifting.bufferPackets = 64;
  drifting.measureCycles = 3000;
  const SimResult capped = simulate(larger.network, runEngine("dmodk", larger.network, context), drifting);
  EXPECT_FALSE(capped.warmupSettled);
  EXPECT_EQ(capped.warmupCycles, 10000u);
  EXPECT_TRUE(capped.saturated);
  // Too few deliveries to measure a drift by (a handful of packets a window on 8 terminals at
  // load 0.01) is no drift: not saturated.
  SimConfig sparse;
  sparse.load = 0.01;
  const SimResult quiet = simulate(tree.network, runEngine("dmodk", tree.network, context), sparse);
  EXPECT_TRUE(quiet.warmupSettled);
  EXPECT_FALSE(quiet.saturated);
  // Reorder buffers behind adaptive paths hold packets: the reorder delay the cases compare
  // is not always 0.
  const Fabric adaptiveTree = loadFabric("kary-ntree:k=4,n=2");
  SimConfig ordered;
  ordered.load = 0.5;
  ordered.inOrder = true;
  ordered.measureCycles = 2000;
  const SimResult reordered =
      simulate(adaptiveTree.network, runEngine("ftree-adaptive", adaptiveTree.network, context), ordered);
  EXPECT_GT(reordered.reorderDelayAvg, 0.01);
  EXPECT_GT(reordered.outOfOrder, 0u);
  EXPECT_GT(reordered.maxReorderOccupancy, 1u);
  ordered.inOrder = false;
  const SimResult unordered =
      simulate(adaptiveTree.network, runEngine("ftree-adaptive", adaptiveTree.network, context), ordered);
  EXPECT_GT(unordered.outOfOrder, 0u);
  EXPECT_EQ(unordered.reorderDelayAvg, 0.0) << "without reorder buffers a packet is handed on as it arrives";
}

}  // namespace
}  // namespace routelab
