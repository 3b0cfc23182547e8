// routelab/routing/lmc_tables.h — a routing with one forwarding table per layer group, as
// InfiniBand loads it: one linear forwarding table, a LID per table (LMC), an SL per pair.
//
// A switch has one LFT, so a routing whose layers use different tables (LASH, MP-LASH and
// A-LASH with the UpDown layer of Lysne et al. 2006 §8.4; hand-made layered routings) cannot
// be written as one dump as it is. InfiniBand's answer is the LMC: every port owns 2^LMC
// consecutive LIDs, each routed independently, and the source picks the destination LID
// (DLID) and the service level (SL) of each pair from its path record. So table t becomes the
// t-th copy of every address block: address a of a block of b addresses in table t is
// address t * b + offset(a) of a block of b * 2^k addresses (2^k >= tables), and each pair
// sends to the copy of the table of its layer, in that layer (its SL).
//
// Contract of mergeTablesByLmc(network, routing):
//   * the result has one table; its entry for (switch, copy t of a) is table t's entry for
//     (switch, a), candidates included;
//   * blocks keep their owners and order; LIDs are aligned as OpenSM assigns them with LMC:
//     each block starts at a multiple of its size (switch blocks too), the first at LID
//     2^k (OpenSM: LID 0 is reserved, the first aligned base follows);
//   * layers are unchanged (tableOfLayer all 0); each (source, a) pair in layer L carries
//     traffic on copy tableOfLayer[L] of a only, in layer L; the other copies carry none
//     (kNoLayer). Allowed-layer sets are reduced to the pair's assigned layer: an SL file
//     holds one SL per pair (the result can then be written as an LFT dump and an SL table);
//   * walks, dependencies and verdicts per pair are those of the input (tested:
//     tests/verify/test_lmc_export.cpp);
//   * a single-table routing is returned unchanged.
// Throws RoutingError for an escape routing (Duato: packets change layer inside the fabric,
// which an LFT and a per-pair SL cannot express) and when 2^k x the largest block exceeds
// 128 LIDs (InfiniBand's LMC is at most 7). Its statistic `lmc_tables` reads "T tables on
// LMC k", k the LMC its largest block needs (lmcOfLargestBlock): what the fabric must be
// configured with, the tables' copies and the input's own LIDs per port together.
#pragma once

#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab {

RoutingResult mergeTablesByLmc(const Network& network, const RoutingResult& routing);

/// The LID copies of each block that merging `tables` tables takes: the smallest power of two
/// >= tables (one for a single table).
std::uint32_t lmcCopies(std::size_t tables);

/// The LMC of a port owning `lids` LIDs: the smallest k with 2^k >= lids (0 for one LID).
std::uint32_t lmcOf(std::uint64_t lids);

/// The LMC a port needs for the largest address block of `addresses` (lmcOf its size).
std::uint32_t lmcOfLargestBlock(const AddressMap& addresses);

}  // namespace routelab
