// routelab/layered/lash_common.h — pieces shared by lash, mp-lash and a-lash: per-pair
// address maps (Lysne et al. 2006 §5.1 step 2.1) and option parsing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "layered/switch_view.h"

namespace routelab::layered {

/// Per-pair addressing (§5.1 step 2.1, §6 step 2.1, §7 step 2.1.1): every owner of
/// addresses (terminals, then switches with `routeSwitches`, in the order of
/// AddressMap::build) gets `count(source switch, owner's switch)` addresses per active
/// source switch, in active-switch order. Terminals of one switch share their switch's
/// addresses (they share its paths, as in OpenSM's LASH). Throws SpecError when the context
/// asks for LMC addresses (per-pair addressing defines its own) and RoutingError when the
/// tables would exceed 2^28 entries.
struct PairAddresses {
  AddressMap map;
  /// prefix[d * A + sourceActiveIndex]: offset of that source's first address in the block
  /// of an owner attached to switch d (A = active switches; row d has A + 1 entries).
  std::vector<std::uint32_t> prefix;
  std::size_t activeCount = 0;
  Address address(const SwitchView& view, NodeId owner, std::uint32_t sourceSwitch, std::uint32_t k) const {
    const std::uint32_t d = view.attachedSwitch(owner);
    return map.base(owner) + prefix[d * (activeCount + 1) + view.activeIndex(sourceSwitch)] + k;
  }
  /// The source switch of address `a` and the index k among its addresses for that pair.
  std::pair<std::uint32_t, std::uint32_t> sourceOf(const SwitchView& view, Address a) const;
};
PairAddresses makePairAddresses(const SwitchView& view, const RoutingContext& context,
                                const std::function<std::uint32_t(std::uint32_t s, std::uint32_t d)>& count);

/// `addressing=destination|pair` option value; throws SpecError otherwise.
bool pairAddressing(const Options& options);

}  // namespace routelab::layered
