#include "report/figures.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string_view>

namespace routelab {

namespace {

constexpr std::string_view kDeployable = "#2e7d32", kNotDeployable = "#9aa3b1", kFailing = "#d9534f";
constexpr std::array<std::string_view, 8> kPalette = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                                      "#ff7f0e", "#17becf", "#8c564b", "#e377c2"};

/// A data-file string: in double quotes, without the characters that would end it.
std::string dataString(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) out += c == '"' || c == '\\' || c == '\n' ? '\'' : c;
  return out + "\"";
}

std::string colorOf(const EngineComparison& e) {
  if (!e.passed()) return std::string(kFailing);
  return std::string(e.deployable() ? kDeployable : kNotDeployable);
}

const char* const kCommon =
    "set termoption noenhanced\n"
    "set grid ytics xtics lc rgb '#d8dde6' lw 1 dt 1\n"
    "set border 3 lc rgb '#586174'\nset tics nomirror\n";

/// The four ranking metrics per analysed routing, in ranking order.
FigureSpec metricsFigure(const Comparison& c) {
  FigureSpec f;
  f.id = "fig-metrics";
  f.title = "Ranking metrics per routing";
  f.caption =
      "Static metrics of every analysed routing in ranking order (docs/ANALYSIS.md), under its ranking load model. "
      "ABB: mean of 1/ML over random bisect patterns, bars with the 99% confidence interval (fraction of link "
      "bandwidth, higher is better). WORST: the largest number of one permutation's pairs that share a channel "
      "(lower is better). All-to-all: the largest channel load of the shifts i -> i+s (paths, lower is better). "
      "VLs: virtual lanes the traffic uses. Green: deployable under the constraints; grey: passes verification "
      "but not deployable here; red: fails verification.";
  std::string data = "$metrics << EOD\n";
  std::size_t count = 0;
  for (const EngineComparison& e : c.engines) {
    const ModelMetrics* m = e.rankingModel();
    if (m == nullptr) continue;
    data += fmt::format("{} {} {:.6g} {:.6g} {:.6g} {:.6g} {} 0x{}\n", count++, dataString(e.name), m->abb.mean,
                        m->abb.ci99, m->worst, m->shiftMaxLoad, e.layersUsed, colorOf(e).substr(1));
  }
  data += "EOD\n";
  if (count == 0) return {};
  f.height = 720;
  f.script = data + kCommon +
             fmt::format(
                 "set xrange [-0.6:{}]\nset xtics rotate by 35 right font ',10'\n"
                 "set style fill solid 0.85 border lc rgb '#1d2430'\nset boxwidth 0.7\nset yrange [0:*]\n"
                 "set lmargin 10\nset bmargin 9\nset tmargin 4\nset multiplot layout 2,2\n",
                 static_cast<double>(count) - 0.4);
  const std::string key = fmt::format(
      ", NaN with boxes lc rgb '{}' title 'deployable here', NaN with boxes lc rgb '{}' title 'not deployable here', "
      "NaN with boxes lc rgb '{}' title 'fails verification'",
      kDeployable, kNotDeployable, kFailing);
  f.script +=
      "set title 'ABB (higher is better)'\nset ylabel 'ABB (fraction of link bandwidth)'\n"
      "set key at screen 0.5,0.995 center top horizontal font ',11' samplen 2\n"
      "plot $metrics using 1:3:(0.7):8:xtic(2) with boxes lc rgb variable notitle, '' using 1:3:4 with yerrorbars "
      "lc rgb '#1d2430' pt 7 ps 0.3 lw 1.5 title '99% confidence interval'" +
      key +
      "\nset key off\nset title 'WORST (lower is better)'\nset ylabel 'pairs of one permutation on a channel'\n"
      "plot $metrics using 1:5:(0.7):8:xtic(2) with boxes lc rgb variable notitle\n"
      "set title 'All-to-all as shifts (lower is better)'\nset ylabel 'largest channel load (paths)'\n"
      "plot $metrics using 1:6:(0.7):8:xtic(2) with boxes lc rgb variable notitle\n"
      "set title 'Virtual lanes used (fewer is cheaper)'\nset ylabel 'VLs'\nset ytics 1\n"
      "plot $metrics using 1:7:(0.7):8:xtic(2) with boxes lc rgb variable notitle\n"
      "unset multiplot\n";
  return f;
}

/// The simulated routings and their patterns' names (every simulated routing has the same).
std::vector<const EngineComparison*> simulated(const Comparison& c) {
  std::vector<const EngineComparison*> out;
  for (const EngineComparison& e : c.engines) {
    if (e.dynamic.simulated()) out.push_back(&e);
  }
  return out;
}

