// routelab/routing/routing_result.h — a routing is a value.
//
// An engine takes a `const Network&` and returns a RoutingResult; nothing is written into
// the network (OpenSM's pipeline vocabulary, each phase returning data):
//   * AddressMap — the destination address space (InfiniBand LIDs): every terminal owns a
//     block of consecutive addresses (2^lmc with LMC, or any count, e.g. one per source in
//     LASH's per-pair mode), switches optionally one address each (management traffic).
//   * ForwardingTable — per (switch, address) an ordered list of candidate output ports:
//     exactly one for deterministic engines (stored in one byte, like an InfiniBand LFT),
//     several for adaptive ones (first = preferred; order is the engine's priority, a
//     vector — equal-priority ports are never dropped). Port 0 = deliver to this switch.
//   * Layers (virtual lanes): a table per layer group (tableOfLayer) and a layer per
//     (source, address), optionally with a set of allowed layers.
// The simulator consumes exactly this: candidates per destination, layers as VCs.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/bulk_allocator.h"
#include "core/ids.h"
#include "graph/network.h"

namespace routelab {

/// Destination address (dense, 0-based). Exported as LID = lid(address).
using Address = std::uint32_t;
inline constexpr PortNumber kNoRoute = 255;  ///< table entry without a route (as OpenSM)

class AddressMap {
 public:
  AddressMap() = default;
  /// `perTerminal` addresses for every terminal (terminal order), then, if
  /// `includeSwitches`, one address per switch (switch order).
  static AddressMap build(const Network& network, std::uint32_t perTerminal, bool includeSwitches);
  /// Arbitrary blocks (importers): node i owns `counts[i]` addresses starting at `bases[i]`.
  /// LIDs given explicitly per address.
  static AddressMap fromBlocks(const Network& network, std::vector<std::pair<NodeId, std::uint32_t>> blocks,
                               std::vector<std::uint32_t> lids);

  std::size_t count() const { return owner_.size(); }
  NodeId owner(Address a) const { return owner_[a]; }
  /// Offset of `a` within its owner's block (the LMC path bits).
  std::uint32_t offset(Address a) const { return a - base_[owner_[a].index()]; }
  bool hasAddresses(NodeId node) const { return blockSize_[node.index()] > 0; }
  Address base(NodeId node) const { return base_[node.index()]; }
  std::uint32_t blockSize(NodeId node) const { return blockSize_[node.index()]; }
  std::uint32_t perTerminal() const { return perTerminal_; }
  bool includesSwitches() const { return includeSwitches_; }
  /// Nodes owning addresses, in address order; `sourceIndex` is the position in that list
  /// (sources of traffic are the address owners).
  std::span<const NodeId> owners() const { return owners_; }
  std::uint32_t sourceIndex(NodeId node) const { return sourceIndex_[node.index()]; }
  /// InfiniBand LID of an address (default: address + 1).
  std::uint32_t lid(Address a) const { return lids_.empty() ? a + 1 : lids_[a]; }

 private:
  std::vector<NodeId> owner_;
  std::vector<Address> base_;
  std::vector<std::uint32_t> blockSize_;
  std::vector<NodeId> owners_;
  std::vector<std::uint32_t> sourceIndex_;
  std::vector<std::uint32_t> lids_;
  std::uint32_t perTerminal_ = 1;
  bool includeSwitches_ = false;
};

/// Per (switch index, address) ordered candidate ports.
///
/// Every entry is one code, one byte wide while it fits: a code below listBase() is a
/// single port (deterministic, like an InfiniBand LFT byte), kNoRoute is no route, and a
/// code in [listBase(), kNoRoute) names an interned candidate list (fat-tree and escape
/// routings have few distinct lists; list i has code 254 - i). The codes widen to two bytes
/// (ports 0..255 as themselves, list i as 256 + i) when a list's code would meet a stored
/// port, and to four beyond 65,279 lists. A 4096-terminal adaptive fat-tree's table is
/// 25 MB (it was 125 MB with a 4-byte list id beside every port byte), and the simulator's
/// hop reads one byte of it.
class ForwardingTable {
 public:
  ForwardingTable() = default;
  /// Every entry kNoRoute. Throws LimitError (before allocating) beyond the memory budget.
  ForwardingTable(std::size_t switches, std::size_t addresses);
  /// Tag of the constructor for engines that write whole rows (fat-tree closed forms).
  struct Unfilled {};
  /// Entries start UNSPECIFIED: the engine must write every entry of every row through
  /// mutableRow() before the table is read. Saves the kNoRoute pass over the memory (1 GiB
  /// for a 65,536-terminal fat-tree).
  ForwardingTable(std::size_t switches, std::size_t addresses, Unfilled);

