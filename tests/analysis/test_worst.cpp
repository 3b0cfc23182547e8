// WORST (Nienaber §II Eq. 1) by per-channel maximum matching: agreement with brute force
// over all permutations on tiny fabrics, witness validity, Table I rows, thread
// independence; Hopcroft–Karp against brute force.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>

#include "analysis/loads.h"
#include "analysis/matching.h"
#include "analysis/paths.h"
#include "analysis/worst.h"
#include "core/random.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "hand_routing.h"

using namespace routelab;
using routelab::test::handDmodk;
using routelab::test::handGomez;
using routelab::test::handOpt;

namespace {

/// Largest matching by trying every subset of edges greedily in all orders (tiny graphs).
std::size_t bruteMatching(std::size_t left, const std::vector<std::vector<std::uint32_t>>& adjacency, std::size_t right,
                          std::size_t u, std::vector<std::uint8_t>& usedRight) {
  if (u == left) return 0;
  std::size_t best = bruteMatching(left, adjacency, right, u + 1, usedRight);  // leave u unmatched
  for (const std::uint32_t v : adjacency[u]) {
    if (usedRight[v]) continue;
    usedRight[v] = 1;
    best = std::max(best, 1 + bruteMatching(left, adjacency, right, u + 1, usedRight));
    usedRight[v] = 0;
  }
  return best;
}

/// max over all N! permutations (fixed points dropped) of ML — Eq. (1) by definition. Every
/// Def. 1 permutation is contained in one of these, and adding pairs never lowers ML.
std::uint32_t bruteWorst(const PairPaths& paths) {
  const std::size_t n = paths.terminals();
  std::vector<std::uint32_t> pi(n);
  std::iota(pi.begin(), pi.end(), 0U);
  std::vector<std::uint32_t> load(paths.channelCount(), 0);
  std::uint32_t worst = 0;
  do {
    std::fill(load.begin(), load.end(), 0);
    for (std::uint32_t s = 0; s < n; ++s) {
      if (pi[s] == s) continue;
      for (const std::uint32_t c : paths.path(s, pi[s])) worst = std::max(worst, ++load[c]);
    }
  } while (std::next_permutation(pi.begin(), pi.end()));
  return worst;
}

/// A single-path routing drawn at random on T(n+m, r): every (leaf, destination, class)
/// picks a random top switch. Exercises WORST on routings with no structure.
RoutingResult randomGft2Routing(const Network& network, std::uint32_t n, std::uint32_t m, std::uint64_t seed) {
  return test::handRouting(
      network, 2, [](std::uint32_t t) { return t % 2; },
      [n, m, seed](const Network& net, NodeId sw, std::uint32_t d, std::uint32_t cls) -> PortNumber {
        if (!test::isLeaf(net, sw)) return static_cast<PortNumber>(1 + d / n);
        if (test::indexInLevel(net, sw) == d / n) return static_cast<PortNumber>(1 + d % n);
        Rng rng(deriveSeed(seed, (sw.index() * 1000 + d) * 2 + cls));
        return static_cast<PortNumber>(n + 1 + rng.below(m));
      },
      "hand-random");
}

void expectValidWitness(const Network& network, const RoutingResult& routing, const PairPaths& paths,
                        const WorstCase& worst) {
  ASSERT_EQ(worst.witness.size(), worst.value);
  EXPECT_TRUE(isPermutation(worst.witness, paths.terminals()));
  for (const auto& [s, d] : worst.witness) {
    const auto path = paths.path(s, d);
    EXPECT_NE(std::find(path.begin(), path.end(), worst.channel.value), path.end()) << s << "->" << d;
  }
  TrafficPattern pattern;
  pattern.terminals = paths.terminals();
  pattern.pairs = worst.witness;
  const LinkLoads loads = patternLoads(network, routing, pattern);
  EXPECT_EQ(loads.maxLoad, worst.value);
  EXPECT_EQ(loads.load[worst.channel.index()], worst.value);
}

}  // namespace

