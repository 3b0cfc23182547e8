#include "graph/xgft_labels.h"

#include <fmt/format.h>

namespace routelab {

std::uint64_t XgftParams::nodesAtLevel(std::size_t level) const {
  std::uint64_t count = 1;
  for (std::size_t position = 1; position <= height(); ++position) count *= base(level, position);
  return count;
}

std::string XgftParams::str() const {
  std::string ms, ws;
  for (std::size_t j = 0; j < m.size(); ++j) {
    ms += (j ? "," : "") + std::to_string(m[j]);
    ws += (j ? "," : "") + std::to_string(w[j]);
  }
  return fmt::format("XGFT({}; {}; {})", height(), ms, ws);
}

std::uint32_t XgftLabels::digit(NodeId node, std::size_t position) const {
  const std::size_t nodeLevel = level[node.index()];
  std::uint64_t rest = indexInLevel[node.index()];
  for (std::size_t j = 1; j < position; ++j) rest /= params.base(nodeLevel, j);
  return static_cast<std::uint32_t>(rest % params.base(nodeLevel, position));
}

std::vector<std::uint32_t> XgftLabels::digits(NodeId node) const {
  const std::size_t nodeLevel = level[node.index()];
  std::uint64_t rest = indexInLevel[node.index()];
  std::vector<std::uint32_t> out(params.height());
  for (std::size_t j = 1; j <= params.height(); ++j) {
    const std::uint32_t b = params.base(nodeLevel, j);
    out[j - 1] = static_cast<std::uint32_t>(rest % b);
    rest /= b;
  }
  return out;
}

std::uint64_t XgftLabels::indexOf(std::size_t nodeLevel, const std::vector<std::uint32_t>& tuple) const {
  std::uint64_t index = 0;
  for (std::size_t j = params.height(); j >= 1; --j) {
    index = index * params.base(nodeLevel, j) + tuple[j - 1];
  }
  return index;
}

}  // namespace routelab
