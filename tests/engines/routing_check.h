// Test-side checks of a RoutingResult (header-only, shared by tests/engines and
// tests/layered): connectivity, loop freedom, and deadlock freedom by Lysne et al. 2006
// Theorem 2 (layered CDG acyclic) or, with an escape layer, Duato's condition as used in
// Theorem 4 (the escape layer's extended dependency graph acyclic, the escape layer
// delivering from every switch the traffic can reach).
//
// How: a per-pair explorer of its own (depth-first over every choice sequence of every
// traffic pair, channel by channel) that asks the routing-semantics core
// (routing/semantics.h) only the hop question — injection layers, (port, layer) choices at a
// switch, where a port leads — and builds its own channel dependency graph from what it
// sees. It then runs the verifier's traversal (buildRoutingDependencies, cdg/from_routing.h:
// memoised per address, a different algorithm) on the same routing and compares: the
// dependencies of every layer must be the same set, and the verdicts (delivered, looping)
// must agree. A disagreement is reported in `agreesWithVerifier`/`problem` and, so that every
// caller's connectivity assertion catches it, makes `connected` false.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cdg/cdg.h"
#include "cdg/from_routing.h"
#include "graph/algorithms.h"
#include "graph/network.h"
#include "routing/routing_result.h"
#include "routing/semantics.h"

namespace routelab::test {

struct RoutingCheck {
  bool connected = true;
  bool loopFree = true;
  bool deadlockFree = true;
  bool minimal = true;             ///< every preferred route is a shortest path
  bool agreesWithVerifier = true;  ///< same dependencies and verdicts as buildRoutingDependencies
  std::string problem;             ///< first problem found, with the pair or the cycle
  std::size_t pairs = 0;           ///< (source, address, layer) triples explored
};

namespace detail {

struct Explorer {
  const Network& network;
  const RoutingSemantics& semantics;
  ChannelDependencyGraph& cdg;
  RoutingCheck& check;
  std::vector<std::uint8_t> color;  // per (layer, channel): 0 new, 1 on stack, 2 done
  std::vector<std::size_t> touched{};
  std::optional<LayerId> recordOnly{};                    // escape routings: record only this layer's dependencies
  bool record = true;                                     // record dependencies at all
  bool followLayerChanges = false;                        // escape routings: follow every layer's choices
  bool flagLoops = true;                                  // escape routings: cycles among adaptive choices are allowed
  std::set<std::pair<Address, std::uint32_t>> reached{};  // escape routings: (address, switch) reached

  std::size_t state(ChannelId c, LayerId layer) const { return layer.index() * network.channelCount() + c.index(); }

  void fail(bool RoutingCheck::*flag, const std::string& what) {
    if (check.*flag) {
      check.*flag = false;
      if (check.problem.empty()) check.problem = what;
    }
  }

  /// Every choice at switch `at` for `a` in `layer`, entered on `in` (invalid at a switch
  /// source); explores the channels they lead to.
  void choose(NodeId at, ChannelId in, Address a, LayerId layer, const std::string& pair) {
    if (followLayerChanges) reached.emplace(a, network.switchIndex(at));
    std::vector<HopChoice> here(semantics.choiceCapacity());
    here.resize(semantics.hopChoices(at, in, a, layer, here));
    if (here.empty()) fail(&RoutingCheck::connected, pair + ": no route at " + network.name(at));
    for (const HopChoice& choice : here) {
      if (!followLayerChanges && choice.layer != layer) continue;
      const HopStep step = semantics.step(at, a, choice.port);
      if (record && step.channel.valid() && in.valid() && choice.layer == layer &&
          (!recordOnly || *recordOnly == layer)) {
        cdg.addDependency(layer, in, step.channel);
      }
      if (step.status == PathStatus::DeadPort) {
        fail(&RoutingCheck::connected, pair + ": dead port " + network.describePort(at, choice.port));
        continue;
      }
      if (step.status == PathStatus::NoRoute) {
        fail(&RoutingCheck::connected, pair + ": wrong delivery at " + network.describePort(at, choice.port));
        continue;
      }
      if (!step.channel.valid()) continue;  // delivered here (port 0 at the owning switch)
      visit(step.channel, a, choice.layer, pair);
    }
  }

