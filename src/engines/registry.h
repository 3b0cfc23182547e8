// routelab/engines/registry.h — the one registry of routing engines.
//
// It concatenates the rows of every engine family (engines/families.h, one folder each). `routelab list`
// prints it; every command that takes `--engine SPEC` resolves SPEC here.
#pragma once

#include <string>
#include <vector>

#include "engines/families.h"
#include "routing/engine.h"

namespace routelab {

const Registry<EngineFactory>& engineRegistry();

/// The register exports ("ir", "fir": engines/families.h EngineRegisterExports) the registry
/// row `engine` declares; empty for an engine with none. Throws SpecError for an unknown engine.
const std::vector<std::string>& engineRegisterExports(const std::string& engine);

/// Parse "name:options" and run the engine; `file:PATH` loads an OpenSM LFT dump.
/// Throws SpecError for unknown names/options, UnsupportedTopology/RoutingError from the
/// engine.
RoutingResult runEngine(const std::string& engineSpec, const Network& network, const RoutingContext& context = {});

}  // namespace routelab
