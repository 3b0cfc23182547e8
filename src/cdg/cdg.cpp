// Channel dependency graph: flat per-layer reference counts, Pearce–Kelly dynamic
// topological order, DFS cycle witness. Contract and references: cdg/cdg.h.
#include "cdg/cdg.h"

#include <fmt/format.h>
#include <algorithm>

#include "core/errors.h"
#include "core/limits.h"

namespace routelab {

namespace {

enum class OrderState : std::uint8_t {
  Valid,   ///< `order` is a topological order of the layer
  Stale,   ///< unknown: an unconditional addition contradicted the order (or a cycle was removed)
  Cyclic,  ///< the layer is known to contain a cycle
};

struct Layer {
  std::vector<std::uint32_t> count;  ///< per slot: reference count of that dependency
  std::vector<std::uint32_t> order;  ///< per channel: position in the topological order
  std::size_t distinct = 0;
  OrderState state = OrderState::Valid;
};

}  // namespace

struct ChannelDependencyGraph::Impl {
  const Network* network = nullptr;
  /// Slots of channel c: [slotBase[c], slotBase[c+1]), one per out channel of target(c),
  /// in outChannels(target(c)) order.
  std::vector<std::uint32_t> slotBase;
  /// Index of channel c within outChannels(source(c)).
  std::vector<std::uint32_t> positionInSource;
  std::vector<Layer> layers;

  // Scratch of the Pearce–Kelly insertion (mutation is single-threaded).
  std::vector<std::uint32_t> mark;
  std::uint32_t epoch = 0;
  std::vector<std::uint32_t> forwardSet, backwardSet, stack, positions, scratchOrder;

  std::size_t channels() const { return positionInSource.size(); }
  std::size_t slots() const { return slotBase.back(); }

  void newLayer() {
    if (layers.size() >= kMaxLayers) {
      throw RoutingError(
          fmt::format("channel dependency graph: layer {} requested; at most {} layers are supported "
                      "(kMaxLayers, InfiniBand's service levels)",
                      layers.size() + 1, kMaxLayers));
    }
    checkMemory(fmt::format("channel dependency graph of {} channels x {} layers", channels(), layers.size() + 1),
                saturatingBytes(slots() + channels(), layers.size() + 1), "slots and channels", sizeof(std::uint32_t));
    Layer layer;
    layer.count.assign(slots(), 0);
    layer.order.resize(channels());
    for (std::size_t c = 0; c < channels(); ++c) layer.order[c] = static_cast<std::uint32_t>(c);
    layers.push_back(std::move(layer));
  }

  Layer& layerAt(LayerId id) {
    if (id.index() >= layers.size()) {
      throw RoutingError(
          fmt::format("channel dependency graph: layer {} out of range ({} layers)", id.index(), layers.size()));
    }
    return layers[id.index()];
  }
  const Layer& layerAt(LayerId id) const { return const_cast<Impl*>(this)->layerAt(id); }

  void checkChannel(ChannelId c) const {
    if (!c.valid() || c.index() >= channels()) {
      throw RoutingError(fmt::format("channel dependency graph: channel id {} out of range ({} channels)",
                                     c.valid() ? std::to_string(c.value) : std::string("<invalid>"), channels()));
    }
  }

  /// Slot of dependency from -> to; throws if the channels do not meet at a node.
  std::uint32_t slot(ChannelId from, ChannelId to) const {
    checkChannel(from);
    checkChannel(to);
    if (network->target(from) != network->source(to)) {
      throw RoutingError(fmt::format("channel dependency graph: {} and {} are not consecutive",
                                     network->describeChannel(from), network->describeChannel(to)));
    }
    return slotBase[from.index()] + positionInSource[to.index()];
  }

  std::vector<std::uint32_t> pathSlots(std::span<const ChannelId> path) const {
    std::vector<std::uint32_t> result;
    if (path.size() >= 2) result.reserve(path.size() - 1);
    for (std::size_t i = 0; i + 1 < path.size(); ++i) result.push_back(slot(path[i], path[i + 1]));
    if (path.size() == 1) checkChannel(path[0]);
    return result;
  }