/// One panel per pattern, one line per simulated routing: latency against accepted traffic up
/// to the knee (latency = true), or accepted against offered traffic at every point.
FigureSpec simulationFigure(const Comparison& c, bool latency) {
  const std::vector<const EngineComparison*> routings = simulated(c);
  FigureSpec f;
  if (routings.empty()) return f;
  f.id = latency ? "fig-latency" : "fig-throughput";
  f.title = latency ? "Latency against accepted traffic (simulation)" : "Accepted against offered traffic (simulation)";
  f.caption = latency
                  ? fmt::format(
                        "Mean packet latency (cycles, injection to delivery of the tail) against accepted traffic "
                        "(flits per terminal per cycle) of every simulated point below saturation, per pattern; "
                        "the large dot is the saturation knee (the highest offered load found unsaturated, "
                        "resolution {:.3f}). Solid lines: deployable here; dashed: not deployable here "
                        "(simulated for contrast). Gómez 2007 §5.1's model (docs/SIMULATION.md).",
                        c.simulationResolution)
                  : "Accepted traffic against offered traffic (flits per terminal per cycle) at every simulated point, "
                    "saturated ones included; the thin diagonal is accepted = offered. Solid lines: deployable here; "
                    "dashed: not deployable here.";
  f.height = 760;
  std::string data;
  const std::size_t patterns = routings.front()->dynamic.patterns.size();
  for (std::size_t r = 0; r < routings.size(); ++r) {
    for (std::size_t p = 0; p < patterns && p < routings[r]->dynamic.patterns.size(); ++p) {
      const SimulatedPattern& pattern = routings[r]->dynamic.patterns[p];
      data += fmt::format("$r{}p{} << EOD\n", r, p);
      for (const SimulatedPattern::Point& point : pattern.points) {
        if (latency && point.load > pattern.saturationLoad + 1e-12) continue;
        data += fmt::format("{:.6g} {:.6g} {:.6g}\n", point.offered, point.accepted, point.latency);
      }
      data += "EOD\n";
      data += fmt::format("$k{}p{} << EOD\n", r, p);
      for (const SimulatedPattern::Point& point : pattern.points) {
        if (std::abs(point.load - pattern.saturationLoad) < 1e-12) {
          data += fmt::format("{:.6g} {:.6g} {:.6g}\n", point.offered, point.accepted, point.latency);
          break;
        }
      }
      data += "EOD\n";
    }
  }
  f.script = data + kCommon + "set multiplot layout 2,2\nset key top left font ',10' opaque\n";
  f.script += latency ? "set xlabel 'accepted traffic (flits/terminal/cycle)'\nset ylabel 'mean latency (cycles)'\n"
                        "set xrange [0:*]\nset yrange [0:*]\n"
                      : "set xlabel 'offered traffic (flits/terminal/cycle)'\nset ylabel 'accepted traffic "
                        "(flits/terminal/cycle)'\nset xrange [0:1]\nset yrange [0:1]\n";
  for (std::size_t p = 0; p < patterns; ++p) {
    f.script += fmt::format("set title {}\nplot ", gnuplotQuoted(routings.front()->dynamic.patterns[p].traffic));
    std::string plots;
    for (std::size_t r = 0; r < routings.size(); ++r) {
      const std::string_view color = kPalette[r % kPalette.size()];
      const int dash = routings[r]->deployable() ? 1 : 2;
      const std::string title = p == 0 ? gnuplotQuoted(routings[r]->name) : std::string("''");
      const std::string columns = latency ? "2:3" : "1:2";
      plots += fmt::format("{}$r{}p{} using {} with linespoints lw 2 pt 7 ps 0.6 dt {} lc rgb '{}' {}",
                           plots.empty() ? "" : ", ", r, p, columns, dash, color,
                           p == 0 ? "title " + title : std::string("notitle"));
      plots += fmt::format(", $k{}p{} using {} with points pt 7 ps 1.8 lc rgb '{}' notitle", r, p, columns, color);
    }
    if (!latency) plots += ", x with lines lc rgb '#9aa3b1' lw 1 notitle";
    if (p == 0 && latency) plots += ", NaN with points pt 7 ps 1.8 lc rgb '#1d2430' title 'saturation knee'";
    f.script += plots + "\n";
    if (p == 0) f.script += "set key off\n";
  }
  f.script += "unset multiplot\n";
  return f;
}

