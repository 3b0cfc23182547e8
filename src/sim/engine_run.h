// The engine's cycle loop, the windows of a partitioned run, the decisions between them and
// the result (sim/engine.h). Model: sim/model.h.
// Member definitions of Engine<Policy>, included by sim/engine.cpp only (its instantiations).
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <barrier>
#include <bit>
#include <cmath>
#include <limits>
#include <thread>
#include <tuple>
#include <utility>

#include "core/errors.h"
#include "sim/engine.h"

namespace routelab::sim {

namespace {

constexpr std::size_t kPrefetch = 8;  // work items ahead (runCycle)

}  // namespace

template <class Policy>
void Engine<Policy>::runCycle() {
  if (trace_ != nullptr) {
    // Every engine walks the whole trace and enqueues the messages of its own sources.
    while (traceNext_ < trace_->messages.size()) {
      const TraceMessage& message = trace_->messages[traceNext_];
      if (static_cast<std::uint64_t>(double(message.cycle) / trace_->compression) > now_) break;
      const std::uint64_t packets =
          std::max<std::uint64_t>(1, (message.bytes + trace_->payloadBytes - 1) / trace_->payloadBytes);
      if (partitioning_.ofTerminal[message.source] == block_) {
        enqueueMessage(message.source, message.destination, static_cast<std::uint32_t>(packets), true);
      }
      ++traceNext_;
    }
  } else if (now_ < window_.stopGenerating.value) {
    runGenerations();
  }
  // Each phase's work items are independent reads of scattered state: the state of the item
  // kPrefetch places ahead is requested while this one runs (memory-level parallelism). Runs
  // whose state outgrows the caches (Policy::kPrefetch) are bound by these misses; even a
  // 256-terminal fabric's channel records (384 KiB) exceed a core's first-level cache, and
  // the requests ahead pay there too.
  auto& bucket = wheel_[now_ & mask_];
  if constexpr (Policy::kGrouped) {
    runGrouped(bucket[kPhaseEvents], bucket[kPhaseSwitches]);
  } else {
    processEventsOf<kArrive>(bucket[kArrive]);
    processEventsOf<kCredit>(bucket[kCredit]);
    processEventsOf<kOutFree>(bucket[kOutFree]);
    processEventsOf<kDeliver>(bucket[kDeliver]);
    processEventsOf<kInFree>(bucket[kInFree]);
    allocateWoken(bucket[kPhaseSwitches], 0);
  }
  // Links act in channel order: only the in-order sources share state (the destinations'
  // outstanding counts), and the order among them is the model's.
  auto& links = bucket[kPhaseLinks];
  if (config_.inOrder && links.size() > 1) std::sort(links.begin(), links.end());
  for (std::size_t i = 0; i < links.size(); ++i) {
    // Two stages: the link's record and flit counter 2 kPrefetch links ahead; kPrefetch
    // ahead, from that record, the packet at the head of the VC it tries first.
    if (i + 2 * kPrefetch < links.size()) {
      const auto channel = static_cast<std::uint32_t>(links[i + 2 * kPrefetch]);
      prefetchRecord(channel, store_.recordLines());
      __builtin_prefetch(&channelFlits_[channel]);
    }
    if (i + kPrefetch < links.size()) prefetchLinkHead(static_cast<std::uint32_t>(links[i + kPrefetch]));
    startLink(static_cast<std::uint32_t>(links[i]));
  }
  for (auto& phase : bucket) {
    pendingEvents_ -= phase.size();
    phase.clear();
  }
}

template <class Policy>
template <std::uint64_t Kind>
void Engine<Policy>::processEventsOf(const WorkList& events) {
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i + kPrefetch < events.size()) prefetchEvent(events[i + kPrefetch]);
    processEventOf<Kind>(payloadOf(events[i]));
  }
}