  // ---- adjacency from the network --------------------------------------------------------
  template <class Visit>
  void forEachSuccessor(const Layer& layer, std::uint32_t channel, Visit&& visit) const {
    const auto outs = network->outChannels(network->target(ChannelId(channel)));
    const std::uint32_t base = slotBase[channel];
    for (std::size_t j = 0; j < outs.size(); ++j) {
      if (layer.count[base + j] != 0) visit(outs[j].value);
    }
  }
  template <class Visit>
  void forEachPredecessor(const Layer& layer, std::uint32_t channel, Visit&& visit) const {
    const auto outs = network->outChannels(network->source(ChannelId(channel)));
    const std::uint32_t position = positionInSource[channel];
    for (ChannelId out : outs) {
      const std::uint32_t in = Network::reverse(out).value;  // enters source(channel)
      if (layer.count[slotBase[in] + position] != 0) visit(in);
    }
  }

  std::uint32_t nextEpoch() {
    if (++epoch == 0) {
      std::fill(mark.begin(), mark.end(), 0);
      epoch = 1;
    }
    return epoch;
  }

  /// Pearce–Kelly: make the order of `layer` respect the (not yet inserted) edge x -> y.
  /// Returns false, order unchanged, if y reaches x (the edge would close a cycle).
  bool insertOrdered(Layer& layer, std::uint32_t x, std::uint32_t y) {
    if (x == y) return false;
    const std::uint32_t upper = layer.order[x];
    const std::uint32_t lower = layer.order[y];
    if (lower > upper) return true;
    const std::uint32_t stamp = nextEpoch();
    // Forward search from y among channels ordered before x.
    forwardSet.clear();
    stack.clear();
    stack.push_back(y);
    mark[y] = stamp;
    bool cycle = false;
    while (!stack.empty() && !cycle) {
      const std::uint32_t n = stack.back();
      stack.pop_back();
      forwardSet.push_back(n);
      forEachSuccessor(layer, n, [&](std::uint32_t w) {
        if (w == x) cycle = true;
        if (mark[w] != stamp && layer.order[w] < upper) {
          mark[w] = stamp;
          stack.push_back(w);
        }
      });
    }
    if (cycle) return false;
    // Backward search from x among channels ordered after y.
    backwardSet.clear();
    stack.clear();
    stack.push_back(x);
    mark[x] = stamp;
    while (!stack.empty()) {
      const std::uint32_t n = stack.back();
      stack.pop_back();
      backwardSet.push_back(n);
      forEachPredecessor(layer, n, [&](std::uint32_t w) {
        if (mark[w] != stamp && layer.order[w] > lower) {
          mark[w] = stamp;
          stack.push_back(w);
        }
      });
    }
    // Reorder: the backward set, then the forward set, into their pooled positions.
    auto byOrder = [&](std::uint32_t a, std::uint32_t b) { return layer.order[a] < layer.order[b]; };
    std::sort(backwardSet.begin(), backwardSet.end(), byOrder);
    std::sort(forwardSet.begin(), forwardSet.end(), byOrder);
    positions.clear();
    for (std::uint32_t n : backwardSet) positions.push_back(layer.order[n]);
    for (std::uint32_t n : forwardSet) positions.push_back(layer.order[n]);
    std::sort(positions.begin(), positions.end());
    std::size_t i = 0;
    for (std::uint32_t n : backwardSet) layer.order[n] = positions[i++];
    for (std::uint32_t n : forwardSet) layer.order[n] = positions[i++];
    return true;
  }

  /// Kahn's algorithm: recompute the order of a stale layer; marks it Valid or Cyclic.
  void resort(Layer& layer) {
    std::vector<std::uint32_t> indegree(channels(), 0);
    for (std::uint32_t c = 0; c < channels(); ++c) {
      forEachSuccessor(layer, c, [&](std::uint32_t w) { ++indegree[w]; });
    }
    std::vector<std::uint32_t> queue;
    queue.reserve(channels());
    for (std::uint32_t c = 0; c < channels(); ++c) {
      if (indegree[c] == 0) queue.push_back(c);
    }
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::uint32_t n = queue[head];
      layer.order[n] = static_cast<std::uint32_t>(head);
      forEachSuccessor(layer, n, [&](std::uint32_t w) {
        if (--indegree[w] == 0) queue.push_back(w);
      });
    }
    if (queue.size() == channels()) {
      layer.state = OrderState::Valid;
    } else {
      // Keep `order` a permutation (positions of the sorted prefix, then the rest).
      std::uint32_t next = static_cast<std::uint32_t>(queue.size());
      for (std::uint32_t c = 0; c < channels(); ++c) {
        if (indegree[c] != 0) layer.order[c] = next++;
      }
      layer.state = OrderState::Cyclic;
    }
  }

