// routelab/engines/irregular/lash_common.h — pieces shared by lash, mp-lash and a-lash: per-pair
// address maps (Lysne et al. 2006 §5.1 step 2.1) and option parsing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engines/irregular/layering.h"
#include "engines/irregular/switch_view.h"

namespace routelab::irregular {

/// Per-pair addressing (§5.1 step 2.1, §6 step 2.1, §7 step 2.1.1): every owner of
/// addresses (terminals, then switches with `routeSwitches`, in the order of
/// AddressMap::build) gets a block of `paths × activeCount` addresses laid out path-major:
/// offset `k × activeCount + i` is the k-th path from the i-th active source switch, where
/// `paths` is the largest `count(source switch, owner's switch)` over all pairs and a pair
/// with fewer paths repeats them (k mod count). This is exactly RoutingResult's
/// source-class layout (sourceClasses = activeCount, class = active index of the source's
/// switch), so RoutingResult::addressFor() finds every source's addresses; the engines
/// call applySourceClasses(). Terminals of one switch share their switch's addresses (they
/// share its paths, as in OpenSM's LASH). Throws SpecError when the context asks for LMC
/// addresses (per-pair addressing defines its own) and RoutingError when the tables would
/// exceed 2^28 entries.
struct PairAddresses {
  AddressMap map;
  std::vector<std::uint32_t> counts;  ///< counts[d * activeCount + i]: paths from active i to switch d
  std::size_t activeCount = 0;
  std::uint32_t paths = 1;  ///< addresses per (owner, source switch)
  /// The source switch of address `a` and the index k (< its path count) of its path.
  std::pair<std::uint32_t, std::uint32_t> sourceOf(const SwitchView& view, Address a) const;
  /// Declare the layout on `result` (sourceClasses, sourceClassOf per source index).
  void applySourceClasses(const SwitchView& view, RoutingResult& result) const;
  /// Fill result.layerOf (and result.allowedLayers when `withAllowed`) over
  /// result.addresses: a source sends only to the addresses of its own switch (every other
  /// pair is RoutingResult::kNoLayer, allowed set 0); `layerFor(a)` gives the layer and the
  /// allowed-layer set of address a. O(addresses x sources per switch).
  void assignLayers(const SwitchView& view, RoutingResult& result, bool withAllowed,
                    const std::function<std::pair<std::uint8_t, std::uint16_t>(Address)>& layerFor) const;
};
PairAddresses makePairAddresses(const SwitchView& view, const RoutingContext& context,
                                const std::function<std::uint32_t(std::uint32_t s, std::uint32_t d)>& count);

/// The §8.4 fallback layer of the LASH family (see assignLayersWithin in layering.h): one
/// more table, UpDown (BFS ranks, root = the lowest switch carrying traffic) for every
/// address of result.addresses, deterministic and balanced like minhop (balancedTable). It
/// becomes the table of the last layer: precondition result.tableOfLayer already has its
/// final size (routeLayers() + 1). Every address is routed, so a pair moved to this layer
/// is delivered from any source switch.
void appendUpDownLayer(const SwitchView& view, RoutingResult& result);

/// Statistics of a budgeted assignment: `layers_needed` ("N", or ">L" when the budget L cut
/// first-fit short), `layers`, and with the fallback `updown_layer` (its index) and
/// `updown_<unit>` (routes moved there: switch_pairs, paths, groups).
void appendLayerStats(RoutingResult& result, const BudgetedLayers& layering, const std::string& unit);

/// Default of every layered engine's `max-layers`: InfiniBand switches offer 8 data virtual
/// lanes unless configured otherwise (VL0–VL7; at most 15, VL15 is management), so a
/// routing with at most 8 layers loads onto a fabric as it comes.
inline constexpr std::int64_t kDefaultMaxLayers = 8;

/// The `max-layers` option of lash, mp-lash and a-lash (`unit`: what goes to the UpDown
/// layer: pairs, paths, groups): 0..kMaxLayers, default kDefaultMaxLayers.
OptionSpec maxLayersOption(const std::string& unit);
/// Its value; SpecError naming the engine and the range 0..kMaxLayers otherwise.
std::size_t maxLayers(const Options& options);

/// `addressing=destination|pair` option value; throws SpecError otherwise.
bool pairAddressing(const Options& options);

}  // namespace routelab::irregular
