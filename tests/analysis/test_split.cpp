// Load models for multipath and adaptive routings (analysis/split.h): even split and best
// split worked out by hand on small fabrics (an adaptive T(2+2, 2), D-mod-k with LMC 1,
// MP-LASH on the 2-ary 2-tree), single-path routings identical under every model, the
// exact even-split WORST against brute force, and thread-count independence.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <random>

#include "analysis/loads.h"
#include "analysis/matching.h"
#include "analysis/paths.h"
#include "analysis/route_graph.h"
#include "analysis/sampling.h"
#include "analysis/split.h"
#include "analysis/worst.h"
#include "core/errors.h"
#include "core/limits.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "graph/algorithms.h"
#include "graph/builder.h"
#include "hand_routing.h"
#include "topology/xgft.h"
#include "traffic/pattern.h"

using namespace routelab;

namespace {

ChannelId channelAt(const Network& net, const std::string& node, PortNumber port) {
  return net.channelAt(net.findNode(node).value(), port);
}

TrafficPattern byHand(const Network& net, std::vector<SourceDestination> pairs) {
  TrafficPattern pattern;
  pattern.spec = "by-hand";
  pattern.terminals = net.terminalCount();
  pattern.pairs = std::move(pairs);
  return pattern;
}

/// T(2+2, 2) (terminals 0, 1 on leaf 0; 2, 3 on leaf 1; tops 0 and 1): D-mod-k, except
/// that leaf 0 may send to terminal 2 through either top (candidates top 0, top 1).
RoutingResult oneAdaptiveEntry(const Network& net) {
  RoutingResult routing = test::handDmodk(net, 2, 2);
  routing.engine = "hand-one-adaptive";
  routing.deterministic = false;
  const std::vector<PortNumber> both{3, 4};  // leaf ports n+1+j -> top j
  routing.tables[0].setCandidates(0, routing.addresses.base(net.terminalNode(2)), both);
  return routing;
}

/// Brute force, per channel: the largest even-split load of each channel over all
/// permutations (fixed points dropped).
std::vector<double> bruteForceEvenChannelWorst(const Network& net, const RoutingResult& routing) {
  std::vector<double> worst(net.channelCount(), 0);
  std::vector<std::uint32_t> image(net.terminalCount());
  std::iota(image.begin(), image.end(), 0U);
  do {
    std::vector<SourceDestination> pairs;
    for (std::uint32_t s = 0; s < image.size(); ++s) {
      if (image[s] != s) pairs.push_back({s, image[s]});
    }
    if (pairs.empty()) continue;
    const LinkLoads loads = patternLoads(net, routing, byHand(net, pairs), LoadModel::EvenSplit);
    for (std::size_t c = 0; c < worst.size(); ++c) worst[c] = std::max(worst[c], loads.load[c]);
  } while (std::next_permutation(image.begin(), image.end()));
  return worst;
}

/// Brute force: max over all permutations (fixed points dropped) of the even-split ML.
double bruteForceEvenWorst(const Network& net, const RoutingResult& routing) {
  const std::vector<double> worst = bruteForceEvenChannelWorst(net, routing);
  return *std::max_element(worst.begin(), worst.end());
}

}  // namespace

TEST(LoadModels, NamesAndAliases) {
  EXPECT_EQ(loadModelName(parseLoadModel("first")), "first-path");
  EXPECT_EQ(loadModelName(parseLoadModel("split")), "even-split");
  EXPECT_EQ(loadModelName(parseLoadModel("best-split")), "best-split");
  EXPECT_THROW(parseLoadModel("fluid"), SpecError);
}

TEST(LoadModels, EvenAndBestSplitByHand) {
  // Pairs 0 -> 2 (adaptive: tops 0 and 1) and 1 -> 3 (D-mod-k: top 3 mod 2 = 1).
  // First path: 0 -> 2 takes top 0 (2 mod 2), 1 -> 3 top 1: ML 1.
  // Even split: 0 -> 2 puts 1/2 on each top, so leaf0 -> top1 carries 1/2 + 1 = 3/2.
  // Best split: 0 -> 2 entirely through top 0: ML 1 (a lower bound: injection channels).
  const Network net = makeGft2(2, 2, 2);
  const RoutingResult routing = oneAdaptiveEntry(net);
  EXPECT_FALSE(isSinglePath(net, routing));
  const TrafficPattern pattern = byHand(net, {{0, 2}, {1, 3}});
  const LinkLoads first = patternLoads(net, routing, pattern, LoadModel::FirstPath);
  const LinkLoads even = patternLoads(net, routing, pattern, LoadModel::EvenSplit);
  const LinkLoads best = patternLoads(net, routing, pattern, LoadModel::BestSplit);
  EXPECT_EQ(first.maxLoad, 1.0);
  EXPECT_EQ(even.maxLoad, 1.5);
  EXPECT_EQ(even.load[channelAt(net, "gft-leaf0", 4).index()], 1.5);
  EXPECT_EQ(even.load[channelAt(net, "gft-leaf0", 3).index()], 0.5);
  EXPECT_EQ(even.load[channelAt(net, "gft-top0", 2).index()], 0.5);
  EXPECT_EQ(best.lowerBound, 1.0);
  EXPECT_LE(best.maxLoad, 1.01);
  EXPECT_GE(best.maxLoad, 1.0);

  // Pair 2 -> 0 and 3 -> 1 are deterministic: all models agree on them.
  const TrafficPattern back = byHand(net, {{2, 0}, {3, 1}});
  EXPECT_EQ(patternLoads(net, routing, back, LoadModel::EvenSplit).load,
            patternLoads(net, routing, back, LoadModel::FirstPath).load);
}

TEST(LoadModels, EvenSplitWorstByHandAndBruteForce) {
  // WORST under even split. The channel leaf0 -> top1 carries 0 -> 3 and 1 -> 3 with share
  // 1 and 0 -> 2, 1 -> 2 with share 1/2 (the adaptive entry is per destination address, so
  // both sources of leaf 0 split towards terminal 2): the best matching has weight
  // 1 + 1/2 = 3/2, and it must equal the maximum over all 4! permutations.
  const Network net = makeGft2(2, 2, 2);
  const RoutingResult routing = oneAdaptiveEntry(net);
  const SplitWorstCase even = worstUnderModel(net, routing, LoadModel::EvenSplit, 1);
  EXPECT_DOUBLE_EQ(even.value, bruteForceEvenWorst(net, routing));
  // leaf0 -> top1 under permutation {0->2, 1->3}: 1/2 + 1 = 3/2 (matching of weight 3/2);
  // {0->3, 1->2}: 1 + 1/2. No permutation puts more on one channel.
  EXPECT_DOUBLE_EQ(even.value, 1.5);
  // The witness reaches the value.
  EXPECT_DOUBLE_EQ(
      patternLoads(net, routing, byHand(net, even.witness), LoadModel::EvenSplit).load[even.channel.index()], 1.5);
  // Best split: the upper bound is min(first-path WORST, even-split WORST); bounds bracket it.
  const SplitWorstCase best = worstUnderModel(net, routing, LoadModel::BestSplit, 1);
  const WorstCase first = worstCasePermutationLoad(PairPaths::build(net, routing, 1), 1);
  EXPECT_EQ(best.value, std::min<double>(first.value, even.value));
  EXPECT_LE(best.lower, best.value);
  EXPECT_GE(best.lower, 1.0);
}