  void addUnconditional(Layer& layer, ChannelId from, ChannelId to, std::uint32_t s) {
    if (layer.count[s]++ == 0) {
      ++layer.distinct;
      if (layer.state == OrderState::Valid && layer.order[from.index()] >= layer.order[to.index()]) {
        layer.state = OrderState::Stale;
      }
    }
  }

  /// The incremental core of tryAddPath / wouldCloseCycle. On success the path is added.
  bool tryAdd(Layer& layer, std::span<const ChannelId> path) {
    const std::vector<std::uint32_t> slots = pathSlots(path);  // validates first
    if (layer.state == OrderState::Stale) resort(layer);
    if (layer.state == OrderState::Cyclic) return false;
    for (std::size_t i = 0; i < slots.size(); ++i) {
      const std::uint32_t s = slots[i];
      if (layer.count[s] == 0 && !insertOrdered(layer, path[i].value, path[i + 1].value)) {
        // Roll back what this path added; removing edges keeps the order topological.
        for (std::size_t k = 0; k < i; ++k) {
          if (--layer.count[slots[k]] == 0) --layer.distinct;
        }
        return false;
      }
      if (layer.count[s]++ == 0) ++layer.distinct;
    }
    return true;
  }

  void remove(Layer& layer, std::span<const ChannelId> path) {
    const std::vector<std::uint32_t> slots = pathSlots(path);
    for (std::size_t i = 0; i < slots.size(); ++i) {
      if (layer.count[slots[i]] == 0) {
        for (std::size_t k = 0; k < i; ++k) {
          if (layer.count[slots[k]]++ == 0) ++layer.distinct;
        }
        throw RoutingError(fmt::format("channel dependency graph: removing absent dependency {} => {}",
                                       network->describeChannel(path[i]), network->describeChannel(path[i + 1])));
      }
      if (--layer.count[slots[i]] == 0) --layer.distinct;
    }
    if (layer.state == OrderState::Cyclic) layer.state = OrderState::Stale;
  }

  std::optional<std::vector<ChannelId>> cycleOf(const Layer& layer) const;
  std::vector<ChannelId> shortestCycleThrough(const Layer& layer, std::uint32_t start) const;
};

std::vector<ChannelId> ChannelDependencyGraph::Impl::shortestCycleThrough(const Layer& layer,
                                                                          std::uint32_t start) const {
  // BFS from start's successors back to start: the shortest cycle through `start`.
  std::vector<std::uint32_t> parent(channels(), UINT32_MAX);
  std::vector<std::uint32_t> queue;
  queue.push_back(start);
  parent[start] = start;
  std::uint32_t last = UINT32_MAX;
  for (std::size_t head = 0; head < queue.size() && last == UINT32_MAX; ++head) {
    const std::uint32_t n = queue[head];
    forEachSuccessor(layer, n, [&](std::uint32_t w) {
      if (last != UINT32_MAX) return;
      if (w == start) {
        last = n;
        return;
      }
      if (parent[w] == UINT32_MAX) {
        parent[w] = n;
        queue.push_back(w);
      }
    });
  }
  std::vector<ChannelId> cycle;
  if (last == UINT32_MAX) return cycle;
  for (std::uint32_t n = last; n != start; n = parent[n]) cycle.push_back(ChannelId(n));
  cycle.push_back(ChannelId(start));
  std::reverse(cycle.begin(), cycle.end());
  return cycle;
}

