// The fast paths of the static analysis against their references (issue 13): WORST from
// source classes (worst.h, no stored paths) against WORST from the stored pair paths, on
// fat-trees, XGFTs, T(n+m, r), faulted and random irregular fabrics, deterministic,
// source-dependent, layered, adaptive and multipath engines, LMC, 1 and 2 threads; the
// sampler's contended-channel records against a recount of every channel of every path; and
// the bisect sampler against the previous one (same random stream, same pattern).
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "analysis/paths.h"
#include "analysis/sampling.h"
#include "analysis/worst.h"
#include "core/errors.h"
#include "core/limits.h"
#include "core/random.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "graph/builder.h"
#include "hand_routing.h"
#include "io/fabric_files.h"
#include "io/lft_dump.h"
#include "traffic/pattern.h"

using namespace routelab;

namespace {

struct Row {
  const char* fabric;
  const char* engine;
  std::uint32_t lmc = 0;
  bool routeSwitches = false;
};

const std::vector<Row>& rows() {
  static const std::vector<Row> table = {
      {"kary-ntree:k=4,n=3", "dmodk"},
      {"kary-ntree:k=4,n=3", "smodk"},
      {"kary-ntree:k=4,n=3", "ftree-deterministic"},
      {"kary-ntree:k=4,n=3", "ftree-adaptive"},
      {"kary-ntree:k=4,n=3", "dmodk", 1},
      {"kary-ntree:k=4,n=3", "smodk", 2},
      {"kary-ntree:k=4,n=3", "dmodk", 0, true},
      {"kary-ntree:k=4,n=3", "minhop"},
      {"kary-ntree:k=4,n=3", "lash"},
      {"kary-ntree:k=4,n=3", "lash:addressing=pair"},
      {"kary-ntree:k=4,n=3", "mp-lash"},
      {"kary-ntree:k=4,n=3", "a-lash"},
      {"kary-ntree:k=4,n=3", "escape"},
      {"kary-ntree:k=4,n=3", "mroots"},
      {"kary-ntree:k=4,n=3", "d-mroots"},
      {"kary-ntree:k=8,n=2", "dmodk"},
      {"xgft:h=2,m=1.2,w=1.1", "dmodk"},  // two terminals, two leaves: each the other's only destination
      {"random:switches=24,links=26,terminals=2,seed=4", "minhop"},  // sparse: long paths
      {"kary-ntree:k=4,n=3+fail-links=3", "lash"},
      {"kary-ntree:k=4,n=3+fail-links=2,seed=5", "updown"},
      {"kary-ntree:k=4,n=3+fail-switches=1", "minhop"},
      {"gft2:n=8,m=4,r=8", "opt"},
      {"gft2:n=8,m=4,r=8", "opt-balanced"},
      {"gft2:n=8,m=4,r=8", "opt-grid"},
      {"gft2:n=8,m=4,r=8", "dmodk"},
      {"gft2:n=8,m=4,r=8", "smodk"},
      {"gft2:n=9,m=9,r=12", "opt"},
      {"gft2:n=7,m=3,r=4", "dmodk"},
      {"xgft:h=3,m=4.4.3,w=1.2.2", "dmodk"},
      {"xgft:h=3,m=4.4.3,w=1.2.2", "ftree-deterministic"},
      {"xgft:h=2,m=5.6,w=3.4", "dmodk", 1},
      {"ft:l=3,m=4,w=2", "dmodk"},
      {"random:switches=16", "minhop"},
      {"random:switches=16", "updown"},
      {"random:switches=20,terminals=2,seed=3", "updown-dfs"},
      {"random:switches=12,terminals=3,seed=7", "lash:addressing=pair"},
      {"random:switches=12,terminals=3,seed=7", "escape"},
  };
  return table;
}

RoutingResult route(const Row& row, const Network& network) {
  RoutingContext context;
  context.addressesPerTerminal = std::uint32_t{1} << row.lmc;
  context.routeSwitches = row.routeSwitches;
  return runEngine(row.engine, network, context);
}

std::string name(const Row& row) {
  return std::string(row.fabric) + " " + row.engine + " lmc " + std::to_string(row.lmc) +
         (row.routeSwitches ? " +switch addresses" : "");
}

void expectSameWorst(const WorstCase& fast, const WorstCase& reference, const std::string& what) {
  EXPECT_EQ(fast.value, reference.value) << what;
  EXPECT_EQ(fast.channel, reference.channel) << what;
  EXPECT_EQ(fast.witness, reference.witness) << what;
  EXPECT_EQ(fast.channelsSolved, reference.channelsSolved) << what;
  EXPECT_EQ(fast.channelsConsidered, reference.channelsConsidered) << what;
}

/// A single-path routing with random top switches per (leaf, destination, source class) on
/// T(n+m, r): routings without structure, several source classes per leaf; terminal t is in
/// class (7 t + classShift) mod classes.
RoutingResult randomGft2Routing(const Network& network, std::uint32_t n, std::uint32_t m, std::uint32_t classes,
                                std::uint64_t seed, std::uint32_t classShift = 0) {
  return test::handRouting(
      network, classes, [classes, classShift](std::uint32_t t) { return (t * 7 + classShift) % classes; },
      [n, m, seed](const Network& net, NodeId sw, std::uint32_t d, std::uint32_t cls) -> PortNumber {
        if (!test::isLeaf(net, sw)) return static_cast<PortNumber>(1 + d / n);
        if (test::indexInLevel(net, sw) == d / n) return static_cast<PortNumber>(1 + d % n);
        Rng rng(deriveSeed(seed, (sw.index() * 1000 + d) * 8 + cls));
        return static_cast<PortNumber>(n + 1 + rng.below(m));
      },
      "hand-random");
}

/// ML of a pattern by definition (Nienaber §II): every channel of every path counted.
std::uint32_t recountMaxLoad(const PairPaths& paths, const std::vector<SourceDestination>& pairs) {
  std::vector<std::uint32_t> load(paths.channelCount(), 0);
  std::uint32_t ml = 1;
  for (const auto& [s, d] : pairs) {
    for (const std::uint32_t c : paths.path(s, d)) ml = std::max(ml, ++load[c]);
  }
  return ml;
}

}  // namespace

