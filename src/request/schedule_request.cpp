#include "request/schedule_request.h"

#include "schedule/registry.h"
#include "traffic/pattern.h"

namespace routelab {

const OptionSchema& scheduleSchema() {
  static const OptionSchema rows = {
      {"fabric", OptionType::String, "", "fat-tree spec, e.g. ft:l=3,m=4,w=4 (any XGFT)", true},
      {"scheduler",
       OptionType::String,
       "level-wise",
       "level-wise | local-greedy | local-random [:options]",
       false,
       "",
       "",
       false,
       {},
       "Ding et al. SC'06; docs/SCHEDULING.md"},
      {"pattern", OptionType::String, kDingPermutation,
       "permutation (random, Ding §5) or a pattern spec: shift:s=3, all-to-all, ..."},
      {"permutations", OptionType::Integer, "100", "samples (random patterns are redrawn)", false, "1", "1000000"},
      {"seed", OptionType::Integer, "1", "seed of patterns and random port choices", false, "0", "9223372036854775807"},
      {"release-on-fail", OptionType::Flag, "false",
       "a failed request returns its links (default: keeps them, as Ding's hardware)"},
      {"rounds", OptionType::Flag, "false",
       "also schedule in rounds until every request is granted, vs the static load bound"},
  };
  return rows;
}

ScheduleRequest ScheduleRequest::fromOptions(const Options& o) {
  ScheduleRequest r;
  r.options = o;
  r.fabric = o.string("fabric");
  r.scheduler = o.string("scheduler");
  r.pattern = o.string("pattern");
  r.permutations = static_cast<std::size_t>(o.integer("permutations"));
  r.seed = static_cast<std::uint64_t>(o.integer("seed"));
  r.releaseOnFail = o.flag("release-on-fail");
  r.rounds = o.flag("rounds");
  return r;
}

std::string ScheduleRequest::schedulerSpec() const {
  std::string spec = scheduler;
  if (releaseOnFail) spec += (spec.find(':') == std::string::npos ? ":" : ",") + std::string("release-on-fail");
  return spec;
}

ScheduleOutcome runSchedule(const ScheduleRequest& request) {
  ScheduleOutcome out;
  out.config = makeSchedulerConfig(request.schedulerSpec());
  out.fabric = std::make_shared<const Fabric>(loadFabric(request.fabric));
  out.circuits.emplace(out.fabric->network);
  const DemandSource demands(request.pattern, out.fabric->network, request.seed);
  out.pattern = demands.effectiveSpec();
  out.experiment = runScheduleExperiment(
      *out.circuits, out.config, [&demands](Rng& rng, std::vector<SourceDestination>& o) { demands.draw(rng, o); },
      request.permutations, request.seed, request.rounds);
  return out;
}

namespace {
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
}  // namespace

nlohmann::json scheduleResultJson(const ScheduleRequest& request, const ScheduleOutcome& outcome) {
  const ScheduleExperiment& experiment = outcome.experiment;
  const SchedulabilityStats& stats = experiment.stats;
  const Fabric& fabric = *outcome.fabric;
  nlohmann::json j;
  j["spec"] = fabric.spec;
  j["xgft"] = fabric.network.xgft()->params.str();
  j["terminals"] = fabric.network.terminalCount();
  j["scheduler"] = outcome.config.effective;
  j["reference"] = schedulerRegistry().find(outcome.config.name).reference;
  j["pattern"] = outcome.pattern;
  j["seed"] = request.seed;
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
  if (request.rounds) j["rounds"] = roundsJson(experiment);
  return j;
}

}  // namespace routelab
