// The event-driven engine of the simulator. Model: sim/model.h; how: sim/engine.h.
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
void Engine<Policy>::schedule(std::uint64_t time, int phase, std::uint64_t event) {
  wheel_[time & mask_][static_cast<std::size_t>(phase)].push_back(event);
  ++pendingEvents_;
}

// A switch is listed once per cycle: a wake for the cycle it was last woken for is not taken
// (without a branch: WorkList::pushIf).
template <class Policy>
[[gnu::always_inline]] inline void Engine<Policy>::wakeSwitch(std::uint32_t switchIndex, std::uint64_t time) {
  const bool take = sw_[switchIndex].wake != time;
  sw_[switchIndex].wake = time;
  wheel_[time & mask_][kPhaseSwitches].pushIf(take, switchIndex);
  pendingEvents_ += take ? 1 : 0;
}

template <class Policy>
[[gnu::always_inline]] inline void Engine<Policy>::wakeLink(std::uint32_t channel, std::uint64_t time) {
  if (chan(channel).linkWake == time) return;
  chan(channel).linkWake = time;
  schedule(time, kPhaseLinks, channel);
}

template <class Policy>
[[gnu::always_inline]] inline void Engine<Policy>::wakeLinkIf(bool take, std::uint32_t channel, std::uint64_t time) {
  ChannelState& link = chan(channel);
  const bool listed = take && link.linkWake != time;
  link.linkWake = listed ? time : link.linkWake;
  wheel_[time & mask_][kPhaseLinks].pushIf(listed, channel);
  pendingEvents_ += listed ? 1 : 0;
}

// ---- phase 0: sources -------------------------------------------------------------------

template <class Policy>
void Engine<Policy>::enqueueMessage(std::uint32_t terminal, std::uint32_t destination, std::uint32_t packets,
                                    bool measured) {
  const NodeId destinationNode = network_.terminalNode(destination);
  const std::uint32_t paths = semantics_.pathCount(destinationNode);
  std::uint64_t sequence = delivery_.takeSequences(terminal, destination, packets);
  for (std::uint32_t i = 0; i < packets; ++i) {
    Pending pending;
    pending.generated = now_;
    pending.sequence = sequence++;
    pending.destination = destination;
    pending.measured = measured;
    if (paths > 1 && config_.pathPolicy == PathPolicy::Random) {
      pending.path = static_cast<std::uint32_t>(terminalRng_[terminal].below(paths));
    } else if (paths > 1 && config_.pathPolicy == PathPolicy::RoundRobin) {
      pending.path = nextPath_[terminal]++ % paths;
    }
    std::vector<Pending>& queue = sourceQueue_[terminal];
    if (queue.size() == queue.capacity()) checkSourceQueues(queue.capacity());
    queue.push_back(pending);
    ++generated_;
    if (measured) ++measuredGenerated_;
  }
  sourceMeasured_[terminal] |= measured ? 1 : 0;
  wakeLink(injection_[terminal], now_);
}

// Before a source queue grows: all of this block's queued packets (generated, not yet
// injected), counted at twice their size (a growing vector's worst case), plus the new
// capacity, must stay within the block's share of the budget.
template <class Policy>
void Engine<Policy>::checkSourceQueues(std::size_t capacity) const {
  const std::uint64_t queued = generated_ - injected_;
  checkMemory(fmt::format("the sources' queues hold {} packets at cycle {} (the offered load exceeds what the network "
                          "accepts; lower --load or run fewer cycles), with their growth",
                          queued, now_),
              2 * queued + std::max<std::size_t>(capacity, 1), "packet slots", sizeof(Pending),
              config_.memoryBudgetBytes / partitioning_.count);
}

template <class Policy>
void Engine<Policy>::generate(std::uint32_t terminal) {
  generateTo(terminal, destinations_.draw(terminal, terminalRng_[terminal]));
}

template <class Policy>
void Engine<Policy>::generateTo(std::uint32_t terminal, std::uint32_t destination) {
  Rng& rng = terminalRng_[terminal];
  const bool measured = window_.warmupDone && window_.contains(Cycle(now_));
  enqueueMessage(terminal, destination, config_.messagePackets, measured);
  std::uint64_t next = 0;
  if (config_.injection == Injection::Bernoulli) {
    next = gaps_.next(now_, rng);
  } else {
    poissonClock_[terminal] = nextPoisson(poissonClock_[terminal], messageRate_, rng);
    next = static_cast<std::uint64_t>(poissonClock_[terminal]);
  }
  addGeneration(next, terminal);
}

template <class Policy>
void Engine<Policy>::addGeneration(std::uint64_t time, std::uint32_t terminal) {
  if (time - now_ >= kCalendarSize) {  // (time >= now_ always)
    laterGenerations_.emplace(time, terminal);
    return;
  }
  const std::uint64_t slot = time & (kCalendarSize - 1);
  calendar_[slot].push_back(terminal);
  calendarUsed_[slot / 64] |= std::uint64_t{1} << (slot % 64);
}

