#include "layered/lash_common.h"

#include <algorithm>
#include <fmt/format.h>

#include "core/errors.h"

namespace routelab::layered {

PairAddresses makePairAddresses(const SwitchView& view, const RoutingContext& context,
                                const std::function<std::uint32_t(std::uint32_t s, std::uint32_t d)>& count) {
  if (context.addressesPerTerminal != 1) {
    throw SpecError("addressing=pair assigns one address per source switch and path; LMC addresses (lmc > 0) "
                    "cannot be combined with it");
  }
  const Network& network = view.network();
  const auto active = view.activeSwitches();
  PairAddresses out;
  out.activeCount = active.size();
  const std::size_t row = active.size() + 1;
  out.prefix.assign(view.switchCount() * row, 0);
  for (std::uint32_t d : active) {
    for (std::size_t i = 0; i < active.size(); ++i) {
      out.prefix[d * row + i + 1] = out.prefix[d * row + i] + count(active[i], d);
    }
  }
  std::vector<std::pair<NodeId, std::uint32_t>> blocks;
  std::uint64_t total = 0;
  auto add = [&](NodeId owner) {
    const std::uint32_t d = view.attachedSwitch(owner);
    const std::uint32_t size = out.prefix[d * row + active.size()];
    blocks.emplace_back(owner, size);
    total += size;
  };
  for (NodeId t : network.terminals()) add(t);
  if (context.routeSwitches) {
    for (NodeId s : network.switches()) add(s);
  }
  if (total * std::max<std::size_t>(view.switchCount(), 1) > (std::uint64_t{1} << 28)) {
    throw RoutingError(fmt::format("per-pair addressing needs {} addresses on {} switches (over 2^28 table entries); "
                                   "use fewer paths (max-paths) or addressing=destination",
                                   total, view.switchCount()));
  }
  out.map = AddressMap::fromBlocks(network, std::move(blocks), {});
  return out;
}

std::pair<std::uint32_t, std::uint32_t> PairAddresses::sourceOf(const SwitchView& view, Address a) const {
  const NodeId owner = map.owner(a);
  const std::uint32_t d = view.attachedSwitch(owner);
  const std::uint32_t offset = map.offset(a);
  const std::uint32_t* row = prefix.data() + d * (activeCount + 1);
  const auto it = std::upper_bound(row, row + activeCount + 1, offset);
  const auto index = static_cast<std::size_t>(it - row) - 1;
  return {view.activeSwitches()[index], offset - row[index]};
}

bool pairAddressing(const Options& options) {
  const std::string& mode = options.string("addressing");
  if (mode == "pair") return true;
  if (mode == "destination") return false;
  throw SpecError(fmt::format("{}: option 'addressing' must be 'destination' or 'pair', got '{}'",
                              options.component(), mode));
}

}  // namespace routelab::layered
