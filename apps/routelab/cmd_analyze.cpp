// routelab analyze SPEC --engine NAME --metric worst|abb|afpb|adb|pattern|stages
//
// Static congestion analysis of a routing (analysis/, docs/ANALYSIS.md): WORST exactly,
// the sampled average bandwidths of Nienaber §II/§IV, the link loads of one pattern, or
// Gómez's per-stage path counts. Every result echoes fabric spec, engine spec, seed and the
// effective configuration.
#include <fmt/format.h>

#include <map>

#include "analysis/loads.h"
#include "analysis/paths.h"
#include "analysis/sampling.h"
#include "analysis/split.h"
#include "analysis/stages.h"
#include "analysis/worst.h"
#include "cli.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/output.h"
#include "traffic/pattern.h"

namespace routelab::cli {

namespace {

enum class Metric { Worst, Abb, Afpb, Adb, Pattern, Stages };

struct AnalyzeArgs {
  std::string spec;
  std::string engine;
  std::string metricText = "worst";
  Metric metric = Metric::Worst;
  std::string pattern;
  std::uint64_t seed = 1;
  double precision = 0.01;
  std::uint64_t maxSamples = 1ULL << 24;
  int threads = 0;
  std::string loadModelText = "even-split";
  LoadModel loadModel = LoadModel::EvenSplit;
  std::uint32_t lmc = 0;
  BestSplitOptions bestSplit;
  bool singlePath = true;
  std::string exportLoads;
  OutputFormat format = OutputFormat::Text;
};

const char* metricName(Metric metric) {
  switch (metric) {
    case Metric::Worst: return "worst";
    case Metric::Abb: return "abb";
    case Metric::Afpb: return "afpb";
    case Metric::Adb: return "adb";
    case Metric::Pattern: return "pattern";
    case Metric::Stages: return "stages";
  }
  return "metric";
}

nlohmann::json channelJson(const Network& network, ChannelId c) {
  if (!c.valid()) return nullptr;
  return {{"id", c.value},
          {"from", network.describePort(network.source(c), network.sourcePort(c))},
          {"to", network.describePort(network.target(c), network.targetPort(c))},
          {"description", network.describeChannel(c)}};
}

std::string terminalName(const Network& network, std::uint32_t t) { return network.name(network.terminalNode(t)); }

nlohmann::json pairsJson(const Network& network, const std::vector<SourceDestination>& pairs) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [s, d] : pairs) {
    out.push_back({{"source", terminalName(network, s)},
                   {"destination", terminalName(network, d)},
                   {"source_index", s},
                   {"destination_index", d}});
  }
  return out;
}

/// The common head of every result: what was analysed and with which configuration.
nlohmann::json head(const AnalyzeArgs& args, const Fabric& fabric, const RoutingResult& routing) {
  nlohmann::json j;
  j["metric"] = metricName(args.metric);
  j["spec"] = fabric.spec;
  j["engine"] = routing.engine;
  j["seed"] = args.seed;
  j["threads"] = args.threads;
  j["terminals"] = fabric.network.terminalCount();
  j["deterministic_routing"] = routing.deterministic;
  j["lmc"] = args.lmc;
  j["single_path"] = args.singlePath;
  j["load_model"] = loadModelName(args.loadModel);
  return j;
}

/// One line naming the load model of the numbers (text output).
void printModel(const AnalyzeArgs& args) {
  if (args.lmc > 0) fmt::print("lmc         {} ({} addresses per terminal)\n", args.lmc, 1U << args.lmc);
  if (args.singlePath) {
    fmt::print("load model  {} (single-path routing: every model gives these numbers)\n",
               loadModelName(args.loadModel));
    return;
  }
  switch (args.loadModel) {
    case LoadModel::FirstPath:
      fmt::print("load model  first-path (adaptive/multipath routing: only the preferred path is counted)\n");
      break;
    case LoadModel::EvenSplit:
      fmt::print("load model  even-split (each pair divided equally over its allowed routes, hop by hop)\n");
      break;
    case LoadModel::BestSplit:
      fmt::print("load model  best-split (least max load over splits of the allowed routes; bounds)\n");
      break;
  }
}

void writeLoadsCsv(const std::string& path, const Network& network, const std::vector<double>& loads,
                   const std::string& header) {
  writeFileAtomically(path, [&](std::ostream& out) {
    out << "# " << header << "\n";
    out << "channel,from,from_port,to,to_port,load\n";
    for (std::size_t c = 0; c < loads.size(); ++c) {
      const ChannelId channel = ChannelId::fromIndex(c);
      out << fmt::format("{},{},{},{},{},{}\n", c, network.name(network.source(channel)), network.sourcePort(channel),
                         network.name(network.target(channel)), network.targetPort(channel), loads[c]);
    }
  });
}

