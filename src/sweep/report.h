// routelab/sweep/report.h — exports (CSV, JSON) and plots of a results file.
//
// Both exports list the stored points by sweep index. Columns of the CSV: `index`, every
// configuration key (sorted), `status`, every scalar result key (sorted, `value` first;
// `result.<key>` where a configuration key has the same name), then `seconds` and `worker` unless timings are left out
// — without them, two runs of the same sweep (any thread or rank count, interrupted and resumed or not) export the same
// bytes.
#pragma once

#include <nlohmann/json.hpp>

#include <iosfwd>
#include <string>
#include <vector>

#include "sweep/point_kinds.h"
#include "sweep/results_store.h"

namespace routelab {

void writeResultsCsv(std::ostream& out, const std::vector<PointResult>& results, bool timings);
nlohmann::json resultsJson(const ResultsHeader& header, const std::vector<PointResult>& results, bool timings);

/// One standard plot: the points that share every configuration key but the kind's plot
/// axis (point_kinds.h: `fabric` for analyze, `load` for simulate), engine and seed (e.g.
/// metric abb, load model even-split); x = the axis's values in sweep order, one line per
/// engine, y = the mean over seeds of one of the kind's plot measures (`value`; simulate
/// also `accepted`), error bars from the lowest to the highest value ± its 99% half-width
/// over the seeds.
struct PlotSpec {
  std::string name;   ///< file stem, e.g. "analyze-abb-1"
  std::string title;  ///< the shared configuration
  std::string yLabel;
  std::string xAxis = "fabric";      ///< the configuration key on the x axis
  std::vector<std::string> xLabels;  ///< its values
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

/// A gnuplot script drawing `plot` into `pngPath` (pngcairo) and `svgPath` (svg). Each
/// series is an inline data block `$series<s>` of lines "x mean low high"; the series' points
/// sit side by side about their label's x, 0.06 apart and centred on it (series s of n at
/// x + (s - (n - 1) / 2) * 0.06), so error bars of equal values do not hide each other.
std::string gnuplotScript(const PlotSpec& plot, const std::string& pngPath, const std::string& svgPath);

}  // namespace routelab
