// routelab/engines/fattree/xgft_tables.h — the table filler shared by the fat-tree engines
// (internal to routing/). An engine supplies only its up-port choice; descending is always
// the unique path of the XGFT (Gómez §3).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <span>
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

/// Which arguments an engine's climb reads: `Level` — only (level, destination, path,
/// class), so every switch of a level climbs alike (D-mod-k, S-mod-k, Gómez's
/// digit selection) and the deterministic filler computes one template row per level;
/// `Switch` — also the switch's index in its level (OPT's per-leaf assignment).
enum class ClimbScope { Level, Switch };

/// The byte a climbing entry stores for up-port choice b of a level-l switch: the up port
/// (deterministic tables), or the one-byte code of the adaptive list that starts at b
/// (ForwardingTable::listCodeByte; a level without lists stores the port).
struct ClimbCodes {
  const std::vector<std::vector<ForwardingTable::ListId>>* lists = nullptr;  ///< null: deterministic
  const ForwardingTable* table = nullptr;
  std::uint8_t operator()(const XgftModel& model, std::size_t level, std::uint32_t b) const {
    if (lists != nullptr && !(*lists)[level].empty()) return table->listCodeByte((*lists)[level][b]);
    return static_cast<std::uint8_t>(model.upPort(level, b));
  }
};

/// The climbing entries of a level-`level` switch with index `index`: for every terminal
/// index d, path p and class c, the code of choice parent(level, index, d, p, c) at address
/// baseOfIndex[d] + p · classes + c (subtree entries are overwritten afterwards).
template <class Parent>
void fillUpEntries(const XgftModel& model, std::span<std::uint8_t> row, std::size_t level, std::uint64_t index,
                   std::span<const Address> baseOfIndex, std::uint32_t block, std::uint32_t classes,
                   const Parent& parent, const ClimbCodes& codes) {
  const std::uint32_t paths = block / classes;
  for (std::uint64_t d = 0; d < baseOfIndex.size(); ++d) {
    for (std::uint32_t p = 0; p < paths; ++p) {
      for (std::uint32_t c = 0; c < classes; ++c) {
        row[baseOfIndex[d] + p * classes + c] = codes(model, level, parent(level, index, d, p, c));
      }
    }
  }
}

/// The terminal part of a deterministic row in closed form (Gómez §3: a destination inside
/// the switch's subtree descends through the unique down port, one outside climbs by the
/// engine's choice): the climbing entries from `levelTemplate` (or fillUpEntries when it is
/// empty), then the subtree's down ports over them — runs of M_{l-1} consecutive terminals
/// share a port, written as byte runs when terminal index d owns addresses
/// [d·block, (d+1)·block) (`contiguous`), else terminal by terminal.
template <class Parent>
void fillTerminalRow(const XgftModel& model, std::span<std::uint8_t> row, std::uint32_t switchIndex,
                     std::span<const Address> baseOfIndex, bool contiguous, std::uint32_t block, std::uint32_t classes,
                     std::span<const std::uint8_t> levelTemplate, const Parent& parent, const ClimbCodes& codes) {
  const std::size_t level = model.switchLevel(switchIndex);
  const std::uint64_t index = model.switchIndexInLevel(switchIndex);
  const std::uint64_t terminals = baseOfIndex.size();
  if (level == model.height()) {
    if (model.mProduct(level) < terminals) std::fill_n(row.begin(), terminals * block, kNoRoute);
  } else if (!levelTemplate.empty()) {
    std::copy(levelTemplate.begin(), levelTemplate.end(), row.begin());
  } else {
    fillUpEntries(model, row, level, index, baseOfIndex, block, classes, parent, codes);
  }
  // The subtree below this switch is the terminal range [first, first + M_level).
  const std::uint64_t first = index / model.wProduct(level) * model.mProduct(level);
  const std::uint64_t below = model.mProduct(level - 1);
  for (std::uint32_t j = 0; j < model.m(level); ++j) {
    const auto port = static_cast<std::uint8_t>(1 + j);
    const std::uint64_t runStart = first + j * below;
    if (contiguous) {
      std::fill_n(row.begin() + static_cast<std::ptrdiff_t>(runStart * block), below * block, port);
    } else {
      for (std::uint64_t d = runStart; d < runStart + below; ++d)
        std::fill_n(row.begin() + baseOfIndex[d], block, port);
    }
  }
}

