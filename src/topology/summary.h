// routelab/topology/summary.h — the numbers `routelab topo` prints.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "graph/network.h"

namespace routelab {

struct NetworkSummary {
  std::size_t terminals = 0, switches = 0, links = 0, channels = 0;
  std::size_t switchLinks = 0;                           ///< switch-to-switch cables
  std::map<std::uint32_t, std::size_t> radixHistogram;   ///< switch port count -> switches
  std::map<std::uint32_t, std::size_t> degreeHistogram;  ///< connected ports -> switches
  std::size_t components = 0;
  std::uint32_t diameter = 0;  ///< terminal-to-terminal hops (channels), connected pairs
  bool connected = true;
  // Fat-trees (XGFT labels known):
  std::optional<std::string> xgft;            ///< "XGFT(...)"
  std::optional<std::size_t> levels;          ///< switch levels
  std::vector<std::size_t> switchesPerLevel;  ///< index 0 = level 1 (leaves)
  /// Links crossing the cut between the fabric halves x_h < m_h/2 and the rest, i.e. the
  /// minimum over levels l of the up-links leaving one half at level l (the max-flow
  /// between the halves). Only when m_h is even.
  std::optional<std::size_t> bisectionWidth;
};

/// O(S (S + C)) for the diameter; everything else linear.
NetworkSummary summarize(const Network& network);

}  // namespace routelab