TEST(WorstFastPath, EqualsStoredPathsOnManyFabricsAndThreadCounts) {
  for (const Row& row : rows()) {
    const Fabric fabric = loadFabric(row.fabric);
    const RoutingResult routing = route(row, fabric.network);
    for (const int threads : {1, 2}) {
      const WorstCase reference = worstCasePermutationLoad(PairPaths::build(fabric.network, routing, threads), threads);
      const WorstCase fast = worstCasePermutationLoad(fabric.network, routing, threads);
      expectSameWorst(fast, reference, name(row) + " threads " + std::to_string(threads));
    }
  }
}

// Which table index a layer names is bookkeeping: with an unused table put first (every
// layer's index one higher) the routing is the same, and so is its WORST — the fast path's
// per-(address, table) trees included, whose keys must stay distinct from "no tree yet".
TEST(WorstFastPath, AnUnusedFirstTableChangesNothing) {
  for (const Row& row : rows()) {
    const Fabric fabric = loadFabric(row.fabric);
    const RoutingResult routing = route(row, fabric.network);
    RoutingResult shifted = routing;
    shifted.tables.insert(shifted.tables.begin(), routing.tables.back());
    for (std::uint16_t& table : shifted.tableOfLayer) ++table;
    const WorstCase reference = worstCasePermutationLoad(PairPaths::build(fabric.network, routing, 1), 1);
    expectSameWorst(worstCasePermutationLoad(fabric.network, shifted, 1), reference, name(row) + " tables shifted");
  }
}

// The 64-bit pair keys used beyond 65535 terminals, on fabrics the reference can store.
TEST(WorstFastPath, WidePairKeysEqualStoredPaths) {
  for (const Row& row : rows()) {
    const Fabric fabric = loadFabric(row.fabric);
    const RoutingResult routing = route(row, fabric.network);
    const WorstCase reference = worstCasePermutationLoad(PairPaths::build(fabric.network, routing, 1), 1);
    for (const int threads : {1, 2}) {
      expectSameWorst(worstCasePermutationLoadWithWidePairKeys(fabric.network, routing, threads), reference,
                      name(row) + " wide keys, threads " + std::to_string(threads));
    }
  }
}

