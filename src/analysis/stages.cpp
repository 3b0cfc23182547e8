#include "analysis/stages.h"

#include "core/errors.h"

namespace routelab {

StagePathCounts stagePathCounts(const Network& network, const RoutingResult& routing, int threads) {
  if (network.xgft() == nullptr) {
    throw AnalysisError("per-stage path counts need a fat-tree with known levels (XGFT labels); '" + network.origin() +
                        "' has none");
  }
  StagePathCounts result;
  result.pathsPerChannel = terminalPathsPerChannel(network, routing, threads);
  result.stages = groupByStage(network, result.pathsPerChannel);
  return result;
}

}  // namespace routelab