// Even-split WORST solves the channels in decreasing order of their matching bound, ties by
// increasing id, and skips a channel whose bound does not beat the answer unless its id is
// smaller than the answer's: the answer is the smallest id among the channels reaching the
// maximum (recomputed here by brute force per channel over all 720 permutations), and on
// T(3+2, 2), where every leaf up channel and top down channel is bounded by the 3/2 the first
// of them reaches, one channel is solved and the others are pruned.
TEST(LoadModels, EvenSplitWorstTakesTheSmallestChannelAndPrunesItsTies) {
  const Fabric fabric = loadFabric("gft2:n=3,m=2,r=2");
  const Network& net = fabric.network;
  for (const char* engine : {"ftree-adaptive", "mp-lash"}) {
    RoutingContext context;
    context.seed = 1;
    const RoutingResult routing = runEngine(engine, net, context);
    const std::vector<double> worst = bruteForceEvenChannelWorst(net, routing);
    const double top = *std::max_element(worst.begin(), worst.end());
    const auto first = static_cast<std::size_t>(std::find(worst.begin(), worst.end(), top) - worst.begin());
    ASSERT_EQ(top, 1.5) << engine;
    ASSERT_GT(std::count(worst.begin(), worst.end(), top), 1) << engine << ": the case needs ties";
    const SplitWorstCase result = worstUnderModel(net, routing, LoadModel::EvenSplit, 1);
    EXPECT_EQ(result.value, top) << engine;
    EXPECT_EQ(result.channel.index(), first) << engine;
    EXPECT_EQ(result.channelsSolved, 1U) << engine;
  }
}

// Where the maximum is 1 — a 2-ary 2-tree whose leaves split their two terminals' traffic over
// both up links — every injection channel reaches it, channel 0 among them: the answer is
// channel 0, the first of the channels every search visits.
TEST(LoadModels, EvenSplitWorstReachedByChannelZeroIsChannelZero) {
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  const Network& net = fabric.network;
  for (const char* engine : {"ftree-adaptive", "dmodk"}) {
    const RoutingResult routing = runEngine(engine, net);
    const std::vector<double> worst = bruteForceEvenChannelWorst(net, routing);
    const double top = *std::max_element(worst.begin(), worst.end());
    ASSERT_EQ(top, 1.0) << engine;
    ASSERT_EQ(worst[0], top) << engine << ": the case needs channel 0 at the maximum";
    const SplitWorstCase result = worstUnderModel(net, routing, LoadModel::EvenSplit, 1);
    EXPECT_EQ(result.value, top) << engine;
    EXPECT_EQ(result.channel.index(), 0U) << engine;
  }
}

// Even-split WORST is the maximum over every channel of every permutation's load (recomputed
// by brute force per channel over all 720 permutations), its channel the smallest id reaching
// it, on small irregular fabrics with multipath and layered routings. Under MROOTS on the
// first fabric the first channel solved (the largest matching bound) is not the answer: a
// channel of larger id beats it and must still be solved.
TEST(LoadModels, EvenSplitWorstIsTheBruteForceMaximumOnSmallIrregularFabrics) {
  for (const char* fabricSpec :
       {"random:switches=6,links=9,terminals=1,seed=5", "random:switches=6,links=8,terminals=1,seed=6"}) {
    const Fabric fabric = loadFabric(fabricSpec);
    const Network& net = fabric.network;
    for (const char* engine : {"mp-lash", "escape", "a-lash", "mroots"}) {
      RoutingContext context;
      context.seed = 1;
      const RoutingResult routing = runEngine(engine, net, context);
      const std::vector<double> worst = bruteForceEvenChannelWorst(net, routing);
      const double top = *std::max_element(worst.begin(), worst.end());
      const auto first = static_cast<std::size_t>(
          std::find_if(worst.begin(), worst.end(), [&](double w) { return std::abs(w - top) <= 1e-9; }) -
          worst.begin());
      const SplitWorstCase result = worstUnderModel(net, routing, LoadModel::EvenSplit, 1);
      EXPECT_NEAR(result.value, top, 1e-9) << fabricSpec << " " << engine;
      EXPECT_EQ(result.channel.index(), first) << fabricSpec << " " << engine;
    }
  }
}

/// The same fabric with its nodes listed switches first (names, ports and GUIDs kept, so
/// switch and terminal indices are unchanged): real ibnetdiscover files list switches first.
Network switchesFirst(const Network& net) {
  NetworkBuilder builder;
  std::vector<NodeId> image(net.nodeCount());
  for (const NodeId sw : net.switches())
    image[sw.index()] = builder.addSwitch(net.name(sw), net.portCount(sw), net.guid(sw));
  for (const NodeId t : net.terminals()) {
    image[t.index()] = builder.addTerminal(net.name(t), net.portCount(t), net.guid(t));
  }
  for (std::size_t c = 0; c < net.channelCount(); c += 2) {
    const ChannelId channel(static_cast<std::uint32_t>(c));
    builder.connect(image[net.source(channel).index()], net.sourcePort(channel), image[net.target(channel).index()],
                    net.targetPort(channel));
  }
  return builder.build();
}

// The route graph keeps one state per (node, table); with a switch as node 0 and a second
// table (an escape layer, MROOTS' trees) states of node 0 in every table must stay apart from
// each other and from node 1's. Every channel's even-split worst over all 720 permutations is
// the same, channel for channel, as on the terminals-first fabric, and so is WORST.
TEST(LoadModels, EvenSplitLoadsDoNotDependOnWhetherSwitchesAreListedFirst) {
  const Fabric fabric = loadFabric("random:switches=6,links=9,terminals=1,seed=5");
  const Network& net = fabric.network;
  const Network reordered = switchesFirst(net);
  ASSERT_TRUE(reordered.isSwitch(NodeId(0)));
  ASSERT_TRUE(net.isTerminal(NodeId(0)));
  for (const char* engine : {"escape", "mroots"}) {
    RoutingContext context;
    context.seed = 1;
    const RoutingResult routing = runEngine(engine, net, context);
    const RoutingResult routingReordered = runEngine(engine, reordered, context);
    ASSERT_GT(routing.tables.size(), 1U) << engine;
    const std::vector<double> worst = bruteForceEvenChannelWorst(net, routing);
    const std::vector<double> worstReordered = bruteForceEvenChannelWorst(reordered, routingReordered);
    for (std::size_t c = 0; c < net.channelCount(); ++c) {
      const ChannelId channel(static_cast<std::uint32_t>(c));
      const ChannelId image =
          reordered.channelAt(reordered.findNode(net.name(net.source(channel))).value(), net.sourcePort(channel));
      EXPECT_NEAR(worstReordered[image.index()], worst[c], 1e-12) << engine << " " << net.describeChannel(channel);
    }
    const SplitWorstCase result = worstUnderModel(net, routing, LoadModel::EvenSplit, 1);
    const SplitWorstCase resultReordered = worstUnderModel(reordered, routingReordered, LoadModel::EvenSplit, 1);
    EXPECT_NEAR(resultReordered.value, result.value, 1e-12) << engine;
  }
}