// The events of one owner group change only the state of its switches and terminals, and a
// switch's allocation reads only its own state: each group's woken switches allocate right
// after the group's events — the model's result, as if every event came first, with the
// switch's state still in the cache.
template <class Policy>
void Engine<Policy>::runGrouped(WorkList& events, const WorkList& switches) {
  if (events.size() > 1) groupEvents(events);
  std::size_t allocated = 0;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if constexpr (Policy::kPrefetch) {
      // Two stages: an event's first line and its owner switch 2 kPrefetch events ahead;
      // kPrefetch ahead, what that line points to (prefetchEventTarget).
      if (i + 2 * kPrefetch < events.size()) {
        const std::uint64_t event = events[i + 2 * kPrefetch];
        prefetchEvent(event);
        const std::uint64_t owner = ownerOf(event);
        if (owner < switchCount_) __builtin_prefetch(&sw_[owner]);
      }
      if (i + kPrefetch < events.size()) prefetchEventTarget(events[i + kPrefetch]);
    }
    processEvent(events[i]);
    if (i + 1 < events.size() && bucketOf(events[i + 1]) == bucketOf(events[i])) continue;
    allocated = allocateWoken(switches, allocated);
  }
  allocateWoken(switches, allocated);
}

// The woken switches switches[from, end) allocate in wake order (the state of the one
// kPrefetch places ahead requested first, as in runCycle); returns the end. State beyond
// the caches (Policy::kPrefetch): first, every record of the inputs that can send at these switches
// is requested — a switch woken by a freed output or crossbar input (kOutFree, kInFree)
// retries heads whose records no event of this cycle touched, and its allocation read
// each of them one miss after another. The switches' own
// lines are in the cache: their wake wrote them.
template <class Policy>
std::size_t Engine<Policy>::allocateWoken(const WorkList& switches, std::size_t from) {
  if (Policy::kPrefetch && narrow_) {
    for (std::size_t i = from; i < switches.size(); ++i) {
      const SwitchState& state = sw_[switches[i]];
      for (std::uint64_t ready = state.readyInputs; ready != 0; ready &= ready - 1) {
        prefetchRecord(inPorts_[state.portBegin + static_cast<std::uint32_t>(std::countr_zero(ready))],
                       hopRecordLines());
      }
    }
  }
  for (std::size_t i = from; i < switches.size(); ++i) {
    if (i + kPrefetch < switches.size()) __builtin_prefetch(&sw_[switches[i + kPrefetch]]);
    allocateSwitch(static_cast<std::uint32_t>(switches[i]));
  }
  return switches.size();
}

// Stable counting sort of a cycle's events by owner bucket (engine.h: Policy::kGrouped).
template <class Policy>
void Engine<Policy>::groupEvents(WorkList& events) {
  std::fill(bucketStart_.begin(), bucketStart_.end(), 0U);
  for (std::uint64_t event : events) ++bucketStart_[bucketOf(event) + 1];
  for (std::size_t b = 1; b < bucketStart_.size(); ++b) bucketStart_[b] += bucketStart_[b - 1];
  groupScratch_.resize(events.size());
  for (std::uint64_t event : events) {
    groupScratch_[bucketStart_[bucketOf(event)]++] = event;
  }
  events.swap(groupScratch_);
}

template <class Policy>
void Engine<Policy>::prefetchEvent(std::uint64_t event) const {
  const std::uint64_t payload = payloadOf(event);
  switch (kindOf(event)) {
    case kArrive:
    case kDeliver: __builtin_prefetch(&packets_[payload]); break;
    case kInFree: __builtin_prefetch(&chan(payload)); break;
    default:  // (channel, VC) events
      __builtin_prefetch(&chan(channelOfKey(payload)));
      __builtin_prefetch(&vcAt(channelOfKey(payload), vcOfKey(payload)));
      break;
  }
}