// The fast path's own memory is the documented sizes (docs/RELIABILITY.md, "Limits": 72 bytes
// per terminal, 28 per channel plus 24 per channel and thread), each taken at exactly its
// budget and refused one byte below, against a lowered budget (a 4-ary 3-tree's structures
// are a few KiB): the refusal names the count and the bytes each.
TEST(WorstFastPath, OwnMemoryIsTheDocumentedSizesTakenAtExactlyTheBudget) {
  const Row row{"kary-ntree:k=4,n=3", "dmodk"};
  const Fabric fabric = loadFabric(row.fabric);
  const RoutingResult routing = route(row, fabric.network);
  const std::uint64_t terminals = fabric.network.terminalCount();
  const std::uint64_t channels = fabric.network.channelCount();
  auto outcome = [&](int threads, std::uint64_t budget) -> std::string {
    try {
      const WorstCase fast = worstCasePermutationLoadWithMemoryBudget(fabric.network, routing, threads, budget);
      expectSameWorst(fast, worstCasePermutationLoad(fabric.network, routing, threads), "lowered budget");
    } catch (const LimitError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string terminalsRefused = "worst-case load: source classes of " + std::to_string(terminals) +
                                       " terminals: " + std::to_string(terminals) + " terminals x 72 bytes";
  for (const int threads : {1, 3}) {
    const std::uint64_t perChannel = 28 + 24 * static_cast<std::uint64_t>(threads);
    const std::string channelsRefused =
        "worst-case load: channel counts of " + std::to_string(channels) + " channels (" + std::to_string(threads) +
        " threads): " + std::to_string(channels) + " channels x " + std::to_string(perChannel) + " bytes";
    ASSERT_GT(channels * perChannel, terminals * 72);  // the terminals' check binds first
    EXPECT_EQ(outcome(threads, terminals * 72 - 1).rfind(terminalsRefused, 0), 0u) << threads;
    EXPECT_EQ(outcome(threads, terminals * 72).rfind(channelsRefused, 0), 0u) << threads;
    EXPECT_EQ(outcome(threads, channels * perChannel - 1).rfind(channelsRefused, 0), 0u) << threads;
    // At exactly the channels' size both fit; what may refuse next is one channel's pairs.
    const std::string atTheBudget = outcome(threads, channels * perChannel);
    EXPECT_TRUE(atTheBudget == "no error" ||
                atTheBudget.rfind("worst-case load: pairs of 1 channels gathered for matching", 0) == 0)
        << atTheBudget;
  }
  EXPECT_EQ(outcome(2, kMemoryBudgetBytes), "no error");
}

// The pairs gathered for matching cost 3 x 4 + 4 = 16 bytes each with 32-bit pair keys
// (docs/RELIABILITY.md, "Limits"): two switches of 32 terminals joined by one cable, whose
// channel in each direction carries the 32 x 32 pairs between them. Taken at exactly
// 1024 x 16 bytes (the first channel alone may use the whole budget), refused one byte below,
// naming the count and the bytes each; both budgets hold the terminals' and channels' sizes.
TEST(WorstFastPath, GatheredPairsAreSixteenBytesEachTakenAtExactlyTheBudget) {
  NetworkBuilder builder;
  const NodeId left = builder.addSwitch("left", 33), right = builder.addSwitch("right", 33);
  builder.connect(left, 33, right, 33);
  for (PortNumber p = 1; p <= 32; ++p) {
    builder.connect(builder.addTerminal("l" + std::to_string(p)), 1, left, p);
    builder.connect(builder.addTerminal("r" + std::to_string(p)), 1, right, p);
  }
  const Network net = builder.build();
  const RoutingResult routing = runEngine("minhop", net);
  const std::uint64_t budget = 1024 * 16;
  ASSERT_LT(net.terminalCount() * 72, budget);
  ASSERT_LT(net.channelCount() * (28 + 24), budget);  // one thread
  const WorstCase fast = worstCasePermutationLoadWithMemoryBudget(net, routing, 1, budget);
  expectSameWorst(fast, worstCasePermutationLoad(PairPaths::build(net, routing, 1), 1), "at the budget");
  EXPECT_EQ(fast.value, 32u);
  try {
    worstCasePermutationLoadWithMemoryBudget(net, routing, 1, budget - 1);
    ADD_FAILURE() << "one byte below the budget was not refused";
  } catch (const LimitError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "worst-case load: pairs of 1 channels gathered for matching: 1024 pairs x 16 bytes", 0),
              0u)
        << e.what();
  }
}