TEST(LoadModels, LmcPathsAreSplitEvenlyAtTheSource) {
  // D-mod-k with LMC 1 on T(2+2, 3): path p of (s, d) climbs to top (d + p) mod 2. Pairs
  // 0 -> 2 and 1 -> 4 both take top 0 on path 0 (first-path ML 2 on leaf0 -> top0); split
  // evenly over the two paths every leaf up channel carries 1/2 + 1/2 = 1.
  const Network net = makeGft2(2, 2, 3);
  RoutingContext context;
  context.addressesPerTerminal = 2;
  const RoutingResult routing = runEngine("dmodk", net, context);
  EXPECT_FALSE(isSinglePath(net, routing));
  const TrafficPattern pattern = byHand(net, {{0, 2}, {1, 4}});
  const LinkLoads first = patternLoads(net, routing, pattern, LoadModel::FirstPath);
  const LinkLoads even = patternLoads(net, routing, pattern, LoadModel::EvenSplit);
  EXPECT_EQ(first.maxLoad, 2.0);
  EXPECT_EQ(first.load[channelAt(net, "gft-leaf0", 3).index()], 2.0);
  EXPECT_EQ(even.maxLoad, 1.0);
  EXPECT_EQ(even.load[channelAt(net, "gft-leaf0", 3).index()], 1.0);
  EXPECT_EQ(even.load[channelAt(net, "gft-leaf0", 4).index()], 1.0);
  EXPECT_EQ(patternLoads(net, routing, pattern, LoadModel::BestSplit).maxLoad, 1.0);
  // WORST: first path 2 (two sources of leaf 0 to destinations d = 0 mod 2); even split:
  // every switch channel is crossed by its pairs with share 1/2 and a matching has at most
  // 2 pairs (2 sources per leaf, 2 destinations per leaf) — WORST 1.
  EXPECT_EQ(worstCasePermutationLoad(PairPaths::build(net, routing, 1), 1).value, 2u);
  const SplitWorstCase evenWorst = worstUnderModel(net, routing, LoadModel::EvenSplit, 1);
  EXPECT_DOUBLE_EQ(evenWorst.value, 1.0);
  EXPECT_DOUBLE_EQ(evenWorst.value, bruteForceEvenWorst(net, routing));
  const SplitWorstCase best = worstUnderModel(net, routing, LoadModel::BestSplit, 1);
  EXPECT_EQ(best.value, 1.0);
  EXPECT_EQ(best.lower, 1.0);
}

TEST(LoadModels, MpLashPathsOnTheTwoAryTwoTree) {
  // 2-ary 2-tree: leaves kt-s0-0, kt-s0-1 (terminals 0, 1 and 2, 3), tops above. MP-LASH
  // gives every switch pair all shortest paths: leaf 0 -> leaf 1 via either top. The
  // preferred path 0 is the same for both pairs 0 -> 2 and 1 -> 3 (ML 2); split evenly
  // over the two paths, each up channel of leaf 0 carries 1/2 + 1/2 = 1.
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  const Network& net = fabric.network;
  const RoutingResult routing = runEngine("mp-lash", net);
  EXPECT_FALSE(isSinglePath(net, routing));
  const TrafficPattern pattern = byHand(net, {{0, 2}, {1, 3}});
  EXPECT_EQ(patternLoads(net, routing, pattern, LoadModel::FirstPath).maxLoad, 2.0);
  const LinkLoads even = patternLoads(net, routing, pattern, LoadModel::EvenSplit);
  EXPECT_EQ(even.maxLoad, 1.0);
  const NodeId leaf = net.target(net.injectionChannel(net.terminalNode(0)));
  std::size_t upChannels = 0;
  for (const ChannelId c : net.outChannels(leaf)) {
    if (!net.isSwitch(net.target(c))) continue;
    ++upChannels;
    EXPECT_EQ(even.load[c.index()], 1.0);
  }
  EXPECT_EQ(upChannels, 2u);
  const LinkLoads best = patternLoads(net, routing, pattern, LoadModel::BestSplit);
  EXPECT_EQ(best.maxLoad, 1.0);
  EXPECT_EQ(best.lowerBound, 1.0);  // the injection channel, shared by both route slots
}

// A source allowed two layers with tables of their own has two routes (MROOTS, Lysne et al.
// 2006 §4.2: every source may use every layer), whichever table comes first; one layer, or
// one layer per pair (d-mroots), is one route. The even split shows the second route: some
// pair's traffic is halved on a channel.
TEST(LoadModels, TwoLayersWithTheirOwnTablesAreTwoRoutes) {
  const Fabric fabric = loadFabric("random:switches=8,terminals=2,seed=3");
  const Network& net = fabric.network;
  RoutingContext context;
  context.seed = 1;
  EXPECT_TRUE(isSinglePath(net, runEngine("mroots:layers=1", net, context)));
  EXPECT_TRUE(isSinglePath(net, runEngine("d-mroots:layers=2", net, context)));
  const RoutingResult routing = runEngine("mroots:layers=2", net, context);
  ASSERT_EQ(routing.tableOfLayer, (std::vector<std::uint16_t>{0, 1}));
  EXPECT_FALSE(isSinglePath(net, routing));
  bool halved = false;
  for (std::uint32_t s = 0; s < net.terminalCount() && !halved; ++s) {
    for (std::uint32_t d = 0; d < net.terminalCount() && !halved; ++d) {
      if (s == d) continue;
      const LinkLoads even = patternLoads(net, routing, byHand(net, {{s, d}}), LoadModel::EvenSplit);
      halved = std::any_of(even.load.begin(), even.load.end(), [](double load) { return load == 0.5; });
    }
  }
  EXPECT_TRUE(halved) << "no pair's two layers route it differently";
}

TEST(LoadModels, SinglePathRoutingsGiveTheFirstPathNumbersUnderEveryModel) {
  const Network net = makeGft2(4, 2, 4);
  const RoutingResult routing = runEngine("dmodk", net);
  ASSERT_TRUE(isSinglePath(net, routing));
  SamplingOptions options;
  options.seed = 5;
  options.threads = 2;
  const PairPaths paths = PairPaths::build(net, routing, 2);
  for (const SampledPattern pattern : {SampledPattern::Bisect, SampledPattern::FullPermutation}) {
    const SampledBandwidth integer = sampleBandwidth(paths, pattern, options);
    // The fractional sampler, forced onto the single-path routing, draws the same patterns
    // and finds the same ML in every sample.
    for (const LoadModel model : {LoadModel::EvenSplit, LoadModel::BestSplit}) {
      const SampledBandwidth split = sampleSplitBandwidth(net, routing, pattern, model, options);
      EXPECT_EQ(split.samples, integer.samples);
      EXPECT_NEAR(split.mean, integer.mean, 1e-12);
      EXPECT_NEAR(split.ci99HalfWidth, integer.ci99HalfWidth, 1e-12);
      EXPECT_TRUE(split.exact);
      const SampledBandwidth viaModel = sampleBandwidthUnderModel(net, routing, pattern, model, options);
      EXPECT_EQ(viaModel.mean, integer.mean);
      EXPECT_EQ(viaModel.loadModel, loadModelName(model));
    }
  }
  const WorstCase first = worstCasePermutationLoad(paths, 1);
  for (const LoadModel model : {LoadModel::FirstPath, LoadModel::EvenSplit, LoadModel::BestSplit}) {
    const SplitWorstCase w = worstUnderModel(net, routing, model, 1);
    EXPECT_EQ(w.value, first.value);
    EXPECT_EQ(w.lower, first.value);
  }
}

TEST(LoadModels, AdaptiveFatTreeSplitBeatsFirstPathAndIsThreadIndependent) {
  // ftree-adaptive on the 2-ary 3-tree: the even split can only spread what the first path
  // concentrates; best split is at least as good as even split in every sample (same
  // patterns), and results do not depend on the thread count.
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
  const RoutingResult routing = runEngine("ftree-adaptive", fabric.network);
  SamplingOptions options;
  options.seed = 3;
  options.initialSamples = 200;
  options.maxSamples = 200;  // exactly 200 samples, the same patterns under every model
  options.threads = 1;
  const SampledBandwidth first = sampleBandwidthUnderModel(fabric.network, routing, SampledPattern::FullPermutation,
                                                           LoadModel::FirstPath, options);
  const SampledBandwidth even = sampleBandwidthUnderModel(fabric.network, routing, SampledPattern::FullPermutation,
                                                          LoadModel::EvenSplit, options);
  const SampledBandwidth best = sampleBandwidthUnderModel(fabric.network, routing, SampledPattern::FullPermutation,
                                                          LoadModel::BestSplit, options);
  EXPECT_EQ(even.loadModel, "even-split");
  ASSERT_EQ(first.samples, 200u);
  ASSERT_EQ(best.samples, 200u);
  // Best split starts from the better of the first path and the even split, sample by
  // sample, so its achievable bandwidth is at least both.
  EXPECT_GE(best.mean + 1e-12, even.mean);
  EXPECT_GE(best.mean + 1e-12, first.mean);
  EXPECT_GE(best.bandwidthUpperBound, best.mean);
  for (const int threads : {2, 3}) {
    options.threads = threads;
    for (const LoadModel model : {LoadModel::EvenSplit, LoadModel::BestSplit}) {
      const SampledBandwidth again =
          sampleBandwidthUnderModel(fabric.network, routing, SampledPattern::FullPermutation, model, options);
      const SampledBandwidth& reference = model == LoadModel::EvenSplit ? even : best;
      EXPECT_EQ(again.mean, reference.mean);
      EXPECT_EQ(again.ci99HalfWidth, reference.ci99HalfWidth);
      EXPECT_EQ(again.samples, reference.samples);
      EXPECT_EQ(again.bandwidthUpperBound, reference.bandwidthUpperBound);
    }
  }
  const SplitWorstCase w1 = worstUnderModel(fabric.network, routing, LoadModel::EvenSplit, 1);
  const SplitWorstCase w3 = worstUnderModel(fabric.network, routing, LoadModel::EvenSplit, 3);
  EXPECT_EQ(w1.value, w3.value);
  EXPECT_EQ(w1.channel, w3.channel);
}

