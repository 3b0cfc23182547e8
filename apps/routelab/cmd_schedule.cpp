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
  std::string pattern = "permutation";
  std::size_t permutations = 100;
  std::uint64_t seed = 1;
  bool releaseOnFail = false;
  bool rounds = false;
  std::vector<std::string> exports;  // pairs: kind, path
  OutputFormat format = OutputFormat::Text;
};

/// The requests of a pattern spec; "permutation" is Ding §5's random permutation.
struct PatternSource {
  std::string effective;
  bool random = true;
  std::vector<CircuitRequest> fixed;  // when not random
};

std::vector<CircuitRequest> toRequests(const TrafficPattern& pattern) {
  std::vector<CircuitRequest> out;
  out.reserve(pattern.pairs.size());
  for (const auto& pair : pattern.pairs) out.push_back({pair.source, pair.destination});
  return out;
}

PatternSource resolvePattern(const std::string& spec, const Network& network, std::uint64_t seed) {
  PatternSource source;
  if (spec == "permutation") {
    source.effective = "permutation";
    return source;
  }
  const TrafficPattern probe = makePattern(spec, network, seed);
  source.effective = probe.spec;
  source.random = probe.random;
  if (!source.random) source.fixed = toRequests(probe);
  return source;
}

void sampleRequests(const std::string& spec, const PatternSource& source, const Network& network, Rng& rng,
                    std::vector<CircuitRequest>& out) {
  if (!source.random) {
    out = source.fixed;
  } else if (spec == "permutation") {
    randomPermutationRequests(network.terminalCount(), rng, out);
  } else {
    out = toRequests(makePattern(spec, network, rng()));
  }
}

nlohmann::json pathsJson(const CircuitFabric& fabric, std::span<const CircuitRequest> requests,
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

}  // namespace