TEST(HopcroftKarp, AgreesWithBruteForceOnRandomGraphs) {
  HopcroftKarp matcher;
  for (std::uint64_t trial = 0; trial < 400; ++trial) {
    Rng rng(deriveSeed(3, trial));
    const std::size_t left = 1 + rng.below(7), right = 1 + rng.below(7);
    std::vector<std::vector<std::uint32_t>> adjacency(left);
    std::vector<std::uint32_t> offsets{0}, targets;
    for (std::size_t u = 0; u < left; ++u) {
      for (std::uint32_t v = 0; v < right; ++v) {
        if (rng.below(100) < 35) adjacency[u].push_back(v);
      }
      targets.insert(targets.end(), adjacency[u].begin(), adjacency[u].end());
      offsets.push_back(static_cast<std::uint32_t>(targets.size()));
    }
    std::vector<std::uint8_t> usedRight(right, 0);
    const std::size_t expected = bruteMatching(left, adjacency, right, 0, usedRight);
    const std::size_t size = matcher.solve(offsets, targets, right);
    ASSERT_EQ(size, expected) << "trial " << trial;
    // The matching is valid: edges of the graph, right vertices used once.
    std::vector<int> seen(right, 0);
    std::size_t matched = 0;
    for (std::size_t u = 0; u < left; ++u) {
      const std::int32_t v = matcher.matchOfLeft()[u];
      if (v == kUnmatched) continue;
      ++matched;
      EXPECT_NE(std::find(adjacency[u].begin(), adjacency[u].end(), static_cast<std::uint32_t>(v)), adjacency[u].end());
      EXPECT_EQ(seen[static_cast<std::size_t>(v)]++, 0);
    }
    EXPECT_EQ(matched, size);
  }
}

// Larger graphs, where Hopcroft–Karp needs several phases after its greedy start (each phase
// must lay out the layers afresh): the size equals that of Kuhn's augmenting-path algorithm
// (one search per left vertex, obviously correct), on sparse and dense graphs of up to 80
// vertices a side whose edge order makes the greedy start poor (low-numbered right vertices
// first, so early left vertices take the ones later ones need).
TEST(HopcroftKarp, AgreesWithKuhnsAlgorithmOnGraphsThatNeedSeveralPhases) {
  HopcroftKarp matcher;
  std::size_t phasesNeeded = 0;
  for (std::uint64_t trial = 0; trial < 300; ++trial) {
    Rng rng(deriveSeed(17, trial));
    const std::size_t left = 10 + rng.below(71), right = 10 + rng.below(71);
    const std::uint64_t degree = 1 + rng.below(4);
    std::vector<std::vector<std::uint32_t>> adjacency(left);
    std::vector<std::uint32_t> offsets{0}, targets;
    for (std::size_t u = 0; u < left; ++u) {
      for (std::uint64_t k = 0; k < degree; ++k) adjacency[u].push_back(static_cast<std::uint32_t>(rng.below(right)));
      std::sort(adjacency[u].begin(), adjacency[u].end());
      adjacency[u].erase(std::unique(adjacency[u].begin(), adjacency[u].end()), adjacency[u].end());
      targets.insert(targets.end(), adjacency[u].begin(), adjacency[u].end());
      offsets.push_back(static_cast<std::uint32_t>(targets.size()));
    }
    // Kuhn: for each left vertex, a depth-first search for an augmenting path.
    std::vector<int> rightPartner(right, -1);
    std::vector<char> visited;
    std::function<bool(std::size_t)> augment = [&](std::size_t u) {
      for (const std::uint32_t v : adjacency[u]) {
        if (visited[v]) continue;
        visited[v] = 1;
        if (rightPartner[v] < 0 || augment(static_cast<std::size_t>(rightPartner[v]))) {
          rightPartner[v] = static_cast<int>(u);
          return true;
        }
      }
      return false;
    };
    std::size_t expected = 0, greedy = 0;
    for (std::size_t u = 0; u < left; ++u) {
      visited.assign(right, 0);
      expected += augment(u) ? 1 : 0;
    }
    std::vector<char> taken(right, 0);
    for (std::size_t u = 0; u < left; ++u) {
      const auto free =
          std::find_if(adjacency[u].begin(), adjacency[u].end(), [&](std::uint32_t v) { return !taken[v]; });
      if (free != adjacency[u].end()) greedy += taken[*free] = 1;
    }
    phasesNeeded += expected > greedy + 1 ? 1 : 0;
    const std::size_t size = matcher.solve(offsets, targets, right);
    ASSERT_EQ(size, expected) << "trial " << trial << ": " << left << " x " << right << ", degree " << degree;
    std::vector<int> seen(right, 0);
    for (std::size_t u = 0; u < left; ++u) {
      const std::int32_t v = matcher.matchOfLeft()[u];
      if (v == kUnmatched) continue;
      EXPECT_NE(std::find(adjacency[u].begin(), adjacency[u].end(), static_cast<std::uint32_t>(v)), adjacency[u].end());
      EXPECT_EQ(seen[static_cast<std::size_t>(v)]++, 0);
    }
  }
  EXPECT_GT(phasesNeeded, 50U) << "too few graphs where the greedy start leaves two or more augmentations";
}

