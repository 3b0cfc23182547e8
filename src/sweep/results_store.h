// routelab/sweep/results_store.h — the SQLite results file of a sweep.
//
// One file holds the results of exactly one sweep: its table `meta` records the sweep's
// name and identity (sweep_file.h), and opening it for a different sweep throws SpecError
// naming both — two sweeps never mix. Table `points` holds one row per finished point,
// keyed by the point's canonical configuration (which includes the routelab version), so
// a rerun of the same sweep skips every finished point: each row is committed on its own
// as it arrives, and an interrupted sweep loses at most the points that were running.
// A new file is created complete (schema and meta written to a temporary, then renamed).
//
//   meta(key TEXT PRIMARY KEY, value TEXT)
//   points(key TEXT PRIMARY KEY, idx INTEGER, status TEXT 'ok'|'error', value REAL,
//          result TEXT (JSON), seconds REAL, worker TEXT)
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sweep/sweep_file.h"

struct sqlite3;

namespace routelab {

/// One finished point.
struct PointResult {
  std::size_t index = 0;
  std::string key;        ///< the point's canonical configuration
  bool ok = true;         ///< false: evaluate() threw; `error` says what
  nlohmann::json result;  ///< the kind's result object (ok) or {"error": message}
  double seconds = 0;     ///< wall time of evaluate() (not part of the result)
  std::string worker;     ///< who computed it ("thread", "rank 3"); not part of the result
};

/// What a results file says about its sweep.
struct ResultsHeader {
  std::string sweepName;
  std::string identity;
  std::string source;
  std::size_t points = 0;  ///< points of the sweep
  std::string version;     ///< routelab version that created the file
};

class ResultStore {
 public:
  /// Open `path` for `sweep`, creating it when absent. Throws SpecError when the file
  /// belongs to another sweep, IoError when it is not a routelab results file or cannot be
  /// opened or written.
  static ResultStore openForSweep(const std::string& path, const Sweep& sweep);
  /// Open an existing results file read-only (IoError when absent or not a results file).
  static ResultStore openExisting(const std::string& path);

  ResultStore(ResultStore&&) noexcept;
  ResultStore& operator=(ResultStore&&) noexcept;
  ~ResultStore();

  const ResultsHeader& header() const { return header_; }
  /// Keys of every stored point.
  std::set<std::string> finishedKeys() const;
  /// Store one point (committed before it returns). IoError on failure.
  void insert(const PointResult& result);
  /// Every stored point, by index.
  std::vector<PointResult> results() const;

 private:
  ResultStore(sqlite3* db, std::string path);
  void readHeader();
  sqlite3* db_ = nullptr;
  std::string path_;
  ResultsHeader header_;
};

}  // namespace routelab
