// The meaning of a routing result. Contract and references: routing/semantics.h.
#include "routing/semantics.h"

#include <fmt/format.h>
#include <algorithm>
#include <exception>

#include "core/errors.h"
#include "core/parallel.h"

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace routelab {

namespace {

std::string endName(const Network& network, const RoutingResult& routing, NodeId node) {
  const Address base = routing.addresses.base(node);
  return fmt::format("'{}' (LID {})", network.name(node), routing.addresses.lid(base));
}

void validateTables(const Network& network, const RoutingResult& routing) {
  if (routing.tables.empty()) throw RoutingError("routing has no forwarding table");
  if (routing.layerCount() == 0) throw RoutingError("routing has no layer");
  const std::size_t addresses = routing.addresses.count();
  for (std::size_t t = 0; t < routing.tables.size(); ++t) {
    const ForwardingTable& table = routing.tables[t];
    if (table.switchCount() != network.switchCount() || table.addressCount() != addresses) {
      throw RoutingError(
          fmt::format("forwarding table {} is {} switches x {} addresses, the network has {} switches "
                      "and the routing {} addresses",
                      t, table.switchCount(), table.addressCount(), network.switchCount(), addresses));
    }
  }
  for (std::size_t layer = 0; layer < routing.layerCount(); ++layer) {
    if (routing.tableOfLayer[layer] >= routing.tables.size()) {
      throw RoutingError(
          fmt::format("layer {} uses table {} of {}", layer, routing.tableOfLayer[layer], routing.tables.size()));
    }
  }
  if (routing.escapeLayer < -1 || routing.escapeLayer >= static_cast<int>(routing.layerCount())) {
    throw RoutingError(fmt::format("escape layer {} of {} layers", routing.escapeLayer, routing.layerCount()));
  }
}

void validateAddresses(const Network& network, const RoutingResult& routing) {
  const AddressMap& map = routing.addresses;
  for (NodeId owner : map.owners()) {
    if (owner.index() >= network.nodeCount()) throw RoutingError("routing addresses name a node outside the network");
  }
  for (NodeId owner : map.owners()) {
    const Address base = map.base(owner);
    if (map.blockSize(owner) == 0 || static_cast<std::size_t>(base) + map.blockSize(owner) > map.count() ||
        map.owner(base) != owner || map.owner(base + map.blockSize(owner) - 1) != owner) {
      throw RoutingError(
          fmt::format("address block of '{}' is inconsistent with the address map", network.name(owner)));
    }
  }
  if (routing.sourceClasses == 0) throw RoutingError("routing has 0 source classes; at least 1 is needed");
  // A block serves every source class with the same number of paths (addressFor: offset =
  // path * classes + class), or, smaller than the class count, is shared by all classes.
  for (NodeId owner : map.owners()) {
    const std::uint32_t block = map.blockSize(owner);
    if (routing.sourceClasses > 1 && block >= routing.sourceClasses && block % routing.sourceClasses != 0) {
      throw RoutingError(fmt::format("address block of '{}' has {} addresses, not a multiple of the {} source classes",
                                     network.name(owner), block, routing.sourceClasses));
    }
  }
  if (!routing.sourceClassOf.empty() && routing.sourceClassOf.size() != map.owners().size()) {
    throw RoutingError(fmt::format("source classes have {} entries, {} address owners expected",
                                   routing.sourceClassOf.size(), map.owners().size()));
  }
}

/// Per-pair layers: sizes, then every entry (the message names the pair).
void validatePairLayers(const Network& network, const RoutingResult& routing) {
  const AddressMap& map = routing.addresses;
  const std::size_t addresses = map.count();
  const std::size_t pairs = map.owners().size() * addresses;
  if (!routing.layerOf.empty() && routing.layerOf.size() != pairs) {
    throw RoutingError(fmt::format("layer assignment has {} entries, {} sources x {} addresses expected",
                                   routing.layerOf.size(), map.owners().size(), addresses));
  }
  if (!routing.allowedLayers.empty() && routing.allowedLayers.size() != pairs) {
    throw RoutingError(
        fmt::format("allowed-layer sets have {} entries, {} expected", routing.allowedLayers.size(), pairs));
  }
  const std::size_t layers = routing.layerCount();
  const std::uint64_t layerMask = layers >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << layers) - 1;
  for (std::size_t entry = 0; entry < pairs && (!routing.layerOf.empty() || !routing.allowedLayers.empty()); ++entry) {
    const NodeId source = map.owners()[entry / addresses];
    const auto a = static_cast<Address>(entry % addresses);
    const std::uint64_t mask = routing.allowedLayers.empty() ? 0 : routing.allowedLayers[entry];
    if ((mask & ~layerMask) != 0) {
      throw RoutingError(fmt::format("pair {} -> {}: allowed layers 0x{:x} exceed the {} layers of the routing",
                                     endName(network, routing, source), endName(network, routing, map.owner(a)), mask,
                                     layers));
    }
    const std::size_t layer = routing.layerOf.empty() ? 0 : routing.layerOf[entry];
    if (layer != RoutingResult::kNoLayer && layer >= layers) {
      throw RoutingError(fmt::format("pair {} -> '{}' (LID {}): layer {} but the routing has {} layers",
                                     endName(network, routing, source), network.name(map.owner(a)), map.lid(a), layer,
                                     layers));
    }
  }
}

}  // namespace

