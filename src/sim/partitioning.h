// routelab/sim/partitioning.h — the split of a simulation over threads (docs/SIMULATION.md
// "Parallel engine"): the switches, each with its terminals, in contiguous blocks, one engine
// per block. Every interaction between blocks (a head arriving over a link, a credit
// returning) takes at least flyTime cycles, so the engines run windows of flyTime cycles
// independently and exchange those events between windows (Engine::runPartitioned).
#pragma once

#include <cstdint>
#include <vector>

#include "graph/network.h"

namespace routelab::sim {

/// How the switches (and their terminals) are split over engines: contiguous blocks.
struct Partitioning {
  std::uint32_t count = 1;
  std::vector<std::uint32_t> ofSwitch;                          ///< block of each switch
  std::vector<std::uint32_t> ofTerminal;                        ///< block of each terminal (that of its switch)
  std::vector<std::uint32_t> ofChannelTarget, ofChannelSource;  ///< block of each channel's receiver / sender
};

/// Contiguous blocks of switches of about equal work (ports + terminals), at most `blocks`.
Partitioning partitionSwitches(const Network& network, std::uint32_t blocks);

}  // namespace routelab::sim
