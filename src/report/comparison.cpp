#include "report/comparison.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <tuple>

#include "analysis/loads.h"
#include "analysis/sampling.h"
#include "analysis/table_walks.h"
#include "core/errors.h"
#include "core/limits.h"
#include "engines/families.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "io/opensm_engine_dir.h"
#include "report/deployment.h"
#include "report/evidence.h"
#include "traffic/pattern.h"
#include "verify/verify.h"

namespace routelab {

namespace {

/// The sampling settings of a comparison (ABB/AFPB/ADB under every load model).
SamplingOptions samplingOptionsOf(const CompareOptions& options) {
  SamplingOptions sampling;
  sampling.seed = options.seed;
  sampling.precision = options.precision;
  sampling.maxSamples = options.maxSamples;
  sampling.threads = options.threads;
  return sampling;
}

using Clock = std::chrono::steady_clock;

/// Runs `step`, appends its wall time to `out.timings` under `name`, returns its result.
template <class Step>
auto timed(EngineComparison& out, const std::string& name, Step step) {
  const auto start = Clock::now();
  struct Record {
    EngineComparison& out;
    const std::string& name;
    Clock::time_point start;
    ~Record() { out.timings.push_back({name, std::chrono::duration<double>(Clock::now() - start).count()}); }
  } record{out, name, start};
  return step();
}

void say(const CompareOptions& options, const std::string& message) {
  if (options.progress) options.progress(message);
}

ModelMetrics::Bandwidth bandwidthOf(const SampledBandwidth& b) {
  return {b.mean, b.ci99HalfWidth, b.samples, b.converged, b.bandwidthUpperBound};
}

/// Per-stage path counts of every channel (fat-trees) over the evaluated shifts.
void stagesFromShifts(const Network& network, const ShiftLoads& loads, EngineComparison& out) {
  const XgftLabels& labels = *network.xgft();
  std::map<std::pair<std::size_t, bool>, std::vector<std::uint64_t>> byStage;  // (lower level, descending)
  for (std::size_t c = 0; c < network.channelCount(); ++c) {
    const ChannelId channel = ChannelId::fromIndex(c);
    const std::size_t from = labels.level[network.source(channel).index()];
    const std::size_t to = labels.level[network.target(channel).index()];
    byStage[{std::min(from, to), to < from}].push_back(loads.channelTotals[c]);
  }
  for (const StageCount& stage : groupByStage(network, loads.channelTotals)) {
    out.stages.push_back({stage, byStage[{stage.lowerLevel, !stage.ascending}]});
  }
}

/// The shift loads (max ML, mean 1/ML), mean hops and stage counts from the shift walks.
void shiftMetrics(const Network& network, const RoutingResult& routing, const CompareOptions& options, ModelMetrics& m,
                  EngineComparison& out) {
  const std::size_t n = network.terminalCount();
  const std::vector<std::int64_t> shifts = evaluatedShifts(n, options.maxShifts);
  const ShiftLoads shifted =
      timed(out, "shifts", [&] { return shiftLoads(network, routing, shifts, options.threads); });
  double sum = 0;
  for (const std::uint32_t ml : shifted.maxLoads) {
    m.shiftMaxLoad = std::max(m.shiftMaxLoad, static_cast<double>(ml));
    sum += 1.0 / ml;
  }
  if (!shifts.empty()) m.shiftMeanBandwidth = sum / static_cast<double>(shifts.size());
  if (shifted.pairs > 0) out.meanHops = static_cast<double>(shifted.hops) / static_cast<double>(shifted.pairs);
  out.stagesAllPairs = n >= 2 && shifts.size() == n - 1;
  if (network.xgft() != nullptr) stagesFromShifts(network, shifted, out);
}

/// WORST, ABB (AFPB, ADB up to detailTerminals) and the shift loads under the first-path
/// model (table walks, no pair store).
ModelMetrics firstPathMetrics(const Network& network, const RoutingResult& routing, const CompareOptions& options,
                              EngineComparison& out) {
  ModelMetrics m;
  m.model = LoadModel::FirstPath;
  const SplitWorstCase worst =
      timed(out, "worst", [&] { return worstUnderModel(network, routing, LoadModel::FirstPath, options.threads); });
  m.worst = m.worstLower = worst.value;
  const SamplingOptions sampling = samplingOptionsOf(options);
  const std::size_t n = network.terminalCount();
  if (n >= 2 && n % 2 == 0) {
    m.abb = bandwidthOf(
        timed(out, "abb", [&] { return sampleByWalks(network, routing, SampledPattern::Bisect, sampling); }));
    if (n <= options.detailTerminals) {
      m.afpb = bandwidthOf(timed(
          out, "afpb", [&] { return sampleByWalks(network, routing, SampledPattern::FullPermutation, sampling); }));
      m.adb = bandwidthOf(
          timed(out, "adb", [&] { return sampleByWalks(network, routing, SampledPattern::Dissemination, sampling); }));
    }
  } else {
    out.notes.push_back(fmt::format("ABB/AFPB/ADB need an even number of terminals (this fabric has {})", n));
  }
  shiftMetrics(network, routing, options, m, out);
  return m;
}

/// The same metrics under a split model (analysis/split.h: fractional loads).
ModelMetrics splitMetrics(const Network& network, const RoutingResult& routing, LoadModel model,
                          const CompareOptions& options, EngineComparison& out) {
  ModelMetrics m;
  m.model = model;
  const std::string suffix = model == LoadModel::EvenSplit ? " even-split" : " best-split";
  const SplitWorstCase worst =
      timed(out, "worst" + suffix, [&] { return worstUnderModel(network, routing, model, options.threads); });
  m.worst = worst.value;
  m.worstLower = worst.lower;
  const SamplingOptions sampling = samplingOptionsOf(options);
  const std::size_t n = network.terminalCount();
  if (n >= 2 && n % 2 == 0) {
    auto sample = [&](SampledPattern pattern, const std::string& name) {
      return bandwidthOf(timed(out, name + suffix,
                               [&] { return sampleBandwidthUnderModel(network, routing, pattern, model, sampling); }));
    };
    m.abb = sample(SampledPattern::Bisect, "abb");
    // Best-split is an upper bound that does not rank: its AFPB and ADB (each a flow problem
    // per sample, minutes on a few dozen switches) are left to `routelab analyze`.
    if (model != LoadModel::BestSplit) {
      m.afpb = sample(SampledPattern::FullPermutation, "afpb");
      m.adb = sample(SampledPattern::Dissemination, "adb");
    }
  }
  const std::vector<std::int64_t> shifts = evaluatedShifts(n, options.maxShifts);
  double sum = 0;
  timed(out, "shifts" + suffix, [&] {
    for (const std::int64_t s : shifts) {
      TrafficPattern pattern;
      pattern.spec = fmt::format("shift:s={}", s);
      pattern.terminals = n;
      pattern.pairs = shiftPairs(n, s);
      const double ml = std::max(1.0, patternLoads(network, routing, pattern, model).maxLoad);
      m.shiftMaxLoad = std::max(m.shiftMaxLoad, ml);
      sum += 1.0 / ml;
    }
    return 0;
  });
  if (!shifts.empty()) m.shiftMeanBandwidth = sum / static_cast<double>(shifts.size());
  return m;
}

void analyseRouting(const Network& network, const RoutingResult& routing, const CompareOptions& options,
                    EngineComparison& out);

/// Routings with at most this many table entries in all get a fingerprint of their tables.
constexpr std::uint64_t kFingerprintEntries = std::uint64_t{1} << 26;

/// FNV-1a over every table entry's candidates, the layers and the address blocks: equal for
/// routings that send every packet the same way in the same layer (0 when too large).
std::uint64_t tablesFingerprint(const Network& network, const RoutingResult& routing) {
  const std::uint64_t entries =
      static_cast<std::uint64_t>(routing.tables.size()) * network.switchCount() * routing.addresses.count();
  if (entries > kFingerprintEntries) return 0;
  std::uint64_t hash = 1469598103934665603ULL;
  auto mix = [&](std::uint64_t value) {
    hash ^= value;
    hash *= 1099511628211ULL;
  };
  for (const NodeId owner : routing.addresses.owners()) mix(routing.addresses.blockSize(owner));
  for (const std::uint16_t table : routing.tableOfLayer) mix(table);
  for (const std::uint8_t layer : routing.layerOf) mix(layer);
  for (const std::uint16_t allowed : routing.allowedLayers) mix(allowed);
  mix(static_cast<std::uint64_t>(routing.escapeLayer + 1));
  for (const ForwardingTable& table : routing.tables) {
    for (std::uint32_t s = 0; s < table.switchCount(); ++s) {
      for (Address a = 0; a < table.addressCount(); ++a) {
        const std::span<const PortNumber> candidates = table.candidates(s, a);
        mix(candidates.size());
        for (const PortNumber port : candidates) mix(port);
      }
    }
  }
  return hash == 0 ? 1 : hash;
}

/// The deployment profile and the constraint verdict of a routed routing.
void profileRouting(const Network& network, const RoutingResult& routing, const CompareOptions& options,
                    EngineComparison& out) {
  out.deployment = deploymentProfile(network, routing, out.layersUsed);
  if (out.origin == "OpenSM") {
    // OpenSM's own engine: the options it ran with (files they name are in the OpenSM
    // directory, options.opensmDirectory).
    out.deployment.deploy = {fmt::format(
        "opensm {}", out.opensmOptions.empty() ? "-R " + out.name.substr(out.name.find(':') + 1) : out.opensmOptions)};
    if (out.deployment.perPairSl) {
      out.deployment.deploy.push_back("the SLs come from OpenSM's own path records (-Q: QoS with its SL2VL tables)");
    }
  } else if (out.origin == "caller") {
    // A routing built by the caller: its tables go to OpenSM's file engine as an LFT dump.
    out.deployment.deploy = {"write its tables as an OpenSM LFT dump (Python: Routing.export(\"lft\", PATH))",
                             "opensm -R file -U PATH"};
  } else {
    out.deployment.deploy = routelabDeployCommands(out.deployment, options.spec, out.effective);
  }
  out.notDeployable = constraintViolations(out.deployment, options.constraints);
}

/// Verify and analyse one routing (ours or imported).
void evaluateRouting(const Network& network, const RoutingResult& routing, const CompareOptions& options,
                     EngineComparison& out) {
  out.effective = routing.engine;
  out.layers = out.layersUsed = routing.layerCount();
  out.tablesFingerprint = tablesFingerprint(network, routing);
  const std::size_t n = network.terminalCount();
  if (n > options.detailTerminals && routing.addresses.count() > options.maxAddressesPerTerminal * n) {
    profileRouting(network, routing, options, out);
    out.skipped = true;
    out.notes.push_back(fmt::format(
        "routed but not verified or analysed: {} addresses for {} terminals > --max-addresses-per-terminal {} above "
        "--detail-terminals {} ({} table entries: verification and WORST would take minutes); run routelab verify / "
        "analyze on it directly",
        routing.addresses.count(), n, options.maxAddressesPerTerminal, options.detailTerminals,
        static_cast<std::uint64_t>(routing.addresses.count()) * network.switchCount()));
    return;
  }
  say(options, fmt::format("  {}: verify", out.name));
  const VerifyResult verified = timed(out, "verify", [&] { return verifyRouting(network, routing); });
  out.connected = verified.connected;
  out.loopFree = verified.loopFree;
  out.deadlockFree = verified.deadlockFree;
  out.layers = verified.layers;
  out.layersUsed = verified.layersUsed;
  out.method = verified.method;
  profileRouting(network, routing, options, out);
  if (!out.connected || !out.loopFree) {
    out.notes.push_back("not analysed: the routing does not deliver every pair (see routelab verify)");
    return;
  }
  try {
    analyseRouting(network, routing, options, out);
  } catch (const AnalysisError& e) {  // e.g. a pair the walks cannot deliver: this routing only
    out.notes.push_back(std::string("analysis stopped: ") + e.what());
  } catch (const LimitError& e) {
    out.notes.push_back(std::string("analysis stopped: ") + e.what());
  }
}

/// The metrics of a verified routing: first-path, then the split models where they apply.
void analyseRouting(const Network& network, const RoutingResult& routing, const CompareOptions& options,
                    EngineComparison& out) {
  out.singlePath = isSinglePath(network, routing);
  out.adaptive =
      std::any_of(routing.tables.begin(), routing.tables.end(), [](const ForwardingTable& t) { return t.adaptive(); });
  const bool detail = network.terminalCount() <= options.detailTerminals;
  say(options, fmt::format("  {}: WORST, ABB{}, shifts (first-path)", out.name, detail ? "/AFPB/ADB" : ""));
  out.models.push_back(firstPathMetrics(network, routing, options, out));
  if (!detail) {
    out.notes.push_back(fmt::format("{} terminals > --detail-terminals {}: AFPB, ADB{} not computed",
                                    network.terminalCount(), options.detailTerminals,
                                    out.singlePath ? "" : ", even-split and best-split (ranked on first-path)"));
  }
  if (out.singlePath || !detail) return;
  for (const LoadModel model : {LoadModel::EvenSplit, LoadModel::BestSplit}) {
    say(options, fmt::format("  {}: WORST, ABB/AFPB/ADB, shifts ({})", out.name, loadModelName(model)));
    out.models.push_back(splitMetrics(network, routing, model, options, out));
  }
}

}  // namespace

std::vector<std::string> comparedEngines(const CompareOptions& options) {
  std::vector<std::string> specs = options.engines;
  if (specs.empty()) {
    for (const auto& row : engineRegistry().rows()) {
      if (row.name != "file") specs.push_back(row.name);
    }
  }
  for (const std::string& spec : specs) {
    const ComponentSpec parsed = parseComponentOrFile(spec);
    const auto& row = engineRegistry().find(parsed.name);
    (void)Options(parsed.name, row.options, parsed);
  }
  return specs;
}

namespace {

/// An engine of the irregular family (engines/families.h): any topology, no closed form.
bool isGenericEngine(const std::string& spec) {
  const std::string name = parseComponentOrFile(spec).name;
  for (const auto& row : irregularEngineRows()) {
    if (row.name == name) return true;
  }
  return false;
}

/// Routes and evaluates one engine; returns its routing when `keep` (for the simulator).
std::unique_ptr<RoutingResult> routeAndEvaluate(const Network& network, const std::string& spec,
                                                const CompareOptions& options, bool keep, EngineComparison& out) {
  out.name = spec;
  out.origin = "routelab";
  RoutingContext context;
  context.seed = options.seed;
  say(options, fmt::format("{}: route", spec));
  try {
    RoutingResult routing = timed(out, "route", [&] { return runEngine(spec, network, context); });
    evaluateRouting(network, routing, options, out);
    if (keep && out.passed() && !out.skipped) return std::make_unique<RoutingResult>(std::move(routing));
  } catch (const RoutingError& e) {  // UnsupportedTopology included: the engine refuses
    out.refused = true;
    out.reason = e.what();
  } catch (const LimitError& e) {  // beyond the memory budget at this size
    out.refused = true;
    out.reason = e.what();
  }
  return nullptr;
}

/// Whether compare simulates this fabric (CompareOptions: simulate, simulateTerminals).
bool simulates(const CompareOptions& options, std::size_t terminals) {
  return options.simulate && (options.simulateAlways || terminals <= options.simulateTerminals);
}

}  // namespace

std::vector<std::int64_t> evaluatedShifts(std::size_t terminals, std::size_t maxShifts) {
  std::vector<std::int64_t> shifts;
  if (terminals < 2 || maxShifts == 0) return shifts;
  const std::size_t all = terminals - 1;
  const std::size_t count = std::min(all, maxShifts);
  for (std::size_t i = 0; i < count; ++i) shifts.push_back(static_cast<std::int64_t>(1 + i * all / count));
  return shifts;
}

/// The caller's routings (CompareOptions::routings), verified and analysed as origin "caller";
/// `byListed` gains each (null when it is not simulated).
void evaluateCallerRoutings(const Fabric& fabric, const CompareOptions& options, bool keep, Comparison& result,
                            std::vector<const RoutingResult*>& byListed) {
  for (const auto& [name, routing] : options.routings) {
    if (routing == nullptr || routing->addresses.count() == 0 || routing->tables.empty() ||
        routing->tables.front().switchCount() != fabric.network.switchCount()) {
      throw SpecError(fmt::format("compare: routing '{}' does not route the fabric {} ({} switches)", name, fabric.spec,
                                  fabric.network.switchCount()));
    }
    EngineComparison& out = result.engines.emplace_back();
    out.listedOrder = byListed.size();
    out.name = name;
    out.origin = "caller";
    say(options, out.name);
    evaluateRouting(fabric.network, *routing, options, out);
    out.effective = out.name;
    byListed.push_back(out.passed() && !out.skipped && keep ? routing.get() : nullptr);
  }
}

Comparison compareEngines(const CompareOptions& options) {
  const auto start = Clock::now();
  validateConstraints(options.constraints);
  if (options.simulate && (options.simulateLeaders == 0 || options.simulateCycles == 0 || options.simulateSteps < 1 ||
                           options.simulateSteps > 20)) {
    throw SpecError(
        fmt::format("simulation of the leading routings needs --simulate-leaders >= 1, --simulate-cycles >= 1 and "
                    "--simulate-steps 1..20 (got {}, {}, {})",
                    options.simulateLeaders, options.simulateCycles, options.simulateSteps));
  }
  const std::vector<std::string> specs = comparedEngines(options);
  say(options, fmt::format("fabric {}", options.spec));
  const Fabric fabric = loadFabric(options.spec);
  Comparison result;
  result.options = options;
  result.options.progress = nullptr;
  result.options.engines = specs;
  result.fabricSpec = fabric.spec;
  result.terminals = fabric.network.terminalCount();
  result.switches = fabric.network.switchCount();
  result.channels = fabric.network.channelCount();
  result.fatTree = fabric.network.xgft() != nullptr;
  std::vector<OpensmEngineRun> imported;
  if (!options.opensmDirectory.empty()) {
    imported = readOpensmEngineDir(options.opensmDirectory, fabric.network, fabric.lids,
                                   "--opensm-dir '" + options.opensmDirectory + "'");
  }
  const bool leaveOutGeneric =
      options.engines.empty() && result.fatTree && result.switches > options.genericEngineSwitches;
  const bool keep = simulates(options, result.terminals);
  std::vector<std::unique_ptr<RoutingResult>> kept;  // by listed order, for the simulator
  std::vector<const RoutingResult*> byListed;
  for (const std::string& spec : specs) {
    const std::size_t listed = result.engines.size();
    if (leaveOutGeneric && isGenericEngine(spec)) {
      EngineComparison& out = result.engines.emplace_back();
      out.listedOrder = listed;
      byListed.push_back(nullptr);
      out.name = out.effective = spec;
      out.origin = "routelab";
      out.notRun = true;
      out.notes.push_back(fmt::format(
          "not run: a generic engine; its routing grows with switches x destinations or switch pairs (minutes to "
          "hours here), and this fat-tree has {} switches > --generic-engine-switches {} (name it with --engine to "
          "run it)",
          result.switches, options.genericEngineSwitches));
      continue;
    }
    EngineComparison& out = result.engines.emplace_back();
    out.listedOrder = listed;
    kept.push_back(routeAndEvaluate(fabric.network, spec, options, keep, out));
    byListed.push_back(kept.back().get());
  }
  for (OpensmEngineRun& run : imported) {
    EngineComparison& out = result.engines.emplace_back();
    out.listedOrder = byListed.size();
    out.name = "opensm:" + run.engine;
    out.origin = "OpenSM";
    out.refused = run.refused();
    out.reason = run.error;
    out.opensmOptions = run.opensmOptions;
    say(options, out.name);
    if (!out.refused) evaluateRouting(fabric.network, *run.routing, options, out);
    out.effective = out.name;
    byListed.push_back(out.passed() && !out.skipped && keep && run.routing ? &*run.routing : nullptr);
  }
  evaluateCallerRoutings(fabric, options, keep, result, byListed);
  rankEngines(result.engines);
  if (keep) simulateEvidence(fabric.network, byListed, options, result);
  result.verdict = decide(result);
  result.totalSeconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

namespace {

/// The class a routing ranks in: deployable, passing but not deployable here, failing,
/// not analysed, not run, refused (rankEngines).
int rankClass(const EngineComparison& e) {
  if (e.refused) return 5;
  if (e.notRun) return 4;
  if (e.skipped || (e.passed() && e.rankingModel() == nullptr)) return 3;
  if (!e.passed()) return e.rankingModel() != nullptr ? 2 : 3;
  return e.deployable() ? 0 : 1;
}

/// The measured criteria, better first.
std::tuple<double, double, double, double> measured(const EngineComparison& e) {
  const ModelMetrics* m = e.rankingModel();
  if (m == nullptr) return {0.0, 0.0, 0.0, 0.0};
  return {-m->abb.mean, m->worst, m->shiftMaxLoad, e.meanHops};
}

}  // namespace

bool sameMeasuredRank(const EngineComparison& a, const EngineComparison& b) {
  const ModelMetrics* x = a.rankingModel();
  const ModelMetrics* y = b.rankingModel();
  if (x == nullptr || y == nullptr) return false;
  // ABB is sampled: equal when the difference lies within the 99% half-width of the difference
  // of two independent estimates. WORST, the shift load and the hop count are exact.
  const double abbTolerance = std::sqrt(x->abb.ci99 * x->abb.ci99 + y->abb.ci99 * y->abb.ci99);
  return std::abs(x->abb.mean - y->abb.mean) <= abbTolerance && x->worst == y->worst &&
         x->shiftMaxLoad == y->shiftMaxLoad && std::abs(a.meanHops - b.meanHops) <= 1e-9;
}

void rankEngines(std::vector<EngineComparison>& engines) {
  auto byCost = [](const EngineComparison& a, const EngineComparison& b) {
    if (!sameDeploymentCost(a.deployment, b.deployment)) return cheaperToDeploy(a.deployment, b.deployment);
    if ((a.origin == "OpenSM") != (b.origin == "OpenSM")) return a.origin == "OpenSM";
    return a.listedOrder < b.listedOrder;
  };
  std::stable_sort(engines.begin(), engines.end(), [&](const EngineComparison& a, const EngineComparison& b) {
    if (rankClass(a) != rankClass(b)) return rankClass(a) < rankClass(b);
    if (measured(a) != measured(b)) return measured(a) < measured(b);
    return byCost(a, b);
  });
  // Groups (docs/COMPARE.md): from the best remaining routing of a class, every remaining
  // routing measured equal to it (sameMeasuredRank) joins its group, also one sorted after a
  // routing that is not (ABB lower but within the tolerance, a WORST better than the one
  // between); within a group the cheaper deployment comes first.
  std::size_t group = 0;
  for (std::size_t i = 0; i < engines.size();) {
    if (rankClass(engines[i]) > 2 || engines[i].rankingModel() == nullptr) {
      engines[i++].group = 0;
      continue;
    }
    std::size_t classEnd = i + 1;
    while (classEnd < engines.size() && rankClass(engines[classEnd]) == rankClass(engines[i])) ++classEnd;
    const auto first = engines.begin() + static_cast<std::ptrdiff_t>(i);
    const auto equal = std::stable_partition(first + 1, engines.begin() + static_cast<std::ptrdiff_t>(classEnd),
                                             [&](const EngineComparison& e) { return sameMeasuredRank(*first, e); });
    const auto end = static_cast<std::size_t>(equal - engines.begin());
    std::stable_sort(first, equal, byCost);
    ++group;
    for (; i < end; ++i) engines[i].group = group;
  }
}

}  // namespace routelab
