// routelab/routing/engine.h — the routing-engine family.
//
// An engine is a registry row whose factory, given the engine's own Options, returns a
// function from a const Network (plus the common RoutingContext) to a RoutingResult.
// Engines throw UnsupportedTopology for fabrics they cannot route and RoutingError when a
// constraint cannot be met — never a wrong table. Adding an engine = its file in
// routing/engines/, one row in the family's rows function, its test; see
// routing/engines/template_engine.cpp.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/options.h"
#include "core/registry.h"
#include "routing/routing_result.h"

namespace routelab {

/// Options common to every engine (not part of an engine's own schema).
struct RoutingContext {
  std::uint32_t addressesPerTerminal = 1;  ///< 2^lmc
  bool routeSwitches = false;              ///< also route switch addresses (management)
  std::uint64_t seed = 1;                  ///< for engines with random tie-breaks
};

using RoutingFunction = std::function<RoutingResult(const Network&, const RoutingContext&)>;
using EngineFactory = std::function<RoutingFunction(const Options&)>;

/// Rows contributed by each engine family (one file each, so that families evolve
/// independently). The registry itself is engines/registry.h (it sits above the modules
/// that contribute rows):
///   fatTreeEngineRows()  — routing/engines/: Gómez, Nienaber (this module)
///   irregularEngineRows() — layered/: minhop, UpDown, MROOTS, LASH family, Escape (Lysne)
///   fileEngineRows()     — io/: OpenSM LFT dumps (`file:PATH`)
std::vector<RegistryRow<EngineFactory>> fatTreeEngineRows();

}  // namespace routelab