TEST(LoadModels, MaxWeightMatchingSmallCases) {
  std::vector<int> match;
  // [[1, 2], [3, 1]] -> 2 + 3 = 5.
  EXPECT_DOUBLE_EQ(maxWeightMatching(std::vector<double>{1, 2, 3, 1}, 2, 2, match), 5.0);
  EXPECT_EQ(match[0], 1);
  EXPECT_EQ(match[1], 0);
  // One row, three columns: the largest.
  EXPECT_DOUBLE_EQ(maxWeightMatching(std::vector<double>{0.5, 0.25, 0.75}, 1, 3, match), 0.75);
  // Zero rows matched to nothing.
  EXPECT_DOUBLE_EQ(maxWeightMatching(std::vector<double>{0, 0, 0, 2}, 2, 2, match), 2.0);
  EXPECT_EQ(match[0], -1);
}

/// The heaviest matching by trying every assignment (each row a distinct column or none).
double bruteForceMatching(const std::vector<double>& weights, std::size_t rows, std::size_t columns) {
  std::vector<char> taken(columns, 0);
  std::function<double(std::size_t)> best = [&](std::size_t row) -> double {
    if (row == rows) return 0.0;
    double value = best(row + 1);  // this row unmatched
    for (std::size_t c = 0; c < columns; ++c) {
      if (taken[c]) continue;
      taken[c] = 1;
      value = std::max(value, weights[row * columns + c] + best(row + 1));
      taken[c] = 0;
    }
    return value;
  };
  return best(0);
}

TEST(LoadModels, MaxWeightMatchingAgreesWithEveryAssignmentTried) {
  // Every shape up to 4 x 4, empty ones included, with random weights (some zero): the
  // value is the brute force's, and the columns reported are distinct, carry that value and
  // are -1 exactly where a row is unmatched or matched at weight 0 (matching.h).
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> weight(0, 6);
  for (std::size_t rows = 0; rows <= 4; ++rows) {
    for (std::size_t columns = 0; columns <= 4; ++columns) {
      for (int trial = 0; trial < 20; ++trial) {
        std::vector<double> weights(rows * columns);
        for (double& w : weights) w = weight(rng) * 0.25;
        std::vector<int> match;
        const double value = maxWeightMatching(weights, rows, columns, match);
        EXPECT_DOUBLE_EQ(value, bruteForceMatching(weights, rows, columns)) << rows << "x" << columns;
        ASSERT_EQ(match.size(), rows);
        double sum = 0;
        std::vector<char> used(columns, 0);
        for (std::size_t r = 0; r < rows; ++r) {
          if (match[r] < 0) continue;
          ASSERT_LT(static_cast<std::size_t>(match[r]), columns);
          EXPECT_FALSE(used[static_cast<std::size_t>(match[r])]) << "column matched twice";
          used[static_cast<std::size_t>(match[r])] = 1;
          EXPECT_GT(weights[r * columns + static_cast<std::size_t>(match[r])], 0.0);
          sum += weights[r * columns + static_cast<std::size_t>(match[r])];
        }
        EXPECT_DOUBLE_EQ(sum, value);
      }
    }
  }
}

TEST(LoadModels, EscapeLayerIsAnAllowedChoiceAtEverySwitch) {
  // escape on the 2-ary 2-tree: the adaptive layer offers both up ports of leaf 0 towards
  // terminal 2, the UpDown escape layer one more (port, layer) choice. Even split at leaf 0:
  // 1/3 per choice, so the up channel the escape port also uses carries 2/3, the other 1/3.
  const Fabric fabric = loadFabric("kary-ntree:k=2,n=2");
  const Network& net = fabric.network;
  const RoutingResult routing = runEngine("escape", net);
  ASSERT_GE(routing.escapeLayer, 0);
  const LinkLoads even = patternLoads(net, routing, byHand(net, {{0, 2}}), LoadModel::EvenSplit);
  const NodeId leaf = net.target(net.injectionChannel(net.terminalNode(0)));
  std::vector<double> up;
  for (const ChannelId c : net.outChannels(leaf)) {
    if (net.isSwitch(net.target(c))) up.push_back(even.load[c.index()]);
  }
  std::sort(up.begin(), up.end());
  ASSERT_EQ(up.size(), 2u);
  EXPECT_NEAR(up[0], 1.0 / 3, 1e-9);
  EXPECT_NEAR(up[1], 2.0 / 3, 1e-9);
  // Best split: both pairs of leaf 0 -> leaf 1 fit on separate tops (ML 1, exact), and the
  // best-split WORST closes: the adaptive layer alone is a split allowed for every permutation.
  const LinkLoads best = patternLoads(net, routing, byHand(net, {{0, 2}, {1, 3}}), LoadModel::BestSplit);
  EXPECT_EQ(best.maxLoad, 1.0);
  EXPECT_EQ(best.lowerBound, 1.0);
  const SplitWorstCase worst = worstUnderModel(net, routing, LoadModel::BestSplit, 1);
  EXPECT_EQ(worst.lower, worst.value);
  EXPECT_EQ(worst.value, 1.0);
}

TEST(LoadModels, UndeliveredPairIsAnAnalysisErrorNamingIt) {
  // Top 1 loses its route to terminal 2: the even split of 0 -> 2 reaches it and stops there.
  const Network net = makeGft2(2, 2, 2);
  RoutingResult routing = oneAdaptiveEntry(net);
  routing.tables[0].set(net.switchIndex(*net.findNode("gft-top1")), routing.addresses.base(net.terminalNode(2)),
                        kNoRoute);
  try {
    patternLoads(net, routing, byHand(net, {{0, 2}}), LoadModel::EvenSplit);
    FAIL() << "expected AnalysisError";
  } catch (const AnalysisError& e) {
    EXPECT_NE(std::string(e.what()).find("gft-top1"), std::string::npos) << e.what();
  }
  SamplingOptions options;
  options.threads = 2;
  options.initialSamples = options.maxSamples = 64;
  for (const LoadModel model : {LoadModel::EvenSplit, LoadModel::BestSplit}) {
    EXPECT_THROW(sampleSplitBandwidth(net, routing, SampledPattern::FullPermutation, model, options), AnalysisError);
    EXPECT_THROW(worstUnderModel(net, routing, model, 2), AnalysisError);
  }
}

