// Gómez et al. 2007 §3–4 (ftree-adaptive, ftree-deterministic) and Nienaber et al. 2011
// §III.A (dmodk, smodk), all on any XGFT through xgft_tables.h.
#include "engines/fattree/fat_tree.h"

#include "engines/fattree/xgft_tables.h"

namespace routelab {

namespace {

using xgft_detail::XgftModel;

/// The d-mod-k digit selection: at level l, parent floor(d / W_l) + path, mod w_{l+1}.
/// On a k-ary n-tree (W_l = k^(l-1)) this is Gómez's k + p_s at stage s = l - 1.
RoutingResult digitSelection(const XgftModel& model, const RoutingContext& context, bool adaptive) {
  return xgft_detail::fillXgftRouting(
      model, context, 1, adaptive,
      [&model](std::size_t level, std::uint64_t, std::uint64_t d, std::uint32_t path, std::uint32_t) {
        return static_cast<std::uint32_t>((d / model.wProduct(level) + path) % model.upCount(level));
      },
      xgft_detail::ClimbScope::Level);
}

}  // namespace

RoutingResult routeFtreeAdaptive(const Network& network, const RoutingContext& context) {
  const XgftModel model(network, "ftree-adaptive");
  RoutingResult result = digitSelection(model, context, true);
  result.deterministic = false;
  return result;
}

RoutingResult routeFtreeDeterministic(const Network& network, const RoutingContext& context) {
  const XgftModel model(network, "ftree-deterministic");
  return digitSelection(model, context, false);
}

RoutingResult routeDmodk(const Network& network, const RoutingContext& context) {
  const XgftModel model(network, "dmodk");
  return digitSelection(model, context, false);
}

RoutingResult routeSmodk(const Network& network, const RoutingContext& context) {
  const XgftModel model(network, "smodk");
  const std::size_t h = model.height();
  const std::uint32_t w1 = model.params().w[0];
  // Source classes: s / w_1 mod C with C = w_2 ··· w_h decide every climb of S-mod-k.
  const std::uint64_t classes64 = model.wProduct(h) / w1;
  if (classes64 > 65536) {
    throw RoutingError(
        fmt::format("smodk on {} needs {} source classes (addresses per terminal); at most 65536 are "
                    "supported",
                    model.params().str(), classes64));
  }
  const auto classes = static_cast<std::uint32_t>(classes64);
  RoutingResult result = xgft_detail::fillXgftRouting(
      model, context, classes, false,
      [&model, w1](std::size_t level, std::uint64_t, std::uint64_t, std::uint32_t path, std::uint32_t sourceClass) {
        return static_cast<std::uint32_t>((sourceClass / (model.wProduct(level) / w1) + path) % model.upCount(level));
      },
      xgft_detail::ClimbScope::Level);
  result.sourceClassOf.assign(result.addresses.owners().size(), 0);
  for (NodeId t : network.terminals()) {
    result.sourceClassOf[result.addresses.sourceIndex(t)] =
        static_cast<std::uint32_t>((model.terminalIndex(t) / w1) % classes);
  }
  return result;
}

}  // namespace routelab