// A graph without left vertices — offsets empty, or the single offset {0} — has the empty
// matching, also on a solver that has just solved a larger graph (its arrays are reused).
TEST(HopcroftKarp, AGraphWithoutLeftVerticesHasTheEmptyMatching) {
  HopcroftKarp matcher;
  const std::vector<std::uint32_t> offsets{0, 1, 2}, targets{0, 1};
  ASSERT_EQ(matcher.solve(offsets, targets, 2), 2U);
  for (const std::vector<std::uint32_t>& none : {std::vector<std::uint32_t>{}, std::vector<std::uint32_t>{0}}) {
    EXPECT_EQ(matcher.solve(none, {}, 3), 0U) << none.size() << " offsets";
    EXPECT_TRUE(matcher.matchOfLeft().empty()) << none.size() << " offsets";
  }
}

// WORST = 1 (T(2+2, 2) under D-mod-k: every top-to-leaf channel carries one destination):
// the reported channel is the smallest id among those reaching 1 (worst.h), the same from
// stored paths and from the fast path — whichever terminal or switch channel that is.
TEST(Worst, AWorstOfOneReportsTheSmallestChannelReachingIt) {
  const Network net = makeGft2(2, 2, 2);
  const RoutingResult routing = handDmodk(net, 2, 2);
  const PairPaths paths = PairPaths::build(net, routing, 1);
  std::uint32_t smallest = UINT32_MAX;
  for (std::uint32_t s = 0; s < paths.terminals(); ++s) {
    for (std::uint32_t d = 0; d < paths.terminals(); ++d) {
      if (s == d) continue;
      for (const std::uint32_t c : paths.path(s, d)) smallest = std::min(smallest, c);
    }
  }
  for (const WorstCase& worst : {worstCasePermutationLoad(paths, 1), worstCasePermutationLoad(net, routing, 1)}) {
    EXPECT_EQ(worst.value, 1U);
    EXPECT_EQ(worst.channel.value, smallest);
  }
}

TEST(Worst, AgreesWithBruteForceOverAllPermutations) {
  struct Case {
    Network network;
    RoutingResult routing;
  };
  std::vector<Case> cases;
  {
    const Network net = makeGft2(2, 2, 3);  // N = 6
    cases.push_back({net, handDmodk(net, 2, 2)});
    cases.push_back({net, handOpt(net, 2, 2)});
    cases.push_back({net, randomGft2Routing(net, 2, 2, 1)});
  }
  {
    const Network net = makeGft2(3, 2, 3);  // N = 9: 362,880 permutations
    cases.push_back({net, handDmodk(net, 3, 2)});
    cases.push_back({net, randomGft2Routing(net, 3, 2, 5)});
  }
  {
    const Network net = makeGft2(2, 3, 4);  // N = 8, fatted
    cases.push_back({net, randomGft2Routing(net, 2, 3, 9)});
    cases.push_back({net, handOpt(net, 2, 3)});
  }
  {
    const Network net = makeKaryNtree(2, 3);  // N = 8, three levels
    cases.push_back({net, handGomez(net, 2, 3)});
  }
  for (const Case& c : cases) {
    const PairPaths paths = PairPaths::build(c.network, c.routing, 1);
    const WorstCase worst = worstCasePermutationLoad(paths, 1);
    EXPECT_EQ(worst.value, bruteWorst(paths)) << c.network.origin() << " " << c.routing.engine;
    expectValidWitness(c.network, c.routing, paths, worst);
  }
}

TEST(Worst, IndependentOfThreadCount) {
  const Network net = makeGft2(6, 4, 8);
  const RoutingResult routing = randomGft2Routing(net, 6, 4, 17);
  const PairPaths paths = PairPaths::build(net, routing, 1);
  const WorstCase one = worstCasePermutationLoad(paths, 1);
  for (int threads : {2, 3, 8}) {
    const WorstCase many = worstCasePermutationLoad(paths, threads);
    EXPECT_EQ(many.value, one.value);
    EXPECT_EQ(many.channel, one.channel);
    EXPECT_EQ(many.witness, one.witness);
  }
  // The reported channel's own matching gives the same value and witness.
  const WorstCase channel = channelWorstCase(paths, one.channel);
  EXPECT_EQ(channel.value, one.value);
  EXPECT_EQ(channel.witness, one.witness);
}

