// The comparison as JSON (report/comparison.h comparisonJson; docs/COMPARE.md "JSON").
#include <nlohmann/json.hpp>

#include "report/comparison.h"

namespace routelab {

namespace {

/// The names of the caller's routings (CompareOptions::routings).
std::vector<std::string> callerRoutingNames(const CompareOptions& o) {
  std::vector<std::string> names;
  for (const auto& routing : o.routings) names.push_back(routing.first);
  return names;
}

using Json = nlohmann::ordered_json;

Json bandwidthJson(const ModelMetrics::Bandwidth& b) {
  return {{"mean", b.mean},
          {"ci99", b.ci99},
          {"samples", b.samples},
          {"converged", b.converged},
          {"upper_bound", b.upperBound}};
}

Json modelJson(const ModelMetrics& m) {
  return {{"model", loadModelName(m.model)},  {"worst", m.worst},
          {"worst_lower", m.worstLower},      {"abb", bandwidthJson(m.abb)},
          {"afpb", bandwidthJson(m.afpb)},    {"adb", bandwidthJson(m.adb)},
          {"shift_max_load", m.shiftMaxLoad}, {"shift_mean_bandwidth", m.shiftMeanBandwidth}};
}

Json deploymentJson(const DeploymentProfile& d) {
  return {{"kind", d.kind},
          {"switch_model", d.switchModel == SwitchModel::Lft ? "lft" : "adaptive"},
          {"escape", d.escape},
          {"tables", d.tables},
          {"addresses_per_terminal", d.addressesPerTerminal},
          {"lmc", d.lmc},
          {"paths_per_pair", d.pathsPerPair},
          {"source_classes", d.sourceClasses},
          {"max_candidates", d.maxCandidates},
          {"vls", d.vls},
          {"per_pair_sl", d.perPairSl},
          {"lids", d.lids},
          {"entries_per_switch", d.entriesPerSwitch},
          {"in_order", d.inOrder},
          {"deploy", d.deploy}};
}

Json dynamicJson(const DynamicEvidence& d) {
  Json patterns = Json::array();
  for (const SimulatedPattern& p : d.patterns) {
    Json points = Json::array();
    for (const SimulatedPattern::Point& q : p.points) {
      points.push_back({{"load", q.load},
                        {"offered", q.offered},
                        {"accepted", q.accepted},
                        {"latency", q.latency},
                        {"saturated", q.saturated}});
    }
    patterns.push_back({{"traffic", p.traffic},
                        {"saturation_load", p.saturationLoad},
                        {"saturation_accepted", p.saturationAccepted},
                        {"reference_load", p.referenceLoad},
                        {"latency_at_50", p.latencyAt50},
                        {"accepted_at_50", p.acceptedAt50},
                        {"latency_at_80", p.latencyAt80},
                        {"accepted_at_80", p.acceptedAt80},
                        {"fairness_at_80", p.fairnessAt80},
                        {"worst_source_at_80", p.worstSourceAt80},
                        {"points", points}});
  }
  return {{"why", d.why}, {"in_order", d.inOrder}, {"mean_saturation", d.meanSaturation}, {"patterns", patterns}};
}

Json engineJson(const EngineComparison& e, std::size_t rank) {
  Json j = {{"rank", rank},
            {"name", e.name},
            {"origin", e.origin},
            {"effective", e.effective},
            {"refused", e.refused},
            {"reason", e.reason},
            {"not_run", e.notRun},
            {"skipped", e.skipped},
            {"connected", e.connected},
            {"loop_free", e.loopFree},
            {"deadlock_free", e.deadlockFree},
            {"passed", e.passed()},
            {"layers", e.layers},
            {"layers_used", e.layersUsed},
            {"method", e.method},
            {"mean_hops", e.meanHops},
            {"group", e.group},
            {"deployable", e.deployable()},
            {"not_deployable", e.notDeployable},
            {"opensm_options", e.opensmOptions},
            {"tables_fingerprint", e.tablesFingerprint},
            {"notes", e.notes}};
  if (!e.refused && !e.notRun) j["deployment"] = deploymentJson(e.deployment);
  Json models = Json::array();
  for (const ModelMetrics& m : e.models) models.push_back(modelJson(m));
  j["models"] = models;
  if (e.dynamic.simulated()) j["simulation"] = dynamicJson(e.dynamic);
  Json timings = Json::object();
  for (const StageTiming& t : e.timings) timings[t.stage] = t.seconds;
  for (const StageTiming& t : e.dynamic.timings) timings[t.stage] = t.seconds;
  j["timings"] = timings;
  return j;
}

}  // namespace

std::string comparisonJson(const Comparison& c) {
  const CompareOptions& o = c.options;
  Json configuration = {{"fabric", c.fabricSpec},
                        {"engines", o.engines},
                        {"seed", o.seed},
                        {"precision", o.precision},
                        {"max_samples", o.maxSamples},
                        {"max_shifts", o.maxShifts},
                        {"detail_terminals", o.detailTerminals},
                        {"max_addresses_per_terminal", o.maxAddressesPerTerminal},
                        {"generic_engine_switches", o.genericEngineSwitches},
                        {"opensm_dir", o.opensmDirectory},
                        {"routings", callerRoutingNames(o)},
                        {"vls", o.constraints.vls},
                        {"adaptive_switches", o.constraints.adaptiveSwitches},
                        {"in_order", o.constraints.inOrder},
                        {"simulate", o.simulate},
                        {"simulate_always", o.simulateAlways},
                        {"simulate_terminals", o.simulateTerminals},
                        {"simulate_leaders", o.simulateLeaders},
                        {"simulate_cycles", o.simulateCycles},
                        {"simulate_steps", o.simulateSteps},
                        {"simulate_patterns", evidencePatterns(c.terminals)},
                        {"command_line", c.commandLine},
                        {"version", c.version}};
  Json relaxations = Json::array();
  for (const Relaxation& r : c.verdict.relaxations) {
    Json row = {
        {"constraint", r.constraint}, {"engine", r.engine}, {"abb_change", r.abbChange}, {"simulated", r.simulated}};
    if (r.simulated) row["saturation_change"] = r.saturationChange;
    relaxations.push_back(row);
  }
  Json verdict = {{"recommended", c.verdict.recommended},
                  {"static_leader", c.verdict.staticLeader},
                  {"dynamic_leader", c.verdict.dynamicLeader},
                  {"disagree", c.verdict.disagree},
                  {"costlier_alternative", c.verdict.costlierAlternative},
                  {"equals", c.verdict.equals},
                  {"why", c.verdict.why},
                  {"relaxations", relaxations},
                  {"text", recommendation(c)},
                  {"simulation_resolution", c.simulationResolution}};
  Json engines = Json::array();
  for (std::size_t i = 0; i < c.engines.size(); ++i) engines.push_back(engineJson(c.engines[i], i + 1));
  Json out = {{"configuration", configuration},
              {"fabric",
               {{"spec", c.fabricSpec},
                {"terminals", c.terminals},
                {"switches", c.switches},
                {"channels", c.channels},
                {"fat_tree", c.fatTree}}},
              {"verdict", verdict},
              {"engines", engines},
              {"total_seconds", c.totalSeconds}};
  return out.dump(2) + "\n";
}

}  // namespace routelab