int runWorst(const AnalyzeArgs& args, const Fabric& fabric, const RoutingResult& routing) {
  const Network& network = fabric.network;
  const SplitWorstCase worst = worstUnderModel(network, routing, args.loadModel, args.threads, args.bestSplit);
  nlohmann::json j = head(args, fabric, routing);
  j["value"] = worst.value;
  j["lower_bound"] = worst.lower;
  j["ci99_halfwidth"] = 0.0;
  j["samples"] = 0;
  j["exact"] = worst.lower == worst.value;
  j["channel"] = channelJson(network, worst.channel);
  j["witness"] = pairsJson(network, worst.witness);
  j["channels_solved"] = worst.channelsSolved;
  if (args.format == OutputFormat::Json) {
    printJson(j);
    return 0;
  }
  fmt::print("fabric      {}\nengine      {}\n", fabric.spec, routing.engine);
  printModel(args);
  if (args.singlePath || args.loadModel == LoadModel::FirstPath) {
    fmt::print("WORST       {} (exact: maximum matching per channel, Nienaber Eq. 1)\n", worst.value);
  } else if (args.loadModel == LoadModel::EvenSplit) {
    fmt::print("WORST       {:.4f} (exact: maximum-weight matching of the split shares per channel)\n", worst.value);
  } else {
    fmt::print(
        "WORST       in [{:.4f}, {:.4f}] (upper: least WORST of fixed splits; lower: best split of their "
        "witnesses)\n",
        worst.lower, worst.value);
  }
  if (worst.channel.valid()) fmt::print("channel     {}\n", network.describeChannel(worst.channel));
  fmt::print("witness     {} pairs:", worst.witness.size());
  for (const auto& [s, d] : worst.witness) fmt::print(" {}->{}", terminalName(network, s), terminalName(network, d));
  fmt::print("\nsolved      {} channel matchings (the others cannot beat it)\n", worst.channelsSolved);
  return 0;
}

int runSampled(const AnalyzeArgs& args, const Fabric& fabric, const RoutingResult& routing) {
  const SampledPattern pattern = args.metric == Metric::Abb    ? SampledPattern::Bisect
                                 : args.metric == Metric::Afpb ? SampledPattern::FullPermutation
                                                               : SampledPattern::Dissemination;
  SamplingOptions options;
  options.seed = args.seed;
  options.precision = args.precision;
  options.maxSamples = args.maxSamples;
  options.threads = args.threads;
  const SampledBandwidth result =
      sampleBandwidthUnderModel(fabric.network, routing, pattern, args.loadModel, options, args.bestSplit);
  nlohmann::json j = head(args, fabric, routing);
  j["pattern"] = result.pattern;
  j["value"] = result.mean;
  j["mean"] = result.mean;
  j["ci99_halfwidth"] = result.ci99HalfWidth;
  j["samples"] = result.samples;
  j["converged"] = result.converged;
  j["precision"] = options.precision;
  j["initial_samples"] = options.initialSamples;
  j["max_samples"] = options.maxSamples;
  j["mean_max_load"] = result.meanMaxLoad;
  j["exact"] = result.exact;
  j["bandwidth_upper_bound"] = result.bandwidthUpperBound;
  j["max_relative_gap"] = result.maxRelativeGap;
  if (args.loadModel == LoadModel::BestSplit && !args.singlePath) {
    j["split_tolerance"] = args.bestSplit.tolerance;
    j["split_iterations_max"] = result.maxIterations;
  }
  nlohmann::json histogram = nlohmann::json::object();
  for (const auto& [ml, count] : result.maxLoadHistogram) histogram[std::to_string(ml)] = count;
  for (const auto& [ml, count] : result.splitHistogram) histogram[fmt::format("{}", ml)] = count;
  j["max_load_histogram"] = histogram;
  if (args.format == OutputFormat::Json) {
    printJson(j);
    return 0;
  }
  fmt::print("fabric      {}\nengine      {}\n", fabric.spec, routing.engine);
  printModel(args);
  fmt::print("{:<11} {:.4f} ± {:.4f} (99% CI), mean of 1/ML over {} random {} patterns, seed {}\n",
             metricName(args.metric), result.mean, result.ci99HalfWidth, result.samples, result.pattern, args.seed);
  if (!result.exact) {
    fmt::print("bounds      best split lies in [{:.4f}, {:.4f}] (per-sample gap at most {:.2f}%)\n", result.mean,
               result.bandwidthUpperBound, 100 * result.maxRelativeGap);
  }
  fmt::print("stopping    half-width <= {} x mean: {}\n", options.precision,
             result.converged ? "met" : fmt::format("NOT met within {} samples", options.maxSamples));
  fmt::print("mean ML     {:.4f}\n", result.meanMaxLoad);
  if (!result.maxLoadHistogram.empty()) {
    fmt::print("ML counts  ");
    for (const auto& [ml, count] : result.maxLoadHistogram) fmt::print(" {}:{}", ml, count);
    fmt::print("\n");
  }
  return 0;
}

