// routelab CLI: running gnuplot (Debian gnuplot-nox) for `routelab plot` and the figures of
// `routelab compare` (report/figures.h). The library writes the scripts; only the CLI runs
// programs.
#pragma once

#include <string>
#include <vector>

#include "report/figures.h"

namespace routelab::cli {

/// Runs `gnuplot SCRIPT`; IoError naming the package when gnuplot cannot start, and the
/// script when it fails.
void runGnuplot(const std::string& script);

/// Renders every figure with gnuplot's SVG terminal (temporary files, removed again) and
/// returns the SVG elements, their ids made unique per figure so that several can share one
/// page. Throws IoError like runGnuplot.
std::vector<RenderedFigure> renderSvgFigures(const std::vector<FigureSpec>& figures);

}  // namespace routelab::cli