// This cycle's generations: first the heap's that entered the calendar's span.
template <class Policy>
void Engine<Policy>::runGenerations() {
  while (!laterGenerations_.empty() && laterGenerations_.top().first - now_ < kCalendarSize) {
    const Generation next = laterGenerations_.top();
    laterGenerations_.pop();
    addGeneration(next.first, next.second);
  }
  const std::uint64_t slot = now_ & (kCalendarSize - 1);
  if ((calendarUsed_[slot / 64] >> (slot % 64) & 1) == 0) return;
  std::vector<std::uint32_t>& terminals = calendar_[slot];
  if constexpr (Policy::kPrefetch) {
    // State beyond the caches: each terminal's destination is drawn kGenerationsAhead
    // terminals ahead of its message, and what the message will read requested (its pair's
    // sequence numbers above all, at random in a map). A terminal draws from its own stream,
    // destination first and then its next gap, as generate() does, and appears once in a
    // cycle's list: the same draws, the same result.
    const std::size_t count = terminals.size();
    drawn_.resize(count);
    auto drawAhead = [&](std::size_t j) {
      const std::uint32_t terminal = terminals[j];
      drawn_[j] = destinations_.draw(terminal, terminalRng_[terminal]);
      delivery_.prefetch(terminal, drawn_[j]);
      __builtin_prefetch(&chan(injection_[terminal]));
    };
    for (std::size_t j = 0; j < std::min(count, kGenerationsAhead); ++j) drawAhead(j);
    for (std::size_t i = 0; i < count; ++i) {
      if (i + kGenerationsAhead < count) drawAhead(i + kGenerationsAhead);
      generateTo(terminals[i], drawn_[i]);  // (adds only to later cycles)
    }
  } else {
    for (std::size_t i = 0; i < terminals.size(); ++i) generate(terminals[i]);  // (adds only to later cycles)
  }
  terminals.clear();
  calendarUsed_[slot / 64] &= ~(std::uint64_t{1} << (slot % 64));
}

// ---- phase 1: heads, credits, freed slots, deliveries ---------------------------------

template <class Policy>
template <std::uint64_t Kind>
void Engine<Policy>::processEventOf(std::uint64_t payload) {
  const std::uint32_t channel = channelOfKey(payload);
  const std::uint32_t vc = vcOfKey(payload);
  if constexpr (Kind == kArrive) {
    arrive(static_cast<std::uint32_t>(payload));
  } else if constexpr (Kind == kCredit) {  // the link acts if a packet waits for this credit
    VcState& queue = vcAt(channel, vc);
    CreditFlow::arrive(queue);
    const ChannelState& link = chan(channel);  // (a terminal's channel: if a message waits at the source)
    if (queue.outSize > 0 || (!link.sourceIsSwitch && messageWaits(link.sourceIndex))) {
      wakeLink(channel, now_);
    }
  } else if constexpr (Kind == kOutFree) {  // the slot of the packet that left is free (outOccupied); the switch acts
                                            // if an input can use it
    chan(channel).outFreeVcs |= std::uint64_t{1} << vc;
    wakeSwitchIfReady(chan(channel).sourceIndex);
  } else if constexpr (Kind == kDeliver) {
    deliver(static_cast<std::uint32_t>(payload));
  } else {
    static_assert(Kind == kInFree);
    inputFree(static_cast<std::uint32_t>(payload));
  }
}

template <class Policy>
void Engine<Policy>::processEvent(std::uint64_t event) {
  const std::uint64_t payload = payloadOf(event);
  switch (kindOf(event)) {
    case kArrive: processEventOf<kArrive>(payload); break;
    case kCredit: processEventOf<kCredit>(payload); break;
    case kOutFree: processEventOf<kOutFree>(payload); break;
    case kDeliver: processEventOf<kDeliver>(payload); break;
    case kInFree: processEventOf<kInFree>(payload); break;
    default: break;
  }
}

// A head that reached an input queue routingDelay cycles ago (transmit() schedules kArrive
// at the end of the routing delay): the queue is FIFO and every packet waits the same
// delay, so nothing can tell a packet in its routing delay from one still on the wire, and
// every packet in an input queue has finished routing.
template <class Policy>
void Engine<Policy>::arrive(std::uint32_t packetId) {
  Packet& packet = packets_[packetId];
  VcState& queue = vcAt(packet.channel, packet.vc);
  ringAt(packet.channel, packet.vc)[ringIndex(queue.inHead, queue.inSize)] = packetId;
  route_[packetId] = kNotRouted;
  packet.readyAt = now_;
  if constexpr (Policy::kPrefetch) {
    // State beyond the caches: the packet is routed now, and the channel records of its
    // candidates, which the switch's allocation reads later in this cycle, are requested
    // while the cycle's other events run (memory-level parallelism). Routing is a function of
    // the packet and the switch: when it is done does not change the result.
    for (const Candidate& candidate : routeHere(packetId, chan(packet.channel).targetIndex, packet.channel)) {
      prefetchRecord(candidate.channel, hopRecordLines());
    }
  }
  if (queue.inSize++ == 0) headReady(packet.channel, packet.vc);
}

