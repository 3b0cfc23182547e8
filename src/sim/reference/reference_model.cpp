// The plain cycle-by-cycle model (sim/reference/reference_model.h). Written from
// sim/model.h's text, not from the engine: per-flit credits and buffer counts, every
// component every cycle.
#include "sim/reference/reference_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <tuple>
#include <variant>

#include "core/errors.h"
#include "core/random.h"
#include "routing/semantics.h"
#include "sim/arbitration/registry.h"
#include "sim/selection/registry.h"
#include "sim/simulator.h"
#include "sim/traffic_source.h"

namespace routelab::sim {

namespace {

struct RefPacket {
  PacketRecord record;
  std::uint64_t serial = 0;  // source << 32 | packets that source injected before it
  Address address = 0;
  std::uint32_t layer = 0;
  std::uint64_t readyAt = 0;  // routing done (input queue) / head available (output queue)
};

struct Transfer {  // a packet crossing a crossbar (input -> output queue) or a link
  std::uint64_t start = 0;
  std::uint32_t packet = 0;
  std::uint32_t channel = 0;  // input channel (crossbar) or the link
  std::uint32_t vc = 0;
};

struct Waiting {
  std::uint64_t generated = 0, sequence = 0;
  std::uint32_t destination = 0, path = 0;
};

class Reference {
 public:
  Reference(const Network& network, const RoutingResult& routing, const SimConfig& config)
      : net_(network), sem_(network, routing), cfg_(config), dest_(config.traffic, network, config.seed) {
    layers_ = static_cast<std::uint32_t>(routing.layerCount());
    vcs_ = cfg_.vcs == 0 ? layers_ : cfg_.vcs;
    P_ = cfg_.packetFlits;
    C_ = static_cast<std::uint32_t>(net_.channelCount());
    N_ = static_cast<std::uint32_t>(net_.terminalCount());
    const std::size_t q = std::size_t{C_} * vcs_;
    creditFlits_.assign(q, cfg_.bufferPackets * P_);
    outFlits_.assign(q, 0);
    inQueue_.resize(q);
    outQueue_.resize(q);
    linkFree_.assign(C_, 0);
    xIn_.assign(C_, 0);
    xOut_.assign(C_, 0);
    linkVc_.assign(C_, 0);
    inVc_.assign(C_, 0);
    nextPort_.assign(net_.switchCount(), 0);
    outNext_.assign(C_, 0);
    injectedBy_.assign(N_, 0);
    for (std::size_t s = 0; s < net_.switchCount(); ++s)
      switchRng_.emplace_back(deriveSeed(cfg_.seed, 0x5357ULL << 32 | s));
    for (std::uint32_t t = 0; t < N_; ++t) rng_.emplace_back(deriveSeed(cfg_.seed, t));
    source_.resize(N_);
    nextGen_.assign(N_, ~std::uint64_t{0});
    rate_ = cfg_.load / (double(P_) * cfg_.messagePackets);
    for (std::uint32_t t = 0; t < N_; ++t) {
      if (dest_.sends(t)) nextGen_[t] = nextBernoulli(0, rate_, rng_[t]) - 1;
    }
    outstanding_.assign(N_, 0);
    selection_ = makeSelection(cfg_.selection, SelectionSetup{vcs_, cfg_.bufferPackets});
    arbitration_ = makeArbitration(cfg_.arbitration);
  }

  std::vector<PacketRecord> run(std::uint64_t generateUntil, std::uint64_t limit) {
    for (now_ = 0; now_ < limit; ++now_) {
      if (now_ >= generateUntil && released_.size() == generated_) break;
      if (now_ < generateUntil) generatePhase();
      arrivalPhase();
      for (std::uint32_t s = 0; s < net_.switchCount(); ++s) allocate(s);
      for (std::uint32_t c = 0; c < C_; ++c) link(c);
    }
    std::sort(released_.begin(), released_.end(), [](const PacketRecord& a, const PacketRecord& b) {
      return std::tie(a.source, a.destination, a.sequence) < std::tie(b.source, b.destination, b.sequence);
    });
    return released_;
  }

 private:
  std::size_t q(std::uint32_t c, std::uint32_t v) const { return std::size_t{c} * vcs_ + v; }
  // Packets an output queue holds: a packet counts until its last flit has left.
  std::uint32_t packetsIn(std::uint32_t c, std::uint32_t v) const { return (outFlits_[q(c, v)] + P_ - 1) / P_; }
  bool toSwitch(std::uint32_t c) const { return net_.isSwitch(net_.target(ChannelId::fromIndex(c))); }

