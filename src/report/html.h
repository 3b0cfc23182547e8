// routelab/report/html.h — the comparison as one self-contained HTML page.
//
// Viewable offline: inline CSS, inline SVG figures, one small inline script and nothing
// loaded from anywhere (no external scripts, fonts, images or CDNs). Sections: the
// recommendation, the ranked table (id "ranking-table"), bar charts of ABB (with its 99%
// confidence interval), WORST and the all-to-all shift load, and layers, the per-stage
// channel-load heat maps of every engine (fat-trees), latency–throughput curves (only when
// Comparison::latency has points), refused engines, notes, timings per engine and stage,
// and the configuration (command line, version, seed, options).
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

namespace routelab {

void writeHtmlReport(const Comparison& comparison, std::ostream& out);

/// `text` with &, <, >, " and ' escaped for HTML text and attribute values.
std::string htmlEscape(const std::string& text);

}  // namespace routelab
