#include "routing/routing_result.h"

#include <fmt/format.h>
#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>

#include "core/errors.h"
#include "core/limits.h"

namespace routelab {

AddressMap AddressMap::build(const Network& network, std::uint32_t perTerminal, bool includeSwitches) {
  if (perTerminal == 0) throw SpecError("at least one address per terminal is needed");
  AddressMap map;
  map.perTerminal_ = perTerminal;
  map.includeSwitches_ = includeSwitches;
  map.base_.assign(network.nodeCount(), 0);
  map.blockSize_.assign(network.nodeCount(), 0);
  map.sourceIndex_.assign(network.nodeCount(), UINT32_MAX);
  auto add = [&](NodeId node, std::uint32_t count) {
    map.base_[node.index()] = static_cast<Address>(map.owner_.size());
    map.blockSize_[node.index()] = count;
    map.sourceIndex_[node.index()] = static_cast<std::uint32_t>(map.owners_.size());
    map.owners_.push_back(node);
    map.owner_.insert(map.owner_.end(), count, node);
  };
  for (NodeId t : network.terminals()) add(t, perTerminal);
  if (includeSwitches) {
    for (NodeId s : network.switches()) add(s, 1);
  }
  return map;
}

AddressMap AddressMap::fromBlocks(const Network& network, std::vector<std::pair<NodeId, std::uint32_t>> blocks,
                                  std::vector<std::uint32_t> lids) {
  AddressMap map;
  map.base_.assign(network.nodeCount(), 0);
  map.blockSize_.assign(network.nodeCount(), 0);
  map.sourceIndex_.assign(network.nodeCount(), UINT32_MAX);
  std::uint32_t perTerminal = 0;
  for (const auto& [node, count] : blocks) {
    if (map.blockSize_[node.index()] != 0) {
      throw RoutingError(fmt::format("node '{}' owns two address blocks", network.name(node)));
    }
    map.base_[node.index()] = static_cast<Address>(map.owner_.size());
    map.blockSize_[node.index()] = count;
    map.sourceIndex_[node.index()] = static_cast<std::uint32_t>(map.owners_.size());
    map.owners_.push_back(node);
    map.owner_.insert(map.owner_.end(), count, node);
    if (network.isSwitch(node))
      map.includeSwitches_ = true;
    else
      perTerminal = std::max(perTerminal, count);
  }
  map.perTerminal_ = std::max<std::uint32_t>(perTerminal, 1);
  if (!lids.empty() && lids.size() != map.owner_.size()) {
    throw RoutingError("address map: one LID per address is needed");
  }
  map.lids_ = std::move(lids);
  return map;
}

namespace {

/// switches x addresses, checked against the memory budget before the table is allocated
/// (one byte per entry; codes that widen to two or four bytes are checked when they widen).
std::size_t checkedEntries(std::size_t switches, std::size_t addresses, std::uint64_t bytesEach) {
  checkMemory(fmt::format("forwarding table of {} switches x {} addresses", switches, addresses),
              saturatingBytes(switches, addresses), "entries", bytesEach);
  return switches * addresses;
}

}  // namespace

ForwardingTable::ForwardingTable(std::size_t switches, std::size_t addresses)
    : switches_(switches), addresses_(addresses), bytes_(checkedEntries(switches, addresses, 1), kNoRoute) {}

ForwardingTable::ForwardingTable(std::size_t switches, std::size_t addresses, Unfilled)
    : switches_(switches), addresses_(addresses), bytes_(checkedEntries(switches, addresses, 1)) {}

std::span<std::uint8_t> ForwardingTable::mutableRow(std::uint32_t switchIndex) {
  expand();
  if (lists_ > 0) throw RoutingError("a forwarding table with candidate lists cannot be written by rows");
  std::atomic_ref<bool>(rowsHandedOut_).store(true, std::memory_order_relaxed);  // rows are written concurrently
  return {bytes_.data() + entry(switchIndex, 0), addresses_};
}

std::span<std::uint8_t> ForwardingTable::mutableCodeRow(std::uint32_t switchIndex) {
  expand();
  if (width_ != 1)
    throw RoutingError("the forwarding table's codes are wider than a byte: it cannot be written by rows");
  return {bytes_.data() + entry(switchIndex, 0), addresses_};
}

// Keeps portCeiling_ above every single port stored at width 1. The common case (a port
// below the ceiling) only reads it; raising it is atomic, and it widens the codes first
// when the port meets a list code (not thread-safe: reservePorts() prevents it).
void ForwardingTable::notePort(PortNumber port) {
  std::atomic_ref<std::uint32_t> ceiling(portCeiling_);
  std::uint32_t seen = ceiling.load(std::memory_order_relaxed);
  if (port < seen || port == kNoRoute) return;
  if (port >= listBase_) widen(2);
  while (port >= seen && !ceiling.compare_exchange_weak(seen, port + 1U, std::memory_order_relaxed)) {
  }
}

void ForwardingTable::set(std::uint32_t switchIndex, Address a, PortNumber port) {
  if (port > kNoRoute) throw RoutingError(fmt::format("port {} cannot be stored in a forwarding table", port));
  expand();
  if (width_ == 1) notePort(port);
  store(entry(switchIndex, a), port);
}

void ForwardingTable::reservePorts(PortNumber maxPort) {
  if (maxPort >= kNoRoute) throw RoutingError(fmt::format("port {} cannot be stored in a forwarding table", maxPort));
  expand();
  if (width_ == 1) notePort(maxPort);
}

// Re-stores every entry with `width` bytes (not thread-safe). Called when a one-byte list
// code would meet a port (width 2) or the lists outgrow two-byte codes (width 4).
void ForwardingTable::widen(std::uint32_t width) {
  expand();
  const std::size_t entries = checkedEntries(switches_, addresses_, width);
  auto wide = [&](std::size_t e) -> std::uint32_t {
    if (width_ == 2) return words_[e];
    const std::uint8_t code = bytes_[e];
    return code < listBase_ || code == kNoRoute ? code : kWideListBase + (kNoRoute - 1U - code);
  };
  if (width == 2) {
    words_.resize(entries);
    for (std::size_t e = 0; e < entries; ++e) words_[e] = static_cast<std::uint16_t>(wide(e));
    bytes_ = {};
  } else {
    longs_.resize(entries);
    for (std::size_t e = 0; e < entries; ++e) longs_[e] = wide(e);
    bytes_ = {};
    words_ = {};
  }
  width_ = width;
  listBase_ = kNoRoute;
}

std::uint32_t ForwardingTable::intern(std::span<const PortNumber> ports) {
  expand();
  for (PortNumber p : ports) {
    if (p >= kNoRoute) throw RoutingError(fmt::format("port {} cannot be stored in a forwarding table", p));
  }
  std::uint64_t hash = 1469598103934665603ULL;
  for (PortNumber p : ports) hash = (hash ^ p) * 1099511628211ULL;
  hash = (hash ^ ports.size()) * 1099511628211ULL;
  const auto [first, last] = listHash_.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    if (std::ranges::equal(ports, listPorts(it->second))) return it->second;
  }
  // A new list: its code must stay clear of the stored ports (width 1) and of the code range.
  if (width_ == 1) {
    if (lists_ == 0 && std::atomic_ref<bool>(rowsHandedOut_).load(std::memory_order_relaxed)) {
      for (std::uint8_t code : bytes_) {
        if (code != kNoRoute) portCeiling_ = std::max<std::uint32_t>(portCeiling_, code + 1U);
      }
    }
    if (lists_ + portCeiling_ >= kNoRoute) widen(2);  // the new code, 254 - lists_, would meet a port
  }
  if (width_ == 2 && lists_ == kWordLists) widen(4);
  if (listStart_.empty()) listStart_.push_back(0);
  const std::uint32_t id = lists_++;
  longestList_ = std::max(longestList_, static_cast<std::uint32_t>(ports.size()));
  if (width_ == 1) listBase_ = kNoRoute - lists_;
  listPorts_.insert(listPorts_.end(), ports.begin(), ports.end());
  listStart_.push_back(static_cast<std::uint32_t>(listPorts_.size()));
  listHash_.emplace(hash, id);
  return id;
}

