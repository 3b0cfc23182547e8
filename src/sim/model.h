// routelab/sim/model.h — the configuration and the results of the flit-level simulator.
//
// The network model (Gómez et al. 2007 §5.1 by default; docs/SIMULATION.md has the whole
// contract with a timing diagram):
//
//  * A cycle is the time one flit takes to cross a link (link and crossbar bandwidth: one
//    flit per cycle). Every packet has `packetFlits` flits (a message's last packet is
//    padded), so a packet occupies a link or a crossbar port for packetFlits cycles.
//  * Virtual cut-through: a packet may leave a buffer as soon as its head is there and the
//    next buffer has room for the WHOLE packet; its flits then follow one per cycle, so a
//    packet is never split between two switches that block it.
//  * Buffers: at every switch input port and output port, one queue per virtual channel of
//    `bufferPackets` packets (Gómez: "each port link has a two-packet buffer"). Terminals
//    sink at link rate (their input is never full); a terminal's source queue is unbounded.
//  * Credits: the sender of a channel holds one credit per free packet slot of the input
//    queue at the far end, per virtual channel. The credit of a packet returns `flyTime`
//    cycles after its last flit left that queue (the same fly time as data).
//  * Timing: a packet that starts on a link at cycle t has its head in the next input queue
//    at t + flyTime (its tail at t + flyTime + packetFlits - 1); the link is free at
//    t + packetFlits. Routing and selection take `routingDelay` cycles from the head's
//    arrival. At cycle g >= arrival + routingDelay the front packet of an input queue may
//    cross the crossbar if its input port and the output port are idle and the chosen
//    output queue has a free slot; the crossing takes packetFlits cycles; the head is in the
//    output queue from g + 1 and the input slot's credit reaches the sender at
//    g + packetFlits - 1 + flyTime; the output slot is free again packetFlits cycles after
//    the packet started on the output link. A packet is delivered when its tail reaches the
//    destination terminal.
//  * Virtual channels: the routing's layers map onto the VCs (VC v serves layer v mod
//    layers; `vcs` = 0 means one VC per layer). A packet stays in its layer (layered
//    routings), or moves between layers only where the routing semantics allows it (escape
//    routings, routing/semantics.h); within its layer it may take any of the layer's VCs.
//  * Arbitration, fixed so that the result does not depend on the order of simultaneous
//    events (and a cycle-by-cycle model reproduces it exactly): each cycle has four phases —
//    (0) new packets enter source queues; (1) heads, credits and freed slots arrive;
//    (2) every switch grants its crossbar (SimConfig::arbitration); (3) every link (in
//    channel order) starts its next packet: the VCs of its output queue in round-robin
//    order, the first whose front packet is available and has a credit.
//  * Switch allocation (phase 2), Arbitration::RoundRobin and Age — a separable, input-first
//    allocator of one iteration (BookSim2's separable_input_first, Dally & Towles 2004
//    §19.3): every idle input port makes at most one request, from the state at the start of
//    the phase — its VCs in round-robin order (from the VC after the last one granted), the
//    first whose front packet has a free choice (the selection function's choice among the
//    (port, VC) candidates whose output queue has a slot and whose output port is idle);
//    then every output port grants one of its requests: RoundRobin the input port first in
//    cyclic order from the port after the one it granted last, Age the oldest packet (the
//    earliest generated; ties: the earliest injected, then the lower source terminal). A
//    refused input asks again the next cycle. Injection ports and transit ports are input
//    ports alike. Arbitration::SwitchRoundRobin is the greedy rule of earlier versions: the
//    input ports one after another from the port after the last one granted in the previous
//    pass (one pointer per switch), each granted at once its selection among what is still
//    free — the ports after a busy one keep priority for every output, and a source can
//    starve (docs/SIMULATION.md "Arbitration and fairness").
//
// The routes come only from the routing-semantics core (routing/semantics.h): injection
// layers and addresses, and hopChoices() at every hop; the simulator never computes or
// re-interprets a route.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/limits.h"

