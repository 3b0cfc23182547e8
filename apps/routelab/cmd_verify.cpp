// routelab verify SPEC --engine NAME — connected, loop-free, deadlock-free? (verify/verify.h)
//
// Exit codes (docs/VERIFY.md): 0 the routing passes (connected, loop-free, deadlock-free);
// 4 connected and loop-free but not deadlock-free (a cycle in a layer's dependency graph,
// or Duato's condition fails); 5 not connected or not loop-free; 1 bad input (spec, file,
// SL table); 2 usage.
#include <fmt/format.h>

#include "cli.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/lid_map.h"
#include "io/sl_table.h"
#include "verify/verify.h"

namespace routelab::cli {

namespace {

constexpr int kExitDeadlockProne = 4;
constexpr int kExitDisconnected = 5;

struct VerifyArgs {
  std::string spec;
  std::string engine;
  std::string slFile;
  std::string lidMap;
  bool switchTraffic = false;
  std::uint64_t seed = 1;
  std::uint32_t lmc = 0;
  std::size_t examples = 10;
  OutputFormat format = OutputFormat::Text;
};

nlohmann::json failureJson(const VerifyFailure& f) {
  auto lid = [](std::uint32_t value) { return value == 0 ? nlohmann::json(nullptr) : nlohmann::json(value); };
  return {{"source", f.source},
          {"source_lid", lid(f.sourceLid)},
          {"destination", f.destination},
          {"destination_lid", lid(f.destinationLid)},
          {"layer", f.layer},
          {"status", f.status},
          {"stopped_at", f.where.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.where)}};
}

/// "LID n", or "no LID" for a terminal the routing gives no address (LID 0 is never valid).
std::string lidText(std::uint32_t lid) { return lid == 0 ? "no LID" : fmt::format("LID {}", lid); }

std::string failureText(const VerifyFailure& f) {
  return fmt::format("{} ({}) -> {} ({}) layer {}: {}{}", f.source, lidText(f.sourceLid), f.destination,
                     lidText(f.destinationLid), f.layer, f.status, f.where.empty() ? "" : " at " + f.where);
}

int exitCode(const VerifyResult& r) {
  if (!r.connected || !r.loopFree) return kExitDisconnected;
  if (!r.deadlockFree) return kExitDeadlockProne;
  return 0;
}

nlohmann::json resultJson(const VerifyArgs& args, const std::string& fabricSpec, const VerifyResult& r) {
  nlohmann::json j;
  j["spec"] = fabricSpec;
  j["engine"] = r.engine;
  j["sl_file"] = args.slFile.empty() ? nlohmann::json(nullptr) : nlohmann::json(args.slFile);
  j["switch_traffic"] = r.switchTraffic;
  j["seed"] = args.seed;
  j["lmc"] = args.lmc;
  j["connected"] = r.connected;
  j["loop_free"] = r.loopFree;
  j["deadlock_free"] = r.deadlockFree;
  j["passed"] = r.passed();
  j["exit_code"] = exitCode(r);
  j["layers"] = r.layers;
  j["layers_used"] = r.layersUsed;
  j["highest_layer"] = r.highestLayer >= 0 ? nlohmann::json(r.highestLayer) : nlohmann::json(nullptr);
  j["method"] = r.method;
  j["escape_layer"] = r.escapeLayer >= 0 ? nlohmann::json(r.escapeLayer) : nlohmann::json(nullptr);
  j["dependencies"] = r.dependencies;
  j["cyclic_layers"] = r.cyclicLayers;
  j["cycle_layer"] = r.cycleLayer ? nlohmann::json(*r.cycleLayer) : nlohmann::json(nullptr);
  j["cycle"] = r.cycleLayer ? nlohmann::json(r.cycleChannels) : nlohmann::json(nullptr);
  j["counts"] = {{"sources", r.sources},
                 {"destinations", r.destinations},
                 {"routes", r.routes},
                 {"delivered", r.delivered},
                 {"no_route", r.noRoute},
                 {"loops", r.loops},
                 {"dead_ports", r.deadPorts},
                 {"no_address", r.noAddress},
                 {"unrouted_switch_pairs", r.unroutedSwitchPairs},
                 {"escape_failures", r.escapeFailures}};
  auto list = [](const std::vector<VerifyFailure>& failures) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& f : failures) out.push_back(failureJson(f));
    return out;
  };
  j["failures"] = list(r.failures);
  j["unrouted_switch_pair_examples"] = list(r.unroutedSwitchExamples);
  j["escape_failure_examples"] = list(r.escapeFailureExamples);
  return j;
}

