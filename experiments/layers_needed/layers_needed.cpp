// Layers needed by LASH, MP-LASH and A-LASH on random irregular fabrics — the experiments
// of Lysne et al. 2006 §5.2 (Figs. 3 and 4), §6 (Fig. 5) and §7 (Fig. 6).
//
//   layers_needed connectivity OUT.csv [--samples N] [--seed S] [--sizes 16.32.64.128]
//   layers_needed growth OUT.csv [--samples N] [--seed S] [--sizes 8.16.32.64.128.256]
//   --engines lash+mp-lash+a-lash   ('+'-separated engine specs; commas are CSV-quoted)
//
// connectivity: for every size S, link counts from a tree (S-1) up to dense connectivity
// (the complete graph for S <= 32; 8 S beyond, where the paper's curves have long come
// down), `samples` random fabrics per point (topology `random`, one terminal per switch,
// radix S so that any density is possible). growth: links = 2 S at growing sizes.
// Every fabric is seeded deriveSeed(seed, point * 100000 + sample), so the CSV does not
// depend on the number of threads. Columns: experiment, engine, switches, links, samples,
// failures (more layers than the engine can hold), min, mean, max layers.
// Layers *needed*: every engine runs with no layer budget (`max-layers=0` appended to its
// spec unless the spec sets max-layers; the column keeps the spec as given). With a budget
// (default 8) the engines route what does not fit by UpDown (Lysne §8.4) and only report
// that first-fit needs more ("layers_needed" = ">8"), which would count as a failure here.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "core/random.h"
#include "engines/registry.h"
#include "io/output.h"
#include "topology/random_irregular.h"

namespace {

using namespace routelab;

struct Point {
  std::uint32_t switches, links;
};

std::vector<Point> connectivityPoints(const std::vector<std::uint32_t>& sizes) {
  std::vector<Point> points;
  for (std::uint32_t s : sizes) {
    const std::uint32_t complete = s * (s - 1) / 2;
    const std::uint32_t top = s <= 32 ? complete : 8 * s;
    std::vector<std::uint32_t> links{s - 1, s + s / 8, s + s / 4, s + s / 2, s + 3 * s / 4, 2 * s,  2 * s + s / 2,
                                     3 * s, 4 * s,     6 * s,     8 * s,     12 * s,        16 * s, complete};
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    for (std::uint32_t l : links) {
      if (l <= top && l <= complete) points.push_back({s, l});
    }
  }
  return points;
}

std::vector<std::uint32_t> parseSizes(const std::string& text) {
  std::vector<std::uint32_t> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t dot = text.find('.', start);
    out.push_back(static_cast<std::uint32_t>(std::stoul(text.substr(start, dot - start))));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return out;
}

/// `spec` with no layer budget unless it sets one (see the header).
std::string unbudgeted(const std::string& spec) {
  if (spec.find("max-layers") != std::string::npos) return spec;
  return spec + (spec.find(':') == std::string::npos ? ":" : ",") + "max-layers=0";
}

/// The engine's "layers_needed" statistic; 0 (a failure) when only a bound ">L" is known.
std::uint32_t layersNeeded(const RoutingResult& result) {
  for (const auto& [key, value] : result.stats) {
    if (key == "layers_needed") return value.starts_with('>') ? 0 : static_cast<std::uint32_t>(std::stoul(value));
  }
  return static_cast<std::uint32_t>(result.layerCount());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: layers_needed connectivity|growth OUT.csv [--samples N] [--seed S] [--sizes a.b.c]\n";
    return 2;
  }
  const std::string experiment = argv[1];
  const std::string output = argv[2];
  std::uint32_t samples = 100;
  std::string engineList = "lash+mp-lash+a-lash";
  std::uint64_t seed = 1;
  std::string sizes = experiment == "growth" ? "8.16.32.64.128.256" : "16.32.64.128";
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--samples")
      samples = static_cast<std::uint32_t>(std::stoul(argv[i + 1]));
    else if (key == "--seed")
      seed = std::stoull(argv[i + 1]);
    else if (key == "--sizes")
      sizes = argv[i + 1];
    else if (key == "--engines")
      engineList = argv[i + 1];
    else {
      std::cerr << "unknown option " << key << '\n';
      return 2;
    }
  }
  if (experiment != "connectivity" && experiment != "growth") {
    std::cerr << "experiment must be connectivity or growth\n";
    return 2;
  }
  std::vector<Point> points;
  if (experiment == "growth") {
    for (std::uint32_t s : parseSizes(sizes)) points.push_back({s, 2 * s});
  } else {
    points = connectivityPoints(parseSizes(sizes));
  }
  std::vector<std::string> engines;  // '+'-separated engine specs
  for (std::size_t start = 0; start <= engineList.size();) {
    const std::size_t plus = engineList.find('+', start);
    engines.push_back(engineList.substr(start, plus - start));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  struct Cell {
    std::vector<std::uint32_t> layers;  // per sample; 0 = failure
  };
  std::vector<std::vector<Cell>> cells(points.size(), std::vector<Cell>(engines.size()));
  for (auto& row : cells) {
    for (auto& cell : row) cell.layers.assign(samples, 0);
  }
  const auto work = static_cast<std::int64_t>(points.size() * samples);
  std::string failure;  // an error inside the parallel loop (exceptions may not leave it)
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t item = 0; item < work; ++item) {
    try {
      const auto point = static_cast<std::size_t>(item) / samples;
      const auto sample = static_cast<std::size_t>(item) % samples;
      RandomIrregularParams params;
      params.switches = points[point].switches;
      params.links = points[point].links;
      params.terminals = 1;
      params.radix = std::min<std::uint32_t>(254, std::max<std::uint32_t>(16, points[point].switches));
      params.seed = static_cast<std::int64_t>(deriveSeed(seed, point * 100000 + sample) >> 1);
      const Network network = makeRandomIrregular(params);
      for (std::size_t e = 0; e < engines.size(); ++e) {
        try {
          cells[point][e].layers[sample] = layersNeeded(runEngine(unbudgeted(engines[e]), network));
        } catch (const RoutingError&) {
          cells[point][e].layers[sample] = 0;  // more layers than the engine holds
        }
      }
    } catch (const std::exception& e) {
#pragma omp critical
      failure = e.what();
    }
  }
  if (!failure.empty()) {
    std::cerr << "layers_needed: error: " << failure << '\n';
    return 1;
  }
  writeFileAtomically(output, [&](std::ostream& out) {
    out << "# layers_needed " << experiment << " samples=" << samples << " seed=" << seed << " sizes=" << sizes
        << " engines=" << engineList << " (max-layers=0 unless set)"
        << " topology=random:terminals=1,radix=min(254,max(16,switches))\n";
    out << "experiment,engine,switches,links,samples,failures,min,mean,max\n";
    for (std::size_t p = 0; p < points.size(); ++p) {
      for (std::size_t e = 0; e < engines.size(); ++e) {
        std::uint32_t low = UINT32_MAX, high = 0, failures = 0;
        double sum = 0;
        for (std::uint32_t v : cells[p][e].layers) {
          if (v == 0) {
            ++failures;
            continue;
          }
          low = std::min(low, v);
          high = std::max(high, v);
          sum += v;
        }
        const std::uint32_t ok = samples - failures;
        out << fmt::format("{},{},{},{},{},{},{},{:.3f},{}\n", experiment, engines[e], points[p].switches,
                           points[p].links, samples, failures, ok ? low : 0, ok ? sum / ok : 0.0, high);
      }
    }
  });
  return 0;
}
