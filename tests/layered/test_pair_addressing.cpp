// Per-pair addressing (Lysne §5.1 step 2.1, §6, §7) must be usable by every consumer
// through RoutingResult::addressFor(): each source finds, for each of its paths, an address
// that it sends to (sends()) and that delivers, in the layer assigned to it.
#include <gtest/gtest.h>

#include "engines/registry.h"
#include "fabric/fabric.h"

using namespace routelab;

TEST(PairAddressing, EveryPathOfEverySourceDelivers) {
  for (const std::string spec : {"kary-ntree:k=2,n=3", "random:switches=12,terminals=2,seed=4"}) {
    const Network network = loadFabric(spec).network;
    for (const std::string engine : {"lash:addressing=pair", "mp-lash", "a-lash", "mp-lash:balance=true"}) {
      const RoutingResult result = runEngine(engine, network);
      ASSERT_GT(result.sourceClasses, 1u) << engine;
      std::vector<ChannelId> path;
      std::size_t walks = 0;
      for (NodeId source : network.terminals()) {
        const std::uint32_t sourceIndex = result.addresses.sourceIndex(source);
        for (NodeId destination : network.terminals()) {
          if (source == destination) continue;
          const std::uint32_t paths = result.pathCount(destination);
          ASSERT_GE(paths, 1u);
          for (std::uint32_t k = 0; k < paths; ++k) {
            const Address a = result.addressFor(source, destination, k);
            ASSERT_EQ(result.addresses.owner(a), destination);
            ASSERT_TRUE(result.sends(sourceIndex, a)) << engine << " " << spec;
            ASSERT_EQ(result.walk(network, source, a, result.layer(sourceIndex, a), path), PathStatus::Delivered)
                << engine << " " << spec << " " << network.name(source) << " -> " << network.name(destination)
                << " path " << k;
            ++walks;
          }
        }
      }
      EXPECT_GE(walks, network.terminalCount() * (network.terminalCount() - 1)) << engine;
    }
  }
}