// Input queue (inChannel, vc) has a front packet again: the VC can send, and the switch acts
// unless the crossbar input is still busy (then a kInFree at its end wakes the switch: the
// grant's, scheduled when the input kept a ready VC, or the one asked for here).
template <class Policy>
void Engine<Policy>::headReady(std::uint32_t inChannel, std::uint32_t vc) {
  ChannelState& in = chan(inChannel);
  const std::uint32_t switchIndex = in.targetIndex;
  const std::uint64_t wasReady = in.readyVcs;
  in.readyVcs |= std::uint64_t{1} << vc;
  if (in.crossbarInBusy <= now_) {
    sw_[switchIndex].readyInputs |= std::uint64_t{1} << in.portBit;
    wakeSwitch(switchIndex, now_);
  } else if (!narrow_) {
    wakeSwitch(switchIndex, now_);
  } else if (wasReady == 0) {  // the grant that made the input busy scheduled no kInFree (tryGrant)
    scheduleEvent(in.crossbarInBusy, makeEvent(kInFree, switchIndex, inChannel));
  }
}

// The crossbar input of inChannel finished its packet: the port may send again, and the
// output port that packet used is free too — the switch acts if any input can send.
template <class Policy>
void Engine<Policy>::inputFree(std::uint32_t inChannel) {
  const ChannelState& in = chan(inChannel);
  sw_[in.targetIndex].readyInputs |= std::uint64_t{(in.readyVcs != 0) && in.crossbarInBusy <= now_} << in.portBit;
  wakeSwitchIfReady(in.targetIndex);
}

// A freed output or crossbar input matters only to inputs that can send (readyInputs;
// without the mask, on switches of more than 64 ports, the switch always acts).
template <class Policy>
void Engine<Policy>::wakeSwitchIfReady(std::uint32_t switchIndex) {
  if (!narrow_ || sw_[switchIndex].readyInputs != 0) wakeSwitch(switchIndex, now_);
}

template <class Policy>
void Engine<Policy>::release(const Held& packet, std::uint32_t destination) {
  ++released_;
  if (config_.recordPackets) {
    records_.push_back({packet.source, destination, packet.sequence, packet.generated, packet.injected,
                        packet.delivered, now_, packet.hops});
  }
  if (packet.measured) {
    ++measuredDelivered_;
    latencies_.add(packet.delivered - packet.injected);
    totalLatencies_.add(now_ - packet.generated);
    latencySum_ += packet.delivered - packet.injected;
    totalLatencySum_ += now_ - packet.generated;
    reorderDelaySum_ += now_ - packet.delivered;
  }
}

template <class Policy>
void Engine<Policy>::deliver(std::uint32_t packetId) {
  const Packet packet = packets_[packetId];
  freePackets_.push_back(packetId);
  ++delivered_;
  lastMove_ = now_;
  lastDelivery_ = now_;
  hopSum_ += packet.hops;
  if (window_.contains(Cycle(now_))) {
    windowFlitsDelivered_ += flits_;
    sourceFlits_[packet.source] += flits_;
  }
  if (!window_.warmupDone) warmupLatencies_.add(now_ - packet.injected);
  const Held arrived{packet.source, packet.sequence, packet.generated, packet.injected,
                     now_,          packet.hops,     packet.measured,  false};
  delivery_.deliver(
      arrived, packet.destination, [&](const Held& released) { release(released, packet.destination); },
      [&](std::uint32_t source) { wakeLink(injection_[source], now_); });
}

// ---- phase 2: switch allocation -------------------------------------------------------

template <class Policy>
struct Engine<Policy>::SelectionRequest {
  Engine& engine;
  std::span<const Candidate> candidates;
  std::uint32_t switchIndex = 0, packetId = 0;
  std::size_t size() const { return candidates.size(); }
  std::uint64_t freeVcs(std::size_t i) const {  // (no branch: which outputs are free is data)
    const std::uint64_t idle =
        std::uint64_t{0} - static_cast<std::uint64_t>(engine.chan(candidates[i].channel).outBusy <= engine.now_);
    return idle & engine.slotVcs(candidates[i]);
  }
  PortNumber port(std::size_t i) const { return candidates[i].port; }
  std::uint32_t queued(std::size_t i, std::uint32_t vc) const {
    return engine.outOccupied(candidates[i].channel, vc, engine.now_);
  }
  std::uint32_t credits(std::size_t i, std::uint32_t vc) const {
    const VcState& queue = engine.vcAt(candidates[i].channel, vc);
    const std::uint32_t counted = engine.credits_.available(queue, Cycle(engine.now_));
    // A grant's direct send (grant()) takes its credit at the grant for a send that starts the
    // next cycle; the model takes it when the link starts.
    const ChannelState& link = engine.chan(candidates[i].channel);
    const bool early = link.targetIsSwitch != 0 && link.linkBusy > engine.now_ + engine.flits_ &&
                       previousInRing(link.linkNextVc, engine.vcs_) == vc;
    return counted + (early ? 1U : 0U);
  }
  Rng& rng() const { return engine.sw_[switchIndex].rng; }
  std::uint64_t packetDraw() const {
    const Packet& packet = engine.packets_[packetId];
    return deriveSeed(deriveSeed(engine.config_.seed, packet.serial), packet.hops);
  }
};