void validate(const Network& network, const RoutingResult& routing) {
  validateTables(network, routing);
  validateAddresses(network, routing);
  validatePairLayers(network, routing);
}

const char* pathStatusText(PathStatus status) {
  switch (status) {
    case PathStatus::Delivered: return "delivered";
    case PathStatus::NoRoute: return "no route";
    case PathStatus::Loop: return "loop";
    case PathStatus::DeadPort: return "dead port";
    case PathStatus::NoAddress: return "no address";
  }
  return "unknown";
}

std::string describeUndelivered(const Network& network, const RoutingResult& routing, const PairWalk& walk) {
  if (!routing.addresses.hasAddresses(walk.destination)) {
    return fmt::format("routing '{}' gives terminal '{}' no address", routing.engine, network.name(walk.destination));
  }
  if (walk.status == PathStatus::NoAddress) {
    return fmt::format("routing '{}' gives terminal '{}' no address (it cannot be a source)", routing.engine,
                       network.name(walk.source));
  }
  const char* what = walk.status == PathStatus::Loop       ? "forwarding loop"
                     : walk.status == PathStatus::DeadPort ? "route through a down port"
                     : walk.status == PathStatus::NoRoute  ? "no route"
                                                           : "delivered";
  const NodeId at = walk.channels.empty() ? walk.source : network.target(walk.channels.back());
  return fmt::format("routing '{}' does not deliver {} -> {} (LID {}): {} at '{}' after {} hops", routing.engine,
                     network.name(walk.source), network.name(walk.destination), routing.addresses.lid(walk.address),
                     what, network.name(at), walk.channels.size());
}

RoutingSemantics::RoutingSemantics(const Network& network, const RoutingResult& routing)
    : network_(network), routing_(routing) {
  validate(network, routing);
  std::vector<bool> seen(routing.tables.size(), false);
  for (std::size_t layer = 0; layer < routing.layerCount(); ++layer) {
    if (seen[routing.tableOfLayer[layer]]) continue;
    seen[routing.tableOfLayer[layer]] = true;
    tableLayers_.push_back(LayerId::fromIndex(layer));
  }
  // hopChoices(): one layer's entry, or with an escape layer one entry of every layer.
  for (std::size_t layer = 0; layer < routing.layerCount(); ++layer) {
    const std::size_t most = routing.table(LayerId::fromIndex(layer)).maxCandidates();
    capacity_ = routing.escapeLayer >= 0 ? capacity_ + most : std::max(capacity_, most);
  }
}

bool RoutingSemantics::carriesTraffic(NodeId source, Address a) const {
  const std::uint32_t sourceIndex = routing_.addresses.sourceIndex(source);
  if (!routing_.sends(sourceIndex, a)) return false;
  if (routing_.sourceClasses <= 1) return true;
  const std::uint32_t block = routing_.addresses.blockSize(routing_.addresses.owner(a));
  const std::uint32_t classes = block >= routing_.sourceClasses ? routing_.sourceClasses : 1;
  if (classes <= 1) return true;
  const std::uint32_t sourceClass = routing_.sourceClassOf.empty() ? 0 : routing_.sourceClassOf[sourceIndex] % classes;
  return routing_.addresses.offset(a) % classes == sourceClass;
}

LayerId RoutingSemantics::injectionLayer(NodeId source, Address a) const {
  const std::uint32_t sourceIndex = routing_.addresses.sourceIndex(source);
  return sourceIndex == UINT32_MAX ? LayerId(0) : routing_.layer(sourceIndex, a);
}

