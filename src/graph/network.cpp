#include "graph/network.h"

#include <fmt/format.h>
#include <algorithm>

namespace routelab {

std::optional<NodeId> Network::findNode(const std::string& name) const {
  if (!nameIndex_) return std::nullopt;
  auto it = std::lower_bound(nameIndex_->begin(), nameIndex_->end(), name,
                             [](const auto& entry, const std::string& key) { return entry.first < key; });
  if (it == nameIndex_->end() || it->first != name) return std::nullopt;
  return it->second;
}

ChannelId Network::injectionChannel(NodeId terminal) const {
  for (ChannelId c : outChannels(terminal)) {
    if (isSwitch(target(c))) return c;
  }
  return {};
}

std::string Network::describePort(NodeId node, PortNumber port) const {
  return fmt::format("{}[{}]", name(node), port);
}

std::string Network::describeChannel(ChannelId c) const {
  return fmt::format("{} -> {}", describePort(source(c), sourcePort(c)), describePort(target(c), targetPort(c)));
}

Network Network::withXgft(std::shared_ptr<const XgftLabels> labels) const {
  Network copy = *this;
  copy.xgft_ = std::move(labels);
  return copy;
}

Network Network::withOrigin(std::string origin) const {
  Network copy = *this;
  copy.origin_ = std::move(origin);
  return copy;
}

}  // namespace routelab