template <class Policy>
void Engine<Policy>::prefetchEventTarget(std::uint64_t event) const {
  if (kindOf(event) == kDeliver) {
    // A tail's delivery reads the entry of its pair's sequence numbers.
    const Packet& packet = packets_[payloadOf(event)];  // (requested kPrefetch events earlier)
    delivery_.prefetch(packet.source, packet.destination);
    return;
  }
  if (kindOf(event) != kArrive) return;
  const std::uint64_t packetId = payloadOf(event);
  const Packet& packet = packets_[packetId];  // (requested kPrefetch events earlier)
  __builtin_prefetch(&chan(packet.channel));
  __builtin_prefetch(&vcAt(packet.channel, packet.vc));
  __builtin_prefetch(&route_[packetId]);
  // What the head's routing (arrive: routeHere) reads at its switch, the event's owner, is
  // requested: the table entry (ForwardingTable::entryAddress) and the switch's resolved
  // block (setUpResolution; a resolved hop reads the exits only into a terminal) or, where
  // the layer is not resolved, the switch's exits and the packet's candidate slot.
  const std::uint64_t owner = ownerOf(event);
  if (owner < switchCount_ && !semantics_.escape() && sw_[owner].portCount > 0) {
    if (const LayerResolution* r = resolvedLayer(packet.layer)) {
      const Candidate* block = resolved_.data() + r->base + owner * r->stride;
      __builtin_prefetch(block);
      __builtin_prefetch(block + r->stride - 1);
    } else {
      const Exit* exits = exits_.data() + sw_[owner].exitBegin;  // (sw_ requested 2 kPrefetch events earlier)
      __builtin_prefetch(exits);
      __builtin_prefetch(exits + sw_[owner].portCount - 1);
      __builtin_prefetch(packetCandidates_.data() + packetId * capacity_);
    }
    __builtin_prefetch(
        semantics_.entryAddressAt(static_cast<std::uint32_t>(owner), packet.address, LayerId::fromIndex(packet.layer)));
  }
}

template <class Policy>
void Engine<Policy>::prefetchLinkHead(std::uint32_t channel) const {
  const ChannelState& link = chan(channel);  // (requested kPrefetch links earlier)
  if (!link.sourceIsSwitch) {
    // An injection reads the message at the front of its terminal's source queue.
    const std::uint32_t terminal = link.sourceIndex;
    if (messageWaits(terminal)) __builtin_prefetch(&sourceQueue_[terminal][sourceHead_[terminal]]);
    return;
  }
  const std::uint32_t vc = link.linkNextVc;
  const VcState& queue = vcAt(channel, vc);
  if (queue.outSize > 0) __builtin_prefetch(&packets_[ringAt(channel, vc)[slots_ + queue.outHead]]);
}

template <class Policy>
std::uint64_t Engine<Policy>::nextSourceTime() const {
  if (trace_ != nullptr) {
    if (traceNext_ == trace_->messages.size()) return kNever;
    return static_cast<std::uint64_t>(double(trace_->messages[traceNext_].cycle) / trace_->compression);
  }
  // The first used cycle of the calendar from now_ (its entries lie in [now_, now_ +
  // kCalendarSize)), else the heap's first.
  std::uint64_t next = laterGenerations_.empty() ? kNever : laterGenerations_.top().first;
  const std::uint64_t start = now_ & (kCalendarSize - 1);
  for (std::uint64_t k = 0; k <= calendarUsed_.size(); ++k) {
    const std::uint64_t word = (start / 64 + k) % calendarUsed_.size();
    std::uint64_t bits = calendarUsed_[word];
    if (k == 0) bits &= ~std::uint64_t{0} << (start % 64);                        // at or after now_
    if (k == calendarUsed_.size()) bits &= ~(~std::uint64_t{0} << (start % 64));  // wrapped: before now_
    if (bits == 0) continue;
    const std::uint64_t slot = word * 64 + static_cast<std::uint64_t>(std::countr_zero(bits));
    next = std::min(next, now_ + ((slot - start) & (kCalendarSize - 1)));
    break;
  }
  return next >= window_.stopGenerating.value ? kNever : next;
}

template <class Policy>
void Engine<Policy>::runWindow(std::uint64_t end) {
  Engine* const self = this;
  while (now_ < end) {
    if (pendingEvents_ == 0) {  // nothing moves in this block before its next source acts: jump there
      const std::uint64_t next = nextSourceTime();
      if (next >= end) break;
      now_ = std::max(now_, next);
    }
    runCycle();
    if (config_.checkInvariants && partitioning_.count == 1) checkInvariants({&self, 1});
    ++now_;
  }
  now_ = end;
}

template <class Policy>
void Engine<Policy>::absorb(std::span<Engine* const> engines, std::uint32_t parity) {
  for (Engine* sender : engines) {
    std::vector<Message>& box = sender->outbox_[parity][block_];
    for (const Message& message : box) {
      if (kindOf(message.event) == kCredit) {
        scheduleEvent(message.time, message.event);
        continue;
      }
      const std::uint32_t packetId = allocatePacket();
      packets_[packetId] = message.packet;
      scheduleEvent(message.time, message.event | packetId);
    }
    box.clear();
  }
}