namespace {

/// z with P(|Z| <= z) = 0.99 for a standard normal Z, found here by bisection on erf (not
/// read from the library): the half-width must be a 99% interval.
double z99() {
  double low = 0, high = 10;
  for (int i = 0; i < 200; ++i) {
    const double mid = (low + high) / 2;
    (std::erf(mid / std::sqrt(2.0)) < 0.99 ? low : high) = mid;
  }
  return (low + high) / 2;
}

/// Mean and 99% half-width z·s/√n of the samples 1/ML, s the sample standard deviation
/// (denominator n - 1), recomputed from a histogram ML -> count.
template <typename Histogram>
std::pair<double, double> meanAndHalfWidth(const Histogram& histogram) {
  double n = 0, sum = 0;
  for (const auto& [ml, count] : histogram) {
    n += static_cast<double>(count);
    sum += static_cast<double>(count) / static_cast<double>(ml);
  }
  const double mean = sum / n;
  double squares = 0;
  for (const auto& [ml, count] : histogram) {
    const double deviation = 1.0 / static_cast<double>(ml) - mean;
    squares += static_cast<double>(count) * deviation * deviation;
  }
  return {mean, z99() * std::sqrt(squares / (n - 1)) / std::sqrt(n)};
}

}  // namespace

TEST(LoadModels, HalfWidthIsZTimesSampleDeviationOverRootN) {
  // Nienaber §IV: a 99% confidence interval of the mean of 1/ML. Recomputed from the
  // samples themselves (the histograms) for the integer sampler and the even-split sampler,
  // on MP-LASH over a random fabric (paths of up to five switches, the even split merging
  // flows at every switch on the way; on a fat-tree the even split is perfect and ML constant).
  EXPECT_NEAR(z99(), 2.5758, 1e-4);
  const Fabric fabric = loadFabric("random:switches=16,terminals=2,seed=1");
  const RoutingResult routing = runEngine("mp-lash", fabric.network);
  SamplingOptions options;
  options.seed = 11;
  options.initialSamples = 300;
  options.maxSamples = 300;
  options.threads = 1;
  for (const LoadModel model : {LoadModel::FirstPath, LoadModel::EvenSplit}) {
    const SampledBandwidth result =
        sampleBandwidthUnderModel(fabric.network, routing, SampledPattern::FullPermutation, model, options);
    ASSERT_EQ(result.samples, 300u);
    const auto [mean, halfWidth] = model == LoadModel::FirstPath ? meanAndHalfWidth(result.maxLoadHistogram)
                                                                 : meanAndHalfWidth(result.splitHistogram);
    EXPECT_NEAR(result.mean, mean, 1e-9) << loadModelName(model);
    EXPECT_GT(halfWidth, 0.0) << loadModelName(model) << ": the samples must vary for this check to mean anything";
    EXPECT_NEAR(result.ci99HalfWidth, halfWidth, 1e-9 * halfWidth + 1e-12) << loadModelName(model);
  }
}

namespace {

/// Even split of one pair, checked as a flow: one unit leaves the source, one unit enters
/// the destination, and at every switch what flows in flows out. Returns the total load.
double checkUnitFlow(const Network& net, const RoutingResult& routing, std::uint32_t s, std::uint32_t d) {
  const LinkLoads loads = patternLoads(net, routing, byHand(net, {{s, d}}), LoadModel::EvenSplit);
  const NodeId source = net.terminalNode(s), destination = net.terminalNode(d);
  const std::string pair = fmt::format("{} -> {}", net.name(source), net.name(destination));
  double total = 0, intoDestination = 0, outOfSource = 0;
  std::vector<double> balance(net.nodeCount(), 0.0);
  for (std::uint32_t c = 0; c < net.channelCount(); ++c) {
    const double load = loads.load[c];
    total += load;
    const ChannelId channel(c);
    balance[net.target(channel).index()] += load;
    balance[net.source(channel).index()] -= load;
    if (net.target(channel) == destination) intoDestination += load;
    if (net.source(channel) == source) outOfSource += load;
  }
  // Loads are kept on a 1e-9 grid (roundLoad): a node's balance is exact to a few grid steps.
  EXPECT_NEAR(outOfSource, 1.0, 1e-8) << pair;
  EXPECT_NEAR(intoDestination, 1.0, 1e-8) << pair;
  for (NodeId v : net.switches()) EXPECT_NEAR(balance[v.index()], 0.0, 1e-8) << pair << " at " << net.name(v);
  return total;
}

}  // namespace

TEST(LoadModels, EvenSplitIsAUnitFlowWhereRoutesMergeAgain) {
  // Where adaptive routes fork and join again (a 3-level fat-tree: up to a top switch and
  // down through a middle switch other routes also use; an escape routing on a random
  // fabric), the shares that meet at a switch add up: every pair is a unit flow.
  {
    const Fabric fabric = loadFabric("kary-ntree:k=2,n=3");
    const Network& net = fabric.network;
    const RoutingResult routing = runEngine("ftree-adaptive", net);
    for (std::uint32_t s = 0; s < net.terminalCount(); ++s) {
      const auto hops = hopDistances(net, net.terminalNode(s));
      for (std::uint32_t d = 0; d < net.terminalCount(); ++d) {
        if (s == d) continue;
        // Every route is minimal: the total load is the hop count, whatever the split.
        EXPECT_NEAR(checkUnitFlow(net, routing, s, d), hops[net.terminalNode(d).index()], 1e-8);
      }
    }
  }
  const Fabric fabric = loadFabric("random:switches=16,terminals=2,seed=1");
  const Network& net = fabric.network;
  const RoutingResult routing = runEngine("escape", net);
  for (std::uint32_t s = 0; s < net.terminalCount(); s += 3) {
    for (std::uint32_t d = 0; d < net.terminalCount(); ++d) {
      if (s != d) checkUnitFlow(net, routing, s, d);
    }
  }
}

namespace {

/// The even split that enters the escape layer only where the adaptive layer has no route
/// (docs/ANALYSIS.md "best-split": one of the splits its search starts from), walked from the
/// forwarding tables: at each switch the pair's share is divided equally over the adaptive
/// table's ports, or over the escape table's where the adaptive table has none (and in the
/// escape layer from then on). Returns the maximum channel load.
double escapeOnlyWhereNeededMaxLoad(const Network& net, const RoutingResult& r, const TrafficPattern& pattern) {
  std::vector<double> load(net.channelCount(), 0.0);
  const std::size_t escapeTable = r.tableOfLayer[static_cast<std::size_t>(r.escapeLayer)];
  std::function<void(NodeId, std::size_t, Address, double, std::size_t)> walk =
      [&](NodeId node, std::size_t table, Address a, double share, std::size_t hops) {
        if (!net.isSwitch(node)) return;  // delivered
        ASSERT_LE(hops, net.nodeCount()) << "a loop";
        const auto portsOf = [&](std::size_t t) {
          std::vector<PortNumber> ports;
          for (const PortNumber p : r.tables[t].candidates(net.switchIndex(node), a)) {
            if (p != kSelfPort && p != kNoRoute) ports.push_back(p);
          }
          return ports;
        };
        std::vector<PortNumber> ports = portsOf(table);
        if (ports.empty() && table != escapeTable) {
          table = escapeTable;
          ports = portsOf(table);
        }
        ASSERT_FALSE(ports.empty()) << "no route at " << net.name(node);
        for (const PortNumber p : ports) {
          const ChannelId c = net.channelAt(node, p);
          load[c.index()] += share / static_cast<double>(ports.size());
          walk(net.target(c), table, a, share / static_cast<double>(ports.size()), hops + 1);
        }
      };
  for (const SourceDestination& pair : pattern.pairs) {
    const NodeId source = net.terminalNode(pair.source), destination = net.terminalNode(pair.destination);
    const Address a = r.addressFor(source, destination);
    const LayerId layer = r.layer(r.addresses.sourceIndex(source), a);
    const ChannelId injection = net.injectionChannel(source);
    load[injection.index()] += 1.0;
    walk(net.target(injection), r.tableOfLayer[layer.index()], a, 1.0, 0);
  }
  return *std::max_element(load.begin(), load.end());
}

}  // namespace

