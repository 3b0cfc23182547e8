// routelab/sweep/sweep_file.h — a sweep file (TOML) to the list of its points.
//
//   name = "gft-engines"            # optional; default: the file's name without .toml
//   [[grid]]                        # one or more grids; each is a cartesian product
//   kind = "analyze"                # a row of pointKinds()
//   fabrics = ["gft2:n=4,m=4,r=8", "gft2:n=8,m=8,r=16"]   # a list = an axis ("fabric" too)
//   engines = ["dmodk", "sssp"]
//   metrics = ["worst", "abb"]
//   seeds = [1, 2]
//   precision = 0.05                # a scalar = the same value for every point
//
// Points are numbered in file order, within a grid the first key of the kind varying
// slowest; a configuration that two grids both produce is kept once (the first).
// The sweep's identity is a hash of its name and every point's key (which includes the
// routelab version): a results file belongs to exactly one identity (results_store.h).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace routelab {

struct SweepPoint {
  std::size_t index = 0;  ///< position in the sweep (0-based)
  nlohmann::json config;  ///< the effective configuration (point_kinds.h)
  std::string key;        ///< config.dump(): canonical JSON, the point's identity
};

struct Sweep {
  std::string name;
  std::string source;  ///< the file it was read from
  std::vector<SweepPoint> points;
  std::string identity;  ///< 16 hex digits (FNV-1a 64 of the canonical sweep)
};

/// Most points one sweep may expand to.
inline constexpr std::size_t kMaxSweepPoints = 1'000'000;

/// Parse sweep text; `source` names it in messages. Throws ParseError "<source>:<line>: ..."
/// for TOML syntax errors, unknown or mistyped keys, empty axes, bad values of a kind, and
/// more than `maxPoints` points (docs/RELIABILITY.md "Limits"), counted over each grid's
/// cartesian product before it is expanded: the grid that would pass the limit is named.
Sweep parseSweep(const std::string& text, const std::string& source, std::size_t maxPoints = kMaxSweepPoints);
/// Read and parse a sweep file (IoError when it cannot be read).
Sweep readSweepFile(const std::string& path);

}  // namespace routelab
