// routelab/request/schedule_request.h — the `schedule` request (request/request.h): circuit
// scheduling on a fat-tree (Ding et al., SC'06; schedule/, docs/SCHEDULING.md): a scheduler,
// a demand pattern drawn `permutations` times, optionally multi-round scheduling.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/options.h"
#include "fabric/fabric.h"
#include "request/request.h"
#include "schedule/circuit_fabric.h"
#include "schedule/experiment.h"
#include "schedule/scheduler.h"

namespace routelab {

/// fabric, scheduler, pattern, permutations, seed, release-on-fail, rounds.
const OptionSchema& scheduleSchema();

struct ScheduleRequest {
  Options options;  ///< validated against scheduleSchema(); what toJson() writes
  std::string fabric;
  std::string scheduler;  ///< the scheduler spec as given (release-on-fail not yet added)
  std::string pattern;
  std::size_t permutations = 100;
  std::uint64_t seed = 1;
  bool releaseOnFail = false;
  bool rounds = false;

  static ScheduleRequest fromOptions(const Options& options);
  static ScheduleRequest fromValues(const KeyValues& values) { return fromOptions(requestOptions("schedule", values)); }
  static ScheduleRequest fromJson(const nlohmann::json& json) { return fromOptions(optionsFromJson("schedule", json)); }
  nlohmann::json toJson() const { return optionsToJson(options); }
  /// The scheduler spec with release-on-fail added as its option.
  std::string schedulerSpec() const;
};

struct ScheduleOutcome {
  std::shared_ptr<const Fabric> fabric;  ///< where `circuits` points: shared, so the outcome moves
  std::optional<CircuitFabric> circuits;
  SchedulerConfig config;
  std::string pattern;  ///< the pattern's effective spec
  ScheduleExperiment experiment;
};

/// Resolves the scheduler (SpecError for an unknown one, before the fabric is loaded), loads
/// the fabric (UnsupportedTopology without XGFT labels) and runs the experiment.
ScheduleOutcome runSchedule(const ScheduleRequest& request);

/// The JSON `routelab schedule --format json` prints (docs/SCHEDULING.md), without the
/// CLI's `exported` list.
nlohmann::json scheduleResultJson(const ScheduleRequest& request, const ScheduleOutcome& outcome);

}  // namespace routelab
