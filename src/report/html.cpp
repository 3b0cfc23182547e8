#include "report/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>

namespace routelab {

namespace {

constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#1d2430;background:#f5f6f8}
main{max-width:1240px;margin:0 auto;padding:20px 28px 40px}
h1{font-size:24px;margin:8px 0 2px}h2{font-size:18px;margin:28px 0 8px;border-bottom:2px solid #d8dde6;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 4px}.sub{color:#586174;margin:0 0 12px}
section{background:#fff;border:1px solid #e1e5ec;border-radius:8px;padding:4px 18px 14px;margin:14px 0}
#recommendation{border-left:6px solid #2e7d32}#recommendation p{font-size:15px}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{padding:4px 7px;border-bottom:1px solid #e6e9ef;text-align:right;white-space:nowrap}
th{background:#eef1f6;white-space:normal;vertical-align:bottom}td:nth-child(2),th:nth-child(2),td.l,th.l{text-align:left}
tr.refused td{color:#8a8f99}tr.failed td{background:#fff3f3}tr.first td{background:#eef8ee;font-weight:600}
figure{margin:10px 0}figcaption{color:#586174;font-size:12.5px;margin-top:2px}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;fill:#1d2430}
code,pre{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f0f2f5;border-radius:4px;padding:1px 4px}
td.reason{white-space:normal;color:#6b7280}.scroll{overflow-x:auto}
pre{padding:8px;white-space:pre-wrap;word-break:break-all}.note{color:#586174}ul{margin:4px 0}
)";

std::string esc(const std::string& text) { return htmlEscape(text); }

std::string id(const std::string& text) {
  std::string out;
  for (const char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return out;
}

std::string seconds(double s) { return fmt::format("<span class=\"t\">{:.2f}</span>", s); }

std::vector<const EngineComparison*> analysed(const Comparison& c) {
  std::vector<const EngineComparison*> out;
  for (const EngineComparison& e : c.engines) {
    if (e.rankingModel() != nullptr) out.push_back(&e);
  }
  return out;
}

struct Bar {
  std::string label;
  double value = 0, low = 0, high = 0;  ///< whisker [low, high] when high > low
  std::string text;
  std::string color;
};

/// A horizontal bar chart in one <figure class="chart">.
void barChart(std::ostream& out, const std::string& figureId, const std::string& caption,
              const std::vector<Bar>& bars) {
  const double labelWidth = 190, width = 760, row = 22, plot = width - labelWidth - 110;
  double top = 0;
  for (const Bar& b : bars) top = std::max({top, b.value, b.high});
  if (top <= 0) top = 1;
  const double height = row * static_cast<double>(bars.size()) + 10;
  out << "<h3>" << esc(caption.substr(0, caption.find(':'))) << "</h3>\n";
  out << fmt::format(
      "<figure class=\"chart\" id=\"{}\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
      "height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n",
      figureId, width, height, width, height, esc(caption));
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const double y = 5 + row * static_cast<double>(i);
    const double w = plot * b.value / top;
    out << fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", labelWidth - 8, y + 15,
                       esc(b.label));
    out << fmt::format("<rect x=\"{}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{}\" rx=\"2\" fill=\"{}\"/>", labelWidth,
                       y + 3, std::max(w, 1.0), row - 6, b.color);
    if (b.high > b.low) {
      const double x0 = labelWidth + plot * b.low / top, x1 = labelWidth + plot * b.high / top;
      out << fmt::format(
          "<path d=\"M{0:.1f} {2:.1f}H{1:.1f}M{0:.1f} {3:.1f}V{4:.1f}M{1:.1f} {3:.1f}V{4:.1f}\" stroke=\"#1d2430\" "
          "fill=\"none\"/>",
          x0, x1, y + row / 2, y + 6, y + row - 6);
    }
    out << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", labelWidth + std::max(w, plot * b.high / top) + 6,
                       y + 15, esc(b.text));
  }
  out << "</svg><figcaption>" << esc(caption) << "</figcaption></figure>\n";
}

std::string barColor(const EngineComparison& e) {
  if (!e.passed()) return "#d9534f";
  return e.origin == "OpenSM" ? "#7b61c4" : "#3b78c2";
}

void summaryCharts(std::ostream& out, const Comparison& c) {
  std::vector<Bar> abb, worst, shift, layers;
  for (const EngineComparison* e : analysed(c)) {
    const ModelMetrics& m = *e->rankingModel();
    const std::string label = e->name;
    abb.push_back({label, m.abb.mean, m.abb.mean - m.abb.ci99, m.abb.mean + m.abb.ci99,
                   fmt::format("{:.3f} ± {:.3f}", m.abb.mean, m.abb.ci99), barColor(*e)});
    worst.push_back({label, m.worst, m.worstLower, m.worst, fmt::format("{:g}", m.worst), barColor(*e)});
    shift.push_back({label, m.shiftMaxLoad, 0, 0, fmt::format("{:g}", m.shiftMaxLoad), barColor(*e)});
    layers.push_back({label, static_cast<double>(e->layersUsed), 0, 0, fmt::format("{}", e->layersUsed), barColor(*e)});
  }
  out << "<section id=\"figures\"><h2>Figures</h2>\n";
  barChart(out, "fig-abb", "ABB: mean of 1/ML over random bisect patterns, 99% confidence interval (higher is better)",
           abb);
  barChart(out, "fig-worst", "WORST: the largest load one permutation can put on a channel (lower is better)", worst);
  barChart(out, "fig-shift",
           "All-to-all as shifts: the largest channel load of the shift patterns i -> i+s (lower is better)", shift);
  barChart(out, "fig-layers", "Layers: virtual lanes the routing uses (fewer is better)", layers);
  out << "<p class=\"note\">Blue: routelab engines; purple: OpenSM's routings; red: fails verification "
         "(deadlock-prone).</p></section>\n";
}

/// Heat colour of a fraction in [0, 1]: pale yellow to dark red.
std::string heat(double f) {
  f = std::clamp(f, 0.0, 1.0);
  const int r = static_cast<int>(std::lround(255 - 75 * f));
  const int g = static_cast<int>(std::lround(245 - 215 * f));
  const int b = static_cast<int>(std::lround(200 - 170 * f));
  return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

void stageHeatMap(std::ostream& out, const EngineComparison& e, std::uint64_t top) {
  const double labelWidth = 190, width = 760, row = 20, plot = width - labelWidth - 130;
  const double height = row * static_cast<double>(e.stages.size()) + 8;
  out << fmt::format(
      "<figure class=\"chart heat\" id=\"fig-stages-{}\"><svg xmlns=\"http://www.w3.org/2000/svg\" "
      "width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">\n",
      id(e.name), width, height, width, height);
  for (std::size_t i = 0; i < e.stages.size(); ++i) {
    const StageHeat& s = e.stages[i];
    const double y = 4 + row * static_cast<double>(i);
    out << fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">levels {}-{} {}</text>", labelWidth - 8, y + 14,
                       s.summary.lowerLevel, s.summary.lowerLevel + 1, s.summary.ascending ? "up" : "down");
    const std::size_t bins = std::min<std::size_t>(s.paths.size(), 128);
    const double cell = plot / static_cast<double>(std::max<std::size_t>(bins, 1));
    for (std::size_t b = 0; b < bins; ++b) {
      const std::size_t from = b * s.paths.size() / bins, to = (b + 1) * s.paths.size() / bins;
      const std::uint64_t value = *std::max_element(s.paths.begin() + static_cast<std::ptrdiff_t>(from),
                                                    s.paths.begin() + static_cast<std::ptrdiff_t>(to));
      out << fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"/>",
                         labelWidth + cell * static_cast<double>(b), y + 2, cell + 0.3, row - 4,
                         heat(static_cast<double>(value) / static_cast<double>(std::max<std::uint64_t>(top, 1))));
    }
    out << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{}..{}{}</text>\n", labelWidth + plot + 6, y + 14,
                       s.summary.minPaths, s.summary.maxPaths, s.summary.balanced() ? " balanced" : "");
  }
  out << fmt::format(
      "</svg><figcaption>{}: paths per channel of each stage, {}, first path "
      "(min..max at the right; {} channels per stage drawn as at most 128 cells, each the largest "
      "count it covers; colour scale shared by every engine, darkest = {} paths)</figcaption></figure>\n",
      esc(e.name),
      e.stagesAllPairs ? "all ordered terminal pairs" : "the pairs of the evaluated shifts (a sample of all pairs)",
      e.stages.empty() ? 0 : e.stages.front().paths.size(), top);
}

void stageSection(std::ostream& out, const Comparison& c) {
  std::uint64_t top = 0;
  bool any = false;
  for (const EngineComparison& e : c.engines) {
    for (const StageHeat& s : e.stages) {
      any = true;
      top = std::max(top, s.summary.maxPaths);
    }
  }
  if (!any) return;
  out << "<section id=\"stages\"><h2>Channel load per stage</h2>\n<p class=\"note\">Gómez et al. 2007 Fig. 3: "
         "how many source–destination paths use each channel, stage by stage. An even colour along a row means the "
         "engine balances that stage.</p>\n";
  for (const EngineComparison& e : c.engines) {
    if (e.stages.empty()) continue;
    out << "<h3>" << esc(e.name) << "</h3>\n";
    stageHeatMap(out, e, top);
  }
  out << "</section>\n";
}

/// Per engine, every computed load model (adaptive and multipath engines differ by model).
void modelSection(std::ostream& out, const Comparison& c) {
  out << "<section id=\"models\"><h2>Metrics per load model</h2>\n<table><thead><tr><th class=\"l\">engine</th>"
         "<th>model</th><th>WORST</th><th>ABB</th><th>AFPB</th><th>ADB</th><th>shift max load</th>"
         "<th>shift mean 1/ML</th><th>mean hops</th></tr></thead><tbody>\n";
  for (const EngineComparison& e : c.engines) {
    for (const ModelMetrics& m : e.models) {
      auto bw = [](const ModelMetrics::Bandwidth& b) {
        if (b.samples == 0) return std::string("-");
        std::string text = fmt::format("{:.4f} ± {:.4f} ({} samples)", b.mean, b.ci99, b.samples);
        if (b.upperBound > b.mean + 1e-12) text += fmt::format(" ≤ {:.4f}", b.upperBound);
        return text;
      };
      const std::string worst =
          m.worstLower == m.worst ? fmt::format("{:g}", m.worst) : fmt::format("{:.3f}..{:.3f}", m.worstLower, m.worst);
      out << fmt::format(
          "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:g}"
          "</td><td>{:.4f}</td><td>{:.3f}</td></tr>\n",
          esc(e.name), loadModelName(m.model), worst, esc(bw(m.abb)), esc(bw(m.afpb)), esc(bw(m.adb)), m.shiftMaxLoad,
          m.shiftMeanBandwidth, e.meanHops);
    }
  }
  out << "</tbody></table></section>\n";
}

/// Latency–throughput curves (a simulator's load sweep): accepted load and latency against
/// offered load, one line per engine. Omitted when there are no points.
void latencySection(std::ostream& out, const Comparison& c) {
  if (c.latency.empty()) return;
  std::vector<std::string> engines;
  double maxOffered = 0, maxLatency = 0;
  for (const LatencyPoint& p : c.latency) {
    if (std::find(engines.begin(), engines.end(), p.engine) == engines.end()) engines.push_back(p.engine);
    maxOffered = std::max({maxOffered, p.offered, p.accepted});
    maxLatency = std::max(maxLatency, p.latency);
  }
  static const char* const palette[] = {"#3b78c2", "#d9534f", "#2e7d32", "#7b61c4", "#e08a1e", "#1b9aaa",
                                        "#8a5a44", "#c2185b", "#6d7f00", "#455a64", "#f06292", "#00897b"};
  out << "<section id=\"latency\"><h2>Latency and throughput (simulation)</h2>\n";
  for (const bool latency : {true, false}) {
    const double w = 760, h = 300, left = 60, bottom = 40, top = latency ? maxLatency : maxOffered;
    out << fmt::format(
        "<figure class=\"chart\" id=\"fig-{}\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
        "height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">\n",
        latency ? "latency" : "throughput", w, h, w, h);
    out << fmt::format("<path d=\"M{0} 10V{1}H{2}\" stroke=\"#586174\" fill=\"none\"/>", left, h - bottom, w - 150);
    auto x = [&](double v) { return left + (w - 150 - left) * v / std::max(maxOffered, 1e-12); };
    auto y = [&](double v) { return h - bottom - (h - bottom - 10) * v / std::max(top, 1e-12); };
    for (std::size_t k = 0; k < engines.size(); ++k) {
      std::string d;
      for (const LatencyPoint& p : c.latency) {
        if (p.engine != engines[k]) continue;
        d += fmt::format("{}{:.1f} {:.1f}", d.empty() ? "M" : "L", x(p.offered), y(latency ? p.latency : p.accepted));
      }
      // Beyond the palette, lines are dashed; the legend repeats each line's colour and dash.
      const char* color = palette[k % std::size(palette)];
      const char* dash = k >= std::size(palette) ? "6 3" : "none";
      out << fmt::format("<path d=\"{}\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"{}\" fill=\"none\"/>", d,
                         color, dash);
      out << fmt::format(
          "<path d=\"M{0} {1}h18\" stroke=\"{2}\" stroke-width=\"3\" stroke-dasharray=\"{3}\"/><text x=\"{4}\" "
          "y=\"{5}\" style=\"fill:{2}\">{6}</text>\n",
          w - 140, 16 + 16 * k, color, dash, w - 118, 20 + 16 * k, esc(engines[k]));
    }
    out << fmt::format(
        "<text x=\"{}\" y=\"{}\">offered load (max {:.3g})</text><text x=\"4\" y=\"20\">{} (max "
        "{:.3g})</text></svg><figcaption>{} against offered load</figcaption></figure>\n",
        left + 150, h - 10, maxOffered, latency ? "latency" : "accepted", top,
        latency ? "Mean packet latency" : "Accepted load");
  }
  out << "</section>\n";
}

void notesSection(std::ostream& out, const Comparison& c) {
  out << "<section id=\"refused\"><h2>Refused and notes</h2>\n<ul>\n";
  bool any = false;
  for (const EngineComparison& e : c.engines) {
    if (e.refused) {
      out << "<li><b>" << esc(e.name) << "</b> refused: " << esc(e.reason) << "</li>\n";
      any = true;
    }
    for (const std::string& note : e.notes) {
      out << "<li><b>" << esc(e.name) << "</b>: " << esc(note) << "</li>\n";
      any = true;
    }
    if (!e.refused && !e.method.empty()) {
      out << "<li><b>" << esc(e.name) << "</b> (" << esc(e.effective) << "): deadlock freedom by " << esc(e.method)
          << "</li>\n";
      any = true;
    }
  }
  if (!any) out << "<li>none</li>\n";
  out << "</ul></section>\n";
}

void timingSection(std::ostream& out, const Comparison& c) {
  out << "<section id=\"timings\"><h2>Timings (seconds)</h2>\n<table class=\"timing\"><thead><tr>"
         "<th class=\"l\">engine</th><th class=\"l\">stages</th><th>total</th></tr></thead><tbody>\n";
  for (const EngineComparison& e : c.engines) {
    double total = 0;
    std::string stages;
    for (const StageTiming& t : e.timings) {
      total += t.seconds;
      stages += fmt::format("{}{} {}", stages.empty() ? "" : " · ", esc(t.stage), seconds(t.seconds));
    }
    out << fmt::format("<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td></tr>\n", esc(e.name), stages,
                       seconds(total));
  }
  out << "</tbody></table></section>\n";
}

void configurationSection(std::ostream& out, const Comparison& c) {
  const CompareOptions& o = c.options;
  std::string engines;
  for (const std::string& e : o.engines) engines += (engines.empty() ? "" : " ") + e;
  out << "<section id=\"configuration\"><h2>Configuration</h2>\n<pre>" << esc(c.commandLine) << "</pre>\n<table>"
      << fmt::format(
             "<tr><td class=\"l\">version</td><td class=\"l\">{}</td></tr><tr><td class=\"l\">fabric</td><td "
             "class=\"l\">{}</td></tr><tr><td class=\"l\">seed</td><td class=\"l\">{}</td></tr><tr><td "
             "class=\"l\">engines</td><td class=\"l\">{}</td></tr><tr><td class=\"l\">sampling</td><td "
             "class=\"l\">stop when 99% half-width ≤ {} × mean, at most {} samples</td></tr><tr><td "
             "class=\"l\">all-to-all</td><td class=\"l\">{} of the {} shifts (--max-shifts {})</td></tr><tr><td "
             "class=\"l\">detail</td><td class=\"l\">AFPB, ADB and split load models up to {} terminals; beyond, "
             "analysis up to {} addresses per terminal; generic engines on fat-trees up to {} "
             "switches</td></tr><tr><td "
             "class=\"l\">OpenSM directory</td><td class=\"l\">{}</td></tr>",
             esc(c.version), esc(c.fabricSpec), o.seed, esc(engines), o.precision, o.maxSamples,
             evaluatedShifts(c.terminals, o.maxShifts).size(), c.terminals > 0 ? c.terminals - 1 : 0, o.maxShifts,
             o.detailTerminals, o.maxAddressesPerTerminal, o.genericEngineSwitches,
             o.opensmDirectory.empty() ? "-" : esc(o.opensmDirectory))
      << "</table></section>\n";
}

/// Marks the page: data-report-check="ok" when the table has one row per engine and every
/// figure holds a non-empty SVG (tests/cli/test_cli_compare.cpp reads it from the DOM).
constexpr const char* kCheckScript = R"(<script>
(function(){var p=[];var t=document.getElementById('ranking-table');
if(!t){p.push('no ranking table')}else{var n=+t.getAttribute('data-engines');var r=t.tBodies[0].rows.length;if(r!==n)p.push('rows '+r+' != '+n)}
var f=document.querySelectorAll('figure.chart');if(f.length===0)p.push('no figures');
for(var i=0;i<f.length;i++){var s=f[i].querySelector('svg');if(!s||s.childElementCount===0||s.getBoundingClientRect().width<10)p.push('empty figure '+f[i].id)}
document.documentElement.setAttribute('data-report-check',p.length?'fail: '+p.join('; '):'ok');
document.documentElement.setAttribute('data-figures',String(f.length));})();
</script>
)";

}  // namespace

std::string htmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void writeHtmlReport(const Comparison& c, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\" data-report-check=\"pending\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>routelab compare — " << esc(c.fabricSpec) << "</title>\n<style>" << kStyle << "</style>\n</head>\n"
      << "<body>\n<main>\n<h1>Routing engines on " << esc(c.fabricSpec) << "</h1>\n"
      << fmt::format("<p class=\"sub\">{} terminals, {} switches, {} channels · seed {} · {} · total time {} s</p>\n",
                     c.terminals, c.switches, c.channels, c.options.seed, esc(c.version), seconds(c.totalSeconds));
  out << "<section id=\"recommendation\"><h2>Recommendation</h2><p>" << esc(recommendation(c)) << "</p></section>\n";
  const auto rows = rankingTable(c);
  out << fmt::format(
      "<section id=\"ranking\"><h2>Ranking</h2>\n<div class=\"scroll\"><table id=\"ranking-table\" "
      "data-engines=\"{}\">\n",
      c.engines.size());
  out << "<thead><tr>";
  for (const std::string& h : rows.front()) out << "<th>" << esc(h) << "</th>";
  out << "</tr></thead>\n<tbody>\n";
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const EngineComparison& e = c.engines[i - 1];
    const char* cls = e.refused || e.notRun ? "refused" : !e.passed() ? "failed" : i == 1 ? "first" : "ok";
    out << "<tr class=\"" << cls << "\">";
    if (e.refused || e.notRun) {
      out << fmt::format("<td>-</td><td>{}</td><td>{}</td><td class=\"l reason\" colspan=\"{}\">{}</td></tr>\n",
                         esc(e.name), e.refused ? "refused" : "not run", rows[i].size() - 3,
                         esc(e.refused ? e.reason : e.notes.front()));
      continue;
    }
    for (const std::string& cell : rows[i]) out << "<td>" << esc(cell) << "</td>";
    out << "</tr>\n";
  }
  out << "</tbody></table></div>\n<p class=\"note\">Ranked: routings that pass verification first, then highest ABB, "
         "lowest WORST, fewest layers, fewest hops. WORST, ABB, AFPB, ADB and the shift load are given under the "
         "load model in the last column (docs/ANALYSIS.md): best-split for adaptive and multipath engines when it was "
         "computed, first-path otherwise; single-path engines give the same numbers under every model.</p></section>\n";
  summaryCharts(out, c);
  stageSection(out, c);
  modelSection(out, c);
  latencySection(out, c);
  notesSection(out, c);
  timingSection(out, c);
  configurationSection(out, c);
  out << "</main>\n" << kCheckScript << "</body>\n</html>\n";
}

}  // namespace routelab