int runPattern(const AnalyzeArgs& args, const Fabric& fabric, const RoutingResult& routing) {
  const Network& network = fabric.network;
  if (args.pattern.empty()) {
    throw SpecError("--metric pattern needs --pattern SPEC (see `routelab list`, e.g. --pattern shift:s=1)");
  }
  const TrafficPattern pattern = makePattern(args.pattern, network, args.seed);
  const LinkLoads loads = patternLoads(network, routing, pattern, args.loadModel, args.bestSplit);
  if (!args.exportLoads.empty()) {
    writeLoadsCsv(args.exportLoads, network, loads.load,
                  fmt::format("routelab analyze {} --engine {} --metric pattern --pattern {} --seed {} --load-model {}",
                              fabric.spec, routing.engine, pattern.spec, args.seed, loadModelName(args.loadModel)));
  }
  nlohmann::json j = head(args, fabric, routing);
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
  if (args.format == OutputFormat::Json) {
    printJson(j);
    return 0;
  }
  fmt::print("fabric      {}\nengine      {}\npattern     {}{} ({} pairs{})\n", fabric.spec, routing.engine,
             pattern.spec, pattern.random ? fmt::format(", seed {}", pattern.seed) : "", loads.pairs,
             isPermutation(pattern.pairs, pattern.terminals) ? ", a permutation" : "");
  printModel(args);
  fmt::print("ML          {} (bandwidth 1/ML = {:.4f}) on {} channel(s)\n", loads.maxLoad,
             loads.maxLoad > 0 ? 1.0 / loads.maxLoad : 0.0, loads.channelsAtMax);
  if (loads.lowerBound != loads.maxLoad)
    fmt::print("lower bound {} (the best split's ML lies between)\n", loads.lowerBound);
  if (loads.maxChannel.valid()) fmt::print("max channel {}\n", network.describeChannel(loads.maxChannel));
  for (const AscendingUsage& a : loads.ascending) {
    fmt::print("level {}     {} switch(es) send up, using {}..{} of {} ascending channels each\n", a.level,
               a.switchesSendingUp, a.minChannelsPerSwitch, a.maxChannelsPerSwitch, a.availablePerSwitch);
  }
  return 0;
}

int runStages(const AnalyzeArgs& args, const Fabric& fabric, const RoutingResult& routing) {
  const Network& network = fabric.network;
  const StagePathCounts counts = stagePathCounts(network, routing, args.threads);
  if (!args.exportLoads.empty()) {
    std::vector<double> loads(counts.pathsPerChannel.begin(), counts.pathsPerChannel.end());
    writeLoadsCsv(args.exportLoads, network, loads,
                  fmt::format("routelab analyze {} --engine {} --metric stages (paths per channel, all pairs)",
                              fabric.spec, routing.engine));
  }
  nlohmann::json j = head(args, fabric, routing);
  j["load_model"] = loadModelName(LoadModel::FirstPath);  // path counts: always the first path
  bool balanced = true;
  std::uint64_t maxPaths = 0;
  nlohmann::json stages = nlohmann::json::array();
  for (const StageCount& s : counts.stages) {
    balanced = balanced && s.balanced();
    maxPaths = std::max(maxPaths, s.maxPaths);
    stages.push_back({{"lower_level", s.lowerLevel},
                      {"direction", s.ascending ? "up" : "down"},
                      {"channels", s.channels},
                      {"min_paths", s.minPaths},
                      {"max_paths", s.maxPaths},
                      {"mean_paths", s.meanPaths},
                      {"balanced", s.balanced()}});
  }
  j["value"] = maxPaths;
  j["ci99_halfwidth"] = 0.0;
  j["samples"] = 0;
  j["balanced"] = balanced;
  j["stages"] = stages;
  if (args.format == OutputFormat::Json) {
    printJson(j);
    return 0;
  }
  fmt::print("fabric      {}\nengine      {}\n", fabric.spec, routing.engine);
  fmt::print("paths per channel, all {} ordered terminal pairs (Gómez Fig. 3)\n",
             network.terminalCount() * (network.terminalCount() - 1));
  fmt::print("  levels  dir   channels  min      max      mean       balanced\n");
  for (const StageCount& s : counts.stages) {
    fmt::print("  {}-{}     {:<5} {:<9} {:<8} {:<8} {:<10.2f} {}\n", s.lowerLevel, s.lowerLevel + 1,
               s.ascending ? "up" : "down", s.channels, s.minPaths, s.maxPaths, s.meanPaths,
               s.balanced() ? "yes" : "no");
  }
  return 0;
}

}  // namespace

