// routelab/report/comparison.h — the main job as data: every applicable routing engine on
// one fabric, routed, verified, analysed and ranked (docs/COMPARE.md).
//
// compareEngines() routes the fabric with every engine of the registry (or the ones asked
// for); an engine that throws UnsupportedTopology or RoutingError is kept as refused with
// its message. Each routing is verified (verify/verify.h: connected, loop-free,
// deadlock-free, layers), its worst-case permutation load WORST (analysis/worst.h, split.h),
// its sampled average bandwidths ABB/AFPB/ADB (Nienaber §II/§IV, the stopping rule of
// analysis/sampling.h), the maximum channel load of the all-to-all exchange done as N-1
// shifts (Zahavi 2009), and, on fat-trees, the paths per channel of every stage (Gómez
// Fig. 3; analysis/stages.h) over the same shifts — every pair when all N-1 are evaluated.
// Adaptive and multipath engines are measured under every load model (analysis/split.h) up
// to CompareOptions::detailTerminals terminals and first-path beyond. Routings imported from OpenSM
// (readOpensmEngineDir, io/opensm_engine_dir.h) are measured the same way and ranked beside routelab's.
//
// Above CompareOptions::genericEngineSwitches switches on a fat-tree, the default list leaves
// the generic engines out (listed as not run, ranked after the routed ones).
//
// Every routing gets a deployment profile (report/deployment.h) and is checked against the
// fabric's constraints (CompareOptions::constraints): deployable here, or the reasons it is
// not. Up to CompareOptions::simulateTerminals terminals, the leading deployable routings and
// the best routing that is not deployable are simulated (sim/simulator.h, Gómez §5.1's model)
// under several traffic patterns: saturation throughput and latency at 50% and 80% of the
// lowest saturation point of each pattern (DynamicEvidence).
//
// Ranking (rankEngines): routings that pass verification (connected, loop-free,
// deadlock-free) and are deployable here first, then those that pass but are not deployable,
// then the failing, the unanalysed, the not run and the refused. Within each: the highest ABB
// under the ranking model (even-split where computed, else first-path), the lowest WORST, the
// lowest all-to-all shift load, the lowest mean hop count. From the best routing of a class,
// the routings measured equal to it (sameMeasuredRank: ABB within the sampling's 99%
// confidence) form one group (EngineComparison::group), ordered by deployment cost
// (cheaperToDeploy),
// then routings imported from OpenSM before routelab's (OpenSM configures them natively),
// then the order the engines were listed in. The name never decides.
//
// The library never prints: progress goes to CompareOptions::progress. The result is a
// function of the options (seed included) apart from the timings.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/split.h"
#include "graph/network.h"
#include "report/deployment.h"
#include "routing/checks.h"
#include "routing/routing_result.h"