namespace routelab {

/// How a switch picks among the free candidates of an adaptive routing (Gómez §5.1). Each is
/// a component of sim/selection/ (its contract: sim/selection/selection.h), one row of
/// sim/selection/registry.h in this order.
enum class Selection : std::uint8_t {
  FirstFree,      ///< FF: the free candidate on the lowest port number
  Sadp,           ///< SADP: the routing's preferred candidate when free, else the next free one
  Random,         ///< uniformly among the free candidates (seeded per switch)
  LeastOccupied,  ///< the free candidate whose output queue holds the fewest packets (ties: preference)
  /// Oblivious: one candidate drawn uniformly per packet and hop, free or not, which the
  /// packet then waits for (BookSim2's fat-tree `nca`); the draw is a hash of the seed, the
  /// packet (source, injection count) and its hop, so it does not depend on when it is made.
  Oblivious,
  /// The free candidate with the fewest packets in its output queue plus the next switch's
  /// input queue (the slots its credits say are taken); ties: the routing's order.
  LeastCongested,
};

/// How a switch grants its crossbar among the inputs that request it (model above;
/// docs/SIMULATION.md "Arbitration and fairness").
/// Each is a component of sim/arbitration/ (its contract: sim/arbitration/arbiter.h), one
/// row of sim/arbitration/registry.h in this order.
enum class Arbitration : std::uint8_t {
  RoundRobin,        ///< separable input-first; each output port round-robin over its input ports
  Age,               ///< separable input-first; each output port to its oldest packet
  SwitchRoundRobin,  ///< greedy, inputs in turn from one round-robin pointer per switch (unfair)
};

/// How a source with several paths to a destination (LMC, MP-LASH) picks one per packet.
enum class PathPolicy : std::uint8_t {
  Random,      ///< uniformly (seeded per source)
  RoundRobin,  ///< the next path of the pair in turn
  Adaptive,    ///< the path whose injection VC has the most credits (ties: round robin)
};

/// Packet generation process at every source.
enum class Injection : std::uint8_t {
  Bernoulli,  ///< each cycle a new message with probability load / (packetFlits x messagePackets)
  Poisson,    ///< exponential inter-arrival times of mean messageFlits / load, rounded down to cycles
};

struct SimConfig {
  // ---- network model (Gómez §5.1 defaults) ----
  std::uint32_t packetFlits = 8;
  std::uint32_t bufferPackets = 2;  ///< per VC, at every input and output port
  std::uint32_t routingDelay = 20;  ///< cycles from head arrival to the crossbar request
  std::uint32_t flyTime = 8;        ///< cycles a flit (and a credit) spends on a link
  std::uint32_t vcs = 0;            ///< virtual channels per link; 0 = one per routing layer
  Selection selection = Selection::Sadp;
  Arbitration arbitration = Arbitration::RoundRobin;
  PathPolicy pathPolicy = PathPolicy::Random;
  // ---- traffic ----
  std::string traffic = "uniform";  ///< uniform | uniform-hot-spot:fraction=F[,target=T] | a pattern spec
  double load = 0.1;                ///< offered load, flits per terminal per cycle
  Injection injection = Injection::Bernoulli;
  std::uint32_t messagePackets = 1;  ///< packets per message
  // ---- in-order delivery (Gómez §5.1) ----
  bool inOrder = false;               ///< reorder at the destination + end-to-end flow control
  std::uint32_t reorderPackets = 64;  ///< reorder buffer per destination, in packets
  // ---- measurement ----
  std::uint64_t warmupCycles = 0;  ///< 0 = automatic (docs/SIMULATION.md: stability criterion)
  std::uint64_t measureCycles = 10000;
  std::uint64_t drainCycles = 0;  ///< after measuring, wait at most this long for measured packets (0 = 4 x measure)
  std::uint64_t watchdogCycles = 20000;  ///< packets in flight, none moved for this long -> deadlock
  std::uint64_t seed = 1;
  // ---- testing ----
  bool checkInvariants = false;  ///< check credits, queue bounds and conservation every cycle (slow)
  bool recordPackets = false;    ///< keep every delivered packet's times (SimResult::packets)
  /// Stop generating after `measure` and run until the network is empty (conservation tests
  /// and traces): every generated packet must be delivered.
  bool drainAll = false;
  // ---- execution ----
  /// Threads for this one simulation (0 = every hardware thread): the switches, each with
  /// its terminals, are split into that many contiguous blocks simulated in parallel in
  /// windows of flyTime cycles (docs/SIMULATION.md "Parallel engine"). The result is the
  /// same for every value. In-order delivery needs 1 (SpecError otherwise).
  std::uint32_t threads = 1;
  /// The engine's memory policy (sim/memory_policy.h; docs/SIMULATION.md "How the engine
  /// computes it"): Auto takes Streaming — a cycle's events grouped by switch, each switch
  /// allocating right after its own events, lazy credits, requests ahead — on fabrics whose
  /// channel records outgrow the caches (over 2 MiB), else CacheResident; Always and Never
  /// force Streaming and CacheResident on any fabric. Never changes a result (the tests run
  /// every way).
  enum class Grouping { Auto, Always, Never };
  Grouping grouping = Grouping::Auto;
  /// What the structures that grow with a run may take, in bytes (all blocks together): the
  /// sources' queues (a saturated run's offered load piles up there without bound) and the
  /// pairs' sequence numbers. A run that would pass it stops with a LimitError naming the
  /// structure, before allocating (docs/RELIABILITY.md, Limits). Tests lower it.
  std::uint64_t memoryBudgetBytes = kMemoryBudgetBytes;
};

/// One delivered packet (recordPackets).
struct PacketRecord {
  std::uint32_t source = 0;  ///< terminal indices
  std::uint32_t destination = 0;
  std::uint64_t sequence = 0;  ///< per (source, destination)
  std::uint64_t generated = 0;
  std::uint64_t injected = 0;   ///< its head started on the injection link
  std::uint64_t delivered = 0;  ///< its tail reached the destination
  std::uint64_t released = 0;   ///< handed to the application (after reordering)
  std::uint32_t hops = 0;       ///< links crossed, injection and ejection included
  bool operator==(const PacketRecord&) const = default;
};

/// The channels and packets of a deadlock (SimResult::deadlock).
struct DeadlockReport {
  std::uint64_t cycle = 0;  ///< when the watchdog fired
  std::uint64_t lastMove = 0;
  /// A cycle of (channel, VC) queues, each full and waiting for the next: "channel c vc v".
  std::vector<std::string> channels;
  /// The packets at the fronts of those queues, by id: source terminal x 2^32 + the number of
  /// packets that source injected before it.
  std::vector<std::uint64_t> packets;
};

struct SimResult {
  std::uint64_t cycles = 0;  ///< simulated cycles
  std::uint64_t warmupCycles = 0;
  std::uint64_t measureCycles = 0;
  double offered = 0;     ///< flits generated per terminal per cycle in the window
  double accepted = 0;    ///< flits delivered per terminal per cycle in the window
  double latencyAvg = 0;  ///< network latency (injection to tail delivery), measured packets
  double latencyP50 = 0;
  double latencyP99 = 0;
  double latencyMax = 0;
  double totalLatencyAvg = 0;  ///< generation to release (source queueing and reordering included)
  double totalLatencyP99 = 0;
  double reorderDelayAvg = 0;  ///< release - delivery, over measured packets
  std::uint64_t packetsGenerated = 0;
  std::uint64_t packetsInjected = 0;
  std::uint64_t packetsDelivered = 0;
  std::uint64_t measuredPackets = 0;      ///< generated in the window
  std::uint64_t measuredDelivered = 0;    ///< of those, delivered before the run ended
  std::uint64_t outOfOrder = 0;           ///< arrivals before an earlier packet of the same pair
  std::uint64_t maxReorderOccupancy = 0;  ///< packets held by one destination's reorder buffer
  std::uint64_t lastDelivery = 0;         ///< cycle of the last delivery (trace completion time)
  double averageHops = 0;
  /// Per-source accepted throughput: each source's flits delivered in the window / window
  /// cycles, over the sources (terminals that generated a packet in the window): the least,
  /// the most, and Jain's fairness index (sum x)^2 / (n sum x^2) (1: all equal; 1/n: one
  /// source takes all). 0 when no source generated in the window.
  double sourceAcceptedMin = 0;
  double sourceAcceptedMax = 0;
  double sourceFairness = 0;
  std::uint32_t sources = 0;  ///< how many sources those are
  /// Per terminal (index order): its accepted throughput, or -1 when it is not a source.
  std::vector<double> sourceAccepted;
  /// Automatic warm-up (SimConfig::warmupCycles 0): its latency settled before the cap of
  /// 10 windows of 1,000 cycles. False: the network is not stable at this load (saturated).
  bool warmupSettled = true;
  /// accepted < 0.95 x offered, measured packets left undelivered, a warm-up that never
  /// settled, or a deadlock.
  bool saturated = false;
  bool deadlock = false;
  DeadlockReport deadlockReport;
  std::uint32_t vcs = 0;
  /// Flits sent per channel during the window / window cycles (channel index order).
  std::vector<double> channelUtilization;
  /// recordPackets: in release order (ties: by destination, source, sequence).
  std::vector<PacketRecord> packets;
};

}  // namespace routelab
