#include "request/compare_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "core/errors.h"
#include "report/deployment.h"

namespace routelab {

namespace {
constexpr const char* kInt64Max = "9223372036854775807";
const std::string kCompare = "docs/COMPARE.md";

OptionSpec row(std::string key, OptionType type, std::string defaultValue, std::string help, std::string minimum,
               std::string maximum, std::string reference) {
  OptionSpec out{std::move(key),    type, std::move(defaultValue), std::move(help), false, std::move(minimum),
                 std::move(maximum)};
  out.reference = std::move(reference);
  return out;
}
}  // namespace

const OptionSchema& compareSchema() {
  static const OptionSchema rows = [] {
    const CompareOptions d;
    const std::string ranking = kCompare + " \"What it does per engine\"";
    const std::string large = kCompare + " \"Large fabrics: what is cheaper and why\"";
    const std::string constraints = kCompare + " \"Constraints\"";
    const std::string dynamic = kCompare + " \"Dynamic evidence\"";
    OptionSchema out = {
        row("fabric", OptionType::String, d.spec, "fabric spec or file", "", "", "docs/TOPOLOGIES.md"),
        row("engines", OptionType::String, "",
            "engine specs to compare, separated by ';'; absent: every engine of the registry but file", "", "",
            kCompare + " \"Options\""),
        row("opensm-dir", OptionType::String, "",
            "OpenSM routings to rank too: <engine>.lfts [+ <engine>.sl] or <engine>.error", "", "",
            "docs/FORMATS.md \"OpenSM engine directory\""),
        row("seed", OptionType::Integer, std::to_string(d.seed), "seed of engines and sampled patterns", "0", kInt64Max,
            ranking),
        row("precision", OptionType::Real, fmt::format("{}", d.precision),
            "sampling: 99% half-width <= precision x mean", "0", "", "Nienaber §IV"),
        row("max-samples", OptionType::Integer, std::to_string(d.maxSamples), "sampling: at most this many samples",
            "2", "", "Nienaber §IV"),
        row("max-shifts", OptionType::Integer, std::to_string(d.maxShifts), "all-to-all: at most this many shifts", "1",
            std::to_string(1U << 20), ranking),
        row("detail-terminals", OptionType::Integer, std::to_string(d.detailTerminals),
            "AFPB, ADB and the even-/best-split load models only up to this many terminals", "0", "", large),
        row("max-addresses-per-terminal", OptionType::Integer, std::to_string(d.maxAddressesPerTerminal),
            "above --detail-terminals, analyse routings up to this many addresses per terminal", "0", "", large),
        row("generic-engine-switches", OptionType::Integer, std::to_string(d.genericEngineSwitches),
            "on a fat-tree with more switches, leave the generic engines (minhop, updown, mroots, the LASH family, "
            "escape) out of the default list",
            "0", "", large),
        row("threads", OptionType::Integer, std::to_string(d.threads),
            "worker threads (0 = every core; results do not change)", "0", "4096", ""),
        row("vls", OptionType::Integer, std::to_string(d.constraints.vls),
            "data virtual lanes the fabric has (InfiniBand VL0-VL14): routings needing more are not deployable", "1",
            std::to_string(FabricConstraints::kMaxVls), constraints),
        row("adaptive-switches", OptionType::Flag, "false",
            "the switches may choose among several outputs per packet (InfiniBand LFTs cannot)", "", "", constraints),
        row("in-order", OptionType::Flag, "false",
            "the application needs in-order delivery: multipath and adaptive routings are not deployable", "", "",
            constraints),
        row("simulate", OptionType::Flag, "",
            "simulate the leading routings whatever the fabric's size (false, --no-simulate: none; absent: on fabrics "
            "up to simulate-terminals)",
            "", "", dynamic),
        row("simulate-terminals", OptionType::Integer, std::to_string(d.simulateTerminals),
            "simulate the leading routings on fabrics up to this many terminals", "0", "", dynamic),
        row("simulate-leaders", OptionType::Integer, std::to_string(d.simulateLeaders),
            "deployable routings simulated (distinct tables, best first; plus each relaxed constraint's best)", "1",
            "64", dynamic),
        row("simulate-cycles", OptionType::Integer, std::to_string(d.simulateCycles),
            "measured cycles per simulated point", "1", std::to_string(std::uint64_t{1} << 32), dynamic),
        row("simulate-steps", OptionType::Integer, std::to_string(d.simulateSteps),
            "halvings of the saturation search on (0, 1] (resolution 0.99 / 2^steps)", "1", "20", dynamic),
    };
    for (OptionSpec& r : out) r.minimumExclusive = r.key == "precision";  // precision > 0
    return out;
  }();
  return rows;
}

namespace {
std::vector<std::string> splitEngines(const std::string& text) {
  std::vector<std::string> engines;
  for (const std::string_view engine : splitFields(text, kEngineListSeparator)) {
    if (engine.empty()) {
      throw SpecError(fmt::format("compare: engines '{}' has an empty engine spec (specs are separated by '{}')", text,
                                  kEngineListSeparator));
    }
    // A ',' separates an engine's options, after its ':'; before it, it can only mean a list.
    if (engine.substr(0, engine.find(':')).find(',') != std::string_view::npos) {
      throw SpecError(
          fmt::format("compare: engine spec '{}' names several engines: specs are separated by '{}' "
                      "(a ',' separates one engine's options, after its ':')",
                      engine, kEngineListSeparator));
    }
    engines.emplace_back(engine);
  }
  return engines;
}
}  // namespace

CompareRequest CompareRequest::fromOptions(const Options& o) {
  CompareRequest r;
  r.options = o;
  CompareOptions& c = r.compare;
  c.spec = o.string("fabric");
  if (o.has("engines")) c.engines = splitEngines(o.string("engines"));
  if (o.has("opensm-dir")) c.opensmDirectory = o.string("opensm-dir");
  c.seed = static_cast<std::uint64_t>(o.integer("seed"));
  c.precision = o.real("precision");
  c.maxSamples = static_cast<std::uint64_t>(o.integer("max-samples"));
  c.maxShifts = static_cast<std::size_t>(o.integer("max-shifts"));
  c.detailTerminals = static_cast<std::size_t>(o.integer("detail-terminals"));
  c.maxAddressesPerTerminal = static_cast<std::size_t>(o.integer("max-addresses-per-terminal"));
  c.genericEngineSwitches = static_cast<std::size_t>(o.integer("generic-engine-switches"));
  c.threads = static_cast<int>(o.integer("threads"));
  c.constraints.vls = static_cast<std::uint32_t>(o.integer("vls"));
  c.constraints.adaptiveSwitches = o.flag("adaptive-switches");
  c.constraints.inOrder = o.flag("in-order");
  c.simulate = !o.has("simulate") || o.flag("simulate");
  c.simulateAlways = o.has("simulate") && o.flag("simulate");
  c.simulateTerminals = static_cast<std::size_t>(o.integer("simulate-terminals"));
  c.simulateLeaders = static_cast<std::size_t>(o.integer("simulate-leaders"));
  c.simulateCycles = static_cast<std::uint64_t>(o.integer("simulate-cycles"));
  c.simulateSteps = static_cast<int>(o.integer("simulate-steps"));
  validateConstraints(c.constraints);  // the rows' range already; the library's own check agrees
  return r;
}

Comparison runCompare(const CompareRequest& request, const CallerRoutings& routings,
                      const std::function<void(const std::string&)>& progress) {
  CompareOptions options = request.compare;
  options.routings = routings;
  options.progress = progress;
  return compareEngines(options);
}

std::string compareResultJson(const Comparison& comparison) { return comparisonJson(comparison); }

}  // namespace routelab