// The selection function (sim/selection/) over the free (candidate, VC) choices. False: it
// chose none.
template <class Policy>
[[gnu::always_inline]] inline bool Engine<Policy>::select(std::span<const Candidate> candidates,
                                                          std::uint32_t switchIndex, std::uint32_t packetId,
                                                          Candidate& chosen) {
  const SelectionRequest view{*this, candidates, switchIndex, packetId};
  const SelectionChoice choice = std::visit([&](const auto& selection) { return selection.choose(view); }, selection_);
  if (!choice.chosen()) return false;
  const Candidate& pick = candidates[choice.candidate];
  chosen = {pick.channel, static_cast<std::uint8_t>(choice.vc), pick.layer, pick.port};
  return true;
}

template <class Policy>
[[gnu::always_inline]] inline bool Engine<Policy>::request(std::uint32_t switchIndex, std::uint32_t inChannel,
                                                           std::uint32_t vc, Candidate& chosen,
                                                           std::uint32_t& packetId) {
  const VcState& queue = vcAt(inChannel, vc);
  packetId = ringAt(inChannel, vc)[queue.inHead];
  // Beyond the caches: the packet's line (a direct send writes it) while the selection reads
  // the candidates, and after a grant the flit counter.
  if constexpr (Policy::kPrefetch) __builtin_prefetch(&packets_[packetId], 1);
  const std::span<const Candidate> candidates = candidatesOf(packetId, switchIndex, inChannel);
  if (!select(candidates, switchIndex, packetId, chosen)) {
    if (narrow_) wakeWhenFree(switchIndex, inChannel, candidates);
    return false;
  }
  if constexpr (Policy::kPrefetch) __builtin_prefetch(&channelFlits_[chosen.channel], 1);
  return true;
}

template <class Policy>
[[gnu::always_inline]] inline void Engine<Policy>::grant(std::uint32_t switchIndex, std::uint32_t inChannel,
                                                         std::uint32_t vc, std::uint32_t packetId,
                                                         const Candidate& chosen) {
  VcState& queue = vcAt(inChannel, vc);
  // Grant: the packet leaves the input queue and crosses in flits_ cycles; the next packet
  // of the VC, if any, is ready (arrive()). The packet itself changes when its link sends it
  // (transmit: channel, VC and layer).
  ChannelState& in = chan(inChannel);
  ChannelState& out = chan(chosen.channel);
  queue.inHead = static_cast<std::uint16_t>(ringIndex(queue.inHead, 1));
  if (--queue.inSize == 0) in.readyVcs &= ~(std::uint64_t{1} << vc);
  sw_[switchIndex].readyInputs &= ~(std::uint64_t{1} << in.portBit);
  in.crossbarInBusy = now_ + flits_;
  out.outBusy = now_ + flits_;
  out.lastGrantVc = chosen.vc;
  VcState& outQueue = vcAt(chosen.channel, chosen.vc);
  // The packet enters the output queue, and the link sends it from the next cycle on. When
  // it is the output's only packet, the link is free by the next cycle and its VC has a
  // credit now (credits only grow until this link sends), the link's next cycle is certain:
  // it sends this packet then (nothing else can enter the output before: the crossbar output
  // is busy). That send is done now, for the next cycle (`direct`), while the output's state
  // is in the cache, instead of queueing the packet and waking the link (docs/SIMULATION.md,
  // "How the engine computes it").
  const bool direct = out.outQueued == 0 && out.linkBusy <= now_ + (slots_ > 1 ? 1 : 0) &&
                      (out.targetIsSwitch == 0 || credits_.available(outQueue, Cycle(now_)) != 0);
  if (direct) {
    out.linkNextVc = static_cast<std::uint8_t>(nextInRing(chosen.vc, vcs_));  // (as startLink)
    out.linkBusy = now_ + 1 + flits_;  // (transmit's value: the slot check below sees the packet on the link)
  } else {
    ringAt(chosen.channel, chosen.vc)[slots_ + ringIndex(outQueue.outHead, outQueue.outSize)] = packetId;
    ++outQueue.outSize;
  }
  if (outOccupied(chosen.channel, chosen.vc, now_) == slots_) {
    // Full: the VC takes no more grants until a slot frees. With its packet on the link, that
    // is when the tail has left (else when the link next sends from it: startLink).
    out.outFreeVcs &= ~(std::uint64_t{1} << chosen.vc);
    if (onLinkFrom(chosen.channel, chosen.vc, now_)) {
      scheduleEvent(out.linkBusy, makeEvent(kOutFree, switchIndex, queueKey(chosen.channel, chosen.vc)));
    }
  }
  lastMove_ = now_;
  const std::uint64_t creditDue = now_ + creditDelay();
  if (credits_.lazy() && (single_ || sourceBlock_[inChannel] == block_)) {  // a lazy credit (credit_flow.h)
    credits_.send(queue, Cycle(now_), Cycle(creditDue));
    wakeLinkIf((queue.outSize > 0) | (in.sourceIsSwitch == 0), inChannel, creditDue);  // a packet may wait for it
  } else {
    const std::uint64_t credit =
        makeEvent(kCredit, Policy::kGrouped ? senderKey(inChannel) : 0, queueKey(inChannel, vc));
    if (single_ || sourceBlock_[inChannel] == block_) {
      scheduleEvent(creditDue, credit);
    } else {
      post(sourceBlock_[inChannel], creditDue, credit, nullptr);
    }
  }
  // The crossbar input and output are idle again at now_ + flits_ (kInFree). Only an input
  // with a ready VC needs that event now: a head that becomes ready while the input is busy
  // asks for it (headReady), and an input blocked on the output asks for a wake when the
  // output is idle (wakeWhenFree).
  if (!narrow_ || in.readyVcs != 0) scheduleEvent(now_ + flits_, makeEvent(kInFree, switchIndex, inChannel));
  if (direct) {
    transmit(chosen.channel, packetId, chosen.vc, now_ + 1);
  } else {
    ++out.outQueued;
    wakeLink(chosen.channel, std::max(now_ + 1, out.linkBusy));  // available from the next cycle
  }
}