  std::size_t switchCount() const { return switches_; }
  std::size_t addressCount() const { return addresses_; }

  /// Single candidate (deterministic). `kNoRoute` clears the entry; a port above kNoRoute
  /// throws RoutingError. Concurrent calls for distinct entries are safe for ports below
  /// the reservePorts() limit (a larger port may widen the codes).
  void set(std::uint32_t switchIndex, Address a, PortNumber port);
  /// Ordered candidates; the first is the preferred one. An empty list clears the entry.
  void setCandidates(std::uint32_t switchIndex, Address a, std::span<const PortNumber> ports);
  /// Promise that single ports up to `maxPort` may be stored (not thread-safe): the codes
  /// widen now if needed, so that later concurrent set() calls never have to.
  void reservePorts(PortNumber maxPort);

  /// Preferred port, or kNoRoute.
  PortNumber port(std::uint32_t switchIndex, Address a) const {
    const std::span<const PortNumber> c = candidates(switchIndex, a);
    return c.empty() ? kNoRoute : c.front();
  }
  /// Where the entry candidates(switchIndex, a) reads first lies in memory (the chunk index
  /// of a compact table, else the stored code): for a caller that fetches it ahead of the
  /// lookup (the simulator on fabrics whose state outgrows the caches). Reads nothing there.
  const void* entryAddress(std::uint32_t switchIndex, Address a) const {
    if (compact_) return &chunkOf_[chunkSlot(switchIndex, a)];
    const std::size_t e = entry(switchIndex, a);
    return width_ == 1   ? static_cast<const void*>(&bytes_[e])
           : width_ == 2 ? static_cast<const void*>(&words_[e])
                         : static_cast<const void*>(&longs_[e]);
  }
  /// All candidates (empty if none). Inline: the simulator reads one per packet hop.
  std::span<const PortNumber> candidates(std::uint32_t switchIndex, Address a) const {
    const std::size_t e = entry(switchIndex, a);
    if (width_ == 1) [[likely]] {
      const std::uint8_t code = compact_ ? compactCode(switchIndex, a) : bytes_[e];
      if (code < listBase_) return {kPortNumbers.data() + code, 1};
      if (code == kNoRoute) return {};
      return listPorts(kNoRoute - 1U - code);
    }
    const std::uint32_t code = width_ == 2 ? std::uint32_t{words_[e]} : longs_[e];
    if (code < kNoRoute) return {kPortNumbers.data() + code, 1};
    if (code == kNoRoute) return {};
    return listPorts(code - kWideListBase);
  }
  /// An entry as stored, undecoded: the id of its candidate list (`list`), or kNoList and
  /// its one port (`port`; kNoRoute: no route). candidates() of the entry is list(id), or
  /// that one port. For callers that keep something per list (the simulator resolves each
  /// switch's lists to channels once instead of at every hop).
  using ListId = std::uint32_t;  ///< an interned candidate list (addCandidateList)
  static constexpr ListId kNoList = ~ListId{0};
  struct EntryView {
    ListId list = kNoList;
    PortNumber port = kNoRoute;
  };
  EntryView entryView(std::uint32_t switchIndex, Address a) const {
    if (width_ == 1) [[likely]] {
      const std::uint8_t code = compact_ ? compactCode(switchIndex, a) : bytes_[entry(switchIndex, a)];
      if (code < listBase_ || code == kNoRoute) return {kNoList, code};
      return {kNoRoute - 1U - code, 0};
    }
    const std::size_t e = entry(switchIndex, a);
    const std::uint32_t code = width_ == 2 ? std::uint32_t{words_[e]} : longs_[e];
    if (code <= kNoRoute) return {kNoList, static_cast<PortNumber>(code)};
    return {code - kWideListBase, 0};
  }
  /// The interned candidate lists: ids 0 .. listCount() - 1.
  std::uint32_t listCount() const { return lists_; }
  std::span<const PortNumber> list(ListId id) const { return listPorts(id); }
  /// True when some entry has more than one candidate.
  bool adaptive() const { return lists_ > 0; }
  /// The most candidates any entry holds (1 when there are no lists): the size a buffer for
  /// one entry's candidates needs.
  std::size_t maxCandidates() const { return longestList_ > 1 ? longestList_ : 1; }
  /// Bytes per entry (1, 2 or 4).
  std::uint32_t codeWidth() const { return width_; }
  /// The one-byte codes at and above this (up to kNoRoute) are candidate lists.
  std::uint32_t listBase() const { return listBase_; }

