// routelab/sim/reference/reference_model.h — the simulator's reference model: the network
// model of sim/model.h computed the plain way, to read and to check the fast engine against.
//
// Every cycle, every switch and every link is looked at in index order, flits and credits are
// counted one by one (credits in flits, not packet slots), and nothing is skipped. It shares
// with the fast engine (sim/engine.h) only the components that state the model's choices —
// the selection functions (sim/selection/), the arbitrations (sim/arbitration/) and the
// traffic sources (sim/traffic_source.h) — and must give every packet the same injection,
// delivery and release cycles and hop count. It is slow (every component every cycle): for
// small fabrics and short runs. `routelab simulate --model reference` runs it, `--model
// check` runs both and compares packet by packet (docs/SIMULATION.md "Components").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/network.h"
#include "routing/routing_result.h"
#include "sim/model.h"

namespace routelab::sim {

/// Generates Bernoulli traffic during cycles [0, warmupCycles + measureCycles) with the same
/// per-terminal random streams as the engine, then runs until every packet is released (or
/// `limit` cycles). Returns every released packet, sorted by (source, destination,
/// sequence). Throws SpecError for what it does not model (Poisson sources, the automatic
/// warm-up), SimulationError where the routing offers no route.
std::vector<PacketRecord> referenceSimulate(const Network& network, const RoutingResult& routing,
                                            const SimConfig& config, std::uint64_t limit);

/// The fast engine against the reference model on one configuration (its generation window:
/// warmupCycles + measureCycles, then drained).
struct ModelComparison {
  std::size_t packets = 0;  ///< released by the reference model
  bool equal = true;
  /// Where they first differ (empty when equal): the packet (source -> destination #sequence)
  /// and both models' times, or the packet counts.
  std::string difference;
};

/// Runs simulate() (drained, every packet recorded) and referenceSimulate() on `config` and
/// compares them packet by packet, in (source, destination, sequence) order.
ModelComparison compareWithReference(const Network& network, const RoutingResult& routing, SimConfig config,
                                     std::uint64_t limit);

/// Two models' packet records compared in (source, destination, sequence) order (each list
/// sorted first): equal when every record is, else the first packet whose records differ in
/// any field (times, hops), or — when one list is a prefix of the other — the two counts.
/// `packets` is the reference's count.
ModelComparison comparePacketRecords(std::vector<PacketRecord> engine, std::vector<PacketRecord> reference);

/// A cycle limit for a drained run of `config`: its generation window, then at most
/// 4 x measureCycles (or drainCycles) and the watchdog's span for the last packets.
std::uint64_t referenceLimit(const SimConfig& config);

}  // namespace routelab::sim
