// routelab/sim/engine.h — the event-driven engine behind simulate() (internal to the sim
// module). The model and its arbitration rules are sim/model.h's; this file is how they are
// computed quickly: a timing wheel of events per cycle in three phases (heads, credits and
// freed slots; switch allocation; link starts), wakes only for the switches and links whose
// state changed, and the generation times of the sources in a calendar (phase 0). Every state
// change that can enable a grant or a link start schedules a wake at the cycle it takes
// effect, so a switch or link acts at exactly the cycles where the cycle-by-cycle model
// (sim/reference/reference_model.h) would.
//
// Parallel runs (SimConfig::threads, docs/SIMULATION.md "Parallel engine"): the switches,
// each with its terminals, are split into contiguous blocks, one Engine per block. An engine
// touches only the state of its own switches, terminals and the channels they send on (the
// input queues of a channel belong to its target). Every interaction between blocks — a
// packet's head arriving over a link, a credit returning — takes at least flyTime cycles, so
// the engines run windows of flyTime cycles independently and exchange those events through
// mailboxes between windows (runPartitioned). Every decision that needs the whole network
// (warm-up, stop, watchdog, idle jumps) is taken between windows, with the same rule for one
// engine, so the result does not depend on the number of blocks.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <new>
#include <queue>
#include <span>
#include <vector>

#include "core/bulk_allocator.h"
#include "core/limits.h"
#include "core/random.h"
#include "routing/semantics.h"
#include "sim/arbitration/registry.h"
#include "sim/channel_state.h"
#include "sim/channel_store.h"
#include "sim/credit_flow.h"
#include "sim/in_order_delivery.h"
#include "sim/latency_histogram.h"
#include "sim/measurement_window.h"
#include "sim/memory_policy.h"
#include "sim/model.h"
#include "sim/partitioning.h"
#include "sim/selection/registry.h"
#include "sim/simulator.h"
#include "sim/traffic_source.h"
#include "sim/watchdog.h"
#include "sim/work_list.h"

namespace routelab::sim {

/// The candidate reference (Engine::route_) of a packet not yet routed at its current switch.
inline constexpr std::uint32_t kNotRouted = ~std::uint32_t{0};

/// One cache line: a hop reads and writes a packet once.
struct alignas(64) Packet {
  std::uint64_t serial = 0;  ///< canonical id: source terminal << 32 | its injection count
  std::uint64_t generated = 0;
  std::uint64_t injected = 0;
  std::uint64_t readyAt = 0;  ///< routing done at the current switch (in an input queue)
  std::uint64_t sequence = 0;
  std::uint32_t source = 0;
  std::uint32_t destination = 0;
  Address address = 0;
  std::uint32_t channel = 0;  ///< the channel whose input queue (or wire) holds it (set at transmit)
  std::uint32_t hops = 0;
  std::uint8_t layer = 0;  ///< of its VC (transmit)
  std::uint8_t vc = 0;
  bool measured = false;
};
static_assert(sizeof(Packet) == 64);

/// A message waiting at its source (one entry per packet).
struct Pending {
  std::uint64_t generated = 0;
  std::uint64_t sequence = 0;
  std::uint32_t destination = 0;
  std::uint32_t path = 0;  ///< LMC path (PathPolicy Random / RoundRobin: drawn at generation)
  bool measured = false;
};

/// Which memory policy a run takes (sim/memory_policy.h): Streaming where config.grouping is
/// Always, or Auto and the channel records (sim/channel_store.h) exceed 2 MiB — more than a
/// core's cache — and every switch and terminal key fits an event's owner field; else
/// CacheResident. The same for every block of a partitioned run.
bool streams(const Network& network, const RoutingSemantics& semantics, const SimConfig& config);

/// The fast engine. Policy: CacheResident or Streaming (sim/memory_policy.h), both
/// instantiated in engine.cpp; the member definitions are in
/// engine_hop.h (events, allocation, links), engine_run.h (the cycle loop and the decisions
/// between windows), engine_setup.h, engine_routing.h and engine_checks.h.
template <class Policy>
class Engine {
 public:
  /// The engine of block `block` of `partitioning` (both must outlive it, as must semantics).
  Engine(const Network& network, const RoutingSemantics& semantics, const SimConfig& config, const Trace* trace,
         const Partitioning& partitioning, std::uint32_t block);
  /// The owner keys an event can carry (switches + terminals must stay below it to stream).
  static constexpr std::uint64_t ownerLimit() { return kOwnerLimit; }
  /// Runs the engines of every block of one partitioning to the end, one thread per block;
  /// the result does not depend on how many blocks there are.
  static SimResult runPartitioned(std::span<Engine* const> engines, const SimProgress& progress);