template <class Policy>
bool Engine<Policy>::tryGrant(std::uint32_t switchIndex, std::uint32_t inChannel, std::uint32_t vc) {
  Candidate chosen{};
  std::uint32_t packetId = 0;
  if (!request(switchIndex, inChannel, vc, chosen, packetId)) return false;
  grant(switchIndex, inChannel, vc, packetId, chosen);
  return true;
}

template <class Policy>
void Engine<Policy>::wakeWhenFree(std::uint32_t switchIndex, std::uint32_t inChannel,
                                  std::span<const Candidate> candidates) {
  std::uint64_t wake = kNever;
  for (const Candidate& candidate : candidates) {
    const std::uint64_t busy = chan(candidate.channel).outBusy;
    if (busy > now_ && slotVcs(candidate) != 0) wake = std::min(wake, busy);
  }
  if (wake != kNever && failWake_[switchIndex] != wake) {
    failWake_[switchIndex] = wake;
    scheduleEvent(wake, makeEvent(kInFree, switchIndex, inChannel));
  }
}

// Called only for an idle crossbar input with a ready VC.
template <class Policy>
bool Engine<Policy>::allocatePort(std::uint32_t switchIndex, std::uint32_t inChannel) {
  const std::uint64_t busy = chan(inChannel).readyVcs;
  const std::uint32_t firstVc = chan(inChannel).inputNextVc;
  // VCs in round-robin order from firstVc — the busy ones at or after it, then those before:
  // the set bits of the mask rotated right by firstVc, lowest first.
  for (std::uint64_t part = std::rotr(busy, static_cast<int>(firstVc)); part != 0; part &= part - 1) {
    const auto vc = static_cast<std::uint32_t>((std::countr_zero(part) + firstVc) & 63);
    if (tryGrant(switchIndex, inChannel, vc)) {
      chan(inChannel).inputNextVc = static_cast<std::uint8_t>(nextInRing(vc, vcs_));
      return true;
    }
  }
  return false;
}

template <class Policy>
void Engine<Policy>::allocateSwitch(std::uint32_t switchIndex) {
  if (separable_) {
    allocateSeparable(switchIndex);
    return;
  }
  const std::uint32_t begin = sw_[switchIndex].portBegin;
  const std::uint32_t ports = sw_[switchIndex].ports;
  const std::uint32_t start = sw_[switchIndex].nextInputPort;
  if (narrow_) {  // only the ports that can send, in round-robin order from `start`
    const std::uint64_t ready = sw_[switchIndex].readyInputs;  // (as allocatePort's VCs)
    for (std::uint64_t part = std::rotr(ready, static_cast<int>(start)); part != 0; part &= part - 1) {
      const auto port = static_cast<std::uint32_t>((std::countr_zero(part) + start) & 63);
      if (allocatePort(switchIndex, inPorts_[begin + port])) {
        sw_[switchIndex].nextInputPort = static_cast<std::uint16_t>(nextInRing(port, ports));
      }
    }
    return;
  }
  for (std::uint32_t k = 0; k < ports; ++k) {
    const std::uint32_t port = (start + k) % ports;
    const std::uint32_t inChannel = inPorts_[begin + port];
    if (chan(inChannel).readyVcs == 0 || chan(inChannel).crossbarInBusy > now_) continue;
    if (allocatePort(switchIndex, inChannel))
      sw_[switchIndex].nextInputPort = static_cast<std::uint16_t>((port + 1) % ports);
  }
}

