// The engine's invariant checks (SimConfig::checkInvariants) and the watchdog's deadlock
// report: the wait-for graph of the input queues and a cycle in it (docs/SIMULATION.md
// "Deadlock").
// Member definitions of Engine<Policy>, included by sim/engine.cpp only (its instantiations).
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <tuple>
#include <utility>

#include "core/errors.h"
#include "sim/engine.h"

namespace routelab::sim {

// Long function: every invariant of the whole network (queues of every block, messages on
// their way to another block), in one pass.
template <class Policy>
void Engine<Policy>::checkInvariants(std::span<Engine* const> engines) {
  const Engine& first = *engines.front();
  const std::uint32_t vcs = first.vcs_, slots = first.slots_;
  const std::size_t queues = std::size_t{first.channels_} * vcs;
  std::vector<std::uint32_t> inFlight(queues, 0), creditsDue(queues, 0);
  std::uint64_t live = 0, injected = 0, delivered = 0;
  for (const Engine* engine : engines) {
    injected += engine->injected_;
    delivered += engine->delivered_;
    std::vector<std::uint8_t> seen(engine->packets_.size(), 0);
    auto mark = [&](std::uint32_t packetId, const char* where) {
      if (seen[packetId]++) {
        throw SimulationError(fmt::format("invariant: packet {} is in two places ({})", packetId, where));
      }
      ++live;
    };
    for (const auto& bucket : engine->wheel_) {
      for (auto list = bucket.begin(); list != bucket.begin() + kPhaseSwitches; ++list) {  // the event lists
        for (std::uint64_t event : *list) {
          const auto payload = static_cast<std::uint32_t>(payloadOf(event));
          const std::uint64_t kind = kindOf(event);
          if (kind == kArrive) {
            mark(payload, "on a wire");
            const Packet& packet = engine->packets_[payload];
            ++inFlight[std::size_t{packet.channel} * vcs + packet.vc];
          } else if (kind == kDeliver) {
            mark(payload, "ejecting");
          } else if (kind == kCredit) {
            ++creditsDue[std::size_t{channelOfKey(payload)} * vcs + vcOfKey(payload)];
          }
        }
      }
    }
    for (std::size_t q = 0; q < queues; ++q) {
      const std::uint32_t channel = static_cast<std::uint32_t>(q / vcs);
      const auto vc = static_cast<std::uint32_t>(q % vcs);
      const VcState& queue = engine->vcAt(channel, vc);
      const std::uint32_t* ring = engine->ringAt(channel, vc);
      if (engine->targetBlock_[channel] == engine->block_) {
        if (queue.inSize > slots) {
          throw SimulationError(
              fmt::format("invariant: input queue bounds broken at channel {} vc {}", channel, q % vcs));
        }
        for (std::uint32_t i = 0; i < queue.inSize; ++i) mark(ring[(queue.inHead + i) % slots], "input queue");
        engine->checkReady(channel, static_cast<std::uint32_t>(q % vcs));
      }
      if (engine->sourceBlock_[channel] != engine->block_) continue;
      const bool freeBit = ((engine->chan(channel).outFreeVcs >> (q % vcs)) & 1) != 0;
      const std::uint32_t occupied =
          engine->outOccupied(channel, static_cast<std::uint32_t>(q % vcs), engine->lastCycleRun());
      if (occupied > slots || queue.credits > slots || freeBit != (occupied < slots)) {
        throw SimulationError(fmt::format("invariant: queue bounds broken at channel {} vc {}", channel, q % vcs));
      }
      for (std::uint32_t i = 0; i < queue.outSize; ++i) {
        mark(ring[slots + (queue.outHead + i) % slots], "output queue");
      }
    }
  }
  for (std::size_t q = 0; q < queues; ++q) {
    const std::uint32_t channel = static_cast<std::uint32_t>(q / vcs);
    if (!engines[first.targetBlock_[channel]]->chan(channel).targetIsSwitch) continue;
    // Every credit of a channel into a switch is at the sender, on its way back, or held by
    // a packet on the wire or in the input queue.
    const auto vc = static_cast<std::uint32_t>(q % vcs);
    const VcState& sender = engines[first.sourceBlock_[channel]]->vcAt(channel, vc);
    const std::uint32_t credits = sender.credits;
    creditsDue[q] += sender.creditsComing;  // lazy credits (engine.h), arrived or not
    const std::uint32_t queued = engines[first.targetBlock_[channel]]->vcAt(channel, vc).inSize;
    if (credits + creditsDue[q] + inFlight[q] + queued != slots) {
      throw SimulationError(
          fmt::format("invariant: channel {} vc {} has {} credits + {} returning + {} on the wire + "
                      "{} queued != {} slots",
                      channel, q % vcs, credits, creditsDue[q], inFlight[q], queued, slots));
    }
  }
  if (live != injected - delivered) {
    throw SimulationError(
        fmt::format("invariant: {} packets in the network, {} injected - {} delivered", live, injected, delivered));
  }
}

// The allocator's masks (engine.h) against the queues, at the last cycle run.
template <class Policy>
void Engine<Policy>::checkReady(std::uint32_t channel, std::uint32_t vc) const {
  if (!chan(channel).targetIsSwitch) return;
  const std::uint64_t done = lastCycleRun();
  const VcState& queue = vcAt(channel, vc);
  const bool ready = queue.inSize > 0 && packets_[ringAt(channel, vc)[queue.inHead]].readyAt <= done;
  const bool idle = chan(channel).crossbarInBusy <= done;
  const std::uint64_t port = std::uint64_t{1} << (chan(channel).portBit);
  const bool portBit = (sw_[chan(channel).targetIndex].readyInputs & port) != 0;
  if (ready != (((chan(channel).readyVcs >> vc) & 1) != 0) ||
      (narrow_ && portBit != (idle && chan(channel).readyVcs != 0))) {
    throw SimulationError(
        fmt::format("invariant: the allocator's ready masks are wrong at channel {} vc {}", channel, vc));
  }
}

// The wait-for graph of the input queues of every block (sim/watchdog.h), and the report of
// its first cycle.
template <class Policy>
void Engine<Policy>::findDeadlock(std::span<Engine* const> engines, Control& control, std::uint64_t lastMove) {
  const Engine& first = *engines.front();
  const std::uint32_t vcs = first.vcs_;
  control.deadlock = true;
  control.report.cycle = control.now;
  control.report.lastMove = lastMove;
  // Wait-for graph on (channel, VC) queues: the front packet of an input queue waits for
  // every full output queue it may take (all of them are full, or it would have moved).
  WaitForGraph graph(std::size_t{first.channels_} * vcs);
  std::vector<HopChoice> choices(first.semantics_.choiceCapacity());
  auto front = [&](std::size_t q) -> const Packet* {  // the packet at the front of input queue q
    const Engine& owner = *engines[first.targetBlock_[q / vcs]];
    const auto channel = static_cast<std::uint32_t>(q / vcs), vc = static_cast<std::uint32_t>(q % vcs);
    if (owner.vcAt(channel, vc).inSize == 0) return nullptr;
    return &owner.packets_[owner.ringAt(channel, vc)[owner.vcAt(channel, vc).inHead]];
  };
  auto record = [&](std::uint32_t channel) -> const ChannelState& {  // (the receiving block's)
    return engines[first.targetBlock_[channel]]->chan(channel);
  };
  for (std::size_t q = 0; q < graph.size(); ++q) {
    const std::uint32_t channel = static_cast<std::uint32_t>(q / vcs);
    const Packet* packet = record(channel).targetIsSwitch ? front(q) : nullptr;
    if (packet == nullptr) continue;
    const NodeId at = first.network_.switchNode(record(channel).targetIndex);
    const std::size_t count = first.semantics_.hopChoices(at, ChannelId::fromIndex(channel), packet->address,
                                                          LayerId::fromIndex(packet->layer), choices);
    for (std::size_t i = 0; i < count; ++i) {
      const HopStep step = first.semantics_.step(at, packet->address, choices[i].port);
      if (!step.channel.valid() || !record(static_cast<std::uint32_t>(step.channel.index())).targetIsSwitch) continue;
      for (std::uint32_t v = choices[i].layer.value; v < vcs; v += first.layers_) {
        graph.addWait(static_cast<std::uint32_t>(q), static_cast<std::uint32_t>(step.channel.index() * vcs + v));
      }
    }
  }
  for (const std::uint32_t q : graph.firstCycle()) {
    control.report.channels.push_back(
        fmt::format("{} vc {}", first.network_.describeChannel(ChannelId::fromIndex(q / vcs)), q % vcs));
    if (const Packet* packet = front(q)) control.report.packets.push_back(packet->serial);
  }
}

}  // namespace routelab::sim
