// The simulator's reference model, for the tests only: the network model of sim/model.h
// computed the plain way — every cycle, every switch and every link is looked at in index
// order, flits and credits are counted one by one (credits in flits, not packet slots), and
// nothing is skipped. It is slow and obviously follows the model; the fast event-driven
// engine must give the same per-packet times on small fabrics.
#pragma once

#include <vector>

#include "graph/network.h"
#include "routing/routing_result.h"
#include "sim/model.h"

namespace routelab::test {

/// Generates traffic during cycles [0, config.measureCycles) with the same per-terminal random
/// streams as the engine, then runs until every packet is released (or `limit` cycles).
/// Returns every released packet, sorted by (source, destination, sequence).
std::vector<PacketRecord> referenceSimulate(const Network& network, const RoutingResult& routing,
                                            const SimConfig& config, std::uint64_t limit);

}  // namespace routelab::test