void printText(const VerifyArgs& args, const std::string& fabricSpec, const VerifyResult& r) {
  auto yes = [](bool b) { return b ? "yes" : "NO"; };
  fmt::print("fabric        {}\n", fabricSpec);
  fmt::print("engine        {}{}\n", r.engine, args.slFile.empty() ? "" : " (layers from SL file " + args.slFile + ")");
  fmt::print("traffic       {} ({} sources, {} destinations, {} routes checked)\n",
             r.switchTraffic ? "terminals and switches" : "terminals", r.sources, r.destinations, r.routes);
  fmt::print("connected     {}", yes(r.connected));
  if (!r.connected) {
    fmt::print(" ({} no route, {} dead port, {} loop{}{})", r.noRoute, r.deadPorts, r.loops,
               r.noAddress ? fmt::format(", {} pairs without an address", r.noAddress) : "",
               r.escapeFailures ? fmt::format(", {} escape failures", r.escapeFailures) : "");
  }
  fmt::print("\n");
  fmt::print("loop-free     {}\n", yes(r.loopFree));
  fmt::print("deadlock-free {}\n", yes(r.deadlockFree));
  fmt::print("method        {}\n", r.method);
  std::string deps;
  for (std::size_t i = 0; i < r.dependencies.size(); ++i) deps += fmt::format("{}{}", i ? ", " : "", r.dependencies[i]);
  // Used layers first, as OpenSM's "VLs needed"; the routing may declare more.
  fmt::print("layers        {} used{}, {} in the routing (dependencies per layer: {})\n", r.layersUsed,
             r.highestLayer >= 0 ? fmt::format(" (highest {})", r.highestLayer) : "", r.layers, deps);
  if (!r.cyclicLayers.empty()) {
    std::string layers;
    for (std::size_t i = 0; i < r.cyclicLayers.size(); ++i)
      layers += fmt::format("{}{}", i ? ", " : "", r.cyclicLayers[i]);
    fmt::print("cyclic layers {}\n", layers);
    fmt::print("cycle         layer {}, {} channels:\n", *r.cycleLayer, r.cycleChannels.size());
    for (const auto& c : r.cycleChannels) fmt::print("                {}\n", c);
    fmt::print("                (back to {})\n", r.cycleChannels.front());
  }
  for (const auto& f : r.failures) fmt::print("failure       {}\n", failureText(f));
  for (const auto& f : r.escapeFailureExamples) fmt::print("escape fails  {}\n", failureText(f));
  if (r.unroutedSwitchPairs != 0) {
    fmt::print("unrouted      {} switch-to-switch pairs without a route (reported apart, not a failure)\n",
               r.unroutedSwitchPairs);
    for (const auto& f : r.unroutedSwitchExamples) fmt::print("  e.g.        {}\n", failureText(f));
  }
  const int code = exitCode(r);
  fmt::print("verdict       {} (exit {})\n",
             code == 0                    ? "PASS"
             : code == kExitDeadlockProne ? "FAIL: deadlock-prone"
                                          : "FAIL: not connected or loops",
             code);
}

}  // namespace

Command verifyCommand() {
  return {
      "verify", "check a routing: connected, loop-free, deadlock-free (Lysne et al. 2006, Duato)",
      [](CLI::App& command) {
        auto args = std::make_shared<VerifyArgs>();
        command.add_option("spec", args->spec, "fabric spec, e.g. random:switches=16 or file:ibnetdiscover.txt")
            ->required();
        command.add_option("--engine", args->engine, "routing engine spec, e.g. lash or file:lfts.dump")->required();
        command.add_option("--sl", args->slFile,
                           "per-pair layers: lines 'slid dlid sl' (OpenSM pathsl / dfsssp-vl-table); SL = layer");
        command.add_option("--lid-map", args->lidMap,
                           "OpenSM guid2lid file: the fabric's LIDs, which the SL file refers to");
        command.add_flag("--switch-traffic", args->switchTraffic,
                         "also verify traffic from and to switch addresses (management)");
        command.add_option("--seed", args->seed, "seed of engines with random choices")
            ->check(unsignedDecimal())
            ->default_val(1);
        command.add_option("--lmc", args->lmc, "LMC: 2^lmc addresses per terminal")
            ->default_val(0)
            ->check(CLI::Range(0, 7));
        command.add_option("--examples", args->examples, "failure examples shown per kind")
            ->check(unsignedDecimal(0, 1000000))
            ->default_val(10);
        addFormatOption(command, args->format);
        return std::function<int()>([args] {
          Fabric fabric = loadFabric(args->spec);
          if (!args->lidMap.empty()) {
            fabric.lids = readGuid2Lid(args->lidMap);
            if (fabric.lids.empty()) throw SpecError(fmt::format("--lid-map {}: no LIDs in the file", args->lidMap));
          }
          RoutingContext context;
          context.addressesPerTerminal = 1U << args->lmc;
          context.routeSwitches = args->switchTraffic;
          context.seed = args->seed;
          RoutingResult routing = runEngine(args->engine, fabric.network, context);
          // An SL file names LIDs: the fabric's own (docs/FORMATS.md "Fabric LIDs"); an
          // imported LFT dump keeps the LIDs it was written with. Without an SL file (or a
          // --lid-map) the LIDs only label failures, and any --lmc is accepted.
          const bool namesLids = !args->slFile.empty() || !args->lidMap.empty();
          if (namesLids && !fabric.lids.empty() && args->engine.rfind("file:", 0) != 0) {
            routing = withFabricLids(fabric.network, std::move(routing), fabric.lids);
          }
          if (!args->slFile.empty()) {
            routing = applySlTable(fabric.network, std::move(routing), readSlTable(args->slFile), args->switchTraffic);
          }
          VerifyOptions options;
          options.switchTraffic = args->switchTraffic;
          options.maxExamples = args->examples;
          const VerifyResult result = verifyRouting(fabric.network, routing, options);
          if (args->format == OutputFormat::Json)
            printJson(resultJson(*args, fabric.spec, result));
          else
            printText(*args, fabric.spec, result);
          return exitCode(result);
        });
      }};
}

}  // namespace routelab::cli