/// The row filler: every row written whole (ForwardingTable::Unfilled, no kNoRoute pass; one
/// template per level when the climb has ClimbScope::Level). Same entries as the
/// entry-by-entry path; O(S · A) byte writes, mostly block copies. Deterministic tables
/// store ports; adaptive ones (`lists`, the table's codes one byte wide) the list codes.
template <class Parent>
void fillRows(const XgftModel& model, const RoutingContext& context, std::uint32_t classes, ClimbScope scope,
              const Parent& parent, RoutingResult& result,
              const std::vector<std::vector<ForwardingTable::ListId>>* lists = nullptr) {
  const Network& network = model.network();
  ForwardingTable& table = result.tables.front();
  const ClimbCodes codes{lists, &table};
  const std::uint32_t block = context.addressesPerTerminal * classes;
  std::vector<Address> baseOfIndex(network.terminalCount());
  bool contiguous = true;
  for (NodeId t : network.terminals()) {
    const std::uint64_t d = model.terminalIndex(t);
    baseOfIndex[d] = result.addresses.base(t);
    contiguous = contiguous && baseOfIndex[d] == d * block;
  }
  const std::size_t terminalAddresses = baseOfIndex.size() * block;
  const std::size_t h = model.height();
  std::vector<std::vector<std::uint8_t>> templates(h + 1);  // by level; the top level (h) has none
  if (scope == ClimbScope::Level) {
    for (std::size_t level = 1; level < h; ++level) {
      templates[level].resize(terminalAddresses);
      fillUpEntries(model, std::span<std::uint8_t>(templates[level]), level, 0, baseOfIndex, block, classes, parent,
                    codes);
    }
  }
  const auto switches = static_cast<std::int64_t>(network.switchCount());
#if defined(ROUTELAB_HAVE_OPENMP)
#pragma omp parallel for schedule(dynamic, 8) if (switches >= 64)
#endif
  for (std::int64_t sw = 0; sw < switches; ++sw) {
    const auto s = static_cast<std::uint32_t>(sw);
    const std::span<std::uint8_t> row = lists != nullptr ? table.mutableCodeRow(s) : table.mutableRow(s);
    fillTerminalRow(model, row, s, baseOfIndex, contiguous, block, classes, templates[model.switchLevel(s)], parent,
                    codes);
    std::fill(row.begin() + terminalAddresses, row.end(), kNoRoute);
    if (!context.routeSwitches) continue;
    const std::size_t level = model.switchLevel(s);
    const std::uint64_t index = model.switchIndexInLevel(s);
    for (NodeId x : network.switches()) {
      const auto xs = network.switchIndex(x);
      bool freeUp = false;
      const PortNumber port =
          model.towardsSwitch(level, index, model.switchLevel(xs), model.switchIndexInLevel(xs), freeUp);
      const Address a = result.addresses.base(x);
      if (freeUp)
        row[a] = codes(model, level, 0);  // the first up port, as OpenSM's ftree
      else if (port != kNoRoute)
        row[a] = static_cast<std::uint8_t>(port);
    }
  }
}

/// The adaptive filler entry by entry over a kNoRoute table, parallel over switches: for
/// tables whose codes are wider than a byte (fillRows writes one-byte codes).
template <class Parent>
void fillAdaptiveEntries(const XgftModel& model, const RoutingContext& context, std::uint32_t classes,
                         const Parent& parent, RoutingResult& result,
                         const std::vector<std::vector<ForwardingTable::ListId>>& lists) {
  const Network& network = model.network();
  ForwardingTable& table = result.tables.front();
  const std::uint32_t block = context.addressesPerTerminal * classes;
  const std::size_t h = model.height();
  auto setUp = [&](std::uint32_t s, std::size_t level, Address a, std::uint32_t b) {
    if (!lists[level].empty())
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
          for (std::uint32_t c = 0; c < classes; ++c)
            setUp(s, level, base + p * classes + c, parent(level, index, d, p, c));
        }
      }
    }
    if (!context.routeSwitches) continue;
    for (NodeId x : network.switches()) {
      const auto xs = network.switchIndex(x);
      bool freeUp = false;
      const PortNumber port =
          model.towardsSwitch(level, index, model.switchLevel(xs), model.switchIndexInLevel(xs), freeUp);
      if (freeUp)
        setUp(s, level, result.addresses.base(x), 0);  // the first up port, as OpenSM's ftree
      else if (port != kNoRoute)
        table.set(s, result.addresses.base(x), port);
    }
  }
}

template <class Parent>
RoutingResult fillXgftRouting(const XgftModel& model, const RoutingContext& context, std::uint32_t classes,
                              bool adaptive, const Parent& parent, ClimbScope scope = ClimbScope::Switch) {
  const Network& network = model.network();
  const std::uint32_t block = xgftAddressBlock(network, context.addressesPerTerminal, classes);
  RoutingResult result;
  result.addresses = AddressMap::build(network, block, context.routeSwitches);
  result.sourceClasses = classes;
  ForwardingTable& filled =
      result.tables.emplace_back(network.switchCount(), result.addresses.count(), ForwardingTable::Unfilled{});
  if (adaptive) {
    // Every port the fill may store is reserved before the lists are interned and the rows
    // written concurrently: the list codes stay clear of the ports.
    PortNumber maxPort = 0;
    for (NodeId s : network.switches()) maxPort = std::max(maxPort, network.portCount(s));
    const auto prepare = [&](ForwardingTable& table) {
      table.reservePorts(maxPort);
      return internUpPortLists(model, table);
    };
    const std::vector<std::vector<ForwardingTable::ListId>> lists = prepare(filled);
    if (filled.codeWidth() == 1) {
      fillRows(model, context, classes, scope, parent, result, &lists);
    } else {  // ports and lists do not fit in a byte together (radix near 255): over kNoRoute
      filled = ForwardingTable(network.switchCount(), result.addresses.count());
      fillAdaptiveEntries(model, context, classes, parent, result, prepare(filled));
    }
  } else {
    fillRows(model, context, classes, scope, parent, result);
  }
  const ForwardingTable& table = result.tables.front();
  result.deterministic = !adaptive || !table.adaptive();
  result.minimal = true;
  result.stats.emplace_back("xgft", model.params().str());
  result.stats.emplace_back("paths_per_terminal", std::to_string(context.addressesPerTerminal));
  if (classes > 1) result.stats.emplace_back("source_classes", std::to_string(classes));
  return result;
}

}  // namespace routelab::xgft_detail