template <class Policy>
struct Engine<Policy>::Totals {
  std::uint64_t generated = 0, injected = 0, delivered = 0, released = 0, lastMove = 0;
  std::uint64_t measuredGenerated = 0, measuredDelivered = 0;
  std::uint64_t pending = 0;  ///< events in the wheels and messages in the outboxes
  bool traceDone = true;      ///< every block has enqueued its messages of the trace
};

template <class Policy>
typename Engine<Policy>::Totals Engine<Policy>::sumTotals(std::span<Engine* const> engines, std::uint32_t parity) {
  Totals totals;
  for (const Engine* engine : engines) {
    totals.generated += engine->generated_;
    totals.injected += engine->injected_;
    totals.delivered += engine->delivered_;
    totals.released += engine->released_;
    totals.lastMove = std::max(totals.lastMove, engine->lastMove_);
    totals.measuredGenerated += engine->measuredGenerated_;
    totals.measuredDelivered += engine->measuredDelivered_;
    totals.pending += engine->pendingEvents_;
    totals.pending += engine->posted_[parity];
    totals.traceDone =
        totals.traceDone && (engine->trace_ == nullptr || engine->traceNext_ == engine->trace_->messages.size());
  }
  return totals;
}

template <class Policy>
void Engine<Policy>::updateWarmup(std::span<Engine* const> engines, Control& control) {
  LatencyMoments window;
  for (Engine* engine : engines) window.add(std::exchange(engine->warmupLatencies_, LatencyMoments{}));
  if (!control.warmup.check(Cycle(control.now), window)) return;
  for (Engine* engine : engines) engine->window_.endWarmup(Cycle(control.now), engine->config_);
}

template <class Policy>
bool Engine<Policy>::finished(std::span<Engine* const> engines, const Control& control, const Totals& totals) {
  const Engine& first = *engines.front();
  if (first.trace_ != nullptr) return totals.traceDone && totals.released == totals.generated;
  return first.window_.over(Cycle(control.now), first.config_, totals.released == totals.generated,
                            totals.measuredDelivered == totals.measuredGenerated);
}

// Lazy credits' 32-bit cycles stay within 2^31 of now (sim/credit_flow.h): counted in at least every
// CreditFlow::kFoldSpan cycles, and all of them before a jump past their cycles.
template <class Policy>
void Engine<Policy>::foldCreditsBefore(std::span<Engine* const> engines, Control& control, std::uint64_t to) {
  if (to < control.creditFold) return;
  const bool past = to - control.now > engines.front()->creditDelay();
  for (Engine* engine : engines) engine->foldAllCredits(past);
  control.creditFold = to + CreditFlow::kFoldSpan.count;
}

// Between windows, on one thread: warm-up, end, watchdog; and when no block has anything
// in flight, the jump to the next cycle where something happens. True: the run is over.
template <class Policy>
bool Engine<Policy>::decide(std::span<Engine* const> engines, Control& control) {
  const Engine& first = *engines.front();
  foldCreditsBefore(engines, control, control.now);
  while (true) {
    while (!first.window_.warmupDone && first.trace_ == nullptr && control.now >= control.warmup.nextCheck().value) {
      updateWarmup(engines, control);
    }
    const Totals totals = sumTotals(engines, control.parity);
    if (finished(engines, control, totals)) return true;
    const bool busy = Watchdog::inFlight(totals.generated, totals.injected, totals.delivered, totals.released);
    if (control.watchdog.fires(Cycle(control.now), busy, Cycle(totals.lastMove))) {
      for (Engine* engine : engines) engine->absorb(engines, control.parity);
      findDeadlock(engines, control, totals.lastMove);
      return true;
    }
    if (totals.pending > 0) return false;
    // Nothing in flight anywhere: jump to the next source's cycle or decision point.
    std::uint64_t next = kNever;
    for (const Engine* engine : engines) next = std::min(next, engine->nextSourceTime());
    if (!first.window_.warmupDone) next = std::min(next, control.warmup.nextCheck().value);
    if (first.window_.warmupDone && first.window_.end != Cycle::never() && Cycle(control.now) < first.window_.end) {
      next = std::min(next, first.window_.end.value);
    }
    next = std::min(next, control.watchdog.deadline(busy, Cycle(totals.lastMove)).value);
    if (next == kNever) return true;
    if (next <= control.now) return false;
    foldCreditsBefore(engines, control, next);
    control.now = next;
    for (Engine* engine : engines) engine->now_ = next;
  }
}

