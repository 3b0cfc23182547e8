// routelab/engines/fattree/xgft_tables.h — the table filler shared by the fat-tree engines
// (internal to routing/). An engine supplies only its up-port choice; descending is always
// the unique path of the XGFT (Gómez §3).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engines/fattree/xgft_model.h"
#include "routing/engine.h"

namespace routelab::xgft_detail {

/// Fill a routing for `model`'s network: `classes` source classes (offset = path * classes
/// + class), context.addressesPerTerminal paths, switch addresses if requested (routed
/// up*/down* in every engine; where the climb is free, through the first up port, as
/// OpenSM's ftree routes switch LIDs — management traffic is light).
///
/// `parent(level, index, destination, path, sourceClass)` is the engine's climb: the parent
/// digit b in [0, w_{l+1}) at the level-l switch with index `index` in its level, for the
/// terminal destination `destination` (index in level 0), LMC path `path` and source class
/// `sourceClass`. `adaptive`: every up port is a candidate, the chosen one first.
/// Parallel over switches; O(S · A).
/// Addresses per terminal: `paths` x `classes` (LMC paths x source classes); throws when
/// the fabric would need more than 2^31 addresses.
inline std::uint32_t xgftAddressBlock(const Network& network, std::uint32_t paths, std::uint32_t classes) {
  if (paths == 0) throw SpecError("at least one address per terminal is needed");
  const std::uint64_t block = std::uint64_t{paths} * classes;
  if (block * network.terminalCount() > (std::uint64_t{1} << 31)) {
    throw RoutingError(fmt::format("{} paths x {} source classes per terminal x {} terminals: too many addresses",
                                   paths, classes, network.terminalCount()));
  }
  return static_cast<std::uint32_t>(block);
}

/// The adaptive candidate lists, interned once in `table`: per level l (index l) and
/// preferred parent b, the up ports in cyclic order starting at b. Levels with fewer than
/// two up ports get no list (their entries stay deterministic).
inline std::vector<std::vector<ForwardingTable::ListId>> internUpPortLists(const XgftModel& model,
                                                                           ForwardingTable& table) {
  const std::size_t h = model.height();
  std::vector<std::vector<ForwardingTable::ListId>> lists(h + 1);
  for (std::size_t l = 1; l < h; ++l) {
    const std::uint32_t ups = model.upCount(l);
    if (ups < 2) continue;
    for (std::uint32_t b = 0; b < ups; ++b) {
      std::vector<PortNumber> ports;
      for (std::uint32_t j = 0; j < ups; ++j) ports.push_back(model.upPort(l, (b + j) % ups));
      lists[l].push_back(table.addCandidateList(ports));
    }
  }
  return lists;
}

template <class Parent>
RoutingResult fillXgftRouting(const XgftModel& model, const RoutingContext& context, std::uint32_t classes,
                              bool adaptive, const Parent& parent) {
  const Network& network = model.network();
  const std::uint32_t block = xgftAddressBlock(network, context.addressesPerTerminal, classes);
  RoutingResult result;
  result.addresses = AddressMap::build(network, block, context.routeSwitches);
  result.sourceClasses = classes;
  result.tables.emplace_back(network.switchCount(), result.addresses.count());
  ForwardingTable& table = result.tables.front();

  const std::size_t h = model.height();
  const std::vector<std::vector<ForwardingTable::ListId>> lists =
      adaptive ? internUpPortLists(model, table) : std::vector<std::vector<ForwardingTable::ListId>>(h + 1);
  auto setUp = [&](std::uint32_t s, std::size_t level, Address a, std::uint32_t b) {
    if (adaptive && !lists[level].empty())
      table.setCandidateList(s, a, lists[level][b]);
    else
      table.set(s, a, model.upPort(level, b));
  };

  const auto switches = static_cast<std::int64_t>(network.switchCount());
  const std::uint32_t paths = context.addressesPerTerminal;
#if defined(ROUTELAB_HAVE_OPENMP)
#pragma omp parallel for schedule(dynamic, 8) if (switches >= 64)
#endif
  for (std::int64_t sw = 0; sw < switches; ++sw) {
    const auto s = static_cast<std::uint32_t>(sw);
    const std::size_t level = model.switchLevel(s);
    const std::uint64_t index = model.switchIndexInLevel(s);
    // The subtree below this switch is the terminal range [first, first + M_level).
    const std::uint64_t first = index / model.wProduct(level) * model.mProduct(level);
    const std::uint64_t below = model.mProduct(level - 1);
    const std::uint32_t down = model.m(level);
    for (NodeId t : network.terminals()) {
      const std::uint64_t d = model.terminalIndex(t);
      const Address base = result.addresses.base(t);
      if (d - first < model.mProduct(level)) {  // unsigned: also false for d < first
        const auto port = static_cast<PortNumber>(1 + (d / below) % down);
        for (std::uint32_t o = 0; o < block; ++o) table.set(s, base + o, port);
      } else if (level < h) {
        for (std::uint32_t p = 0; p < paths; ++p) {
          for (std::uint32_t c = 0; c < classes; ++c) {
            setUp(s, level, base + p * classes + c, parent(level, index, d, p, c));
          }
        }
      }
    }
    if (context.routeSwitches) {
      for (NodeId x : network.switches()) {
        const auto xs = network.switchIndex(x);
        const Address a = result.addresses.base(x);
        bool freeUp = false;
        const PortNumber port =
            model.towardsSwitch(level, index, model.switchLevel(xs), model.switchIndexInLevel(xs), freeUp);
        if (freeUp)
          setUp(s, level, a, 0);  // the first up port, as OpenSM's ftree
        else if (port != kNoRoute)
          table.set(s, a, port);
      }
    }
  }
  result.deterministic = !adaptive || !table.adaptive();
  result.minimal = true;
  result.stats.emplace_back("xgft", model.params().str());
  result.stats.emplace_back("paths_per_terminal", std::to_string(paths));
  if (classes > 1) result.stats.emplace_back("source_classes", std::to_string(classes));
  return result;
}

}  // namespace routelab::xgft_detail
