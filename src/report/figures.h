// routelab/report/figures.h — the comparison's figures as gnuplot scripts (docs/COMPARE.md
// "Figures"). The library writes the scripts, data inline; a front end renders them with
// gnuplot's SVG terminal and hands the SVG text to writeHtmlReport (report/html.h), so the
// page stays self-contained and the library never runs a program.
#pragma once

#include <string>
#include <vector>

#include "report/comparison.h"

namespace routelab {

struct FigureSpec {
  std::string id;                  ///< HTML id of the <figure> ("fig-metrics", ...)
  std::string title;               ///< heading above it
  std::string caption;             ///< what it shows, units included
  int width = 1100, height = 640;  ///< SVG size in pixels
  /// gnuplot commands after `set terminal svg ...` and `set output ...` (the renderer's),
  /// data inline as here-documents.
  std::string script;
};

/// A rendered figure: the spec and its SVG element (`<svg ...>...</svg>`, no XML prolog).
struct RenderedFigure {
  FigureSpec spec;
  std::string svg;
};

/// The figures of `comparison`: the ranking metrics per routing (ABB with its 99% confidence
/// interval, WORST, all-to-all shift load, VLs; coloured by deployability), and when routings
/// were simulated, latency against accepted traffic and accepted against offered traffic per
/// pattern (the saturation knee marked); on fat-trees, one per-stage channel-load heat map per
/// engine ("fig-stages-<engine>", Gómez 2007 Fig. 3). Empty when nothing was analysed.
std::vector<FigureSpec> comparisonFigures(const Comparison& comparison);

/// `text` as a gnuplot single-quoted string ('' is a quote inside).
std::string gnuplotQuoted(const std::string& text);

}  // namespace routelab
