// routelab/sim/sim_json.cpp — names of the simulator's choices, the JSON of a result.
#include "sim/sim_json.h"

#include <fmt/format.h>

#include <map>

#include "core/errors.h"
#include "sim/arbitration/registry.h"
#include "sim/selection/registry.h"

namespace routelab {

namespace {

template <typename T>
T byName(const std::string& name, const std::map<std::string, T>& names, const std::string& what) {
  const auto it = names.find(name);
  if (it != names.end()) return it->second;
  std::string known;
  for (const auto& entry : names) known += (known.empty() ? "" : ", ") + entry.first;
  throw SpecError(fmt::format("{}: unknown value '{}' ({})", what, name, known));
}

}  // namespace

Selection parseSelection(const std::string& name, const std::string& what) {
  std::map<std::string, Selection> names;
  for (const auto& row : sim::selectionRegistry().rows()) names.emplace(row.name, row.factory);
  return byName<Selection>(name, names, what);
}

Arbitration parseArbitration(const std::string& name, const std::string& what) {
  std::map<std::string, Arbitration> names;
  for (const auto& row : sim::arbitrationRegistry().rows()) names.emplace(row.name, row.factory);
  return byName<Arbitration>(name, names, what);
}

PathPolicy parsePathPolicy(const std::string& name, const std::string& what) {
  return byName<PathPolicy>(
      name,
      {{"random", PathPolicy::Random}, {"round-robin", PathPolicy::RoundRobin}, {"adaptive", PathPolicy::Adaptive}},
      what);
}

Injection parseInjection(const std::string& name, const std::string& what) {
  return byName<Injection>(name, {{"bernoulli", Injection::Bernoulli}, {"poisson", Injection::Poisson}}, what);
}

nlohmann::json simResultJson(const SimResult& r) {
  nlohmann::json j;
  j["offered"] = r.offered;
  j["accepted"] = r.accepted;
  j["latency_avg"] = r.latencyAvg;
  j["latency_p50"] = r.latencyP50;
  j["latency_p99"] = r.latencyP99;
  j["latency_max"] = r.latencyMax;
  j["total_latency_avg"] = r.totalLatencyAvg;
  j["total_latency_p99"] = r.totalLatencyP99;
  j["reorder_delay_avg"] = r.reorderDelayAvg;
  j["packets_generated"] = r.packetsGenerated;
  j["packets_injected"] = r.packetsInjected;
  j["packets_delivered"] = r.packetsDelivered;
  j["measured_packets"] = r.measuredPackets;
  j["measured_delivered"] = r.measuredDelivered;
  j["out_of_order"] = r.outOfOrder;
  j["max_reorder_occupancy"] = r.maxReorderOccupancy;
  j["average_hops"] = r.averageHops;
  j["simulated_cycles"] = r.cycles;
  j["warmup_cycles"] = r.warmupCycles;
  j["measure_cycles"] = r.measureCycles;
  j["last_delivery"] = r.lastDelivery;
  j["sources"] = r.sources;
  j["source_accepted_min"] = r.sourceAcceptedMin;
  j["source_accepted_max"] = r.sourceAcceptedMax;
  j["source_fairness"] = r.sourceFairness;
  j["warmup_settled"] = r.warmupSettled;
  j["saturated"] = r.saturated;
  j["deadlock"] = r.deadlock;
  if (r.deadlock) {
    j["deadlock_cycle"] = r.deadlockReport.cycle;
    j["deadlock_last_move"] = r.deadlockReport.lastMove;
    j["deadlock_channels"] = r.deadlockReport.channels;
    j["deadlock_packets"] = r.deadlockReport.packets;
  }
  return j;
}

}  // namespace routelab
