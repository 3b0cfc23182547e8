// The ranked table as text cells and the plain-language recommendation (report/comparison.h).
#include <fmt/format.h>

#include <cmath>

#include "report/comparison.h"

namespace routelab {

namespace {

std::string number(double value) {
  return value == std::floor(value) ? fmt::format("{:g}", value) : fmt::format("{:.3f}", value);
}

std::string worstText(const ModelMetrics& m) {
  return m.worstLower == m.worst ? number(m.worst) : fmt::format("{}..{}", number(m.worstLower), number(m.worst));
}

std::string bandwidthText(const ModelMetrics::Bandwidth& b) {
  if (b.samples == 0) return "-";
  return fmt::format("{:.3f} ± {:.3f}", b.mean, b.ci99);
}

std::string deadlockText(const EngineComparison& e) {
  if (e.notRun) return "not run";
  if (e.skipped) return "not analysed";
  if (!e.connected || !e.loopFree) return "NOT CONNECTED";
  return e.deadlockFree ? "yes" : "NO";
}

std::string layersText(const EngineComparison& e) {
  return e.layersUsed == e.layers ? fmt::format("{}", e.layers) : fmt::format("{} of {}", e.layersUsed, e.layers);
}

/// One engine's qualities in a phrase: "deadlock-free with 1 layer, ABB 0.5 ± 0.01 ...".
std::string qualities(const EngineComparison& e) {
  const ModelMetrics& m = *e.rankingModel();
  return fmt::format(
      "{} with {} layer{}, ABB {} ({}), worst-case permutation load {}, all-to-all shift max load {}, mean {:.2f} "
      "hops",
      e.deadlockFree ? "deadlock-free" : "NOT deadlock-free", e.layersUsed, e.layersUsed == 1 ? "" : "s",
      bandwidthText(m.abb), loadModelName(m.model), worstText(m), number(m.shiftMaxLoad), e.meanHops);
}

std::string join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : separator) + part;
  return out;
}

}  // namespace

