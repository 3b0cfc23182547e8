#include "engines/irregular/switch_view.h"

#include <fmt/format.h>
#include <algorithm>

#include "core/errors.h"
#include "graph/algorithms.h"

namespace routelab::irregular {

SwitchView::SwitchView(const Network& network, bool routeSwitches)
    : network_(&network), switchCount_(network.switchCount()), routeSwitches_(routeSwitches) {
  const std::size_t switches = switchCount_;
  linkStart_.assign(switches + 1, 0);
  for (std::uint32_t s = 0; s < switches; ++s) {
    for (ChannelId c : network.outChannels(network.switchNode(s))) {
      if (network.isSwitch(network.target(c))) linkChannel_.push_back(c);
    }
    linkStart_[s + 1] = static_cast<std::uint32_t>(linkChannel_.size());
  }
  terminalsOn_.assign(switches, 0);
  for (NodeId t : network.terminals()) {
    const ChannelId inject = network.injectionChannel(t);
    if (!inject.valid()) {
      throw RoutingError(
          fmt::format("fabric is disconnected: terminal '{}' is not cabled to any switch", network.name(t)));
    }
    if (!network.isSwitch(network.target(inject))) {
      throw RoutingError(fmt::format("terminal '{}' is cabled to terminal '{}', not to a switch", network.name(t),
                                     network.name(network.target(inject))));
    }
    ++terminalsOn_[network.switchIndex(network.target(inject))];
  }
  distance_ = switchDistanceMatrix(network);

  activeIndex_.assign(switches, UINT32_MAX);
  for (std::uint32_t s = 0; s < switches; ++s) {
    if (routeSwitches || terminalsOn_[s] > 0) {
      activeIndex_[s] = static_cast<std::uint32_t>(active_.size());
      active_.push_back(s);
    }
  }
  inFabric_.assign(switches, 0);
  if (active_.empty()) return;
  requireActiveConnected();
  const std::uint32_t first = active_.front();
  for (std::uint32_t s = 0; s < switches; ++s) {
    if (distance(first, s) != kFar) {
      inFabric_[s] = 1;
      lowest_ = std::min(lowest_, s);
    }
  }
}

void SwitchView::requireActiveConnected() const {
  // Components of the active switches: all must coincide.
  const std::size_t switches = switchCount_;
  std::size_t unreachablePairs = 0;
  std::uint32_t badFrom = UINT32_MAX, badTo = UINT32_MAX;
  {
    // Count endpoint pairs in different components (endpoints = terminals + switches).
    std::vector<std::uint32_t> componentOf(switches, UINT32_MAX);
    std::vector<std::uint64_t> endpoints;
    std::vector<std::uint32_t> representative;
    for (std::uint32_t s : active_) {
      if (componentOf[s] != UINT32_MAX) continue;
      const auto component = static_cast<std::uint32_t>(endpoints.size());
      endpoints.push_back(0);
      representative.push_back(s);
      for (std::uint32_t other = 0; other < switches; ++other) {
        if (distance(s, other) != kFar) componentOf[other] = component;
      }
    }
    for (std::uint32_t s : active_) {
      endpoints[componentOf[s]] += terminalsOn_[s] + (routeSwitches_ ? 1 : 0);
    }
    std::uint64_t total = 0;
    for (std::uint64_t e : endpoints) total += e;
    for (std::uint64_t e : endpoints) unreachablePairs += static_cast<std::size_t>(e * (total - e));
    if (endpoints.size() > 1) {
      badFrom = representative[0];
      badTo = representative[1];
    }
  }
  if (unreachablePairs > 0) {
    auto endpointName = [&](std::uint32_t s) -> std::string {
      if (terminalsOn_[s] == 0) return fmt::format("switch '{}'", switchName(s));
      for (NodeId t : network_->terminals()) {
        if (network_->switchIndex(network_->target(network_->injectionChannel(t))) == s) {
          return fmt::format("terminal '{}'", network_->name(t));
        }
      }
      return fmt::format("switch '{}'", switchName(s));
    };
    throw RoutingError(
        fmt::format("fabric is disconnected: no path from {} to {} ({} ordered endpoint pairs unreachable)",
                    endpointName(badFrom), endpointName(badTo), unreachablePairs));
  }
}

std::uint32_t SwitchView::attachedSwitch(NodeId owner) const {
  if (network_->isSwitch(owner)) return network_->switchIndex(owner);
  return network_->switchIndex(network_->target(network_->injectionChannel(owner)));
}

PortNumber SwitchView::deliveryPort(NodeId owner) const {
  if (network_->isSwitch(owner)) return kSelfPort;
  return network_->targetPort(network_->injectionChannel(owner));
}

void minimalHops(const SwitchView& view, std::uint32_t d, HopSets& out) {
  const std::size_t switches = view.switchCount();
  out.start.assign(switches + 1, 0);
  out.channels.clear();
  for (std::uint32_t s = 0; s < switches; ++s) {
    const std::uint16_t here = view.distance(s, d);
    if (s != d && here != kFar) {
      for (ChannelId c : view.links(s)) {
        if (view.distance(view.targetSwitch(c), d) + 1 == here) out.channels.push_back(c);
      }
    }
    out.start[s + 1] = static_cast<std::uint32_t>(out.channels.size());
  }
}

AddressesBySwitch groupAddresses(const SwitchView& view, const AddressMap& addresses) {
  AddressesBySwitch groups;
  const std::size_t switches = view.switchCount();
  groups.switchOf.resize(addresses.count());
  groups.start.assign(switches + 1, 0);
  for (Address a = 0; a < addresses.count(); ++a) {
    groups.switchOf[a] = view.attachedSwitch(addresses.owner(a));
    ++groups.start[groups.switchOf[a] + 1];
  }
  for (std::size_t s = 0; s < switches; ++s) groups.start[s + 1] += groups.start[s];
  groups.addresses.resize(addresses.count());
  std::vector<std::uint32_t> fill(groups.start.begin(), groups.start.end() - 1);
  for (Address a = 0; a < addresses.count(); ++a) groups.addresses[fill[groups.switchOf[a]]++] = a;
  return groups;
}

namespace {

template <class Emit>
void routeBalanced(const SwitchView& view, const AddressMap& addresses, const AddressesBySwitch& groups,
                   const HopSetFunction& hops, Emit emit) {
  const Network& network = view.network();
  std::vector<std::uint32_t> use(network.channelCount(), 0);
  HopSets sets;
  for (std::uint32_t d = 0; d < view.switchCount(); ++d) {
    const auto owned = groups.at(d);
    if (owned.empty()) continue;
    hops(d, sets);
    for (Address a : owned) {
      for (std::uint32_t s = 0; s < view.switchCount(); ++s) {
        if (s == d) {
          const PortNumber port = view.deliveryPort(addresses.owner(a));
          emit(s, a, std::span<const ChannelId>{}, port);
          continue;
        }
        const auto set = sets.at(s);
        if (set.empty()) continue;
        ChannelId best = set[0];
        for (ChannelId c : set) {
          if (use[c.index()] < use[best.index()]) best = c;
        }
        ++use[best.index()];
        emit(s, a, set, network.sourcePort(best));
      }
    }
  }
}

}  // namespace

ForwardingTable balancedTable(const SwitchView& view, const AddressMap& addresses, const AddressesBySwitch& groups,
                              const HopSetFunction& hops) {
  ForwardingTable table(view.switchCount(), addresses.count());
  routeBalanced(
      view, addresses, groups, hops,
      [&](std::uint32_t s, Address a, std::span<const ChannelId>, PortNumber port) { table.set(s, a, port); });
  return table;
}

ForwardingTable adaptiveTable(const SwitchView& view, const AddressMap& addresses, const AddressesBySwitch& groups,
                              const HopSetFunction& hops) {
  ForwardingTable table(view.switchCount(), addresses.count());
  const Network& network = view.network();
  std::vector<PortNumber> ports;
  routeBalanced(view, addresses, groups, hops,
                [&](std::uint32_t s, Address a, std::span<const ChannelId> set, PortNumber preferred) {
                  ports.assign(1, preferred);
                  for (ChannelId c : set) {
                    if (network.sourcePort(c) != preferred) ports.push_back(network.sourcePort(c));
                  }
                  table.setCandidates(s, a, ports);
                });
  return table;
}

std::vector<std::uint32_t> sourceSwitches(const SwitchView& view, const AddressMap& addresses) {
  std::vector<std::uint32_t> out;
  out.reserve(addresses.owners().size());
  for (NodeId owner : addresses.owners()) out.push_back(view.attachedSwitch(owner));
  return out;
}

std::vector<std::uint8_t> spreadLayers(const AddressMap& addresses, std::size_t layers) {
  const std::size_t sources = addresses.owners().size();
  std::vector<std::uint8_t> layerOf(sources * addresses.count(), 0);
  if (layers <= 1) return layerOf;
  for (std::size_t source = 0; source < sources; ++source) {
    for (Address a = 0; a < addresses.count(); ++a) {
      const std::size_t owner = addresses.sourceIndex(addresses.owner(a));
      layerOf[source * addresses.count() + a] =
          static_cast<std::uint8_t>((source + owner + addresses.offset(a)) % layers);
    }
  }
  return layerOf;
}

AddressMap destinationAddresses(const Network& network, const RoutingContext& context) {
  return AddressMap::build(network, context.addressesPerTerminal, context.routeSwitches);
}

std::uint32_t switchByName(const SwitchView& view, const std::string& name, const std::string& option) {
  const auto node = view.network().findNode(name);
  if (!node || !view.network().isSwitch(*node)) {
    throw SpecError(fmt::format("option '{}': no switch named '{}'", option, name));
  }
  const std::uint32_t s = view.network().switchIndex(*node);
  if (!view.inFabric(s)) {
    throw RoutingError(fmt::format("option '{}': switch '{}' is not connected to the terminals", option, name));
  }
  return s;
}

}  // namespace routelab::irregular
