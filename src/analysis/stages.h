// routelab/analysis/stages.h — paths per channel, grouped by fat-tree stage.
//
// Gómez et al. 2007 §4, Fig. 3 (bottom): the number of paths (source–destination pairs,
// all N(N-1) ordered pairs of distinct terminals) that use each link, stage by stage; their
// deterministic routing uses every ascending and every descending link of a stage by the
// same number of paths ("traffic in the network is completely balanced"). On a k-ary n-tree
// a channel between levels l and l+1 (l >= 1) carries N - k^l paths when balanced, the
// terminal channels N - 1.
//
// Requires XGFT labels (the fat-tree generators set them). Paths follow the first
// candidate (see analysis/paths.h), walked by the all-pairs traversal of routing/semantics.h;
// the stage type and grouping are route's (routing/checks.h: StageCount, groupByStage).
// O(N^2 hops) time, O(channels x threads) memory.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "graph/network.h"
#include "routing/checks.h"
#include "routing/routing_result.h"

namespace routelab {

struct StagePathCounts {
  std::vector<std::uint64_t> pathsPerChannel;  ///< per channel id
  std::vector<StageCount> stages;              ///< by level, ascending before descending
  /// The most paths a channel of any stage carries: `analyze --metric stages`'s value (0 when
  /// no pair is routed, e.g. a lone terminal).
  std::uint64_t maxPaths() const {
    std::uint64_t most = 0;
    for (const StageCount& stage : stages) most = std::max(most, stage.maxPaths);
    return most;
  }
};

/// Throws AnalysisError if the network has no XGFT labels or a pair is not delivered.
/// `threads` = 0 uses every core; counts are integers, identical for any thread count.
StagePathCounts stagePathCounts(const Network& network, const RoutingResult& routing, int threads = 0);

}  // namespace routelab
