// The split of a simulation over threads (sim/partitioning.h, docs/SIMULATION.md "Parallel
// engine"): contiguous blocks of switches of about equal work, the work of a switch being its
// ports and its terminals, recounted here from the fabric; every terminal and channel end in
// the block of its switch.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fabric/fabric.h"
#include "sim/partitioning.h"

namespace routelab {
namespace {

TEST(Partitioning, ContiguousBlocksOfAboutEqualWork) {
  // A lone switch too: one block, however many are asked for.
  for (const std::string spec : {"kary-ntree:k=4,n=3", "gft2:n=8,m=4,r=8", "random:switches=20,terminals=2,seed=3",
                                 "xgft:h=2,m=5.6,w=3.4", "xgft:h=1,m=4,w=1"}) {
    const Network net = loadFabric(spec).network;
    const std::size_t switches = net.switchCount();
    std::vector<std::uint64_t> work(switches, 0);  // ports, plus one per terminal
    for (std::size_t s = 0; s < switches; ++s) work[s] = net.outChannels(net.switchNode(s)).size();
    for (NodeId t : net.terminals()) ++work[net.switchIndex(net.target(net.injectionChannel(t)))];
    std::uint64_t total = 0, largest = 0;
    for (std::uint64_t w : work) {
      total += w;
      largest = std::max(largest, w);
    }
    for (std::uint32_t blocks : {1U, 2U, 3U, 4U, 7U}) {
      SCOPED_TRACE(spec + ", " + std::to_string(blocks) + " blocks");
      const sim::Partitioning p = sim::partitionSwitches(net, blocks);
      ASSERT_EQ(p.count, std::min<std::size_t>(blocks, switches));
      ASSERT_EQ(p.ofSwitch.size(), switches);
      std::vector<std::uint64_t> blockWork(p.count, 0);
      for (std::size_t s = 0; s < switches; ++s) {
        ASSERT_LT(p.ofSwitch[s], p.count);
        if (s > 0) {
          ASSERT_GE(p.ofSwitch[s], p.ofSwitch[s - 1]) << "blocks are contiguous";
        }
        blockWork[p.ofSwitch[s]] += work[s];
      }
      // Each block within one switch's work of an equal share (a switch goes to the block
      // whose share holds the middle of its work).
      const double share = double(total) / p.count;
      for (std::uint32_t b = 0; b < p.count; ++b) {
        EXPECT_LE(std::abs(double(blockWork[b]) - share), double(largest)) << "block " << b;
      }
      // Exactly that block: share b is [b, b + 1) x total / count of the work laid out in
      // switch order, and the middle of switch s's work lies at (before + work / 2).
      std::uint64_t before = 0;
      for (std::size_t s = 0; s < switches; ++s) {
        const double middle = double(before) + double(work[s]) / 2;
        const auto block = static_cast<std::uint32_t>(std::floor(middle * p.count / double(total)));
        EXPECT_EQ(p.ofSwitch[s], std::min(block, p.count - 1)) << "switch " << s;
        before += work[s];
      }
      for (std::size_t t = 0; t < net.terminalCount(); ++t) {
        const NodeId terminal = net.terminalNode(t);
        const ChannelId injection = net.injectionChannel(terminal);
        const std::uint32_t home = p.ofSwitch[net.switchIndex(net.target(injection))];
        EXPECT_EQ(p.ofTerminal[t], home) << net.name(terminal);
        EXPECT_EQ(p.ofChannelSource[injection.index()], home);
      }
    }
  }
}

}  // namespace
}  // namespace routelab
