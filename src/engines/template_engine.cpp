// The template engine (engines/template_engine.h): copy this file to add an engine.
//
// Adding an engine, step by step:
//   1. Copy this file into its family's folder (engines/fattree/ for engines that need
//      XGFT labels, engines/irregular/ for engines that route any topology, engines/tables/
//      for routings read from files) and rename the function and the row.
//   2. Route: take `const Network&` and the common RoutingContext, return a RoutingResult
//      (routing/routing_result.h): the address map, one forwarding table per layer group,
//      `minimal`/`deterministic` claims, `stats` (at least "layers"). Never write into the
//      network, never print. Throw UnsupportedTopology for a fabric the engine cannot route
//      at all, RoutingError when a constraint cannot be met (naming the element), SpecError
//      for a bad option — never return a wrong table. An engine that assigns layers checks
//      the count against kMaxLayers (core/limits.h) before building them.
//   3. Register: add the one row to the family's rows function (engines/families.h), e.g.
//      `irregularEngineRows()` in irregular/irregular_rows.cpp. The registry
//      (engines/registry.cpp) then lists it in `routelab list`, resolves `--engine NAME:...`
//      and echoes the effective options in every output.
//   4. Test: the conformance sweep (tests/engines/test_conformance.cpp) runs every
//      registered row on its fabrics and checks delivery, loops, the `minimal` claim and
//      deadlock freedom where claimed, with no further code; add a test of the engine's own
//      property (the paper's figure or bound) next to its family's tests.
// This engine itself stays unregistered (see the header); tests/routing/test_template_engine.cpp
// runs it through its row.
#include "engines/template_engine.h"

#include <fmt/format.h>

#include <cstdint>
#include <vector>

#include "core/errors.h"

namespace routelab {

namespace {

constexpr std::uint32_t kUnreached = UINT32_MAX;

/// The switch at which traffic to `owner` leaves the fabric. Throws RoutingError for a
/// terminal without a cable to a switch.
std::uint32_t attachedSwitch(const Network& network, NodeId owner) {
  if (network.isSwitch(owner)) return network.switchIndex(owner);
  const ChannelId injection = network.injectionChannel(owner);
  if (!injection.valid() || !network.isSwitch(network.target(injection))) {
    throw RoutingError(
        fmt::format("shortest-lowest-port: terminal '{}' is not cabled to a switch", network.name(owner)));
  }
  return network.switchIndex(network.target(injection));
}

/// Hop distances from every switch to switch `destination` over switch-switch cables (BFS;
/// cables are bidirectional, so the distance to equals the distance from).
void distancesTo(const Network& network, std::uint32_t destination, std::vector<std::uint32_t>& distance,
                 std::vector<std::uint32_t>& queue) {
  distance.assign(network.switchCount(), kUnreached);
  queue.assign(1, destination);
  distance[destination] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const NodeId node = network.switchNode(queue[head]);
    for (ChannelId c : network.outChannels(node)) {
      const NodeId next = network.target(c);
      if (!network.isSwitch(next) || distance[network.switchIndex(next)] != kUnreached) continue;
      distance[network.switchIndex(next)] = distance[queue[head]] + 1;
      queue.push_back(network.switchIndex(next));
    }
  }
}

/// The port of switch `s` whose cable leads one hop closer (lowest or highest port number;
/// outChannels() lists channels in increasing port order).
PortNumber minimalPort(const Network& network, std::uint32_t s, const std::vector<std::uint32_t>& distance,
                       bool preferHighest) {
  PortNumber chosen = kNoRoute;
  for (ChannelId c : network.outChannels(network.switchNode(s))) {
    const NodeId next = network.target(c);
    if (!network.isSwitch(next) || distance[network.switchIndex(next)] + 1 != distance[s]) continue;
    chosen = network.sourcePort(c);
    if (!preferHighest) break;
  }
  return chosen;
}

}  // namespace

RoutingResult routeShortestLowestPort(const Network& network, const RoutingContext& context, bool preferHighest) {
  RoutingResult result;
  result.addresses = AddressMap::build(network, context.addressesPerTerminal, context.routeSwitches);
  const AddressMap& addresses = result.addresses;
  // Every address owner is a source too: each must reach every destination switch.
  std::vector<std::uint32_t> sourceSwitch;
  for (NodeId owner : addresses.owners()) sourceSwitch.push_back(attachedSwitch(network, owner));

  ForwardingTable table(network.switchCount(), addresses.count());
  std::vector<std::uint32_t> distance, queue;
  for (NodeId owner : addresses.owners()) {
    const std::uint32_t destination = attachedSwitch(network, owner);
    distancesTo(network, destination, distance, queue);
    for (std::size_t i = 0; i < sourceSwitch.size(); ++i) {
      if (distance[sourceSwitch[i]] == kUnreached) {
        throw RoutingError(fmt::format("shortest-lowest-port: fabric is disconnected: no path from '{}' to '{}'",
                                       network.name(addresses.owners()[i]), network.name(owner)));
      }
    }
    const PortNumber delivery =
        network.isSwitch(owner) ? kSelfPort : network.targetPort(network.injectionChannel(owner));
    for (std::uint32_t s = 0; s < network.switchCount(); ++s) {
      if (distance[s] == kUnreached) continue;  // another island: carries no traffic to `owner`
      const PortNumber port = s == destination ? delivery : minimalPort(network, s, distance, preferHighest);
      for (std::uint32_t k = 0; k < addresses.blockSize(owner); ++k) table.set(s, addresses.base(owner) + k, port);
    }
  }
  result.tables.push_back(std::move(table));
  result.minimal = true;
  result.deterministic = true;
  result.stats.emplace_back("layers", "1");
  result.stats.emplace_back("deadlock_free", "not guaranteed");
  return result;
}

RegistryRow<EngineFactory> templateEngineRow() {
  return {"shortest-lowest-port",
          "shortest paths, lowest minimal port (template engine, unregistered); NOT deadlock-free",
          "textbook BFS routing (engines/template_engine.cpp)",
          {{"prefer", OptionType::String, "lowest", "lowest|highest: which minimal port a switch takes"}},
          [](const Options& options) -> RoutingFunction {
            // Options are read and checked once, when the engine is built, not per route.
            const std::string& prefer = options.string("prefer");
            if (prefer != "lowest" && prefer != "highest") {
              throw SpecError(fmt::format("shortest-lowest-port: prefer={} (expected lowest or highest)", prefer));
            }
            const bool preferHighest = prefer == "highest";
            return [preferHighest](const Network& network, const RoutingContext& context) {
              return routeShortestLowestPort(network, context, preferHighest);
            };
          }};
}

}  // namespace routelab
