// OPT on a grid (engines/fattree/fat_tree.h, routeOptGrid): the default shape for every row
// of Nienaber's Tables I-II, the pair -> top rule by hand, WORST within Fig. 2 OPT's value
// (Table I) and equal to max(ceil(n/a), ceil(n/b)), and Fig. 2 itself as the square case.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/paths.h"
#include "analysis/worst.h"
#include "core/errors.h"
#include "engines/fattree/fat_tree.h"
#include "engines/registry.h"
#include "test_stats.h"
#include "test_support.h"
#include "topology/xgft.h"

using namespace routelab;

namespace {

struct ShapeRow {
  std::uint32_t n, m, a, b, worst;
};

/// Top switch used by (s, d): the channel out of s's leaf.
std::uint32_t topOf(const Network& net, const PairPaths& paths, std::uint32_t s, std::uint32_t d) {
  const auto core = paths.core(s, d);
  return net.xgft()->indexInLevel[net.target(ChannelId::fromIndex(core[0])).index()];
}

}  // namespace

TEST(OptGrid, DefaultShapeOnEveryTableRow) {
  // Most tops used with WORST bound <= Fig. 2's ceil(n / floor(sqrt m)), then the smallest
  // bound, then the smallest a. Rows with sqrt(m) an integer dividing n are Fig. 2 (a = b).
  const ShapeRow rows[] = {
      {9, 9, 3, 3, 3},  {16, 16, 4, 4, 4}, {25, 25, 5, 5, 5}, {12, 12, 3, 4, 4}, {24, 24, 4, 6, 6},
      {12, 4, 2, 2, 6}, {24, 9, 3, 3, 8},  {24, 16, 4, 4, 6}, {16, 8, 2, 4, 8},  {24, 8, 2, 4, 12},
      {8, 16, 4, 4, 2}, {12, 16, 4, 4, 3}, {10, 25, 5, 5, 2}, {8, 24, 4, 6, 2},  {16, 32, 4, 8, 4},
  };
  for (const ShapeRow& row : rows) {
    const GridShape shape = optGridShape(row.n, row.m);
    EXPECT_EQ(shape.sourceGroups, row.a) << "T(" << row.n << "+" << row.m << ")";
    EXPECT_EQ(shape.destinationGroups, row.b) << "T(" << row.n << "+" << row.m << ")";
    EXPECT_EQ(shape.worst, row.worst) << "T(" << row.n << "+" << row.m << ")";
    EXPECT_LE(shape.worst, shape.bound);
  }
}

TEST(OptGrid, PairGoesThroughSourceGroupTimesBPlusDestinationGroup) {
  // T(6+6, 3) with a = 2, b = 3: positions 0-2 are source group 0, 3-5 group 1; destination
  // groups of two positions each. (s, d) on different leaves -> top 3 * sg + dg.
  const Network net = makeGft2(6, 6, 3);
  const RoutingResult routing = runEngine("opt-grid:source-groups=2,destination-groups=3", net);
  const PairPaths paths = PairPaths::build(net, routing, 1);
  for (std::uint32_t s = 0; s < 18; ++s) {
    for (std::uint32_t d = 0; d < 18; ++d) {
      if (s / 6 == d / 6) continue;
      EXPECT_EQ(topOf(net, paths, s, d), 3 * ((s % 6) / 3) + (d % 6) / 2) << s << " -> " << d;
    }
  }
  EXPECT_EQ(worstCasePermutationLoad(paths, 1).value, 3u);  // max(ceil(6/2), ceil(6/3))
  // The statistics `route` prints: the groups, the tops they use and the bound they reach.
  EXPECT_EQ(test::statOf(routing.stats, "source_groups"), "2");
  EXPECT_EQ(test::statOf(routing.stats, "destination_groups"), "3");
  EXPECT_EQ(test::statOf(routing.stats, "tops_used"), "6");
  EXPECT_EQ(test::statOf(routing.stats, "worst_bound"), "3");
  // Groups that do not divide n: 4 x 1 on n = 6, source groups of 2, 1, 2, 1 positions and one
  // destination group of 6: bound max(ceil(6/4), 6) = 6. WORST stays within it (here 4: only
  // two other leaves send, and a source group spans 2 positions of each).
  const RoutingResult uneven = runEngine("opt-grid:source-groups=4,destination-groups=1", net);
  EXPECT_EQ(test::statOf(uneven.stats, "worst_bound"), "6");
  EXPECT_EQ(worstCasePermutationLoad(PairPaths::build(net, uneven, 1), 1).value, 4u);
  const RoutingResult fine = runEngine("opt-grid:source-groups=4,destination-groups=4", makeGft2(6, 16, 3));
  EXPECT_EQ(test::statOf(fine.stats, "worst_bound"), "2");                                   // ceil(6/4) on both sides
  EXPECT_THROW(runEngine("opt-grid:source-groups=3,destination-groups=3", net), SpecError);  // 9 > m
  EXPECT_THROW(runEngine("opt-grid:source-groups=2", net), SpecError);
}

