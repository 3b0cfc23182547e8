// The engine's set-up (sim/engine.h): the configuration's checks, the channel records, the
// switches, the resolved routing candidates, the event grouping and the traffic sources.
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
#include <utility>
#include <variant>

#include "core/errors.h"

namespace routelab::sim {

template <class Policy>
Engine<Policy>::Engine(const Network& network, const RoutingSemantics& semantics, const SimConfig& config,
                       const Trace* trace, const Partitioning& partitioning, std::uint32_t block)
    : network_(network),
      semantics_(semantics),
      config_(config),
      trace_(trace),
      partitioning_(partitioning),
      block_(block),
      destinations_(trace != nullptr ? std::string("uniform") : config.traffic, network, config.seed) {
  const RoutingResult& routing = semantics.routing();
  validateSimConfig(config_, trace_ != nullptr);  // the ranges of sim/sim_options.h's rows
  layers_ = static_cast<std::uint32_t>(routing.layerCount());
  vcs_ = config_.vcs == 0 ? layers_ : config_.vcs;
  if (vcs_ < layers_) {
    throw SpecError(fmt::format("--vcs {}: the routing has {} layers and needs at least one virtual channel each",
                                config_.vcs, layers_));
  }
  if (vcs_ > 64) throw SpecError(fmt::format("--vcs {}: at most 64 virtual channels", vcs_));
  if (std::uint64_t{vcs_} * config_.bufferPackets > 65535) {
    throw SpecError(
        fmt::format("--vcs {} x --buffer-packets {}: at most 65535 packets per port", vcs_, config_.bufferPackets));
  }
  if (trace_ != nullptr && !(trace_->compression > 0)) throw SpecError("trace compression must be positive");
  if (trace_ != nullptr && trace_->payloadBytes == 0) throw SpecError("trace payload must be at least 1 byte");
  slots_ = config_.bufferPackets;
  flits_ = config_.packetFlits;
  setUpNetwork();
  setUpTraffic();
}

template <class Policy>
void Engine<Policy>::setUpNetwork() {
  channels_ = static_cast<std::uint32_t>(network_.channelCount());
  terminals_ = static_cast<std::uint32_t>(network_.terminalCount());
  if (std::uint64_t{channels_} << kVcBits > kPayloadMask) {
    throw SimulationError(
        fmt::format("{} channels: the simulator handles at most {}", channels_, kPayloadMask >> kVcBits));
  }
  targetBlock_ = partitioning_.ofChannelTarget.data();
  sourceBlock_ = partitioning_.ofChannelSource.data();
  single_ = partitioning_.count == 1;
  setUpRecords();
  for (std::uint32_t c = 0; c < channels_; ++c) {
    if (!ownsChannel(c)) continue;
    const ChannelId channel = ChannelId::fromIndex(c);
    chan(c).targetIsSwitch = network_.isSwitch(network_.target(channel)) ? 1 : 0;
    chan(c).sourceIsSwitch = network_.isSwitch(network_.source(channel)) ? 1 : 0;
    chan(c).targetIndex = network_.kindIndex(network_.target(channel));
    chan(c).sourceIndex = network_.kindIndex(network_.source(channel));
  }
  for (auto& boxes : outbox_) boxes.resize(partitioning_.count);
  setUpSwitches();
  injection_.resize(terminals_);
  for (std::uint32_t t = 0; t < terminals_; ++t) {
    const NodeId terminal = network_.terminalNode(t);
    if (!semantics_.hasAddress(terminal)) {
      throw SimulationError(
          fmt::format("terminal '{}' owns no address: it can neither send nor receive", network_.name(terminal)));
    }
    injection_[t] = static_cast<std::uint32_t>(network_.injectionChannel(terminal).index());
  }
  const std::uint64_t allVcs = vcs_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << vcs_) - 1;
  for (std::uint32_t c = 0; c < channels_; ++c) {
    if (ownsChannel(c)) chan(c).outFreeVcs = allVcs;
  }
  layerVcs_.assign(layers_, 0);
  for (std::uint32_t v = 0; v < vcs_; ++v) layerVcs_[v % layers_] |= std::uint64_t{1} << v;
  layerOfVc_.resize(vcs_);
  for (std::uint32_t v = 0; v < vcs_; ++v) layerOfVc_[v] = static_cast<std::uint8_t>(v % layers_);
  selection_ = makeSelection(config_.selection, SelectionSetup{vcs_, slots_});
  arbitration_ = makeArbitration(config_.arbitration);
  separable_ = separable(arbitration_);
  choices_.resize(semantics_.choiceCapacity());
  capacity_ = std::min<std::size_t>(semantics_.choiceCapacity(), kCachedCandidates);
  overflow_.resize(semantics_.choiceCapacity());
  setUpResolution();
  assignZeros(channelFlits_, channels_, !single_);
  outNextInput_.assign(channels_, 0);
  sourceFlits_.assign(terminals_, 0);
  sourceMeasured_.assign(terminals_, 0);
  const std::uint64_t horizon = std::uint64_t{config_.routingDelay} + config_.flyTime + 2ULL * flits_ + 4;
  const std::uint64_t size = std::bit_ceil(horizon);
  mask_ = size - 1;
  wheel_.resize(size);
}