Command scheduleCommand() {
  return {"schedule", "schedule circuits on a fat-tree: schedulability ratio, rounds, export (Ding et al.)",
          [](CLI::App& command) {
            auto args = std::make_shared<ScheduleArgs>();
            command.add_option("spec", args->spec, "fat-tree spec, e.g. ft:l=3,m=4,w=4 (any XGFT)")->required();
            command.add_option("--scheduler", args->scheduler, "level-wise | local-greedy | local-random [:options]")
                ->default_str("level-wise");
            command
                .add_option("--pattern", args->pattern,
                            "permutation (random, Ding §5) or a pattern spec: shift:s=3, all-to-all, ...")
                ->default_str("permutation");
            command.add_option("--permutations", args->permutations, "samples (random patterns are redrawn)")
                ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}))
                ->default_str("100");
            command.add_option("--seed", args->seed, "seed of patterns and random port choices")
                ->check(unsignedDecimal())
                ->default_str("1");
            command.add_flag("--release-on-fail", args->releaseOnFail,
                             "a failed request returns its links (default: keeps them, as Ding's hardware)");
            command.add_flag("--rounds", args->rounds,
                             "also schedule in rounds until every request is granted, vs the static load bound");
            command
                .add_option("--export", args->exports,
                            "KIND FILE: sample 0's granted circuits as lft (OpenSM dump) | paths (JSON)")
                ->expected(2)
                ->type_name("KIND FILE")
                ->take_all();
            requireExportPairs(command, args->exports);
            addFormatOption(command, args->format);
            return std::function<int()>([args] {
              for (std::size_t i = 0; i + 1 < args->exports.size(); i += 2) {
                if (args->exports[i] != "lft" && args->exports[i] != "paths") {
                  throw SpecError(fmt::format("--export: unknown kind '{}' (lft, paths)", args->exports[i]));
                }
              }
              std::string schedulerSpec = args->scheduler;
              if (args->releaseOnFail) {
                schedulerSpec +=
                    (schedulerSpec.find(':') == std::string::npos ? ":" : ",") + std::string("release-on-fail");
              }
              const SchedulerConfig config = makeSchedulerConfig(schedulerSpec);
              const Fabric fabric = loadFabric(args->spec);
              const Network& network = fabric.network;
              const CircuitFabric circuits(network);
              const PatternSource pattern = resolvePattern(args->pattern, network, args->seed);
              const std::string patternSpec = args->pattern;
              const RequestSampler sampler = [&](std::size_t, Rng& rng, std::vector<CircuitRequest>& out) {
                sampleRequests(patternSpec, pattern, network, rng, out);
              };
              const SchedulabilityStats stats =
                  measureSchedulability(circuits, config, args->permutations, args->seed, sampler);

              // Sample 0 again (same seeds as in measureSchedulability) for checks and export.
              Rng rng(deriveSeed(args->seed, 0));
              std::vector<CircuitRequest> requests;
              sampler(0, rng, requests);
              const std::uint64_t schedulerSeed = rng();
              const CircuitSchedule first = CircuitScheduler(circuits, config).run(requests, schedulerSeed);
              const CircuitCheck check = checkCircuits(circuits, requests, first);
              if (!check.ok) throw AnalysisError("schedule check failed (please report): " + check.problem);

              std::vector<RoundsResult> rounds;
              if (args->rounds) {
                for (std::size_t s = 0; s < args->permutations; ++s) {
                  Rng sampleRng(deriveSeed(args->seed, s));
                  std::vector<CircuitRequest> sample;
                  sampler(s, sampleRng, sample);
                  rounds.push_back(scheduleInRounds(circuits, config, sample, sampleRng()));
                }
              }
              // Build every export in memory first, so a refused one writes nothing.
              std::vector<std::pair<std::string, std::string>> files;
              for (std::size_t i = 0; i + 1 < args->exports.size(); i += 2) {
                std::string text;
                if (args->exports[i] == "lft") {
                  const RoutingResult routing = circuitsToRouting(circuits, requests, first, config.effective);
                  validateLftExport(routing);
                  std::ostringstream out;
                  writeLftDump(network, routing, out);
                  text = out.str();
                } else {
                  text =
                      pathsJson(circuits, requests, first, config.effective, fabric.spec, schedulerSeed).dump(1) + "\n";
                }
                files.emplace_back(args->exports[i + 1], std::move(text));
              }
              std::vector<OutputFile> outputs;  // all or nothing
              for (const auto& [path, text] : files) {
                outputs.push_back({path, [&text = text](std::ostream& out) { out << text; }});
              }
              writeFilesAtomically(outputs);

              nlohmann::json j;
              j["spec"] = fabric.spec;
              j["xgft"] = network.xgft()->params.str();
              j["terminals"] = network.terminalCount();
              j["scheduler"] = config.effective;
              j["reference"] = schedulerRegistry().find(config.name).reference;
              j["pattern"] = pattern.effective;
              j["seed"] = args->seed;
              j["permutations"] = stats.samples;
              j["requests"] = static_cast<double>(stats.requests) / static_cast<double>(stats.samples);
              j["requests_total"] = stats.requests;
              j["granted_total"] = stats.granted;
              j["ratio_mean"] = stats.ratioMean;
              j["ratio_min"] = stats.ratioMin;
              j["ratio_max"] = stats.ratioMax;
              j["ratio_stddev"] = stats.ratioStddev;
              j["failures"] = {{"no_common_port", stats.noCommonPort},
                               {"no_up_port", stats.noUpPort},
                               {"down_conflict", stats.downConflict}};
              j["ratios"] = stats.ratios;
              j["checked"] = {{"sample", 0},
                              {"circuits", check.circuits},
                              {"channels", check.channelsUsed},
                              {"conflict_free", check.ok}};
              if (args->rounds) {
                std::size_t lo = SIZE_MAX, hi = 0, bound = 0;
                double sum = 0;
                for (const auto& r : rounds) {
                  lo = std::min(lo, r.rounds);
                  hi = std::max(hi, r.rounds);
                  bound = std::max(bound, r.bound.lowerBound());
                  sum += static_cast<double>(r.rounds);
                }
                nlohmann::json perSample = nlohmann::json::array();
                for (const auto& r : rounds) {
                  perSample.push_back({{"rounds", r.rounds},
                                       {"lower_bound", r.bound.lowerBound()},
                                       {"terminal_link_bound", r.bound.terminalLinks},
                                       {"switch_cut_bound", r.bound.switchCuts},
                                       {"granted_per_round", r.grantedPerRound}});
                }
                j["rounds"] = {{"mean", sum / static_cast<double>(rounds.size())},
                               {"min", lo},
                               {"max", hi},
                               {"lower_bound_max", bound},
                               {"samples", perSample}};
              }
              nlohmann::json exported = nlohmann::json::array();
              for (std::size_t i = 0; i + 1 < args->exports.size(); i += 2) {
                exported.push_back({{"kind", args->exports[i]}, {"file", args->exports[i + 1]}});
              }
              j["exported"] = exported;
              if (args->format == OutputFormat::Json) {
                printJson(j);
                return 0;
              }
              fmt::print("fabric         {} = {}, {} terminals\n", fabric.spec, j["xgft"].get<std::string>(),
                         network.terminalCount());
              fmt::print("scheduler      {}  [{}]\n", config.effective, j["reference"].get<std::string>());
              fmt::print("pattern        {}, {} sample(s), seed {}\n", pattern.effective, stats.samples, args->seed);
              fmt::print("requests       {:.1f} per sample\n", j["requests"].get<double>());
              fmt::print("schedulability mean {:.4f}  min {:.4f}  max {:.4f}  (stddev {:.4f})\n", stats.ratioMean,
                         stats.ratioMin, stats.ratioMax, stats.ratioStddev);
              fmt::print("failures       {} no common port, {} no free up port, {} down conflicts\n",
                         stats.noCommonPort, stats.noUpPort, stats.downConflict);
              fmt::print("checked        sample 0: {} circuits on {} channels, conflict-free\n", check.circuits,
                         check.channelsUsed);
              if (args->rounds) {
                fmt::print("rounds         mean {:.2f}  min {}  max {}  (static load lower bound {})\n",
                           j["rounds"]["mean"].get<double>(), j["rounds"]["min"].get<std::size_t>(),
                           j["rounds"]["max"].get<std::size_t>(), j["rounds"]["lower_bound_max"].get<std::size_t>());
              }
              for (const auto& file : files) fmt::print("exported       {}\n", file.first);
              return 0;
            });
          }};
}

}  // namespace routelab::cli