template <class Policy>
struct Engine<Policy>::ArbiterRequests {
  const Engine& engine;
  std::uint32_t switchPorts = 0;
  std::uint32_t inputPort(const Request& r) const { return r.port; }
  std::uint32_t ports() const { return switchPorts; }
  std::uint32_t outputStart(const Request& r) const { return engine.outNextInput_[r.chosen.channel]; }
  std::tuple<std::uint64_t, std::uint64_t, std::uint32_t> age(const Request& r) const {
    const Packet& packet = engine.packets_[r.packetId];
    return {packet.generated, packet.injected, packet.source};
  }
};

template <class Policy>
bool Engine<Policy>::beats(const Request& a, const Request& b, std::uint32_t ports) const {
  const ArbiterRequests view{*this, ports};
  return std::visit([&](const auto& arbitration) { return arbitration.beats(view, a, b); }, arbitration_);
}

// Model: sim/model.h, "Switch allocation". Every request is made before any grant (a grant
// changes the state the selections read), and every output's winner is found before any
// grant (a grant moves the output's pointer).
template <class Policy>
void Engine<Policy>::allocateSeparable(std::uint32_t switchIndex) {
  const std::uint32_t begin = sw_[switchIndex].portBegin;
  const std::uint32_t ports = sw_[switchIndex].ports;
  requests_.clear();
  auto requestAt = [&](std::uint32_t port) {  // the input's VCs in round-robin order (as allocatePort)
    const std::uint32_t inChannel = inPorts_[begin + port];
    const std::uint64_t ready = chan(inChannel).readyVcs;
    const std::uint32_t firstVc = chan(inChannel).inputNextVc;
    for (std::uint64_t part = std::rotr(ready, static_cast<int>(firstVc)); part != 0; part &= part - 1) {
      const auto vc = static_cast<std::uint32_t>((std::countr_zero(part) + firstVc) & 63);
      Request r;
      r.inChannel = inChannel;
      r.vc = vc;
      r.port = port;
      if (request(switchIndex, inChannel, vc, r.chosen, r.packetId)) {
        requests_.push_back(r);
        return;
      }
    }
  };
  if (narrow_) {
    for (std::uint64_t ready = sw_[switchIndex].readyInputs; ready != 0; ready &= ready - 1) {
      requestAt(static_cast<std::uint32_t>(std::countr_zero(ready)));
    }
  } else {
    for (std::uint32_t port = 0; port < ports; ++port) {
      const ChannelState& in = chan(inPorts_[begin + port]);
      if (in.readyVcs != 0 && in.crossbarInBusy <= now_) requestAt(port);
    }
  }
  const std::size_t count = requests_.size();
  std::uint32_t refused = kNoChannel;        // an input refused (any one)
  for (std::size_t i = 0; i < count; ++i) {  // (a few requests: each against the others)
    Request& r = requests_[i];
    for (std::size_t j = 0; j < count && r.wins; ++j) {
      r.wins = j == i || requests_[j].chosen.channel != r.chosen.channel || !beats(requests_[j], r, ports);
    }
    if (!r.wins) refused = r.inChannel;
  }
  for (std::size_t i = 0; i < count; ++i) {
    const Request& r = requests_[i];
    if (!r.wins) continue;
    grant(switchIndex, r.inChannel, r.vc, r.packetId, r.chosen);
    chan(r.inChannel).inputNextVc = static_cast<std::uint8_t>(nextInRing(r.vc, vcs_));
    outNextInput_[r.chosen.channel] = static_cast<std::uint16_t>(nextInRing(r.port, ports));
  }
  // A refused input asks again the next cycle: an event of the switch's own (a wake alone
  // would let a grouped run allocate the switch before that cycle's events of its own:
  // runGrouped), which wakes it with every refused input still ready (inputFree).
  if (refused != kNoChannel) scheduleEvent(now_ + 1, makeEvent(kInFree, switchIndex, refused));
}

// ---- phase 3: links ---------------------------------------------------------------------