 private:
  // An event is kind << kKindShift | owner << kOwnerShift | payload. Kinds:
  //  kArrive: a head that reached an input queue finished its routing delay; kCredit: a
  //  credit reaches the sender; kOutFree: an output queue slot is free again; kDeliver: a
  //  tail reaches its terminal; kInFree: a crossbar input (and the output its packet used)
  //  is idle again, scheduled only where an input waits for it (tryGrant, headReady,
  //  wakeWhenFree); handling it any time is harmless (inputFree checks the input).
  // The payload is a packet id, a channel, or a queue as channel << kVcBits | vc. The owner
  // is the key of the switch (its index) or terminal (switches + its index) whose state the
  // event changes; runCycle() handles a cycle's events grouped by owner (0 for all when the
  // keys do not fit: one group).
  enum : std::uint64_t { kArrive = 0, kCredit = 1, kOutFree = 2, kDeliver = 3, kInFree = 5 };
  static constexpr std::uint64_t kKindShift = 60, kOwnerShift = 36;
  static constexpr std::uint64_t kPayloadMask = (std::uint64_t{1} << kOwnerShift) - 1;
  static constexpr std::uint64_t kOwnerLimit = std::uint64_t{1} << (kKindShift - kOwnerShift);
  static constexpr std::uint32_t kVcBits = 6;  // vcs <= 64
  static constexpr std::uint64_t queueKey(std::uint32_t channel, std::uint32_t vc) {
    return std::uint64_t{channel} << kVcBits | vc;
  }
  /// The channel and the VC of a queueKey().
  static constexpr std::uint32_t channelOfKey(std::uint64_t key) { return static_cast<std::uint32_t>(key >> kVcBits); }
  static constexpr std::uint32_t vcOfKey(std::uint64_t key) {
    return static_cast<std::uint32_t>(key & ((std::uint64_t{1} << kVcBits) - 1));
  }
  /// The event of `kind` for `payload`, owned by switch (or terminal key) `owner`.
  std::uint64_t makeEvent(std::uint64_t kind, std::uint64_t owner, std::uint64_t payload) const {
    return kind << kKindShift | (Policy::kGrouped ? owner << kOwnerShift : 0) | payload;
  }
  static constexpr std::uint64_t payloadOf(std::uint64_t event) { return event & kPayloadMask; }
  static constexpr std::uint64_t kindOf(std::uint64_t event) { return event >> kKindShift; }
  /// The owner key of the sender of `channel` (a switch, or a terminal for an injection channel).
  std::uint64_t senderKey(std::uint32_t channel) const {
    return chan(channel).sourceIsSwitch ? chan(channel).sourceIndex : switchCount_ + chan(channel).sourceIndex;
  }
  void groupEvents(WorkList& events);
  void runGrouped(WorkList& events, const WorkList& switches);
  std::size_t allocateWoken(const WorkList& switches, std::size_t from);
  /// The owner key of an event (Policy::kGrouped; 0 otherwise).
  static constexpr std::uint64_t ownerOf(std::uint64_t event) { return (event >> kOwnerShift) & (kOwnerLimit - 1); }
  /// The counting-sort bucket of an event's owner.
  std::uint64_t bucketOf(std::uint64_t event) const { return ownerOf(event) >> bucketShift_; }
  // A wheel bucket's lists: the events by kind (all in list kPhaseEvents when Policy::kGrouped), the
  // switches to allocate, the links to start. Ungrouped, a cycle's events run kind by kind
  // (processEventsOf): events commute, and one kind at a time needs no dispatch on the kind.
  static constexpr int kPhaseEvents = 0, kPhaseSwitches = 6, kPhaseLinks = 7, kLists = 8;
  void scheduleEvent(std::uint64_t time, std::uint64_t event) {
    schedule(time, Policy::kGrouped ? kPhaseEvents : static_cast<int>(kindOf(event)), event);
  }

