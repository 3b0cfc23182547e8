#include "graph/algorithms.h"

#include <algorithm>
#include <numeric>
#include <span>

namespace routelab {

std::vector<std::uint32_t> hopDistances(const Network& network, std::span<const NodeId> sources,
                                        bool throughSwitchesOnly) {
  std::vector<std::uint32_t> distance(network.nodeCount(), kUnreachable);
  std::vector<NodeId> queue;
  queue.reserve(network.nodeCount());
  for (NodeId source : sources) {
    if (distance[source.index()] == 0) continue;
    distance[source.index()] = 0;
    queue.push_back(source);
  }
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const NodeId u = queue[head];
    if (throughSwitchesOnly && distance[u.index()] != 0 && !network.isSwitch(u)) continue;
    for (ChannelId c : network.outChannels(u)) {
      const NodeId v = network.target(c);
      if (distance[v.index()] == kUnreachable) {
        distance[v.index()] = distance[u.index()] + 1;
        queue.push_back(v);
      }
    }
  }
  return distance;
}

std::vector<std::uint32_t> hopDistances(const Network& network, NodeId source, bool throughSwitchesOnly) {
  return hopDistances(network, std::span<const NodeId>(&source, 1), throughSwitchesOnly);
}

std::vector<std::uint16_t> switchDistanceMatrix(const Network& network) {
  const std::size_t s = network.switchCount();
  std::vector<std::uint16_t> matrix(s * s, UINT16_MAX);
#pragma omp parallel
  {
    std::vector<std::uint32_t> queue;
    queue.reserve(s);
#pragma omp for schedule(dynamic, 16)
    for (std::size_t i = 0; i < s; ++i) {
      std::uint16_t* row = matrix.data() + i * s;
      queue.clear();
      row[i] = 0;
      queue.push_back(static_cast<std::uint32_t>(i));
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const NodeId u = network.switchNode(queue[head]);
        for (ChannelId c : network.outChannels(u)) {
          const NodeId v = network.target(c);
          if (!network.isSwitch(v)) continue;
          const std::uint32_t vi = network.switchIndex(v);
          if (row[vi] == UINT16_MAX) {
            row[vi] = static_cast<std::uint16_t>(row[queue[head]] + 1);
            queue.push_back(vi);
          }
        }
      }
    }
  }
  return matrix;
}

std::vector<std::uint32_t> connectedComponents(const Network& network) {
  std::vector<std::uint32_t> component(network.nodeCount(), kUnreachable);
  std::vector<NodeId> stack;
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < network.nodeCount(); ++i) {
    if (component[i] != kUnreachable) continue;
    component[i] = next;
    stack.push_back(NodeId::fromIndex(i));
    while (!stack.empty()) {
      const NodeId u = stack.back();
      stack.pop_back();
      if (network.isTerminal(u) && u.index() != i) continue;  // terminals do not forward
      for (ChannelId c : network.outChannels(u)) {
        const NodeId v = network.target(c);
        if (component[v.index()] == kUnreachable) {
          component[v.index()] = next;
          stack.push_back(v);
        }
      }
    }
    ++next;
  }
  return component;
}

std::size_t componentCount(const std::vector<std::uint32_t>& components) {
  if (components.empty()) return 0;
  return static_cast<std::size_t>(*std::max_element(components.begin(), components.end())) + 1;
}

std::uint32_t switchDiameter(const Network& network) {
  const auto matrix = switchDistanceMatrix(network);
  std::uint32_t diameter = 0;
  for (std::uint16_t d : matrix) {
    if (d != UINT16_MAX) diameter = std::max<std::uint32_t>(diameter, d);
  }
  return diameter;
}

