// routelab/sim/engine.h — the event-driven engine behind simulate() (internal to the sim
// module). The model and its arbitration rules are sim/model.h's; this file is how they are
// computed quickly: a timing wheel of events per cycle in three phases (heads, credits and
// freed slots; switch allocation; link starts), wakes only for the switches and links whose
// state changed, and the generation times of the sources in a heap (phase 0). Every state
// change that can enable a grant or a link start schedules a wake at the cycle it takes
// effect, so a switch or link acts at exactly the cycles where the cycle-by-cycle model
// (tests/sim/reference_model.*) would.
#pragma once

#include <array>
#include <cstdint>
#include <queue>
#include <span>
#include <vector>

#include "core/random.h"
#include "routing/semantics.h"
#include "sim/model.h"
#include "sim/simulator.h"
#include "sim/traffic_source.h"

namespace routelab::sim {

struct Packet {
  std::uint64_t generated = 0;
  std::uint64_t injected = 0;
  std::uint64_t readyAt = 0;  ///< routing done at the current switch / available in the output queue
  std::uint64_t sequence = 0;
  std::uint32_t source = 0;
  std::uint32_t destination = 0;
  Address address = 0;
  std::uint32_t channel = 0;  ///< the channel whose queue (or wire) holds it
  std::uint32_t hops = 0;
  std::uint8_t layer = 0;
  std::uint8_t vc = 0;
  bool measured = false;
};

/// A message waiting at its source (one entry per packet).
struct Pending {
  std::uint64_t generated = 0;
  std::uint64_t sequence = 0;
  std::uint32_t destination = 0;
  std::uint32_t path = 0;  ///< LMC path (PathPolicy Random / RoundRobin: drawn at generation)
  bool measured = false;
};

/// A packet delivered before an earlier one of its pair (kept until the gap fills).
struct Held {
  std::uint32_t source = 0;
  std::uint64_t sequence = 0;
  std::uint64_t generated = 0;
  std::uint64_t injected = 0;
  std::uint64_t delivered = 0;
  std::uint32_t hops = 0;
  bool measured = false;
  bool released = false;  ///< already handed over (no in-order delivery: counted only)
};

/// Open-addressing map from a (source, destination) key to its sequence numbers (the
/// per-pair state of in-order tracking; std::unordered_map cost a sixth of the run time).
class PairTable {
 public:
  struct Entry {
    std::uint64_t key = kEmpty;
    std::uint64_t next = 0;      ///< sequence number of the pair's next generated packet
    std::uint64_t expected = 0;  ///< next sequence number to arrive in order
  };
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  /// Dense (one entry per pair, no hashing) when terminals^2 is at most `denseLimit`.
  explicit PairTable(std::size_t terminals, std::size_t denseLimit = std::size_t{1} << 20);
  Entry& at(std::uint32_t source, std::uint32_t destination) {
    if (dense_) return entries_[std::size_t{source} * terminals_ + destination];
    return find((std::uint64_t{source} << 32) | destination);
  }

 private:
  Entry& find(std::uint64_t key);
  void grow();
  std::size_t terminals_ = 0;
  bool dense_ = false;
  std::vector<Entry> entries_;
  std::size_t size_ = 0;
};

class Engine {
 public:
  Engine(const Network& network, const RoutingResult& routing, const SimConfig& config, const Trace* trace);
  SimResult run(const SimProgress& progress);

 private:
  enum : std::uint64_t { kArrive = 0, kCredit = 1, kOutFree = 2, kDeliver = 3 };
  static constexpr int kPhaseEvents = 0, kPhaseSwitches = 1, kPhaseLinks = 2;

  void setUpNetwork();
  void setUpTraffic();
  void schedule(std::uint64_t time, int phase, std::uint64_t event);
  void wakeSwitch(std::uint32_t switchIndex, std::uint64_t time);
  void wakeLink(std::uint32_t channel, std::uint64_t time);
  void generate(std::uint32_t terminal);
  void enqueueMessage(std::uint32_t terminal, std::uint32_t destination, std::uint32_t packets, bool measured);
  void processEvent(std::uint64_t event);
  void arrive(std::uint32_t packetId);
  void deliver(std::uint32_t packetId);
  void release(const Held& packet, std::uint32_t destination);
  void allocateSwitch(std::uint32_t switchIndex);
  bool allocatePort(std::uint32_t switchIndex, std::uint32_t inChannel);
  struct Candidate;
  std::span<const Candidate> candidatesOf(std::uint32_t packetId, std::uint32_t switchIndex, std::uint32_t inChannel);
  bool tryGrant(std::uint32_t switchIndex, std::uint32_t inChannel, std::uint32_t vc);
  void startLink(std::uint32_t channel);
  void startInjection(std::uint32_t channel, std::uint32_t terminal);
  void transmit(std::uint32_t channel, std::uint32_t packetId, std::uint32_t vc);
  void runCycle();
  bool finished();
  void updateWarmup();
  void checkInvariants() const;
  void findDeadlock();
  SimResult collect();

