#include "request/analyze_request.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/errors.h"
#include "engines/registry.h"

namespace routelab {

const char* analyzeMetricName(AnalyzeMetric metric) {
  switch (metric) {
    case AnalyzeMetric::Worst: return "worst";
    case AnalyzeMetric::Abb: return "abb";
    case AnalyzeMetric::Afpb: return "afpb";
    case AnalyzeMetric::Adb: return "adb";
    case AnalyzeMetric::Pattern: return "pattern";
    case AnalyzeMetric::Stages: return "stages";
  }
  return "metric";
}

bool isSampledMetric(AnalyzeMetric metric) {
  return metric == AnalyzeMetric::Abb || metric == AnalyzeMetric::Afpb || metric == AnalyzeMetric::Adb;
}

const OptionSchema& analyzeSchema() {
  static const OptionSchema rows = {
      {"fabric", OptionType::String, "", "fabric spec, e.g. gft2:n=16,m=16,r=32", true},
      {"engine", OptionType::String, "", "routing engine spec, or file:PATH (OpenSM LFT dump)", true},
      {"metric",
       OptionType::String,
       "worst",
       "worst | abb | afpb | adb | pattern | stages",
       false,
       "",
       "",
       false,
       {"worst", "abb", "afpb", "adb", "pattern", "stages"},
       "Nienaber §II, §IV (Eq. 1); Gómez Fig. 3"},
      {"pattern", OptionType::String, "", "pattern spec for metric pattern (see `routelab list`)"},
      {"seed", OptionType::Integer, "1", "seed of the random patterns and engines", false, "0", "9223372036854775807"},
      {"precision",
       OptionType::Real,
       "0.01",
       "stop sampling when the 99% half-width <= precision x mean",
       false,
       "0",
       "",
       true,
       {},
       "Nienaber §IV"},
      {"max-samples",
       OptionType::Integer,
       "16777216",
       "give up doubling beyond this many samples",
       false,
       "2",
       "9223372036854775807",
       false,
       {},
       "Nienaber §IV"},
      {"threads", OptionType::Integer, "0", "worker threads (0 = every core; results do not change)", false, "0",
       "4096"},
      {"load-model",
       OptionType::String,
       "even-split",
       "adaptive/multipath routings: first-path | even-split | best-split (docs/ANALYSIS.md); single-path routings "
       "give the same numbers under all three",
       false,
       "",
       "",
       false,
       {"first-path", "even-split", "best-split", "first", "split"},
       "docs/ANALYSIS.md"},
      {"lmc", OptionType::Integer, "0", "LMC: 2^lmc addresses (paths) per terminal for the engine", false, "0", "7"},
      {"split-tolerance", OptionType::Real, "0.01",
       "best-split: stop when upper <= (1 + tolerance) x lower bound, per pattern", false, "0", "", true},
      {"split-iterations", OptionType::Integer, "400", "best-split: solver iterations per pattern at most", false, "0",
       "4294967295"},
  };
  return rows;
}

AnalyzeRequest AnalyzeRequest::fromOptions(const Options& o) {
  AnalyzeRequest r;
  r.options = o;
  r.fabric = o.string("fabric");
  r.engine = o.string("engine");
  for (AnalyzeMetric m : {AnalyzeMetric::Worst, AnalyzeMetric::Abb, AnalyzeMetric::Afpb, AnalyzeMetric::Adb,
                          AnalyzeMetric::Pattern, AnalyzeMetric::Stages}) {
    if (o.string("metric") == analyzeMetricName(m)) r.metric = m;
  }
  if (o.has("pattern")) r.pattern = o.string("pattern");
  r.seed = static_cast<std::uint64_t>(o.integer("seed"));
  r.lmc = static_cast<std::uint32_t>(o.integer("lmc"));
  r.threads = static_cast<int>(o.integer("threads"));
  r.loadModel = parseLoadModel(o.string("load-model"));
  r.sampling.seed = r.seed;
  r.sampling.precision = o.real("precision");
  r.sampling.maxSamples = static_cast<std::uint64_t>(o.integer("max-samples"));
  r.sampling.threads = r.threads;
  r.bestSplit.tolerance = o.real("split-tolerance");
  r.bestSplit.maxIterations = static_cast<std::uint32_t>(o.integer("split-iterations"));
  if (!r.pattern.empty() && r.metric != AnalyzeMetric::Pattern) {
    throw SpecError(fmt::format("--pattern is only used by --metric pattern (the {} metric samples its own patterns)",
                                analyzeMetricName(r.metric)));
  }
  return r;
}

AnalyzeOutcome runAnalyze(const AnalyzeRequest& request) {
  Fabric fabric = loadFabric(request.fabric);
  RoutingContext context;
  context.seed = request.seed;
  context.addressesPerTerminal = std::uint32_t{1} << request.lmc;
  RoutingResult routing = runEngine(request.engine, fabric.network, context);
  return runAnalyze(request, std::move(fabric), std::move(routing));
}

AnalyzeOutcome runAnalyze(const AnalyzeRequest& request, Fabric fabric, RoutingResult routing) {
  AnalyzeOutcome out;
  out.fabric = std::move(fabric);
  out.routing = std::move(routing);
  const Network& network = out.fabric.network;
  out.singlePath = isSinglePath(network, out.routing);
  switch (request.metric) {
    case AnalyzeMetric::Worst:
      out.worst = worstUnderModel(network, out.routing, request.loadModel, request.threads, request.bestSplit);
      out.value = out.worst->value;
      break;
    case AnalyzeMetric::Abb:
    case AnalyzeMetric::Afpb:
    case AnalyzeMetric::Adb: {
      const SampledPattern pattern = request.metric == AnalyzeMetric::Abb    ? SampledPattern::Bisect
                                     : request.metric == AnalyzeMetric::Afpb ? SampledPattern::FullPermutation
                                                                             : SampledPattern::Dissemination;
      SamplingOptions options = request.sampling;
      options.split = request.split;
      out.sampled =
          sampleBandwidthUnderModel(network, out.routing, pattern, request.loadModel, options, request.bestSplit);
      out.value = out.sampled->mean;
      break;
    }
    case AnalyzeMetric::Pattern:
      if (request.pattern.empty()) {
        throw SpecError("--metric pattern needs --pattern SPEC (see `routelab list`, e.g. --pattern shift:s=1)");
      }
      out.pattern = makePattern(request.pattern, network, request.seed);
      out.loads = patternLoads(network, out.routing, *out.pattern, request.loadModel, request.bestSplit);
      out.value = out.loads->maxLoad;
      break;
    case AnalyzeMetric::Stages: {
      out.stages = stagePathCounts(network, out.routing, request.threads);
      out.value = static_cast<double>(out.stages->maxPaths());
      break;
    }
  }
  return out;
}

namespace {

nlohmann::json channelJson(const Network& network, ChannelId c) {
  if (!c.valid()) return nullptr;
  return {{"id", c.value},
          {"from", network.describePort(network.source(c), network.sourcePort(c))},
          {"to", network.describePort(network.target(c), network.targetPort(c))},
          {"description", network.describeChannel(c)}};
}

nlohmann::json pairsJson(const Network& network, const std::vector<SourceDestination>& pairs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [s, d] : pairs) {
    out.push_back({{"source", network.name(network.terminalNode(s))},
                   {"destination", network.name(network.terminalNode(d))},
                   {"source_index", s},
                   {"destination_index", d}});
  }
  return out;
}

void addWorst(nlohmann::json& j, const Network& network, const SplitWorstCase& worst) {
  j["value"] = worst.value;
  j["lower_bound"] = worst.lower;
  j["ci99_halfwidth"] = 0.0;
  j["samples"] = 0;
  j["exact"] = worst.lower == worst.value;
  j["channel"] = channelJson(network, worst.channel);
  j["witness"] = pairsJson(network, worst.witness);
  j["channels_solved"] = worst.channelsSolved;
}

void addSampled(nlohmann::json& j, const AnalyzeRequest& request, const AnalyzeOutcome& outcome) {
  const SampledBandwidth& result = *outcome.sampled;
  j["pattern"] = result.pattern;
  j["value"] = result.mean;
  j["mean"] = result.mean;
  j["ci99_halfwidth"] = result.ci99HalfWidth;
  j["samples"] = result.samples;
  j["converged"] = result.converged;
  j["precision"] = request.sampling.precision;
  j["initial_samples"] = request.sampling.initialSamples;
  j["max_samples"] = request.sampling.maxSamples;
  j["mean_max_load"] = result.meanMaxLoad;
  j["exact"] = result.exact;
  j["bandwidth_upper_bound"] = result.bandwidthUpperBound;
  j["max_relative_gap"] = result.maxRelativeGap;
  if (request.loadModel == LoadModel::BestSplit && !outcome.singlePath) {
    j["split_tolerance"] = request.bestSplit.tolerance;
    j["split_iterations_max"] = result.maxIterations;
  }
  nlohmann::json histogram = nlohmann::json::object();
  for (const auto& [ml, count] : result.maxLoadHistogram) histogram[std::to_string(ml)] = count;
  for (const auto& [ml, count] : result.splitHistogram) histogram[fmt::format("{}", ml)] = count;
  j["max_load_histogram"] = histogram;
}

void addPattern(nlohmann::json& j, const Network& network, const TrafficPattern& pattern, const LinkLoads& loads) {
  j["pattern"] = pattern.spec;
  j["pattern_seed"] = pattern.random ? nlohmann::json(pattern.seed) : nlohmann::json(nullptr);
  j["pairs"] = loads.pairs;
  j["permutation"] = isPermutation(pattern.pairs, pattern.terminals);
  j["value"] = loads.maxLoad;
  j["max_load"] = loads.maxLoad;
  j["lower_bound"] = loads.lowerBound;
  j["exact"] = loads.lowerBound == loads.maxLoad;
  j["bandwidth"] = loads.maxLoad > 0 ? nlohmann::json(1.0 / loads.maxLoad) : nlohmann::json(nullptr);
  j["ci99_halfwidth"] = 0.0;
  j["samples"] = 1;
  j["channel"] = channelJson(network, loads.maxChannel);
  j["channels_at_max"] = loads.channelsAtMax;
  nlohmann::json ascending = nlohmann::json::array();
  for (const AscendingUsage& a : loads.ascending) {
    ascending.push_back({{"level", a.level},
                         {"switches_sending_up", a.switchesSendingUp},
                         {"min_channels_per_switch", a.minChannelsPerSwitch},
                         {"max_channels_per_switch", a.maxChannelsPerSwitch},
                         {"available_per_switch", a.availablePerSwitch}});
  }
  j["ascending_usage"] = ascending;
}

void addStages(nlohmann::json& j, const StagePathCounts& counts) {
  j["load_model"] = loadModelName(LoadModel::FirstPath);  // path counts: always the first path
  bool balanced = true;
  nlohmann::json stages = nlohmann::json::array();
  for (const StageCount& s : counts.stages) {
    balanced = balanced && s.balanced();
    stages.push_back({{"lower_level", s.lowerLevel},
                      {"direction", s.ascending ? "up" : "down"},
                      {"channels", s.channels},
                      {"min_paths", s.minPaths},
                      {"max_paths", s.maxPaths},
                      {"mean_paths", s.meanPaths},
                      {"balanced", s.balanced()}});
  }
  j["value"] = counts.maxPaths();
  j["ci99_halfwidth"] = 0.0;
  j["samples"] = 0;
  j["balanced"] = balanced;
  j["stages"] = stages;
}

}  // namespace

nlohmann::json analyzeResultJson(const AnalyzeRequest& request, const AnalyzeOutcome& outcome) {
  const Network& network = outcome.fabric.network;
  nlohmann::json j;
  j["metric"] = analyzeMetricName(request.metric);
  j["spec"] = outcome.fabric.spec;
  j["engine"] = outcome.routing.engine;
  j["seed"] = request.seed;
  j["threads"] = request.threads;
  j["terminals"] = network.terminalCount();
  j["deterministic_routing"] = outcome.routing.deterministic;
  j["lmc"] = request.lmc;
  j["single_path"] = outcome.singlePath;
  j["load_model"] = loadModelName(request.loadModel);
  if (outcome.worst) addWorst(j, network, *outcome.worst);
  if (outcome.sampled) addSampled(j, request, outcome);
  if (outcome.pattern) addPattern(j, network, *outcome.pattern, *outcome.loads);
  if (outcome.stages) addStages(j, *outcome.stages);
  return j;
}

}  // namespace routelab