std::size_t RoutingSemantics::injectionLayers(NodeId source, Address a, std::span<LayerId> out) const {
  if (!carriesTraffic(source, a)) return 0;
  const std::uint32_t sourceIndex = routing_.addresses.sourceIndex(source);
  const std::size_t entry = static_cast<std::size_t>(sourceIndex) * routing_.addresses.count() + a;
  const std::uint32_t mask = routing_.allowedLayers.empty() ? 0 : routing_.allowedLayers[entry];
  const LayerId assigned = routing_.layer(sourceIndex, a);
  if (mask == 0) {
    out[0] = assigned;
    return 1;
  }
  std::size_t count = 0;
  if (assigned.value != RoutingResult::kNoLayer && (mask >> assigned.index()) & 1U) out[count++] = assigned;
  for (std::size_t layer = 0; layer < routing_.layerCount(); ++layer) {
    if (((mask >> layer) & 1U) && !(count > 0 && out[0].index() == layer)) out[count++] = LayerId::fromIndex(layer);
  }
  return count;
}

std::size_t RoutingSemantics::hopChoices(NodeId at, ChannelId /*arrivedOn*/, Address a, LayerId layer,
                                         std::span<HopChoice> out) const {
  const std::uint32_t switchIndex = network_.switchIndex(at);
  std::size_t count = 0;
  auto add = [&](LayerId from) {
    const std::span<const PortNumber> ports = routing_.table(from).candidates(switchIndex, a);
    if (count + ports.size() > out.size()) {  // a table that gained a longer list after construction
      throw RoutingError(fmt::format("hop choices need {} entries, the buffer has {} (choiceCapacity(): {})",
                                     count + ports.size(), out.size(), capacity_));
    }
    for (PortNumber port : ports) out[count++] = {port, from};
  };
  add(layer);
  if (routing_.escapeLayer < 0) return count;
  // Duato (Lysne Defs. 13-15): any layer's candidates, the escape layer last.
  const LayerId escapeId = escapeLayer();
  for (std::size_t other = 0; other < routing_.layerCount(); ++other) {
    const LayerId id = LayerId::fromIndex(other);
    if (id != layer && id != escapeId) add(id);
  }
  if (layer != escapeId) add(escapeId);
  return count;
}

HopStep RoutingSemantics::step(NodeId at, Address a, PortNumber port) const {
  HopStep result;
  const NodeId destination = routing_.addresses.owner(a);
  if (port == kSelfPort) {
    result.arrived = at == destination;
    result.status = result.arrived ? PathStatus::Delivered : PathStatus::NoRoute;
    return result;
  }
  result.channel = network_.channelAt(at, port);
  if (!result.channel.valid()) {
    result.status = PathStatus::DeadPort;
    return result;
  }
  result.next = network_.target(result.channel);
  result.arrived = result.next == destination;
  if (!result.arrived && !network_.isSwitch(result.next)) result.status = PathStatus::NoRoute;  // wrong terminal
  return result;
}

TrafficEnds trafficEnds(const Network& network, const RoutingResult& routing, const TrafficEndsOptions& options) {
  TrafficEnds ends;
  for (NodeId owner : routing.addresses.owners()) {
    if (network.isTerminal(owner)) ends.sources.push_back(owner);
    if (network.isTerminal(owner) || options.switchDestinations) ends.destinations.push_back(owner);
  }
  for (NodeId terminal : network.terminals()) {
    if (routing.addresses.hasAddresses(terminal)) continue;
    ends.sources.push_back(terminal);
    ends.destinations.push_back(terminal);
  }
  if (options.switchSources) {
    for (NodeId s : network.switches()) ends.sources.push_back(s);
  }
  return ends;
}

unsigned pairWalkWorkers(int threads) { return static_cast<unsigned>(workerThreads(threads)); }

void forEachSource(std::size_t sources, int threads, const std::function<void(unsigned, std::size_t)>& visit) {
  const auto count = static_cast<std::int64_t>(sources);
  std::vector<std::exception_ptr> errors(sources);
  [[maybe_unused]] const int workers = workerThreads(threads);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(workers) if (count >= 2)
#endif
  {
    unsigned worker = 0;
#ifdef ROUTELAB_HAVE_OPENMP
    worker = static_cast<unsigned>(omp_get_thread_num());
#pragma omp for schedule(dynamic, 4)
#endif
    for (std::int64_t i = 0; i < count; ++i) {
      try {
        visit(worker, static_cast<std::size_t>(i));
      } catch (...) {
        errors[static_cast<std::size_t>(i)] = std::current_exception();
      }
    }
  }
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace routelab
