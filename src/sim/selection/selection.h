// routelab/sim/selection/selection.h — the selection function of the switch allocator: the
// contract every selection component keeps (Gómez et al. 2007 §5.1; docs/SIMULATION.md
// "Components").
//
// A routing offers a packet at a switch one or more candidates (an output port and the
// routing layer it continues in), in the routing's order of preference. At a crossbar request
// the allocator asks the selection function for one free (candidate, VC) choice: a candidate
// whose crossbar output is idle, with one VC of its layer whose output queue has a free slot.
// A selection component is a class with
//
//   static constexpr Selection kId;                     // its value of SimConfig::selection
//   static constexpr std::string_view kName, kSummary, kReference;  // its registry row
//   explicit S(const SelectionSetup&);
//   template <SelectionView View> SelectionChoice choose(const View& view) const;
//
// choose() returns the chosen candidate's index and VC, or SelectionChoice::none() when it
// chooses nothing (then the packet waits: the allocator asks again when a candidate frees).
// It reads only what the view offers, so the same class serves the fast engine (sim/engine.h)
// and the reference model (sim/reference/reference_model.h), which must agree packet by
// packet. It may draw only from view.rng() (the switch's stream) or use view.packetDraw()
// (a value fixed per packet and hop), so that results do not depend on evaluation order.
// Adding one: a class in its own file here, one row in sim/selection/registry.h, its id in
// sim/model.h's Selection enum.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/random.h"
#include "routing/routing_result.h"
#include "sim/model.h"

namespace routelab::sim {

/// What a selection function may read of one request.
template <class View>
concept SelectionView = requires(const View& view, std::size_t i, std::uint32_t vc) {
  /// The packet's candidates at this switch, in the routing's order.
  { view.size() } -> std::convertible_to<std::size_t>;
  /// Bit v: VC v (of candidate i's layer) is free — its crossbar output is idle and its output
  /// queue has a slot. 0: the candidate cannot be taken now.
  { view.freeVcs(i) } -> std::convertible_to<std::uint64_t>;
  /// Candidate i's port number at this switch.
  { view.port(i) } -> std::convertible_to<PortNumber>;
  /// Packets in the output queue (candidate i, vc), the one on its link included.
  { view.queued(i, vc) } -> std::convertible_to<std::uint32_t>;
  /// Free packet slots of the input queue (candidate i, vc) at the far end, as the sender's
  /// credits count them (a terminal's input never fills: the buffer's size).
  { view.credits(i, vc) } -> std::convertible_to<std::uint32_t>;
  /// The switch's random stream (seeded per switch).
  { view.rng() } -> std::same_as<Rng&>;
  /// deriveSeed(deriveSeed(seed, packet serial), hops so far): fixed per packet and hop.
  { view.packetDraw() } -> std::convertible_to<std::uint64_t>;
};

/// The chosen candidate (index into the view's candidates) and VC.
struct SelectionChoice {
  std::size_t candidate = kNone;
  std::uint32_t vc = 0;
  static constexpr std::size_t kNone = ~std::size_t{0};
  static constexpr SelectionChoice none() { return {}; }
  constexpr bool chosen() const { return candidate != kNone; }
};

/// What a selection component may precompute from (fixed for a run).
struct SelectionSetup {
  std::uint32_t vcs = 1;            ///< VCs per link (at most 64)
  std::uint32_t bufferPackets = 2;  ///< packet slots per VC queue
};

/// Set bits of a mask, bit-parallel: no branch on its value (std::popcount is a library call
/// on the x86-64 baseline).
inline int countBits(std::uint64_t mask) {
  mask -= (mask >> 1) & 0x5555555555555555ULL;
  mask = (mask & 0x3333333333333333ULL) + ((mask >> 2) & 0x3333333333333333ULL);
  mask = (mask + (mask >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return static_cast<int>((mask * 0x0101010101010101ULL) >> 56);
}

/// The lowest set bit of a non-zero mask.
inline std::uint32_t lowestBit(std::uint64_t mask) { return static_cast<std::uint32_t>(__builtin_ctzll(mask)); }

}  // namespace routelab::sim