// Best split never reports more than an allowed split it starts from (docs/ANALYSIS.md): on
// escape routings, the even split that enters the escape layer only where the adaptive layer
// has no route — recomputed here from the tables — and the plain even split. Random fabrics
// (where a switch with one adaptive port still has an escape port leading elsewhere) and
// random permutations: 360 patterns.
TEST(LoadModels, BestSplitIsNeverAboveTheEvenSplitThatEscapesOnlyWhereNeeded) {
  int checked = 0, optimal = 0;
  for (const int switches : {6, 8, 10, 12, 16}) {
    for (const int terminals : {1, 2, 3}) {
      for (int fabricSeed = 1; fabricSeed <= 4; ++fabricSeed) {
        const std::string spec =
            fmt::format("random:switches={},terminals={},seed={}", switches, terminals, fabricSeed);
        const Fabric fabric = loadFabric(spec);
        const Network& net = fabric.network;
        const RoutingResult routing = runEngine("escape", net);
        ASSERT_GE(routing.escapeLayer, 0);
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
          const TrafficPattern pattern = makePattern("random-permutation", net, seed);
          const LinkLoads best = patternLoads(net, routing, pattern, LoadModel::BestSplit);
          const LinkLoads even = patternLoads(net, routing, pattern, LoadModel::EvenSplit);
          const double escapeWhereNeeded = escapeOnlyWhereNeededMaxLoad(net, routing, pattern);
          EXPECT_LE(best.maxLoad, escapeWhereNeeded + 1e-9) << spec << " pattern seed " << seed;
          EXPECT_LE(best.maxLoad, even.maxLoad + 1e-9) << spec << " pattern seed " << seed;
          EXPECT_LE(best.lowerBound, best.maxLoad) << spec << " pattern seed " << seed;
          ++checked;
          // Where that split is optimal (its ML is the certified lower bound), it is the answer.
          optimal += std::abs(escapeWhereNeeded - best.lowerBound) < 1e-9 ? 1 : 0;
        }
      }
    }
  }
  EXPECT_EQ(checked, 360);
  EXPECT_GE(optimal, 1);  // the bound is met with equality somewhere in the sample
}

TEST(LoadModels, EvenSplitSamplesEqualThePatternLoadsOfTheSamePatterns) {
  // The sampler's even split (its own workspace) against patternLoads on the very patterns
  // it drew (drawSampledPattern with the same seed), on an escape routing whose routes merge.
  const Fabric fabric = loadFabric("random:switches=16,terminals=2,seed=1");
  const Network& net = fabric.network;
  const RoutingResult routing = runEngine("escape", net);
  SamplingOptions options;
  options.seed = 4;
  options.initialSamples = 40;
  options.maxSamples = 40;
  options.threads = 1;
  const SampledBandwidth sampled =
      sampleSplitBandwidth(net, routing, SampledPattern::FullPermutation, LoadModel::EvenSplit, options);
  ASSERT_EQ(sampled.samples, 40u);
  std::vector<std::uint32_t> scratch(net.terminalCount());
  std::vector<SourceDestination> pairs;
  double sum = 0;
  std::map<double, std::uint64_t> histogram;
  for (std::uint64_t i = 0; i < sampled.samples; ++i) {
    drawSampledPattern(SampledPattern::FullPermutation, options.seed, i, scratch, pairs);
    const double ml = std::max(1.0, patternLoads(net, routing, byHand(net, pairs), LoadModel::EvenSplit).maxLoad);
    sum += 1.0 / ml;
    ++histogram[roundLoad(ml)];
  }
  EXPECT_GT(histogram.size(), 1u) << "the samples must differ for the comparison to mean anything";
  EXPECT_EQ(sampled.splitHistogram, histogram);
  EXPECT_NEAR(sampled.mean, sum / static_cast<double>(sampled.samples), 1e-9);
}

namespace {

/// A fat-tree spec with the adaptive fat-tree routing (seed 1): a multi-path routing.
struct AdaptiveFatTree {
  explicit AdaptiveFatTree(const std::string& spec) : fabric(loadFabric(spec)) {
    RoutingContext context;
    context.seed = 1;
    routing = runEngine("ftree-adaptive", fabric.network, context);
  }
  Fabric fabric;
  RoutingResult routing;
};

}  // namespace

// The duality certificate (docs/ANALYSIS.md, best-split): on T(3+2, 2) with the adaptive
// fat-tree routing, leaf 0's three terminals send to leaf 1's. Every route crosses one of
// leaf 0's two up channels, so some channel carries >= 3/2 in every split, and the even split
// reaches 3/2: the optimum is 3/2. No channel is on every route of a pair except the
// terminal ones, so the mandatory bound is only 1; the certified lower bound must come from
// the gradient lengths, and the solver stops with upper <= (1 + tolerance) x lower before
// its iteration limit.
TEST(LoadModels, BestSplitCertifiesTheOptimumAboveTheMandatoryBound) {
  const AdaptiveFatTree tree("gft2:n=3,m=2,r=2");
  const Network& net = tree.fabric.network;
  const RoutingResult& routing = tree.routing;
  ASSERT_FALSE(isSinglePath(net, routing));
  const std::vector<SourceDestination> pairs{{0, 3}, {1, 4}, {2, 5}};
  BestSplitOptions options;
  RouteGraphBuilder builder(net, routing);
  SplitWorkspace workspace;
  const BestSplitLoad best = bestSplitMaxLoad(builder, net.channelCount(), pairs, options, workspace);
  EXPECT_NEAR(best.upper, 1.5, 1e-9);
  EXPECT_LE(best.lower, 1.5 + 1e-9) << "a lower bound above the optimum";
  EXPECT_GE(best.lower * (1 + options.tolerance) + 1e-9, best.upper) << "the certificate did not reach the tolerance";
  EXPECT_LT(best.iterations, options.maxIterations);
  const LinkLoads loads = patternLoads(net, routing, byHand(net, pairs), LoadModel::BestSplit);
  EXPECT_EQ(loads.lowerBound, best.lower);
}

namespace {

/// The fractional best-split case (below): T(4+2, 3) with the adaptive fat-tree routing, leaf
/// 2's entry for terminal 7 narrowed to its up port to top 0, and its four pairs.
struct FractionalCase : AdaptiveFatTree {
  FractionalCase() : AdaptiveFatTree("gft2:n=4,m=2,r=3") {
    const Network& net = fabric.network;
    const std::uint32_t leaf2 = net.switchIndex(net.findNode("gft-leaf2").value());
    for (ForwardingTable& table : routing.tables) table.set(leaf2, routing.addresses.base(net.terminalNode(7)), 5);
  }
  std::vector<SourceDestination> pairs{{0, 4}, {1, 5}, {2, 6}, {8, 7}};
};

}  // namespace