template <class Policy>
void Engine<Policy>::transmit(std::uint32_t channel, std::uint32_t packetId, std::uint32_t vc, std::uint64_t at) {
  Packet& packet = packets_[packetId];
  ChannelState& link = chan(channel);
  packet.channel = channel;
  packet.vc = static_cast<std::uint8_t>(vc);
  packet.layer = layerOfVc_[vc];  // (the grant's choice: its VC serves the candidate's layer)
  if (++packet.hops > channels_) [[unlikely]] {
    routingLoop(packet, channel);
  }
  link.linkBusy = at + flits_;
  lastMove_ = at;
  if (window_.contains(Cycle(at))) channelFlits_[channel] += flits_;
  std::uint64_t time = at + config_.flyTime + flits_ - 1, kind = kDeliver;
  std::uint64_t owner = Policy::kGrouped ? switchCount_ + link.targetIndex : 0;
  if (!link.targetIsSwitch && link.targetIndex != packet.destination) [[unlikely]] {
    wrongTerminal(packet, channel);
  }
  if (link.targetIsSwitch) {
    owner = link.targetIndex;
    VcState& queue = vcAt(channel, vc);
    credits_.take(queue, Cycle(now_));
    time = at + config_.flyTime + config_.routingDelay;  // the head arrives, then is routed
    kind = kArrive;
  }
  if (single_ || targetBlock_[channel] == block_) {
    scheduleEvent(time, makeEvent(kind, owner, packetId));
  } else {
    sendPacket(targetBlock_[channel], time, makeEvent(kind, owner, 0), packetId);
  }
}

template <class Policy>
void Engine<Policy>::sendPacket(std::uint32_t block, std::uint64_t time, std::uint64_t event, std::uint32_t packetId) {
  // The packet travels in the message (its id at the receiver joins the event); its id here
  // is free again.
  post(block, time, event, &packets_[packetId]);
  freePackets_.push_back(packetId);
}

template <class Policy>
void Engine<Policy>::post(std::uint32_t block, std::uint64_t time, std::uint64_t event, const Packet* packet) {
  Message& message = outbox_[parity_][block].emplace_back();
  ++posted_[parity_];
  message.time = time;
  message.event = event;
  if (packet != nullptr) message.packet = *packet;
}

template <class Policy>
std::uint32_t Engine<Policy>::allocatePacket() {
  std::uint32_t packetId = 0;
  if (freePackets_.empty()) {
    packetId = static_cast<std::uint32_t>(packets_.size());
    packets_.emplace_back();
    packetCandidates_.resize(packets_.size() * capacity_);
    route_.push_back(kNotRouted);
  } else {
    packetId = freePackets_.back();
    freePackets_.pop_back();
  }
  return packetId;
}

// The first VC in round-robin order from the link's pointer that can send: a packet available,
// and a credit where the target is a switch (vcs_: none). A packet granted this cycle (at most
// one per output: the crossbar output is busy for flits_ cycles) is available from the next; it
// is the front only if alone in its queue. Two ways to find it, the same VC: with the state
// beyond the caches (Policy::kPrefetch), the VCs are read only up to the first that can send (each VC
// block not read is a miss saved); in the caches, every VC, as a mask built without a branch
// on the queues' contents, then its first bit at or after the pointer (as allocatePort's VCs).
template <class Policy>
[[gnu::always_inline]] inline std::uint32_t Engine<Policy>::sendableVc(std::uint32_t channel) {
  const ChannelState& link = chan(channel);
  const std::uint32_t firstVc = link.linkNextVc;
  const bool needsCredit = link.targetIsSwitch != 0;
  const std::uint32_t grantedNow = link.outBusy == now_ + flits_ ? link.lastGrantVc : vcs_;
  auto canSend = [&](std::uint32_t v) {
    const VcState& queue = vcAt(channel, v);
    return static_cast<unsigned>(queue.outSize > (v == grantedNow ? 1U : 0U)) &
           static_cast<unsigned>(!needsCredit | credits_.any(queue, Cycle(now_)));
  };
  if constexpr (Policy::kPrefetch) {
    for (std::uint32_t j = 0, v = firstVc; j < vcs_; ++j, v = nextInRing(v, vcs_)) {
      if (canSend(v)) return v;
    }
    return vcs_;
  }
  std::uint64_t sendable = 0;
  for (std::uint32_t v = 0; v < vcs_; ++v) sendable |= std::uint64_t{canSend(v)} << v;
  if (sendable == 0) return vcs_;
  return static_cast<std::uint32_t>((std::countr_zero(std::rotr(sendable, static_cast<int>(firstVc))) + firstVc) & 63);
}

// Every change that lets a link start wakes it at the cycle the start may happen: a grant
// into its output queue (the next cycle, or when the link is free), a credit a queued packet
// waits for, a new message at a source, the end of the packet on the link while others wait.
template <class Policy>
void Engine<Policy>::startLink(std::uint32_t channel) {
  ChannelState& link = chan(channel);
  if (link.linkBusy > now_) {
    wakeLink(channel, link.linkBusy);
    return;
  }
  if (!link.sourceIsSwitch) {
    startInjection(channel, link.sourceIndex);
    return;
  }
  const std::uint32_t vc = sendableVc(channel);
  if (vc == vcs_) {
    wakeForCredit(channel);
    return;
  }
  VcState& queue = vcAt(channel, vc);
  const std::uint32_t packetId = ringAt(channel, vc)[slots_ + queue.outHead];
  queue.outHead = static_cast<std::uint16_t>(ringIndex(queue.outHead, 1));
  // The packet's slot frees when its tail has left (outOccupied). Only a full queue needs to
  // hear it (kOutFree sets its free bit): one that is not takes grants meanwhile, and the
  // grant that fills it asks for the event (tryGrant).
  if (queue.outSize-- == slots_) {
    scheduleEvent(now_ + flits_, makeEvent(kOutFree, link.sourceIndex, queueKey(channel, vc)));
  }
  link.linkNextVc = static_cast<std::uint8_t>(nextInRing(vc, vcs_));
  if (--link.outQueued > 0) wakeLink(channel, now_ + flits_);
  transmit(channel, packetId, vc, now_);
}

