// routelab/fabric/fabric.h — one fabric spec string to a Network, for every command.
//
//   kary-ntree:k=4,n=3 · gft2:n=16,m=16,r=32 · ft:l=3,m=4,w=4 · xgft:h=2,m=16.32,w=1.16
//   random:switches=64,links=128,terminals=1,seed=7
//   file:PATH (format detected) · net:PATH · ibnetdiscover:PATH · json:PATH
//   ... +fail-links=N,seed=S +fail-switches=N,seed=S ... (see `routelab list`)
#pragma once

#include <string>
#include <vector>

#include "graph/network.h"
#include "io/lid_map.h"
#include "topology/registry.h"

namespace routelab {

struct Fabric {
  Network network;
  std::string spec;                       ///< the effective spec (defaults filled in)
  std::vector<ModifierReport> modifiers;  ///< what each '+' modifier did
  /// The LIDs the fabric file carries (ibnetdiscover output; docs/FORMATS.md "Fabric
  /// LIDs"), by port GUID; empty for generated fabrics and files without LIDs.
  LidMap lids;
};

/// Build or import the fabric named by `spec`. Throws SpecError / ParseError / IoError /
/// TopologyError with a precise message.
Fabric loadFabric(const std::string& spec);

}  // namespace routelab