std::optional<std::vector<ChannelId>> ChannelDependencyGraph::Impl::cycleOf(const Layer& layer) const {
  if (layer.state == OrderState::Valid) return std::nullopt;
  // Iterative three-colour DFS.
  enum : std::uint8_t { White, Grey, Black };
  std::vector<std::uint8_t> colour(channels(), White);
  struct Frame {
    std::uint32_t channel;
    std::uint32_t next;  // next successor index to examine
  };
  std::vector<Frame> frames;
  for (std::uint32_t root = 0; root < channels(); ++root) {
    if (colour[root] != White) continue;
    colour[root] = Grey;
    frames.push_back({root, 0});
    while (!frames.empty()) {
      Frame& frame = frames.back();
      const auto outs = network->outChannels(network->target(ChannelId(frame.channel)));
      const std::uint32_t base = slotBase[frame.channel];
      bool descended = false;
      while (frame.next < outs.size()) {
        const std::uint32_t j = frame.next++;
        if (layer.count[base + j] == 0) continue;
        const std::uint32_t w = outs[j].value;
        if (colour[w] == Grey) {
          // Back edge: the grey frames from w to the top form a cycle; shorten it.
          std::vector<ChannelId> shortest = shortestCycleThrough(layer, w);
          if (!shortest.empty()) return shortest;
          std::vector<ChannelId> cycle;
          auto it = std::find_if(frames.begin(), frames.end(), [&](const Frame& f) { return f.channel == w; });
          for (; it != frames.end(); ++it) cycle.push_back(ChannelId(it->channel));
          return cycle;
        }
        if (colour[w] == White) {
          colour[w] = Grey;
          frames.push_back({w, 0});
          descended = true;
          break;
        }
      }
      if (!descended) {
        colour[frames.back().channel] = Black;
        frames.pop_back();
      }
    }
  }
  return std::nullopt;
}

// ---- public interface ----------------------------------------------------------------------

ChannelDependencyGraph::ChannelDependencyGraph(const Network& network, std::size_t layers)
    : impl_(std::make_unique<Impl>()) {
  Impl& impl = *impl_;
  impl.network = &network;
  const std::size_t channels = network.channelCount();
  impl.slotBase.assign(channels + 1, 0);
  impl.positionInSource.assign(channels, 0);
  std::uint64_t total = 0;
  for (std::size_t c = 0; c < channels; ++c) {
    impl.slotBase[c] = static_cast<std::uint32_t>(total);
    total += network.degree(network.target(ChannelId::fromIndex(c)));
    if (total > UINT32_MAX) throw RoutingError("channel dependency graph: network too large (dependency slots)");
  }
  impl.slotBase[channels] = static_cast<std::uint32_t>(total);
  // Per layer: a 32-bit count per slot and a 32-bit order position per channel.
  checkMemory(fmt::format("channel dependency graph of {} channels x {} layers", channels, layers),
              saturatingBytes(total + channels, std::max<std::size_t>(layers, 1)), "slots and channels",
              sizeof(std::uint32_t));
  for (std::size_t n = 0; n < network.nodeCount(); ++n) {
    const auto outs = network.outChannels(NodeId::fromIndex(n));
    for (std::size_t j = 0; j < outs.size(); ++j)
      impl.positionInSource[outs[j].index()] = static_cast<std::uint32_t>(j);
  }
  impl.mark.assign(channels, 0);
  if (layers > kMaxLayers) {
    throw RoutingError(
        fmt::format("channel dependency graph: {} layers requested; at most {} are supported "
                    "(kMaxLayers, InfiniBand's service levels)",
                    layers, kMaxLayers));
  }
  for (std::size_t i = 0; i < layers; ++i) impl.newLayer();
}

ChannelDependencyGraph::ChannelDependencyGraph(const ChannelDependencyGraph& other)
    : impl_(std::make_unique<Impl>(*other.impl_)) {}

ChannelDependencyGraph& ChannelDependencyGraph::operator=(const ChannelDependencyGraph& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}

ChannelDependencyGraph::ChannelDependencyGraph(ChannelDependencyGraph&&) noexcept = default;
ChannelDependencyGraph& ChannelDependencyGraph::operator=(ChannelDependencyGraph&&) noexcept = default;
ChannelDependencyGraph::~ChannelDependencyGraph() = default;

std::size_t ChannelDependencyGraph::layerCount() const { return impl_->layers.size(); }

LayerId ChannelDependencyGraph::addLayer() {
  impl_->newLayer();
  return LayerId::fromIndex(impl_->layers.size() - 1);
}

void ChannelDependencyGraph::addPath(LayerId layer, std::span<const ChannelId> path) {
  Layer& target = impl_->layerAt(layer);
  const std::vector<std::uint32_t> slots = impl_->pathSlots(path);
  for (std::size_t i = 0; i < slots.size(); ++i) impl_->addUnconditional(target, path[i], path[i + 1], slots[i]);
}