namespace routelab {

struct CompareOptions {
  std::string spec = "kary-ntree:k=4,n=3";  ///< fabric spec (fabric/fabric.h)
  std::vector<std::string> engines;         ///< engine specs; empty = every registry row but `file`
  std::uint64_t seed = 1;                   ///< engines' tie-breaks and the sampled patterns
  double precision = 0.01;                  ///< sampled metrics: stop at half-width <= precision x mean
  std::uint64_t maxSamples = 1ULL << 16;    ///< sampled metrics: at most this many samples
  std::size_t maxShifts = 256;              ///< all-to-all: evaluate at most this many shifts (spread evenly)
  /// Up to this many terminals: AFPB, ADB and the even-/best-split load models too; beyond,
  /// the ranking metrics only (verify, WORST, ABB, shifts, first-path), docs/COMPARE.md.
  std::size_t detailTerminals = 1024;
  /// Above detailTerminals, routings with more addresses per terminal are routed but not
  /// analysed: their verification and WORST take minutes (S-mod-k's address per source
  /// class: 256 per terminal, 2^30 table entries on 4096 terminals).
  std::size_t maxAddressesPerTerminal = 8;
  /// On a fat-tree (XGFT labels) with more switches than this, the default engine list
  /// leaves out the generic engines of the irregular family (minhop, UpDown, MROOTS, the LASH
  /// family, Escape: their routing grows with switches x destinations or switch pairs, from
  /// minutes to hours at 16,384 switches) and keeps the fat-tree engines, which compute the
  /// same kind of tables in closed form. They are listed as not run; naming one with
  /// `engines` runs it.
  std::size_t genericEngineSwitches = 4096;
  int threads = 0;              ///< 0 = every core; results do not depend on it
  std::string opensmDirectory;  ///< OpenSM routings to rank beside ours (empty: none)
  /// Routings built by the caller (the Python package's routings written in Python), ranked
  /// beside the engines' as origin "caller" under their name; each must route the fabric of
  /// `spec` (SpecError otherwise). Deployed through an LFT dump (OpenSM's file engine).
  std::vector<std::pair<std::string, std::shared_ptr<const RoutingResult>>> routings;
  /// What the fabric offers: the recommendation comes from the routings deployable under it.
  FabricConstraints constraints;
  // ---- dynamic evidence (docs/COMPARE.md "Dynamic evidence") ----
  bool simulate = true;                  ///< simulate the leading routings (fabrics up to simulateTerminals)
  std::size_t simulateTerminals = 1024;  ///< larger fabrics are not simulated unless simulateAlways
  bool simulateAlways = false;           ///< simulate whatever the fabric's size
  std::size_t simulateLeaders = 3;       ///< deployable routings simulated (distinct tables), best first
  std::uint64_t simulateCycles = 5000;   ///< measured cycles per simulated point
  int simulateSteps = 6;                 ///< halvings of the saturation search on (0, 1]
  /// Called with a one-line message before each long step (the CLI prints it on stderr).
  std::function<void(const std::string&)> progress;
};

/// WORST and the sampled bandwidths of one routing under one load model.
struct ModelMetrics {
  LoadModel model = LoadModel::FirstPath;
  double worst = 0;       ///< WORST (best-split: the achievable upper bound)
  double worstLower = 0;  ///< best-split: certified lower bound; else == worst
  struct Bandwidth {
    double mean = 0, ci99 = 0;
    std::uint64_t samples = 0;
    bool converged = false;
    double upperBound = 0;  ///< best-split: the exact mean lies in [mean, upperBound]
  };
  Bandwidth abb, afpb, adb;
  double shiftMaxLoad = 0;        ///< max over the evaluated shifts of ML
  double shiftMeanBandwidth = 0;  ///< mean over the evaluated shifts of 1/ML
};

/// One stage of the per-stage heat map: the paths of each of its channels, summed over the
/// evaluated shifts (all ordered pairs when every shift is evaluated: Gómez Fig. 3).
struct StageHeat {
  StageCount summary;
  std::vector<std::uint64_t> paths;  ///< per channel of the stage, in channel id order
};

struct StageTiming {
  std::string stage;  ///< "route", "verify", "worst", "abb", ...
  double seconds = 0;
};

/// One traffic pattern of a routing's simulation (Gómez §5.1's model, CompareOptions).
struct SimulatedPattern {
  std::string traffic;                      ///< the simulator's traffic spec
  double saturationLoad = 0;                ///< highest offered load found unsaturated (the knee)
  double saturationAccepted = 0;            ///< accepted traffic there: the saturation throughput
  double referenceLoad = 0;                 ///< the lowest saturation load of this pattern over the simulated routings
  double latencyAt50 = 0, latencyAt80 = 0;  ///< mean packet latency (cycles) at 50% / 80% of referenceLoad
  double acceptedAt50 = 0, acceptedAt80 = 0;  ///< accepted traffic at those loads
  /// Per-source accepted traffic at 80%: Jain's fairness index and the least a source got
  /// (SimResult::sourceFairness, sourceAcceptedMin; a starving source shows here).
  double fairnessAt80 = 0, worstSourceAt80 = 0;
  /// Every simulated point of the pattern (the saturation search and the two latency loads),
  /// by load: the configured load, the offered and accepted traffic measured in the window,
  /// the mean packet latency, whether it saturated.
  struct Point {
    double load = 0, offered = 0, accepted = 0, latency = 0;
    bool saturated = false;
  };
  std::vector<Point> points;
};

/// The simulator's evidence for one routing (empty when it was not simulated).
struct DynamicEvidence {
  std::string why;       ///< "leading deployable routing" / "best routing not deployable here"
  bool inOrder = false;  ///< simulated with reorder buffers and end-to-end flow control
  std::vector<SimulatedPattern> patterns;
  double meanSaturation = 0;  ///< mean saturation throughput over the patterns
  std::vector<StageTiming> timings;
  bool simulated() const { return !patterns.empty(); }
};

struct EngineComparison {
  std::string name;       ///< engine spec as asked (or "opensm:<engine>")
  std::string origin;     ///< "routelab", "OpenSM" or "caller" (CompareOptions::routings)
  std::string effective;  ///< effective engine spec (options filled in)
  bool refused = false;
  std::string reason;    ///< refused: the engine's message
  bool skipped = false;  ///< routed, but too large to analyse (CompareOptions::maxAddressesPerTerminal)
  bool notRun = false;   ///< not routed at this size (CompareOptions::genericEngineSwitches); why in notes
  // Verification.
  bool connected = false, loopFree = false, deadlockFree = false;
  std::size_t layers = 0, layersUsed = 0;
  std::string method;  ///< how deadlock freedom was decided
  // Routing kind.
  bool singlePath = true;
  bool adaptive = false;             ///< several candidates somewhere
  double meanHops = 0;               ///< channels per terminal pair (all pairs), 0 if not computed
  std::vector<ModelMetrics> models;  ///< first-path first; split models when computed
  std::vector<StageHeat> stages;     ///< fat-trees only
  bool stagesAllPairs = false;       ///< stages count every ordered pair (every shift evaluated)
  std::vector<std::string> notes;    ///< what was skipped and why
  std::vector<StageTiming> timings;
  // Deployment (report/deployment.h), for every routed routing.
  DeploymentProfile deployment;
  std::vector<std::string> notDeployable;  ///< what it needs beyond the constraints; empty = deployable here
  std::string opensmOptions;               ///< OpenSM routings: the options OpenSM ran with
  std::uint64_t tablesFingerprint = 0;     ///< equal for identical routings (0: not computed)
  std::size_t listedOrder = 0;             ///< position in the list of compared routings
  std::size_t group = 0;                   ///< 1-based measured-equality group among the ranked (0: none)
  DynamicEvidence dynamic;
  bool passed() const { return !refused && connected && loopFree && deadlockFree; }
  bool deployable() const { return passed() && !skipped && !notRun && notDeployable.empty(); }
  /// The model the ranking uses: even-split when computed (a multipath source or an oblivious
  /// switch spreads a pair's traffic evenly over its paths, as the simulator does), else
  /// first-path. Best-split, the upper bound an ideal adaptive split reaches, is reported but
  /// does not rank (docs/COMPARE.md).
  const ModelMetrics* rankingModel() const {
    for (const ModelMetrics& m : models) {
      if (m.model == LoadModel::EvenSplit) return &m;
    }
    return models.empty() ? nullptr : &models.front();
  }
};

/// What relaxing one constraint would buy (measured: the best routing deployable only under
/// the relaxed constraint against the recommended one).
struct Relaxation {
  std::string constraint;       ///< "adaptive switches", "15 VLs", "out-of-order delivery"
  std::string engine;           ///< the best routing it admits (empty: none better)
  double abbChange = 0;         ///< relative ABB change against the recommendation (0.08 = +8%)
  bool simulated = false;       ///< both simulated: saturationChange holds
  double saturationChange = 0;  ///< relative mean saturation throughput change
};

/// The decision: which routing to deploy and why.
struct Verdict {
  std::string recommended;    ///< engine name; empty when nothing is deployable
  std::string staticLeader;   ///< the first deployable routing by the static ranking
  std::string dynamicLeader;  ///< the simulated deployable routing with the highest mean saturation throughput
  /// The simulator measured the dynamic leader ahead of the static leader by more than its
  /// resolution, and it costs no more to deploy: it is recommended.
  bool disagree = false;
  /// The dynamic leader was measured ahead but costs more to deploy: the static leader stays
  /// recommended and this one is named with what it would buy and cost.
  std::string costlierAlternative;
  std::vector<std::string> equals;  ///< routings in the recommended one's group
  std::string why;                  ///< why this one among its group (deployment cost, identical tables, ...)
  std::vector<Relaxation> relaxations;
};

struct Comparison {
  CompareOptions options;  ///< effective configuration (progress cleared)
  std::string fabricSpec;  ///< effective spec
  std::size_t terminals = 0, switches = 0, channels = 0;
  bool fatTree = false;                   ///< XGFT labels known (stage heat maps)
  std::vector<EngineComparison> engines;  ///< in ranking order (refused last)
  Verdict verdict;
  double simulationResolution = 0;  ///< load step of the saturation search ((1 - 0.01) / 2^steps)
  std::string commandLine;          ///< as typed (set by the caller)
  std::string version;              ///< tool version (set by the caller)
  double totalSeconds = 0;
};

/// Route, verify and analyse `options.spec` with every engine; throws SpecError for an
/// unknown engine name or option, the fabric loader's errors for a bad spec, IoError /
/// ParseError for an unreadable OpenSM directory. Engines refusing the fabric are listed.
Comparison compareEngines(const CompareOptions& options);

/// The engine specs compareEngines() runs: options.engines, or every registry row but
/// `file`. Throws SpecError for an unknown engine or option (call it before any work).
std::vector<std::string> comparedEngines(const CompareOptions& options);

/// Sort `engines` into ranking order and number the groups (see the header comment).
void rankEngines(std::vector<EngineComparison>& engines);

/// Equal on every measured ranking criterion (both analysed): WORST, the all-to-all shift load
/// and the mean hop count exactly, ABB within the 99% half-width of the difference of the two
/// sampled means (sqrt(ci_a^2 + ci_b^2)).
bool sameMeasuredRank(const EngineComparison& a, const EngineComparison& b);

/// The decision from a ranked comparison (fills Comparison::verdict's fields from
/// `comparison.engines`; `resolution` is the simulator's load step).
Verdict decide(const Comparison& comparison);

/// For each constraint that can be relaxed (adaptive switches, 15 VLs, out-of-order delivery),
/// the best analysed routing deployable only under the relaxed constraint (distinct names, in
/// that order): the routings the simulator measures for contrast.
std::vector<std::string> relaxationLeaders(const Comparison& comparison);

/// The traffic patterns of the dynamic evidence on `terminals` terminals: uniform, a random
/// permutation, the all-to-all shift s = N/2, and uniform traffic with 5% to one hot spot
/// (Gómez Fig. 6).
std::vector<std::string> evidencePatterns(std::size_t terminals);

/// The plain-language recommendation: which routing to use and why (one paragraph: the
/// sentences of recommendationParts joined).
std::string recommendation(const Comparison& comparison);
/// The recommendation's sentences: the choice, why under the constraints, the equal ones and
/// why this one is named, what the simulator says, how to deploy it, what relaxing each
/// constraint would buy, and what is not deployable, not recommended or refused.
std::vector<std::string> recommendationParts(const Comparison& comparison);

/// The ranked table as text cells: a header row, then one row per engine (refused ones say
/// so). Shared by the terminal output and the HTML report.
std::vector<std::vector<std::string>> rankingTable(const Comparison& comparison);

/// The whole comparison as JSON text: configuration (seed and constraints), verdict, and per
/// routing its metrics, deployment profile, constraint verdict and simulated points.
std::string comparisonJson(const Comparison& comparison);

/// The shifts the all-to-all load evaluates on `terminals` terminals: every s = 1..N-1 when
/// that is at most `maxShifts`, else `maxShifts` of them spread evenly (always s = 1).
std::vector<std::int64_t> evaluatedShifts(std::size_t terminals, std::size_t maxShifts);

}  // namespace routelab
