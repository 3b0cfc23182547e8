// A packet's candidates at its switch (sim/engine.h, Engine::routeHere): the routing's
// choices as channels, VCs' layers and ports, kept with the packet when they fit, and the
// errors of a choice that cannot be used.
// Member definitions of Engine<Policy>, included by sim/engine.cpp only (its instantiations).
#pragma once
#include "sim/engine.h"
#include "sim/sim_options.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <variant>

#include "core/errors.h"

namespace routelab::sim {

template <class Policy>
std::span<const typename Engine<Policy>::Candidate> Engine<Policy>::routeHere(std::uint32_t packetId,
                                                                              std::uint32_t switchIndex,
                                                                              std::uint32_t inChannel) {
  Packet& packet = packets_[packetId];
  if (const LayerResolution* resolved = resolvedLayer(packet.layer)) {  // the entry's resolved candidates
    const LayerResolution& r = *resolved;
    const ForwardingTable::EntryView entry =
        semantics_.entryAt(switchIndex, packet.address, LayerId::fromIndex(packet.layer));
    std::size_t at = r.base + std::size_t{switchIndex} * r.stride;
    std::uint32_t count = 1;
    bool usable = false;
    if (entry.list == ForwardingTable::kNoList) {  // one port: to a switch, or to the packet's terminal
      const std::uint32_t port = entry.port;
      if (port - 1U < r.ports) {  // (kSelfPort and kNoRoute are not)
        at += port - 1U;
        if (resolved_[at].channel != kNoChannel) {  // (then the port is one of the switch's)
          usable = resolved_[at].vc != kIntoTerminal ||
                   exits_[sw_[switchIndex].exitBegin + port - 1U].terminal == packet.destination;
        }
      }
    } else if (entry.list < r.listOffset.size()) {  // a list whose every port leads to a switch here
      at += r.listOffset[entry.list];
      count = r.listLength[entry.list];
      usable = listUsable_[r.usableBase + std::size_t{switchIndex} * r.listOffset.size() + entry.list] != 0;
    }
    if (usable) [[likely]] {
      route_[packetId] = kResolvedRef | static_cast<std::uint32_t>(at) << kRefCountBits | count;
      return {&resolved_[at], count};
    }
  }
  Candidate* cached = &packetCandidates_[std::size_t{packetId} * capacity_];
  const Exit* exits = &exits_[sw_[switchIndex].exitBegin];
  const std::uint32_t portCount = sw_[switchIndex].portCount;
  // Up to capacity_ candidates are kept with the packet; longer lists (escape routings with
  // many layers) are recomputed at every attempt.
  Candidate* out = cached;
  std::uint32_t kept = 0;
  // RoutingSemantics::step, from the cached exits: a usable port has a cable and leads to a
  // switch or to the packet's destination; an unusable one is skipped, or refused when it is
  // the only choice (`count`).
  auto take = [&](PortNumber port, std::uint8_t layer, std::size_t count) {
    if (port != kSelfPort && port <= portCount && exits[port - 1].channel != kNoChannel &&
        (exits[port - 1].terminal == kNoTerminal || exits[port - 1].terminal == packet.destination)) {
      out[kept++] = {exits[port - 1].channel, 0, layer, port};
    } else if (count == 1) {
      unusableChoice(packet, switchIndex, port);
    }
  };
  if (!semantics_.escape()) {  // the packet's layer's table entry, read in place
    const std::span<const PortNumber> ports =
        semantics_.candidatesAt(switchIndex, packet.address, LayerId::fromIndex(packet.layer));
    if (ports.size() > capacity_) out = overflow_.data();
    for (PortNumber port : ports) take(port, packet.layer, ports.size());
  } else {  // the core's choices over every layer (RoutingSemantics::hopChoices)
    const std::size_t count = semantics_.hopChoices(network_.switchNode(switchIndex), ChannelId::fromIndex(inChannel),
                                                    packet.address, LayerId::fromIndex(packet.layer), choices_);
    if (count > capacity_) out = overflow_.data();
    for (std::size_t i = 0; i < count; ++i) take(choices_[i].port, choices_[i].layer.value, count);
  }
  if (kept == 0) {
    throw SimulationError(fmt::format("the routing offers terminal {} -> {} no usable port at switch '{}'",
                                      packet.source, packet.destination,
                                      network_.name(network_.switchNode(switchIndex))));
  }
  if (out == cached) route_[packetId] = kept;
  return {out, kept};
}

template <class Policy>
void Engine<Policy>::routingLoop(const Packet& packet, std::uint32_t channel) const {
  const ChannelId link = ChannelId::fromIndex(channel);
  throw SimulationError(fmt::format(
      "the routing loops: a packet from terminal '{}' to '{}' has crossed {} links, more than the fabric's {} "
      "channels, and goes on from '{}' to '{}' at cycle {} (`routelab verify` names the loop)",
      network_.name(network_.terminalNode(packet.source)), network_.name(network_.terminalNode(packet.destination)),
      packet.hops, channels_, network_.name(network_.source(link)), network_.name(network_.target(link)), now_));
}

template <class Policy>
void Engine<Policy>::wrongTerminal(const Packet& packet, std::uint32_t channel) const {
  const ChannelId link = ChannelId::fromIndex(channel);
  throw SimulationError(fmt::format(
      "internal: a packet from terminal '{}' to '{}' was sent into terminal '{}' at cycle {}",
      network_.name(network_.terminalNode(packet.source)), network_.name(network_.terminalNode(packet.destination)),
      network_.name(network_.target(link)), now_));
}

template <class Policy>
void Engine<Policy>::unusableChoice(const Packet& packet, std::uint32_t switchIndex, PortNumber port) const {
  const NodeId at = network_.switchNode(switchIndex);
  const HopStep step = semantics_.step(at, packet.address, port);
  throw SimulationError(fmt::format(
      "the routing does not deliver terminal {} -> {}: {} at switch '{}' (port {})", packet.source, packet.destination,
      pathStatusText(step.status == PathStatus::Delivered ? PathStatus::NoRoute : step.status), network_.name(at),
      unsigned(port)));
}

}  // namespace routelab::sim