// The optimum can be a split that no starting point has and only fractional Frank–Wolfe steps
// reach (docs/ANALYSIS.md, best-split). T(4+2, 3) with the adaptive fat-tree routing, leaf 2's
// entry for terminal 7 narrowed to its up port to top 0 (leaf port n + 1 + j leads to top j):
// leaf 0's terminals 0-2 send to leaf 1's 4-6 over either top, leaf 2's terminal 8 to leaf 1's
// 7 only over top 0.
// With a the flow of leaf 0's pairs through top 0, the channels top 0 -> leaf 1 and
// top 1 -> leaf 1 carry 1 + a and 3 - a: the optimum is 2 at a = 1, the even split
// (a = 3/2) gives 5/2, and one pair's route for every pair gives 3 or 4.
TEST(LoadModels, BestSplitReachesAFractionalOptimumThatNoStartingSplitHas) {
  const FractionalCase fractional;
  const Network& net = fractional.fabric.network;
  const RoutingResult& routing = fractional.routing;
  const std::vector<SourceDestination>& pairs = fractional.pairs;
  EXPECT_NEAR(patternLoads(net, routing, byHand(net, pairs), LoadModel::EvenSplit).maxLoad, 2.5, 1e-9);
  BestSplitOptions options;
  options.keepLoads = true;
  RouteGraphBuilder builder(net, routing);
  SplitWorkspace workspace;
  const BestSplitLoad best = bestSplitMaxLoad(builder, net.channelCount(), pairs, options, workspace);
  EXPECT_GE(best.upper, 2.0 - 1e-9);
  EXPECT_LE(best.upper, 2.0 * (1 + options.tolerance) + 1e-9) << "not within the tolerance of the optimum";
  EXPECT_LE(best.lower, 2.0 + 1e-9) << "a lower bound above the optimum";
  EXPECT_GE(best.lower * (1 + options.tolerance) + 1e-9, best.upper) << "the certificate did not reach the tolerance";
  // The split reported: every pair's unit of flow arrives, and the loads are those of a.
  const ChannelId downTop0 = channelAt(net, "gft-top0", 2), downTop1 = channelAt(net, "gft-top1", 2);
  const ChannelId upTop0 = channelAt(net, "gft-leaf0", 5), upTop1 = channelAt(net, "gft-leaf0", 6);
  ASSERT_EQ(best.load.size(), net.channelCount());
  EXPECT_NEAR(best.load[upTop0.index()] + best.load[upTop1.index()], 3.0, 1e-9);
  EXPECT_NEAR(best.load[downTop0.index()], 1 + best.load[upTop0.index()], 1e-9);
  EXPECT_NEAR(best.load[downTop1.index()], best.load[upTop1.index()], 1e-9);
  EXPECT_NEAR(std::max(best.load[downTop0.index()], best.load[downTop1.index()]), best.upper, 1e-9);
}

// The smoothing of the best-split solver follows the remaining relative gap (upper - lower) /
// upper (analysis/best_split.cpp; docs/ANALYSIS.md, best-split), so a tolerance far below the
// default is still certified, in a few more iterations per decade, on the fractional case
// above (optimum 2).
TEST(LoadModels, BestSplitCertifiesATightToleranceInAFewIterationsPerDecade) {
  const FractionalCase fractional;
  const Network& net = fractional.fabric.network;
  const RoutingResult& routing = fractional.routing;
  const std::vector<SourceDestination>& pairs = fractional.pairs;
  // Tolerance and the iterations allowed: twice today's (6, 9, 13 and 18 iterations). A
  // smoothing that does not follow the relative gap still certifies, but takes more than
  // twice as long (43 iterations at 1e-5 with the absolute gap (upper - lower) x upper).
  for (const auto& [tolerance, iterations] :
       std::vector<std::pair<double, std::uint32_t>>{{1e-2, 12}, {1e-3, 18}, {1e-4, 26}, {1e-5, 36}}) {
    BestSplitOptions options;
    options.tolerance = tolerance;
    options.maxIterations = 4000;
    RouteGraphBuilder builder(net, routing);
    SplitWorkspace workspace;
    const BestSplitLoad best = bestSplitMaxLoad(builder, net.channelCount(), pairs, options, workspace);
    EXPECT_GE(best.upper, 2.0 - 1e-9) << tolerance;
    EXPECT_LE(best.upper, 2.0 * (1 + tolerance) + 1e-9) << tolerance;
    EXPECT_LE(best.lower, 2.0 + 1e-9) << tolerance;
    EXPECT_GE(best.lower * (1 + tolerance) + 1e-9, best.upper) << tolerance;
    EXPECT_LE(best.iterations, iterations) << tolerance;
  }
}

// The iteration limit (--split-iterations) stops the solver after exactly that many
// iterations when the tolerance is not reached: on the fractional case above at 1e-5 (6 or
// more iterations needed), limits of 0 to 3 report that many iterations and an upper bound
// not yet certified; 0 reports the starting split's load (the even split's 5/2 or better).
TEST(LoadModels, BestSplitStopsAtExactlyItsIterationLimit) {
  const FractionalCase fractional;
  const Network& net = fractional.fabric.network;
  for (const std::uint32_t limit : {0U, 1U, 2U, 3U}) {
    BestSplitOptions options;
    options.tolerance = 1e-5;
    options.maxIterations = limit;
    RouteGraphBuilder builder(net, fractional.routing);
    SplitWorkspace workspace;
    const BestSplitLoad best = bestSplitMaxLoad(builder, net.channelCount(), fractional.pairs, options, workspace);
    EXPECT_EQ(best.iterations, limit);
    EXPECT_GT(best.upper, best.lower * (1 + options.tolerance) + 1e-9) << limit << ": certified before its limit";
    EXPECT_GE(best.upper, 2.0 - 1e-9) << limit;
    EXPECT_LE(best.upper, 2.5 + 1e-9) << limit;
  }
}

// Even-split WORST keeps every (channel, pair) share entry (analysis/split.h,
// docs/RELIABILITY.md "Limits"): refused with a LimitError before the walk when 2 n (n - 1)
// — each ordered pair loads at least its terminals' own two channels — exceeds the limit, and
// otherwise exactly when the entries exceed it, whatever the thread count. The entries are
// counted here from each pair's own even-split loads (the channels it loads). The best split
// runs the even split and is refused alike.
TEST(LoadModels, EvenSplitWorstHoldsAtItsEntryLimitAndIsRefusedOnePast) {
  const AdaptiveFatTree tree("gft2:n=3,m=2,r=2");
  const Network& net = tree.fabric.network;
  const RoutingResult& routing = tree.routing;
  ASSERT_FALSE(isSinglePath(net, routing));
  const std::size_t n = net.terminalCount();
  std::size_t entries = 0;
  for (std::uint32_t s = 0; s < n; ++s) {
    for (std::uint32_t d = 0; d < n; ++d) {
      if (s == d) continue;
      const LinkLoads loads = patternLoads(net, routing, byHand(net, {{s, d}}), LoadModel::EvenSplit);
      entries +=
          static_cast<std::size_t>(std::count_if(loads.load.begin(), loads.load.end(), [](double l) { return l > 0; }));
    }
  }
  ASSERT_GT(entries, 2 * n * (n - 1));
  const SplitWorstCase reference = worstUnderModel(net, routing, LoadModel::EvenSplit, 1);
  auto refusal = [&](LoadModel model, int threads, std::size_t limit) -> std::string {
    try {
      worstUnderModel(net, routing, model, threads, {}, limit);
    } catch (const LimitError& e) {
      return e.what();
    }
    return "accepted";
  };
  for (const int threads : {1, 3}) {
    const SplitWorstCase atLimit = worstUnderModel(net, routing, LoadModel::EvenSplit, threads, {}, entries);
    EXPECT_EQ(atLimit.value, reference.value);
    EXPECT_EQ(atLimit.witness, reference.witness);
    for (const LoadModel model : {LoadModel::EvenSplit, LoadModel::BestSplit}) {
      EXPECT_EQ(refusal(model, threads, entries - 1),
                fmt::format("even-split WORST keeps every pair's split: more than {} (channel, pair) entries; use "
                            "--load-model first-path or a smaller fabric",
                            entries - 1));
    }
    EXPECT_EQ(refusal(LoadModel::EvenSplit, threads, 2 * n * (n - 1) - 1),
              "even-split WORST keeps every pair's split: at least 60 (channel, pair) entries for 6 terminals (two "
              "per ordered pair) exceed the limit of 59; use --load-model first-path or a smaller fabric");
    EXPECT_EQ(refusal(LoadModel::EvenSplit, threads, 2 * n * (n - 1)),
              "even-split WORST keeps every pair's split: more than 60 (channel, pair) entries; use --load-model "
              "first-path or a smaller fabric");
  }
  // The default admits at most 2,896 terminals.
  EXPECT_LE(2U * 2896 * 2895, kMaxSplitWorstEntries);
  EXPECT_GT(2U * 2897 * 2896, kMaxSplitWorstEntries);
}