// Each switch's input ports (SwitchState::portBegin), port exits and selection stream.
template <class Policy>
void Engine<Policy>::setUpSwitches() {
  const std::size_t switches = network_.switchCount();
  sw_.assign(switches, SwitchState{});
  failWake_.assign(switches, kNever);
  std::uint32_t at = 0;
  for (std::size_t s = 0; s < switches; ++s) {
    sw_[s].portBegin = at;
    for (ChannelId out : network_.outChannels(network_.switchNode(s))) {
      const auto in = static_cast<std::uint32_t>(out.index() ^ 1U);  // the reverse channel comes in
      if (ownsChannel(in)) chan(in).portBit = static_cast<std::uint8_t>((at - sw_[s].portBegin) & 63);
      inPorts_.push_back(in);
      ++at;
    }
    sw_[s].ports = static_cast<std::uint16_t>(at - sw_[s].portBegin);
    narrow_ = narrow_ && sw_[s].ports <= 64;
    sw_[s].exitBegin = static_cast<std::uint32_t>(exits_.size());
    sw_[s].rng = Rng(deriveSeed(config_.seed, 0x5357ULL << 32 | s));
    const NodeId node = network_.switchNode(s);
    for (PortNumber port = 1; port <= network_.portCount(node); ++port) {
      Exit& exit = exits_.emplace_back();
      const ChannelId channel = network_.channelAt(node, port);
      if (!channel.valid()) continue;
      exit.channel = static_cast<std::uint32_t>(channel.index());
      const NodeId next = network_.target(channel);
      if (!network_.isSwitch(next)) exit.terminal = network_.terminalIndex(next);
    }
    sw_[s].portCount = network_.portCount(node);
  }
}

template <class Policy>
void Engine<Policy>::setUpResolution() {
  resolution_.clear();
  resolved_.clear();
  listUsable_.clear();
  if (semantics_.escape()) return;  // (a packet's choices span the layers: hopChoices per hop)
  std::uint32_t ports = 0;
  for (const SwitchState& state : sw_) ports = std::max<std::uint32_t>(ports, state.portCount);
  ports = std::min<std::uint32_t>(ports, kNoRoute - 1U);  // (a table stores ports up to 254)
  const std::size_t switches = sw_.size();
  resolution_.resize(layers_);
  for (std::uint32_t layer = 0; layer < layers_; ++layer) {
    const ForwardingTable& table = semantics_.layerTable(LayerId::fromIndex(layer));
    LayerResolution& r = resolution_[layer];
    // The ports of a switch's block: 1 .. ports (port p at p - 1), then the lists, each laid
    // over the end of the block where it can (fat-tree lists are rotations of one another:
    // a 4-ary tree's four up-port lists of four take three entries more, not sixteen).
    std::vector<PortNumber> layout(ports);
    std::iota(layout.begin(), layout.end(), PortNumber{1});
    const std::uint32_t lists = table.listCount();
    r.listOffset.assign(lists, 0);
    r.listLength.assign(lists, 0);
    for (ForwardingTable::ListId id = 0; id < lists; ++id) {
      const std::span<const PortNumber> list = table.list(id);
      if (list.size() > capacity_ ||
          std::ranges::any_of(list, [&](PortNumber p) { return p == kSelfPort || p > ports; }))
        continue;  // (not resolved: the general path)
      const auto found = std::search(layout.begin(), layout.end(), list.begin(), list.end());
      if (found != layout.end()) {
        r.listOffset[id] = static_cast<std::uint32_t>(found - layout.begin());
      } else {
        std::size_t overlap = list.size() - 1;  // the longest end of the layout the list starts with
        while (overlap > 0 && !std::equal(list.begin(), list.begin() + static_cast<std::ptrdiff_t>(overlap),
                                          layout.end() - static_cast<std::ptrdiff_t>(overlap)))
          --overlap;
        r.listOffset[id] = static_cast<std::uint32_t>(layout.size() - overlap);
        layout.insert(layout.end(), list.begin() + static_cast<std::ptrdiff_t>(overlap), list.end());
      }
      r.listLength[id] = static_cast<std::uint32_t>(list.size());
    }
    const std::size_t stride = layout.size();
    if (stride == 0 || resolved_.size() + stride * switches > kResolvedLimit ||
        listUsable_.size() + std::size_t{lists} * switches > kResolvedLimit) {
      r = LayerResolution{};  // (not resolved: every hop takes the general path)
      continue;
    }
    r.ports = ports;
    r.stride = static_cast<std::uint32_t>(stride);
    r.base = resolved_.size();
    r.usableBase = listUsable_.size();
    resolved_.resize(r.base + stride * switches, Candidate{kNoChannel, 0, 0, 0});
    listUsable_.resize(r.usableBase + std::size_t{lists} * switches, 0);
    const auto layerByte = static_cast<std::uint8_t>(layer);
    for (std::size_t s = 0; s < switches; ++s) {
      if (partitioning_.ofSwitch[s] != block_) continue;  // (never routed here)
      Candidate* block = &resolved_[r.base + s * stride];
      const Exit* exits = &exits_[sw_[s].exitBegin];
      const std::uint32_t portCount = std::min<std::uint32_t>(sw_[s].portCount, ports);
      auto cabled = [&](PortNumber port) {
        return port != kSelfPort && port <= portCount && exits[port - 1].channel != kNoChannel;
      };
      // A port with a cable: usable by a packet for the terminal behind it or, to a switch,
      // by any (routeHere checks the terminal of a single port).
      for (std::size_t i = 0; i < stride; ++i) {
        if (!cabled(layout[i])) continue;
        const Exit& exit = exits[layout[i] - 1];
        block[i] = {exit.channel, exit.terminal == kNoTerminal ? std::uint8_t{0} : kIntoTerminal, layerByte, layout[i]};
      }
      // A list whose every port leads to a switch: the same candidates for every packet.
      for (ForwardingTable::ListId id = 0; id < lists; ++id) {
        listUsable_[r.usableBase + s * lists + id] =
            r.listLength[id] != 0 && std::ranges::all_of(table.list(id), [&](PortNumber port) {
              return cabled(port) && exits[port - 1].terminal == kNoTerminal;
            });
      }
    }
  }
}