// Long function: the window protocol of both the one-block and the threaded run, kept side
// by side so that they stay the same algorithm.
template <class Policy>
SimResult Engine<Policy>::runPartitioned(std::span<Engine* const> engines, const SimProgress& progress) {
  const Engine& first = *engines.front();
  Control control(Cycles(first.config_.watchdogCycles));
  const std::uint64_t window = first.config_.flyTime;  // the lookahead: no block affects another sooner
  const std::uint64_t expected =
      first.trace_ != nullptr
          ? 0
          : (first.window_.warmupDone ? first.window_.end.value
                                      : (WarmupDetector::kWindow * 5).count + first.config_.measureCycles);
  // Between two windows (one thread; the others wait): errors, decisions, progress.
  auto between = [&]() noexcept {
    try {
      const std::uint64_t before = control.now;
      control.now = engines.front()->now_;
      for (Engine* engine : engines) {
        if (engine->error_ && !control.error) control.error = engine->error_;
      }
      if (control.error) {
        control.stop = true;
        return;
      }
      if (first.config_.checkInvariants && engines.size() > 1) {
        for (Engine* engine : engines) engine->absorb(engines, control.parity);
        checkInvariants(engines);
      }
      control.stop = decide(engines, control);
      if (progress && (control.now >> 12) != (before >> 12)) progress(control.now, std::max(expected, control.now));
    } catch (...) {
      if (!control.error) control.error = std::current_exception();
      control.stop = true;
    }
  };
  // One block's share of a window: the messages the last window sent it, then its cycles.
  auto step = [&](Engine& engine) {
    try {
      engine.absorb(engines, control.parity);
      engine.parity_ = control.parity ^ 1U;
      engine.posted_[engine.parity_] = 0;  // (its boxes were taken in the window before)
      engine.runWindow(control.now + window);
    } catch (...) {
      engine.error_ = std::current_exception();
      engine.now_ = control.now + window;
    }
  };
  auto flip = [&]() noexcept { control.parity ^= 1U; };
  between();
  if (engines.size() == 1) {
    while (!control.stop) {
      step(*engines.front());
      flip();
      between();
    }
  } else {
    std::barrier sync(static_cast<std::ptrdiff_t>(engines.size()), [&]() noexcept {
      flip();
      between();
    });
    auto work = [&](std::size_t block) {
      while (!control.stop) {
        step(*engines[block]);
        sync.arrive_and_wait();
      }
    };
    std::vector<std::jthread> workers;
    for (std::size_t block = 1; block < engines.size(); ++block) workers.emplace_back(work, block);
    work(0);
  }
  if (control.error) std::rethrow_exception(control.error);
  return collect(engines, control);
}

