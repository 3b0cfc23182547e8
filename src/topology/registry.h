// routelab/topology/registry.h — the registry of fabric generators and fault modifiers.
//
// Generators return networks (they never take one); modifiers take a const network and
// return a new one plus a report. `routelab list` prints both tables.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/options.h"
#include "core/registry.h"
#include "graph/network.h"

namespace routelab {

using TopologyFactory = std::function<Network(const Options&)>;
const Registry<TopologyFactory>& topologyRegistry();

/// What a modifier did, for the summary ("2 links removed: a[3] -- b[1], ...").
struct ModifierReport {
  std::string modifier;  ///< effective spec as written after a '+' (Options::effectiveModifier, set by loadFabric)
  std::vector<std::string> removed;      ///< human-readable removed elements
  std::vector<std::string> unreachable;  ///< terminals no longer reachable from the rest
  std::size_t disconnectedTerminals = 0;
};

using ModifierFactory = std::function<Network(const Network&, const Options&, ModifierReport&)>;
const Registry<ModifierFactory>& modifierRegistry();

}  // namespace routelab
