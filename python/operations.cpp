// routelab Python package — the operations on a fabric and a routing: route, verify, analyze,
// simulate, schedule, compare. Options are the rows of the library's requests (request/request.h:
// the same keys, defaults and ranges as the CLI's flags and a sweep file's keys), validated there.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <fmt/format.h>

#include "analysis/loads.h"
#include "analysis/sampling.h"
#include "analysis/split.h"
#include "analysis/stages.h"
#include "bindings.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "io/output.h"
#include "report/comparison.h"
#include "report/html.h"
#include "request/analyze_request.h"
#include "request/compare_request.h"
#include "request/request.h"
#include "request/route_request.h"
#include "request/schedule_request.h"
#include "request/simulate_request.h"
#include "request/verify_request.h"
#include "schedule/circuits.h"
#include "schedule/experiment.h"
#include "schedule/registry.h"
#include "sim/sim_json.h"
#include "sim/simulator.h"
#include "sweep/point_kinds.h"
#include "sweep/report.h"
#include "sweep/results_store.h"
#include "sweep/runner.h"
#include "sweep/sweep_file.h"
#include "traffic/pattern.h"
#include "verify/verify.h"

namespace routelab::python {

namespace {

/// A request's JSON from keyword arguments (Python spells keys with '_'): every key must be
/// a row of `operation`'s schema other than the `fixed` ones (which the Fabric and Routing
/// objects supply; ValueError naming the key and the known ones otherwise), and its value of
/// the row's type (TypeError otherwise: int for integers, int or float for reals, str, bool
/// for flags). Ranges and choices are checked by the library (request/request.h).
nlohmann::json requestJson(const std::string& operation, const py::kwargs& kwargs, const nlohmann::json& fixed) {
  const OptionSchema& rows = requestSchema(operation);
  nlohmann::json out = fixed;
  for (const auto& [keyObject, value] : kwargs) {
    const std::string key = py::str(keyObject);
    const auto row =
        std::find_if(rows.begin(), rows.end(), [&](const OptionSpec& r) { return snakeKey(r.key) == key; });
    if (row == rows.end() || fixed.contains(row->key)) {
      std::string known;
      for (const OptionSpec& r : rows) {
        if (!fixed.contains(r.key)) known += (known.empty() ? "" : ", ") + snakeKey(r.key);
      }
      throw SpecError(operation + ": unknown option '" + key + "' (known: " + known + ")");
    }
    const bool isBool = py::isinstance<py::bool_>(value);
    const bool isInt = py::isinstance<py::int_>(value) && !isBool;
    const char* wanted = nullptr;
    switch (row->type) {
      case OptionType::Integer:
        if (isInt) {
          int overflow = 0;
          const long long number = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
          if (overflow != 0) {
            throw SpecError(operation + ": " + key + " must lie in " + row->rangeText() + " (got " +
                            std::string(py::str(value)) + ")");
          }
          out[row->key] = static_cast<std::int64_t>(number);
        } else {
          wanted = "an int";
        }
        break;
      case OptionType::Real:
        if (isInt || py::isinstance<py::float_>(value))
          out[row->key] = value.cast<double>();
        else
          wanted = "a number";
        break;
      case OptionType::Flag:
        if (isBool)
          out[row->key] = value.cast<bool>();
        else
          wanted = "a bool";
        break;
      default:
        if (py::isinstance<py::str>(value))
          out[row->key] = value.cast<std::string>();
        else
          wanted = "a str";
    }
    if (wanted != nullptr) {
      throw py::type_error(operation + ": option '" + key + "' must be " + wanted + " (got " +
                           std::string(py::str(value.get_type().attr("__name__"))) + ")");
    }
  }
  return out;
}

/// `message` with the keys of `operation`'s schema spelled as Python does: "--trace-generate"
/// (the CLI's flag, as the requests name options to each other) is "trace_generate", and a
/// message's leading "operation: packet-flits" is "operation: packet_flits". Other words
/// after "--" stay as they are.
std::string pythonSpelling(const std::string& operation, const std::string& message) {
  const OptionSchema& rows = requestSchema(operation);
  const auto isKey = [&](const std::string& word) {
    return std::any_of(rows.begin(), rows.end(), [&](const OptionSpec& r) { return r.key == word; });
  };
  std::string out;
  for (std::size_t i = 0; i < message.size();) {
    if (message.compare(i, 2, "--") == 0) {
      std::size_t end = i + 2;
      while (end < message.size() &&
             (std::islower(static_cast<unsigned char>(message[end])) != 0 ||
              std::isdigit(static_cast<unsigned char>(message[end])) != 0 || message[end] == '-')) {
        ++end;
      }
      const std::string word = message.substr(i + 2, end - i - 2);
      if (isKey(word)) {
        out += snakeKey(word);
        i = end;
        continue;
      }
    }
    out += message[i++];
  }
  for (const OptionSpec& row : rows) {
    const std::string dashed = operation + ": " + row.key + " ";
    if (row.key.find('-') != std::string::npos && out.rfind(dashed, 0) == 0) {
      out = operation + ": " + snakeKey(row.key) + out.substr(dashed.size() - 1);
    }
  }
  return out;
}

/// Runs `parse` (a request's fromJson) with the library's messages spelling keys as Python
/// does ("simulate: packet_flits must lie in [1, 4096] (got 0)", "cycles does not apply to a
/// trace run ...").
template <class Parse>
auto inPythonSpelling(const std::string& operation, Parse&& parse) -> decltype(parse()) {
  try {
    return parse();
  } catch (const SpecError& e) {
    throw SpecError(pythonSpelling(operation, e.what()));
  }
}

/// The log2 of a routing's addresses per terminal (the lmc its engine ran with).
std::uint32_t lmcOf(const PyRouting& r) {
  const std::uint32_t paths = r.routing->addresses.perTerminal();
  std::uint32_t lmc = 0;
  while ((std::uint32_t{1} << lmc) < paths) ++lmc;
  return lmc;
}

/// The request keys a Fabric and a Routing supply.
nlohmann::json fixedKeys(const PyFabric& f, const PyRouting& r) {
  return {{"fabric", f.fabric->spec.empty() ? std::string("python") : f.fabric->spec},
          {"engine", r.routing->engine.empty() ? std::string("python") : r.routing->engine},
          {"lmc", lmcOf(r)}};
}

// ---- route ----

/// `routelab route`'s request (request/route_request.h) on this fabric: the keyword options
/// are its rows (lmc, switch_addresses, seed, no_checks, lid_map), validated by the library.
/// A lid_map gives the routing a copy of the fabric with those LIDs (what its exports use);
/// unless no_checks, the routing carries the checks `routelab route` prints.
PyRouting route(const PyFabric& f, const std::string& engine, const py::kwargs& kwargs) {
  const RouteRequest request = inPythonSpelling("route", [&] {
    return RouteRequest::fromJson(
        requestJson("route", kwargs,
                    {{"fabric", f.fabric->spec.empty() ? std::string("python") : f.fabric->spec}, {"engine", engine}}));
  });
  std::shared_ptr<const Fabric> fabric = f.fabric;
  if (!request.lidMap.empty()) {
    auto withLids = std::make_shared<Fabric>(*f.fabric);
    withLids->lids = routeLidMap(request);
    fabric = std::move(withLids);
  }
  PyRouting out{fabric, nullptr, "", routeEngineRow(request.engine), nullptr};
  out.routing = interruptible([&](const std::atomic<bool>&) {
    return std::make_shared<RoutingResult>(runEngine(request.engine, fabric->network, request.context()));
  });
  out.reference = engineRegistry().find(out.engineName).reference;
  if (!request.noChecks) {
    out.checks = routeChecksJson(
        interruptible([&](const std::atomic<bool>&) { return checkRouting(fabric->network, *out.routing); }));
  }
  return out;
}

// ---- verify ----

/// `routelab verify`'s request (request/verify_request.h) on this fabric and routing: the JSON
/// the CLI prints (connected, loop_free, deadlock_free, the witness cycle, failures, ...).
/// The keys `sl` and `lid_map` (layers from an OpenSM SL file) and `seed` belong to the
/// CLI's routing step: a Routing object has its layers and seed already.
py::dict verify(const PyFabric& f, const PyRouting& r, const py::kwargs& kwargs) {
  nlohmann::json fixed = fixedKeys(f, r);
  fixed["seed"] = 1;
  const VerifyRequest request =
      inPythonSpelling("verify", [&] { return VerifyRequest::fromJson(requestJson("verify", kwargs, fixed)); });
  if (!request.slFile.empty() || !request.lidMap.empty())
    throw SpecError("verify: sl and lid_map apply to the CLI's routing step; give the Routing its layers instead");
  VerifyOptions options;
  options.switchTraffic = request.switchTraffic;
  options.maxExamples = request.examples;
  VerifyOutcome outcome = interruptible([&](const std::atomic<bool>&) {
    return VerifyOutcome{*f.fabric, *r.routing, verifyRouting(f.network(), *r.routing, options)};
  });
  py::dict d = toPython(verifyResultJson(request, outcome)).cast<py::dict>();
  d["cycle_channel_ids"] = [&] {
    std::vector<std::size_t> ids;
    for (ChannelId c : outcome.result.cycle) ids.push_back(c.index());
    return ids;
  }();
  return d;
}

// ---- analyze ----

py::array_t<double> doubles(const std::vector<double>& values) {
  return py::array_t<double>(static_cast<py::ssize_t>(values.size()), values.data());
}

/// `routelab analyze`'s request and result (request/analyze_request.h) on this fabric and
/// routing: the JSON the CLI prints, plus the per-channel values as an array ("loads": the
/// pattern's load or the stage's path count per channel id).
py::dict analyze(const PyFabric& f, const PyRouting& r, const py::kwargs& kwargs) {
  const AnalyzeRequest request = inPythonSpelling(
      "analyze", [&] { return AnalyzeRequest::fromJson(requestJson("analyze", kwargs, fixedKeys(f, r))); });
  const AnalyzeOutcome outcome = inPythonSpelling("analyze", [&] {
    return interruptible([&](const std::atomic<bool>&) { return runAnalyze(request, *f.fabric, *r.routing); });
  });
  py::dict d = toPython(analyzeResultJson(request, outcome)).cast<py::dict>();
  if (outcome.loads) d["loads"] = doubles(outcome.loads->load);
  if (outcome.stages) {
    const auto& paths = outcome.stages->pathsPerChannel;
    d["loads"] = doubles(std::vector<double>(paths.begin(), paths.end()));
  }
  return d;
}

// ---- simulate ----

/// `routelab simulate`'s request (request/simulate_request.h) on this fabric and routing, one
/// run per load of `loads` in order (each on the request's threads: the results do not depend
/// on them), or the run the request names when `loads` is empty (one load, the saturation
/// search, a trace). Ctrl-C stops between two windows of the running simulation. Returns the
/// JSON the CLI prints with, per point, the per-channel utilization and per-source accepted
/// traffic as arrays.
py::dict simulate(const PyFabric& f, const PyRouting& r, const std::vector<double>& loads, const py::kwargs& kwargs) {
  // The loads go to the request as its `loads` option, so that the library checks them
  // (range, and that they exclude saturation and traces) as for the CLI's --loads.
  nlohmann::json fixed = fixedKeys(f, r);
  if (!loads.empty()) {
    std::string list;
    for (double load : loads) list += (list.empty() ? "" : ",") + fmt::format("{}", load);
    fixed["loads"] = list;
  }
  SimulateRequest request =
      inPythonSpelling("simulate", [&] { return SimulateRequest::fromJson(requestJson("simulate", kwargs, fixed)); });
  SimulateOutcome outcome = interruptible([&](const std::atomic<bool>& cancel) {
    if (loads.empty() && request.loads.empty()) {
      return runSimulate(request, *f.fabric, *r.routing, [&](std::size_t, std::size_t) {
        if (cancel) throw Cancelled{};
      });
    }
    SimulateOutcome out{*f.fabric, *r.routing, std::nullopt, {}, 0};
    SimConfig config = request.config;
    config.threads = request.config.inOrder ? 1 : std::max<std::uint32_t>(request.config.threads, 1);
    for (double load : request.loads) {
      config.load = load;
      out.results.push_back(
          routelab::simulate(out.fabric.network, out.routing, config, nullptr, [&](std::uint64_t, std::uint64_t) {
            if (cancel) throw Cancelled{};
          }));
    }
    return out;
  });
  py::dict d = toPython(simulateResultJson(request, outcome)).cast<py::dict>();
  py::list utilization, accepted;
  for (const SimResult& result : outcome.results) {
    utilization.append(doubles(result.channelUtilization));
    accepted.append(doubles(result.sourceAccepted));
  }
  d["channel_utilization"] = utilization;
  d["source_accepted"] = accepted;
  return d;
}

// ---- schedule (Ding §4) ----

/// `routelab schedule`'s request (request/schedule_request.h) on the fabric `spec`: the JSON
/// the CLI prints, with the per-permutation ratios.
py::dict schedule(const std::string& spec, const py::kwargs& kwargs) {
  const ScheduleRequest request = inPythonSpelling("schedule", [&] {
    return ScheduleRequest::fromJson(requestJson("schedule", kwargs, {{"fabric", spec}}));
  });
  const ScheduleOutcome outcome = interruptible([&](const std::atomic<bool>&) { return runSchedule(request); });
  py::dict d = toPython(scheduleResultJson(request, outcome)).cast<py::dict>();
  d["ratios"] = outcome.experiment.stats.ratios;
  return d;
}

// ---- compare (docs/COMPARE.md) ----

/// `routelab compare`'s request (request/compare_request.h) on the fabric `spec` from the
/// keyword arguments, validated (ValueError naming the key, TypeError for a wrong type).
CompareRequest compareRequest(const std::string& spec, const py::kwargs& kwargs) {
  return inPythonSpelling("compare", [&] {
    return CompareRequest::fromJson(requestJson("compare", kwargs, {{"fabric", spec}}));
  });
}

/// Runs `routelab compare`'s request on the fabric `spec`, with `routings` (built in Python)
/// ranked beside the engines', and writes its HTML report (without the gnuplot figures, which
/// the CLI renders) and compare.json to `output`; returns the decision's JSON text (what
/// `routelab compare --format json` prints). The options are checked before anything is
/// written.
std::string compare(const std::string& spec, const std::vector<std::pair<std::string, PyRouting>>& routings,
                    const std::string& output, const py::kwargs& kwargs) {
  const CompareRequest request = compareRequest(spec, kwargs);
  CallerRoutings callerRoutings;
  for (const auto& [name, routing] : routings) callerRoutings.emplace_back(name, routing.routing);
  Comparison comparison = interruptible([&](const std::atomic<bool>&) { return runCompare(request, callerRoutings); });
  comparison.commandLine = "routelab.compare (Python)";
  comparison.version = "routelab " + routelabVersion() + " (Python package)";
  const std::string json = compareResultJson(comparison);
  std::filesystem::create_directories(output);
  writeFileAtomically((std::filesystem::path(output) / "compare.json").string(),
                      [&](std::ostream& out) { out << json; });
  writeFileAtomically((std::filesystem::path(output) / "index.html").string(),
                      [&](std::ostream& out) { writeHtmlReport(comparison, out); });
  return json;
}

/// The rows of `operation`'s request as Python sees them: snake-case key -> (type, default
/// or None, minimum or None, maximum or None, choices, help, reference).
py::dict optionRows(const std::string& operation) {
  py::dict rows;
  for (const OptionSpec& row : requestSchema(operation)) {
    static const char* const kTypes[] = {"int", "float", "str", "bool", "list"};
    const auto text = [](const std::string& v) { return v.empty() ? py::object(py::none()) : py::object(py::str(v)); };
    py::object defaultValue = py::none();
    if (!row.defaultValue.empty()) defaultValue = toPython(optionValueJson(row, row.defaultValue));
    rows[py::str(snakeKey(row.key))] =
        py::make_tuple(kTypes[static_cast<int>(row.type)], defaultValue, text(row.minimum), text(row.maximum),
                       row.choices, row.help, row.reference, row.required);
  }
  return rows;
}

// ---- sweep (docs/SWEEPS.md) ----

/// Runs the points of the sweep file `file` not yet in `results` (resumable, as `routelab
/// sweep`), storing each as it ends; Ctrl-C lets the running points end and starts no other.
/// Returns (points in all, computed now, failed now, left).
py::tuple sweep(const std::string& file, const std::string& results, unsigned jobs, int threads) {
  const Sweep sweepFile = readSweepFile(file);
  ResultStore store = ResultStore::openForSweep(results, sweepFile);
  const std::vector<const SweepPoint*> pending = pendingPoints(sweepFile, store.finishedKeys());
  const RunSummary summary = interruptible([&](const std::atomic<bool>& cancel) {
    RunOptions options;
    options.jobs = jobs;
    options.threadsPerPoint = threads;
    options.stop = &cancel;
    return runPoints(pending, options, [&](const PointResult& r) { store.insert(r); });
  });
  return py::make_tuple(sweepFile.points.size(), summary.computed, summary.failed, pending.size() - summary.computed);
}

/// A results file as `routelab results --format json --no-timings` writes it.
py::object readResults(const std::string& results) {
  const ResultStore store = ResultStore::openExisting(results);
  return toPython(resultsJson(store.header(), store.results(), false));
}

}  // namespace

void bindOperations(py::module_& m) {
  m.def("route", &route, py::arg("fabric"), py::arg("engine"));
  m.def("verify", &verify, py::arg("fabric"), py::arg("routing"));
  m.def("analyze", &analyze, py::arg("fabric"), py::arg("routing"));
  m.def("simulate", &simulate, py::arg("fabric"), py::arg("routing"), py::arg("loads"));
  m.def("schedule", &schedule, py::arg("spec"));
  m.def("compare", &compare, py::arg("spec"), py::arg("routings"), py::arg("output"));
  m.def(
      "compare_request",
      [](const std::string& spec, const py::kwargs& kwargs) { return toPython(compareRequest(spec, kwargs).toJson()); },
      py::arg("spec"), "compare's request from keyword options, validated: its JSON (every key, defaults included).");
  m.def("option_rows", &optionRows, py::arg("operation"),
        "The rows of an operation's request: key -> (type, default, minimum, maximum, choices, help, reference, "
        "required).");
  m.def("sweep", &sweep, py::arg("file"), py::arg("results"), py::arg("jobs"), py::arg("threads"));
  m.def("read_results", &readResults, py::arg("results"));
  m.def("operations", &requestOperations, "The operations that have a request schema.");
}

}  // namespace routelab::python
