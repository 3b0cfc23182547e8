// The decision of a comparison (report/comparison.h `decide`, docs/COMPARE.md "Decision
// rule"): the static leader is the first deployable routing of the ranking; where the
// simulator measured a deployable routing whose mean saturation throughput beats the static
// leader's by more than the saturation search's resolution and that costs no more to deploy,
// that one is recommended and the disagreement is said; one that costs more is named as the
// alternative, with what it would buy and cost. Each relaxed constraint is measured by the best routing it admits.
#include <fmt/format.h>

#include <algorithm>

#include "report/comparison.h"

namespace routelab {

namespace {

/// Why `chosen` is named before `other`, both in one measured group: the first deployment
/// criterion that differs, or that they are the same routing, or the listing rule.
std::string namedBefore(const EngineComparison& chosen, const EngineComparison& other) {
  const DeploymentProfile& a = chosen.deployment;
  const DeploymentProfile& b = other.deployment;
  if (!other.deployable() && chosen.deployable()) {
    return fmt::format("{} is not deployable here ({})", other.name, other.notDeployable.front());
  }
  if (a.vls != b.vls) return fmt::format("{} needs {} VLs, this one {}", other.name, b.vls, a.vls);
  if (a.addressesPerTerminal != b.addressesPerTerminal) {
    return fmt::format("{} needs {} addresses per terminal, this one {}", other.name, b.addressesPerTerminal,
                       a.addressesPerTerminal);
  }
  if (a.entriesPerSwitch != b.entriesPerSwitch) {
    return fmt::format("{} needs {} table entries per switch, this one {}", other.name, b.entriesPerSwitch,
                       a.entriesPerSwitch);
  }
  if (a.kind != b.kind) return fmt::format("{} is {}, this one {}", other.name, b.kind, a.kind);
  if (a.inOrder != b.inOrder) return fmt::format("{} is not in order by construction", other.name);
  if (chosen.tablesFingerprint != 0 && chosen.tablesFingerprint == other.tablesFingerprint) {
    return fmt::format("{} computes identical tables (the same routing)", other.name);
  }
  if (chosen.origin == "OpenSM" && other.origin != "OpenSM") {
    return fmt::format("{} costs the same, and OpenSM configures this one natively", other.name);
  }
  return fmt::format("{} costs the same to deploy and was listed later", other.name);
}

/// The best routing, by measured criteria then deployment cost, among the passing analysed
/// routings that `admits` accepts.
template <class Admits>
const EngineComparison* bestAdmitted(const Comparison& c, Admits admits) {
  const EngineComparison* best = nullptr;
  for (const EngineComparison& e : c.engines) {
    if (!e.passed() || e.skipped || e.rankingModel() == nullptr || !admits(e)) continue;
    if (best == nullptr) {
      best = &e;
      continue;
    }
    const ModelMetrics& m = *e.rankingModel();
    const ModelMetrics& n = *best->rankingModel();
    const auto key = [](const ModelMetrics& x, const EngineComparison& y) {
      return std::make_tuple(-x.abb.mean, x.worst, x.shiftMaxLoad, y.meanHops);
    };
    if (key(m, e) < key(n, *best)) best = &e;
  }
  return best;
}

/// Each constraint of `given` relaxed in turn, with its name.
std::vector<std::pair<std::string, FabricConstraints>> relaxations(const FabricConstraints& given) {
  std::vector<std::pair<std::string, FabricConstraints>> out;
  if (!given.adaptiveSwitches) {
    FabricConstraints relaxed = given;
    relaxed.adaptiveSwitches = true;
    out.emplace_back("adaptive switches", relaxed);
  }
  if (given.vls < FabricConstraints::kMaxVls) {
    FabricConstraints relaxed = given;
    relaxed.vls = FabricConstraints::kMaxVls;
    out.emplace_back(fmt::format("{} VLs", FabricConstraints::kMaxVls), relaxed);
  }
  if (given.inOrder) {
    FabricConstraints relaxed = given;
    relaxed.inOrder = false;
    out.emplace_back("out-of-order delivery", relaxed);
  }
  return out;
}

/// The best routing deployable under `relaxed` but not under the comparison's constraints.
const EngineComparison* bestRelaxed(const Comparison& c, const FabricConstraints& relaxed) {
  return bestAdmitted(c, [&](const EngineComparison& e) {
    return !e.notDeployable.empty() && constraintViolations(e.deployment, relaxed).empty();
  });
}

void addRelaxation(const Comparison& c, const EngineComparison& chosen, const std::string& name,
                   const FabricConstraints& relaxed, Verdict& verdict) {
  Relaxation r;
  r.constraint = name;
  const EngineComparison* best = bestRelaxed(c, relaxed);
  if (best != nullptr && !sameMeasuredRank(*best, chosen)) {
    const double abb = best->rankingModel()->abb.mean, base = chosen.rankingModel()->abb.mean;
    if (abb > base || best->rankingModel()->worst < chosen.rankingModel()->worst) {
      r.engine = best->name;
      r.abbChange = base > 0 ? abb / base - 1 : 0;
      r.simulated = best->dynamic.simulated() && chosen.dynamic.simulated() && chosen.dynamic.meanSaturation > 0;
      if (r.simulated) r.saturationChange = best->dynamic.meanSaturation / chosen.dynamic.meanSaturation - 1;
    }
  }
  verdict.relaxations.push_back(std::move(r));
}

}  // namespace

std::vector<std::string> relaxationLeaders(const Comparison& comparison) {
  std::vector<std::string> names;
  for (const auto& [name, relaxed] : relaxations(comparison.options.constraints)) {
    const EngineComparison* best = bestRelaxed(comparison, relaxed);
    if (best != nullptr && std::find(names.begin(), names.end(), best->name) == names.end()) {
      names.push_back(best->name);
    }
  }
  return names;
}

Verdict decide(const Comparison& c) {
  Verdict v;
  const EngineComparison* leader = nullptr;
  const EngineComparison* dynamic = nullptr;
  for (const EngineComparison& e : c.engines) {
    if (!e.deployable() || e.rankingModel() == nullptr) continue;
    if (leader == nullptr) leader = &e;
    if (e.dynamic.simulated() && (dynamic == nullptr || e.dynamic.meanSaturation > dynamic->dynamic.meanSaturation)) {
      dynamic = &e;
    }
  }
  if (leader == nullptr) return v;
  v.staticLeader = leader->name;
  const EngineComparison* chosen = leader;
  if (dynamic != nullptr) {
    v.dynamicLeader = dynamic->name;
    if (dynamic != leader && leader->dynamic.simulated() &&
        dynamic->dynamic.meanSaturation > leader->dynamic.meanSaturation + c.simulationResolution) {
      if (cheaperToDeploy(leader->deployment, dynamic->deployment)) {
        v.costlierAlternative = dynamic->name;
      } else {
        v.disagree = true;
        chosen = dynamic;
      }
    }
  }
  v.recommended = chosen->name;
  std::string why;
  for (const EngineComparison& e : c.engines) {
    if (&e == chosen || !e.passed() || !sameMeasuredRank(e, *chosen)) continue;
    v.equals.push_back(e.name);
    if (!v.disagree) why += (why.empty() ? "" : "; ") + namedBefore(*chosen, e);
  }
  if (v.disagree) {
    why = fmt::format(
        "the simulator measured {:.3f} mean saturation throughput for it against {:.3f} for {}, "
        "the static leader (resolution {:.3f})",
        chosen->dynamic.meanSaturation, leader->dynamic.meanSaturation, leader->name, c.simulationResolution);
  }
  v.why = why;
  for (const auto& [name, relaxed] : relaxations(c.options.constraints)) addRelaxation(c, *chosen, name, relaxed, v);
  return v;
}

}  // namespace routelab
