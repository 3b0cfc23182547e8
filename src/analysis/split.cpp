#include "analysis/split.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "analysis/paths.h"
#include "core/errors.h"

namespace routelab {

std::string loadModelName(LoadModel model) {
  switch (model) {
    case LoadModel::FirstPath: return "first-path";
    case LoadModel::EvenSplit: return "even-split";
    case LoadModel::BestSplit: return "best-split";
  }
  return "load-model";
}

LoadModel parseLoadModel(const std::string& text) {
  if (text == "first-path" || text == "first") return LoadModel::FirstPath;
  if (text == "even-split" || text == "split") return LoadModel::EvenSplit;
  if (text == "best-split") return LoadModel::BestSplit;
  throw SpecError(fmt::format("unknown load model '{}' (first-path, even-split or best-split)", text));
}

bool isSinglePath(const Network& network, const RoutingResult& routing) {
  if (routing.escapeLayer >= 0) return false;
  for (const ForwardingTable& table : routing.tables) {
    if (table.adaptive()) return false;
  }
  for (const NodeId t : network.terminals()) {
    if (routing.addresses.hasAddresses(t) && routing.pathCount(t) > 1) return false;
  }
  for (std::size_t entry = 0; entry < routing.allowedLayers.size(); ++entry) {
    const std::uint16_t mask = routing.allowedLayers[entry];
    int table = -1;
    for (std::size_t layer = 0; layer < routing.tableOfLayer.size() && layer < 16; ++layer) {
      if ((mask >> layer & 1U) == 0) continue;
      if (table >= 0 && table != routing.tableOfLayer[layer]) return false;
      table = routing.tableOfLayer[layer];
    }
  }
  return true;
}

// ---- split models as load sources of the sampler -------------------------------------------

namespace {

/// Even split or best split of one sample's pairs; each thread holds its builder and work
/// arrays.
class SplitEvaluator final : public LoadSource::Evaluator {
 public:
  SplitEvaluator(const Network& network, const RoutingResult& routing, LoadModel model,
                 const BestSplitOptions& bestSplit)
      : builder_(network, routing), channels_(network.channelCount()), model_(model), bestSplit_(bestSplit) {}

  SampleLoad maxLoad(std::span<const SourceDestination> pairs) override {
    if (model_ == LoadModel::BestSplit) {
      const BestSplitLoad b = bestSplitMaxLoad(builder_, channels_, pairs, bestSplit_, workspace_);
      return {std::max(1.0, b.upper), std::max(1.0, b.lower), b.iterations};
    }
    const double ml = std::max(1.0, evenSplitMaxLoad(builder_, channels_, pairs, workspace_));
    return {ml, ml, 0};
  }

 private:
  RouteGraphBuilder builder_;
  std::size_t channels_;
  LoadModel model_;
  BestSplitOptions bestSplit_;
  SplitWorkspace workspace_;
};

class SplitSource final : public LoadSource {
 public:
  SplitSource(const Network& network, const RoutingResult& routing, LoadModel model, const BestSplitOptions& bestSplit)
      : network_(network), routing_(routing), model_(model), bestSplit_(bestSplit) {}
  std::size_t terminals() const override { return network_.terminalCount(); }
  bool integral() const override { return false; }
  std::unique_ptr<Evaluator> evaluator() const override {
    return std::make_unique<SplitEvaluator>(network_, routing_, model_, bestSplit_);
  }

 private:
  const Network& network_;
  const RoutingResult& routing_;
  LoadModel model_;
  BestSplitOptions bestSplit_;
};

}  // namespace

std::unique_ptr<LoadSource> evenSplitSource(const Network& network, const RoutingResult& routing) {
  return std::make_unique<SplitSource>(network, routing, LoadModel::EvenSplit, BestSplitOptions{});
}

std::unique_ptr<LoadSource> bestSplitSource(const Network& network, const RoutingResult& routing,
                                            const BestSplitOptions& options) {
  return std::make_unique<SplitSource>(network, routing, LoadModel::BestSplit, options);
}

SampledBandwidth sampleSplitBandwidth(const Network& network, const RoutingResult& routing, SampledPattern pattern,
                                      LoadModel model, const SamplingOptions& options,
                                      const BestSplitOptions& bestSplit) {
  SampledBandwidth result =
      sampleLoads(SplitSource(network, routing,
                              model == LoadModel::BestSplit ? LoadModel::BestSplit : LoadModel::EvenSplit, bestSplit),
                  pattern, options);
  result.loadModel = loadModelName(model);
  return result;
}

SampledBandwidth sampleBandwidthUnderModel(const Network& network, const RoutingResult& routing, SampledPattern pattern,
                                           LoadModel model, const SamplingOptions& options,
                                           const BestSplitOptions& bestSplit) {
  if (model == LoadModel::FirstPath || isSinglePath(network, routing)) {
    const PairPaths paths = PairPaths::build(network, routing, options.threads);
    SampledBandwidth result = sampleBandwidth(paths, pattern, options);
    result.loadModel = loadModelName(model);
    result.bandwidthUpperBound = result.mean;
    return result;
  }
  return sampleSplitBandwidth(network, routing, pattern, model, options, bestSplit);
}

}  // namespace routelab
