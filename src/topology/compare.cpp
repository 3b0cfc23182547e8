#include "topology/compare.h"

#include <algorithm>

#include <fmt/format.h>

namespace routelab {

namespace {

const char* kindName(NodeKind kind) { return kind == NodeKind::Switch ? "switch" : "terminal"; }

std::string describeEnd(const Network& network, NodeId node, PortNumber port) {
  const ChannelId channel = network.channelAt(node, port);
  if (!channel.valid()) return "(no cable)";
  return network.describePort(network.target(channel), network.targetPort(channel));
}

/// Collects at most `limit` messages; when more arrive, the last kept one is replaced by
/// "... more differences".
class Report {
 public:
  explicit Report(std::size_t limit) : limit_(std::max<std::size_t>(limit, 1)) {}
  /// True once more than `limit` differences were seen (callers may stop looking).
  bool overflowed() const { return lines_.size() > limit_; }
  void add(std::string line) {
    if (!overflowed()) lines_.push_back(std::move(line));
  }
  std::vector<std::string> take() {
    if (overflowed()) {
      lines_.resize(limit_);
      lines_.back() = "... more differences";
    }
    return std::move(lines_);
  }

 private:
  std::size_t limit_;
  std::vector<std::string> lines_;
};

}  // namespace

std::vector<std::string> networkDifferences(const Network& a, const Network& b, const CompareOptions& options) {
  Report report(options.limit);
  if (a.nodeCount() != b.nodeCount() || a.switchCount() != b.switchCount() || a.linkCount() != b.linkCount()) {
    report.add(fmt::format(
        "counts differ: {} switches, {} terminals, {} cables vs {} switches, {} terminals, {} cables", a.switchCount(),
        a.terminalCount(), a.linkCount(), b.switchCount(), b.terminalCount(), b.linkCount()));
  }
  for (std::size_t i = 0; i < b.nodeCount() && !report.overflowed(); ++i) {
    const NodeId node = NodeId::fromIndex(i);
    if (!a.findNode(b.name(node))) report.add(fmt::format("node '{}' only in the second network", b.name(node)));
  }
  for (std::size_t i = 0; i < a.nodeCount() && !report.overflowed(); ++i) {
    const NodeId nodeA = NodeId::fromIndex(i);
    const std::string& name = a.name(nodeA);
    const std::optional<NodeId> found = b.findNode(name);
    if (!found) {
      report.add(fmt::format("node '{}' only in the first network", name));
      continue;
    }
    const NodeId nodeB = *found;
    if (options.compareOrder && nodeB != nodeA) {
      report.add(
          fmt::format("node '{}' is node {} in the first network, {} in the second", name, nodeA.value, nodeB.value));
    }
    if (a.kind(nodeA) != b.kind(nodeB)) {
      report.add(fmt::format("node '{}' is a {} vs a {}", name, kindName(a.kind(nodeA)), kindName(b.kind(nodeB))));
    }
    if (options.compareGuids && a.guid(nodeA) != b.guid(nodeB)) {
      report.add(fmt::format("node '{}' has GUID 0x{:016x} vs 0x{:016x}", name, a.guid(nodeA), b.guid(nodeB)));
    }
    const PortNumber portsA = a.portCount(nodeA), portsB = b.portCount(nodeB);
    if (portsA != portsB) {
      bool unusedOnly = options.ignoreUnusedPorts;
      for (PortNumber port = std::min(portsA, portsB) + 1; unusedOnly && port <= std::max(portsA, portsB); ++port) {
        if (a.channelAt(nodeA, port).valid() || b.channelAt(nodeB, port).valid()) unusedOnly = false;
      }
      if (!unusedOnly) report.add(fmt::format("node '{}' has {} ports vs {}", name, portsA, portsB));
    }
    for (PortNumber port = 1; port <= std::max(portsA, portsB); ++port) {
      const std::string endA = describeEnd(a, nodeA, port), endB = describeEnd(b, nodeB, port);
      if (endA != endB) report.add(fmt::format("{}: cable to {} vs {}", a.describePort(nodeA, port), endA, endB));
    }
  }
  return report.take();
}

std::vector<std::string> networkDifferences(const Network& a, const Network& b, std::size_t limit) {
  CompareOptions options;
  options.limit = limit;
  return networkDifferences(a, b, options);
}

}  // namespace routelab
