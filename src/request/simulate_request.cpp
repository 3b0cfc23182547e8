#include "request/simulate_request.h"

#include <algorithm>

#include "core/errors.h"
#include "engines/registry.h"
#include "sim/sim_json.h"
#include "sim/sim_options.h"

namespace routelab {

const OptionSchema& simulateSchema() {
  static const OptionSchema rows = [] {
    OptionSchema out = {
        {"fabric", OptionType::String, "", "fabric spec (see `routelab list`)", true},
        {"engine", OptionType::String, "", "routing engine spec", true},
    };
    for (const OptionSpec& row : simConfigRows()) out.push_back(row);
    const OptionSchema more = {
        {"lmc", OptionType::Integer, "0", "addresses per terminal = 2^lmc (multipath engines)", false, "0", "7"},
        {"threads", OptionType::Integer, "",
         "loads: points in parallel (0 = every core, the default); one simulation (load, saturation, trace): its "
         "switches split over N threads, same result (default 1; 0 = every core)",
         false, "0", "4096"},
        {"loads", OptionType::String, "",
         "FROM:TO:STEP or a ','-separated list: a latency-throughput curve, points in parallel"},
        {"saturation", OptionType::Flag, "false", "find the saturation throughput (bisection on the load)"},
        {"trace",
         OptionType::String,
         "",
         "trace CSV (time,source,destination,bytes)",
         false,
         "",
         "",
         false,
         {},
         "docs/FORMATS.md \"Simulation traces\""},
        {"trace-generate",
         OptionType::String,
         "",
         "synthetic trace: io:storage=23,clients=105,...",
         false,
         "",
         "",
         false,
         {},
         "docs/SIMULATION.md"},
        {"compression", OptionType::Real, "1", "trace time compression factor", false, "0", "", true},
        {"payload", OptionType::Integer, "1024", "trace packet payload in bytes", false, "1", "1073741824"},
    };
    out.insert(out.end(), more.begin(), more.end());
    return out;
  }();
  return rows;
}

const std::vector<std::string>& simulateRunModeKeys() {
  static const std::vector<std::string> keys = {"loads",       "saturation", "trace",   "trace-generate",
                                                "compression", "payload",    "threads", "check"};
  return keys;
}

namespace {
std::vector<double> parseLoads(const std::string& text) {
  if (text.find(':') != std::string::npos) return parseLoadRange(text);
  std::vector<double> loads;
  for (const std::string_view field : splitFields(text, ',')) {
    const double load = parseReal(field, "simulate: loads");
    if (!(load > 0 && load <= 1)) throw SpecError(fmt::format("simulate: load must lie in (0, 1] (got {})", load));
    loads.push_back(load);
  }
  return loads;
}
}  // namespace

SimulateRequest SimulateRequest::fromOptions(const Options& o) {
  SimulateRequest r;
  r.options = o;
  r.fabric = o.string("fabric");
  r.engine = o.string("engine");
  r.config = simConfigFromOptions(o);
  r.lmc = static_cast<std::uint32_t>(o.integer("lmc"));
  if (o.has("threads")) r.threads = static_cast<int>(o.integer("threads"));
  r.saturation = o.flag("saturation");
  if (o.has("trace")) r.traceFile = o.string("trace");
  if (o.has("trace-generate")) r.traceGenerate = o.string("trace-generate");
  r.compression = o.real("compression");
  r.payload = static_cast<std::uint32_t>(o.integer("payload"));
  const int modes = int(o.has("loads")) + int(r.saturation) + int(r.usesTrace());
  if (modes > 1) throw SpecError("--loads, --saturation and --trace/--trace-generate exclude each other");
  if (!r.traceFile.empty() && !r.traceGenerate.empty()) {
    throw SpecError("--trace and --trace-generate exclude each other");
  }
  // A trace is the traffic and is measured whole (docs/SIMULATION.md "Traces"): the keys that
  // shape generated traffic would do nothing there, and the trace's keys nothing without one.
  for (const char* key : {"traffic", "load", "injection", "message-packets", "cycles", "warmup"}) {
    if (r.usesTrace() && o.given(key)) {
      throw SpecError(
          fmt::format("--{} does not apply to a trace run (the trace is the traffic, measured whole)", key));
    }
  }
  for (const char* key : {"compression", "payload"}) {
    if (!r.usesTrace() && o.given(key)) {
      throw SpecError(fmt::format("--{} applies only to a trace run (--trace or --trace-generate)", key));
    }
  }
  if (o.has("loads")) r.loads = parseLoads(o.string("loads"));
  r.config.threads = r.threads.value_or(1) < 0 ? 1 : static_cast<std::uint32_t>(r.threads.value_or(1));
  return r;
}

SimulateOutcome runSimulate(const SimulateRequest& request, const SimulateProgress& progress) {
  Fabric fabric = loadFabric(request.fabric);
  RoutingContext context;
  context.seed = request.config.seed;
  context.addressesPerTerminal = std::uint32_t{1} << request.lmc;
  RoutingResult routing = runEngine(request.engine, fabric.network, context);
  return runSimulate(request, std::move(fabric), std::move(routing), progress);
}

SimulateOutcome runSimulate(const SimulateRequest& request, Fabric fabric, RoutingResult routing,
                            const SimulateProgress& progress) {
  SimulateOutcome out;
  out.fabric = std::move(fabric);
  out.routing = std::move(routing);
  const Network& network = out.fabric.network;
  if (!request.traceFile.empty()) out.trace = readTrace(request.traceFile, network);
  if (!request.traceGenerate.empty()) {
    out.trace = generateIoTrace(network, parseIoTraceSpec(request.traceGenerate, request.config.seed));
  }
  if (out.trace) {
    out.trace->compression = request.compression;
    out.trace->payloadBytes = request.payload;
  }
  SimConfig config = request.config;
  if (!request.loads.empty()) {
    std::size_t done = 0;
    config.threads = 1;  // the points are the parallel work
    out.results = simulateLoads(network, out.routing, config, request.loads, std::max(request.threads.value_or(0), 0),
                                [&](std::size_t) {
                                  if (progress) progress(++done, request.loads.size());
                                });
  } else if (request.saturation) {
    SaturationPoint knee =
        findSaturation(network, out.routing, config, 0.01, 1.0, 7, [&](int index, double, const SimResult&) {
          if (progress) progress(std::size_t(index) + 1, 9);
        });
    out.saturationLoad = knee.load;
    out.results.push_back(std::move(knee.result));
  } else {
    out.results.push_back(simulate(network, out.routing, config, out.trace ? &*out.trace : nullptr));
  }
  return out;
}

nlohmann::json simulateResultJson(const SimulateRequest& request, const SimulateOutcome& outcome) {
  const SimConfig& c = request.config;
  const Options& o = request.options;
  nlohmann::json j = {{"fabric", outcome.fabric.spec},
                      {"terminals", outcome.fabric.network.terminalCount()},
                      {"engine", request.engine},
                      {"lmc", request.lmc},
                      {"traffic", request.usesTrace() ? std::string("trace") : c.traffic},
                      {"seed", c.seed},
                      {"packet_flits", c.packetFlits},
                      {"vcs", outcome.results.front().vcs},
                      {"buffer_packets", c.bufferPackets},
                      {"routing_delay", c.routingDelay},
                      {"fly_time", c.flyTime},
                      {"selection", o.string("selection")},
                      {"arbitration", o.string("arbitration")},
                      {"paths", o.string("paths")},
                      {"injection", o.string("injection")},
                      {"message_packets", c.messagePackets},
                      {"in_order", c.inOrder},
                      {"reorder_buffer", c.reorderPackets},
                      {"cycles", c.measureCycles},
                      {"warmup", c.warmupCycles == 0 ? nlohmann::json("auto") : nlohmann::json(c.warmupCycles)},
                      {"watchdog", c.watchdogCycles}};
  if (outcome.trace) {  // the trace run's own configuration: which trace, and how it was read
    for (const char* generatedOnly : {"injection", "message_packets", "warmup", "cycles"}) j.erase(generatedOnly);
    j["trace"] = outcome.trace->name;
    j["compression"] = outcome.trace->compression;
    j["payload"] = outcome.trace->payloadBytes;
  }
  const std::vector<SimResult>& results = outcome.results;
  if (results.size() == 1 && request.loads.empty()) {
    j.update(simResultJson(results.front()));
    if (!outcome.trace && !request.saturation) j["load"] = c.load;
    if (request.saturation) {
      j["saturation_load"] = outcome.saturationLoad;
      j["saturation_throughput"] = results.front().accepted;
    }
  } else {
    j["points"] = nlohmann::json::array();
    for (std::size_t i = 0; i < results.size(); ++i) {
      nlohmann::json point = simResultJson(results[i]);
      if (i < request.loads.size()) point["load"] = request.loads[i];
      j["points"].push_back(point);
    }
  }
  return j;
}

}  // namespace routelab