TEST(Worst, TheoremTwoPermutationOnDmodk) {
  // Nienaber Theorem 2's permutation {(0, i m), (1, (i+1) m), ...} loads BSW_0 -> TSW_0
  // with n pairs under D-mod-k; WORST finds n and names an up channel of a leaf.
  const Network net = makeGft2(4, 4, 8);
  const RoutingResult routing = handDmodk(net, 4, 4);
  const PairPaths paths = PairPaths::build(net, routing);
  const WorstCase worst = worstCasePermutationLoad(paths);
  EXPECT_EQ(worst.value, 4u);
  EXPECT_TRUE(net.isSwitch(net.source(worst.channel)));
  EXPECT_TRUE(net.isSwitch(net.target(worst.channel)));
  TrafficPattern theorem;
  theorem.terminals = net.terminalCount();
  for (std::uint32_t j = 0; j < 4; ++j) theorem.pairs.push_back({j, (1 + j) * 4});
  EXPECT_EQ(patternLoads(net, routing, theorem).maxLoad, 4.0);
}

TEST(Worst, SingleSwitchFabricHasWorstOne) {
  const Network net = makeXgft({{4}, {1}});  // one switch, 4 terminals
  const RoutingResult routing = test::handRouting(
      net, 1, [](std::uint32_t) { return 0U; },
      [](const Network&, NodeId, std::uint32_t d, std::uint32_t) { return static_cast<PortNumber>(1 + d); }, "star");
  const PairPaths paths = PairPaths::build(net, routing);
  const WorstCase worst = worstCasePermutationLoad(paths);
  EXPECT_EQ(worst.value, 1u);
  EXPECT_EQ(worst.witness.size(), 1u);
  EXPECT_EQ(worst.channelsConsidered, 0u);
  // With no switch-to-switch channel the terminal channels decide: the witness is still a
  // permutation pair (s != d) whose path crosses the reported channel, and it loads that
  // channel with the value — from the stored paths and from the path-free walk alike.
  expectValidWitness(net, routing, paths, worst);
  const WorstCase walked = worstCasePermutationLoad(net, routing, 1);
  EXPECT_EQ(walked.value, 1u);
  expectValidWitness(net, routing, paths, walked);
  // No path has a switch-to-switch part, so there is no compact core to copy (paths.h).
  EXPECT_FALSE(paths.hasCompactCore());
  EXPECT_EQ(paths.coreStride(), 0u);
  EXPECT_EQ(paths.memoryBytes(), paths.totalHops() * 4 + (16 + 1) * 4);
}

