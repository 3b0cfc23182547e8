// routelab/schedule/circuits.h — granted circuits as paths in the Network: an independent
// check of a schedule and its export as a routing result.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "routing/routing_result.h"
#include "schedule/scheduler.h"

namespace routelab {

/// Outcome of checkCircuits.
struct CircuitCheck {
  bool ok = true;
  std::size_t circuits = 0;      ///< granted circuits checked
  std::size_t channelsUsed = 0;  ///< distinct directed channels they occupy
  std::string problem;           ///< first violation, naming request and channel
};

/// Check every granted circuit of `schedule` against the Network alone (not the label
/// arithmetic): its path starts with the source terminal's channel, each channel starts
/// where the previous one ended, only switches forward, it ends at the destination
/// terminal, its length is 2 H; and no directed channel is used by two granted circuits
/// (Ding's conflict: "two requests are routed through same physical path"; a cable
/// carries one circuit per direction). O(Σ path lengths + channels).
CircuitCheck checkCircuits(const CircuitFabric& fabric, std::span<const SourceDestination> requests,
                           const CircuitSchedule& schedule);

/// Granted circuits of `schedule` as a destination-based RoutingResult: one address per
/// terminal (LID = terminal index + 1); at every switch on a circuit's path the entry of
/// its destination is the circuit's output port; every other entry is kNoRoute. So
/// RoutingResult::path(source, addressFor(source, destination)) walks exactly the circuit
/// (entries are written at addressFor, the address contract every consumer uses). A valid
/// schedule grants at most one circuit per destination (they would share its delivery
/// link), so entries never collide; a schedule whose circuits to one destination disagree
/// at a switch throws AnalysisError naming the switch and destination.
/// `engine` is "schedule:<scheduler spec>".
/// O(switches × terminals + Σ path lengths).
RoutingResult circuitsToRouting(const CircuitFabric& fabric, std::span<const SourceDestination> requests,
                                const CircuitSchedule& schedule, const std::string& schedulerSpec);

}  // namespace routelab
