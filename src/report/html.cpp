#include "report/html.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>

namespace routelab {

namespace {

constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0;color:#1d2430;background:#f5f6f8}
main{max-width:1360px;margin:0 auto;padding:20px 28px 40px}
h1{font-size:24px;margin:8px 0 2px}h2{font-size:18px;margin:28px 0 8px;border-bottom:2px solid #d8dde6;padding-bottom:4px}
h3{font-size:15px;margin:16px 0 4px}.sub{color:#586174;margin:0 0 12px}
section{background:#fff;border:1px solid #e1e5ec;border-radius:8px;padding:4px 18px 14px;margin:14px 0}
#recommendation{border-left:6px solid #2e7d32}#recommendation p{font-size:15px}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{padding:4px 5px;border-bottom:1px solid #e6e9ef;text-align:right;white-space:nowrap}
th{background:#eef1f6;white-space:normal;vertical-align:bottom}td:nth-child(2),th:nth-child(2),td.l,th.l{text-align:left}
tr.refused td{color:#8a8f99}tr.failed td{background:#fff3f3}tr.first td{background:#eef8ee;font-weight:600}
figure{margin:10px 0}figcaption{color:#586174;font-size:12.5px;margin-top:2px}
svg text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;fill:#1d2430}
code,pre{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f0f2f5;border-radius:4px;padding:1px 4px}
td.reason{white-space:normal;color:#6b7280}.scroll{overflow-x:auto}
pre{padding:8px;white-space:pre-wrap;word-break:break-all}.note{color:#586174}ul{margin:4px 0}
table.timing td{white-space:normal}td.deploy{white-space:normal;min-width:260px;max-width:480px}td.reason{min-width:200px}
#recommendation p.lead{font-size:16px;font-weight:600}ul.why li{margin:3px 0}details pre{margin:4px 0}
tr.undeployable td{color:#586174}figure.chart svg{max-width:100%;height:auto}
)";

std::string esc(const std::string& text) { return htmlEscape(text); }

std::string seconds(double s) { return fmt::format("<span class=\"t\">{:.2f}</span>", s); }

/// The rendered gnuplot figures (report/figures.h), each in one <figure class="chart">.
void figuresSection(std::ostream& out, const std::vector<RenderedFigure>& figures, const std::string& section,
                    const std::string& heading, bool simulation) {
  bool any = false;
  for (const RenderedFigure& f : figures) {
    if (f.spec.id.rfind("fig-stages-", 0) == 0) continue;  // stageSection
    const bool isSimulation = f.spec.id != "fig-metrics";
    if (isSimulation != simulation) continue;
    if (!any) out << "<section id=\"" << section << "\"><h2>" << esc(heading) << "</h2>\n";
    any = true;
    out << "<h3>" << esc(f.spec.title) << "</h3>\n<figure class=\"chart\" id=\"" << esc(f.spec.id) << "\">" << f.svg
        << "<figcaption>" << esc(f.spec.caption) << "</figcaption></figure>\n";
  }
  if (any) out << "</section>\n";
}

std::string yesNo(bool value) { return value ? "yes" : "no"; }

/// What each routing needs from the fabric and how to deploy it (report/deployment.h).
void deploymentSection(std::ostream& out, const Comparison& c) {
  const FabricConstraints& k = c.options.constraints;
  out << "<section id=\"deployment\"><h2>Deployment</h2>\n"
      << fmt::format(
             "<p class=\"note\">The fabric offers {} data VLs, {}{} (--vls, --adaptive-switches, --in-order). "
             "Every routing is also held to InfiniBand's limits: LMC at most {}, {} unicast LIDs.</p>\n",
             k.vls,
             k.adaptiveSwitches ? "switches that choose among several outputs (adaptive)"
                                : "switches with one output per destination (LFT)",
             k.inOrder ? "; the application needs in-order delivery" : "", kMaxLmc, kUnicastLids)
      << "<div class=\"scroll\"><table id=\"deployment-table\"><thead><tr><th class=\"l\">engine</th><th "
         "class=\"l\">deployable here</th><th>kind</th><th>switches</th><th>VLs</th><th>LMC</th><th>LIDs per "
         "terminal</th><th>LFT entries per switch</th><th>tables</th><th>SL per pair</th><th>in order</th><th "
         "class=\"l\">how to deploy</th></tr></thead><tbody>\n";
  for (const EngineComparison& e : c.engines) {
    if (e.refused || e.notRun) continue;
    const DeploymentProfile& d = e.deployment;
    std::string verdict = !e.passed() ? "no: fails verification" : e.notDeployable.empty() ? "yes" : "no: ";
    for (std::size_t i = 0; i < e.notDeployable.size() && e.passed(); ++i) {
      verdict += (i > 0 ? "; " : "") + e.notDeployable[i];
    }
    std::string deploy;
    for (const std::string& line : d.deploy) deploy += esc(line) + "\n";
    deploy = deploy.empty() ? std::string("no subnet manager configures it: needs adaptive switches")
                            : fmt::format("<details><summary>{} command{}</summary><pre>{}</pre></details>",
                                          d.deploy.size(), d.deploy.size() == 1 ? "" : "s", deploy);
    out << fmt::format(
        "<tr class=\"{}\"><td class=\"l\">{}</td><td class=\"l reason\">{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"l deploy\">{}</td></tr>\n",
        e.deployable() ? "ok" : "refused", esc(e.name), esc(verdict), d.kind,
        d.switchModel == SwitchModel::Lft ? "LFT" : "adaptive", d.vls, d.lmc, d.addressesPerTerminal,
        d.entriesPerSwitch, d.tables, yesNo(d.perPairSl), yesNo(d.inOrder), deploy);
  }
  out << "</tbody></table></div></section>\n";
}

/// The simulator's numbers per simulated routing and pattern.
void evidenceSection(std::ostream& out, const Comparison& c) {
  bool any = false;
  for (const EngineComparison& e : c.engines) any = any || e.dynamic.simulated();
  if (!any) return;
  out << "<section id=\"evidence\"><h2>Simulated evidence</h2>\n<p class=\"note\">Gómez 2007 §5.1's model "
         "(docs/SIMULATION.md), "
      << fmt::format(
             "{} measured cycles per point, seed {}. Saturation throughput: accepted traffic at the highest "
             "offered load found unsaturated (bisection, resolution {:.3f}). Latency (cycles) at 50% and 80% "
             "of the lowest saturation load of the pattern, so every routing is measured at the same loads. "
             "Fairness: Jain's index of the per-source accepted traffic at 80% (1 = every source alike) and "
             "the least a source got.",
             c.options.simulateCycles, c.options.seed, c.simulationResolution)
      << "</p>\n<div class=\"scroll\"><table id=\"evidence-table\"><thead><tr><th class=\"l\">engine</th><th "
         "class=\"l\">why simulated</th><th class=\"l\">pattern</th><th>saturation load</th><th>saturation "
         "throughput</th><th>load at 50%</th><th>latency at 50%</th><th>load at 80%</th><th>latency at "
         "80%</th><th>Jain's index at 80%</th><th>worst source at 80%</th></tr></thead><tbody>\n";
  for (const EngineComparison& e : c.engines) {
    for (const SimulatedPattern& p : e.dynamic.patterns) {
      out << fmt::format(
          "<tr><td class=\"l\">{}</td><td class=\"l\">{}{}</td><td class=\"l\">{}</td><td>{:.3f}</td><td>{:.3f}</td>"
          "<td>{:.3f}</td><td>{:.1f}</td><td>{:.3f}</td><td>{:.1f}</td><td>{:.3f}</td><td>{:.3f}</td></tr>\n",
          esc(e.name), esc(e.dynamic.why), e.dynamic.inOrder ? " (reorder buffers)" : "", esc(p.traffic),
          p.saturationLoad, p.saturationAccepted, 0.5 * p.referenceLoad, p.latencyAt50, 0.8 * p.referenceLoad,
          p.latencyAt80, p.fairnessAt80, p.worstSourceAt80);
    }
  }
  out << "</tbody></table></div></section>\n";
}

/// The per-stage heat maps (rendered "fig-stages-*" figures).
void stageSection(std::ostream& out, const std::vector<RenderedFigure>& figures) {
  bool any = false;
  for (const RenderedFigure& f : figures) {
    if (f.spec.id.rfind("fig-stages-", 0) != 0) continue;
    if (!any) {
      out << "<section id=\"stages\"><h2>Channel load per stage</h2>\n<p class=\"note\">Gómez et al. 2007 Fig. 3: "
             "how many source–destination paths use each channel, stage by stage. An even colour along a row means "
             "the engine balances that stage.</p>\n";
    }
    any = true;
    out << "<h3>" << esc(f.spec.title) << "</h3>\n<figure class=\"chart heat\" id=\"" << esc(f.spec.id) << "\">"
        << f.svg << "<figcaption>" << esc(f.spec.caption) << "</figcaption></figure>\n";
  }
  if (any) out << "</section>\n";
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
    for (const std::vector<StageTiming>* list : {&e.timings, &e.dynamic.timings}) {
      for (const StageTiming& t : *list) {
        total += t.seconds;
        stages += fmt::format("{}{} {}", stages.empty() ? "" : " · ", esc(t.stage), seconds(t.seconds));
      }
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
             "class=\"l\">OpenSM directory</td><td class=\"l\">{}</td></tr><tr><td class=\"l\">constraints</td><td "
             "class=\"l\">--vls {}{}{}</td></tr><tr><td class=\"l\">simulation</td><td class=\"l\">{}</td></tr>",
             esc(c.version), esc(c.fabricSpec), o.seed, esc(engines), o.precision, o.maxSamples,
             evaluatedShifts(c.terminals, o.maxShifts).size(), c.terminals > 0 ? c.terminals - 1 : 0, o.maxShifts,
             o.detailTerminals, o.maxAddressesPerTerminal, o.genericEngineSwitches,
             o.opensmDirectory.empty() ? "-" : esc(o.opensmDirectory), o.constraints.vls,
             o.constraints.adaptiveSwitches ? " --adaptive-switches" : "", o.constraints.inOrder ? " --in-order" : "",
             !o.simulate ? std::string("off")
                         : fmt::format("up to {} terminals{}: {} leading deployable routings + each relaxed "
                                       "constraint's best; {} cycles per point; saturation search with {} halvings",
                                       o.simulateTerminals, o.simulateAlways ? " (--simulate: any size)" : "",
                                       o.simulateLeaders, o.simulateCycles, o.simulateSteps))
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

void writeHtmlReport(const Comparison& c, std::ostream& out) { writeHtmlReport(c, {}, out); }

void writeHtmlReport(const Comparison& c, const std::vector<RenderedFigure>& figures, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\" data-report-check=\"pending\">\n<head>\n<meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>routelab compare — " << esc(c.fabricSpec) << "</title>\n<style>" << kStyle << "</style>\n</head>\n"
      << "<body>\n<main>\n<h1>Routing engines on " << esc(c.fabricSpec) << "</h1>\n"
      << fmt::format("<p class=\"sub\">{} terminals, {} switches, {} channels · seed {} · {} · total time {} s</p>\n",
                     c.terminals, c.switches, c.channels, c.options.seed, esc(c.version), seconds(c.totalSeconds));
  const std::vector<std::string> parts = recommendationParts(c);
  out << "<section id=\"recommendation\"><h2>Recommendation</h2><p class=\"lead\">" << esc(parts.front()) << "</p>";
  if (parts.size() > 1) {
    out << "<ul class=\"why\">";
    for (std::size_t i = 1; i < parts.size(); ++i) {
      if (parts[i].rfind("Deploy: ", 0) == 0) continue;  // shown as commands below
      out << "<li>" << esc(parts[i]) << "</li>";
    }
    out << "</ul>";
  }
  const EngineComparison* best = nullptr;
  for (const EngineComparison& e : c.engines) {
    if (e.name == c.verdict.recommended) best = &e;
  }
  if (best != nullptr && !best->deployment.deploy.empty()) {
    out << "<p>Deploy it:</p><pre>";
    for (const std::string& line : best->deployment.deploy) out << esc(line) << "\n";
    out << "</pre>";
  }
  out << "</section>\n";
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
    const char* cls = e.refused || e.notRun             ? "refused"
                      : !e.passed()                     ? "failed"
                      : e.name == c.verdict.recommended ? "first"
                      : !e.deployable()                 ? "undeployable"
                                                        : "ok";
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
  out << "</tbody></table></div>\n<p class=\"note\">Ranked: routings that pass verification and are deployable "
         "here first, then those that pass but are not deployable here, then the failing ones; within each, highest "
         "ABB, lowest WORST, lowest all-to-all shift load, fewest mean hops. Routings equal in all four share a group "
         "number and are ordered by deployment cost (fewer VLs, fewer LIDs per terminal, smaller tables, "
         "deterministic before multipath before adaptive, in order by construction), then OpenSM's own before "
         "routelab's, then as listed (docs/COMPARE.md). WORST, ABB, AFPB, ADB and the shift load are given under the "
         "load model in the last column (docs/ANALYSIS.md): even-split for adaptive and multipath engines when it was "
         "computed (traffic spread evenly over a pair's paths, as a multipath source or an oblivious switch does), "
         "first-path otherwise; single-path engines give the same numbers under every model. Best-split, the upper "
         "bound of an ideal adaptive split, is in the per-model table. Saturation "
         "(sim.): mean simulated saturation throughput over the patterns of the evidence section.</p></section>\n";
  deploymentSection(out, c);
  figuresSection(out, figures, "figures", "Figures", false);
  evidenceSection(out, c);
  figuresSection(out, figures, "latency", "Latency and throughput (simulation)", true);
  stageSection(out, figures);
  modelSection(out, c);
  notesSection(out, c);
  timingSection(out, c);
  configurationSection(out, c);
  out << "</main>\n" << kCheckScript << "</body>\n</html>\n";
}

}  // namespace routelab