// A link that cannot send while packets wait for credits on their way back acts again when
// the first of them arrives (lazy credits, engine.h).
template <class Policy>
void Engine<Policy>::wakeForCredit(std::uint32_t channel) {
  if (!credits_.lazy() || !chan(channel).targetIsSwitch) return;
  for (std::uint32_t v = 0; v < vcs_; ++v) {
    const VcState& queue = vcAt(channel, v);
    if (queue.outSize == 0 || queue.creditsComing == 0 || credits_.arrivedAny(queue, Cycle(now_))) continue;
    wakeLink(channel, credits_.firstDue(queue, Cycle(now_)).value);
  }
}

template <class Policy>
void Engine<Policy>::foldAllCredits(bool all) {
  if (!credits_.lazy()) return;
  for (std::uint32_t c = 0; c < channels_; ++c) {  // (lazy credits live at the sender)
    if (sourceBlock_[c] != block_) continue;
    for (std::uint32_t v = 0; v < vcs_; ++v) credits_.fold(vcAt(c, v), Cycle(now_), all);
  }
}

template <class Policy>
void Engine<Policy>::startInjection(std::uint32_t channel, std::uint32_t terminal) {
  if (!messageWaits(terminal)) return;
  std::vector<Pending>& queue = sourceQueue_[terminal];
  std::size_t& head = sourceHead_[terminal];
  const Pending& front = queue[head];
  if (!delivery_.admits(terminal, front.destination)) return;  // end-to-end flow control: woken by a release
  const NodeId source = network_.terminalNode(terminal);
  const NodeId destination = network_.terminalNode(front.destination);
  const std::uint32_t paths = semantics_.pathCount(destination);
  std::array<LayerId, 64> layers{};
  // The drawn path, or every path for the adaptive policy (the most credits wins; ties: the
  // round-robin order). On a path: the first allowed layer with a credit, its VC with the most.
  std::uint32_t bestPath = front.path, bestVc = vcs_, bestCredits = 0;
  Address bestAddress = 0;
  const bool adaptive = paths > 1 && config_.pathPolicy == PathPolicy::Adaptive;
  for (std::uint32_t k = 0; k < (adaptive ? paths : 1); ++k) {
    const std::uint32_t path = adaptive ? (nextPath_[terminal] + k) % paths : front.path;
    const Address address = semantics_.address(source, destination, path);
    const std::size_t count = semantics_.injectionLayers(source, address, layers);
    if (count == 0) {
      throw SimulationError(fmt::format("the routing gives terminal '{}' no layer to send to '{}'",
                                        network_.name(source), network_.name(destination)));
    }
    std::uint32_t pathVc = vcs_, pathCredits = 0;
    for (std::size_t i = 0; i < count && pathCredits == 0; ++i) {
      for (std::uint32_t v = layers[i].value; v < vcs_; v += layers_) {
        const std::uint32_t available = credits_.available(vcAt(channel, v), Cycle(now_));
        if (available > pathCredits) {
          pathCredits = available;
          pathVc = v;
        }
      }
    }
    if (pathCredits > bestCredits) {
      bestCredits = pathCredits;
      bestVc = pathVc;
      bestPath = path;
      bestAddress = address;
    }
  }
  if (bestVc == vcs_) return;  // no credit: a returning credit wakes this link
  if (adaptive) nextPath_[terminal] = (bestPath + 1) % paths;
  const std::uint32_t packetId = allocatePacket();
  Packet& packet = packets_[packetId];
  packet = Packet{};
  packet.serial = std::uint64_t{terminal} << 32 | injectedBy_[terminal]++;
  packet.generated = front.generated;
  packet.injected = now_;
  packet.sequence = front.sequence;
  packet.source = terminal;
  packet.destination = front.destination;
  packet.address = bestAddress;
  packet.layer = static_cast<std::uint8_t>(bestVc % layers_);
  packet.measured = front.measured;
  delivery_.injected(front.destination);
  ++injected_;
  if (++head == queue.size()) {
    queue.clear();
    head = 0;
  } else if (head >= 4096 && head * 2 >= queue.size()) {
    queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(head));
    head = 0;
  }
  if (head != queue.size()) wakeLink(channel, now_ + flits_);  // more messages wait
  transmit(channel, packetId, bestVc, now_);
}

}  // namespace routelab::sim