  void generatePhase() {
    for (std::uint32_t t = 0; t < N_; ++t) {
      while (nextGen_[t] == now_) {
        const std::uint32_t d = dest_.draw(t, rng_[t]);
        const std::uint32_t paths = sem_.pathCount(net_.terminalNode(d));
        for (std::uint32_t i = 0; i < cfg_.messagePackets; ++i) {
          Waiting w{now_, sequence_[{t, d}]++, d, 0};
          if (paths > 1 && cfg_.pathPolicy == PathPolicy::Random) w.path = std::uint32_t(rng_[t].below(paths));
          if (paths > 1 && cfg_.pathPolicy == PathPolicy::RoundRobin) w.path = roundRobin_[t]++ % paths;
          source_[t].push_back(w);
          ++generated_;
        }
        nextGen_[t] = nextBernoulli(now_, rate_, rng_[t]);
      }
    }
  }

  // Flits that left a buffer in earlier cycles free their space / return their credit now.
  void arrivalPhase() {
    for (std::size_t i = 0; i < crossings_.size();) {
      const Transfer& x = crossings_[i];
      // Flit f leaves the input buffer at x.start + f; its credit is back F cycles later.
      if (now_ >= x.start + cfg_.flyTime && now_ <= x.start + P_ - 1 + cfg_.flyTime) ++creditFlits_[q(x.channel, x.vc)];
      if (now_ == x.start + P_ - 1 + cfg_.flyTime) {
        crossings_.erase(crossings_.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      ++i;
    }
    for (std::size_t i = 0; i < wires_.size();) {
      const Transfer& x = wires_[i];
      // Flit f leaves the output buffer at x.start + f and frees its space from the next cycle.
      if (net_.isSwitch(net_.source(ChannelId::fromIndex(x.channel))) && now_ >= x.start + 1 && now_ <= x.start + P_) {
        --outFlits_[q(x.channel, x.vc)];
      }
      RefPacket& p = packets_[x.packet];
      if (toSwitch(x.channel) && now_ == x.start + cfg_.flyTime) {
        inQueue_[q(x.channel, x.vc)].push_back(x.packet);
        p.readyAt = now_ + cfg_.routingDelay;
      }
      if (!toSwitch(x.channel) && now_ == x.start + cfg_.flyTime + P_ - 1) deliver(x.packet);
      const std::uint64_t end = std::max<std::uint64_t>(
          x.start + P_, toSwitch(x.channel) ? x.start + cfg_.flyTime : x.start + cfg_.flyTime + P_ - 1);
      if (now_ >= end) {
        wires_.erase(wires_.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      ++i;
    }
  }

  void deliver(std::uint32_t id) {
    PacketRecord r = packets_[id].record;
    r.delivered = now_;
    const std::pair<std::uint32_t, std::uint32_t> pair{r.source, r.destination};
    std::uint64_t& expected = expected_[pair];
    auto& held = held_[pair];
    if (r.sequence != expected) {
      if (!cfg_.inOrder) {
        r.released = now_;
        released_.push_back(r);
        held[r.sequence] = {};
        held[r.sequence].released = 1;  // marker: counted only
      } else {
        held[r.sequence] = r;
      }
      return;
    }
    r.released = now_;
    released_.push_back(r);
    if (cfg_.inOrder) --outstanding_[r.destination];
    ++expected;
    for (auto it = held.find(expected); it != held.end(); it = held.find(expected)) {
      if (cfg_.inOrder) {
        it->second.released = now_;
        released_.push_back(it->second);
        --outstanding_[r.destination];
      }
      held.erase(it);
      ++expected;
    }
  }

  // A free (output channel, VC) choice of a packet at a switch.
  struct Free {
    std::uint32_t channel, vc, layer, port;
  };
  struct Request {
    std::uint32_t in, vc, port, packet;
    Free choice;
  };

  void allocate(std::uint32_t s) {
    if (!separable(arbitration_)) {
      allocateGreedy(s);
      return;
    }
    // Separable input-first (model.h): the requests from the state before any grant, then
    // each output's pick among its requests, then the grants.
    const NodeId at = net_.switchNode(s);
    const auto outs = net_.outChannels(at);
    const auto ports = static_cast<std::uint32_t>(outs.size());
    std::vector<Request> requests;
    for (std::uint32_t port = 0; port < ports; ++port) {
      const auto in = static_cast<std::uint32_t>(outs[port].index() ^ 1U);
      if (xIn_[in] > now_) continue;
      for (std::uint32_t j = 0; j < vcs_; ++j) {
        const std::uint32_t v = (inVc_[in] + j) % vcs_;
        if (inQueue_[q(in, v)].empty()) continue;
        Free choice{};
        if (choose(s, at, in, v, choice)) {
          requests.push_back({in, v, port, inQueue_[q(in, v)].front(), choice});
          break;
        }
      }
    }
    std::vector<Request> winners;
    for (const Request& r : requests) {
      bool wins = true;
      const ArbiterView view{*this, ports};
      for (const Request& other : requests) {
        if (&other == &r || other.choice.channel != r.choice.channel) continue;
        if (std::visit([&](const auto& a) { return a.beats(view, other, r); }, arbitration_)) wins = false;
      }
      if (wins) winners.push_back(r);
    }
    for (const Request& r : winners) {
      take(r.in, r.vc, r.choice);
      inVc_[r.in] = (r.vc + 1) % vcs_;
      outNext_[r.choice.channel] = (r.port + 1) % ports;
    }
  }

  // What the arbitration reads of a request (sim/arbitration/arbiter.h).
  struct ArbiterView {
    const Reference& model;
    std::uint32_t switchPorts;
    std::uint32_t inputPort(const Request& r) const { return r.port; }
    std::uint32_t ports() const { return switchPorts; }
    std::uint32_t outputStart(const Request& r) const { return model.outNext_[r.choice.channel]; }
    std::tuple<std::uint64_t, std::uint64_t, std::uint32_t> age(const Request& r) const {
      const PacketRecord& p = model.packets_[r.packet].record;
      return {p.generated, p.injected, p.source};
    }
  };

  // Arbitration::SwitchRoundRobin: the inputs one after another, each granted at once.
  void allocateGreedy(std::uint32_t s) {
    const NodeId at = net_.switchNode(s);
    const auto outs = net_.outChannels(at);
    const auto ports = static_cast<std::uint32_t>(outs.size());
    const std::uint32_t start = nextPort_[s];  // fixed for the whole pass
    for (std::uint32_t k = 0; k < ports; ++k) {
      const std::uint32_t port = (start + k) % ports;
      const auto in = static_cast<std::uint32_t>(outs[port].index() ^ 1U);
      if (xIn_[in] > now_) continue;
      for (std::uint32_t j = 0; j < vcs_; ++j) {
        const std::uint32_t v = (inVc_[in] + j) % vcs_;
        if (inQueue_[q(in, v)].empty()) continue;
        if (grant(s, at, in, v)) {
          inVc_[in] = (v + 1) % vcs_;
          nextPort_[s] = (port + 1) % ports;
          break;
        }
      }
    }
  }

  bool grant(std::uint32_t s, NodeId at, std::uint32_t in, std::uint32_t v) {
    Free choice{};
    if (!choose(s, at, in, v, choice)) return false;
    take(in, v, choice);
    return true;
  }

  // What the selection function reads of one request (sim/selection/selection.h), computed
  // from the model's own counts.
  struct Option {
    std::uint32_t channel, layer, port;
  };
  struct View {
    Reference& model;
    const std::vector<Option>& options;
    std::uint32_t s;
    const RefPacket& packet;
    std::size_t size() const { return options.size(); }
    std::uint64_t freeVcs(std::size_t i) const {
      const Option& o = options[i];
      if (model.xOut_[o.channel] > model.now_) return 0;
      std::uint64_t vcs = 0;
      for (std::uint32_t w = o.layer; w < model.vcs_; w += model.layers_) {
        if (model.outFlits_[model.q(o.channel, w)] + model.P_ <= model.cfg_.bufferPackets * model.P_)
          vcs |= std::uint64_t{1} << w;
      }
      return vcs;
    }
    PortNumber port(std::size_t i) const { return static_cast<PortNumber>(options[i].port); }
    std::uint32_t queued(std::size_t i, std::uint32_t vc) const { return model.packetsIn(options[i].channel, vc); }
    std::uint32_t credits(std::size_t i, std::uint32_t vc) const {
      return model.creditFlits_[model.q(options[i].channel, vc)] / model.P_;
    }
    Rng& rng() const { return model.switchRng_[s]; }
    std::uint64_t packetDraw() const {
      return deriveSeed(deriveSeed(model.cfg_.seed, packet.serial), packet.record.hops);
    }
  };

  // The selection of the front packet of input queue (in, v): false when it has no free choice.
  bool choose(std::uint32_t s, NodeId at, std::uint32_t in, std::uint32_t v, Free& chosen) {
    const std::uint32_t id = inQueue_[q(in, v)].front();
    RefPacket& p = packets_[id];
    if (p.readyAt > now_) return false;
    std::vector<HopChoice> choices(sem_.choiceCapacity());
    const std::size_t n =
        sem_.hopChoices(at, ChannelId::fromIndex(in), p.address, LayerId::fromIndex(p.layer), choices);
    std::vector<Option> options;  // the choices whose port leads to a switch or to the destination
    for (std::size_t i = 0; i < n; ++i) {
      const HopStep step = sem_.step(at, p.address, choices[i].port);
      // A port without a cable (routing/semantics.h, DeadPort) or into another terminal is
      // skipped; a hop with no other choice is refused, as the engine does
      // (sim/engine_routing.h).
      if (!step.channel.valid()) continue;
      const NodeId target = net_.target(step.channel);
      if (net_.isTerminal(target) && net_.terminalIndex(target) != p.record.destination) continue;
      options.push_back({static_cast<std::uint32_t>(step.channel.index()), choices[i].layer.value, choices[i].port});
    }
    if (options.empty()) {
      throw SimulationError(fmt::format("reference model: the routing offers terminal {} -> {} no usable port at '{}'",
                                        p.record.source, p.record.destination, net_.name(at)));
    }
    const View view{*this, options, s, p};
    const SelectionChoice choice =
        std::visit([&](const auto& selection) { return selection.choose(view); }, selection_);
    if (!choice.chosen()) return false;
    const Option& o = options[choice.candidate];
    chosen = {o.channel, choice.vc, o.layer, o.port};
    return true;
  }

  // The grant: the front packet of (in, v) crosses to `chosen`.
  void take(std::uint32_t in, std::uint32_t v, const Free& chosen) {
    const std::uint32_t id = inQueue_[q(in, v)].front();
    RefPacket& p = packets_[id];
    inQueue_[q(in, v)].pop_front();
    crossings_.push_back({now_, id, in, v});
    xIn_[in] = now_ + P_;
    xOut_[chosen.channel] = now_ + P_;
    outFlits_[q(chosen.channel, chosen.vc)] += P_;
    outQueue_[q(chosen.channel, chosen.vc)].push_back(id);
    p.layer = chosen.layer;
    p.readyAt = now_ + 1;
  }

  void send(std::uint32_t c, std::uint32_t id, std::uint32_t v) {
    packets_[id].record.hops++;
    wires_.push_back({now_, id, c, v});
    linkFree_[c] = now_ + P_;
    if (toSwitch(c)) creditFlits_[q(c, v)] -= P_;
  }

  void link(std::uint32_t c) {
    if (linkFree_[c] > now_) return;
    const NodeId from = net_.source(ChannelId::fromIndex(c));
    if (net_.isTerminal(from)) {
      inject(c, net_.terminalIndex(from));
      return;
    }
    for (std::uint32_t j = 0; j < vcs_; ++j) {
      const std::uint32_t v = (linkVc_[c] + j) % vcs_;
      auto& queue = outQueue_[q(c, v)];
      if (queue.empty() || packets_[queue.front()].readyAt > now_) continue;
      if (toSwitch(c) && creditFlits_[q(c, v)] < P_) continue;
      const std::uint32_t id = queue.front();
      queue.pop_front();
      linkVc_[c] = (v + 1) % vcs_;
      send(c, id, v);
      return;
    }
  }

  void inject(std::uint32_t c, std::uint32_t t) {
    if (source_[t].empty()) return;
    const Waiting w = source_[t].front();
    if (cfg_.inOrder && outstanding_[w.destination] >= cfg_.reorderPackets) return;
    const NodeId src = net_.terminalNode(t), dst = net_.terminalNode(w.destination);
    const std::uint32_t paths = sem_.pathCount(dst);
    const bool adaptive = paths > 1 && cfg_.pathPolicy == PathPolicy::Adaptive;
    std::array<LayerId, 64> layers{};
    std::uint32_t bestVc = vcs_, bestCredits = 0, bestPath = w.path;
    Address bestAddress = 0;
    for (std::uint32_t k = 0; k < (adaptive ? paths : 1); ++k) {
      const std::uint32_t path = adaptive ? (roundRobin_[t] + k) % paths : w.path;
      const Address a = sem_.address(src, dst, path);
      const std::size_t n = sem_.injectionLayers(src, a, layers);
      std::uint32_t vc = vcs_, credits = 0;
      for (std::size_t i = 0; i < n && credits == 0; ++i) {
        for (std::uint32_t v = layers[i].value; v < vcs_; v += layers_) {
          const std::uint32_t packetsFree = creditFlits_[q(c, v)] / P_;
          if (packetsFree > credits) {
            credits = packetsFree;
            vc = v;
          }
        }
      }
      if (credits > bestCredits) {
        bestCredits = credits;
        bestVc = vc;
        bestPath = path;
        bestAddress = a;
      }
    }
    if (bestVc == vcs_) return;
    if (adaptive) roundRobin_[t] = (bestPath + 1) % paths;
    source_[t].pop_front();
    RefPacket p;
    p.record = {t, w.destination, w.sequence, w.generated, now_, 0, 0, 0};
    p.address = bestAddress;
    p.serial = std::uint64_t{t} << 32 | injectedBy_[t]++;
    p.layer = bestVc % layers_;
    packets_.push_back(p);
    if (cfg_.inOrder) ++outstanding_[w.destination];
    send(c, static_cast<std::uint32_t>(packets_.size() - 1), bestVc);
  }

  const Network& net_;
  RoutingSemantics sem_;
  SimConfig cfg_;
  DestinationSource dest_;
  std::uint32_t layers_ = 0, vcs_ = 0, P_ = 0, C_ = 0, N_ = 0;
  std::uint64_t now_ = 0;
  double rate_ = 0;
  std::vector<std::uint32_t> creditFlits_, outFlits_;
  std::vector<std::deque<std::uint32_t>> inQueue_, outQueue_;
  std::vector<std::uint64_t> linkFree_, xIn_, xOut_;
  std::vector<std::uint32_t> linkVc_, inVc_, nextPort_, outNext_, injectedBy_;
  std::vector<Rng> switchRng_, rng_;
  std::vector<std::deque<Waiting>> source_;
  std::vector<std::uint64_t> nextGen_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> sequence_, expected_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::map<std::uint64_t, PacketRecord>> held_;
  std::map<std::uint32_t, std::uint32_t> roundRobin_;
  std::vector<std::uint32_t> outstanding_;
  std::vector<RefPacket> packets_;
  std::vector<Transfer> crossings_, wires_;
  std::vector<PacketRecord> released_;
  std::size_t generated_ = 0;
  SelectionFunction selection_;
  ArbitrationFunction arbitration_;
};

}  // namespace

std::vector<PacketRecord> referenceSimulate(const Network& network, const RoutingResult& routing,
                                            const SimConfig& config, std::uint64_t limit) {
  if (config.injection != Injection::Bernoulli) throw SpecError("the reference model has Bernoulli sources only");
  if (config.warmupCycles == 0) {
    throw SpecError("the reference model needs a fixed warm-up (--warmup N): the automatic one is the engine's");
  }
  Reference reference(network, routing, config);
  return reference.run(config.warmupCycles + config.measureCycles, limit);
}

}  // namespace routelab::sim

namespace routelab::sim {

std::uint64_t referenceLimit(const SimConfig& config) {
  const std::uint64_t drain = config.drainCycles != 0 ? config.drainCycles : 4 * config.measureCycles;
  return config.warmupCycles + config.measureCycles + drain + config.watchdogCycles;
}

ModelComparison compareWithReference(const Network& network, const RoutingResult& routing, SimConfig config,
                                     std::uint64_t limit) {
  config.drainAll = true;
  config.recordPackets = true;
  std::vector<PacketRecord> reference = referenceSimulate(network, routing, config, limit);
  return comparePacketRecords(simulate(network, routing, config).packets, std::move(reference));
}

ModelComparison comparePacketRecords(std::vector<PacketRecord> engine, std::vector<PacketRecord> reference) {
  const auto byPair = [](const PacketRecord& a, const PacketRecord& b) {
    return std::tie(a.source, a.destination, a.sequence) < std::tie(b.source, b.destination, b.sequence);
  };
  std::sort(engine.begin(), engine.end(), byPair);
  std::sort(reference.begin(), reference.end(), byPair);
  ModelComparison comparison;
  comparison.packets = reference.size();
  for (std::size_t i = 0; i < std::min(engine.size(), reference.size()); ++i) {
    if (engine[i] == reference[i]) continue;
    const PacketRecord& e = engine[i];
    const PacketRecord& r = reference[i];
    comparison.equal = false;
    comparison.difference = fmt::format(
        "packet {} -> {} #{}: engine generated {} injected {} delivered {} released {} hops {}; reference packet "
        "{} -> {} #{}: generated {} injected {} delivered {} released {} hops {}",
        e.source, e.destination, e.sequence, e.generated, e.injected, e.delivered, e.released, e.hops, r.source,
        r.destination, r.sequence, r.generated, r.injected, r.delivered, r.released, r.hops);
    return comparison;
  }
  if (engine.size() != reference.size()) {
    comparison.equal = false;
    comparison.difference =
        fmt::format("the engine released {} packets, the reference model {}", engine.size(), reference.size());
  }
  return comparison;
}

}  // namespace routelab::sim
