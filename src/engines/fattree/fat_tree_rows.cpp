// The fat-tree engine family's registry rows (engines/families.h; engines/registry.cpp concatenates them).
#include "engines/families.h"
#include "engines/fattree/fat_tree.h"

namespace routelab {

namespace {

/// A row for an engine without options of its own.
RegistryRow<EngineFactory> row(std::string name, std::string summary, std::string reference,
                               RoutingResult (*route)(const Network&, const RoutingContext&)) {
  return {std::move(name), std::move(summary), std::move(reference), {}, [route](const Options&) -> RoutingFunction {
            return route;
          }};
}

}  // namespace

// The register files of Gómez et al. 2007: IR (§3.1) holds every minimal up port, which is
// ftree-adaptive's set; FIR (§4.1) holds one up port per destination, k + p_s at stage s, which
// is ftree-deterministic's choice and, on the fat-trees FIR is defined on, dmodk's.
std::vector<EngineRegisterExports> fatTreeEngineRegisterExports() {
  return {{"ftree-adaptive", {"ir"}}, {"ftree-deterministic", {"fir"}}, {"dmodk", {"fir"}}};
}

std::vector<RegistryRow<EngineFactory>> fatTreeEngineRows() {
  return {
      row("ftree-adaptive", "fat-tree minimal adaptive: every up port to a nearest common ancestor (IR registers)",
          "Gómez et al. 2007 §3, Figs. 1-2", &routeFtreeAdaptive),
      row("ftree-deterministic", "fat-tree deterministic: up port k + p_s at stage s, balances every stage (FIR)",
          "Gómez et al. 2007 §4, Figs. 3-4", &routeFtreeDeterministic),
      row("dmodk", "Destination-mod-k: top switch d mod m; XGFT digit selection floor(d/W_l) mod w_(l+1)",
          "Nienaber et al. 2011 §III.A", &routeDmodk),
      row("smodk", "Source-mod-k: top switch s mod m; source-based, one address per source class",
          "Nienaber et al. 2011 §III.A", &routeSmodk),
      row("opt", "OPT on T(n+m,r): group g_i -> g_j via TSW(i*floor(sqrt m)+j), WORST = n/sqrt(m)",
          "Nienaber et al. 2011 §III.B, Fig. 2", &routeOpt),
      row("opt-balanced", "enhanced OPT: OPT, then SD pairs moved round robin onto unused top switches",
          "Nienaber et al. 2011 §IV", &routeOptBalanced),
      {"opt-grid",
       "OPT on an a x b grid of source x destination groups using every top it can, WORST <= Fig. 2's",
       "Nienaber et al. 2011 §III.B (Fig. 2 generalised to a != b)",
       {{"source-groups", OptionType::Integer, "0", "source groups a per leaf (0: the default shape)"},
        {"destination-groups", OptionType::Integer, "0", "destination groups b per leaf (0: the default shape)"}},
       [](const Options& options) -> RoutingFunction {
         const auto a = static_cast<std::uint32_t>(options.integerIn("source-groups", 0, 4096));
         const auto b = static_cast<std::uint32_t>(options.integerIn("destination-groups", 0, 4096));
         return [a, b](const Network& network, const RoutingContext& context) {
           return routeOptGrid(network, context, a, b);
         };
       }},
  };
}

}  // namespace routelab
