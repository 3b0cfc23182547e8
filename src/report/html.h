// routelab/report/html.h — the comparison as one self-contained HTML page.
//
// Viewable offline: inline CSS, inline SVG figures, one small inline script and nothing
// loaded from anywhere (no external scripts, fonts, images or CDNs). Sections: the
// recommendation with the deploy commands, the ranked table (id "ranking-table"), the
// deployment table (id "deployment-table": what each routing needs and how to deploy it), the
// figures (report/figures.h: ranking metrics; latency and throughput when simulated), the
// simulated evidence per pattern, the per-stage channel-load heat maps of every engine
// (fat-trees), refused engines, notes, timings per engine and stage, and the configuration
// (command line, version, seed, options, constraints).
//
// Every figure is a <figure class="chart"> holding one <svg>. The inline script checks that
// the table has one row per engine and that every figure's SVG has content, and then sets
// the attribute data-report-check="ok" (or "fail: <what>") on <html>, so a headless
// browser's DOM dump shows whether the page rendered (tests/cli/test_cli_compare.cpp).
// Every timing is inside <span class="t">; removing those spans leaves a page that depends
// only on the options (seed included).
#pragma once

#include <iosfwd>

#include "report/comparison.h"
#include "report/figures.h"

namespace routelab {

/// The page with `figures` (report/figures.h, rendered by the caller) in the figures and
/// latency sections.
void writeHtmlReport(const Comparison& comparison, const std::vector<RenderedFigure>& figures, std::ostream& out);
/// The page without the gnuplot figures.
void writeHtmlReport(const Comparison& comparison, std::ostream& out);

/// `text` with &, <, >, " and ' escaped for HTML text and attribute values.
std::string htmlEscape(const std::string& text);

}  // namespace routelab
