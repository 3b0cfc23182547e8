// routelab/sweep/report.cpp — CSV/JSON exports and the standard plots.
#include "sweep/report.h"

#include <fmt/format.h>
#include <algorithm>
#include <limits>
#include <map>
#include <ostream>
#include <set>

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
  for (const std::string& key : resultKeys) out << ',' << key;
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

std::vector<PlotSpec> standardPlots(const std::vector<PointResult>& results) {
  // Group key (configuration without fabric, engine, seed) -> fabric -> engine -> values.
  std::map<std::string, std::size_t> groupOrder;
  std::vector<PlotSpec> plots;
  std::vector<std::map<std::pair<std::size_t, std::string>, Accumulator>> cells;
  std::vector<std::vector<std::string>> engines;
  for (const PointResult& r : results) {
    const nlohmann::json value = r.result.value("value", nlohmann::json());
    if (!r.ok || !value.is_number()) continue;
    nlohmann::json shared = configOf(r);
    const std::string fabric = shared.value("fabric", "");
    const std::string engine = shared.value("engine", "");
    for (const char* key : {"fabric", "engine", "seed"}) shared.erase(key);
    const auto [it, added] = groupOrder.emplace(shared.dump(), plots.size());
    if (added) {
      PlotSpec plot;
      plot.name =
          fmt::format("{}-{}-{}", shared.value("kind", "point"), shared.value("metric", "value"), plots.size() + 1);
      plot.title = plotTitle(shared);
      plot.yLabel = yLabel(shared.value("metric", "value"));
      plots.push_back(std::move(plot));
      cells.emplace_back();
      engines.emplace_back();
    }
    PlotSpec& plot = plots[it->second];
    auto x = std::find(plot.xLabels.begin(), plot.xLabels.end(), fabric);
    if (x == plot.xLabels.end()) x = plot.xLabels.insert(plot.xLabels.end(), fabric);
    auto& names = engines[it->second];
    if (std::find(names.begin(), names.end(), engine) == names.end()) names.push_back(engine);
    const double v = value.get<double>();
    const double ci = r.result.value("ci99_halfwidth", 0.0);
    Accumulator& cell = cells[it->second][{static_cast<std::size_t>(x - plot.xLabels.begin()), engine}];
    cell.sum += v;
    cell.low = std::min(cell.low, v - ci);
    cell.high = std::max(cell.high, v + ci);
    ++cell.count;
  }
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
  return plots;
}

namespace {

/// A gnuplot single-quoted string ('' is a quote inside).
std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

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
  script += "set title " + quoted(plot.title) + " noenhanced\n";
  script += "set ylabel " + quoted(plot.yLabel) + " noenhanced\nset xlabel 'fabric'\n";
  script += "set key outside right top noenhanced\nset grid ytics\nset xtics rotate by -30 noenhanced\n";
  script += fmt::format("set xrange [-0.5:{}]\nset xtics (", static_cast<double>(plot.xLabels.size()) - 0.5);
  for (std::size_t x = 0; x < plot.xLabels.size(); ++x) {
    script += fmt::format("{}{} {}", x ? ", " : "", quoted(plot.xLabels[x]), x);
  }
  script += ")\nset bmargin 8\nset yrange [0:*]\nset offsets 0, 0, graph 0.05, 0\n";
  std::string plotLine = "plot ";
  for (std::size_t s = 0; s < engines; ++s) {
    plotLine += fmt::format("{}$series{} using 1:2:3:4 with yerrorlines linewidth 2 pointsize 1.2 title {}",
                            s ? ", " : "", s, quoted(plot.series[s].label));
  }
  script += "set terminal pngcairo size 1200,700 font ',11'\nset output " + quoted(pngPath) + "\n" + plotLine + "\n";
  script += "set terminal svg size 1200,700 dynamic font ',11'\nset output " + quoted(svgPath) + "\n" + plotLine + "\n";
  script += "unset output\n";
  return script;
}

}  // namespace routelab