  void setUpNetwork();
  void setUpRecords();
  void setUpSwitches();
  /// resolved_ and resolution_ (after setUpSwitches: the exits).
  void setUpResolution();
  void setUpGrouping();
  void setUpTraffic();
  void schedule(std::uint64_t time, int phase, std::uint64_t event);
  void wakeSwitch(std::uint32_t switchIndex, std::uint64_t time);
  void wakeLink(std::uint32_t channel, std::uint64_t time);
  /// wakeLink if `take`, without a branch on it.
  void wakeLinkIf(bool take, std::uint32_t channel, std::uint64_t time);
  void wakeSwitchIfReady(std::uint32_t switchIndex);
  void generate(std::uint32_t terminal);
  /// generate() with the destination drawn already (from the terminal's stream, first).
  void generateTo(std::uint32_t terminal, std::uint32_t destination);
  static constexpr std::size_t kGenerationsAhead = 8;  // runGenerations, beyond the caches
  std::vector<std::uint32_t> drawn_;                   // runGenerations: the destinations drawn ahead
  /// A message waits in the source queue of `terminal`.
  bool messageWaits(std::uint32_t terminal) const { return sourceHead_[terminal] != sourceQueue_[terminal].size(); }
  /// Throws LimitError when the source queues, grown to `capacity` at one terminal, would
  /// pass the block's share of SimConfig::memoryBudgetBytes.
  [[gnu::noinline]] void checkSourceQueues(std::size_t capacity) const;
  void enqueueMessage(std::uint32_t terminal, std::uint32_t destination, std::uint32_t packets, bool measured);
  void processEvent(std::uint64_t event);
  /// The event of kind Kind with `payload` (processEvent without the dispatch on the kind).
  template <std::uint64_t Kind>
  void processEventOf(std::uint64_t payload);
  /// Every event of one kind's list (runCycle, ungrouped).
  template <std::uint64_t Kind>
  void processEventsOf(const WorkList& events);
  // The prefetch stages are always inlined: a function whose only effects are prefetches
  // reads memory and changes nothing, so GCC's interprocedural analysis finds it pure and
  // deletes every call to it.
  /// Requests the first `lines` cache lines of channel c's record (ChannelStore::prefetch).
  [[gnu::always_inline]] void prefetchRecord(std::uint32_t c, std::uint32_t lines) const { store_.prefetch(c, lines); }
  /// The lines of a record that a switch's hop reads: its state and the first VC blocks.
  std::uint32_t hopRecordLines() const { return std::min(store_.recordLines(), 3U); }
  /// The first prefetch stage: an event's packet or channel record.
  [[gnu::always_inline]] inline void prefetchEvent(std::uint64_t event) const;
  /// The second prefetch stage (runGrouped), from the packet that prefetchEvent requested:
  /// for a head's arrival, its channel record, VC block, candidate reference and what its
  /// routing reads at the switch; for a delivery, its pair's sequence-number entry.
  [[gnu::always_inline]] inline void prefetchEventTarget(std::uint64_t event) const;
  /// The second prefetch stage of the link phase: the packet at the head of the output queue
  /// the link tries first, or for an injection channel the message at the front of its
  /// terminal's source queue (the record requested earlier).
  [[gnu::always_inline]] inline void prefetchLinkHead(std::uint32_t channel) const;
  void arrive(std::uint32_t packetId);
  void headReady(std::uint32_t inChannel, std::uint32_t vc);
  void inputFree(std::uint32_t inChannel);
  /// A tail reached its terminal: the packet goes to delivery_ (sim/in_order_delivery.h).
  void deliver(std::uint32_t packetId);
  /// delivery_ hands `packet` to the application at its destination: its statistics.
  void release(const Held& packet, std::uint32_t destination);
  void allocateSwitch(std::uint32_t switchIndex);
  bool allocatePort(std::uint32_t switchIndex, std::uint32_t inChannel);
  /// Arbitration::RoundRobin and Age (model.h): every idle input's request from the state
  /// at the start of the phase, then each output's grant; a refused input wakes the switch
  /// for the next cycle.
  void allocateSeparable(std::uint32_t switchIndex);
  struct Request;
  /// Whether request a wins output a.chosen.channel over request b (the same output).
  bool beats(const Request& a, const Request& b, std::uint32_t ports) const;
  struct Candidate;
  /// The candidates of a packet at its current switch: those kept with it, or routeHere().
  std::span<const Candidate> candidatesOf(std::uint32_t packetId, std::uint32_t switchIndex, std::uint32_t inChannel) {
    const std::uint32_t ref = route_[packetId];
    if (ref != kNotRouted) {
      if ((ref & kResolvedRef) != 0) return {&resolved_[(ref & ~kResolvedRef) >> kRefCountBits], ref & kRefCountMask};
      return {&packetCandidates_[std::size_t{packetId} * capacity_], ref};
    }
    return routeHere(packetId, switchIndex, inChannel);
  }
  /// Asks the routing for the packet's candidates at this switch (kept with it when they fit).
  [[gnu::noinline]] std::span<const Candidate> routeHere(std::uint32_t packetId, std::uint32_t switchIndex,
                                                         std::uint32_t inChannel);
  [[noreturn]] void unusableChoice(const Packet& packet, std::uint32_t switchIndex, PortNumber port) const;
  /// A packet sent into a terminal other than its destination (every choice is checked when
  /// it is made: an internal error). Throws.
  [[noreturn, gnu::noinline]] void wrongTerminal(const Packet& packet, std::uint32_t channel) const;
  /// A packet that crossed more links than the fabric has channels has crossed one twice:
  /// the routing loops (livelock; a trace or drained run would never end). Throws.
  [[noreturn, gnu::noinline]] void routingLoop(const Packet& packet, std::uint32_t channel) const;
  bool tryGrant(std::uint32_t switchIndex, std::uint32_t inChannel, std::uint32_t vc);
  /// The request of input queue (inChannel, vc): its front packet's selection among the
  /// free choices (`chosen`; its id in `packetId`). False, with a wake asked for when one of
  /// its candidates frees (wakeWhenFree), when none is free.
  bool request(std::uint32_t switchIndex, std::uint32_t inChannel, std::uint32_t vc, Candidate& chosen,
               std::uint32_t& packetId);
  /// The grant of that request: the packet crosses to `chosen`.
  void grant(std::uint32_t switchIndex, std::uint32_t inChannel, std::uint32_t vc, std::uint32_t packetId,
             const Candidate& chosen);
  /// An input of the switch was refused: a kInFree at the earliest cycle one of the
  /// `candidates` with a free VC of its layer stops being busy (none when no such candidate is
  /// busy: a freed slot, kOutFree, wakes the switch), unless the switch's latest such event is
  /// for the same cycle (failWake_).
  [[gnu::noinline]] void wakeWhenFree(std::uint32_t switchIndex, std::uint32_t inChannel,
                                      std::span<const Candidate> candidates);
  bool select(std::span<const Candidate> candidates, std::uint32_t switchIndex, std::uint32_t packetId,
              Candidate& chosen);
  /// The VCs of the candidate's layer whose output queue has a free slot (whether its
  /// crossbar output is idle aside): what select() and wakeWhenFree() both test.
  std::uint64_t slotVcs(const Candidate& candidate) const {
    return chan(candidate.channel).outFreeVcs & layerVcs_[candidate.layer];
  }
  void startLink(std::uint32_t channel);
  /// The VC the link of `channel` sends from now (vcs_: none can send).
  std::uint32_t sendableVc(std::uint32_t channel);
  void startInjection(std::uint32_t channel, std::uint32_t terminal);
  void wakeForCredit(std::uint32_t channel);
  /// The link of `channel` starts sending the packet from output queue `vc` at cycle `at`
  /// (now_, or now_ + 1 for a grant's direct send: tryGrant).
  void transmit(std::uint32_t channel, std::uint32_t packetId, std::uint32_t vc, std::uint64_t at);
  void runCycle();
  void runWindow(std::uint64_t end);
  std::uint64_t nextSourceTime() const;
  std::uint32_t allocatePacket();
  // Out of line (rare on one block; keeps the hot transmit() small).
  [[gnu::noinline]] void post(std::uint32_t block, std::uint64_t time, std::uint64_t event, const Packet* packet);
  [[gnu::noinline]] void sendPacket(std::uint32_t block, std::uint64_t time, std::uint64_t event,
                                    std::uint32_t packetId);
  void absorb(std::span<Engine* const> engines, std::uint32_t parity);
  struct Control;
  static bool decide(std::span<Engine* const> engines, Control& control);
  static void updateWarmup(std::span<Engine* const> engines, Control& control);
  struct Totals;
  /// Every block's counters, added up (and what is still pending, with the outboxes of `parity`).
  static Totals sumTotals(std::span<Engine* const> engines, std::uint32_t parity);
  static bool finished(std::span<Engine* const> engines, const Control& control, const Totals& totals);
  /// Before the run moves on to cycle `to`: every lazy credit counted in, if `to` reaches the
  /// next fold cycle (all of them when `to` lies past every credit's cycle).
  static void foldCreditsBefore(std::span<Engine* const> engines, Control& control, std::uint64_t to);
  static void checkInvariants(std::span<Engine* const> engines);
  void checkReady(std::uint32_t channel, std::uint32_t vc) const;
  /// The last cycle whose events have run, as the checks see it: now_ when one engine checks
  /// itself after a cycle, now_ - 1 between the windows of a partitioned run.
  std::uint64_t lastCycleRun() const { return partitioning_.count == 1 ? now_ : now_ - 1; }
  static void findDeadlock(std::span<Engine* const> engines, Control& control, std::uint64_t lastMove);
  static SimResult collect(std::span<Engine* const> engines, const Control& control);

