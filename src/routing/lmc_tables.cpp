// routelab/routing/lmc_tables.cpp — see lmc_tables.h.
#include "routing/lmc_tables.h"

#include <fmt/format.h>
#include <algorithm>
#include <bit>

#include "core/errors.h"
#include "core/limits.h"
#include "routing/semantics.h"

namespace routelab {

namespace {

/// InfiniBand: LMC <= 7, so a port owns at most 128 LIDs.
constexpr std::uint32_t kMaxLidsPerPort = 128;

struct MergedAddresses {
  AddressMap map;
  std::vector<Address> newBase;  ///< per node: first address of its merged block
};

/// Blocks of `copies` x the old size, in the old order, each at a LID aligned to its size
/// (`tables`, at most copies, only names the cause when a block would be too large).
MergedAddresses mergedAddresses(const Network& network, const AddressMap& old, std::size_t tables,
                                std::uint32_t copies) {
  MergedAddresses out;
  out.newBase.assign(network.nodeCount(), 0);
  std::vector<std::pair<NodeId, std::uint32_t>> blocks;
  std::vector<std::uint32_t> lids;
  std::uint64_t nextLid = 1;  // LID 0 is reserved
  for (const NodeId owner : old.owners()) {
    const std::uint32_t size = old.blockSize(owner) * copies;
    if (size > kMaxLidsPerPort) {
      throw RoutingError(
          fmt::format("'{}' owns {} addresses; merging {} tables by LMC takes {} copies of them (a power of two), "
                      "{} LIDs, and an InfiniBand port has at most {} (LMC 7)",
                      network.name(owner), old.blockSize(owner), tables, copies, size, kMaxLidsPerPort));
    }
    const std::uint64_t alignment = std::bit_ceil(size);
    const std::uint64_t base = (nextLid + alignment - 1) / alignment * alignment;
    out.newBase[owner.index()] = static_cast<Address>(lids.size());
    blocks.emplace_back(owner, size);
    for (std::uint32_t i = 0; i < size; ++i) lids.push_back(static_cast<std::uint32_t>(base + i));
    nextLid = base + size;
  }
  out.map = AddressMap::fromBlocks(network, std::move(blocks), std::move(lids));
  return out;
}

}  // namespace

RoutingResult mergeTablesByLmc(const Network& network, const RoutingResult& routing) {
  const std::size_t tables = routing.tables.size();
  if (tables <= 1) return routing;
  if (routing.escapeLayer >= 0) {
    throw RoutingError(
        "an escape routing changes layer inside the fabric (Duato); one LFT with an SL per pair cannot express it");
  }
  const std::uint32_t copies = lmcCopies(tables);
  const AddressMap& old = routing.addresses;
  MergedAddresses merged = mergedAddresses(network, old, tables, copies);
  const std::size_t count = merged.map.count();
  auto copyOf = [&](Address a, std::size_t table) {
    const NodeId owner = old.owner(a);
    return merged.newBase[owner.index()] + static_cast<Address>(table) * old.blockSize(owner) + old.offset(a);
  };

  RoutingResult result;
  result.engine = routing.engine;
  result.deterministic = routing.deterministic;
  result.minimal = routing.minimal;
  result.stats = routing.stats;
  result.stats.emplace_back("lmc_tables", fmt::format("{} tables on LMC {}", tables, lmcOfLargestBlock(merged.map)));
  result.sourceClasses = routing.sourceClasses;
  result.sourceClassOf = routing.sourceClassOf;
  result.tableOfLayer.assign(routing.layerCount(), 0);
  result.tables.emplace_back(network.switchCount(), count);
  ForwardingTable& table = result.tables.front();
  for (std::size_t t = 0; t < tables; ++t) {
    for (std::uint32_t s = 0; s < network.switchCount(); ++s) {
      for (Address a = 0; a < old.count(); ++a) {
        const auto candidates = routing.tables[t].candidates(s, a);
        if (!candidates.empty()) table.setCandidates(s, copyOf(a, t), candidates);
      }
    }
  }
  const std::size_t sources = old.owners().size();
  checkMemory("layers per (source, LMC address)", saturatingBytes(sources, count), "pairs", 1);
  result.layerOf.assign(sources * count, RoutingResult::kNoLayer);
  for (std::uint32_t si = 0; si < sources; ++si) {
    for (Address a = 0; a < old.count(); ++a) {
      if (!routing.sends(si, a)) continue;
      const LayerId layer = routing.layer(si, a);
      result.layerOf[static_cast<std::size_t>(si) * count + copyOf(a, routing.tableOfLayer[layer.index()])] =
          static_cast<std::uint8_t>(layer.index());
    }
  }
  result.addresses = std::move(merged.map);
  validate(network, result);
  return result;
}

std::uint32_t lmcCopies(std::size_t tables) {
  return static_cast<std::uint32_t>(std::bit_ceil(std::max<std::size_t>(tables, 1)));
}

std::uint32_t lmcOf(std::uint64_t lids) { return lids <= 1 ? 0 : static_cast<std::uint32_t>(std::bit_width(lids - 1)); }

std::uint32_t lmcOfLargestBlock(const AddressMap& addresses) {
  std::uint32_t largest = 1;
  for (const NodeId owner : addresses.owners()) largest = std::max(largest, addresses.blockSize(owner));
  return lmcOf(largest);
}

}  // namespace routelab