/// A short id from a name: letters and digits kept, the rest '-'.
std::string idOf(const std::string& text) {
  std::string out;
  for (const char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

/// Gómez 2007 Fig. 3 per engine: the paths of every channel, stage by stage, as a row of cells
/// (at most 128 per stage, each the largest count it covers), one colour scale for all.
std::vector<FigureSpec> stageFigures(const Comparison& c) {
  std::vector<FigureSpec> figures;
  std::uint64_t top = 1;
  for (const EngineComparison& e : c.engines) {
    for (const StageHeat& stage : e.stages) top = std::max(top, stage.summary.maxPaths);
  }
  for (const EngineComparison& e : c.engines) {
    if (e.stages.empty()) continue;
    FigureSpec f;
    f.id = "fig-stages-" + idOf(e.name);
    f.title = e.name;
    f.caption = fmt::format(
        "{}: paths per channel of each stage over {}, first path (Gómez 2007 Fig. 3). Each row is one stage and "
        "direction, its {} channels drawn as at most 128 cells, each the largest count it covers; right: min..max. "
        "Colour scale shared by every engine (darkest = {} paths); an even row means the stage is balanced.",
        e.name, e.stagesAllPairs ? "all ordered terminal pairs" : "the pairs of the evaluated shifts (a sample)",
        e.stages.front().paths.size(), top);
    const std::size_t rows = e.stages.size();
    f.height = static_cast<int>(90 + 30 * rows);  // 30 pixels per stage row, 90 for the title and the x label
    std::string cells = "$cells << EOD\n", ytics, y2tics;
    for (std::size_t r = 0; r < rows; ++r) {
      const StageHeat& stage = e.stages[r];
      const std::size_t bins = std::max<std::size_t>(1, std::min<std::size_t>(stage.paths.size(), 128));
      for (std::size_t b = 0; b < bins && !stage.paths.empty(); ++b) {
        const std::size_t from = b * stage.paths.size() / bins, to = (b + 1) * stage.paths.size() / bins;
        const std::uint64_t value = *std::max_element(stage.paths.begin() + static_cast<std::ptrdiff_t>(from),
                                                      stage.paths.begin() + static_cast<std::ptrdiff_t>(to));
        cells += fmt::format("{:.6g} {} {:.6g} {}\n", (static_cast<double>(b) + 0.5) / static_cast<double>(bins), r,
                             0.5 / static_cast<double>(bins), value);
      }
      ytics += fmt::format("{}'levels {}-{} {}' {}", ytics.empty() ? "" : ", ", stage.summary.lowerLevel,
                           stage.summary.lowerLevel + 1, stage.summary.ascending ? "up" : "down", r);
      y2tics += fmt::format("{}'{}..{}{}' {}", y2tics.empty() ? "" : ", ", stage.summary.minPaths,
                            stage.summary.maxPaths, stage.summary.balanced() ? " balanced" : "", r);
    }
    cells += "EOD\n";
    f.script = cells + "set termoption noenhanced\nset border 0\nunset xtics\nset xrange [0:1]\n" +
               fmt::format(
                   "set yrange [{}:-0.5] reverse\nset ytics ({}) nomirror scale 0\n"
                   "set y2range [{}:-0.5] reverse\nset y2tics ({}) scale 0\n",
                   static_cast<double>(rows) - 0.5, ytics, static_cast<double>(rows) - 0.5, y2tics) +
               fmt::format(
                   "set cbrange [0:{}]\nset cblabel 'paths per channel'\n"
                   "set palette defined (0 '#fff5c8', 0.5 '#f08c3c', 1 '#b41e1e')\n"
                   "set lmargin 16\nset rmargin at screen 0.72\n"
                   "set colorbox user origin screen 0.86,0.3 size screen 0.012,0.55\n"
                   "set xlabel 'channels of the stage, in channel order'\n"
                   "plot $cells using 1:2:3:(0.42):4 with boxxyerror fc palette fs solid noborder notitle\n",
                   top);
    figures.push_back(std::move(f));
  }
  return figures;
}

}  // namespace

std::string gnuplotQuoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

std::vector<FigureSpec> comparisonFigures(const Comparison& comparison) {
  std::vector<FigureSpec> figures;
  for (FigureSpec f :
       {metricsFigure(comparison), simulationFigure(comparison, true), simulationFigure(comparison, false)}) {
    if (!f.script.empty()) figures.push_back(std::move(f));
  }
  for (FigureSpec& f : stageFigures(comparison)) figures.push_back(std::move(f));
  return figures;
}

}  // namespace routelab