// The channels are solved in batches of 1, 2, 4, ... in bound order; a search that stays open
// long enough takes a last batch that ends the channel list. Terminals a, b, c on switch
// `left` and x, y, z on `right`, joined by a chain of 32 cables and one direct cable. The chain
// carries a -> {x, y, z}, b -> x, c -> x (and the mirror image back): bound min(3, 3) = 3 but a
// matching of 2, so all 64 chain channels stay open against the value 2 found first; the
// direct cable carries {b, c} <-> {y, z} (bound 2). Of the 64 + 2 = 66 switch channels used (the
// terminals' own channels are not among them), the seventh batch, up to 64 channels from
// position 63, therefore ends the list.
TEST(WorstFastPath, ABatchThatEndsTheChannelListIsSolvedAsTheReference) {
  constexpr PortNumber kChain = 4, kDirect = 5;
  constexpr int kChainCables = 32;
  NetworkBuilder builder;
  const NodeId left = builder.addSwitch("left", 5), right = builder.addSwitch("right", 5);
  for (PortNumber p = 1; p <= 3; ++p) builder.connect(builder.addTerminal(std::string(1, "abc"[p - 1])), 1, left, p);
  NodeId previous = left;
  PortNumber previousPort = kChain;
  for (int i = 1; i < kChainCables; ++i) {
    const NodeId hop = builder.addSwitch("u" + std::to_string(i), 2);
    builder.connect(previous, previousPort, hop, 1);
    previous = hop;
    previousPort = 2;
  }
  builder.connect(previous, previousPort, right, kChain);
  builder.connect(left, kDirect, right, kDirect);
  for (PortNumber p = 1; p <= 3; ++p) builder.connect(builder.addTerminal(std::string(1, "xyz"[p - 1])), 1, right, p);
  const Network net = builder.build();
  ASSERT_EQ(net.terminalCount(), 6u);
  ASSERT_EQ(net.name(net.terminalNode(3)), "x");
  // Terminals 0-2 are a, b, c; 3-5 are x, y, z. Class 0: a and x; class 1: the others.
  const RoutingResult routing = test::handRouting(
      net, 2, [](std::uint32_t t) { return t % 3 == 0 ? 0U : 1U; },
      [&](const Network&, NodeId sw, std::uint32_t d, std::uint32_t cls) -> PortNumber {
        const bool toRight = d >= 3;
        if (sw == left) return toRight ? (d == 3 || cls == 0 ? kChain : kDirect) : static_cast<PortNumber>(1 + d);
        if (sw == right) return toRight ? static_cast<PortNumber>(d - 2) : (d == 0 || cls == 0 ? kChain : kDirect);
        return toRight ? PortNumber{2} : PortNumber{1};  // along the chain
      },
      "hand-star");
  const WorstCase reference = worstCasePermutationLoad(PairPaths::build(net, routing, 1), 1);
  EXPECT_EQ(reference.value, 2u);
  EXPECT_EQ(reference.channelsConsidered, 66u);
  EXPECT_GE(reference.channelsSolved, 64u);  // every chain channel: the search stays open to position 63
  for (int threads : {1, 2}) {
    expectSameWorst(worstCasePermutationLoadWithMemoryBudget(net, routing, threads, kMemoryBudgetBytes), reference,
                    "threads " + std::to_string(threads));
  }
}