// Given groups fit when a x b <= m (top switches) and a, b <= n (nodes per leaf): at each of
// the three limits accepted, one past it refused with the numbers.
TEST(OptGrid, GivenGroupsAtEachLimitAndOnePast) {
  const Network net = makeGft2(2, 8, 4);  // T(2+8, 4): n = 2, m = 8
  EXPECT_NO_THROW(runEngine("opt-grid:source-groups=2,destination-groups=2", net));
  EXPECT_NO_THROW(runEngine("opt-grid:source-groups=1,destination-groups=2", net));
  auto refusal = [&](const std::string& spec) { return test::thrownMessage<SpecError>([&] { runEngine(spec, net); }); };
  EXPECT_EQ(refusal("opt-grid:source-groups=3,destination-groups=2"),
            "opt-grid: 3 x 2 groups need at most m = 8 top switches and at most n = 2 nodes per group side");
  EXPECT_EQ(refusal("opt-grid:source-groups=2,destination-groups=3"),
            "opt-grid: 2 x 3 groups need at most m = 8 top switches and at most n = 2 nodes per group side");
  const Network wide = makeGft2(6, 6, 3);  // n = 6, m = 6: 2 x 3 = m accepted, 7 x 1 and 1 x 7 refused
  EXPECT_NO_THROW(runEngine("opt-grid:source-groups=6,destination-groups=1", wide));
  EXPECT_NO_THROW(runEngine("opt-grid:source-groups=1,destination-groups=6", wide));
  EXPECT_THROW(runEngine("opt-grid:source-groups=7,destination-groups=1", wide), SpecError);
  EXPECT_THROW(runEngine("opt-grid:source-groups=1,destination-groups=7", wide), SpecError);
}

TEST(OptGrid, WorstWithinFigTwoOptOnTableOneRows) {
  // Nienaber Table I OPT values; the rows small enough for a unit test (experiments/nienaber/
  // opt_grid.sh measures all 15).
  struct Row {
    std::uint32_t n, m, r, opt;
  };
  const Row rows[] = {{9, 9, 18, 3}, {12, 4, 16, 6}, {12, 12, 24, 4}, {8, 16, 24, 2}, {16, 8, 24, 8}, {8, 24, 32, 2}};
  for (const Row& row : rows) {
    const Network net = makeGft2(row.n, row.m, row.r);
    const RoutingResult routing = runEngine("opt-grid", net);
    const std::uint32_t worst = worstCasePermutationLoad(PairPaths::build(net, routing)).value;
    const GridShape shape = optGridShape(row.n, row.m);
    EXPECT_EQ(worst, shape.worst) << "T(" << row.n << "+" << row.m << "," << row.r << ")";
    EXPECT_LE(worst, row.opt) << "T(" << row.n << "+" << row.m << "," << row.r << ")";
  }
}

TEST(OptGrid, SquareShapeIsFigTwo) {
  // sqrt(m) an integer dividing n: the grid is Fig. 2's OPT, pair by pair.
  const Network net = makeGft2(9, 9, 18);
  const PairPaths grid = PairPaths::build(net, runEngine("opt-grid", net), 1);
  const PairPaths opt = PairPaths::build(net, runEngine("opt", net), 1);
  for (std::uint32_t s = 0; s < net.terminalCount(); ++s) {
    for (std::uint32_t d = 0; d < net.terminalCount(); ++d) {
      if (s == d) continue;
      const auto a = grid.path(s, d), b = opt.path(s, d);
      ASSERT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << s << " -> " << d;
    }
  }
}