  // ---- the fabric ----
  const Network& network_;
  RoutingSemantics semantics_;
  SimConfig config_;
  const Trace* trace_;
  std::uint32_t terminals_ = 0, channels_ = 0, vcs_ = 0, layers_ = 0, slots_ = 0, flits_ = 0;
  std::vector<std::uint8_t> targetIsSwitch_;  // per channel
  std::vector<std::uint32_t> targetIndex_;    // per channel: switch or terminal index of its target
  std::vector<std::uint32_t> sourceIndex_;    // per channel: switch or terminal index of its source
  std::vector<std::uint8_t> sourceIsSwitch_;
  std::vector<std::uint32_t> inPortOffset_, inPorts_;  // per switch: channels into it, by port
  std::vector<std::uint32_t> inPortIndex_;             // per channel into a switch: its place in inPorts_
  std::vector<std::uint32_t> injection_;               // per terminal: its injection channel
  // ---- state per channel and per (channel, VC) ----
  std::vector<std::uint64_t> linkBusy_, crossbarInBusy_, crossbarOutBusy_;
  std::vector<std::uint8_t> linkNextVc_, inputNextVc_;
  std::vector<std::uint16_t> credits_;             // sender side, per (channel, VC)
  std::vector<std::uint32_t> inQueue_, outQueue_;  // rings of slots_ packet ids per (channel, VC)
  std::vector<std::uint16_t> inHead_, inSize_, outHead_, outSize_, outOccupied_;
  std::vector<std::uint32_t> nextInputPort_;          // per switch
  std::vector<std::uint64_t> switchWake_, linkWake_;  // last cycle a wake was scheduled for
  std::vector<Rng> switchRng_;
  std::vector<HopChoice> choices_;
  struct Candidate {
    std::uint32_t channel;
    std::uint8_t vc;  // cached candidates: unused (the layer's VCs are tried in turn)
    std::uint8_t layer;
    PortNumber port;
  };
  static constexpr std::uint8_t kNotRouted = 0xff;
  static constexpr std::size_t kCachedCandidates = 16;
  std::vector<Candidate> overflow_;
  std::vector<Candidate> free_;
  // The candidates of each packet at its current switch, computed once per hop (a blocked
  // packet is retried at every wake of its switch): capacity_ per packet id.
  std::vector<Candidate> packetCandidates_;
  std::vector<std::uint8_t> packetCandidateCount_;  // kNotRouted until computed
  std::size_t capacity_ = 0;
  // Which input ports of a switch (bit per port, radix <= 64) and which VCs of a channel
  // hold packets: the allocator visits only those.
  std::vector<std::uint64_t> busyInputs_, busyVcs_;
  bool narrow_ = true;  // every switch has at most 64 ports
  // ---- traffic ----
  DestinationSource destinations_;
  std::vector<Rng> terminalRng_;
  std::vector<std::vector<Pending>> sourceQueue_;
  std::vector<std::size_t> sourceHead_;
  std::vector<std::uint32_t> nextPath_;  // round-robin path policy, per terminal
  std::vector<double> poissonClock_;
  using Generation = std::pair<std::uint64_t, std::uint32_t>;
  std::priority_queue<Generation, std::vector<Generation>, std::greater<>> generations_;
  double messageRate_ = 0;
  std::size_t traceNext_ = 0;
  PairTable pairs_{0};
  std::vector<std::vector<Held>> held_;              // per destination
  std::vector<std::uint32_t> outstanding_;           // in-order: per destination
  std::vector<std::vector<std::uint32_t>> waiting_;  // in-order: sources blocked per destination
  // ---- packets ----
  std::vector<Packet> packets_;
  std::vector<std::uint32_t> freePackets_;
  // ---- time ----
  std::uint64_t now_ = 0;
  std::uint64_t mask_ = 0;
  std::vector<std::array<std::vector<std::uint64_t>, 3>> wheel_;
  std::uint64_t pendingEvents_ = 0;
  std::uint64_t lastMove_ = 0;
  std::uint64_t windowStart_ = 0, windowEnd_ = 0, stopAt_ = 0;
  bool warmupDone_ = false, generating_ = true, deadlock_ = false;
  std::uint64_t warmupCheck_ = 0;
  double warmupSum_ = 0, warmupPrevious_ = -1;
  std::uint64_t warmupCount_ = 0;
  int warmupStable_ = 0;
  // ---- statistics ----
  std::uint64_t generated_ = 0, injected_ = 0, delivered_ = 0, released_ = 0;
  std::uint64_t measuredGenerated_ = 0, measuredDelivered_ = 0, windowFlitsDelivered_ = 0;
  std::uint64_t outOfOrder_ = 0, maxHeld_ = 0, lastDelivery_ = 0, hopSum_ = 0;
  std::vector<double> latencies_, totalLatencies_;
  double reorderDelaySum_ = 0;
  std::vector<std::uint64_t> channelFlits_;
  std::vector<PacketRecord> records_;
  DeadlockReport deadlockReport_;
};

}  // namespace routelab::sim
