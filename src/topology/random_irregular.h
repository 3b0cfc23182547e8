// routelab/topology/random_irregular.h — random irregular fabrics (Lysne et al. §8).
#pragma once

#include <cstdint>

#include "graph/network.h"

namespace routelab {

struct RandomIrregularParams {
  std::uint32_t switches = 16;
  std::uint32_t links = 0;        ///< switch-to-switch links; 0 = 2 * switches
  std::uint32_t terminals = 1;    ///< terminals per switch
  std::uint32_t radix = 16;       ///< ports per switch
  std::uint64_t seed = 1;
};

/// A connected random irregular network, reproducible from the seed. Throws SpecError
/// when the parameters are impossible (too few/many links, radix too small).
Network makeRandomIrregular(const RandomIrregularParams& params);

}  // namespace routelab
