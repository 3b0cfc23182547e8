// Test-side checks of a RoutingResult (header-only, shared by tests/engines and
// tests/layered): connectivity, loop freedom, and deadlock freedom by Lysne et al. 2006
// Theorem 2 (layered CDG acyclic) or, with an escape layer, Duato's condition as used in
// Theorem 4 (the escape layer's dependencies from every switch acyclic). Adaptive tables
// are explored over all candidates; a (source, address) pair is traffic unless
// RoutingResult::sends() says otherwise. Independent of src/verify on purpose: the sweep
// and the verifier check each other.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cdg/cdg.h"
#include "graph/algorithms.h"
#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab::test {

struct RoutingCheck {
  bool connected = true;
  bool loopFree = true;
  bool deadlockFree = true;
  bool minimal = true;    ///< every explored route is a shortest path
  std::string problem;    ///< first problem found, with the pair or the cycle
  std::size_t pairs = 0;  ///< (source, address, layer) triples explored
};

namespace detail {

struct Explorer {
  const Network& network;
  const RoutingResult& result;
  ChannelDependencyGraph& cdg;
  RoutingCheck& check;
  std::vector<std::uint8_t> color;  // per channel: 0 new, 1 on stack, 2 done
  std::vector<std::uint32_t> hops;  // per channel: longest hop count from the source
  std::vector<ChannelId> touched;

  void fail(bool RoutingCheck::*flag, const std::string& what) {
    if (check.*flag) {
      check.*flag = false;
      if (check.problem.empty()) check.problem = what;
    }
  }

  // Explore from channel `in` (already entered) towards address `a` in `layer`.
  void visit(ChannelId in, Address a, LayerId layer, bool recordDependencies, const std::string& pair) {
    color[in.index()] = 1;
    touched.push_back(in);
    const NodeId owner = result.addresses.owner(a);
    const NodeId at = network.target(in);
    if (at == owner) {
      color[in.index()] = 2;
      return;
    }
    if (!network.isSwitch(at)) {
      fail(&RoutingCheck::connected, pair + ": arrives at the wrong terminal " + network.name(at));
      color[in.index()] = 2;
      return;
    }
    const auto ports = result.table(layer).candidates(network.switchIndex(at), a);
    if (ports.empty()) fail(&RoutingCheck::connected, pair + ": no route at " + network.name(at));
    for (PortNumber port : ports) {
      if (port == kSelfPort) {
        if (at != owner) fail(&RoutingCheck::connected, pair + ": port 0 at the wrong switch " + network.name(at));
        continue;
      }
      const ChannelId next = network.channelAt(at, port);
      if (!next.valid()) {
        fail(&RoutingCheck::connected, pair + ": dead port " + network.describePort(at, port));
        continue;
      }
      if (recordDependencies) cdg.addDependency(layer, in, next);
      if (color[next.index()] == 1) {
        fail(&RoutingCheck::loopFree, pair + ": loop through " + network.describeChannel(next));
        continue;
      }
      if (color[next.index()] == 0) visit(next, a, layer, recordDependencies, pair);
    }
    color[in.index()] = 2;
  }
  void reset() {
    for (ChannelId c : touched) color[c.index()] = 0;
    touched.clear();
  }
};

}  // namespace detail

/// Checks every traffic pair (terminal sources; switch sources too when the address map
/// includes switches). O(pairs × layers × route size).
inline RoutingCheck checkRouting(const Network& network, const RoutingResult& result) {
  RoutingCheck check;
  const std::size_t layers = result.layerCount();
  ChannelDependencyGraph cdg(network, layers);
  detail::Explorer explorer{network, result, cdg, check, std::vector<std::uint8_t>(network.channelCount(), 0), {}, {}};
  const AddressMap& addresses = result.addresses;
  for (NodeId source : addresses.owners()) {
    const std::uint32_t sourceIndex = addresses.sourceIndex(source);
    const auto distances = hopDistances(network, source);
    for (Address a = 0; a < addresses.count(); ++a) {
      const NodeId owner = addresses.owner(a);
      if (owner == source || !result.sends(sourceIndex, a)) continue;
      std::vector<LayerId> layerSet;
      const std::size_t entry = static_cast<std::size_t>(sourceIndex) * addresses.count() + a;
      if (!result.allowedLayers.empty()) {
        for (std::size_t l = 0; l < layers; ++l) {
          if (result.allowedLayers[entry] & (1U << l)) layerSet.push_back(LayerId::fromIndex(l));
        }
      } else {
        layerSet.push_back(result.layer(sourceIndex, a));
      }
      for (LayerId layer : layerSet) {
        const std::string pair =
            fmt::format("{} -> {} (address {}, layer {})", network.name(source), network.name(owner), a, layer.index());
        if (layer.index() >= layers) {
          explorer.fail(&RoutingCheck::connected, pair + ": layer out of range");
          continue;
        }
        ++check.pairs;
        const bool record = result.escapeLayer < 0 || static_cast<int>(layer.index()) == result.escapeLayer;
        // Minimality on the deterministic route.
        const Path path = result.path(network, source, a, layer);
        if (path.status == PathStatus::Delivered && path.channels.size() != distances[owner.index()]) {
          check.minimal = false;
        }
        if (network.isTerminal(source)) {
          const ChannelId inject = network.injectionChannel(source);
          explorer.visit(inject, a, layer, record, pair);
        } else {
          // A switch source: explore every candidate of its own entry.
          for (PortNumber port : result.table(layer).candidates(network.switchIndex(source), a)) {
            const ChannelId first = network.channelAt(source, port);
            if (port == kSelfPort || !first.valid()) {
              explorer.fail(&RoutingCheck::connected, pair + ": bad first port");
              continue;
            }
            explorer.visit(first, a, layer, record, pair);
          }
          if (result.table(layer).candidates(network.switchIndex(source), a).empty()) {
            explorer.fail(&RoutingCheck::connected, pair + ": no route at the source switch");
          }
        }
        explorer.reset();
      }
    }
  }
  if (result.escapeLayer >= 0) {
    // Duato: packets may enter the escape layer at any switch they reach; record the escape
    // routes from every switch to every address.
    const auto escape = LayerId::fromIndex(static_cast<std::size_t>(result.escapeLayer));
    for (NodeId sw : network.switches()) {
      for (Address a = 0; a < addresses.count(); ++a) {
        if (addresses.owner(a) == sw) continue;
        for (PortNumber port : result.table(escape).candidates(network.switchIndex(sw), a)) {
          const ChannelId first = network.channelAt(sw, port);
          if (port == kSelfPort || !first.valid()) continue;
          explorer.visit(first, a, escape, true, fmt::format("escape from {}", network.name(sw)));
          explorer.reset();
        }
      }
    }
  }
  for (std::size_t l = 0; l < layers; ++l) {
    if (result.escapeLayer >= 0 && static_cast<int>(l) != result.escapeLayer) continue;
    if (auto cycle = cdg.findCycle(LayerId::fromIndex(l))) {
      check.deadlockFree = false;
      if (check.problem.empty()) check.problem = fmt::format("layer {} cycle: {}", l, cdg.describeCycle(*cycle));
      break;
    }
  }
  return check;
}

}  // namespace routelab::test
