// Deadlock detection's wait-for graph (sim/watchdog.h).
#include "sim/watchdog.h"

#include <algorithm>
#include <utility>

namespace routelab::sim {

std::vector<std::uint32_t> WaitForGraph::firstCycle() const {
  enum : std::uint8_t { kNew, kOnPath, kDone };
  std::vector<std::uint8_t> state(waitsFor_.size(), kNew);
  std::vector<std::uint32_t> path;
  for (std::size_t root = 0; root < waitsFor_.size(); ++root) {
    if (state[root] != kNew || waitsFor_[root].empty()) continue;
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{static_cast<std::uint32_t>(root), 0}};
    state[root] = kOnPath;
    path.assign(1, static_cast<std::uint32_t>(root));
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == waitsFor_[node].size()) {
        state[node] = kDone;
        stack.pop_back();
        path.pop_back();
        continue;
      }
      const std::uint32_t to = waitsFor_[node][next++];
      if (state[to] == kOnPath) return {std::find(path.begin(), path.end(), to), path.end()};
      if (state[to] == kNew) {
        state[to] = kOnPath;
        stack.emplace_back(to, 0);
        path.push_back(to);
      }
    }
  }
  return {};
}

}  // namespace routelab::sim