std::vector<std::vector<std::string>> rankingTable(const Comparison& comparison) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"rank", "engine", "kind", "group", "deployable here", "VLs", "LIDs per terminal",
                  "LFT entries per switch", "in order", "deadlock-free", "mean hops", "WORST", "ABB", "shift max load",
                  "saturation (sim.)", "model"});
  std::size_t rank = 0;
  for (const EngineComparison& e : comparison.engines) {
    ++rank;
    const std::size_t blanks = rows.front().size() - 4;
    if (e.refused || e.notRun) {
      std::vector<std::string> row{"-", e.name, e.refused ? "refused" : "not run"};
      row.insert(row.end(), blanks, "");
      row.push_back(e.refused ? e.reason : "at this size (see the notes)");
      rows.push_back(std::move(row));
      continue;
    }
    const DeploymentProfile& d = e.deployment;
    const std::string deployable = !e.passed() || !e.notDeployable.empty() ? "no" : "yes";
    const std::string saturation =
        e.dynamic.simulated() ? fmt::format("{:.3f}", e.dynamic.meanSaturation) : std::string("-");
    std::vector<std::string> row{std::to_string(rank),
                                 e.name,
                                 d.kind,
                                 e.group > 0 ? std::to_string(e.group) : "-",
                                 deployable,
                                 layersText(e),
                                 std::to_string(d.addressesPerTerminal),
                                 std::to_string(d.entriesPerSwitch),
                                 d.inOrder ? "yes" : "no",
                                 deadlockText(e)};
    const ModelMetrics* m = e.rankingModel();
    if (m == nullptr) {
      row.insert(row.end(), {"-", "-", "-", "-", saturation, "-"});
    } else {
      row.insert(row.end(), {e.meanHops > 0 ? fmt::format("{:.2f}", e.meanHops) : "-", worstText(*m),
                             bandwidthText(m->abb), number(m->shiftMaxLoad), saturation, loadModelName(m->model)});
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

const EngineComparison* byName(const Comparison& c, const std::string& name) {
  for (const EngineComparison& e : c.engines) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

std::string percent(double change) { return fmt::format("{:+.0f} %", 100 * change); }

/// The simulator's numbers of a routing in a phrase ("mean saturation throughput 0.62 over
/// uniform 0.71, ...").
std::string dynamicText(const EngineComparison& e) {
  std::string patterns;
  for (const SimulatedPattern& p : e.dynamic.patterns) {
    patterns += fmt::format("{}{} {:.3f}", patterns.empty() ? "" : ", ", p.traffic, p.saturationAccepted);
  }
  return fmt::format("simulated saturation throughput {:.3f} on average ({}){}", e.dynamic.meanSaturation, patterns,
                     e.dynamic.inOrder ? ", with reorder buffers" : "");
}

std::string constraintsText(const FabricConstraints& c) {
  return fmt::format("{} VLs, {}{}", c.vls,
                     c.adaptiveSwitches ? "adaptive switches" : "LFT switches (one output per destination)",
                     c.inOrder ? ", in-order delivery required" : "");
}

}  // namespace

std::vector<std::string> recommendationParts(const Comparison& comparison) {
  const Verdict& v = comparison.verdict;
  std::string prone, refused, skipped, notRun, undeployable;
  for (const EngineComparison& e : comparison.engines) {
    if (e.refused) {
      refused += (refused.empty() ? "" : ", ") + e.name;
    } else if (e.notRun) {
      notRun += (notRun.empty() ? "" : ", ") + e.name;
    } else if (e.skipped) {
      skipped += (skipped.empty() ? "" : ", ") + e.name;
    } else if (!e.passed()) {
      prone += (prone.empty() ? "" : ", ") + e.name;
    } else if (!e.notDeployable.empty()) {
      undeployable += fmt::format("{}{} ({})", undeployable.empty() ? "" : ", ", e.name, join(e.notDeployable, "; "));
    }
  }
  std::vector<std::string> parts;
  const EngineComparison* best = v.recommended.empty() ? nullptr : byName(comparison, v.recommended);
  if (best == nullptr) {
    parts.push_back(
        fmt::format("No routing that passes verification (connected, loop-free and deadlock-free) is deployable "
                    "under these constraints ({}).",
                    constraintsText(comparison.options.constraints)));
  } else {
    std::string lead = fmt::format("Use {}: {}", best->name, qualities(*best));
    if (best->dynamic.simulated()) lead += "; " + dynamicText(*best);
    parts.push_back(lead + ".");
    parts.push_back(fmt::format("It is the best routing deployable under these constraints ({}): {} {}.",
                                constraintsText(comparison.options.constraints), best->deployment.kind,
                                best->deployment.lmc > 0 ? fmt::format("with LMC {}", best->deployment.lmc)
                                                         : std::string("with one LID per terminal")));
    if (v.disagree) {
      parts.push_back(fmt::format("Static and dynamic results disagree: the static ranking puts {} first, but {}.",
                                  v.staticLeader, v.why));
    } else if (!v.equals.empty()) {
      parts.push_back(
          fmt::format("Equal on every measured criterion: {}; named first because {}.", join(v.equals, ", "), v.why));
    }
    if (const EngineComparison* other =
            v.costlierAlternative.empty() ? nullptr : byName(comparison, v.costlierAlternative)) {
      parts.push_back(fmt::format(
          "The simulator measures {} ahead ({:.3f} against {:.3f} mean saturation throughput, {}), but it costs "
          "more to deploy: {}, {} LIDs per terminal, {} table entries per switch.",
          other->name, other->dynamic.meanSaturation, best->dynamic.meanSaturation,
          percent(other->dynamic.meanSaturation / best->dynamic.meanSaturation - 1), other->deployment.kind,
          other->deployment.addressesPerTerminal, other->deployment.entriesPerSwitch));
    } else if (!v.dynamicLeader.empty() && !v.disagree && v.dynamicLeader != best->name) {
      parts.push_back(fmt::format("The simulator puts {} slightly ahead, within its resolution ({:.3f}).",
                                  v.dynamicLeader, comparison.simulationResolution));
    }
    if (!best->deployment.deploy.empty()) parts.push_back("Deploy: " + join(best->deployment.deploy, " ; ") + ".");
    for (const Relaxation& r : v.relaxations) {
      if (r.engine.empty()) {
        parts.push_back(fmt::format("With {}: nothing better.", r.constraint));
        continue;
      }
      parts.push_back(fmt::format("With {}: {}, {} ABB", r.constraint, r.engine, percent(r.abbChange)) +
                      (r.simulated ? fmt::format(", {} simulated saturation throughput.", percent(r.saturationChange))
                                   : std::string(" (not simulated).")));
    }
  }
  if (!undeployable.empty()) parts.push_back("Not deployable here: " + undeployable + ".");
  if (!prone.empty()) parts.push_back("Not recommended (deadlock-prone or not delivering every pair): " + prone + ".");
  if (!skipped.empty()) parts.push_back("Too large to analyse at this size (see the notes): " + skipped + ".");
  if (!notRun.empty()) {
    parts.push_back(
        "Not run at this size (generic engines; see the notes, name one with --engine to run it): " + notRun + ".");
  }
  if (!refused.empty()) parts.push_back("Refused this fabric: " + refused + ".");
  return parts;
}

std::string recommendation(const Comparison& comparison) { return join(recommendationParts(comparison), " "); }

}  // namespace routelab
