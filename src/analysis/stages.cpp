#include "analysis/stages.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <map>

#include "analysis/paths.h"
#include "core/errors.h"

#ifdef ROUTELAB_HAVE_OPENMP
#include <omp.h>
#endif

namespace routelab {

StagePathCounts stagePathCounts(const Network& network, const RoutingResult& routing, int threads) {
  const XgftLabels* labels = network.xgft();
  if (labels == nullptr) {
    throw AnalysisError("per-stage path counts need a fat-tree with known levels (XGFT labels); '" + network.origin() +
                        "' has none");
  }
  const std::size_t n = network.terminalCount();
  StagePathCounts result;
  result.pathsPerChannel.assign(network.channelCount(), 0);
  std::vector<std::exception_ptr> errors(n);
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp parallel num_threads(threads > 0 ? threads : omp_get_max_threads())
#else
  (void)threads;
#endif
  {
    std::vector<std::uint64_t> local(network.channelCount(), 0);
    std::vector<ChannelId> walk;
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp for schedule(dynamic, 4)
#endif
    for (std::size_t s = 0; s < n; ++s) {
      try {
        for (std::size_t d = 0; d < n; ++d) {
          if (s == d) continue;
          routePair(network, routing, static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(d), walk);
          for (const ChannelId c : walk) ++local[c.index()];
        }
      } catch (...) {
        errors[s] = std::current_exception();
      }
    }
#ifdef ROUTELAB_HAVE_OPENMP
#pragma omp critical(routelab_stage_merge)
#endif
    for (std::size_t c = 0; c < local.size(); ++c) result.pathsPerChannel[c] += local[c];
  }
  for (const auto& error : errors) {
    if (error) std::rethrow_exception(error);
  }
  // Group channels by (lower level, direction).
  std::map<std::pair<std::size_t, bool>, StageCount> groups;
  for (std::size_t c = 0; c < network.channelCount(); ++c) {
    const ChannelId channel = ChannelId::fromIndex(c);
    const std::size_t from = labels->level[network.source(channel).index()];
    const std::size_t to = labels->level[network.target(channel).index()];
    const bool ascending = to > from;
    const std::size_t lower = std::min(from, to);
    auto [it, inserted] = groups.try_emplace({lower, !ascending});
    StageCount& stage = it->second;
    const std::uint64_t paths = result.pathsPerChannel[c];
    if (inserted) {
      stage.lowerLevel = lower;
      stage.ascending = ascending;
      stage.minPaths = stage.maxPaths = paths;
    }
    ++stage.channels;
    stage.minPaths = std::min(stage.minPaths, paths);
    stage.maxPaths = std::max(stage.maxPaths, paths);
    stage.meanPaths += static_cast<double>(paths);
  }
  for (auto& [key, stage] : groups) {
    stage.meanPaths /= static_cast<double>(stage.channels);
    result.stages.push_back(stage);
  }
  return result;
}

}  // namespace routelab