// Beyond the reference's 65535 terminals (pairs keyed in 64 bits): XGFT(3; 128,16,32;
// 1,8,16) has 65,536 terminals on 512 leaves (about 10 s). The reference cannot be built, so
// the answer is checked by what it claims: the witness is a partial permutation of `value`
// pairs, every one through the reported channel. With d-mod-k an up-channel of a level-2
// switch carries its 2048 sources to the 63,488 destinations outside its subtree that are
// equal modulo 128: 496 destinations, the most of any channel.
TEST(WorstFastPath, BeyondTheReferenceTheWitnessIsAPermutationThroughTheChannel) {
  const Fabric fabric = loadFabric("xgft:h=3,m=128.16.32,w=1.8.16");
  const Network& net = fabric.network;
  ASSERT_GT(net.terminalCount(), 65535u);
  const RoutingResult routing = runEngine("dmodk", net);
  EXPECT_THROW(PairPaths::build(net, routing, 1), AnalysisError);
  const WorstCase worst = worstCasePermutationLoad(net, routing, 2);
  ASSERT_EQ(worst.witness.size(), worst.value);
  std::vector<char> sent(net.terminalCount(), 0), received(net.terminalCount(), 0);
  std::vector<ChannelId> path;
  for (const SourceDestination& pair : worst.witness) {
    ASSERT_LT(pair.source, net.terminalCount());
    ASSERT_LT(pair.destination, net.terminalCount());
    EXPECT_FALSE(sent[pair.source]++) << pair.source;
    EXPECT_FALSE(received[pair.destination]++) << pair.destination;
    const NodeId source = net.terminalNode(pair.source);
    const Address address = routing.addressFor(source, net.terminalNode(pair.destination));
    const LayerId layer = routing.layer(routing.addresses.sourceIndex(source), address);
    ASSERT_EQ(routing.walk(net, source, address, layer, path), PathStatus::Delivered);
    EXPECT_NE(std::find(path.begin(), path.end(), worst.channel), path.end())
        << pair.source << " -> " << pair.destination << " misses channel " << worst.channel.value;
  }
  EXPECT_EQ(worst.value, 496u);
}

TEST(WorstFastPath, EqualsStoredPathsOnRandomSourceDependentRoutings) {
  for (const auto& [n, m, r] : {std::tuple{4u, 3u, 5u}, std::tuple{3u, 4u, 6u}, std::tuple{6u, 2u, 4u}}) {
    const Network net = makeGft2(n, m, r);
    for (std::uint32_t classes = 1; classes <= 3; ++classes) {
      for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const RoutingResult routing = randomGft2Routing(net, n, m, classes, seed);
        const WorstCase reference = worstCasePermutationLoad(PairPaths::build(net, routing, 1), 1);
        for (const int threads : {1, 2}) {
          expectSameWorst(worstCasePermutationLoad(net, routing, threads), reference,
                          "T(" + std::to_string(n) + "+" + std::to_string(m) + "," + std::to_string(r) + ") classes " +
                              std::to_string(classes) + " seed " + std::to_string(seed));
        }
        if (classes == 1 || seed > 1) continue;
        // Source classes without a class per source: every source is of class 0
        // (routing_result.h), as where each is given class 0.
        RoutingResult classless = routing, classZero = routing;
        classless.sourceClassOf.clear();
        std::fill(classZero.sourceClassOf.begin(), classZero.sourceClassOf.end(), 0U);
        const WorstCase zeroReference = worstCasePermutationLoad(PairPaths::build(net, classZero, 1), 1);
        const std::string what = "T(" + std::to_string(n) + "+" + std::to_string(m) + "," + std::to_string(r) +
                                 ") classes " + std::to_string(classes) + " without a class per source";
        expectSameWorst(worstCasePermutationLoad(PairPaths::build(net, classless, 1), 1), zeroReference, what);
        expectSameWorst(worstCasePermutationLoad(net, classless, 1), zeroReference, what);
      }
    }
  }
}