  // ---- the fabric ----
  const Network& network_;
  const RoutingSemantics& semantics_;
  SimConfig config_;
  const Trace* trace_;
  std::uint32_t terminals_ = 0, channels_ = 0, vcs_ = 0, layers_ = 0, slots_ = 0, flits_ = 0;
  std::vector<std::uint32_t> inPorts_;    // per switch (SwitchState::portBegin, ports): channels into it, by port
  std::vector<std::uint32_t> injection_;  // per terminal: its injection channel
  // ---- partitioning ----
  const Partitioning& partitioning_;
  std::uint32_t block_ = 0;
  // Per channel: the block of its receiver / sender (the partitioning's, shared by all blocks).
  const std::uint32_t* targetBlock_ = nullptr;
  const std::uint32_t* sourceBlock_ = nullptr;
  bool single_ = true;  // one block: every channel is local
  /// A packet or credit for another block's engine, due at `time` (at least flyTime ahead).
  struct Message {
    std::uint64_t time = 0;
    std::uint64_t event = 0;  // kind << kKindShift | payload (a packet's payload: its id at the receiver)
    Packet packet;
  };
  std::array<std::vector<std::vector<Message>>, 2> outbox_;  // [window parity][target block]
  std::uint32_t parity_ = 0;
  /// Messages posted to outbox_[p] in the window that wrote it: the sum of its boxes' sizes,
  /// kept here so that the thread deciding between windows reads one line per block instead
  /// of every box. It may over-count (after the invariant checks take the boxes early), which
  /// only delays an idle jump; it never under-counts, which would jump past a message.
  std::array<std::uint64_t, 2> posted_{};
  // ---- state per channel, per (channel, VC) and per switch: sim/channel_state.h ----
  static constexpr std::uint32_t kNoChannel = ~std::uint32_t{0}, kNoTerminal = ~std::uint32_t{0};
  /// Where a switch's port leads (Network::channelAt and the target, cached for the hop).
  struct Exit {
    std::uint32_t channel = kNoChannel;    ///< the channel out of the port (kNoChannel: no cable)
    std::uint32_t terminal = kNoTerminal;  ///< the terminal it leads to (kNoTerminal: a switch)
  };
  std::vector<Exit> exits_;
  static constexpr std::uint64_t kNever = ~std::uint64_t{0};
  /// The per-channel and per-(channel, VC) state and its memory layout (sim/channel_store.h).
  ChannelStore store_;
  /// Whether this block holds the record of channel c: it sends or receives on it. The
  /// records of other channels are never read or written here (in a partitioned run on a
  /// large fabric they occupy no memory).
  bool ownsChannel(std::uint32_t c) const { return sourceBlock_[c] == block_ || targetBlock_[c] == block_; }
  ChannelState& chan(std::uint32_t c) { return store_.channel(c); }
  const ChannelState& chan(std::uint32_t c) const { return store_.channel(c); }
  VcState& vcAt(std::uint32_t c, std::uint32_t v) { return store_.vc(c, v); }
  const VcState& vcAt(std::uint32_t c, std::uint32_t v) const { return store_.vc(c, v); }
  /// The rings of (c, v): [0, slots_) the input queue, [slots_, 2 slots_) the output queue.
  std::uint32_t* ringAt(std::uint32_t c, std::uint32_t v) { return store_.ring(c, v); }
  const std::uint32_t* ringAt(std::uint32_t c, std::uint32_t v) const { return store_.ring(c, v); }
  /// Cycles from a grant to its credit reaching the sender: the tail leaves the input queue
  /// flits_ - 1 cycles after the head, and the credit flies back.
  std::uint32_t creditDelay() const { return flits_ - 1 + config_.flyTime; }
  /// The credits: lazy within the block where events are grouped (Policy::kGrouped), else events
  /// (kCredit); between blocks always events. A link waiting for a lazy credit is woken for its
  /// cycle: by the grant when packets wait in its queue, else by the link itself when it finds
  /// itself blocked (startLink, wakeForCredit).
  CreditFlow credits_;
  /// CreditFlow::fold for every VC of every channel this block sends on (where lazy credits live).
  void foldAllCredits(bool all);
  /// Slots of output queue (c, v) in use: its queued packets, and the packet on the link if
  /// it came from v (a slot frees when its packet's tail has left, at linkBusy; the link
  /// sends one packet at a time, from the VC before linkNextVc). Derived, not counted, so a
  /// freed slot (kOutFree) touches only the channel's first line. A terminal's injection
  /// channel has no output queue (its source queue is unbounded): 0. `at`: the cycle whose
  /// events have run (now_ while running; checkInvariants() passes the last cycle run).
  std::uint32_t outOccupied(std::uint32_t c, std::uint32_t v, std::uint64_t at) const {
    return vcAt(c, v).outSize + (onLinkFrom(c, v, at) ? 1U : 0U);
  }
  /// True when the link of `c` is sending a packet from output queue v at cycle `at`.
  bool onLinkFrom(std::uint32_t c, std::uint32_t v, std::uint64_t at) const {
    const ChannelState& link = chan(c);
    const std::uint32_t sending = previousInRing(link.linkNextVc, vcs_);
    return (static_cast<unsigned>(link.sourceIsSwitch != 0) & static_cast<unsigned>(link.linkBusy > at) &
            static_cast<unsigned>(sending == v)) != 0;  // (no branch: whether the link is busy is data)
  }
  /// The position after / before `i` in a ring of n (round-robin pointers), computed without
  /// a branch: whether the pointer wraps is data.
  static std::uint32_t nextInRing(std::uint32_t i, std::uint32_t n) {
    const std::uint32_t next = i + 1;
    return next & (0U - static_cast<std::uint32_t>(next != n));
  }
  static std::uint32_t previousInRing(std::uint32_t i, std::uint32_t n) {
    return i - 1 + (n & (0U - static_cast<std::uint32_t>(i == 0)));
  }
  /// Position `i` places after `head` in a ring of slots_ (i <= slots_).
  std::uint32_t ringIndex(std::uint32_t head, std::uint32_t i) const {
    return head + i >= slots_ ? head + i - slots_ : head + i;
  }
  std::vector<SwitchState> sw_;
  std::vector<std::uint64_t> failWake_;  // per switch: the cycle of the latest wakeWhenFree event (kNever: none)
  std::vector<std::uint64_t> layerVcs_;  // per layer: the VCs that serve it (bit per VC)
  std::vector<HopChoice> choices_;
  struct Candidate {
    std::uint32_t channel;
    // The grant's choice: its VC. A packet's candidates: unused (the layer's VCs are tried in
    // turn), except that a resolved entry (setUpResolution) holds kIntoTerminal where its port
    // leads to a terminal (taken only by packets for it: routeHere checks which).
    std::uint8_t vc;
    std::uint8_t layer;
    PortNumber port;
  };
  static constexpr std::uint8_t kIntoTerminal = 1;
  /// An input's request in a separable allocation (allocateSeparable).
  struct Request {
    std::uint32_t inChannel = 0, vc = 0, port = 0, packetId = 0;
    Candidate chosen{};
    bool wins = true;
  };
  std::vector<Request> requests_;
  /// The arbitration (SimConfig::arbitration), a component of sim/arbitration/, and whether
  /// it is a separable allocator's output arbiter.
  ArbitrationFunction arbitration_;
  bool separable_ = true;
  /// What it reads of a request (the ArbiterView of sim/arbitration/arbiter.h).
  struct ArbiterRequests;
  /// Per channel out of a switch: the input port (index at that switch) after the one its
  /// output last granted (Arbitration::RoundRobin).
  std::vector<std::uint16_t> outNextInput_;
  static constexpr std::size_t kCachedCandidates = 16;
  std::vector<Candidate> overflow_;
  // The candidates of each packet at its current switch, found once per hop (a blocked
  // packet is retried at every wake of its switch). Layered routings: each table entry is one
  // port or a candidate list, and what either means at a switch is resolved once, at set-up
  // (setUpResolution), into resolved_: per layer l, per switch s, a block of
  // resolution_[l].stride candidates at resolution_[l].base + s * stride — first one per port
  // number (port p at p - 1), then the lists of the layer's table laid over one another
  // where one begins as the block ends (list i at listOffset[i], listLength[i] long). Not
  // resolved, and computed per hop (routeHere's general path) into the packet's own slots:
  // a port without a cable or beyond the switch's ports (its entry's channel is
  // kNoChannel), a list with such a port or a port to a terminal (usable only by packets
  // for that terminal; listUsable_ 0), a list longer than kCachedCandidates (length 0), and
  // escape routings. A packet's own slots are capacity_ per packet id — the routing's
  // longest list (RoutingSemantics::choiceCapacity), at most kCachedCandidates.
  struct LayerResolution {
    std::size_t base = 0;        ///< in resolved_
    std::size_t usableBase = 0;  ///< in listUsable_ (per switch, one byte per list)
    std::uint32_t stride = 0;    ///< candidates per switch (0: the layer is not resolved)
    std::uint32_t ports = 0;     ///< port entries per switch (the largest port count, at most 254)
    std::vector<std::uint32_t> listOffset, listLength;  ///< per list id, in the switch's block
  };
  std::vector<LayerResolution> resolution_;  // per layer (empty: none, e.g. escape routings)
  /// The resolution of `layer`, or nullptr where its hops take the per-hop path.
  const LayerResolution* resolvedLayer(std::uint32_t layer) const {
    return resolution_.empty() || resolution_[layer].stride == 0 ? nullptr : &resolution_[layer];
  }
  std::vector<Candidate> resolved_;
  std::vector<std::uint8_t> listUsable_;
  /// Resolved candidates (and list flags) at most: beyond, a layer is not resolved (128 MiB).
  static constexpr std::size_t kResolvedLimit = std::size_t{1} << 24;
  std::vector<Candidate> packetCandidates_;
  // Per packet id: where its candidates are, apart from the packet so that a blocked head's
  // retry and a grant do not touch the packet's line: kNotRouted (not yet), kResolvedRef |
  // offset in resolved_ << kRefCountBits | count, or the count kept in its own slots.
  static constexpr std::uint32_t kResolvedRef = std::uint32_t{1} << 31, kRefCountBits = 5,
                                 kRefCountMask = (std::uint32_t{1} << kRefCountBits) - 1;
  static_assert(kCachedCandidates <= kRefCountMask && kResolvedLimit <= (kResolvedRef >> kRefCountBits));
  std::vector<std::uint32_t> route_;
  std::vector<std::uint8_t> layerOfVc_;  // per VC: the routing layer it serves (v % layers)
  /// The selection function (SimConfig::selection), a component of sim/selection/.
  SelectionFunction selection_;
  /// What it reads of one request (the SelectionView of sim/selection/selection.h).
  struct SelectionRequest;
  std::size_t capacity_ = 0;
  // The allocator visits only the inputs that can send: ChannelState::readyVcs and
  // SwitchState::readyInputs, kept exact at every cycle (checkInvariants).
  // Grouping of a cycle's events by owner (runCycle): a switch allocates right after its
  // own events, while its state is still in the cache. Owner keys are bucketed
  // (key >> bucketShift_) into at most kBuckets counting-sort buckets.
  static constexpr std::uint32_t kBucketBits = 8;
  std::uint32_t switchCount_ = 0, bucketShift_ = 0;
  std::vector<std::uint32_t> bucketStart_;
  WorkList groupScratch_;
  bool narrow_ = true;  // every switch has at most 64 ports
  // ---- traffic ----
  DestinationSource destinations_;
  std::vector<Rng> terminalRng_;
  std::vector<std::vector<Pending>> sourceQueue_;
  std::vector<std::size_t> sourceHead_;
  std::vector<std::uint32_t> nextPath_;    // round-robin path policy, per terminal
  std::vector<std::uint32_t> injectedBy_;  // per terminal: packets injected (Packet::serial)
  std::vector<double> poissonClock_;
  // The sources' next generation times: a calendar of kCalendarSize cycles from now_ (a list
  // of terminals per cycle, with a bit per non-empty cycle) and, beyond it, a heap. A cycle's
  // terminals generate in the order they were added: each draws from its own stream and
  // enqueues at its own source, so the order does not change the result.
  using Generation = std::pair<std::uint64_t, std::uint32_t>;
  static constexpr std::uint64_t kCalendarSize = 1024;  // a power of two
  std::vector<std::vector<std::uint32_t>> calendar_ = std::vector<std::vector<std::uint32_t>>(kCalendarSize);
  std::array<std::uint64_t, kCalendarSize / 64> calendarUsed_{};
  std::priority_queue<Generation, std::vector<Generation>, std::greater<>> laterGenerations_;
  void addGeneration(std::uint64_t time, std::uint32_t terminal);
  void runGenerations();
  double messageRate_ = 0;
  BernoulliGaps gaps_;  // Bernoulli injection at messageRate_
  std::size_t traceNext_ = 0;
  InOrderDelivery delivery_;  // sequence numbers, reorder buffers, end-to-end flow control
  // ---- packets ----
  std::vector<Packet> packets_;
  std::vector<std::uint32_t> freePackets_;
  // ---- time ----
  std::uint64_t now_ = 0;
  std::uint64_t mask_ = 0;
  std::vector<std::array<WorkList, kLists>> wheel_;
  std::uint64_t pendingEvents_ = 0;
  std::uint64_t lastMove_ = 0;
  // Set between windows, the same in every engine.
  MeasurementWindow window_;
  // Latencies delivered since the last warm-up check (each below the 10,000-cycle cap of the
  // warm-up: their squares' sum cannot overflow).
  LatencyMoments warmupLatencies_;
  // ---- statistics ----
  std::uint64_t generated_ = 0, injected_ = 0, delivered_ = 0, released_ = 0;
  std::uint64_t measuredGenerated_ = 0, measuredDelivered_ = 0, windowFlitsDelivered_ = 0;
  std::uint64_t lastDelivery_ = 0, hopSum_ = 0;
  LatencyHistogram latencies_, totalLatencies_;  // measured packets: network and total latency
  std::uint64_t latencySum_ = 0, totalLatencySum_ = 0, reorderDelaySum_ = 0;  // integer: any order adds up alike
  std::vector<std::uint64_t, BulkAllocator<std::uint64_t>> channelFlits_;     // (other blocks' channels: zero pages)
  std::vector<std::uint64_t> sourceFlits_;    // per source terminal: its flits delivered in the window (here)
  std::vector<std::uint8_t> sourceMeasured_;  // per terminal: it generated a packet in the window (its block)
  std::vector<PacketRecord> records_;
  std::exception_ptr error_;  // what a window of a parallel run threw
};

/// The decisions that need the whole network, taken between windows (sim/engine.h).
template <class Policy>
struct Engine<Policy>::Control {
  explicit Control(Cycles watchdogCycles) : watchdog(watchdogCycles) {}
  Watchdog watchdog;
  std::uint64_t now = 0;
  std::uint32_t parity = 0;  // of the outboxes the last window filled
  WarmupDetector warmup;
  bool deadlock = false;
  DeadlockReport report;
  bool stop = false;
  std::exception_ptr error;
  std::uint64_t creditFold =
      CreditFlow::kFoldSpan.count;  // next cycle every lazy credit is counted (sim/credit_flow.h)
};

extern template class Engine<CacheResident>;
extern template class Engine<Streaming>;

}  // namespace routelab::sim