  /// Bulk interface for engines that write the same few candidate lists many times (fat-tree
  /// engines): intern a list once (size >= 2; not thread-safe), then store it by id with
  /// setCandidateList(), which is O(1) and safe to call concurrently for distinct entries.
  ListId addCandidateList(std::span<const PortNumber> ports);
  /// The port bytes of one switch, one per address (kNoRoute = no route), for engines that
  /// fill whole rows; writing a byte is set() with that port. Only for tables without
  /// candidate lists (throws RoutingError otherwise). Distinct rows may be written
  /// concurrently.
  std::span<std::uint8_t> mutableRow(std::uint32_t switchIndex);
  void setCandidateList(std::uint32_t switchIndex, Address a, ListId list);
  /// The one-byte codes of one switch, one per address, for engines that fill whole rows of
  /// an adaptive table: a port reserved with reservePorts() before the lists were interned
  /// (so below listBase() for good) or kNoRoute as itself, list `id` as listCodeByte(id).
  /// Only while codeWidth() is 1 (throws RoutingError otherwise). Distinct rows may be
  /// written concurrently.
  std::span<std::uint8_t> mutableCodeRow(std::uint32_t switchIndex);
  /// The one-byte code of list `id` (codeWidth() 1).
  std::uint8_t listCodeByte(ListId id) const { return static_cast<std::uint8_t>(kNoRoute - 1U - id); }
  std::size_t memoryBytes() const;
  /// The stored codes, one per entry, switch-major (entry (s, a) at s * addressCount() + a),
  /// for readers that view them without copying (the Python package's numpy arrays): the
  /// span of the current codeWidth() (the others are empty), all empty while compacted()
  /// (expand() first). Valid until the next write to the table.
  std::span<const std::uint8_t> codeBytes() const { return {bytes_.data(), compact_ ? 0 : bytes_.size()}; }
  std::span<const std::uint16_t> codeWords() const { return {words_.data(), compact_ ? 0 : words_.size()}; }
  std::span<const std::uint32_t> codeLongs() const { return {longs_.data(), compact_ ? 0 : longs_.size()}; }

  /// The compact form of a finished table (runEngine() calls it on every engine's result).
  /// Rows are cut into chunks of kChunkEntries addresses; equal chunks are stored once, and
  /// a row becomes a list of chunk numbers. Fat-tree tables are a few distinct chunks
  /// repeated: a 4096-terminal adaptive fat-tree's 25 MB of codes become 0.8 MB of chunk
  /// numbers and a few kilobytes of chunks, so the entry a simulated hop reads comes from the
  /// caches instead of memory, and a 65,536-terminal one's 1 GiB becomes 32 MB. Only one-byte
  /// codes, only when there are at most 65,536 distinct chunks and the compact form takes
  /// at most half the memory; otherwise the table stays as it is. Returns whether it is
  /// compact. Every read gives what it gave before; the first write (any setter,
  /// mutableRow(), reservePorts(), a new list) expands it back to one code per entry
  /// (expand()). Not thread-safe: concurrent writers must start on an expanded table.
  bool compact();
  bool compacted() const { return compact_; }
  /// One code per entry again (a no-op unless compacted()). Not thread-safe.
  void expand();
  static constexpr std::uint32_t kChunkBits = 6, kChunkEntries = std::uint32_t{1} << kChunkBits;

