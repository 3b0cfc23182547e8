// routelab simulate SPEC --engine E [--pattern P] (--load L | --loads A:B:S | --saturation | --trace F)
// The flit-level simulator (sim/simulator.h, docs/SIMULATION.md). Exit codes: cli.h, plus 4
// when the deadlock watchdog fired.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "cli.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/output.h"
#include "sim/arbitration/registry.h"
#include "sim/reference/reference_model.h"
#include "sim/selection/registry.h"
#include "sim/sim_json.h"
#include "sim/simulator.h"

namespace routelab::cli {

namespace {

constexpr int kExitDeadlock = 4;

struct SimulateArgs {
  std::string spec;
  std::string engine;
  std::string pattern = "uniform";
  double load = 0.1;
  std::string loads;
  bool saturation = false;
  std::uint64_t seed = 1;
  unsigned lmc = 0;
  int threads = -1;  // not given: every core for --loads, one thread for one simulation
  std::string selection = "sadp";
  std::string arbitration = "round-robin";
  std::string paths = "random";
  std::string injection = "bernoulli";
  std::string model = "fast";
  std::string traceFile;
  std::string traceGenerate;
  std::string exportTrace;
  std::string exportUtilization;
  double compression = 1;
  std::uint32_t payload = 1024;
  SimConfig config;
  OutputFormat format = OutputFormat::Text;
};

void addOptions(CLI::App& command, SimulateArgs& args) {
  command.add_option("spec", args.spec, "fabric spec (see `routelab list`)")->required();
  command.add_option("--engine", args.engine, "routing engine spec")->required();
  command.add_option("--pattern,--traffic", args.pattern,
                     "uniform | uniform-hot-spot:fraction=F[,target=T] | a traffic pattern spec (default: uniform)");
  command.add_option("--load", args.load, "offered load in flits per terminal per cycle (default 0.1)");
  command.add_option("--loads", args.loads, "FROM:TO:STEP: a latency-throughput curve, points in parallel");
  command.add_flag("--saturation", args.saturation, "find the saturation throughput (bisection on the load)");
  command.add_option("--seed", args.seed, "seed of every random choice (default 1)")->check(unsignedDecimal());
  command.add_option("--lmc", args.lmc, "addresses per terminal = 2^lmc (multipath engines)")
      ->check(unsignedDecimal(0, 7));
  command
      .add_option("--threads", args.threads,
                  "--loads: points in parallel (default 0 = every core); one simulation (--load, --saturation, "
                  "--trace): its switches split over N threads, same result (default 1; 0 = every core)")
      ->check(CLI::Range(0, 4096));
  command.add_option("--packet-flits", args.config.packetFlits, "flits per packet (default 8)")
      ->check(unsignedDecimal(1, 4096));
  command.add_option("--vcs", args.config.vcs, "virtual channels per link (default, or 0: one per routing layer)")
      ->check(unsignedDecimal(0, 64));
  command.add_option("--buffer-packets", args.config.bufferPackets, "packets per VC queue (default 2)")
      ->check(unsignedDecimal(1, 1024));
  command.add_option("--routing-delay", args.config.routingDelay, "cycles (default 20)")
      ->check(unsignedDecimal(0, 100000));
  command.add_option("--fly-time", args.config.flyTime, "cycles on a link (default 8)")
      ->check(unsignedDecimal(1, 100000));
  command.add_option("--selection", args.selection,
                     sim::selectionNames() + " (default sadp; sim/selection/registry.h, docs/SIMULATION.md)");
  command.add_option("--arbitration", args.arbitration,
                     "switch allocation: " + sim::arbitrationNames() +
                         " (default round-robin; sim/arbitration/registry.h, docs/SIMULATION.md)");
  command.add_option("--paths", args.paths, "multipath sources: random | round-robin | adaptive (default random)");
  command.add_option("--injection", args.injection, "bernoulli | poisson (default bernoulli)");
  command.add_option("--message-packets", args.config.messagePackets, "packets per message (default 1)")
      ->check(unsignedDecimal(1, 1 << 20));
  command.add_flag("--in-order", args.config.inOrder, "in-order delivery: reorder buffers + end-to-end flow control");
  command
      .add_option("--reorder-buffer", args.config.reorderPackets,
                  "reorder buffer per destination, packets (default 64)")
      ->check(unsignedDecimal(1, 1U << 30));
  command.add_option("--cycles", args.config.measureCycles, "measured cycles (default 10000)")
      ->check(unsignedDecimal(1, std::uint64_t{1} << 40));
  command.add_option("--warmup", args.config.warmupCycles, "warm-up cycles (default 0 = until latency is stable)")
      ->check(unsignedDecimal(0, std::uint64_t{1} << 40));
  command
      .add_option("--watchdog", args.config.watchdogCycles,
                  "cycles without movement that mean deadlock (default 20000)")
      ->check(unsignedDecimal(1, std::uint64_t{1} << 40));
  command.add_flag("--check", args.config.checkInvariants,
                   "check the simulator's invariants every cycle (with --threads > 1: between windows; slow)");
  command.add_option("--trace", args.traceFile, "trace CSV (time,source,destination,bytes)");
  command.add_option("--trace-generate", args.traceGenerate, "synthetic trace: io:storage=23,clients=105,...");
  command.add_option("--compression", args.compression, "trace time compression factor (default 1)");
  command.add_option("--payload", args.payload, "trace packet payload in bytes (default 1024)")
      ->check(unsignedDecimal(1, 1U << 30));
  command.add_option("--export-trace", args.exportTrace, "write the (generated) trace as CSV");
  command.add_option("--export-utilization", args.exportUtilization, "per-channel utilization CSV");
  command.add_option("--model", args.model,
                     "fast (the engine) | reference (the plain cycle-by-cycle model: small fabrics) | check (both, "
                     "compared packet by packet; exit 1 naming the first differing packet); needs --warmup N "
                     "(default fast)");
  addFormatOption(command, args.format);
}

nlohmann::json configJson(const SimulateArgs& args, const Fabric& fabric, const SimResult& any) {
  const SimConfig& c = args.config;
  return {{"fabric", fabric.spec},
          {"terminals", fabric.network.terminalCount()},
          {"engine", args.engine},
          {"traffic", args.traceFile.empty() && args.traceGenerate.empty() ? args.pattern : "trace"},
          {"seed", args.seed},
          {"packet_flits", c.packetFlits},
          {"vcs", any.vcs},
          {"buffer_packets", c.bufferPackets},
          {"routing_delay", c.routingDelay},
          {"fly_time", c.flyTime},
          {"selection", args.selection},
          {"arbitration", args.arbitration},
          {"paths", args.paths},
          {"injection", args.injection},
          {"message_packets", c.messagePackets},
          {"in_order", c.inOrder},
          {"reorder_buffer", c.reorderPackets},
          {"cycles", c.measureCycles},
          {"warmup", c.warmupCycles == 0 ? nlohmann::json("auto") : nlohmann::json(c.warmupCycles)},
          {"watchdog", c.watchdogCycles}};
}

void printText(const SimulateArgs& args, const nlohmann::json& config, const std::vector<SimResult>& results) {
  fmt::print("fabric      {} ({} terminals)\n", config["fabric"].get<std::string>(),
             config["terminals"].get<std::size_t>());
  fmt::print("engine      {}, {} VCs, selection {}, arbitration {}, paths {}\n", args.engine,
             config["vcs"].get<unsigned>(), args.selection, args.arbitration, args.paths);
  fmt::print("model       {} flits/packet, {} packets/VC queue, routing {} cycles, fly {} cycles{}\n",
             args.config.packetFlits, args.config.bufferPackets, args.config.routingDelay, args.config.flyTime,
             args.config.inOrder ? fmt::format(", in order (reorder {} packets)", args.config.reorderPackets) : "");
  fmt::print("traffic     {}, {} injection, seed {}\n", config["traffic"].get<std::string>(), args.injection,
             args.seed);
  fmt::print("{:>8} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8} {:>10} {:>8} {:>8} {:>6}  {}\n", "offered", "accepted",
             "lat avg", "lat p99", "total avg", "oo-order", "hops", "cycles", "src min", "src max", "jain", "");
  for (const SimResult& r : results) {
    fmt::print("{:8.4f} {:9.4f} {:9.1f} {:9.1f} {:9.1f} {:9} {:8.2f} {:10} {:8.4f} {:8.4f} {:6.4f}  {}\n", r.offered,
               r.accepted, r.latencyAvg, r.latencyP99, r.totalLatencyAvg, r.outOfOrder, r.averageHops, r.cycles,
               r.sourceAcceptedMin, r.sourceAcceptedMax, r.sourceFairness,
               r.deadlock ? "DEADLOCK" : (r.saturated ? (r.warmupSettled ? "saturated" : "saturated (unstable)") : ""));
    if (r.deadlock) {
      fmt::print("deadlock at cycle {} (nothing moved since {}); waiting cycle of queues:\n", r.deadlockReport.cycle,
                 r.deadlockReport.lastMove);
      for (const std::string& channel : r.deadlockReport.channels) fmt::print("  {}\n", channel);
    }
  }
  if (!args.traceFile.empty() || !args.traceGenerate.empty()) {
    fmt::print("trace       delivered completely at cycle {}\n", results.front().lastDelivery);
  }
}

void progressLine(std::size_t done, std::size_t total) {
  if (isatty(STDERR_FILENO) == 0) return;
  std::fprintf(stderr, "\rsimulate: %zu/%zu points", done, total);
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

// The --export-* files, all or nothing.
void writeExports(const SimulateArgs& args, const Fabric& fabric, const std::optional<Trace>& trace,
                  const SimResult& last) {
  std::vector<OutputFile> outputs;  // all or nothing
  if (!args.exportTrace.empty()) {
    if (!trace) throw SpecError("--export-trace needs --trace or --trace-generate");
    const std::string text = formatTrace(*trace, fabric.network);
    outputs.push_back({args.exportTrace, [text](std::ostream& out) { out << text; }});
  }
  if (!args.exportUtilization.empty()) {
    std::ostringstream csv;
    // source_accepted: on a source's injection channel, the source's accepted throughput
    // (SimResult::sourceAccepted); empty elsewhere. The summary (min, max, Jain) is in the
    // simulate output.
    csv << "channel,from,to,utilization,source_accepted\n";
    const std::vector<double>& utilization = last.channelUtilization;
    for (std::size_t c = 0; c < utilization.size(); ++c) {
      const ChannelId channel = ChannelId::fromIndex(c);
      const NodeId from = fabric.network.source(channel);
      csv << c << ',' << fabric.network.name(from) << ',' << fabric.network.name(fabric.network.target(channel)) << ','
          << utilization[c] << ',';
      if (fabric.network.isTerminal(from)) {
        const std::size_t t = fabric.network.terminalIndex(from);
        if (t < last.sourceAccepted.size() && last.sourceAccepted[t] >= 0) csv << last.sourceAccepted[t];
      }
      csv << '\n';
    }
    outputs.push_back({args.exportUtilization, [text = csv.str()](std::ostream& out) { out << text; }});
  }
  writeFilesAtomically(outputs);
}

// --model reference | check: traffic generated during the warm-up and measurement, then drained.
int runModel(const SimulateArgs& args, const Fabric& fabric, const RoutingResult& routing) {
  if (args.model != "reference" && args.model != "check") {
    throw SpecError(fmt::format("--model: unknown value '{}' (check, fast, reference)", args.model));
  }
  const std::uint64_t limit = sim::referenceLimit(args.config);
  nlohmann::json j = {{"model", args.model}};
  if (args.model == "check") {
    const sim::ModelComparison comparison = sim::compareWithReference(fabric.network, routing, args.config, limit);
    if (!comparison.equal) throw SimulationError("the engine and the reference model differ: " + comparison.difference);
    j["packets"] = comparison.packets;
    j["equal"] = true;
  } else {
    const std::vector<PacketRecord> packets = sim::referenceSimulate(fabric.network, routing, args.config, limit);
    std::uint64_t latency = 0, last = 0;
    for (const PacketRecord& p : packets) {
      latency += p.delivered - p.injected;
      last = std::max(last, p.delivered);
    }
    j["packets"] = packets.size();
    j["latency_avg"] = packets.empty() ? 0.0 : double(latency) / double(packets.size());
    j["last_delivery"] = last;
  }
  if (args.format == OutputFormat::Json) {
    printJson(j);
  } else if (args.model == "check") {
    fmt::print("check       {} packets: the engine and the reference model agree packet by packet\n",
               j["packets"].get<std::size_t>());
  } else {
    fmt::print("reference   {} packets released, network latency avg {:.1f}, last delivery at cycle {}\n",
               j["packets"].get<std::size_t>(), j["latency_avg"].get<double>(),
               j["last_delivery"].get<std::uint64_t>());
  }
  return 0;
}

int runSimulate(SimulateArgs& args) {
  args.config.selection = parseSelection(args.selection, "--selection");
  args.config.arbitration = parseArbitration(args.arbitration, "--arbitration");
  args.config.pathPolicy = parsePathPolicy(args.paths, "--paths");
  args.config.injection = parseInjection(args.injection, "--injection");
  const int modes =
      int(!args.loads.empty()) + int(args.saturation) + int(!args.traceFile.empty() || !args.traceGenerate.empty());
  if (modes > 1) throw SpecError("--loads, --saturation and --trace/--trace-generate exclude each other");
  if (!args.traceFile.empty() && !args.traceGenerate.empty())
    throw SpecError("--trace and --trace-generate exclude each other");
  if (!(args.compression > 0)) throw SpecError("--compression must be positive");
  std::vector<double> loads;
  if (!args.loads.empty()) loads = parseLoadRange(args.loads);
  args.config.seed = args.seed;
  args.config.load = args.load;
  args.config.traffic = args.pattern;
  args.config.threads = args.threads < 0 ? 1 : static_cast<std::uint32_t>(args.threads);
  const Fabric fabric = loadFabric(args.spec);
  RoutingContext context;
  context.seed = args.seed;
  context.addressesPerTerminal = std::uint32_t{1} << args.lmc;
  const RoutingResult routing = runEngine(args.engine, fabric.network, context);
  if (args.model != "fast") return runModel(args, fabric, routing);
  std::optional<Trace> trace;
  if (!args.traceFile.empty()) trace = readTrace(args.traceFile, fabric.network);
  if (!args.traceGenerate.empty())
    trace = generateIoTrace(fabric.network, parseIoTraceSpec(args.traceGenerate, args.seed));
  if (trace) {
    trace->compression = args.compression;
    trace->payloadBytes = args.payload;
  }
  std::vector<SimResult> results;
  if (!loads.empty()) {
    std::size_t done = 0;
    args.config.threads = 1;  // the points are the parallel work
    results = simulateLoads(fabric.network, routing, args.config, loads, std::max(args.threads, 0),
                            [&](std::size_t) { progressLine(++done, loads.size()); });
  } else if (args.saturation) {
    results.push_back(findSaturation(fabric.network, routing, args.config, 0.01, 1.0, 7,
                                     [](int step) { progressLine(std::size_t(step) + 1, 9); }));
  } else {
    results.push_back(simulate(fabric.network, routing, args.config, trace ? &*trace : nullptr));
  }
  writeExports(args, fabric, trace, results.back());
  const nlohmann::json config = configJson(args, fabric, results.front());
  bool deadlock = false;
  for (const SimResult& r : results) deadlock = deadlock || r.deadlock;
  if (args.format == OutputFormat::Json) {
    nlohmann::json j = config;
    if (results.size() == 1 && loads.empty()) {
      j.update(simResultJson(results.front()));
      if (!trace && !args.saturation) j["load"] = args.load;
      if (args.saturation) j["saturation_throughput"] = results.front().accepted;
    } else {
      j["points"] = nlohmann::json::array();
      for (std::size_t i = 0; i < results.size(); ++i) {
        nlohmann::json point = simResultJson(results[i]);
        if (i < loads.size()) point["load"] = loads[i];
        j["points"].push_back(point);
      }
    }
    printJson(j);
  } else {
    printText(args, config, results);
    if (args.saturation) fmt::print("saturation  {:.4f} flits/terminal/cycle\n", results.front().accepted);
  }
  return deadlock ? kExitDeadlock : 0;
}

}  // namespace

Command simulateCommand() {
  return {"simulate", "flit-level virtual cut-through simulation: latency, throughput, in-order delivery, deadlock",
          [](CLI::App& command) {
            auto args = std::make_shared<SimulateArgs>();
            addOptions(command, *args);
            return std::function<int()>([args] { return runSimulate(*args); });
          }};
}

}  // namespace routelab::cli
