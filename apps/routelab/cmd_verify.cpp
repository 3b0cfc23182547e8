// routelab verify SPEC --engine NAME — connected, loop-free, deadlock-free? (verify/verify.h)
//
// Exit codes (docs/VERIFY.md): 0 the routing passes (connected, loop-free, deadlock-free);
// 4 connected and loop-free but not deadlock-free (a cycle in a layer's dependency graph,
// or Duato's condition fails); 5 not connected or not loop-free; 1 bad input (spec, file,
// SL table); 2 usage.
#include <fmt/format.h>

#include "cli.h"
#include "cli_schema.h"
#include "request/verify_request.h"

namespace routelab::cli {

namespace {

constexpr int kExitDeadlockProne = 4;

// The request's flags are generated from verifySchema() (cli_schema.h).
struct VerifyArgs {
  RequestFlags flags{"verify", {}};
  OutputFormat format = OutputFormat::Text;
};

/// "LID n", or "no LID" for a terminal the routing gives no address (LID 0 is never valid).
std::string lidText(std::uint32_t lid) { return lid == 0 ? "no LID" : fmt::format("LID {}", lid); }

std::string failureText(const VerifyFailure& f) {
  return fmt::format("{} ({}) -> {} ({}) layer {}: {}{}", f.source, lidText(f.sourceLid), f.destination,
                     lidText(f.destinationLid), f.layer, f.status, f.where.empty() ? "" : " at " + f.where);
}

void printText(const VerifyRequest& request, const std::string& fabricSpec, const VerifyResult& r) {
  auto yes = [](bool b) { return b ? "yes" : "NO"; };
  fmt::print("fabric        {}\n", fabricSpec);
  fmt::print("engine        {}{}\n", r.engine,
             request.slFile.empty() ? "" : " (layers from SL file " + request.slFile + ")");
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
  const int code = verifyVerdictCode(r);
  fmt::print("verdict       {} (exit {})\n",
             code == 0                    ? "PASS"
             : code == kExitDeadlockProne ? "FAIL: deadlock-prone"
                                          : "FAIL: not connected or loops",
             code);
}

}  // namespace

Command verifyCommand() {
  return {"verify", "check a routing: connected, loop-free, deadlock-free (Lysne et al. 2006, Duato)",
          [](CLI::App& command) {
            auto args = std::make_shared<VerifyArgs>();
            addRequestOptions(command, args->flags);
            addFormatOption(command, args->format);
            // parse (validated by the library) -> runVerify -> the library's JSON or text.
            return std::function<int()>([args] {
              const VerifyRequest request = VerifyRequest::fromValues(args->flags.values);
              const VerifyOutcome outcome = runVerify(request);
              if (args->format == OutputFormat::Json)
                printJson(verifyResultJson(request, outcome));
              else
                printText(request, outcome.fabric.spec, outcome.result);
              return verifyVerdictCode(outcome.result);
            });
          }};
}

}  // namespace routelab::cli