 private:
  std::size_t entry(std::uint32_t s, Address a) const { return static_cast<std::size_t>(s) * addresses_ + a; }
  /// Where the chunk number of (s, a) is in chunkOf_ (compact form).
  std::size_t chunkSlot(std::uint32_t s, Address a) const {
    return static_cast<std::size_t>(s) * chunksPerRow_ + (a >> kChunkBits);
  }
  std::uint8_t compactCode(std::uint32_t s, Address a) const {
    const std::size_t chunk = chunkOf_[chunkSlot(s, a)];
    return chunks_[chunk << kChunkBits | (a & (kChunkEntries - 1))];
  }
  static constexpr std::array<PortNumber, 256> kPortNumbers = [] {
    std::array<PortNumber, 256> ports{};
    for (std::size_t i = 0; i < ports.size(); ++i) ports[i] = static_cast<PortNumber>(i);
    return ports;
  }();
  static constexpr std::uint32_t kWideListBase = 256;  ///< list i is code 256 + i at widths 2 and 4
  static constexpr std::uint32_t kWordLists = 65536 - kWideListBase;
  std::span<const PortNumber> listPorts(std::uint32_t id) const {
    return {listPorts_.data() + listStart_[id], listPorts_.data() + listStart_[id + 1]};
  }
  std::uint32_t listCode(ListId id) const { return width_ == 1 ? kNoRoute - 1U - id : kWideListBase + id; }
  void store(std::size_t e, std::uint32_t code) {
    if (width_ == 1)
      bytes_[e] = static_cast<std::uint8_t>(code);
    else if (width_ == 2)
      words_[e] = static_cast<std::uint16_t>(code);
    else
      longs_[e] = code;
  }
  std::uint32_t intern(std::span<const PortNumber> ports);
  void notePort(PortNumber port);
  void widen(std::uint32_t width);

  std::size_t switches_ = 0;
  std::size_t addresses_ = 0;
  std::uint32_t width_ = 1;
  std::uint32_t lists_ = 0;
  std::uint32_t longestList_ = 0;      ///< ports of the longest interned list
  std::uint32_t listBase_ = kNoRoute;  ///< width 1: kNoRoute - lists_
  /// Width 1: every single port stored (or reserved) is below it; raised only by a port at
  /// or above it, so reserved concurrent writers never touch it.
  std::uint32_t portCeiling_ = 0;
  bool rowsHandedOut_ = false;  ///< mutableRow() was called: ports unknown to portCeiling_
  std::vector<std::uint8_t, BulkAllocator<std::uint8_t>> bytes_;    // width 1
  std::vector<std::uint16_t, BulkAllocator<std::uint16_t>> words_;  // width 2
  std::vector<std::uint32_t, BulkAllocator<std::uint32_t>> longs_;  // width 4
  // Compact form (compact()): per row, chunksPerRow_ chunk numbers; chunk i is
  // chunks_[i * kChunkEntries, +kChunkEntries) (a row's last chunk padded with kNoRoute).
  bool compact_ = false;
  std::size_t chunksPerRow_ = 0;
  std::vector<std::uint16_t, BulkAllocator<std::uint16_t>> chunkOf_;
  std::vector<std::uint8_t> chunks_;
  std::vector<std::uint32_t> listStart_;  // CSR of interned lists
  std::vector<PortNumber> listPorts_;
  std::unordered_multimap<std::uint64_t, std::uint32_t> listHash_;  // hash -> list ids
};

/// Outcome of following a routing from a source to an address.
/// NoAddress: the destination (or the source) owns no address, e.g. a host an OpenSM dump
/// gives no LID; such a pair never arrives (routing/semantics.h).
enum class PathStatus { Delivered, NoRoute, Loop, DeadPort, NoAddress };

struct Path {
  PathStatus status = PathStatus::NoRoute;
  std::vector<ChannelId> channels;  ///< injection channel first, delivery channel last
  NodeId stoppedAt;                 ///< where a failed walk ended
};

struct RoutingResult {
  std::string engine;  ///< effective engine spec (name:options), echoed in every output
  AddressMap addresses;
  std::vector<ForwardingTable> tables;         ///< one per layer group (at least one)
  std::vector<std::uint16_t> tableOfLayer{0};  ///< layer -> table index; size = layer count
  /// Layer per (source index, address); empty = layer 0 for everything. The value
  /// kNoLayer marks a (source, address) pair that is not traffic: with per-pair addressing
  /// (LASH §5.1 step 2.1, MP-LASH, A-LASH) an address belongs to one source switch, and
  /// other sources never send to it (its table entries may be absent). Consumers that
  /// enumerate traffic must skip such pairs (see sends()).
  std::vector<std::uint8_t> layerOf;
  /// Optional: layers a source may use per (source index, address), bit i = layer i.
  std::vector<std::uint16_t> allowedLayers;
  /// Escape layer of an adaptive routing (Duato), or -1.
  int escapeLayer = -1;
  bool deterministic = true;  ///< one candidate per entry, in-order delivery
  bool minimal = false;       ///< every path is a shortest path (engine's claim, verified)
  /// Free-form engine statistics echoed in outputs ("layers_needed": "3", ...).
  std::vector<std::pair<std::string, std::string>> stats;

