// routelab topo SPEC — build or import a fabric, print its summary, export it.
#include <fmt/format.h>

#include "cli.h"
#include "core/errors.h"
#include "fabric/fabric.h"
#include "io/fabric_files.h"
#include "topology/summary.h"

namespace routelab::cli {

namespace {

struct TopoArgs {
  std::string spec;
  std::vector<std::string> exports;  // pairs: format, path
  OutputFormat format = OutputFormat::Text;
};

nlohmann::json summaryJson(const Fabric& fabric, const NetworkSummary& s) {
  nlohmann::json j;
  j["spec"] = fabric.spec;
  j["terminals"] = s.terminals;
  j["switches"] = s.switches;
  j["links"] = s.links;
  j["switch_links"] = s.switchLinks;
  j["channels"] = s.channels;
  j["connected"] = s.connected;
  j["components"] = s.components;
  j["diameter"] = s.diameter;
  nlohmann::json radix = nlohmann::json::object();
  for (auto [ports, count] : s.radixHistogram) radix[std::to_string(ports)] = count;
  j["radix_histogram"] = radix;
  nlohmann::json degree = nlohmann::json::object();
  for (auto [ports, count] : s.degreeHistogram) degree[std::to_string(ports)] = count;
  j["degree_histogram"] = degree;
  if (s.xgft) j["xgft"] = *s.xgft;
  if (s.levels) j["levels"] = *s.levels;
  if (!s.switchesPerLevel.empty()) j["switches_per_level"] = s.switchesPerLevel;
  if (s.bisectionWidth) j["bisection_width"] = *s.bisectionWidth;
  nlohmann::json modifiers = nlohmann::json::array();
  for (const auto& m : fabric.modifiers) {
    modifiers.push_back({{"modifier", m.modifier},
                         {"removed", m.removed},
                         {"unreachable", m.unreachable},
                         {"disconnected_terminals", m.disconnectedTerminals}});
  }
  j["modifiers"] = modifiers;
  return j;
}

void printText(const Fabric& fabric, const NetworkSummary& s) {
  fmt::print("fabric      {}\n", fabric.spec);
  if (s.xgft) {
    std::string perLevel;
    for (std::size_t count : s.switchesPerLevel) perLevel += fmt::format("{}{}", perLevel.empty() ? "" : " + ", count);
    fmt::print("structure   {} ({} switch levels: {} switches, leaves first)\n", *s.xgft, *s.levels, perLevel);
  }
  fmt::print("terminals   {}\n", s.terminals);
  fmt::print("switches    {}\n", s.switches);
  fmt::print("links       {} ({} switch-switch), {} channels\n", s.links, s.switchLinks, s.channels);
  std::string radix;
  for (auto [ports, count] : s.radixHistogram) radix += fmt::format("{}{}x{}", radix.empty() ? "" : ", ", count, ports);
  fmt::print("radix       {} (switches x ports)\n", radix.empty() ? "-" : radix);
  std::string degree;
  for (auto [ports, count] : s.degreeHistogram)
    degree += fmt::format("{}{}x{}", degree.empty() ? "" : ", ", count, ports);
  fmt::print("connected   {} (switches x cabled ports)\n", degree.empty() ? "-" : degree);
  fmt::print("components  {}{}\n", s.components, s.connected ? "" : "  (NOT CONNECTED)");
  fmt::print("diameter    {} hops terminal to terminal\n", s.diameter);
  if (s.bisectionWidth) fmt::print("bisection   {} links\n", *s.bisectionWidth);
  for (const auto& m : fabric.modifiers) {
    fmt::print("modifier    {}: removed {}; {} terminal(s) unreachable\n", m.modifier, m.removed.size(),
               m.disconnectedTerminals);
    for (const auto& r : m.removed) fmt::print("  removed     {}\n", r);
    for (const auto& u : m.unreachable) fmt::print("  unreachable {}\n", u);
  }
}

}  // namespace

Command topoCommand() {
  return {"topo", "build or import a fabric, print its summary, export it", [](CLI::App& command) {
            auto args = std::make_shared<TopoArgs>();
            command.add_option("spec", args->spec, "fabric spec, e.g. kary-ntree:k=4,n=3 (see README)")->required();
            command.add_option("--export", args->exports, "FORMAT FILE: write the fabric as net|dot|json")
                ->expected(2)
                ->type_name("FORMAT FILE")
                ->take_all();
            requireExportPairs(command, args->exports);
            addFormatOption(command, args->format);
            return std::function<int()>([args] {
              const Fabric fabric = loadFabric(args->spec);
              writeFabricExports(fabric.network, exportFiles(args->exports));  // checked first, all or nothing
              const NetworkSummary summary = summarize(fabric.network);
              if (args->format == OutputFormat::Json)
                printJson(summaryJson(fabric, summary));
              else
                printText(fabric, summary);
              return 0;
            });
          }};
}

}  // namespace routelab::cli