  /// Explore from channel `in` (entered in `layer`) towards address `a`.
  void visit(ChannelId in, Address a, LayerId layer, const std::string& pair) {
    const std::size_t s = state(in, layer);
    if (color[s] == 1) {
      if (flagLoops) fail(&RoutingCheck::loopFree, pair + ": loop through " + network.describeChannel(in));
      return;
    }
    if (color[s] == 2) return;
    color[s] = 1;
    touched.push_back(s);
    const NodeId at = network.target(in);
    if (at != semantics.routing().addresses.owner(a)) choose(at, in, a, layer, pair);
    color[s] = 2;
  }

  void reset() {
    for (std::size_t s : touched) color[s] = 0;
    touched.clear();
  }
};

/// Same dependencies, same delivery verdict as the verifier's traversal?
inline void compareWithVerifier(const Network& network, const RoutingResult& result, const ChannelDependencyGraph& cdg,
                                RoutingCheck& check) {
  TrafficScope scope;
  scope.switchTraffic = result.addresses.includesSwitches();
  const RoutingDependencies deps = buildRoutingDependencies(network, result, scope);
  std::string difference;
  for (std::size_t l = 0; l < result.layerCount() && difference.empty(); ++l) {
    const LayerId layer = LayerId::fromIndex(l);
    if (deps.graph.dependencies(layer) != cdg.dependencies(layer)) {
      difference = fmt::format("layer {}: verifier has {} dependencies, the hop-by-hop explorer {}", l,
                               deps.graph.dependencyCount(layer), cdg.dependencyCount(layer));
    }
  }
  const bool verifierDelivers = deps.delivered == deps.routes && deps.escapeFailures == 0;
  if (difference.empty() && verifierDelivers != (check.connected && check.loopFree)) {
    difference = fmt::format("verifier: {} of {} routes delivered, {} escape failures; explorer: {}", deps.delivered,
                             deps.routes, deps.escapeFailures, check.problem);
  }
  if (difference.empty()) return;
  check.agreesWithVerifier = false;
  check.connected = false;
  check.problem = "the verifier disagrees: " + difference + (check.problem.empty() ? "" : "; " + check.problem);
}

}  // namespace detail

/// Checks every traffic pair (terminal sources; switch sources too when the address map
/// includes switches), then compares with the verifier. O(pairs × layers × route size).
inline RoutingCheck checkRouting(const Network& network, const RoutingResult& result) {
  RoutingCheck check;
  const RoutingSemantics semantics(network, result);
  const std::size_t layers = result.layerCount();
  ChannelDependencyGraph cdg(network, layers);
  detail::Explorer explorer{network, semantics, cdg, check, std::vector<std::uint8_t>(layers * network.channelCount())};
  if (semantics.escape()) {
    explorer.recordOnly = semantics.escapeLayer();
    explorer.followLayerChanges = true;
    explorer.flagLoops = false;
  }
  const AddressMap& addresses = result.addresses;
  std::vector<LayerId> injection(layers);
  for (NodeId source : addresses.owners()) {
    const auto distances = hopDistances(network, source);
    for (Address a = 0; a < addresses.count(); ++a) {
      const NodeId owner = addresses.owner(a);
      if (owner == source) continue;
      const std::size_t count = semantics.injectionLayers(source, a, injection);
      for (std::size_t i = 0; i < count; ++i) {
        const LayerId layer = injection[i];
        const std::string pair =
            fmt::format("{} -> {} (address {}, layer {})", network.name(source), network.name(owner), a, layer.index());
        ++check.pairs;
        const Path path = result.path(network, source, a, layer);  // minimality of the preferred route
        if (path.status == PathStatus::Delivered && path.channels.size() != distances[owner.index()]) {
          check.minimal = false;
        }
        if (network.isTerminal(source))
          explorer.visit(network.injectionChannel(source), a, layer, pair);
        else
          explorer.choose(source, ChannelId(), a, layer, pair);
        explorer.reset();
      }
    }
  }
  if (semantics.escape()) {
    // Duato (Theorem 4): R' (the escape layer alone) must deliver from every switch the
    // traffic can reach; its dependencies from there are already recorded.
    explorer.followLayerChanges = false;
    explorer.flagLoops = true;
    explorer.record = false;
    const auto reached = explorer.reached;
    for (const auto& [a, s] : reached) {
      const NodeId sw = network.switchNode(s);
      if (addresses.owner(a) == sw) continue;
      explorer.choose(sw, ChannelId(), a, semantics.escapeLayer(), fmt::format("escape from {}", network.name(sw)));
      explorer.reset();
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
  detail::compareWithVerifier(network, result, cdg, check);
  return check;
}

}  // namespace routelab::test