TEST(Worst, UndeliveredPairIsAnAnalysisError) {
  const Network net = makeGft2(2, 2, 3);
  RoutingResult routing = handDmodk(net, 2, 2);
  routing.tables[0].set(3, 4, kNoRoute);  // top switch 0 (switch index 3) loses address 4
  try {
    PairPaths::build(net, routing);
    FAIL() << "expected AnalysisError";
  } catch (const AnalysisError& e) {
    EXPECT_NE(std::string(e.what()).find("does not deliver"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(": no route at 'gft-top0' after"), std::string::npos) << e.what();
  }
}

// Nienaber Table I (exact): WORST of OPT (Fig. 2) and D-mod-k. The rows small enough for a
// unit test; experiments/nienaber reproduces all 15.
struct TableOneRow {
  std::uint32_t n, m, r, opt, dmodk;
};
const TableOneRow kTableOne[] = {
    {9, 9, 18, 3, 9}, {12, 4, 16, 6, 12}, {12, 12, 24, 4, 12}, {8, 16, 24, 2, 8}, {16, 8, 24, 8, 16},
};

TEST(Worst, NienaberTableOneRowsWithHandRoutings) {
  for (const TableOneRow& row : kTableOne) {
    const Network net = makeGft2(row.n, row.m, row.r);
    EXPECT_EQ(worstCasePermutationLoad(PairPaths::build(net, handOpt(net, row.n, row.m))).value, row.opt)
        << "T(" << row.n << "+" << row.m << "," << row.r << ") OPT";
    EXPECT_EQ(worstCasePermutationLoad(PairPaths::build(net, handDmodk(net, row.n, row.m))).value, row.dmodk)
        << "T(" << row.n << "+" << row.m << "," << row.r << ") D-mod-k";
  }
}

TEST(Worst, NienaberTableOneRowsWithEngines) {
  ASSERT_TRUE(engineRegistry().contains("opt"));
  ASSERT_TRUE(engineRegistry().contains("dmodk"));
  for (const TableOneRow& row : kTableOne) {
    const Network net = makeGft2(row.n, row.m, row.r);
    EXPECT_EQ(worstCasePermutationLoad(PairPaths::build(net, runEngine("opt", net))).value, row.opt)
        << "T(" << row.n << "+" << row.m << "," << row.r << ") OPT";
    EXPECT_EQ(worstCasePermutationLoad(PairPaths::build(net, runEngine("dmodk", net))).value, row.dmodk)
        << "T(" << row.n << "+" << row.m << "," << row.r << ") D-mod-k";
  }
  // The acceptance case: T(16+16, 32) under OPT has WORST = 4.
  const Network net = makeGft2(16, 16, 32);
  EXPECT_EQ(worstCasePermutationLoad(PairPaths::build(net, runEngine("opt", net))).value, 4u);
}

namespace routelab {
namespace {

// The reported channel and witness on ties (docs/ANALYSIS.md "WORST, exactly"): every
// channel's maximum over all 8! permutations of the pairs through it (brute force, each
// permutation's non-fixed pairs), WORST the largest, the reported channel the smallest id
// reaching it, the witness a permutation of WORST pairs all through that channel — from the
// reference and from the grouped traversal, on fabrics where several channels tie.
TEST(WorstWitness, SmallestChannelAmongTheTiedAndAPermutationThroughIt) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"kary-ntree:k=2,n=3", "dmodk"},
      {"kary-ntree:k=2,n=3", "smodk"},
      {"random:switches=4,links=5,terminals=2,seed=3", "updown"},
      {"random:switches=8,terminals=1,seed=4", "lash"}};
  for (const auto& [spec, engine] : cases) {
    const Fabric fabric = loadFabric(spec);
    const Network& net = fabric.network;
    const std::uint32_t n = static_cast<std::uint32_t>(net.terminalCount());
    ASSERT_LE(n, 8U) << spec;
    const RoutingResult routing = runEngine(engine, net);
    const PairPaths paths = PairPaths::build(net, routing, 1);
    std::vector<std::uint32_t> best(net.channelCount(), 0);
    std::vector<std::uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0U);
    std::vector<std::uint32_t> count(net.channelCount());
    do {
      std::fill(count.begin(), count.end(), 0U);
      for (std::uint32_t s = 0; s < n; ++s) {
        if (perm[s] == s) continue;
        for (const std::uint32_t c : paths.path(s, perm[s])) ++count[c];
      }
      for (std::size_t c = 0; c < count.size(); ++c) best[c] = std::max(best[c], count[c]);
    } while (std::next_permutation(perm.begin(), perm.end()));
    const std::uint32_t value = *std::max_element(best.begin(), best.end());
    const auto tied = static_cast<std::size_t>(std::count(best.begin(), best.end(), value));
    const std::size_t smallest = static_cast<std::size_t>(std::find(best.begin(), best.end(), value) - best.begin());
    const std::string what = spec + " " + engine;
    ASSERT_GE(value, 2U) << what;
    EXPECT_GT(tied, 1U) << what << ": a fixture without ties checks no tie rule";
    for (const WorstCase& worst : {worstCasePermutationLoad(paths, 1), worstCasePermutationLoad(net, routing, 2)}) {
      EXPECT_EQ(worst.value, value) << what;
      EXPECT_EQ(worst.channel.index(), smallest) << what;
      ASSERT_EQ(worst.witness.size(), value) << what;
      std::vector<bool> sends(n), receives(n);
      for (const auto& [s, d] : worst.witness) {
        EXPECT_NE(s, d) << what;
        EXPECT_FALSE(sends[s]) << what << ": source " << s << " twice";
        EXPECT_FALSE(receives[d]) << what << ": destination " << d << " twice";
        sends[s] = receives[d] = true;
        const auto path = paths.path(s, d);
        EXPECT_NE(std::find(path.begin(), path.end(), worst.channel.value), path.end()) << what;
      }
    }
  }
}

}  // namespace
}  // namespace routelab