namespace {

/// The dual-rail fabric of the test below and its OpenSM dump; without S2 (`withS2` false)
/// sw-a's class is {D, S1}, D first.
std::pair<Network, RoutingResult> dualRailFabric(bool withS2) {
  const std::string ports =
      "SW     1  1 0x0000000000200000 4x SDR - CA     4  1 0x0000000000100001 ( 'sw-a' - 'hca' )\n"
      "SW     1  2 0x0000000000200000 4x SDR - CA     5  1 0x0000000000100011 ( 'sw-a' - 'hca' )\n"
      "SW     1  3 0x0000000000200000 4x SDR - CA     6  1 0x0000000000100021 ( 'sw-a' - 'hca' )\n"
      "SW     1  4 0x0000000000200000 4x SDR - SW     2  4 0x0000000000200001 ( 'sw-a' - 'sw-b' )\n"
      "SW     2  1 0x0000000000200001 4x SDR - CA     3  2 0x0000000000100002 ( 'sw-b' - 'hca' )\n"
      "SW     2  2 0x0000000000200001 4x SDR - CA     7  1 0x0000000000100031 ( 'sw-b' - 'hca' )\n"
      "SW     2  4 0x0000000000200001 4x SDR - SW     1  4 0x0000000000200000 ( 'sw-b' - 'sw-a' )\n"
      "CA     4  1 0x0000000000100001 4x SDR - SW     1  1 0x0000000000200000 ( 'hca' - 'sw-a' )\n"
      "CA     3  2 0x0000000000100002 4x SDR - SW     2  1 0x0000000000200001 ( 'hca' - 'sw-b' )\n"
      "CA     5  1 0x0000000000100011 4x SDR - SW     1  2 0x0000000000200000 ( 'hca' - 'sw-a' )\n"
      "CA     6  1 0x0000000000100021 4x SDR - SW     1  3 0x0000000000200000 ( 'hca' - 'sw-a' )\n"
      "CA     7  1 0x0000000000100031 4x SDR - SW     2  2 0x0000000000200001 ( 'hca' - 'sw-b' )\n";
  auto without = [&](const std::string& text) {
    std::string out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (withS2 || line.find("0x0000000000100021") == std::string::npos) out += line + "\n";
    }
    return out;
  };
  // LIDs: sw-a 1, sw-b 2, D 3 (port 2, on sw-b: its base) and 4 (port 1), S1 5, S2 6, T 7.
  const std::string dump =
      "Unicast lids [0-7] of switch Lid 1 guid 0x0000000000200000 ('sw-a'):\n"
      "0x0001 000 # Switch portguid 0x0000000000200000: 'sw-a'\n"
      "0x0002 004 # Switch portguid 0x0000000000200001: 'sw-b'\n"
      "0x0003 004 # Channel Adapter portguid 0x0000000000100002: 'hca'\n"
      "0x0004 001 # Channel Adapter portguid 0x0000000000100001: 'hca'\n"
      "0x0005 002 # Channel Adapter portguid 0x0000000000100011: 'hca'\n"
      "0x0006 003 # Channel Adapter portguid 0x0000000000100021: 'hca'\n"
      "0x0007 004 # Channel Adapter portguid 0x0000000000100031: 'hca'\n"
      "7 lids dumped\n"
      "Unicast lids [0-7] of switch Lid 2 guid 0x0000000000200001 ('sw-b'):\n"
      "0x0001 004 # Switch portguid 0x0000000000200000: 'sw-a'\n"
      "0x0002 000 # Switch portguid 0x0000000000200001: 'sw-b'\n"
      "0x0003 001 # Channel Adapter portguid 0x0000000000100002: 'hca'\n"
      "0x0004 004 # Channel Adapter portguid 0x0000000000100001: 'hca'\n"
      "0x0005 004 # Channel Adapter portguid 0x0000000000100011: 'hca'\n"
      "0x0006 004 # Channel Adapter portguid 0x0000000000100021: 'hca'\n"
      "0x0007 002 # Channel Adapter portguid 0x0000000000100031: 'hca'\n"
      "7 lids dumped\n";
  const Network net = parseFabricText(without(ports), "dual-rail.txt");
  RoutingResult routing = parseLftDump(without(dump), "dual-rail.dump", net);
  return {net, std::move(routing)};
}

}  // namespace

// A source class is the terminals that enter at one switch with one routing row; a pair
// inside a class is usually delivered at that switch. Not to a dual-rail host whose base LID
// is its port on another switch: there the pairs from its classmates cross switch-to-switch
// channels, and the worst channel's matching needs them. sw-a holds the dual-rail host D (port
// 1; port 2 on sw-b, LID 3, D's base), S1 and S2; sw-b holds T. Channel sw-a -> sw-b carries
// S1 -> D, S2 -> D, S1 -> T, S2 -> T and D -> T: WORST 2 (S1 -> D with S2 -> T), where the
// pairs to D alone would leave 1.
TEST(WorstFastPath, PairsInsideASourceClassThatLeaveItsSwitchAreCounted) {
  const auto [net, routing] = dualRailFabric(true);
  ASSERT_EQ(net.terminalCount(), 4u);
  const WorstCase reference = worstCasePermutationLoad(PairPaths::build(net, routing, 1), 1);
  EXPECT_EQ(reference.value, 2u);
  const NodeId swA = *net.findNode("sw-a");
  EXPECT_EQ(reference.channel, net.channelAt(swA, 4));
  for (const int threads : {1, 2}) {
    expectSameWorst(worstCasePermutationLoad(net, routing, threads), reference,
                    "dual-rail threads " + std::to_string(threads));
  }
}

