#include "graph/algorithms.h"

#include <algorithm>
#include <numeric>

namespace routelab {

std::vector<std::uint32_t> hopDistances(const Network& network, NodeId source, bool throughSwitchesOnly) {
  std::vector<std::uint32_t> distance(network.nodeCount(), kUnreachable);
  std::vector<NodeId> queue;
  queue.reserve(network.nodeCount());
  distance[source.index()] = 0;
  queue.push_back(source);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const NodeId u = queue[head];
    if (throughSwitchesOnly && u != source && !network.isSwitch(u)) continue;
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

std::uint32_t terminalDiameter(const Network& network) {
  if (network.terminalCount() == 0) return kUnreachable;
  // Terminal distance = 1 + d(switch_a, switch_b) + 1 over the switches terminals attach
  // to (0 for a terminal to itself); computed per attachment switch, not per terminal.
  const std::size_t s = network.switchCount();
  std::vector<char> attach(s, 0);
  bool direct = false;  // terminal-terminal cables
  for (NodeId t : network.terminals()) {
    for (ChannelId c : network.outChannels(t)) {
      const NodeId v = network.target(c);
      if (network.isSwitch(v)) attach[network.switchIndex(v)] = 1;
      else direct = true;
    }
  }
  std::uint32_t diameter = 0;
  std::vector<std::uint32_t> attached;
  for (std::size_t i = 0; i < s; ++i) {
    if (attach[i]) attached.push_back(static_cast<std::uint32_t>(i));
  }
  std::size_t terminalsOnOneSwitch = 0;
  for (std::size_t i = 0; i < s; ++i) {
    std::size_t count = 0;
    for (ChannelId c : network.outChannels(network.switchNode(i))) count += network.isTerminal(network.target(c));
    terminalsOnOneSwitch = std::max(terminalsOnOneSwitch, count);
  }
  if (terminalsOnOneSwitch > 1 || direct) diameter = direct ? 1 : 2;
#pragma omp parallel
  {
    std::vector<std::uint32_t> distance(s);
    std::vector<std::uint32_t> queue;
    std::uint32_t local = 0;
#pragma omp for schedule(dynamic, 8)
    for (std::size_t k = 0; k < attached.size(); ++k) {
      std::fill(distance.begin(), distance.end(), kUnreachable);
      queue.clear();
      distance[attached[k]] = 0;
      queue.push_back(attached[k]);
      for (std::size_t head = 0; head < queue.size(); ++head) {
        const NodeId u = network.switchNode(queue[head]);
        for (ChannelId c : network.outChannels(u)) {
          const NodeId v = network.target(c);
          if (!network.isSwitch(v)) continue;
          const std::uint32_t vi = network.switchIndex(v);
          if (distance[vi] == kUnreachable) {
            distance[vi] = distance[queue[head]] + 1;
            queue.push_back(vi);
          }
        }
      }
      for (std::uint32_t j : attached) {
        if (distance[j] != kUnreachable && j != attached[k]) local = std::max(local, distance[j] + 2);
      }
    }
#pragma omp critical
    diameter = std::max(diameter, local);
  }
  return diameter;
}

}  // namespace routelab
