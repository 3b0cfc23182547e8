// The engine's cycle loop, measurement, checks and deadlock report. Model: sim/model.h.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.h"
#include "sim/engine.h"

namespace routelab::sim {

namespace {

constexpr std::uint64_t kKindShift = 60;
constexpr std::uint64_t kPayloadMask = (std::uint64_t{1} << kKindShift) - 1;
constexpr std::uint64_t kWarmupWindow = 1000;
constexpr int kWarmupMinWindows = 3;
constexpr int kWarmupMaxWindows = 10;
constexpr double kWarmupTolerance = 0.05;
constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

double percentile(std::vector<double>& values, double fraction) {
  if (values.empty()) return 0;
  const auto rank = static_cast<std::size_t>(std::ceil(fraction * double(values.size()))) - 1;
  const std::size_t at = std::min(rank, values.size() - 1);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

double mean(const std::vector<double>& values) {
  double sum = 0;
  for (double v : values) sum += v;
  return values.empty() ? 0 : sum / double(values.size());
}

}  // namespace

void Engine::runCycle() {
  if (trace_ != nullptr) {
    while (traceNext_ < trace_->messages.size()) {
      const TraceMessage& message = trace_->messages[traceNext_];
      if (static_cast<std::uint64_t>(double(message.cycle) / trace_->compression) > now_) break;
      const std::uint64_t packets =
          std::max<std::uint64_t>(1, (message.bytes + trace_->payloadBytes - 1) / trace_->payloadBytes);
      enqueueMessage(message.source, message.destination, static_cast<std::uint32_t>(packets), true);
      ++traceNext_;
    }
  } else if (generating_) {
    while (!generations_.empty() && generations_.top().first <= now_) {
      const std::uint32_t terminal = generations_.top().second;
      generations_.pop();
      generate(terminal);
    }
  }
  auto& bucket = wheel_[now_ & mask_];
  for (std::size_t i = 0; i < bucket[kPhaseEvents].size(); ++i) processEvent(bucket[kPhaseEvents][i]);
  for (std::size_t i = 0; i < bucket[kPhaseSwitches].size(); ++i) {
    allocateSwitch(static_cast<std::uint32_t>(bucket[kPhaseSwitches][i]));
  }
  // Links act in channel order: only the in-order sources share state (the destinations'
  // outstanding counts), and the order among them is the model's.
  auto& links = bucket[kPhaseLinks];
  if (config_.inOrder && links.size() > 1) std::sort(links.begin(), links.end());
  for (std::size_t i = 0; i < links.size(); ++i) startLink(static_cast<std::uint32_t>(links[i]));
  for (auto& events : bucket) {
    pendingEvents_ -= events.size();
    events.clear();
  }
}

void Engine::updateWarmup() {
  const double average = warmupCount_ == 0 ? 0.0 : warmupSum_ / double(warmupCount_);
  const int windows = static_cast<int>(now_ / kWarmupWindow);
  if (warmupCount_ > 0 && warmupPrevious_ > 0 &&
      std::abs(average - warmupPrevious_) <= kWarmupTolerance * warmupPrevious_) {
    ++warmupStable_;
  } else {
    warmupStable_ = 0;
  }
  warmupPrevious_ = average;
  warmupSum_ = 0;
  warmupCount_ = 0;
  warmupCheck_ += kWarmupWindow;
  if ((windows >= kWarmupMinWindows && warmupStable_ >= 2) || windows >= kWarmupMaxWindows) {
    warmupDone_ = true;
    windowStart_ = now_;
    windowEnd_ = now_ + config_.measureCycles;
  }
}

bool Engine::finished() {
  if (trace_ != nullptr) return traceNext_ == trace_->messages.size() && released_ == generated_;
  if (!warmupDone_ || now_ < windowEnd_) return false;
  if (config_.drainAll) {
    generating_ = false;
    return released_ == generated_;
  }
  const std::uint64_t drain = config_.drainCycles > 0 ? config_.drainCycles : 4 * config_.measureCycles;
  return measuredDelivered_ == measuredGenerated_ || now_ >= windowEnd_ + drain;
}

SimResult Engine::run(const SimProgress& progress) {
  const std::uint64_t expected =
      trace_ != nullptr ? 0 : (warmupDone_ ? windowEnd_ : 5 * kWarmupWindow + config_.measureCycles);
  while (true) {
    if (!warmupDone_ && now_ >= warmupCheck_) updateWarmup();
    if (finished()) break;
    if (pendingEvents_ == 0) {  // nothing moves before the next source acts: jump there
      std::uint64_t next = kNever;
      if (trace_ != nullptr && traceNext_ < trace_->messages.size()) {
        next = static_cast<std::uint64_t>(double(trace_->messages[traceNext_].cycle) / trace_->compression);
      } else if (trace_ == nullptr && generating_ && !generations_.empty()) {
        next = generations_.top().first;
      }
      if (!warmupDone_) next = std::min(next, warmupCheck_);
      if (warmupDone_ && windowEnd_ != kNever && now_ < windowEnd_) next = std::min(next, windowEnd_);
      if (injected_ > delivered_ || released_ < generated_) next = std::min(next, lastMove_ + config_.watchdogCycles);
      if (next == kNever) break;
      now_ = std::max(now_, next);
      if (!warmupDone_ && now_ >= warmupCheck_) continue;
      if (finished()) break;
    }
    runCycle();
    if (config_.checkInvariants) checkInvariants();
    if ((injected_ > delivered_ || released_ < generated_) && now_ - lastMove_ >= config_.watchdogCycles) {
      findDeadlock();
      break;
    }
    ++now_;
    if (progress && (now_ & 4095) == 0) progress(now_, std::max(expected, now_));
  }
  return collect();
}

void Engine::checkInvariants() const {
  const std::size_t queues = std::size_t{channels_} * vcs_;
  std::vector<std::uint32_t> inFlight(queues, 0), creditsDue(queues, 0);
  std::vector<std::uint8_t> seen(packets_.size(), 0);
  std::uint64_t live = 0;
  auto mark = [&](std::uint32_t packetId, const char* where) {
    if (seen[packetId]++)
      throw SimulationError(fmt::format("invariant: packet {} is in two places ({})", packetId, where));
    ++live;
  };
  for (const auto& bucket : wheel_) {
    for (std::uint64_t event : bucket[kPhaseEvents]) {
      const auto payload = static_cast<std::uint32_t>(event & kPayloadMask);
      const std::uint64_t kind = event >> kKindShift;
      if (kind == kArrive) {
        mark(payload, "on a wire");
        ++inFlight[std::size_t{packets_[payload].channel} * vcs_ + packets_[payload].vc];
      } else if (kind == kDeliver) {
        mark(payload, "ejecting");
      } else if (kind == kCredit) {
        ++creditsDue[payload];
      }
    }
  }
  for (std::size_t q = 0; q < queues; ++q) {
    if (inSize_[q] > slots_ || outOccupied_[q] > slots_ || outSize_[q] > outOccupied_[q] || credits_[q] > slots_) {
      throw SimulationError(fmt::format("invariant: queue bounds broken at channel {} vc {}", q / vcs_, q % vcs_));
    }
    for (std::uint32_t i = 0; i < inSize_[q]; ++i)
      mark(inQueue_[q * slots_ + (inHead_[q] + i) % slots_], "input queue");
    for (std::uint32_t i = 0; i < outSize_[q]; ++i)
      mark(outQueue_[q * slots_ + (outHead_[q] + i) % slots_], "output queue");
    // Every credit of a channel into a switch is at the sender, on its way back, or held by
    // a packet on the wire or in the input queue.
    if (targetIsSwitch_[q / vcs_] && credits_[q] + creditsDue[q] + inFlight[q] + inSize_[q] != slots_) {
      throw SimulationError(
          fmt::format("invariant: channel {} vc {} has {} credits + {} returning + {} on the wire + "
                      "{} queued != {} slots",
                      q / vcs_, q % vcs_, credits_[q], creditsDue[q], inFlight[q], inSize_[q], slots_));
    }
  }
  if (live != injected_ - delivered_) {
    throw SimulationError(
        fmt::format("invariant: {} packets in the network, {} injected - {} delivered", live, injected_, delivered_));
  }
}

void Engine::findDeadlock() {
  deadlock_ = true;
  deadlockReport_.cycle = now_;
  deadlockReport_.lastMove = lastMove_;
  // Wait-for graph on (channel, VC) queues: the front packet of an input queue waits for
  // every full output queue it may take (all of them are full, or it would have moved).
  const std::size_t queues = std::size_t{channels_} * vcs_;
  std::vector<std::vector<std::uint32_t>> waitsFor(queues);
  for (std::size_t q = 0; q < queues; ++q) {
    const std::uint32_t channel = static_cast<std::uint32_t>(q / vcs_);
    if (!targetIsSwitch_[channel] || inSize_[q] == 0) continue;
    const Packet& packet = packets_[inQueue_[q * slots_ + inHead_[q]]];
    const NodeId at = network_.switchNode(targetIndex_[channel]);
    const std::size_t count = semantics_.hopChoices(at, ChannelId::fromIndex(channel), packet.address,
                                                    LayerId::fromIndex(packet.layer), choices_);
    for (std::size_t i = 0; i < count; ++i) {
      const HopStep step = semantics_.step(at, packet.address, choices_[i].port);
      if (!step.channel.valid() || !targetIsSwitch_[step.channel.index()]) continue;
      for (std::uint32_t v = choices_[i].layer.value; v < vcs_; v += layers_) {
        waitsFor[q].push_back(static_cast<std::uint32_t>(step.channel.index() * vcs_ + v));
      }
    }
  }
  std::vector<std::uint8_t> state(queues, 0);  // 0 new, 1 on the path, 2 done
  std::vector<std::uint32_t> path;
  for (std::size_t root = 0; root < queues && deadlockReport_.channels.empty(); ++root) {
    if (state[root] != 0 || waitsFor[root].empty()) continue;
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{static_cast<std::uint32_t>(root), 0}};
    state[root] = 1;
    path.assign(1, static_cast<std::uint32_t>(root));
    while (!stack.empty() && deadlockReport_.channels.empty()) {
      auto& [node, next] = stack.back();
      if (next == waitsFor[node].size()) {
        state[node] = 2;
        stack.pop_back();
        path.pop_back();
        continue;
      }
      const std::uint32_t to = waitsFor[node][next++];
      if (state[to] == 1) {
        const auto begin = std::find(path.begin(), path.end(), to);
        for (auto it = begin; it != path.end(); ++it) {
          const std::uint32_t channel = *it / vcs_;
          deadlockReport_.channels.push_back(
              fmt::format("{} vc {}", network_.describeChannel(ChannelId::fromIndex(channel)), *it % vcs_));
          if (inSize_[*it] > 0) deadlockReport_.packets.push_back(inQueue_[std::size_t{*it} * slots_ + inHead_[*it]]);
        }
      } else if (state[to] == 0) {
        state[to] = 1;
        stack.emplace_back(to, 0);
        path.push_back(to);
      }
    }
  }
}

SimResult Engine::collect() {
  SimResult result;
  result.cycles = now_;
  result.vcs = vcs_;
  result.warmupCycles = trace_ != nullptr ? 0 : (warmupDone_ ? windowStart_ : now_);
  const std::uint64_t windowEnd = std::min(windowEnd_, now_);
  result.measureCycles = warmupDone_ && windowEnd > windowStart_ ? windowEnd - windowStart_ : 0;
  const double denominator = double(terminals_) * double(std::max<std::uint64_t>(1, result.measureCycles));
  result.offered = double(measuredGenerated_) * flits_ / denominator;
  result.accepted = double(windowFlitsDelivered_) / denominator;
  result.latencyAvg = mean(latencies_);
  result.totalLatencyAvg = mean(totalLatencies_);
  result.reorderDelayAvg = latencies_.empty() ? 0 : reorderDelaySum_ / double(latencies_.size());
  result.latencyMax = latencies_.empty() ? 0 : *std::max_element(latencies_.begin(), latencies_.end());
  result.latencyP50 = percentile(latencies_, 0.5);
  result.latencyP99 = percentile(latencies_, 0.99);
  result.totalLatencyP99 = percentile(totalLatencies_, 0.99);
  result.packetsGenerated = generated_;
  result.packetsInjected = injected_;
  result.packetsDelivered = delivered_;
  result.measuredPackets = measuredGenerated_;
  result.measuredDelivered = measuredDelivered_;
  result.outOfOrder = outOfOrder_;
  result.maxReorderOccupancy = maxHeld_;
  result.lastDelivery = lastDelivery_;
  result.averageHops = delivered_ == 0 ? 0 : double(hopSum_) / double(delivered_);
  result.deadlock = deadlock_;
  result.deadlockReport = deadlockReport_;
  result.saturated = deadlock_ || measuredDelivered_ < measuredGenerated_ || result.accepted < 0.95 * result.offered;
  result.channelUtilization.resize(channels_);
  for (std::uint32_t c = 0; c < channels_; ++c) {
    result.channelUtilization[c] = double(channelFlits_[c]) / double(std::max<std::uint64_t>(1, result.measureCycles));
  }
  result.packets = std::move(records_);
  return result;
}

}  // namespace routelab::sim
