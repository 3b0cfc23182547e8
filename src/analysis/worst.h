// routelab/analysis/worst.h — the exact worst-case permutation load WORST_R.
//
// Nienaber et al. 2011 §II, Eq. (1): WORST_R = max over permutations P of ML_R^P, the largest
// number of SD pairs of one permutation that share a link. For a fixed channel l, the pairs
// routed through l form a bipartite graph (sources x destinations, one edge per pair); a
// permutation (Def. 1: every node sends at most once and receives at most once) restricted
// to l is a matching of that graph, and every matching extends to a permutation. Hence
//     WORST_R = max over channels l of  maximum-matching(SDSET_R(l)),
// exact for any single-path routing on any fabric (no fat-tree structure assumed). The
// matched pairs of the maximising channel are a witness permutation.
//
// Algorithm: group the pair paths by channel (a transpose of PairPaths); bound each
// channel's matching by min(#distinct sources, #distinct destinations); solve channels with
// Hopcroft–Karp in decreasing bound order, skipping every channel whose bound cannot beat
// the best so far (ties resolved towards the smaller channel id, so the reported channel is
// the same for any thread count). Terminal channels carry one source (or one destination)
// only, so they contribute exactly 1 whenever any pair exists. Parallel over channels.
// Cost: O(N^2 hops) to transpose plus Hopcroft–Karp on the channels that are not pruned.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/paths.h"
#include "graph/network.h"
#include "routing/routing_result.h"
#include "traffic/pattern.h"

namespace routelab {

struct WorstCase {
  std::uint32_t value = 0;                 ///< WORST_R; 0 if the fabric has fewer than 2 terminals
  ChannelId channel;                       ///< a channel reaching it (smallest id among equals)
  std::vector<SourceDestination> witness;  ///< a permutation with `value` pairs through `channel`
  std::size_t channelsSolved = 0;  ///< channels that must be solved: bound not below the answer (thread-independent)
  std::size_t channelsConsidered = 0;  ///< switch-to-switch channels carrying at least one pair
};

/// WORST_R of the single-path routing captured in `paths` (see paths.h for adaptive
/// routings). `threads` = 0 uses every core; the result does not depend on it. The reference
/// computation: every pair's path stored, transposed per channel.
WorstCase worstCasePermutationLoad(const PairPaths& paths, int threads = 0);

/// The same WORST_R (value, channel, witness, channelsSolved, channelsConsidered all equal to
/// worstCasePermutationLoad(PairPaths::build(network, routing, threads), threads)), and the
/// same errors, without storing a path per pair. Sources whose paths coincide for every
/// destination (same first switch, source class and layer row: routing_result.h) form a
/// class; each class walks its path to every destination once, which gives every channel's
/// exact distinct sources and pairs (class-major) and destinations (destination-major,
/// stopping where a walk joins a tree already walked), hence the bound min(#sources,
/// #destinations) of worst.h; only the channels the bound cannot rule out have their pairs
/// gathered (one more walk pass per batch; pairs keyed s * N + d in 32 bits up to 65535
/// terminals, 64 bits beyond) and matched. Fabrics this does not fit (a terminal without an
/// address or not cabled to a switch, a pair not delivered) go to the reference, which also
/// produces its errors; beyond the reference's 65535 terminals the first undelivered pair
/// (by source, then destination) is found and reported with the reference's message. Its
/// own memory is checked before allocating (LimitError, core/limits.h): about 72 bytes per
/// terminal, 28 per channel plus 24 per channel per thread, and the gathered pairs (at most
/// half the budget per batch, or one channel's). O(classes x N x hops) time.
WorstCase worstCasePermutationLoad(const Network& network, const RoutingResult& routing, int threads = 0);

/// For tests: the same as beyond 65535 terminals whatever the fabric's size: 64-bit pair
/// keys, and an undelivered pair found by the fast path's own search rather than by the
/// reference (the result, or the error, is the same).
WorstCase worstCasePermutationLoadWithWidePairKeys(const Network& network, const RoutingResult& routing,
                                                   int threads = 0);

/// For tests: the same, with the fast path's own memory (the sizes above) checked against
/// `memoryBudgetBytes` instead of kMemoryBudgetBytes, so that each documented size meets its
/// budget at a test's size (docs/RELIABILITY.md, "Limits"). The reference's checks keep theirs.
WorstCase worstCasePermutationLoadWithMemoryBudget(const Network& network, const RoutingResult& routing, int threads,
                                                   std::uint64_t memoryBudgetBytes);

/// Maximum matching of the pairs crossing one channel, and the matched pairs (for tests and
/// for inspecting a given channel). O(N^2 + matching) — scans every pair path.
WorstCase channelWorstCase(const PairPaths& paths, ChannelId channel);

}  // namespace routelab
