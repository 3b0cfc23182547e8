// routelab/sim/watchdog.h — deadlock detection (docs/SIMULATION.md "Deadlock"): the watchdog
// that decides when a run is stuck, and the wait-for graph whose cycle names the culprits.
//
// What it watches: whether packets are in flight (generated and not yet released, or injected
// and not yet delivered) and the last cycle a packet moved (a link started sending one, a
// switch granted one across its crossbar, or its tail reached its terminal).
// When it fires: at the first decision point (docs/SIMULATION.md "Parallel engine": between
// windows, the same rule for any number of blocks) at which packets are in flight and none
// has moved for SimConfig::watchdogCycles cycles.
// What it reports (DeadlockReport, sim/model.h): that cycle, the last move, and one cycle of
// the wait-for graph of (channel, VC) queues — the front packet of an input queue waits for
// every output queue its routing allows it, and in a deadlock all of them are full — found by
// WaitForGraph::firstCycle, with the packets at the fronts of its queues.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/units.h"

namespace routelab::sim {

class Watchdog {
 public:
  explicit Watchdog(Cycles cycles) : cycles_(cycles) {}
  /// Fires at `now`: packets are in flight and none has moved since `lastMove` for at least
  /// the watchdog's cycles.
  bool fires(Cycle now, bool inFlight, Cycle lastMove) const { return inFlight && now - lastMove >= cycles_; }
  /// The cycle at which it fires if nothing moves from now on (Cycle::never() when nothing is
  /// in flight): an idle jump must not pass it.
  Cycle deadline(bool inFlight, Cycle lastMove) const { return inFlight ? lastMove + cycles_ : Cycle::never(); }
  /// Packets are in flight: generated but not released, or injected but not delivered.
  static bool inFlight(std::uint64_t generated, std::uint64_t injected, std::uint64_t delivered,
                       std::uint64_t released) {
    return injected > delivered || released < generated;
  }

 private:
  Cycles cycles_;
};

/// A directed graph on queues 0..n-1 ("queue a waits for queue b") and its first cycle.
class WaitForGraph {
 public:
  explicit WaitForGraph(std::size_t queues) : waitsFor_(queues) {}
  std::size_t size() const { return waitsFor_.size(); }
  /// Queue `from` waits for queue `to` (the edges of a queue keep the order they were added in).
  void addWait(std::uint32_t from, std::uint32_t to) { waitsFor_[from].push_back(to); }
  /// The queues of one cycle, each waiting for the next and the last for the first; empty
  /// when the graph has none. Deterministic: a depth-first search from the queues in index
  /// order, each queue's edges in the order added; the first edge back onto the search path
  /// closes the cycle, which starts at the queue it leads to. O(queues + edges).
  std::vector<std::uint32_t> firstCycle() const;

 private:
  std::vector<std::vector<std::uint32_t>> waitsFor_;
};

}  // namespace routelab::sim
