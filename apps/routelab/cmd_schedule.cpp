// routelab schedule SPEC — circuit scheduling on a fat-tree (Ding et al., SC'06):
// schedulability ratio over random permutations (or any pattern), multi-round scheduling,
// export of a granted schedule as OpenSM LFTs or as explicit paths (docs/SCHEDULING.md).
#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "cli.h"
#include "cli_schema.h"
#include "core/errors.h"
#include "fabric/fabric.h"
#include "io/lft_dump.h"
#include "io/output.h"
#include "request/schedule_request.h"
#include "schedule/circuits.h"
#include "schedule/experiment.h"
#include "schedule/registry.h"
#include "traffic/pattern.h"

namespace routelab::cli {

namespace {

// The request's flags are generated from scheduleSchema() (cli_schema.h); the others choose
// what is written besides the result.
struct ScheduleArgs {
  RequestFlags flags{"schedule", {}};
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
  addRequestOptions(command, args.flags);
  command
      .add_option("--export", args.exports,
                  "KIND FILE: sample 0's granted circuits as lft (OpenSM dump) | paths (JSON)")
      ->expected(2)
      ->type_name("KIND FILE")
      ->take_all();
  requireExportPairs(command, args.exports);
  addFormatOption(command, args.format);
}

/// Every --export file's text (sample 0's circuits), built in memory first so that a
/// refused one writes nothing.
std::vector<std::pair<std::string, std::string>> exportTexts(const ScheduleArgs& args, const ScheduleOutcome& outcome) {
  const Fabric& fabric = *outcome.fabric;
  const CircuitFabric& circuits = *outcome.circuits;
  const SchedulerConfig& config = outcome.config;
  const ScheduleExperiment& experiment = outcome.experiment;
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

void printText(const ScheduleRequest& request, const nlohmann::json& j, const ScheduleExperiment& experiment,
               const std::vector<std::pair<std::string, std::string>>& files) {
  const SchedulabilityStats& stats = experiment.stats;
  fmt::print("fabric         {} = {}, {} terminals\n", j["spec"].get<std::string>(), j["xgft"].get<std::string>(),
             j["terminals"].get<std::size_t>());
  fmt::print("scheduler      {}  [{}]\n", j["scheduler"].get<std::string>(), j["reference"].get<std::string>());
  fmt::print("pattern        {}, {} sample(s), seed {}\n", j["pattern"].get<std::string>(), stats.samples,
             request.seed);
  fmt::print("requests       {:.1f} per sample\n", j["requests"].get<double>());
  fmt::print("schedulability mean {:.4f}  min {:.4f}  max {:.4f}  (stddev {:.4f})\n", stats.ratioMean, stats.ratioMin,
             stats.ratioMax, stats.ratioStddev);
  fmt::print("failures       {} no common port, {} no free up port, {} down conflicts\n", stats.noCommonPort,
             stats.noUpPort, stats.downConflict);
  fmt::print("checked        sample 0: {} circuits on {} channels, conflict-free\n", experiment.firstCheck.circuits,
             experiment.firstCheck.channelsUsed);
  if (request.rounds) {
    const RoundsSummary& summary = experiment.roundsSummary;
    fmt::print("rounds         mean {:.2f}  min {}  max {}  (static load lower bound {})\n", summary.mean, summary.min,
               summary.max, summary.lowerBoundMax);
  }
  for (const auto& file : files) fmt::print("exported       {}\n", file.first);
}

// parse (validated by the library) -> runSchedule -> exports, the library's JSON or text.
int runScheduleCommand(const ScheduleArgs& args) {
  requireExportKinds(args.exports, {"lft", "paths"}, "kind");
  const ScheduleRequest request = ScheduleRequest::fromValues(args.flags.values);
  const ScheduleOutcome outcome = runSchedule(request);
  const auto files = exportTexts(args, outcome);
  std::vector<OutputFile> outputs;  // all or nothing
  for (const auto& [path, text] : files) {
    outputs.push_back({path, [&text = text](std::ostream& out) { out << text; }});
  }
  writeFilesAtomically(outputs);
  nlohmann::json j = scheduleResultJson(request, outcome);
  nlohmann::json exported = nlohmann::json::array();
  for (std::size_t i = 0; i + 1 < args.exports.size(); i += 2) {
    exported.push_back({{"kind", args.exports[i]}, {"file", args.exports[i + 1]}});
  }
  j["exported"] = exported;
  if (args.format == OutputFormat::Json) {
    printJson(j);
  } else {
    printText(request, j, outcome.experiment, files);
  }
  return 0;
}

}  // namespace

Command scheduleCommand() {
  return {"schedule", "schedule circuits on a fat-tree: schedulability ratio, rounds, export (Ding et al.)",
          [](CLI::App& command) {
            auto args = std::make_shared<ScheduleArgs>();
            addScheduleOptions(command, *args);
            return std::function<int()>([args] { return runScheduleCommand(*args); });
          }};
}

}  // namespace routelab::cli
