// routelab/sweep/report.h — exports (CSV, JSON) and plots of a results file.
//
// Both exports list the stored points by sweep index. Columns of the CSV: `index`, every
// configuration key (sorted), `status`, every scalar result key (sorted, `value` first),
// then `seconds` and `worker` unless timings are left out — without them, two runs of the
// same sweep (any thread or rank count, interrupted and resumed or not) export the same
// bytes.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

#include "sweep/results_store.h"

namespace routelab {

void writeResultsCsv(std::ostream& out, const std::vector<PointResult>& results, bool timings);
nlohmann::json resultsJson(const ResultsHeader& header, const std::vector<PointResult>& results, bool timings);

/// One standard plot: the points that share every configuration key but fabric, engine
/// and seed (e.g. metric abb, load model even-split); x = fabric in sweep order, one line
/// per engine, y = the mean over seeds of `value`, error bars from the lowest to the
/// highest value ± its 99% half-width over the seeds.
struct PlotSpec {
  std::string name;   ///< file stem, e.g. "analyze-abb-1"
  std::string title;  ///< the shared configuration
  std::string yLabel;
  std::vector<std::string> xLabels;  ///< fabrics
  struct Series {
    std::string label;  ///< engine
    struct Point {
      std::size_t x = 0;  ///< index into xLabels
      double mean = 0, low = 0, high = 0;
    };
    std::vector<Point> points;
  };
  std::vector<Series> series;
};

/// The standard plots of the successful points (failed points leave gaps).
std::vector<PlotSpec> standardPlots(const std::vector<PointResult>& results);

/// A gnuplot script drawing `plot` into `pngPath` (pngcairo) and `svgPath` (svg).
std::string gnuplotScript(const PlotSpec& plot, const std::string& pngPath, const std::string& svgPath);

}  // namespace routelab