void ForwardingTable::setCandidates(std::uint32_t switchIndex, Address a, std::span<const PortNumber> ports) {
  if (ports.size() <= 1) {
    set(switchIndex, a, ports.empty() ? kNoRoute : ports[0]);
    return;
  }
  const std::uint32_t id = intern(ports);
  store(entry(switchIndex, a), listCode(id));
}

ForwardingTable::ListId ForwardingTable::addCandidateList(std::span<const PortNumber> ports) {
  if (ports.size() < 2) throw RoutingError("a candidate list needs at least two ports");
  return intern(ports);
}

void ForwardingTable::setCandidateList(std::uint32_t switchIndex, Address a, ListId list) {
  expand();
  store(entry(switchIndex, a), listCode(list));
}

bool ForwardingTable::compact() {
  if (compact_) return true;
  if (width_ != 1 || switches_ == 0 || addresses_ == 0) return false;
  const std::size_t perRow = (addresses_ + kChunkEntries - 1) >> kChunkBits;
  const std::size_t total = switches_ * perRow;
  const std::size_t dense = switches_ * addresses_;
  constexpr std::size_t kMaxChunks = std::size_t{1} << 16;  // numbered by std::uint16_t
  if (total * sizeof(std::uint16_t) > dense / 2) return false;
  std::vector<std::uint16_t, BulkAllocator<std::uint16_t>> chunkOf(total);
  std::vector<std::uint8_t> chunks;
  // Open addressing over the distinct chunks: slot = chunk number + 1 (0: empty), at most
  // half full.
  std::vector<std::uint32_t> slots(1024, 0);
  auto hashOf = [](const std::uint8_t* bytes) {
    std::uint64_t hash = 0x9e3779b97f4a7c15ULL;
    for (std::uint32_t i = 0; i < kChunkEntries; i += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, bytes + i, 8);
      hash = (hash ^ word) * 0xbf58476d1ce4e5b9ULL;
      hash ^= hash >> 29;
    }
    return hash;
  };
  auto place = [&](std::uint32_t number, std::uint64_t hash) {
    std::size_t slot = hash & (slots.size() - 1);
    while (slots[slot] != 0) slot = (slot + 1) & (slots.size() - 1);
    slots[slot] = number + 1;
  };
  std::array<std::uint8_t, kChunkEntries> padded{};  // a row's last chunk, when partial
  for (std::size_t s = 0; s < switches_; ++s) {
    const std::uint8_t* row = bytes_.data() + s * addresses_;
    for (std::size_t c = 0; c < perRow; ++c) {
      const std::size_t first = c << kChunkBits;
      const std::size_t count = std::min<std::size_t>(kChunkEntries, addresses_ - first);
      const std::uint8_t* chunk = row + first;  // (read in place when whole)
      if (count < kChunkEntries) {
        padded.fill(static_cast<std::uint8_t>(kNoRoute));
        std::memcpy(padded.data(), chunk, count);
        chunk = padded.data();
      }
      const std::uint64_t hash = hashOf(chunk);
      std::size_t slot = hash & (slots.size() - 1);
      for (; slots[slot] != 0; slot = (slot + 1) & (slots.size() - 1)) {
        if (std::memcmp(chunks.data() + (std::size_t{slots[slot] - 1} << kChunkBits), chunk, kChunkEntries) == 0) break;
      }
      std::uint32_t number = 0;
      if (slots[slot] != 0) {
        number = slots[slot] - 1;
      } else {
        number = static_cast<std::uint32_t>(chunks.size() >> kChunkBits);
        if (number == kMaxChunks) return false;  // too varied: stays as it is
        chunks.insert(chunks.end(), chunk, chunk + kChunkEntries);
        slots[slot] = number + 1;
        if (2 * (std::size_t{number} + 1) > slots.size()) {  // grow, re-placing every chunk
          slots.assign(2 * slots.size(), 0);
          for (std::uint32_t n = 0; n <= number; ++n) place(n, hashOf(chunks.data() + (std::size_t{n} << kChunkBits)));
        }
      }
      chunkOf[s * perRow + c] = static_cast<std::uint16_t>(number);
    }
  }
  if (total * sizeof(std::uint16_t) + chunks.size() > dense / 2) return false;
  chunkOf_ = std::move(chunkOf);
  chunks_ = std::move(chunks);
  chunksPerRow_ = perRow;
  bytes_ = {};
  compact_ = true;
  return true;
}

