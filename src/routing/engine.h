// routelab/routing/engine.h — the routing-engine family.
//
// An engine is a registry row whose factory, given the engine's own Options, returns a
// function from a const Network (plus the common RoutingContext) to a RoutingResult.
// Engines throw UnsupportedTopology for fabrics they cannot route and RoutingError when a
// constraint cannot be met — never a wrong table. Engines live under src/engines/, one
// folder per family (fattree/, irregular/, tables/), each with its rows function
// (engines/families.h); the registry is engines/registry.h. Adding an engine = its file,
// one row in its family's rows function, a test of its own property (the conformance sweep
// picks it up); engines/template_engine.cpp is a complete engine to copy, with the steps.
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

}  // namespace routelab
