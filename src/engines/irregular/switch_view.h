// routelab/engines/irregular/switch_view.h — the switch-level view shared by the engines for any
// topology (minhop, UpDown, MROOTS, the LASH family, Escape).
//
// All engines of this family route between switches: terminals attached to the same switch
// share that switch's paths (as OpenSM's LASH does), so every algorithm works on S switches
// instead of T terminals. The view validates the fabric once (every terminal cabled to a
// switch, all traffic endpoints mutually reachable) and precomputes the switch distance
// matrix. Helpers turn per-destination-switch next hops into forwarding tables.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "graph/network.h"
#include "routing/engine.h"
#include "routing/routing_result.h"

namespace routelab::irregular {

inline constexpr std::uint16_t kFar = UINT16_MAX;  ///< distance between disconnected switches

class SwitchView {
 public:
  /// Validates the fabric. Traffic endpoints are the terminals and, with `routeSwitches`,
  /// every switch. Throws RoutingError naming the first offending element: a terminal not
  /// cabled to a switch, or an unreachable endpoint pair ("no path from 'a' to 'b'") with
  /// the number of unreachable pairs. O(S (S + C)) for the distance matrix (all cores).
  SwitchView(const Network& network, bool routeSwitches);

  const Network& network() const { return *network_; }
  std::size_t switchCount() const { return switchCount_; }
  bool routeSwitches() const { return routeSwitches_; }

  /// Switch-to-switch channels leaving switch `s`, in port order.
  std::span<const ChannelId> links(std::uint32_t s) const {
    return {linkChannel_.data() + linkStart_[s], linkChannel_.data() + linkStart_[s + 1]};
  }
  std::uint32_t sourceSwitch(ChannelId c) const { return network_->switchIndex(network_->source(c)); }
  std::uint32_t targetSwitch(ChannelId c) const { return network_->switchIndex(network_->target(c)); }
  /// Hop distance between switches (kFar when disconnected).
  std::uint16_t distance(std::uint32_t from, std::uint32_t to) const { return distance_[from * switchCount_ + to]; }

  /// Switches that source and sink traffic (own addresses), in switch order.
  std::span<const std::uint32_t> activeSwitches() const { return active_; }
  bool isActive(std::uint32_t s) const { return activeIndex_[s] != UINT32_MAX; }
  /// Position of `s` in activeSwitches(), UINT32_MAX if not active.
  std::uint32_t activeIndex(std::uint32_t s) const { return activeIndex_[s]; }
  /// Does switch `s` carry traffic (in the component of the endpoints)?
  bool inFabric(std::uint32_t s) const { return inFabric_[s] != 0; }
  /// The lowest switch index carrying traffic (UpDown's default root); UINT32_MAX if none.
  std::uint32_t lowestSwitch() const { return lowest_; }
  /// Number of terminals attached to switch `s`.
  std::uint32_t terminalsOn(std::uint32_t s) const { return terminalsOn_[s]; }

  /// Switch at which traffic to `owner` (terminal or switch) leaves the switch fabric,
  /// and the port used there (kSelfPort for a switch's own address).
  std::uint32_t attachedSwitch(NodeId owner) const;
  PortNumber deliveryPort(NodeId owner) const;

  /// Name of switch `s` (for messages).
  const std::string& switchName(std::uint32_t s) const { return network_->name(network_->switchNode(s)); }

 private:
  /// Throws RoutingError naming two endpoints in different components when the active
  /// switches (those with terminals, or every switch with routeSwitches) are not connected.
  void requireActiveConnected() const;
  const Network* network_;
  std::size_t switchCount_ = 0;
  bool routeSwitches_ = false;
  std::vector<std::uint32_t> linkStart_;
  std::vector<ChannelId> linkChannel_;
  std::vector<std::uint16_t> distance_;
  std::vector<std::uint32_t> active_;
  std::vector<std::uint32_t> activeIndex_;
  std::vector<std::uint8_t> inFabric_;
  std::vector<std::uint32_t> terminalsOn_;
  std::uint32_t lowest_ = UINT32_MAX;
};

/// Allowed next-hop channels per switch toward one destination switch (CSR over switch
/// index). An empty set at a switch other than the destination means "no route".
struct HopSets {
  std::vector<std::uint32_t> start;  ///< size S + 1
  std::vector<ChannelId> channels;
  std::span<const ChannelId> at(std::uint32_t s) const {
    return {channels.data() + start[s], channels.data() + start[s + 1]};
  }
};
/// Fills `out` with the hop sets toward destination switch `d`.
using HopSetFunction = std::function<void(std::uint32_t d, HopSets& out)>;

/// Minimal hop sets: every channel that reduces the distance to `d` by one. O(C).
void minimalHops(const SwitchView& view, std::uint32_t d, HopSets& out);

/// Addresses grouped by the switch at which they are delivered (CSR over switch index).
struct AddressesBySwitch {
  std::vector<std::uint32_t> start;
  std::vector<Address> addresses;
  std::vector<std::uint32_t> switchOf;  ///< per address: attached switch
  std::span<const Address> at(std::uint32_t s) const {
    return {addresses.data() + start[s], addresses.data() + start[s + 1]};
  }
};
AddressesBySwitch groupAddresses(const SwitchView& view, const AddressMap& addresses);

/// Destination-based deterministic table balanced like OpenSM's minhop: for every address
/// and every switch, the least-used channel of the switch's hop set toward the address's
/// switch, where a channel's use is the number of addresses already routed through it
/// (ties: lowest port). O(A · (S + C)).
ForwardingTable balancedTable(const SwitchView& view, const AddressMap& addresses, const AddressesBySwitch& groups,
                              const HopSetFunction& hops);

/// The same hop sets as an adaptive table: every channel of the set is a candidate, the
/// least-used one first (use counted on preferred candidates), the rest in port order.
ForwardingTable adaptiveTable(const SwitchView& view, const AddressMap& addresses, const AddressesBySwitch& groups,
                              const HopSetFunction& hops);

/// Per source index: the switch the source injects into.
std::vector<std::uint32_t> sourceSwitches(const SwitchView& view, const AddressMap& addresses);

/// Spreads (source, address) pairs evenly over `layers` layers: layer = (source index +
/// owner's source index + offset) mod layers (each source spreads its destinations evenly
/// and each destination its sources; Lysne §8.1 "as evenly between the layers as possible").
std::vector<std::uint8_t> spreadLayers(const AddressMap& addresses, std::size_t layers);

/// The per-destination address map of the context (2^lmc per terminal, switches optional).
AddressMap destinationAddresses(const Network& network, const RoutingContext& context);

/// Looks up a switch by name for a `root=NAME` option; throws SpecError naming the option.
std::uint32_t switchByName(const SwitchView& view, const std::string& name, const std::string& option);

}  // namespace routelab::irregular
