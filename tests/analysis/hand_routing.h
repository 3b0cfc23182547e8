// Routings written by hand for the analysis tests, independent of the engines: a
// destination-based D-mod-k and Nienaber's Fig. 2 OPT on T(n+m, r) (source classes as the
// routing result's LMC-style addressing), Gómez's deterministic routing on k-ary n-trees,
// and an adaptive up-routing. Built directly with ForwardingTable::set.
#pragma once

#include <cmath>
#include <functional>

#include "routing/routing_result.h"
#include "topology/xgft.h"

namespace routelab::test {

/// Table entry for (switch, destination terminal, source class) -> port.
using HandPort = std::function<PortNumber(const Network&, NodeId sw, std::uint32_t destination, std::uint32_t cls)>;

inline RoutingResult handRouting(const Network& network, std::uint32_t classes,
                                 const std::function<std::uint32_t(std::uint32_t)>& classOf, const HandPort& port,
                                 const std::string& name) {
  RoutingResult routing;
  routing.engine = name;
  routing.addresses = AddressMap::build(network, classes, false);
  routing.sourceClasses = classes;
  if (classes > 1) {
    for (std::uint32_t t = 0; t < network.terminalCount(); ++t) routing.sourceClassOf.push_back(classOf(t));
  }
  ForwardingTable table(network.switchCount(), routing.addresses.count());
  for (std::uint32_t d = 0; d < network.terminalCount(); ++d) {
    const Address base = routing.addresses.base(network.terminalNode(d));
    for (std::uint32_t c = 0; c < classes; ++c) {
      for (std::uint32_t s = 0; s < network.switchCount(); ++s) {
        table.set(s, base + c, port(network, network.switchNode(s), d, c));
      }
    }
  }
  routing.tables = {std::move(table)};
  return routing;
}

/// T(n+m, r) ports (topology/xgft.h): leaf i port 1+p -> host p, port n+1+j -> top j;
/// top j port 1+i -> leaf i. Level from the XGFT labels.
inline bool isLeaf(const Network& network, NodeId sw) { return network.xgft()->level[sw.index()] == 1; }
inline std::uint32_t indexInLevel(const Network& network, NodeId sw) {
  return network.xgft()->indexInLevel[sw.index()];
}

/// Nienaber §III.A D-mod-k: (s, d) on different leaves goes through TSW_{d mod m}.
inline RoutingResult handDmodk(const Network& network, std::uint32_t n, std::uint32_t m) {
  return handRouting(
      network, 1, [](std::uint32_t) { return 0U; },
      [n, m](const Network& net, NodeId sw, std::uint32_t d, std::uint32_t) -> PortNumber {
        if (!isLeaf(net, sw)) return static_cast<PortNumber>(1 + d / n);
        if (indexInLevel(net, sw) == d / n) return static_cast<PortNumber>(1 + d % n);
        return static_cast<PortNumber>(n + 1 + d % m);
      },
      "hand-dmodk");
}

/// Nienaber Fig. 2 OPT, verbatim: k = floor(sqrt(m)), grp_size = ceil(n / k), the pair
/// (s, d) goes through TSW_{src_grp * k + dst_grp}. Source classes = source groups.
inline RoutingResult handOpt(const Network& network, std::uint32_t n, std::uint32_t m) {
  std::uint32_t k = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(m)));
  while (k * k > m) --k;
  while ((k + 1) * (k + 1) <= m) ++k;
  std::uint32_t groupSize = n / k;
  if (groupSize * k != n) ++groupSize;
  const std::uint32_t groups = (n + groupSize - 1) / groupSize;
  return handRouting(
      network, groups, [=](std::uint32_t t) { return (t % n) / groupSize; },
      [=](const Network& net, NodeId sw, std::uint32_t d, std::uint32_t sourceGroup) -> PortNumber {
        if (!isLeaf(net, sw)) return static_cast<PortNumber>(1 + d / n);
        if (indexInLevel(net, sw) == d / n) return static_cast<PortNumber>(1 + d % n);
        const std::uint32_t destinationGroup = (d % n) / groupSize;
        return static_cast<PortNumber>(n + 1 + sourceGroup * k + destinationGroup);
      },
      "hand-opt");
}

/// Gómez §4 deterministic routing on a k-ary n-tree (ports: 1..k down by digit, k+1..2k up):
/// at stage s, go down if the destination is below (digits above s agree), else up through
/// port k + 1 + p_s (the destination's digit s).
inline RoutingResult handGomez(const Network& network, std::uint32_t k, std::uint32_t n) {
  return handRouting(
      network, 1, [](std::uint32_t) { return 0U; },
      [k, n](const Network& net, NodeId sw, std::uint32_t d, std::uint32_t) -> PortNumber {
        const XgftLabels& labels = *net.xgft();
        const std::uint32_t level = labels.level[sw.index()];  // stage = level - 1
        const NodeId destination = net.terminalNode(d);
        bool below = true;
        for (std::uint32_t position = level + 1; position <= n; ++position) {
          if (labels.digit(sw, position) != labels.digit(destination, position)) below = false;
        }
        if (below) return static_cast<PortNumber>(1 + labels.digit(destination, level));
        std::uint32_t digit = d;
        for (std::uint32_t i = 1; i < level; ++i) digit /= k;
        return static_cast<PortNumber>(k + 1 + digit % k);
      },
      "hand-gomez");
}

}  // namespace routelab::test
