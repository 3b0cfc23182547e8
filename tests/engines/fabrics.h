// Small fabrics for the engine tests, built here (independent of the topology module's
// random generator and fault modifiers, which the sweep also uses when they exist).
#pragma once

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/random.h"
#include "graph/builder.h"
#include "graph/network.h"

namespace routelab::test {

/// Two 4-port switches s0 - s1 (port 2 each), terminal t0 on s0 and t1 on s1 (port 1).
inline Network twoSwitches() {
  NetworkBuilder b;
  const NodeId s0 = b.addSwitch("s0", 4), s1 = b.addSwitch("s1", 4);
  const NodeId t0 = b.addTerminal("t0"), t1 = b.addTerminal("t1");
  b.connect(t0, 1, s0, 1);
  b.connect(t1, 1, s1, 1);
  b.connect(s0, 2, s1, 2);
  return b.build();
}

/// A connected random irregular fabric: a random spanning tree plus random extra links
/// (no parallel links), `terminals` terminals per switch, `radix` ports per switch.
inline Network randomFabric(std::uint32_t switches, std::uint32_t links, std::uint64_t seed,
                            std::uint32_t terminals = 1, std::uint32_t radix = 16) {
  Rng rng(seed);
  NetworkBuilder builder;
  std::vector<NodeId> sw;
  std::vector<PortNumber> nextPort(switches, static_cast<PortNumber>(terminals + 1));
  for (std::uint32_t s = 0; s < switches; ++s)
    sw.push_back(builder.addSwitch(fmt::format("sw{}", s), static_cast<PortNumber>(radix)));
  for (std::uint32_t s = 0; s < switches; ++s) {
    for (std::uint32_t t = 0; t < terminals; ++t) {
      const NodeId host = builder.addTerminal(fmt::format("h{}-{}", s, t));
      builder.connect(host, 1, sw[s], static_cast<PortNumber>(t + 1));
    }
  }
  std::set<std::pair<std::uint32_t, std::uint32_t>> present;
  auto link = [&](std::uint32_t a, std::uint32_t b) {
    if (a == b || nextPort[a] > radix || nextPort[b] > radix) return false;
    if (!present.insert({std::min(a, b), std::max(a, b)}).second) return false;
    builder.connect(sw[a], nextPort[a]++, sw[b], nextPort[b]++);
    return true;
  };
  std::vector<std::uint32_t> order(switches);
  for (std::uint32_t s = 0; s < switches; ++s) order[s] = s;
  rng.shuffle(std::span<std::uint32_t>(order));
  std::uint32_t made = 0;
  for (std::uint32_t i = 1; i < switches; ++i) {
    std::vector<std::uint32_t> eligible;
    for (std::uint32_t j = 0; j < i; ++j) {
      if (nextPort[order[j]] <= radix) eligible.push_back(order[j]);
    }
    if (!eligible.empty() && link(order[i], eligible[rng.below(eligible.size())])) ++made;
  }
  for (std::uint32_t attempts = 0; made < links && attempts < 100000; ++attempts) {
    if (link(static_cast<std::uint32_t>(rng.below(switches)), static_cast<std::uint32_t>(rng.below(switches)))) ++made;
  }
  builder.setOrigin(fmt::format("test-random:switches={},links={},seed={}", switches, links, seed));
  return builder.build();
}

/// A copy of `network` without `count` random switch-to-switch cables (seeded).
inline Network withoutLinks(const Network& network, std::size_t count, std::uint64_t seed) {
  std::vector<std::size_t> candidates;
  for (std::size_t link = 0; link < network.linkCount(); ++link) {
    const ChannelId c = ChannelId::fromIndex(2 * link);
    if (network.isSwitch(network.source(c)) && network.isSwitch(network.target(c))) candidates.push_back(link);
  }
  Rng rng(seed);
  rng.shuffle(std::span<std::size_t>(candidates));
  candidates.resize(std::min(count, candidates.size()));
  std::set<std::size_t> removed(candidates.begin(), candidates.end());
  NetworkBuilder builder;
  for (std::size_t i = 0; i < network.nodeCount(); ++i) {
    const NodeId node = NodeId::fromIndex(i);
    builder.addNode(network.kind(node), network.name(node), network.portCount(node), network.guid(node));
  }
  for (std::size_t link = 0; link < network.linkCount(); ++link) {
    if (removed.count(link)) continue;
    const ChannelId c = ChannelId::fromIndex(2 * link);
    builder.connect(network.source(c), network.sourcePort(c), network.target(c), network.targetPort(c));
  }
  builder.setOrigin(fmt::format("{}+test-fail-links={},seed={}", network.origin(), count, seed));
  return builder.build();
}

}  // namespace routelab::test