  /// Source-dependent routings (S-mod-k, Nienaber's OPT): a destination-based table cannot
  /// send two sources of one leaf switch different ways to one address, so every terminal
  /// owns `sourceClasses` addresses per path and a source of class c uses offset
  /// `path * sourceClasses + c` of the destination's block (InfiniBand does the same with
  /// LMC: the source picks the DLID). Defaults: one class, i.e. destination-based. A switch
  /// that sends (switch addresses routed) is of class 0.
  std::uint32_t sourceClasses = 1;
  std::vector<std::uint32_t> sourceClassOf;  ///< per source index; empty = class 0 for all

  /// The address `source` uses for its `path`-th path (0 <= path < pathCount) to
  /// `destination` (a node owning addresses). Every consumer that turns (source,
  /// destination) pairs into walks must use this, not addresses.base(). O(1).
  Address addressFor(NodeId source, NodeId destination, std::uint32_t path = 0) const;
  /// Number of distinct paths (LMC addresses) a source has to `destination`.
  std::uint32_t pathCount(NodeId destination) const;

  /// layerOf value of a (source, address) pair that carries no traffic.
  static constexpr std::uint8_t kNoLayer = 255;

  std::size_t layerCount() const { return tableOfLayer.size(); }
  /// Does source `sourceIndex` send to address `a`? False only for kNoLayer pairs.
  bool sends(std::uint32_t sourceIndex, Address a) const {
    return layerOf.empty() || layerOf[static_cast<std::size_t>(sourceIndex) * addresses.count() + a] != kNoLayer;
  }
  const ForwardingTable& table(LayerId layer = LayerId(0)) const { return tables[tableOfLayer[layer.index()]]; }
  LayerId layer(std::uint32_t sourceIndex, Address a) const {
    return layerOf.empty() ? LayerId(0)
                           : LayerId(layerOf[static_cast<std::size_t>(sourceIndex) * addresses.count() + a]);
  }

  /// Follow preferred ports from `source` (a terminal or switch owning addresses) to
  /// address `a` in `layer`. O(hops). Detects loops: a walk longer than nodeCount() + 1
  /// channels (the injection channel included) stops there, after nodeCount() + 2 channels,
  /// with PathStatus::Loop and stoppedAt on the cycle.
  Path path(const Network& network, NodeId source, Address a, LayerId layer = LayerId(0)) const;
  /// Same, but appends channels into `out` (cleared) to avoid allocation in hot loops.
  PathStatus walk(const Network& network, NodeId source, Address a, LayerId layer, std::vector<ChannelId>& out) const;
};

}  // namespace routelab
