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

std::string kindText(const EngineComparison& e) {
  if (e.singlePath) return "deterministic";
  return e.adaptive ? "adaptive" : "multipath";
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

/// Equal on every ranking criterion (both analysed).
bool sameRank(const EngineComparison& a, const EngineComparison& b) {
  const ModelMetrics& x = *a.rankingModel();
  const ModelMetrics& y = *b.rankingModel();
  return x.abb.mean == y.abb.mean && x.worst == y.worst && a.layersUsed == b.layersUsed && a.meanHops == b.meanHops;
}

/// The other passing engines equal to `best` on every ranking criterion, comma-separated.
std::string tiedWith(const Comparison& comparison, const EngineComparison& best) {
  std::string ties;
  for (const EngineComparison& e : comparison.engines) {
    if (&e != &best && e.passed() && e.rankingModel() != nullptr && sameRank(e, best)) {
      ties += (ties.empty() ? "" : ", ") + e.name;
    }
  }
  return ties;
}

}  // namespace

std::vector<std::vector<std::string>> rankingTable(const Comparison& comparison) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"rank", "engine", "kind", "layers", "deadlock-free", "mean hops", "WORST", "ABB", "AFPB", "ADB",
                  "shift max load", "model"});
  std::size_t rank = 0;
  for (const EngineComparison& e : comparison.engines) {
    ++rank;
    if (e.refused) {
      rows.push_back({"-", e.name, "refused", "", "", "", "", "", "", "", "", e.reason});
      continue;
    }
    if (e.notRun) {
      rows.push_back({"-", e.name, "not run", "", "", "", "", "", "", "", "", "at this size (see the notes)"});
      continue;
    }
    const ModelMetrics* m = e.rankingModel();
    if (m == nullptr) {
      rows.push_back(
          {std::to_string(rank), e.name, "-", layersText(e), deadlockText(e), "-", "-", "-", "-", "-", "-", "-"});
      continue;
    }
    rows.push_back({std::to_string(rank), e.name, kindText(e), layersText(e), deadlockText(e),
                    e.meanHops > 0 ? fmt::format("{:.2f}", e.meanHops) : "-", worstText(*m), bandwidthText(m->abb),
                    bandwidthText(m->afpb), bandwidthText(m->adb), number(m->shiftMaxLoad), loadModelName(m->model)});
  }
  return rows;
}

std::string recommendation(const Comparison& comparison) {
  const EngineComparison* best = nullptr;
  const EngineComparison* second = nullptr;
  std::string prone, refused, skipped, notRun;
  for (const EngineComparison& e : comparison.engines) {
    if (e.passed() && e.rankingModel() != nullptr) {
      if (best == nullptr) {
        best = &e;
      } else if (second == nullptr && !sameRank(e, *best)) {
        second = &e;
      }
    } else if (e.refused) {
      refused += (refused.empty() ? "" : ", ") + e.name;
    } else if (e.notRun) {
      notRun += (notRun.empty() ? "" : ", ") + e.name;
    } else if (e.skipped) {
      skipped += (skipped.empty() ? "" : ", ") + e.name;
    } else {
      prone += (prone.empty() ? "" : ", ") + e.name;
    }
  }
  std::string text;
  if (best == nullptr) {
    text = "No routing passed verification (connected, loop-free and deadlock-free) on this fabric.";
  } else {
    text = fmt::format(
        "Use {}: {}. It ranks first among the routings that pass verification: highest ABB, then lowest "
        "worst-case load, fewest layers.",
        best->name, qualities(*best));
    const std::string ties = tiedWith(comparison, *best);
    if (!ties.empty()) text += " Equal on every ranked criterion (ordered by name): " + ties + ".";
    if (second != nullptr) text += fmt::format(" Runner-up {}: {}.", second->name, qualities(*second));
  }
  if (!prone.empty()) text += " Not recommended (deadlock-prone or not delivering every pair): " + prone + ".";
  if (!skipped.empty()) text += " Too large to analyse at this size (see the notes): " + skipped + ".";
  if (!notRun.empty()) {
    text += " Not run at this size (generic engines; see the notes, name one with --engine to run it): " + notRun + ".";
  }
  if (!refused.empty()) text += " Refused this fabric: " + refused + ".";
  return text;
}

}  // namespace routelab
