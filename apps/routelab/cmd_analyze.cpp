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
#include "cli_schema.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/output.h"
#include "request/analyze_request.h"
#include "traffic/pattern.h"

namespace routelab::cli {

namespace {

// The request's flags are generated from analyzeSchema() (cli_schema.h); the others choose
// what is written besides the result.
struct AnalyzeArgs {
  RequestFlags flags{"analyze", {}};
  std::string exportLoads;
  OutputFormat format = OutputFormat::Text;
};

std::string terminalName(const Network& network, std::uint32_t t) { return network.name(network.terminalNode(t)); }

/// One line naming the load model of the numbers (text output).
void printModel(const AnalyzeRequest& request, bool singlePath) {
  if (request.lmc > 0) fmt::print("lmc         {} ({} addresses per terminal)\n", request.lmc, 1U << request.lmc);
  if (singlePath) {
    fmt::print("load model  {} (single-path routing: every model gives these numbers)\n",
               loadModelName(request.loadModel));
    return;
  }
  switch (request.loadModel) {
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

void printWorst(const AnalyzeRequest& request, const AnalyzeOutcome& outcome) {
  const Network& network = outcome.fabric.network;
  const SplitWorstCase& worst = *outcome.worst;
  fmt::print("fabric      {}\nengine      {}\n", outcome.fabric.spec, outcome.routing.engine);
  printModel(request, outcome.singlePath);
  if (outcome.singlePath || request.loadModel == LoadModel::FirstPath) {
    fmt::print("WORST       {} (exact: maximum matching per channel, Nienaber Eq. 1)\n", worst.value);
  } else if (request.loadModel == LoadModel::EvenSplit) {
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
}

void printSampled(const AnalyzeRequest& request, const AnalyzeOutcome& outcome) {
  const SampledBandwidth& result = *outcome.sampled;
  const SamplingOptions& options = request.sampling;
  fmt::print("fabric      {}\nengine      {}\n", outcome.fabric.spec, outcome.routing.engine);
  printModel(request, outcome.singlePath);
  fmt::print("{:<11} {:.4f} ± {:.4f} (99% CI), mean of 1/ML over {} random {} patterns, seed {}\n",
             analyzeMetricName(request.metric), result.mean, result.ci99HalfWidth, result.samples, result.pattern,
             request.seed);
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
}

void printPattern(const AnalyzeRequest& request, const AnalyzeOutcome& outcome) {
  const Network& network = outcome.fabric.network;
  const TrafficPattern& pattern = *outcome.pattern;
  const LinkLoads& loads = *outcome.loads;
  fmt::print("fabric      {}\nengine      {}\npattern     {}{} ({} pairs{})\n", outcome.fabric.spec,
             outcome.routing.engine, pattern.spec, pattern.random ? fmt::format(", seed {}", pattern.seed) : "",
             loads.pairs, isPermutation(pattern.pairs, pattern.terminals) ? ", a permutation" : "");
  printModel(request, outcome.singlePath);
  fmt::print("ML          {} (bandwidth 1/ML = {:.4f}) on {} channel(s)\n", loads.maxLoad,
             loads.maxLoad > 0 ? 1.0 / loads.maxLoad : 0.0, loads.channelsAtMax);
  if (loads.lowerBound != loads.maxLoad)
    fmt::print("lower bound {} (the best split's ML lies between)\n", loads.lowerBound);
  if (loads.maxChannel.valid()) fmt::print("max channel {}\n", network.describeChannel(loads.maxChannel));
  for (const AscendingUsage& a : loads.ascending) {
    fmt::print("level {}     {} switch(es) send up, using {}..{} of {} ascending channels each\n", a.level,
               a.switchesSendingUp, a.minChannelsPerSwitch, a.maxChannelsPerSwitch, a.availablePerSwitch);
  }
}

void printStages(const AnalyzeOutcome& outcome) {
  const Network& network = outcome.fabric.network;
  fmt::print("fabric      {}\nengine      {}\n", outcome.fabric.spec, outcome.routing.engine);
  fmt::print("paths per channel, all {} ordered terminal pairs (Gómez Fig. 3)\n",
             network.terminalCount() * (network.terminalCount() - 1));
  fmt::print("  levels  dir   channels  min      max      mean       balanced\n");
  for (const StageCount& s : outcome.stages->stages) {
    fmt::print("  {}-{}     {:<5} {:<9} {:<8} {:<8} {:<10.2f} {}\n", s.lowerLevel, s.lowerLevel + 1,
               s.ascending ? "up" : "down", s.channels, s.minPaths, s.maxPaths, s.meanPaths,
               s.balanced() ? "yes" : "no");
  }
}

// --export-loads: the per-channel loads of metric pattern, or the path counts of stages.
void writeExports(const AnalyzeArgs& args, const AnalyzeRequest& request, const AnalyzeOutcome& outcome) {
  if (args.exportLoads.empty()) return;
  const Network& network = outcome.fabric.network;
  if (outcome.loads) {
    writeLoadsCsv(args.exportLoads, network, outcome.loads->load,
                  fmt::format("routelab analyze {} --engine {} --metric pattern --pattern {} --seed {} --load-model {}",
                              outcome.fabric.spec, outcome.routing.engine, outcome.pattern->spec, request.seed,
                              loadModelName(request.loadModel)));
  } else if (outcome.stages) {
    const std::vector<std::uint64_t>& paths = outcome.stages->pathsPerChannel;
    writeLoadsCsv(args.exportLoads, network, std::vector<double>(paths.begin(), paths.end()),
                  fmt::format("routelab analyze {} --engine {} --metric stages (paths per channel, all pairs)",
                              outcome.fabric.spec, outcome.routing.engine));
  }
}

// parse (the flags, validated by the library) -> runAnalyze -> the library's JSON or text.
int runAnalyzeCommand(const AnalyzeArgs& args) {
  const AnalyzeRequest request = AnalyzeRequest::fromValues(args.flags.values);
  if (!args.exportLoads.empty() && request.metric != AnalyzeMetric::Pattern &&
      request.metric != AnalyzeMetric::Stages) {
    throw SpecError("--export-loads needs --metric pattern or --metric stages");
  }
  const AnalyzeOutcome outcome = runAnalyze(request);
  writeExports(args, request, outcome);
  if (args.format == OutputFormat::Json) {
    printJson(analyzeResultJson(request, outcome));
    return 0;
  }
  if (outcome.worst) printWorst(request, outcome);
  if (outcome.sampled) printSampled(request, outcome);
  if (outcome.pattern) printPattern(request, outcome);
  if (outcome.stages) printStages(outcome);
  return 0;
}

}  // namespace

Command analyzeCommand() {
  return {"analyze", "static congestion analysis: WORST, ABB/AFPB/ADB, pattern loads, stage counts",
          [](CLI::App& command) {
            auto args = std::make_shared<AnalyzeArgs>();
            addRequestOptions(command, args->flags);
            command.add_option("--export-loads", args->exportLoads,
                               "write per-channel loads as CSV (--metric pattern or stages)");
            addFormatOption(command, args->format);
            return std::function<int()>([args] { return runAnalyzeCommand(*args); });
          }};
}

}  // namespace routelab::cli
