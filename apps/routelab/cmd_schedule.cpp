// routelab schedule SPEC — circuit scheduling on a fat-tree (Ding et al., SC'06):
// schedulability ratio over random permutations (or any pattern), multi-round scheduling,
// export of a granted schedule as OpenSM LFTs or as explicit paths (docs/SCHEDULING.md).
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "cli.h"
#include "core/errors.h"
#include "fabric/fabric.h"
#include "io/lft_dump.h"
#include "io/output.h"
#include "schedule/circuits.h"
#include "schedule/experiment.h"
#include "schedule/registry.h"
#include "traffic/pattern.h"

namespace routelab::cli {

namespace {

struct ScheduleArgs {
  std::string spec;
  std::string scheduler = "level-wise";
  std::string pattern = kDingPermutation;
  std::size_t permutations = 100;
  std::uint64_t seed = 1;
  bool releaseOnFail = false;
  bool rounds = false;
  std::vector<std::string> exports;  // pairs: kind, path
  OutputFormat format = OutputFormat::Text;
};

nlohmann::json pathsJson(const CircuitFabric& fabric, std::span<const SourceDestination> requests,
                         const CircuitSchedule& schedule, const std::string& scheduler, const std::string& spec,
                         std::uint64_t seed) {
  const Network& network = fabric.network();
  nlohmann::json circuits = nlohmann::json::array();
  for (std::size_t r = 0; r < requests.size(); ++r) {
    nlohmann::json c;
    c["request"] = r;
    c["source"] = network.name(network.terminalNode(requests[r].source));
    c["destination"] = network.name(network.terminalNode(requests[r].destination));
    c["status"] = toString(schedule.status[r]);
    c["ancestor_level"] = schedule.ancestor[r];
    if (schedule.status[r] == CircuitStatus::Granted) {
      const auto ports = schedule.portsOf(r);
      c["ports"] = std::vector<std::uint16_t>(ports.begin(), ports.end());
      nlohmann::json hops = nlohmann::json::array();
      for (ChannelId ch : fabric.circuitPath(requests[r], ports)) hops.push_back(network.describeChannel(ch));
      c["path"] = hops;
    } else {
      c["failed_level"] = schedule.failedLevel[r];
    }
    circuits.push_back(c);
  }
  return {{"spec", spec},
          {"scheduler", scheduler},
          {"seed", seed},
          {"granted", schedule.granted},
          {"requests", schedule.requests()},
          {"circuits", circuits}};
}

void addScheduleOptions(CLI::App& command, ScheduleArgs& args) {
  command.add_option("spec", args.spec, "fat-tree spec, e.g. ft:l=3,m=4,w=4 (any XGFT)")->required();
  command.add_option("--scheduler", args.scheduler, "level-wise | local-greedy | local-random [:options]")
      ->default_str("level-wise");
  command
      .add_option("--pattern", args.pattern,
                  "permutation (random, Ding §5) or a pattern spec: shift:s=3, all-to-all, ...")
      ->default_str("permutation");
  command.add_option("--permutations", args.permutations, "samples (random patterns are redrawn)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}))
      ->default_str("100");
  command.add_option("--seed", args.seed, "seed of patterns and random port choices")
      ->check(unsignedDecimal())
      ->default_str("1");
  command.add_flag("--release-on-fail", args.releaseOnFail,
                   "a failed request returns its links (default: keeps them, as Ding's hardware)");
  command.add_flag("--rounds", args.rounds,
                   "also schedule in rounds until every request is granted, vs the static load bound");
  command
      .add_option("--export", args.exports,
                  "KIND FILE: sample 0's granted circuits as lft (OpenSM dump) | paths (JSON)")
      ->expected(2)
      ->type_name("KIND FILE")
      ->take_all();
  requireExportPairs(command, args.exports);
  addFormatOption(command, args.format);
}

/// The --scheduler spec with --release-on-fail added as an option.
std::string schedulerSpecOf(const ScheduleArgs& args) {
  std::string spec = args.scheduler;
  if (args.releaseOnFail) spec += (spec.find(':') == std::string::npos ? ":" : ",") + std::string("release-on-fail");
  return spec;
}

/// Every --export file's text (sample 0's circuits), built in memory first so that a
/// refused one writes nothing.
std::vector<std::pair<std::string, std::string>> exportTexts(const ScheduleArgs& args, const Fabric& fabric,
                                                             const CircuitFabric& circuits,
                                                             const SchedulerConfig& config,
                                                             const ScheduleExperiment& experiment) {
  std::vector<std::pair<std::string, std::string>> files;
  for (std::size_t i = 0; i + 1 < args.exports.size(); i += 2) {
    std::string text;
    if (args.exports[i] == "lft") {
      const RoutingResult routing =
          circuitsToRouting(circuits, experiment.firstDemands, experiment.first, config.effective);
      validateLftExport(routing);
      std::ostringstream out;
      writeLftDump(fabric.network, routing, out);
      text = out.str();
    } else {
      text = pathsJson(circuits, experiment.firstDemands, experiment.first, config.effective, fabric.spec,
                       experiment.firstSchedulerSeed)
                 .dump(1) +
             "\n";
    }
    files.emplace_back(args.exports[i + 1], std::move(text));
  }
  return files;
}

nlohmann::json roundsJson(const ScheduleExperiment& experiment) {
  nlohmann::json perSample = nlohmann::json::array();
  for (const auto& r : experiment.rounds) {
    perSample.push_back({{"rounds", r.rounds},
                         {"lower_bound", r.bound.lowerBound()},
                         {"terminal_link_bound", r.bound.terminalLinks},
                         {"switch_cut_bound", r.bound.switchCuts},
                         {"granted_per_round", r.grantedPerRound}});
  }
  const RoundsSummary& summary = experiment.roundsSummary;
  return {{"mean", summary.mean},
          {"min", summary.min},
          {"max", summary.max},
          {"lower_bound_max", summary.lowerBoundMax},
          {"samples", perSample}};
}

nlohmann::json resultJson(const ScheduleArgs& args, const Fabric& fabric, const SchedulerConfig& config,
                          const DemandSource& demands, const ScheduleExperiment& experiment) {
  const SchedulabilityStats& stats = experiment.stats;
  nlohmann::json j;
  j["spec"] = fabric.spec;
  j["xgft"] = fabric.network.xgft()->params.str();
  j["terminals"] = fabric.network.terminalCount();
  j["scheduler"] = config.effective;
  j["reference"] = schedulerRegistry().find(config.name).reference;
  j["pattern"] = demands.effectiveSpec();
  j["seed"] = args.seed;
  j["permutations"] = stats.samples;
  j["requests"] = static_cast<double>(stats.requests) / static_cast<double>(stats.samples);
  j["requests_total"] = stats.requests;
  j["granted_total"] = stats.granted;
  j["ratio_mean"] = stats.ratioMean;
  j["ratio_min"] = stats.ratioMin;
  j["ratio_max"] = stats.ratioMax;
  j["ratio_stddev"] = stats.ratioStddev;
  j["failures"] = {
      {"no_common_port", stats.noCommonPort}, {"no_up_port", stats.noUpPort}, {"down_conflict", stats.downConflict}};
  j["ratios"] = stats.ratios;
  j["checked"] = {{"sample", 0},
                  {"circuits", experiment.firstCheck.circuits},
                  {"channels", experiment.firstCheck.channelsUsed},
                  {"conflict_free", experiment.firstCheck.ok}};
  if (args.rounds) j["rounds"] = roundsJson(experiment);
  nlohmann::json exported = nlohmann::json::array();
  for (std::size_t i = 0; i + 1 < args.exports.size(); i += 2) {
    exported.push_back({{"kind", args.exports[i]}, {"file", args.exports[i + 1]}});
  }
  j["exported"] = exported;
  return j;
}

void printText(const ScheduleArgs& args, const nlohmann::json& j, const ScheduleExperiment& experiment,
               const std::vector<std::pair<std::string, std::string>>& files) {
  const SchedulabilityStats& stats = experiment.stats;
  fmt::print("fabric         {} = {}, {} terminals\n", j["spec"].get<std::string>(), j["xgft"].get<std::string>(),
             j["terminals"].get<std::size_t>());
  fmt::print("scheduler      {}  [{}]\n", j["scheduler"].get<std::string>(), j["reference"].get<std::string>());
  fmt::print("pattern        {}, {} sample(s), seed {}\n", j["pattern"].get<std::string>(), stats.samples, args.seed);
  fmt::print("requests       {:.1f} per sample\n", j["requests"].get<double>());
  fmt::print("schedulability mean {:.4f}  min {:.4f}  max {:.4f}  (stddev {:.4f})\n", stats.ratioMean, stats.ratioMin,
             stats.ratioMax, stats.ratioStddev);
  fmt::print("failures       {} no common port, {} no free up port, {} down conflicts\n", stats.noCommonPort,
             stats.noUpPort, stats.downConflict);
  fmt::print("checked        sample 0: {} circuits on {} channels, conflict-free\n", experiment.firstCheck.circuits,
             experiment.firstCheck.channelsUsed);
  if (args.rounds) {
    const RoundsSummary& summary = experiment.roundsSummary;
    fmt::print("rounds         mean {:.2f}  min {}  max {}  (static load lower bound {})\n", summary.mean, summary.min,
               summary.max, summary.lowerBoundMax);
  }
  for (const auto& file : files) fmt::print("exported       {}\n", file.first);
}

int runSchedule(const ScheduleArgs& args) {
  requireExportKinds(args.exports, {"lft", "paths"}, "kind");
  const SchedulerConfig config = makeSchedulerConfig(schedulerSpecOf(args));
  const Fabric fabric = loadFabric(args.spec);
  const CircuitFabric circuits(fabric.network);
  const DemandSource demands(args.pattern, fabric.network, args.seed);
  const ScheduleExperiment experiment = runScheduleExperiment(
      circuits, config, [&demands](Rng& rng, std::vector<SourceDestination>& out) { demands.draw(rng, out); },
      args.permutations, args.seed, args.rounds);
  const auto files = exportTexts(args, fabric, circuits, config, experiment);
  std::vector<OutputFile> outputs;  // all or nothing
  for (const auto& [path, text] : files) {
    outputs.push_back({path, [&text = text](std::ostream& out) { out << text; }});
  }
  writeFilesAtomically(outputs);
  const nlohmann::json j = resultJson(args, fabric, config, demands, experiment);
  if (args.format == OutputFormat::Json) {
    printJson(j);
  } else {
    printText(args, j, experiment, files);
  }
  return 0;
}

}  // namespace

Command scheduleCommand() {
  return {"schedule", "schedule circuits on a fat-tree: schedulability ratio, rounds, export (Ding et al.)",
          [](CLI::App& command) {
            auto args = std::make_shared<ScheduleArgs>();
            addScheduleOptions(command, *args);
            return std::function<int()>([args] { return runSchedule(*args); });
          }};
}

}  // namespace routelab::cli