void ForwardingTable::expand() {
  if (!compact_) return;
  bytes_ = decltype(bytes_)(checkedEntries(switches_, addresses_, 1));
  for (std::size_t s = 0; s < switches_; ++s) {
    for (std::size_t c = 0; c < chunksPerRow_; ++c) {
      const std::size_t first = c << kChunkBits;
      std::memcpy(bytes_.data() + s * addresses_ + first,
                  chunks_.data() + (std::size_t{chunkOf_[s * chunksPerRow_ + c]} << kChunkBits),
                  std::min<std::size_t>(kChunkEntries, addresses_ - first));
    }
  }
  chunkOf_ = {};
  chunks_ = {};
  chunksPerRow_ = 0;
  compact_ = false;
}

std::size_t ForwardingTable::memoryBytes() const {
  return bytes_.size() + chunkOf_.size() * sizeof(std::uint16_t) + chunks_.size() +
         words_.size() * sizeof(std::uint16_t) + longs_.size() * sizeof(std::uint32_t) +
         listStart_.size() * sizeof(std::uint32_t) + listPorts_.size() * sizeof(PortNumber) +
         listHash_.size() * (sizeof(std::uint64_t) + sizeof(std::uint32_t) + 2 * sizeof(void*));
}

PathStatus RoutingResult::walk(const Network& network, NodeId source, Address a, LayerId layer,
                               std::vector<ChannelId>& out) const {
  out.clear();
  const NodeId destination = addresses.owner(a);
  const ForwardingTable& forwarding = table(layer);
  NodeId at = source;
  if (network.isTerminal(source)) {
    if (source == destination) return PathStatus::Delivered;
    const ChannelId inject = network.injectionChannel(source);
    if (!inject.valid()) return PathStatus::DeadPort;
    out.push_back(inject);
    at = network.target(inject);
  }
  const std::size_t limit = network.nodeCount() + 1;
  while (at != destination) {
    if (!network.isSwitch(at)) return PathStatus::NoRoute;  // arrived at the wrong terminal
    const PortNumber port = forwarding.port(network.switchIndex(at), a);
    if (port == kNoRoute) return PathStatus::NoRoute;
    if (port == kSelfPort) return PathStatus::NoRoute;  // claims delivery at the wrong switch
    const ChannelId next = network.channelAt(at, port);
    if (!next.valid()) return PathStatus::DeadPort;
    out.push_back(next);
    if (out.size() > limit) return PathStatus::Loop;
    at = network.target(next);
  }
  return PathStatus::Delivered;
}

Path RoutingResult::path(const Network& network, NodeId source, Address a, LayerId layer) const {
  Path result;
  result.status = walk(network, source, a, layer, result.channels);
  if (result.status != PathStatus::Delivered) {
    result.stoppedAt = result.channels.empty() ? source : network.target(result.channels.back());
  }
  return result;
}

Address RoutingResult::addressFor(NodeId source, NodeId destination, std::uint32_t path) const {
  const Address base = addresses.base(destination);
  const std::uint32_t block = addresses.blockSize(destination);
  if (block <= 1) return base;
  const std::uint32_t classes = block >= sourceClasses ? sourceClasses : 1;
  std::uint32_t sourceClass = 0;
  if (classes > 1 && !sourceClassOf.empty()) {
    const std::uint32_t index = addresses.sourceIndex(source);
    if (index != UINT32_MAX) sourceClass = sourceClassOf[index] % classes;
  }
  return base + (path * classes + sourceClass) % block;
}

std::uint32_t RoutingResult::pathCount(NodeId destination) const {
  const std::uint32_t block = addresses.blockSize(destination);
  if (block <= 1) return block;
  return block >= sourceClasses ? block / sourceClasses : block;
}

}  // namespace routelab