// The escape layer may be any layer, the first included (RoutingResult::escapeLayer): the
// escape engine's routing with its two layers swapped (escape layer 0, the adaptive layer 1)
// is the same routing, so its even-split and best-split loads and WORST are those of the
// original — the route graph takes the escape transitions of layer 0 as of layer 1.
TEST(LoadModels, AnEscapeLayerAtIndexZeroSplitsAsTheSameRoutingWithItLast) {
  const Fabric fabric = loadFabric("random:switches=16,seed=1");
  const Network& net = fabric.network;
  const RoutingResult original = runEngine("escape", net);  // layers 0 adaptive, 1 escape
  ASSERT_EQ(original.escapeLayer, 1);
  ASSERT_EQ(original.layerCount(), 2u);
  RoutingResult swapped = original;
  std::swap(swapped.tableOfLayer[0], swapped.tableOfLayer[1]);
  for (std::uint8_t& layer : swapped.layerOf) layer = layer == 0 ? 1 : layer == 1 ? 0 : layer;
  for (std::uint16_t& mask : swapped.allowedLayers)
    mask = static_cast<std::uint16_t>((mask & ~3U) | (mask & 1U) << 1 | (mask & 2U) >> 1);
  swapped.escapeLayer = 0;
  const std::size_t n = net.terminalCount();
  std::vector<SourceDestination> shift;
  for (std::uint32_t s = 0; s < n; ++s) shift.push_back({s, static_cast<std::uint32_t>((s + 1) % n)});
  for (const LoadModel model : {LoadModel::EvenSplit, LoadModel::BestSplit}) {
    const LinkLoads before = patternLoads(net, original, byHand(net, shift), model);
    const LinkLoads after = patternLoads(net, swapped, byHand(net, shift), model);
    EXPECT_EQ(after.load, before.load) << loadModelName(model);
    EXPECT_EQ(after.maxLoad, before.maxLoad) << loadModelName(model);
  }
  const SplitWorstCase before = worstUnderModel(net, original, LoadModel::EvenSplit, 1);
  const SplitWorstCase after = worstUnderModel(net, swapped, LoadModel::EvenSplit, 1);
  EXPECT_EQ(after.value, before.value);
  EXPECT_EQ(after.witness, before.witness);
  // Best-split WORST's upper bound also tries the escape layer entered only where needed, for
  // an escape layer at any index: the same bounds and the same work.
  const SplitWorstCase bestBefore = worstUnderModel(net, original, LoadModel::BestSplit, 1);
  const SplitWorstCase bestAfter = worstUnderModel(net, swapped, LoadModel::BestSplit, 1);
  EXPECT_EQ(bestAfter.value, bestBefore.value);
  EXPECT_EQ(bestAfter.lower, bestBefore.lower);
  EXPECT_EQ(bestAfter.channelsSolved, bestBefore.channelsSolved);
}

// Lower bounds round down to the 1e-9 grid, except within 10^-3 grid units below a grid
// point (analysis/best_split.h: the solver's float error), loads to the nearest grid point.
TEST(LoadModels, LowerBoundsRoundDownToTheGridUnlessWithinFloatErrorBelowAPoint) {
  EXPECT_EQ(roundLowerBound(1.5), 1.5);
  EXPECT_EQ(roundLowerBound(1.5 + 0.4e-9), 1.5);
  EXPECT_EQ(roundLowerBound(1.5 + 1e-9), 1500000001 / 1e9);
  EXPECT_EQ(roundLowerBound(1.5 - 0.5e-12), 1.5);
  EXPECT_EQ(roundLowerBound(1.5 - 2e-12), 1499999999 / 1e9);
  EXPECT_EQ(roundLoad(1.5 + 0.4e-9), 1.5);
  EXPECT_EQ(roundLoad(1.5 + 0.6e-9), 1500000001 / 1e9);
  EXPECT_EQ(roundLoad(1.5 - 0.6e-9), 1499999999 / 1e9);
}

// The mandatory bound (analysis/best_split.cpp): a channel on every route of a pair — its
// injection channel, and its destination's channel when every route ends on it — carries the
// pair whatever the split. Three terminals sending to terminal 5 load terminal 5's channel
// with 3 in every split, and no channel can carry more: the bound certifies the optimum
// before any iteration. With the escape engine's two layers, the routes reach terminal 5
// from either layer: two route-graph edges, one channel.
TEST(LoadModels, BestSplitIsCertifiedByTheDestinationsChannelWithoutIterating) {
  const Fabric fabric = loadFabric("random:switches=16,seed=1");
  const Network& net = fabric.network;
  const RoutingResult routing = runEngine("escape", net);
  ASSERT_FALSE(isSinglePath(net, routing));
  const std::vector<SourceDestination> pairs{{0, 5}, {1, 5}, {2, 5}};
  RouteGraphBuilder builder(net, routing);
  SplitWorkspace workspace;
  const BestSplitLoad best = bestSplitMaxLoad(builder, net.channelCount(), pairs, BestSplitOptions{}, workspace);
  EXPECT_EQ(best.upper, 3.0);
  EXPECT_EQ(best.lower, 3.0);
  EXPECT_EQ(best.iterations, 0U);
}

// A pair's routes are those of its injection layers (routing/semantics.h), whatever the
// number of layers: in a routing of 33 layers whose last layer uses a second table (sending
// leaf 0's traffic to terminal 2 through the other top switch), a pair injected in layer 0
// has exactly the routes of layer 0's table — also when layer 0 is the escape layer (then
// the pair has no other layer to start in, and the escape layer is its slot). The route
// graph reads injection layers from a 32-bit mask; layers from 32 on are never taken for a
// lower one. (No engine builds more than kMaxLayers = 16 layers; the library accepts more.)
TEST(LoadModels, RouteGraphOfARoutingWithMoreThanThirtyTwoLayersUsesOnlyTheInjectionLayers) {
  const Network net = makeGft2(2, 2, 2);
  RoutingResult routing = test::handDmodk(net, 2, 2);
  const Address toTwo = routing.addresses.base(net.terminalNode(2));
  ForwardingTable other = routing.tables[0];
  const PortNumber viaTop0 = routing.tables[0].port(0, toTwo);
  ASSERT_EQ(viaTop0, 3);  // leaf ports n+1+j -> top j: D-mod-k sends 2 through top 0
  other.set(0, toTwo, 4);
  routing.tables.push_back(std::move(other));
  for (const auto& [layers, escape] : {std::pair{32U, -1}, {33U, -1}, {32U, 0}, {33U, 0}}) {
    routing.tableOfLayer.assign(layers, 0);
    routing.tableOfLayer.back() = 1;
    routing.escapeLayer = escape;
    RouteGraphBuilder builder(net, routing);
    RouteGraph graph;
    builder.build(0, 2, graph);
    std::vector<std::uint32_t> channels = graph.edgeChannel;
    std::sort(channels.begin(), channels.end());
    std::vector<ChannelId> path;
    ASSERT_EQ(routing.walk(net, net.terminalNode(0), toTwo, LayerId(0), path), PathStatus::Delivered);
    std::vector<std::uint32_t> walk;
    for (const ChannelId c : path) walk.push_back(c.value);
    std::sort(walk.begin(), walk.end());
    EXPECT_EQ(channels, walk) << layers << " layers, escape layer " << escape;
    EXPECT_EQ(std::count(channels.begin(), channels.end(), channelAt(net, "gft-leaf0", 4).value), 0)
        << layers << " layers, escape layer " << escape;
  }
}
