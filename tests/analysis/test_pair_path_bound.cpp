// Pair paths hold 32-bit channel offsets (docs/RELIABILITY.md "Limits", pair paths): a fabric
// whose paths need more than 2^32 channel entries is refused before the walk of every pair,
// with the lower bound it computed — checked here against the bound recomputed by hand from
// the XGFT's shape (2 channels per path plus the switch distance between the two leaves): the
// cheap bound (2 or 4 channels per pair) where it alone exceeds the limit, else the exact one.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "analysis/paths.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"

using namespace routelab;

namespace {

/// The AnalysisError message of building the pair paths of `network` routed by dmodk.
std::string refusalOf(const Network& network) {
  const RoutingResult routing = runEngine("dmodk", network);
  try {
    PairPaths::build(network, routing, 1);
  } catch (const AnalysisError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(PairPathBound, RefusedWithTheExactLowerBoundOfChannelEntries) {
  // XGFT(3; 30,30,30; 1,1,1): 27,000 terminals, 30 per leaf, 30 leaves per level-2 switch, one
  // top. Few enough terminals that 4 channels per pair stay under 2^32 (so the exact bound is
  // computed), enough that the exact one does not.
  const Fabric fabric = loadFabric("xgft:h=3,m=30.30.30,w=1.1.1");
  const std::uint64_t n = 27000, perLeaf = 30, perGroup = 900;
  ASSERT_EQ(fabric.network.terminalCount(), n);
  const std::uint64_t sameLeaf = n * (perLeaf - 1);          // leaf distance 0: 2 channels
  const std::uint64_t sameGroup = n * (perGroup - perLeaf);  // distance 2: 4 channels
  const std::uint64_t farther = n * (n - perGroup);          // distance 4: 6 channels
  const std::uint64_t bound = 2 * sameLeaf + 4 * sameGroup + 6 * farther;
  ASSERT_EQ(bound, 4323726000u);
  ASSERT_GT(bound, std::uint64_t{UINT32_MAX});
  ASSERT_LE(2 * sameLeaf + 4 * (sameGroup + farther), std::uint64_t{UINT32_MAX});
  EXPECT_EQ(refusalOf(fabric.network),
            "pair paths of 27000 terminals exceed 2^32 channel entries (at least 4323726000 needed)");
}

TEST(PairPathBound, RefusedWithTheCheapBoundWhenItAloneExceedsTheLimit) {
  // XGFT(3; 30,30,37; 1,1,1): 33,300 terminals, 30 per leaf. Already 2 channels for every pair on
  // one leaf and 4 for every other ordered pair (n (n - 1) of them) exceed 2^32, so that cheap
  // bound is the one reported (the exact one, 6 channels for pairs under different level-2
  // switches, is not computed).
  const Fabric fabric = loadFabric("xgft:h=3,m=30.30.37,w=1.1.1");
  const std::uint64_t n = 33300, perLeaf = 30;
  ASSERT_EQ(fabric.network.terminalCount(), n);
  const std::uint64_t pairs = n * (n - 1), sameLeaf = n * (perLeaf - 1);
  const std::uint64_t bound = 2 * sameLeaf + 4 * (pairs - sameLeaf);
  ASSERT_EQ(bound, 4433495400U);
  ASSERT_GT(bound, std::uint64_t{UINT32_MAX});
  EXPECT_EQ(refusalOf(fabric.network),
            "pair paths of 33300 terminals exceed 2^32 channel entries (at least 4433495400 needed)");
}