bool ChannelDependencyGraph::tryAddPath(LayerId layer, std::span<const ChannelId> path) {
  return impl_->tryAdd(impl_->layerAt(layer), path);
}

bool ChannelDependencyGraph::wouldCloseCycle(LayerId layer, std::span<const ChannelId> path) {
  Layer& target = impl_->layerAt(layer);
  if (!impl_->tryAdd(target, path)) return true;
  impl_->remove(target, path);
  return false;
}

void ChannelDependencyGraph::removePath(LayerId layer, std::span<const ChannelId> path) {
  impl_->remove(impl_->layerAt(layer), path);
}

void ChannelDependencyGraph::addDependency(LayerId layer, ChannelId from, ChannelId to) {
  Layer& target = impl_->layerAt(layer);
  impl_->addUnconditional(target, from, to, impl_->slot(from, to));
}

ChannelDependencyGraph::SlotLayout ChannelDependencyGraph::slotLayout() const {
  return {impl_->slotBase, impl_->positionInSource};
}

void ChannelDependencyGraph::addDependencySlots(LayerId layer, std::span<const std::uint64_t> bitmap) {
  Layer& target = impl_->layerAt(layer);
  const std::size_t slots = impl_->slots();
  if (bitmap.size() * 64 < slots) {
    throw RoutingError(
        fmt::format("channel dependency graph: slot bitmap of {} bits, {} needed", bitmap.size() * 64, slots));
  }
  const Network& net = *impl_->network;
  for (std::uint32_t c = 0; c < impl_->channels(); ++c) {
    const std::uint32_t base = impl_->slotBase[c];
    const std::uint32_t end = impl_->slotBase[c + 1];
    for (std::uint32_t s = base; s < end; ++s) {
      if ((bitmap[s / 64] >> (s % 64) & 1U) == 0) continue;
      const ChannelId to = net.outChannels(net.target(ChannelId(c)))[s - base];
      impl_->addUnconditional(target, ChannelId(c), to, s);
    }
  }
}

std::size_t ChannelDependencyGraph::dependencyCount(LayerId layer) const { return impl_->layerAt(layer).distinct; }

bool ChannelDependencyGraph::hasDependency(LayerId layer, ChannelId from, ChannelId to) const {
  return dependencyReferences(layer, from, to) != 0;
}

std::uint32_t ChannelDependencyGraph::dependencyReferences(LayerId layer, ChannelId from, ChannelId to) const {
  const Layer& target = impl_->layerAt(layer);
  impl_->checkChannel(from);
  impl_->checkChannel(to);
  if (impl_->network->target(from) != impl_->network->source(to)) return 0;
  return target.count[impl_->slot(from, to)];
}

std::vector<std::pair<ChannelId, ChannelId>> ChannelDependencyGraph::dependencies(LayerId layer) const {
  const Layer& target = impl_->layerAt(layer);
  std::vector<std::pair<ChannelId, ChannelId>> result;
  result.reserve(target.distinct);
  for (std::uint32_t c = 0; c < impl_->channels(); ++c) {
    impl_->forEachSuccessor(target, c, [&](std::uint32_t w) { result.emplace_back(ChannelId(c), ChannelId(w)); });
  }
  std::sort(result.begin(), result.end());
  return result;
}

std::optional<std::vector<ChannelId>> ChannelDependencyGraph::findCycle(LayerId layer) const {
  return impl_->cycleOf(impl_->layerAt(layer));
}

bool ChannelDependencyGraph::isAcyclic(LayerId layer) const {
  const Layer& target = impl_->layerAt(layer);
  if (target.state == OrderState::Valid) return true;
  if (target.state == OrderState::Cyclic) return false;
  return !impl_->cycleOf(target).has_value();
}

std::string ChannelDependencyGraph::describeCycle(std::span<const ChannelId> cycle) const {
  std::string text;
  for (ChannelId c : cycle) {
    if (!text.empty()) text += " => ";
    text += impl_->network->describeChannel(c);
  }
  if (!cycle.empty()) text += " => " + impl_->network->describeChannel(cycle.front());
  return text;
}

const Network& ChannelDependencyGraph::network() const { return *impl_->network; }

}  // namespace routelab