// Long function: the sums, maxima and merged lists of every block, field by field.
template <class Policy>
SimResult Engine<Policy>::collect(std::span<Engine* const> engines, const Control& control) {
  const Engine& first = *engines.front();
  SimResult result;
  const std::uint64_t now = control.now;
  result.cycles = now;
  result.vcs = first.vcs_;
  result.warmupCycles = first.window_.warmupCycles(Cycle(now), first.trace_ != nullptr).count;
  result.measureCycles = first.window_.measuredCycles(Cycle(now)).count;
  std::uint64_t windowFlits = 0, hopSum = 0, latencySum = 0, totalLatencySum = 0, reorderDelaySum = 0;
  LatencyHistogram latencies, totalLatencies;
  std::vector<std::uint64_t> channelFlits(first.channels_, 0), sourceFlits(first.terminals_, 0);
  std::vector<std::uint8_t> sourceMeasured(first.terminals_, 0);
  for (Engine* engine : engines) {
    for (std::uint32_t t = 0; t < first.terminals_; ++t) {
      sourceFlits[t] += engine->sourceFlits_[t];
      sourceMeasured[t] |= engine->sourceMeasured_[t];
    }
    result.packetsGenerated += engine->generated_;
    result.packetsInjected += engine->injected_;
    result.packetsDelivered += engine->delivered_;
    result.measuredPackets += engine->measuredGenerated_;
    result.measuredDelivered += engine->measuredDelivered_;
    result.outOfOrder += engine->delivery_.outOfOrder();
    result.maxReorderOccupancy = std::max(result.maxReorderOccupancy, engine->delivery_.maxHeld());
    result.lastDelivery = std::max(result.lastDelivery, engine->lastDelivery_);
    windowFlits += engine->windowFlitsDelivered_;
    hopSum += engine->hopSum_;
    latencySum += engine->latencySum_;
    totalLatencySum += engine->totalLatencySum_;
    reorderDelaySum += engine->reorderDelaySum_;
    latencies.merge(engine->latencies_);
    totalLatencies.merge(engine->totalLatencies_);
    for (std::uint32_t c = 0; c < first.channels_; ++c) channelFlits[c] += engine->channelFlits_[c];
    result.packets.insert(result.packets.end(), engine->records_.begin(), engine->records_.end());
  }
  const double denominator = double(first.terminals_) * double(std::max<std::uint64_t>(1, result.measureCycles));
  result.offered = double(result.measuredPackets) * first.flits_ / denominator;
  result.accepted = double(windowFlits) / denominator;
  const double measured = double(latencies.count());
  result.latencyAvg = latencies.count() == 0 ? 0 : double(latencySum) / measured;
  result.totalLatencyAvg = latencies.count() == 0 ? 0 : double(totalLatencySum) / measured;
  result.reorderDelayAvg = latencies.count() == 0 ? 0 : double(reorderDelaySum) / measured;
  result.latencyMax = double(latencies.max());
  result.latencyP50 = double(latencies.percentile(0.5));
  result.latencyP99 = double(latencies.percentile(0.99));
  result.totalLatencyP99 = double(totalLatencies.percentile(0.99));
  result.averageHops = result.packetsDelivered == 0 ? 0 : double(hopSum) / double(result.packetsDelivered);
  result.deadlock = control.deadlock;
  result.deadlockReport = control.report;
  // Per-source accepted throughput and Jain's index (model.h) over the sources.
  const double window = double(std::max<std::uint64_t>(1, result.measureCycles));
  result.sourceAccepted.assign(first.terminals_, -1.0);
  double sum = 0, squares = 0;
  for (std::uint32_t t = 0; t < first.terminals_; ++t) {
    if (sourceMeasured[t] == 0) continue;
    const double x = double(sourceFlits[t]) / window;
    result.sourceAccepted[t] = x;
    result.sourceAcceptedMin = result.sources == 0 ? x : std::min(result.sourceAcceptedMin, x);
    result.sourceAcceptedMax = std::max(result.sourceAcceptedMax, x);
    sum += x;
    squares += x * x;
    ++result.sources;
  }
  result.sourceFairness = squares > 0 ? sum * sum / (double(result.sources) * squares) : 0;
  // A warm-up that never settled (its cap reached) means a network that is not stable at
  // this load: saturated.
  result.warmupSettled = !control.warmup.capped();
  result.saturated = control.deadlock || control.warmup.capped() || result.measuredDelivered < result.measuredPackets ||
                     result.accepted < 0.95 * result.offered;
  result.channelUtilization.resize(first.channels_);
  for (std::uint32_t c = 0; c < first.channels_; ++c) {
    result.channelUtilization[c] = double(channelFlits[c]) / double(std::max<std::uint64_t>(1, result.measureCycles));
  }
  // Release order, ties in a fixed order: the same list whichever block released a packet.
  std::sort(result.packets.begin(), result.packets.end(), [](const PacketRecord& a, const PacketRecord& b) {
    return std::tie(a.released, a.destination, a.source, a.sequence) <
           std::tie(b.released, b.destination, b.source, b.sequence);
  });
  return result;
}

}  // namespace routelab::sim
