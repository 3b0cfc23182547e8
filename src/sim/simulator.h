// routelab/sim/simulator.h — the flit-level virtual cut-through simulator (model and
// arbitration rules: sim/model.h and docs/SIMULATION.md).
//
// Contract:
//  * simulate() is a pure function of (network, routing, config, trace): same inputs, same
//    result, whatever else runs at the same time. Every random choice draws from a stream
//    derived from config.seed and the choosing component (terminal, switch), never from a
//    shared one.
//  * Routes come only from RoutingSemantics (routing/semantics.h).
//  * config.threads splits one simulation over threads (docs/SIMULATION.md "Parallel
//    engine"); the result is bit for bit the same for every thread count.
//  * Every generated packet is delivered exactly once, or the run ends in a deadlock report
//    (watchdog) or at the end of the drain limit with the undelivered ones counted.
//  * Errors: SpecError for impossible parameters (zero sizes, load outside (0, 1], fewer VCs
//    than layers, unknown traffic), SimulationError when a packet meets a switch with no
//    usable route (the routing does not deliver the pair), LimitError when what grows with
//    the run (source queues of a saturated network, the pairs' sequence numbers) would pass
//    SimConfig::memoryBudgetBytes.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "graph/network.h"
#include "routing/routing_result.h"
#include "sim/model.h"

namespace routelab {

/// One message of a trace: at `cycle`, `source` sends `bytes` to `destination` (terminal
/// indices).
struct TraceMessage {
  std::uint64_t cycle = 0;
  std::uint32_t source = 0;
  std::uint32_t destination = 0;
  std::uint64_t bytes = 0;
};

/// A trace, time-ordered, with how its messages become packets.
struct Trace {
  std::string name;
  std::vector<TraceMessage> messages;
  std::uint32_t payloadBytes = 1024;  ///< a message becomes ceil(bytes / payloadBytes) packets
  double compression = 1;             ///< message times are divided by this factor
};

/// Trace CSV (docs/FORMATS.md "Simulation traces"): a header line `time,source,destination,bytes`,
/// then one message per line; time in cycles (a non-negative integer or decimal), source and
/// destination terminal names or indices, bytes a positive integer. Lines need not be sorted;
/// '#' starts a comment. Throws ParseError "<file>:<line>: ...", IoError.
Trace readTrace(const std::string& path, const Network& network);
Trace parseTrace(const std::string& text, const std::string& name, const Network& network);
/// Writes a trace in that format.
std::string formatTrace(const Trace& trace, const Network& network);

/// The synthetic I/O trace of docs/SIMULATION.md (Gómez Fig. 7 uses the cello traces, which
/// are not public): `storage` server terminals (the last ones) serve `clients` client
/// terminals; each client issues `requests` requests in bursts (geometric burst length of
/// mean `burst`, exponential gaps of mean `gap` cycles between bursts); a request is a small
/// message (64 bytes) to a uniformly chosen server, answered `service` cycles later by a
/// response of a size drawn from {4, 8, 16, 64, 256} KiB (reads) or a 64-byte acknowledgement
/// after a write request of that size (writes, probability `writes`). Throws SpecError.
struct IoTraceSpec {
  std::uint32_t storage = 23;
  std::uint32_t clients = 105;
  std::uint32_t requests = 200;
  double burst = 8;
  double gap = 20000;
  std::uint64_t service = 200;
  double writes = 0.3;
  std::uint64_t seed = 1;
};
Trace generateIoTrace(const Network& network, const IoTraceSpec& spec);
/// Parses "io:storage=23,clients=105,requests=200,burst=8,gap=20000,service=200,writes=0.3"
/// (core/options.h grammar; missing keys keep their defaults; the seed is given apart).
IoTraceSpec parseIoTraceSpec(const std::string& spec, std::uint64_t seed);

/// Progress of a long run: (cycles done, cycles expected) — called between two windows of
/// flyTime cycles, from one of the simulating threads (never two at once) every few
/// thousand cycles.
using SimProgress = std::function<void(std::uint64_t, std::uint64_t)>;

/// Run one simulation. With a trace, the traffic comes from it (config.traffic and load are
/// ignored; every message is delivered, the result's lastDelivery is the completion time).
SimResult simulate(const Network& network, const RoutingResult& routing, const SimConfig& config,
                   const Trace* trace = nullptr, const SimProgress& progress = {});

/// A latency–throughput curve: one simulation per load, the points run in parallel
/// (`threads`, 0 = every core; each point on config.threads threads); results in load
/// order, identical for any thread count.
/// `done(point)` is called as each point finishes (any thread, serialized).
std::vector<SimResult> simulateLoads(const Network& network, const RoutingResult& routing, const SimConfig& config,
                                     std::span<const double> loads, int threads,
                                     const std::function<void(std::size_t)>& done = {});

/// The saturation search's answer: the offered load of the highest point found unsaturated
/// and the simulation there (its accepted traffic is the saturation throughput); when even
/// the low end saturates, the low end and its (saturated) simulation.
struct SaturationPoint {
  double load = 0;
  SimResult result;
};

/// Saturation throughput (docs/SIMULATION.md): bisection on the offered load between `low`
/// and `high` for the highest load that is not saturated (SimResult::saturated), `steps`
/// halvings. The high end is run first (not saturated: it is the answer), then the low end
/// (saturated: it is the answer), then each halving's middle. `visited(index, load, result)`
/// is called after every simulation, index 0 the high end, 1 the low end, 2.. the halvings;
/// an exception it throws ends the search. Throws SpecError unless 0 < low < high <= 1.
SaturationPoint findSaturation(const Network& network, const RoutingResult& routing, const SimConfig& config,
                               double low = 0.01, double high = 1.0, int steps = 7,
                               const std::function<void(int, double, const SimResult&)>& visited = {});

/// The loads of "a:b:step" (inclusive of b within rounding). Throws SpecError.
std::vector<double> parseLoadRange(const std::string& text);

}  // namespace routelab
