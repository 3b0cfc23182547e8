// routelab/graph/builder.h — the only way to make a Network.
//
// Contract: add nodes, then cables; build() validates and returns an immutable Network.
// Validation (TopologyError with a message naming nodes and ports):
//   * port numbers in 1..portCount of their node;
//   * a port used by at most one cable;
//   * half-links (from importers that list both ends) match pairwise: a[p] -> b[q] must
//     be matched by b[q] -> a[p] ("asymmetric link" otherwise);
//   * no cable from a port to itself; names unique and non-empty.
// GUIDs of 0 are assigned at build() (switches 0x200000+i, terminals 0x100000+2i, as ibsim
// does for files that list terminals first).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/network.h"

namespace routelab {

class NetworkBuilder {
 public:
  NetworkBuilder() = default;

  /// Reserve capacity (optional; speeds up large generators).
  void reserve(std::size_t nodes, std::size_t cables);

  NodeId addSwitch(std::string name, PortNumber ports, std::uint64_t guid = 0);
  NodeId addTerminal(std::string name, PortNumber ports = 1, std::uint64_t guid = 0);
  NodeId addNode(NodeKind kind, std::string name, PortNumber ports, std::uint64_t guid = 0);

  /// One cable between a[portA] and b[portB] (both channels).
  void connect(NodeId a, PortNumber portA, NodeId b, PortNumber portB);
  /// One end of a cable as an importer reads it; build() pairs the halves.
  /// `where` (e.g. "file.net:12") is quoted in error messages.
  void addHalfLink(NodeId a, PortNumber portA, NodeId b, PortNumber portB, std::string where = {});

  /// Attach XGFT labels (generators only); validated against the cables at build().
  void setXgftLabels(std::shared_ptr<const XgftLabels> labels);
  void setOrigin(std::string origin);

  std::size_t nodeCount() const { return kinds_.size(); }
  const std::string& name(NodeId node) const { return names_[node.index()]; }
  PortNumber portCount(NodeId node) const { return ports_[node.index()]; }

  /// Validate and freeze. The builder is left empty.
  Network build();

 private:
  struct Cable {
    NodeId a, b;
    PortNumber portA, portB;
  };
  struct Half {
    NodeId a, b;
    PortNumber portA, portB;
    std::string where;
  };
  void checkPort(NodeId node, PortNumber port, const std::string& where) const;
  // The steps of build(), in order; `portBase` is the first port slot of every node.
  void pairHalfLinks(const std::vector<std::uint32_t>& portBase);
  std::shared_ptr<std::vector<std::pair<std::string, NodeId>>> uniqueNameIndex() const;
  void addChannels(Network& net, const std::vector<std::uint32_t>& portBase) const;
  void addKindsAndGuids(Network& net);

  std::vector<NodeKind> kinds_;
  std::vector<std::string> names_;
  std::vector<std::uint64_t> guids_;
  std::vector<PortNumber> ports_;
  std::vector<Cable> cables_;
  std::vector<Half> halves_;
  std::shared_ptr<const XgftLabels> xgft_;
  std::string origin_;
};

/// Check that `labels` describe `network` exactly (every cable joins nodes whose tuples
/// differ only at position level+1, on the documented ports, and all XGFT cables exist).
/// Throws TopologyError naming the first mismatch.
void checkXgftLabels(const Network& network, const XgftLabels& labels);

}  // namespace routelab
