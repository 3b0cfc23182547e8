// routelab Python package — the operations on a fabric and a routing: verify, analyze,
// simulate. Options are the keys of the library's configuration rows (sweep/point_kinds.h:
// the same keys, defaults and ranges as a sweep file's points), validated by the library.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <filesystem>

#include "analysis/loads.h"
#include "analysis/sampling.h"
#include "analysis/split.h"
#include "analysis/stages.h"
#include "bindings.h"
#include "core/errors.h"
#include "io/output.h"
#include "report/comparison.h"
#include "report/html.h"
#include "schedule/circuits.h"
#include "schedule/experiment.h"
#include "schedule/registry.h"
#include "sim/sim_json.h"
#include "sim/simulator.h"
#include "sweep/point_kinds.h"
#include "traffic/pattern.h"
#include "verify/verify.h"

namespace routelab::python {

namespace {

/// A point kind's configuration from keyword arguments: its defaults, then the given keys
/// (those of `kind` but `excluded`, which the Fabric and Routing objects supply), checked by
/// the kind's normalize() (SpecError naming the key and range).
nlohmann::json configuration(const std::string& kind, const py::kwargs& kwargs,
                             const std::vector<std::string>& excluded, const std::vector<std::string>& extra = {}) {
  const PointKind& row = findPointKind(kind);
  std::vector<std::string> known = extra;
  nlohmann::json config = nlohmann::json::object();
  config["kind"] = kind;
  for (const PointKey& key : row.keys) {
    config[key.name] = key.defaultValue.is_null() ? nlohmann::json("python") : key.defaultValue;
    if (std::find(excluded.begin(), excluded.end(), key.name) == excluded.end()) known.push_back(key.name);
  }
  const nlohmann::json given = optionsToJson(kwargs, known, kind);
  for (const auto& [key, value] : given.items()) {
    if (std::find(extra.begin(), extra.end(), key) != extra.end()) continue;
    const PointKey& declared =
        *std::find_if(row.keys.begin(), row.keys.end(), [&](const PointKey& k) { return k.name == key; });
    const bool number = value.is_number();
    if ((declared.type == KeyType::String && !value.is_string()) || (declared.type != KeyType::String && !number) ||
        (declared.type == KeyType::Integer && !value.is_number_integer())) {
      throw py::type_error(kind + ": option '" + key + "' must be " +
                           (declared.type == KeyType::String    ? "a str"
                            : declared.type == KeyType::Integer ? "an int"
                                                                : "a number"));
    }
    config[key] = value;
  }
  row.normalize(config);
  return config;
}

// ---- verify ----

py::dict failureDict(const VerifyFailure& f) {
  py::dict d;
  d["source"] = f.source;
  d["destination"] = f.destination;
  d["layer"] = f.layer;
  d["status"] = f.status;
  d["stopped_at"] = f.where.empty() ? py::object(py::none()) : py::object(py::str(f.where));
  return d;
}

py::dict verify(const PyFabric& f, const PyRouting& r, bool switchTraffic, std::size_t examples) {
  VerifyOptions options;
  options.switchTraffic = switchTraffic;
  options.maxExamples = examples;
  const VerifyResult v =
      interruptible([&](const std::atomic<bool>&) { return verifyRouting(f.network(), *r.routing, options); });
  py::dict d;
  d["engine"] = v.engine;
  d["connected"] = v.connected;
  d["loop_free"] = v.loopFree;
  d["deadlock_free"] = v.deadlockFree;
  d["passed"] = v.passed();
  d["layers"] = v.layers;
  d["layers_used"] = v.layersUsed;
  d["method"] = v.method;
  d["dependencies"] = v.dependencies;
  d["cyclic_layers"] = v.cyclicLayers;
  d["cycle_layer"] = v.cycleLayer ? py::object(py::int_(*v.cycleLayer)) : py::none();
  d["cycle"] = v.cycleLayer ? py::object(py::cast(v.cycleChannels)) : py::none();
  std::vector<std::size_t> ids;
  for (ChannelId c : v.cycle) ids.push_back(c.index());
  d["cycle_channel_ids"] = ids;
  d["routes"] = v.routes;
  d["delivered"] = v.delivered;
  d["no_route"] = v.noRoute;
  d["loops"] = v.loops;
  py::list failures;
  for (const auto& failure : v.failures) failures.append(failureDict(failure));
  d["failures"] = failures;
  return d;
}

// ---- analyze ----

py::array_t<double> doubles(const std::vector<double>& values) {
  return py::array_t<double>(values.size(), values.data());
}

// Long function: one branch per metric, each the calls of the CLI's (apps/routelab/cmd_analyze.cpp).
py::dict analyze(const PyFabric& f, const PyRouting& r, const py::kwargs& kwargs) {
  nlohmann::json config = configuration("analyze", kwargs, {"fabric", "engine", "lmc"}, {"threads"});
  const int threads = kwargs.contains("threads") ? kwargs["threads"].cast<int>() : 0;
  if (threads < 0) throw SpecError("threads must be in 0.. (0 = every core; got " + std::to_string(threads) + ")");
  const Network& network = f.network();
  const RoutingResult& routing = *r.routing;
  const std::string metric = config["metric"].get<std::string>();
  const LoadModel model =
      config.contains("load_model") ? parseLoadModel(config["load_model"].get<std::string>()) : LoadModel::FirstPath;
  py::dict d;
  d["metric"] = metric;
  d["load_model"] = config.contains("load_model") ? py::object(py::str(loadModelName(model))) : py::none();
  d["single_path"] = isSinglePath(network, routing);
  auto terminal = [&](std::uint32_t t) { return network.name(network.terminalNode(t)); };
  if (metric == "worst") {
    const SplitWorstCase w = interruptible([&](const std::atomic<bool>&) {
      return worstUnderModel(network, routing, model, threads, bestSplitOf(config));
    });
    d["value"] = w.value;
    d["lower_bound"] = w.lower;
    d["channel"] = w.channel.valid() ? py::object(py::int_(w.channel.index())) : py::none();
    py::list witness;
    for (const auto& pair : w.witness)
      witness.append(py::make_tuple(terminal(pair.source), terminal(pair.destination)));
    d["witness"] = witness;
    d["channels_solved"] = w.channelsSolved;
  } else if (metric == "pattern") {
    const TrafficPattern pattern =
        makePattern(config["pattern"].get<std::string>(), network, config["seed"].get<std::uint64_t>());
    BestSplitOptions best = bestSplitOf(config);
    const LinkLoads loads =
        interruptible([&](const std::atomic<bool>&) { return patternLoads(network, routing, pattern, model, best); });
    d["value"] = loads.maxLoad;
    d["lower_bound"] = loads.lowerBound;
    d["pattern"] = pattern.spec;
    d["pairs"] = loads.pairs;
    d["channel"] = loads.maxChannel.valid() ? py::object(py::int_(loads.maxChannel.index())) : py::none();
    d["channels_at_max"] = loads.channelsAtMax;
    d["loads"] = doubles(loads.load);
  } else if (metric == "stages") {
    const StagePathCounts counts =
        interruptible([&](const std::atomic<bool>&) { return stagePathCounts(network, routing, threads); });
    std::uint64_t maxPaths = 0;
    py::list stages;
    for (const StageCount& s : counts.stages) {
      maxPaths = std::max(maxPaths, s.maxPaths);
      py::dict row;
      row["lower_level"] = s.lowerLevel;
      row["direction"] = s.ascending ? "up" : "down";
      row["channels"] = s.channels;
      row["min_paths"] = s.minPaths;
      row["max_paths"] = s.maxPaths;
      row["mean_paths"] = s.meanPaths;
      stages.append(row);
    }
    d["value"] = maxPaths;
    d["stages"] = stages;
    d["loads"] = doubles(std::vector<double>(counts.pathsPerChannel.begin(), counts.pathsPerChannel.end()));
  } else {
    const SampledPattern pattern = metric == "abb"    ? SampledPattern::Bisect
                                   : metric == "afpb" ? SampledPattern::FullPermutation
                                                      : SampledPattern::Dissemination;
    SamplingOptions options;
    options.seed = config["seed"].get<std::uint64_t>();
    options.precision = config["precision"].get<double>();
    options.maxSamples = config["max_samples"].get<std::uint64_t>();
    options.threads = threads;
    const SampledBandwidth s = interruptible([&](const std::atomic<bool>&) {
      return sampleBandwidthUnderModel(network, routing, pattern, model, options, bestSplitOf(config));
    });
    d["value"] = s.mean;
    d["ci99_half_width"] = s.ci99HalfWidth;
    d["samples"] = s.samples;
    d["converged"] = s.converged;
    d["mean_max_load"] = s.meanMaxLoad;
    d["exact"] = s.exact;
    d["bandwidth_upper_bound"] = s.bandwidthUpperBound;
  }
  return d;
}

// ---- simulate ----

/// One simulation per load, in load order (each on `threads` threads: the results do not
/// depend on it); Ctrl-C stops between two windows of the running point.
py::list simulate(const PyFabric& f, const PyRouting& r, const std::vector<double>& loads, const py::kwargs& kwargs) {
  nlohmann::json config = configuration("simulate", kwargs, {"fabric", "engine", "lmc", "load"}, {"threads"});
  const int threads = kwargs.contains("threads") ? kwargs["threads"].cast<int>() : 1;
  if (threads < 1 || threads > 1024)
    throw SpecError("threads must be in 1..1024 (got " + std::to_string(threads) + ")");
  if (loads.empty()) throw SpecError("loads: at least one offered load");
  std::vector<SimConfig> configs;
  for (double load : loads) {
    config["load"] = load;
    findPointKind("simulate").normalize(config);
    configs.push_back(simConfigOf(config));
    configs.back().threads = configs.back().inOrder ? 1 : static_cast<std::uint32_t>(threads);
  }
  py::list points;
  for (const SimConfig& point : configs) {
    SimResult result = interruptible([&](const std::atomic<bool>& cancel) {
      return routelab::simulate(f.network(), *r.routing, point, nullptr, [&](std::uint64_t, std::uint64_t) {
        if (cancel) throw Cancelled{};
      });
    });
    py::dict p = toPython(simResultJson(result)).cast<py::dict>();
    p["load"] = point.load;
    p["vcs_used"] = result.vcs;
    p["channel_utilization"] = doubles(result.channelUtilization);
    p["source_accepted"] = doubles(result.sourceAccepted);
    points.append(p);
  }
  return points;
}

// ---- schedule (Ding §4) ----

py::dict schedule(const PyFabric& f, const std::string& scheduler, const std::string& pattern, std::size_t permutations,
                  std::uint64_t seed, bool rounds) {
  if (permutations < 1) throw SpecError("permutations must be at least 1");
  const SchedulerConfig config = makeSchedulerConfig(scheduler);
  const CircuitFabric circuits(f.network());
  const DemandSource demands(pattern, f.network(), seed);
  const ScheduleExperiment e = interruptible([&](const std::atomic<bool>&) {
    return runScheduleExperiment(
        circuits, config, [&demands](Rng& rng, std::vector<SourceDestination>& out) { demands.draw(rng, out); },
        permutations, seed, rounds);
  });
  const SchedulabilityStats& s = e.stats;
  py::dict d;
  d["scheduler"] = config.effective;
  d["reference"] = schedulerRegistry().find(config.name).reference;
  d["pattern"] = demands.effectiveSpec();
  d["seed"] = seed;
  d["permutations"] = s.samples;
  d["requests"] = static_cast<double>(s.requests) / static_cast<double>(s.samples);
  d["granted"] = s.granted;
  d["ratio_mean"] = s.ratioMean;
  d["ratio_min"] = s.ratioMin;
  d["ratio_max"] = s.ratioMax;
  d["ratio_stddev"] = s.ratioStddev;
  d["ratios"] = s.ratios;
  d["no_common_port"] = s.noCommonPort;
  d["no_up_port"] = s.noUpPort;
  d["down_conflict"] = s.downConflict;
  if (rounds) {
    d["rounds_mean"] = e.roundsSummary.mean;
    d["rounds_min"] = e.roundsSummary.min;
    d["rounds_max"] = e.roundsSummary.max;
    d["rounds_lower_bound_max"] = e.roundsSummary.lowerBoundMax;
  }
  return d;
}

// ---- compare (docs/COMPARE.md) ----

/// Runs `routelab compare`'s decision on the fabric `spec` and writes its HTML report (without
/// the gnuplot figures, which the CLI renders) and compare.json to `output`; returns the
/// comparison's JSON text.
std::string compare(const std::string& spec, const std::vector<std::string>& engines, std::uint32_t vls,
                    bool adaptiveSwitches, bool inOrder, bool simulateLeaders, std::uint64_t seed,
                    const std::string& output) {
  CompareOptions options;
  options.spec = spec;
  options.engines = engines;
  options.seed = seed;
  options.simulate = simulateLeaders;
  options.constraints.vls = vls;
  options.constraints.adaptiveSwitches = adaptiveSwitches;
  options.constraints.inOrder = inOrder;
  if (vls < 1 || vls > FabricConstraints::kMaxVls)
    throw SpecError("vls must be in 1.." + std::to_string(FabricConstraints::kMaxVls) + " (got " + std::to_string(vls) +
                    ")");
  Comparison comparison = interruptible([&](const std::atomic<bool>&) { return compareEngines(options); });
  comparison.commandLine = "routelab.compare (Python)";
  comparison.version = "routelab " + routelabVersion() + " (Python package)";
  const std::string json = comparisonJson(comparison);
  std::filesystem::create_directories(output);
  writeFileAtomically((std::filesystem::path(output) / "compare.json").string(),
                      [&](std::ostream& out) { out << json; });
  writeFileAtomically((std::filesystem::path(output) / "index.html").string(),
                      [&](std::ostream& out) { writeHtmlReport(comparison, out); });
  return json;
}

py::dict optionRows(const std::string& kind) {
  py::dict rows;
  for (const PointKey& key : findPointKind(kind).keys) {
    rows[py::str(key.name)] = py::make_tuple(toPython(key.defaultValue), key.help);
  }
  return rows;
}

}  // namespace

void bindOperations(py::module_& m) {
  m.def("verify", &verify, py::arg("fabric"), py::arg("routing"), py::arg("switch_traffic") = false,
        py::arg("examples") = 10);
  m.def("analyze", &analyze, py::arg("fabric"), py::arg("routing"));
  m.def("simulate", &simulate, py::arg("fabric"), py::arg("routing"), py::arg("loads"));
  m.def("schedule", &schedule, py::arg("fabric"), py::arg("scheduler"), py::arg("pattern"), py::arg("permutations"),
        py::arg("seed"), py::arg("rounds"));
  m.def("compare", &compare, py::arg("spec"), py::arg("engines"), py::arg("vls"), py::arg("adaptive_switches"),
        py::arg("in_order"), py::arg("simulate"), py::arg("seed"), py::arg("output"));
  m.def("option_rows", &optionRows, py::arg("kind"),
        "The keys of an operation (analyze, simulate): name -> (default, help).");
}

}  // namespace routelab::python
