// routelab/sweep/report.cpp — CSV/JSON exports and the standard plots.
#include "sweep/report.h"

#include <fmt/format.h>
#include <algorithm>
#include <limits>
#include <map>
#include <ostream>
#include <set>

#include "report/figures.h"

namespace routelab {

namespace {

std::string csvField(const nlohmann::json& value) {
  if (value.is_null()) return "";
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

nlohmann::json configOf(const PointResult& r) { return nlohmann::json::parse(r.key, nullptr, false); }

}  // namespace

void writeResultsCsv(std::ostream& out, const std::vector<PointResult>& results, bool timings) {
  std::set<std::string> configKeys;
  std::set<std::string> resultKeys;
  std::vector<nlohmann::json> configs;
  for (const PointResult& r : results) {
    configs.push_back(configOf(r));
    for (const auto& [key, value] : configs.back().items()) configKeys.insert(key);
    for (const auto& [key, value] : r.result.items()) {
      if (!value.is_structured() && key != "value") resultKeys.insert(key);
    }
  }
  out << "index";
  for (const std::string& key : configKeys) out << ',' << key;
  out << ",status,value";
  // A result key that is also a configuration key gets a prefix: no column is written twice.
  for (const std::string& key : resultKeys) out << ',' << (configKeys.count(key) != 0 ? "result." + key : key);
  out << (timings ? ",seconds,worker\n" : "\n");
  for (std::size_t i = 0; i < results.size(); ++i) {
    const PointResult& r = results[i];
    out << r.index;
    for (const std::string& key : configKeys) out << ',' << csvField(configs[i].value(key, nlohmann::json()));
    out << ',' << (r.ok ? "ok" : "error") << ',' << csvField(r.result.value("value", nlohmann::json()));
    for (const std::string& key : resultKeys) out << ',' << csvField(r.result.value(key, nlohmann::json()));
    if (timings) out << ',' << fmt::format("{:.6f}", r.seconds) << ',' << csvField(r.worker);
    out << '\n';
  }
}

nlohmann::json resultsJson(const ResultsHeader& header, const std::vector<PointResult>& results, bool timings) {
  nlohmann::json j;
  j["sweep"] = {{"name", header.sweepName},
                {"identity", header.identity},
                {"source", header.source},
                {"points", header.points},
                {"routelab_version", header.version}};
  j["finished"] = results.size();
  j["results"] = nlohmann::json::array();
  for (const PointResult& r : results) {
    nlohmann::json row = {
        {"index", r.index}, {"config", configOf(r)}, {"status", r.ok ? "ok" : "error"}, {"result", r.result}};
    if (timings) {
      row["seconds"] = r.seconds;
      row["worker"] = r.worker;
    }
    j["results"].push_back(std::move(row));
  }
  return j;
}

namespace {

struct Accumulator {
  double sum = 0;
  double low = std::numeric_limits<double>::infinity();
  double high = -std::numeric_limits<double>::infinity();
  std::size_t count = 0;
};

std::string plotTitle(const nlohmann::json& shared) {
  std::string title;
  for (const auto& [key, value] : shared.items()) {
    if (key == "routelab_version") continue;
    title += (title.empty() ? "" : ", ") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  }
  return title;
}

/// What `value` is for each analyze metric.
std::string yLabel(const std::string& metric) {
  if (metric == "worst") return "WORST (max channel load over all permutations)";
  if (metric == "abb" || metric == "afpb" || metric == "adb") return metric + " (mean bandwidth 1/ML, 99% CI)";
  if (metric == "pattern") return "ML (max channel load of the pattern)";
  if (metric == "stages") return "most paths per channel";
  return metric;
}

}  // namespace

namespace {

/// The kind row of a stored point (null for a kind this routelab does not know).
const PointKind* kindOf(const nlohmann::json& config) {
  for (const PointKind& kind : pointKinds()) {
    if (kind.name == config.value("kind", "")) return &kind;
  }
  return nullptr;
}

std::string axisLabel(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

struct PlotBuilder {
  std::map<std::string, std::size_t> groupOrder;
  std::vector<PlotSpec> plots;
  std::vector<std::map<std::pair<std::size_t, std::string>, Accumulator>> cells;
  std::vector<std::vector<std::string>> engines;

  void add(const PointResult& r, const nlohmann::json& config, const PointKind& kind,
           const PointKind::Measure& measure);
  std::vector<PlotSpec> finish();
};

void PlotBuilder::add(const PointResult& r, const nlohmann::json& config, const PointKind& kind,
                      const PointKind::Measure& measure) {
  const nlohmann::json value = r.result.value(measure.key, nlohmann::json());
  if (!value.is_number()) return;
  nlohmann::json shared = config;
  const std::string x = axisLabel(config.value(kind.plotAxis, nlohmann::json("")));
  const std::string engine = axisLabel(config.value(kind.seriesKey, nlohmann::json("")));
  for (const std::string& key : {kind.plotAxis, kind.seriesKey, std::string("seed")}) shared.erase(key);
  const auto [it, added] = groupOrder.emplace(shared.dump() + "\n" + measure.key, plots.size());
  if (added) {
    PlotSpec plot;
    const std::string what = measure.key == "value" ? shared.value("metric", "value") : measure.key;
    plot.name = fmt::format("{}-{}-{}", shared.value("kind", "point"), what, plots.size() + 1);
    plot.title = plotTitle(shared);
    plot.yLabel = measure.label.empty() ? yLabel(shared.value("metric", "value")) : measure.label;
    plot.xAxis = kind.plotAxis;
    plots.push_back(std::move(plot));
    cells.emplace_back();
    engines.emplace_back();
  }
  PlotSpec& plot = plots[it->second];
  auto column = std::find(plot.xLabels.begin(), plot.xLabels.end(), x);
  if (column == plot.xLabels.end()) column = plot.xLabels.insert(plot.xLabels.end(), x);
  auto& names = engines[it->second];
  if (std::find(names.begin(), names.end(), engine) == names.end()) names.push_back(engine);
  const double v = value.get<double>();
  const double ci = measure.key == "value" ? r.result.value("ci99_halfwidth", 0.0) : 0.0;
  Accumulator& cell = cells[it->second][{static_cast<std::size_t>(column - plot.xLabels.begin()), engine}];
  cell.sum += v;
  cell.low = std::min(cell.low, v - ci);
  cell.high = std::max(cell.high, v + ci);
  ++cell.count;
}

std::vector<PlotSpec> PlotBuilder::finish() {
  for (std::size_t p = 0; p < plots.size(); ++p) {
    for (const std::string& engine : engines[p]) {
      PlotSpec::Series series{engine, {}};
      for (std::size_t x = 0; x < plots[p].xLabels.size(); ++x) {
        const auto cell = cells[p].find({x, engine});
        if (cell == cells[p].end()) continue;
        const Accumulator& a = cell->second;
        series.points.push_back({x, a.sum / static_cast<double>(a.count), a.low, a.high});
      }
      plots[p].series.push_back(std::move(series));
    }
  }
  return std::move(plots);
}

}  // namespace

std::vector<PlotSpec> standardPlots(const std::vector<PointResult>& results) {
  PlotBuilder builder;
  for (const PointResult& r : results) {
    if (!r.ok) continue;
    const nlohmann::json config = configOf(r);
    const PointKind* kind = kindOf(config);
    if (kind == nullptr) continue;
    for (const PointKind::Measure& measure : kind->plotMeasures) builder.add(r, config, *kind, measure);
  }
  return builder.finish();
}

std::string gnuplotScript(const PlotSpec& plot, const std::string& pngPath, const std::string& svgPath) {
  std::string script;
  const std::size_t engines = plot.series.size();
  for (std::size_t s = 0; s < engines; ++s) {
    script += fmt::format("$series{} << EOD\n", s);
    const double offset = (static_cast<double>(s) - (static_cast<double>(engines) - 1) / 2) * 0.06;
    for (const auto& point : plot.series[s].points) {
      script += fmt::format("{:.6f} {:.17g} {:.17g} {:.17g}\n", static_cast<double>(point.x) + offset, point.mean,
                            point.low, point.high);
    }
    script += "EOD\n";
  }
  // The title in lines of at most ~110 characters, broken after a comma.
  std::string title;
  std::size_t lineStart = 0;
  while (lineStart < plot.title.size()) {
    std::size_t end = plot.title.size();
    if (end - lineStart > 110) {
      const std::size_t comma = plot.title.rfind(", ", lineStart + 110);
      end = comma != std::string::npos && comma > lineStart ? comma + 2 : lineStart + 110;
    }
    title += (title.empty() ? "" : ".\"\\n\".") + gnuplotQuoted(plot.title.substr(lineStart, end - lineStart));
    lineStart = end;
  }
  script += "set title " + (title.empty() ? gnuplotQuoted("") : title) + " noenhanced\n";
  script += "set ylabel " + gnuplotQuoted(plot.yLabel) + " noenhanced\nset xlabel " + gnuplotQuoted(plot.xAxis) +
            " noenhanced\n";
  script += "set key outside right top noenhanced\nset grid ytics\nset xtics rotate by -30 noenhanced\n";
  script += fmt::format("set xrange [-0.5:{}]\nset xtics (", static_cast<double>(plot.xLabels.size()) - 0.5);
  for (std::size_t x = 0; x < plot.xLabels.size(); ++x) {
    script += fmt::format("{}{} {}", x ? ", " : "", gnuplotQuoted(plot.xLabels[x]), x);
  }
  script += ")\nset bmargin 8\nset yrange [0:*]\nset offsets 0, 0, graph 0.05, 0\n";
  std::string plotLine = "plot ";
  for (std::size_t s = 0; s < engines; ++s) {
    plotLine += fmt::format("{}$series{} using 1:2:3:4 with yerrorlines linewidth 2 pointsize 1.2 title {}",
                            s ? ", " : "", s, gnuplotQuoted(plot.series[s].label));
  }
  script +=
      "set terminal pngcairo size 1200,700 font ',11'\nset output " + gnuplotQuoted(pngPath) + "\n" + plotLine + "\n";
  script += "set terminal svg size 1200,700 dynamic font ',11'\nset output " + gnuplotQuoted(svgPath) + "\n" +
            plotLine + "\n";
  script += "unset output\n";
  return script;
}

}  // namespace routelab