// The same without S2: sw-a's class is {D, S1}, and the pairs into its first member D are
// gathered too (S1 -> D crosses sw-a -> sw-b): WORST 2 with D -> T, where the pairs to T alone
// would leave 1.
TEST(WorstFastPath, PairsIntoTheFirstMemberOfATwoTerminalClassAreCounted) {
  const auto [net, routing] = dualRailFabric(false);
  ASSERT_EQ(net.terminalCount(), 3u);
  const WorstCase reference = worstCasePermutationLoad(PairPaths::build(net, routing, 1), 1);
  EXPECT_EQ(reference.value, 2u);
  EXPECT_EQ(reference.channel, net.channelAt(*net.findNode("sw-a"), 4));
  for (const int threads : {1, 2}) {
    expectSameWorst(worstCasePermutationLoad(net, routing, threads), reference,
                    "dual-rail without S2, threads " + std::to_string(threads));
  }
}

TEST(WorstFastPath, UndeliveredPairsGiveTheReferenceError) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=3");
  const Network& net = fabric.network;
  const RoutingResult good = runEngine("dmodk", net);
  auto referenceError = [&](const RoutingResult& routing) {
    try {
      PairPaths::build(net, routing, 1);
    } catch (const AnalysisError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  // A missing entry at a leaf, a missing entry at the top, a dead-end port (delivery claimed
  // at the wrong switch), and a loop between two switches; the error is the reference's with
  // the reference and without it (as beyond 65535 terminals: the first undelivered pair by
  // source, then destination, found by the fast path's own search).
  const Address address = good.addresses.base(net.terminalNode(37));
  const NodeId leaf = net.target(net.injectionChannel(net.terminalNode(0)));
  const ChannelId up = net.channelAt(leaf, good.tables[0].port(net.switchIndex(leaf), address));
  const NodeId above = net.target(up);
  std::vector<RoutingResult> broken(5, good);
  broken[0].tables[0].set(net.switchIndex(leaf), address, kNoRoute);
  broken[1].tables[0].set(net.switchIndex(above), address, kNoRoute);
  broken[2].tables[0].set(net.switchIndex(above), address, kSelfPort);
  broken[3].tables[0].set(net.switchIndex(above), address, net.targetPort(up));  // back down to the leaf
  // ... and one only the last source class holds (the last leaf's entry for terminal 0): the
  // search for the first undelivered source runs through every class.
  const NodeId lastLeaf = net.target(net.injectionChannel(net.terminalNode(net.terminalCount() - 1)));
  broken[4].tables[0].set(net.switchIndex(lastLeaf), good.addresses.base(net.terminalNode(0)), kNoRoute);
  for (std::size_t i = 0; i < broken.size(); ++i) {
    const std::string expected = referenceError(broken[i]);
    ASSERT_NE(expected, "no error") << i;
    for (const int threads : {1, 2}) {
      for (const bool beyondTheReference : {false, true}) {  // the wide-keys hook runs without the reference
        try {
          if (beyondTheReference) {
            worstCasePermutationLoadWithWidePairKeys(net, broken[i], threads);
          } else {
            worstCasePermutationLoad(net, broken[i], threads);
          }
          ADD_FAILURE() << "case " << i << ": no error";
        } catch (const AnalysisError& error) {
          EXPECT_EQ(std::string(error.what()), expected) << i << (beyondTheReference ? " beyond the reference" : "");
        }
      }
    }
  }
}

// The compact records shared by the sources of one switch and address offset: each source's
// offset into them comes from its own class, terminal 0's included (here in class 1 or 2, so
// its records do not start at the row's first address).
TEST(SamplerFastPath, SourceClassRecordsEqualARecountWhateverTerminalZerosClass) {
  for (const auto& [n, m, r] : {std::tuple{4u, 3u, 5u}, std::tuple{6u, 2u, 4u}}) {
    const Network net = makeGft2(n, m, r);
    for (const std::uint32_t classes : {2u, 3u}) {
      const RoutingResult routing = randomGft2Routing(net, n, m, classes, 3, 1);
      ASSERT_NE(routing.sourceClassOf.at(0), 0u);
      const PairPaths paths = PairPaths::build(net, routing, 1);
      if (classes == 2) {
        ASSERT_TRUE(paths.compactBySwitch());  // (3 classes take 4 addresses: too many for it)
      }
      std::vector<std::uint32_t> scratch(paths.terminals());
      std::vector<SourceDestination> pairs;
      for (const SampledPattern kind : {SampledPattern::FullPermutation, SampledPattern::RandomPermutation}) {
        for (std::uint64_t index = 0; index < 40; ++index) {
          drawSampledPattern(kind, 5, index, scratch, pairs);
          ASSERT_EQ(sampleMaxLoad(paths, kind, 5, index), recountMaxLoad(paths, pairs))
              << "T(" << n << "+" << m << "," << r << ") classes " << classes << " " << sampledPatternName(kind)
              << " sample " << index;
        }
      }
    }
  }
}

TEST(SamplerFastPath, EveryMaxLoadEqualsARecountOfEveryChannel) {
  const SampledPattern kinds[] = {SampledPattern::Bisect, SampledPattern::FullPermutation,
                                  SampledPattern::Dissemination, SampledPattern::RandomPermutation};
  for (const Row& row : rows()) {
    const Fabric fabric = loadFabric(row.fabric);
    const PairPaths paths = PairPaths::build(fabric.network, route(row, fabric.network), 1);
    std::vector<std::uint32_t> scratch(paths.terminals());
    std::vector<SourceDestination> pairs;
    for (const SampledPattern kind : kinds) {
      if (paths.terminals() % 2 != 0 && kind != SampledPattern::FullPermutation &&
          kind != SampledPattern::RandomPermutation) {
        continue;
      }
      for (const std::uint64_t seed : {1ULL, 7ULL, 2011ULL}) {
        for (std::uint64_t index = 0; index < 60; ++index) {
          drawSampledPattern(kind, seed, index, scratch, pairs);
          ASSERT_EQ(sampleMaxLoad(paths, kind, seed, index), recountMaxLoad(paths, pairs))
              << name(row) << " " << sampledPatternName(kind) << " seed " << seed << " sample " << index;
        }
      }
    }
  }
}

TEST(SamplerFastPath, SameResultsForOneAndTwoThreadsAndOnStructuredFabrics) {
  const Network net = makeGft2(8, 4, 8);
  for (const char* engine : {"dmodk", "opt", "smodk"}) {
    const PairPaths paths = PairPaths::build(net, runEngine(engine, net), 1);
    for (const SampledPattern kind : {SampledPattern::Bisect, SampledPattern::Dissemination}) {
      SamplingOptions options;
      options.seed = 5;
      options.initialSamples = options.maxSamples = 3000;
      options.threads = 1;
      const SampledBandwidth one = sampleBandwidth(paths, kind, options);
      options.threads = 2;
      const SampledBandwidth two = sampleBandwidth(paths, kind, options);
      EXPECT_EQ(one.maxLoadHistogram, two.maxLoadHistogram) << engine;
      EXPECT_EQ(one.mean, two.mean) << engine;
      EXPECT_EQ(one.ci99HalfWidth, two.ci99HalfWidth) << engine;
      // The histogram is the recount's histogram.
      std::map<std::uint32_t, std::uint64_t> recount;
      std::vector<std::uint32_t> scratch(paths.terminals());
      std::vector<SourceDestination> pairs;
      for (std::uint64_t index = 0; index < options.maxSamples; ++index) {
        drawSampledPattern(kind, options.seed, index, scratch, pairs);
        ++recount[recountMaxLoad(paths, pairs)];
      }
      EXPECT_EQ(one.maxLoadHistogram, recount) << engine << " " << sampledPatternName(kind);
    }
  }
}
