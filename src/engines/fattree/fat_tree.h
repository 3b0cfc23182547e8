// routelab/engines/fattree/fat_tree.h — the fat-tree routing engines (Gómez et al. 2007;
// Nienaber et al. 2011), callable directly (tests, benchmarks) or through the engine
// registry (rows in fat_tree_rows.cpp). See docs/ROUTING.md for the exact definitions and
// the generalizations to any XGFT.
//
// Common contract: the network must carry XGFT labels (generated fat-trees, or imported ones
// recognized as fat-trees), else UnsupportedTopology. Tables are built per (switch,
// address) in O(1) each, in parallel over switches (results do not depend on the thread
// count). Addresses: `context.addressesPerTerminal` (2^lmc) per terminal — address offset o
// rotates every up-port choice by o, so the 2^lmc paths to a destination leave a switch
// through different up ports, as OpenSM spreads LMC paths — and, with
// `context.routeSwitches`, one address per switch, routed up*/down*.
#pragma once

#include <cstdint>

#include "routing/engine.h"

namespace routelab {

/// Gómez §3: every up port towards a nearest common ancestor is a candidate, the descent is
/// unique. Candidate order (preference): the ftree-deterministic port first (the SADP
/// selection of §5.1), then the other up ports cyclically. Minimal.
RoutingResult routeFtreeAdaptive(const Network& network, const RoutingContext& context);

/// Gómez §4: at stage s (level s+1) the up port is k + p_s (paper labels). On an XGFT, the
/// d-mod-k digit selection: at level l, parent b = floor(d / (w_1···w_l)) mod w_{l+1}
/// (identical to Gómez on k-ary n-trees). Deterministic and minimal.
RoutingResult routeFtreeDeterministic(const Network& network, const RoutingContext& context);

/// Nienaber §III.A D-mod-k: top switch d mod m on T(n+m, r); the XGFT generalization
/// (Rodriguez et al. 2009) is the digit selection above, so on every XGFT dmodk's tables
/// equal ftree-deterministic's (Nienaber cites Gómez as a D-mod-k scheme).
RoutingResult routeDmodk(const Network& network, const RoutingContext& context);

/// Nienaber §III.A S-mod-k: top switch s mod m; on an XGFT, parent
/// b = floor(s / (w_1···w_l)) mod w_{l+1}. Source-based, so each terminal owns
/// C = w_2···w_h addresses per path (one per source class s / w_1 mod C); see
/// RoutingResult::addressFor. Switch addresses are routed destination-based.
RoutingResult routeSmodk(const Network& network, const RoutingContext& context);

/// Nienaber Fig. 2, verbatim, on T(n+m, r) = XGFT(2; n, r; 1, m): with k = floor(sqrt(m)),
/// grp_size = ceil(n / k), the pair (s, d) between different leaves goes through
/// TSW_{src_grp * k + dst_grp}. Source-based: one address per source group per path.
RoutingResult routeOpt(const Network& network, const RoutingContext& context);

/// Nienaber §IV "enhanced OPT": OPT, then SD pairs are moved round robin from the loaded
/// top switches to the top switches OPT leaves unused, a move being allowed only if both
/// receiving links keep at most B = ceil(n / sqrt(m)) sources or at most B destinations and
/// the receiving switch stays less loaded than the giving one. Per-pair routing: one
/// address per source position within its leaf (n per path). docs/ROUTING.md gives the
/// reading in full.
RoutingResult routeOptBalanced(const Network& network, const RoutingContext& context);

/// OPT on a grid (an OPT variant that uses every top switch it can): the n positions of a
/// leaf form `a` source groups and `b` destination groups (balanced, contiguous: position p
/// is in group floor(p * groups / n)); the pair (s, d) on different leaves goes through
/// TSW_{src_grp * b + dst_grp}. Each up link then carries the sources of one group (at most
/// ceil(n / a)) and each down link the destinations of one group (at most ceil(n / b)), so
/// WORST <= max(ceil(n / a), ceil(n / b)) (Nienaber §III.B's argument with a != b). Fig. 2
/// is the case a = b = floor(sqrt m). Default shape (optGridShape): the a x b with a * b <= m
/// using the most tops whose bound stays at Fig. 2's ceil(n / floor(sqrt m)), then the
/// smallest bound, then the smallest a. Source-based: `a` source classes per path.
/// docs/ROUTING.md, "OPT on a grid".
struct GridShape {
  std::uint32_t sourceGroups = 0, destinationGroups = 0;
  std::uint32_t worst = 0;  ///< max(ceil(n / a), ceil(n / b))
  std::uint32_t bound = 0;  ///< Fig. 2 OPT's WORST, ceil(n / floor(sqrt m))
};
GridShape optGridShape(std::uint32_t n, std::uint32_t m);
/// `sourceGroups` = `destinationGroups` = 0: the default shape; otherwise both given,
/// a * b <= m (SpecError otherwise).
RoutingResult routeOptGrid(const Network& network, const RoutingContext& context, std::uint32_t sourceGroups = 0,
                           std::uint32_t destinationGroups = 0);

}  // namespace routelab
