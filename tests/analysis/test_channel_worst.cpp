// channelWorstCase (analysis/worst.h): for every channel of a small fabric, the largest
// number of pairs of one permutation through it — recomputed by a plain augmenting-path
// bipartite matching over the pairs whose path crosses the channel (sources on one side,
// destinations on the other), every terminal included as source and as destination — and a
// witness of that many pairs, distinct sources and destinations, each through the channel.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include "analysis/paths.h"
#include "analysis/worst.h"
#include "engines/registry.h"
#include "fabric/fabric.h"

using namespace routelab;

namespace {

bool crosses(const PairPaths& paths, std::uint32_t s, std::uint32_t d, ChannelId channel) {
  const auto path = paths.path(s, d);
  return std::find(path.begin(), path.end(), channel.value) != path.end();
}

/// Maximum bipartite matching (Kuhn's augmenting paths) over the pairs through `channel`.
std::uint32_t matchingThrough(const PairPaths& paths, ChannelId channel) {
  const std::uint32_t n = static_cast<std::uint32_t>(paths.terminals());
  std::vector<int> sourceOf(n, -1);
  std::uint32_t matched = 0;
  for (std::uint32_t s = 0; s < n; ++s) {
    std::vector<bool> seen(n, false);
    std::function<bool(std::uint32_t)> augment = [&](std::uint32_t from) {
      for (std::uint32_t d = 0; d < n; ++d) {
        if (d == from || seen[d] || !crosses(paths, from, d, channel)) continue;
        seen[d] = true;
        if (sourceOf[d] < 0 || augment(static_cast<std::uint32_t>(sourceOf[d]))) {
          sourceOf[d] = static_cast<int>(from);
          return true;
        }
      }
      return false;
    };
    if (augment(s)) ++matched;
  }
  return matched;
}

}  // namespace

TEST(ChannelWorst, EveryChannelsValueIsItsMaximumMatchingWithAWitness) {
  for (const std::string spec : {"gft2:n=3,m=2,r=4", "kary-ntree:k=2,n=3"}) {
    const Fabric fabric = loadFabric(spec);
    const Network& net = fabric.network;
    const RoutingResult routing = runEngine("dmodk", net);
    const PairPaths paths = PairPaths::build(net, routing, 1);
    const std::uint32_t n = static_cast<std::uint32_t>(paths.terminals());
    std::size_t terminalChannels = 0;
    for (std::uint32_t c = 0; c < net.channelCount(); ++c) {
      const ChannelId channel(c);
      SCOPED_TRACE(spec + " channel " + std::to_string(c));
      const WorstCase worst = channelWorstCase(paths, channel);
      EXPECT_EQ(worst.channel, channel);
      EXPECT_EQ(worst.value, matchingThrough(paths, channel));
      ASSERT_EQ(worst.witness.size(), worst.value);
      std::vector<bool> source(n, false), destination(n, false);
      for (const SourceDestination& pair : worst.witness) {
        EXPECT_FALSE(source[pair.source]);
        EXPECT_FALSE(destination[pair.destination]);
        source[pair.source] = destination[pair.destination] = true;
        EXPECT_TRUE(crosses(paths, pair.source, pair.destination, channel));
      }
      // A host's own link carries one pair of any permutation (into it, or out of it).
      if (net.isTerminal(net.source(channel)) || net.isTerminal(net.target(channel))) {
        EXPECT_EQ(worst.value, 1u);
        ++terminalChannels;
      }
    }
    EXPECT_EQ(terminalChannels, 2u * n);
  }
}