template <class Policy>
void Engine<Policy>::setUpGrouping() {
  switchCount_ = static_cast<std::uint32_t>(network_.switchCount());
  if constexpr (Policy::kGrouped) {
    const std::uint64_t keys = std::uint64_t{switchCount_} + terminals_;
    if (keys >= kOwnerLimit) {  // (streams() never chooses this policy then)
      throw SimulationError(
          fmt::format("{} switch and terminal keys: an event's owner field holds {}", keys, kOwnerLimit - 1));
    }
    const auto width = static_cast<std::uint32_t>(std::bit_width(keys - 1));
    bucketShift_ = width > kBucketBits ? width - kBucketBits : 0;
    bucketStart_.assign(((keys - 1) >> bucketShift_) + 2, 0);
  }
}

// The channel records (sim/channel_store.h): ChannelState, then per VC its VcState, rings
// and lazy credits' cycles.
template <class Policy>
void Engine<Policy>::setUpRecords() {
  store_.layOut(channels_, vcs_, slots_, 0);
  setUpGrouping();
  // Lazy credits (sim/credit_flow.h) where events are grouped: on fabrics whose state outgrows
  // the caches they save a miss and an event per hop; on small ones the events cost less.
  credits_.configure(Policy::kGrouped, 0, 2 * slots_);
  if (credits_.lazy()) {
    // Credits coming back at once per VC: the grants of one input are flits_ cycles apart at
    // least, and a credit travels flits_ - 1 + flyTime cycles; never more than the buffer.
    const std::uint32_t creditDelay = this->creditDelay();
    const std::uint32_t coming = std::min(slots_, creditDelay == 0 ? 1U : 1U + (creditDelay - 1) / flits_);
    credits_.configure(true, coming, 2 * slots_);
    store_.layOut(channels_, vcs_, slots_, coming);
  }
  // Only the records of this block's channels are written (ownsChannel).
  store_.allocate(!single_, [&](std::uint32_t c) { return ownsChannel(c); });
}

template <class Policy>
void Engine<Policy>::setUpTraffic() {
  // Each engine keeps the pairs of its own sources (next) and destinations (expected).
  PairTable pairs(terminals_, (std::size_t{1} << 20) / partitioning_.count, PairTable::kDenseCounterLimit,
                  config_.memoryBudgetBytes / partitioning_.count);
  // (Not where the packet records report the numbers.)
  pairs.forgetIdlePairs(!config_.recordPackets);
  delivery_ = InOrderDelivery(terminals_, config_.inOrder, config_.reorderPackets, std::move(pairs));
  terminalRng_.reserve(terminals_);
  for (std::uint32_t t = 0; t < terminals_; ++t) terminalRng_.emplace_back(deriveSeed(config_.seed, t));
  sourceQueue_.resize(terminals_);
  sourceHead_.assign(terminals_, 0);
  nextPath_.assign(terminals_, 0);
  injectedBy_.assign(terminals_, 0);
  window_ = MeasurementWindow::atStart(config_, trace_ != nullptr);
  if (trace_ != nullptr) return;
  messageRate_ = config_.load / (double(flits_) * config_.messagePackets);
  gaps_ = BernoulliGaps(messageRate_);
  poissonClock_.assign(terminals_, 0.0);
  for (std::uint32_t t = 0; t < terminals_; ++t) {
    if (partitioning_.ofTerminal[t] != block_ || !destinations_.sends(t)) continue;
    std::uint64_t first = 0;
    if (config_.injection == Injection::Bernoulli) {
      first = gaps_.next(0, terminalRng_[t]) - 1;
    } else {
      poissonClock_[t] = nextPoisson(0, messageRate_, terminalRng_[t]);
      first = static_cast<std::uint64_t>(poissonClock_[t]);
    }
    addGeneration(first, t);
  }
}

}  // namespace routelab::sim
