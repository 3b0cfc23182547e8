// Issue 4's acceptance on the real random fabric: on OpenSM's rnd16_s1 fixture (imported
// from ibnetdiscover output), the verifier flags a cycle in our minhop and proves every
// deadlock-free engine of ours deadlock-free there.
#include <gtest/gtest.h>

#include "engines/registry.h"
#include "fabric/fabric.h"
#include "test_support.h"
#include "verify/verify.h"

using namespace routelab;

namespace {
Network importedRandomFixture() {
  return loadFabric("file:" + test::fixturesDir() + "/rnd16_s1/ibnetdiscover.txt").network;
}
}  // namespace

TEST(OurEnginesOnRandomFixture, MinhopIsCyclicWithAWitness) {
  const Network network = importedRandomFixture();
  ASSERT_EQ(network.switchCount(), 16u);
  const VerifyResult result = verifyRouting(network, runEngine("minhop", network));
  EXPECT_TRUE(result.connected);
  EXPECT_TRUE(result.loopFree);
  EXPECT_FALSE(result.deadlockFree);
  ASSERT_GE(result.cycle.size(), 2u);
  // The witness is a closed walk of channels: each channel ends where the next begins.
  for (std::size_t i = 0; i < result.cycle.size(); ++i) {
    const ChannelId from = result.cycle[i];
    const ChannelId to = result.cycle[(i + 1) % result.cycle.size()];
    EXPECT_EQ(network.target(from), network.source(to)) << network.describeChannel(from);
  }
}

TEST(OurEnginesOnRandomFixture, DeadlockFreeEnginesAreProvenDeadlockFree) {
  const Network network = importedRandomFixture();
  for (const std::string engine :
       {"updown", "updown-dfs", "mroots", "d-mroots", "lash", "lash:addressing=pair", "mp-lash", "a-lash", "escape"}) {
    const VerifyResult result = verifyRouting(network, runEngine(engine, network));
    EXPECT_TRUE(result.passed()) << engine << ": connected " << result.connected << " loop-free " << result.loopFree
                                 << " deadlock-free " << result.deadlockFree;
  }
}