Command analyzeCommand() {
  return {
      "analyze", "static congestion analysis: WORST, ABB/AFPB/ADB, pattern loads, stage counts", [](CLI::App& command) {
        auto args = std::make_shared<AnalyzeArgs>();
        command.add_option("spec", args->spec, "fabric spec, e.g. gft2:n=16,m=16,r=32")->required();
        command.add_option("--engine", args->engine, "routing engine spec, or file:PATH (OpenSM LFT dump)")->required();
        command.add_option("--metric", args->metricText, "worst | abb | afpb | adb | pattern | stages")
            ->check(CLI::IsMember({"worst", "abb", "afpb", "adb", "pattern", "stages"}))
            ->default_str("worst");
        command.add_option("--pattern", args->pattern, "pattern spec for --metric pattern (see `routelab list`)");
        command.add_option("--seed", args->seed, "seed of the random patterns and engines")
            ->check(unsignedDecimal())
            ->default_str("1");
        command.add_option("--precision", args->precision, "stop sampling when the 99% half-width <= precision x mean")
            ->default_str("0.01");
        command.add_option("--max-samples", args->maxSamples, "give up doubling beyond this many samples")
            ->check(unsignedDecimal(2))
            ->default_str(std::to_string(args->maxSamples));
        command.add_option("--threads", args->threads, "worker threads (0 = every core; results do not change)")
            ->check(CLI::NonNegativeNumber)
            ->default_str("0");
        command
            .add_option("--load-model", args->loadModelText,
                        "adaptive/multipath routings: first-path | even-split | best-split (docs/ANALYSIS.md); "
                        "single-path routings give the same numbers under all three")
            ->check(CLI::IsMember({"first-path", "even-split", "best-split", "first", "split"}))
            ->default_str("even-split");
        command.add_option("--lmc", args->lmc, "LMC: 2^lmc addresses (paths) per terminal for the engine")
            ->check(CLI::Range(0, 7))
            ->default_str("0");
        command
            .add_option("--split-tolerance", args->bestSplit.tolerance,
                        "best-split: stop when upper <= (1 + tolerance) x lower bound, per pattern")
            ->check(CLI::PositiveNumber)
            ->default_str("0.01");
        command
            .add_option("--split-iterations", args->bestSplit.maxIterations,
                        "best-split: solver iterations per pattern at most")
            ->default_str("400");
        command.add_option("--export-loads", args->exportLoads,
                           "write per-channel loads as CSV (--metric pattern or stages)");
        addFormatOption(command, args->format);
        return std::function<int()>([args] {
          args->loadModel = parseLoadModel(args->loadModelText);
          for (Metric m : {Metric::Worst, Metric::Abb, Metric::Afpb, Metric::Adb, Metric::Pattern, Metric::Stages}) {
            if (args->metricText == metricName(m)) args->metric = m;
          }
          if (!args->exportLoads.empty() && args->metric != Metric::Pattern && args->metric != Metric::Stages) {
            throw SpecError("--export-loads needs --metric pattern or --metric stages");
          }
          if (!args->pattern.empty() && args->metric != Metric::Pattern) {
            throw SpecError(
                fmt::format("--pattern is only used by --metric pattern (the {} metric samples its "
                            "own patterns)",
                            metricName(args->metric)));
          }
          const Fabric fabric = loadFabric(args->spec);
          RoutingContext context;
          context.seed = args->seed;
          context.addressesPerTerminal = std::uint32_t{1} << args->lmc;
          const RoutingResult routing = runEngine(args->engine, fabric.network, context);
          args->singlePath = isSinglePath(fabric.network, routing);
          switch (args->metric) {
            case Metric::Worst: return runWorst(*args, fabric, routing);
            case Metric::Abb:
            case Metric::Afpb:
            case Metric::Adb: return runSampled(*args, fabric, routing);
            case Metric::Pattern: return runPattern(*args, fabric, routing);
            case Metric::Stages: return runStages(*args, fabric, routing);
          }
          return 2;
        });
      }};
}

}  // namespace routelab::cli
