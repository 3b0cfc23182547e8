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
#include "cli_schema.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/output.h"
#include "request/simulate_request.h"
#include "sim/arbitration/registry.h"
#include "sim/reference/reference_model.h"
#include "sim/selection/registry.h"
#include "sim/sim_json.h"
#include "sim/simulator.h"

namespace routelab::cli {

namespace {

constexpr int kExitDeadlock = 4;

// The request's flags are generated from simulateSchema() (cli_schema.h); the others choose
// what is written besides the result.
struct SimulateArgs {
  RequestFlags flags{"simulate", {}};
  std::string exportTrace;
  std::string exportUtilization;
  std::string model = "fast";
  OutputFormat format = OutputFormat::Text;
};

void addOptions(CLI::App& command, SimulateArgs& args) {
  addRequestOptions(command, args.flags, {{"traffic", "--pattern"}});
  command.add_option("--export-trace", args.exportTrace, "write the (generated) trace as CSV");
  command.add_option("--export-utilization", args.exportUtilization, "per-channel utilization CSV");
  command.add_option("--model", args.model,
                     "fast (the engine) | reference (the plain cycle-by-cycle model: small fabrics) | check (both, "
                     "compared packet by packet; exit 1 naming the first differing packet); needs --warmup N "
                     "(default fast)");
  addFormatOption(command, args.format);
}

void printText(const SimulateRequest& request, const nlohmann::json& config, const std::vector<SimResult>& results) {
  const SimConfig& c = request.config;
  const Options& o = request.options;
  fmt::print("fabric      {} ({} terminals)\n", config["fabric"].get<std::string>(),
             config["terminals"].get<std::size_t>());
  fmt::print("engine      {}{}, {} VCs, selection {}, arbitration {}, paths {}\n", request.engine,
             request.lmc > 0 ? fmt::format(" (lmc {})", request.lmc) : "", config["vcs"].get<unsigned>(),
             o.string("selection"), o.string("arbitration"), o.string("paths"));
  fmt::print("model       {} flits/packet, {} packets/VC queue, routing {} cycles, fly {} cycles{}\n", c.packetFlits,
             c.bufferPackets, c.routingDelay, c.flyTime,
             c.inOrder ? fmt::format(", in order (reorder {} packets)", c.reorderPackets) : "");
  if (config.contains("trace")) {
    fmt::print("traffic     trace {}, compression {}, payload {} bytes, seed {}\n", config["trace"].get<std::string>(),
               config["compression"].get<double>(), config["payload"].get<std::uint32_t>(), c.seed);
  } else {
    fmt::print("traffic     {}, {} injection, seed {}\n", config["traffic"].get<std::string>(), o.string("injection"),
               c.seed);
  }
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
  if (request.usesTrace()) {
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
int runModel(const SimulateArgs& args, const SimConfig& config, const Fabric& fabric, const RoutingResult& routing) {
  if (args.model != "reference" && args.model != "check") {
    throw SpecError(fmt::format("--model: unknown value '{}' (check, fast, reference)", args.model));
  }
  const std::uint64_t limit = sim::referenceLimit(config);
  nlohmann::json j = {{"model", args.model}};
  if (args.model == "check") {
    const sim::ModelComparison comparison = sim::compareWithReference(fabric.network, routing, config, limit);
    if (!comparison.equal) throw SimulationError("the engine and the reference model differ: " + comparison.difference);
    j["packets"] = comparison.packets;
    j["equal"] = true;
  } else {
    const std::vector<PacketRecord> packets = sim::referenceSimulate(fabric.network, routing, config, limit);
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

// parse (the flags, validated by the library) -> runSimulate -> the library's JSON or text.
int runSimulate(const SimulateArgs& args) {
  const SimulateRequest request = SimulateRequest::fromValues(args.flags.values);
  if (args.model != "fast") {
    const Fabric fabric = loadFabric(request.fabric);
    RoutingContext context;
    context.seed = request.config.seed;
    context.addressesPerTerminal = std::uint32_t{1} << request.lmc;
    const RoutingResult routing = runEngine(request.engine, fabric.network, context);
    return runModel(args, request.config, fabric, routing);
  }
  const SimulateOutcome outcome = routelab::runSimulate(request, progressLine);
  const std::vector<SimResult>& results = outcome.results;
  writeExports(args, outcome.fabric, outcome.trace, results.back());
  const nlohmann::json j = simulateResultJson(request, outcome);
  bool deadlock = false;
  for (const SimResult& r : results) deadlock = deadlock || r.deadlock;
  if (args.format == OutputFormat::Json) {
    printJson(j);
  } else {
    printText(request, j, results);
    if (request.saturation) {
      fmt::print("saturation  {:.4f} flits/terminal/cycle accepted at offered load {:.4f}\n", results.front().accepted,
                 outcome.saturationLoad);
    }
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