namespace {

/// Switch-to-switch adjacency in CSR form (switch indices).
struct SwitchGraph {
  std::vector<std::uint32_t> start, neighbors;
};

SwitchGraph switchGraph(const Network& network) {
  const std::size_t s = network.switchCount();
  SwitchGraph graph;
  graph.start.assign(s + 1, 0);
  for (std::size_t i = 0; i < s; ++i) {
    for (ChannelId c : network.outChannels(network.switchNode(i))) {
      const NodeId v = network.target(c);
      if (network.isSwitch(v)) graph.neighbors.push_back(network.switchIndex(v));
    }
    graph.start[i + 1] = static_cast<std::uint32_t>(graph.neighbors.size());
  }
  return graph;
}

/// Bit-parallel BFS from up to 64 `sources` at once (one bit each): the last level at which
/// some switch with `attach` set first sees some source; 0 when none is ever reached.
/// `seen`, `frontier` and `next` are scratch of one word per switch.
std::uint32_t farthestAttached(const SwitchGraph& graph, const std::vector<char>& attach,
                               std::span<const std::uint32_t> sources, std::vector<std::uint64_t>& seen,
                               std::vector<std::uint64_t>& frontier, std::vector<std::uint64_t>& next) {
  const std::size_t s = seen.size();
  std::fill(seen.begin(), seen.end(), 0);
  std::fill(frontier.begin(), frontier.end(), 0);
  for (std::size_t k = 0; k < sources.size(); ++k) {
    const std::uint64_t bit = std::uint64_t{1} << k;
    seen[sources[k]] |= bit;
    frontier[sources[k]] |= bit;
  }
  std::uint32_t farthest = 0;
  for (std::uint32_t level = 1;; ++level) {
    std::fill(next.begin(), next.end(), 0);
    for (std::size_t u = 0; u < s; ++u) {
      if (!frontier[u]) continue;
      for (std::uint32_t e = graph.start[u]; e < graph.start[u + 1]; ++e) next[graph.neighbors[e]] |= frontier[u];
    }
    bool progressed = false;
    for (std::size_t v = 0; v < s; ++v) {
      next[v] &= ~seen[v];
      if (next[v]) {
        progressed = true;
        seen[v] |= next[v];
        if (attach[v]) farthest = std::max(farthest, level);
      }
    }
    if (!progressed) return farthest;
    frontier.swap(next);
  }
}

}  // namespace

std::uint32_t terminalDiameter(const Network& network) {
  if (network.terminalCount() == 0) return kUnreachable;
  // Terminal distance = 1 + d(switch_a, switch_b) + 1 over the switches terminals attach
  // to, so the diameter is 2 + the largest distance between attachment switches (2 when
  // two terminals share a switch, 1 for a terminal-terminal cable). Multi-source BFS: 64
  // attachment switches per batch, one bit each (Then et al., "The more the merrier",
  // VLDB 2014): a level is "new" for a batch when some attachment switch first sees some
  // source at that level; the last such level over all batches is the largest distance.
  const std::size_t s = network.switchCount();
  std::vector<char> attach(s, 0);
  bool direct = false;
  std::vector<std::size_t> terminalsOn(s, 0);
  for (NodeId t : network.terminals()) {
    for (ChannelId c : network.outChannels(t)) {
      const NodeId v = network.target(c);
      if (network.isSwitch(v)) {
        attach[network.switchIndex(v)] = 1;
        ++terminalsOn[network.switchIndex(v)];
      } else {
        direct = true;
      }
    }
  }
  std::uint32_t diameter = direct ? 1 : 0;
  for (std::size_t count : terminalsOn) {
    if (count > 1) diameter = std::max<std::uint32_t>(diameter, 2);
  }
  std::vector<std::uint32_t> attached;
  for (std::size_t i = 0; i < s; ++i) {
    if (attach[i]) attached.push_back(static_cast<std::uint32_t>(i));
  }
  const SwitchGraph graph = switchGraph(network);
  const std::size_t batches = (attached.size() + 63) / 64;
  std::uint32_t farthest = 0;
#pragma omp parallel
  {
    std::vector<std::uint64_t> seen(s), frontier(s), next(s);
    std::uint32_t localFarthest = 0;
#pragma omp for schedule(dynamic, 1)
    for (std::size_t batch = 0; batch < batches; ++batch) {
      const std::size_t first = batch * 64;
      const std::size_t last = std::min(attached.size(), first + 64);
      const std::span<const std::uint32_t> sources(attached.data() + first, last - first);
      localFarthest = std::max(localFarthest, farthestAttached(graph, attach, sources, seen, frontier, next));
    }
#pragma omp critical
    farthest = std::max(farthest, localFarthest);
  }
  if (farthest > 0) diameter = std::max(diameter, farthest + 2);  // some pair of attachment switches
  return diameter;
}

}  // namespace routelab
