// routelab/sweep/results_store.cpp — SQLite C API behind ResultStore.
#include "sweep/results_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <fmt/format.h>
#include <charconv>
#include <filesystem>
#include <utility>

#include "core/errors.h"
#include "sweep/point_kinds.h"

namespace routelab {

namespace {

constexpr const char* kFormat = "routelab-sweep-results 1";

/// One prepared statement; finalized on destruction.
class Statement {
 public:
  Statement(sqlite3* db, const std::string& sql, const std::string& path) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK) fail("prepare");
  }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement() { sqlite3_finalize(stmt_); }
  void bind(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.c_str(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  }
  void bind(int i, std::int64_t value) { sqlite3_bind_int64(stmt_, i, value); }
  void bindDouble(int i, double value) { sqlite3_bind_double(stmt_, i, value); }
  void bindNull(int i) { sqlite3_bind_null(stmt_, i); }
  void reset() { sqlite3_reset(stmt_); }
  /// true: a row is ready; false: done.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail("step");
    return false;
  }
  std::string text(int column) const {
    const unsigned char* value = sqlite3_column_text(stmt_, column);
    return value ? reinterpret_cast<const char*>(value) : "";
  }
  std::int64_t integer(int column) const { return sqlite3_column_int64(stmt_, column); }
  double real(int column) const { return sqlite3_column_double(stmt_, column); }

 private:
  [[noreturn]] void fail(const char* what) const {
    throw IoError(fmt::format("results file {}: {} failed: {}", path_, what, sqlite3_errmsg(db_)));
  }
  sqlite3* db_;
  std::string path_;
  sqlite3_stmt* stmt_ = nullptr;
};

void exec(sqlite3* db, const std::string& sql, const std::string& path) {
  char* message = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    throw IoError(fmt::format("results file {}: {}", path, text));
  }
}

sqlite3* openDatabase(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    const std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    throw IoError(fmt::format("cannot open results file {}: {}", path, message));
  }
  sqlite3_busy_timeout(db, 10000);
  return db;
}

/// A new results file for `sweep`, written completely under a temporary name and renamed.
void createResultsFile(const std::string& path, const Sweep& sweep) {
  const std::string temporary = fmt::format("{}.tmp-{}", path, getpid());
  std::filesystem::remove(temporary);
  sqlite3* db = openDatabase(temporary, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  try {
    exec(db,
         "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
         "CREATE TABLE points(key TEXT PRIMARY KEY, idx INTEGER NOT NULL, status TEXT NOT NULL, value REAL,"
         " result TEXT NOT NULL, seconds REAL NOT NULL, worker TEXT NOT NULL);",
         temporary);
    Statement insert(db, "INSERT INTO meta(key, value) VALUES (?, ?)", temporary);
    const std::vector<std::pair<std::string, std::string>> meta = {
        {"format", kFormat},
        {"sweep_name", sweep.name},
        {"sweep_identity", sweep.identity},
        {"sweep_source", sweep.source},
        {"sweep_points", std::to_string(sweep.points.size())},
        {"routelab_version", routelabVersion()}};
    for (const auto& [key, value] : meta) {
      insert.bind(1, key);
      insert.bind(2, value);
      insert.step();
      insert.reset();
    }
  } catch (...) {
    sqlite3_close(db);
    std::filesystem::remove(temporary);
    throw;
  }
  sqlite3_close(db);
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary);
    throw IoError(fmt::format("cannot create results file {}: {}", path, error.message()));
  }
}

}  // namespace

ResultStore::ResultStore(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
ResultStore::ResultStore(ResultStore&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)), header_(std::move(other.header_)) {}
ResultStore& ResultStore::operator=(ResultStore&& other) noexcept {
  std::swap(db_, other.db_);
  std::swap(path_, other.path_);
  std::swap(header_, other.header_);
  return *this;
}
ResultStore::~ResultStore() { sqlite3_close(db_); }

void ResultStore::readHeader() {
  std::map<std::string, std::string> meta;
  try {
    Statement select(db_, "SELECT key, value FROM meta", path_);
    while (select.step()) meta[select.text(0)] = select.text(1);
  } catch (const IoError&) {
    throw IoError(fmt::format("{} is not a routelab sweep results file (no readable meta table)", path_));
  }
  if (meta["format"] != kFormat) {
    throw IoError(fmt::format("{} is not a routelab sweep results file (format '{}', expected '{}')", path_,
                              meta["format"], kFormat));
  }
  header_.sweepName = meta["sweep_name"];
  header_.identity = meta["sweep_identity"];
  header_.source = meta["sweep_source"];
  const std::string& points = meta["sweep_points"];
  const auto [end, error] = std::from_chars(points.data(), points.data() + points.size(), header_.points);
  if (error != std::errc() || end != points.data() + points.size()) {
    throw IoError(fmt::format("{}: meta sweep_points '{}' is not a number", path_, points));
  }
  header_.version = meta["routelab_version"];
}

ResultStore ResultStore::openForSweep(const std::string& path, const Sweep& sweep) {
  if (!std::filesystem::exists(path)) createResultsFile(path, sweep);
  ResultStore store(openDatabase(path, SQLITE_OPEN_READWRITE), path);
  store.readHeader();
  if (store.header_.identity != sweep.identity) {
    throw SpecError(fmt::format(
        "results file {} holds sweep '{}' (identity {}, {} points, from {}), not this sweep '{}' (identity {}, "
        "{} points, from {}): a results file holds one sweep; give another --results file",
        path, store.header_.sweepName, store.header_.identity, store.header_.points, store.header_.source, sweep.name,
        sweep.identity, sweep.points.size(), sweep.source));
  }
  exec(store.db_, "PRAGMA synchronous=NORMAL", path);
  return store;
}

ResultStore ResultStore::openExisting(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) throw IoError(fmt::format("results file {} does not exist", path));
  ResultStore store(openDatabase(path, SQLITE_OPEN_READONLY), path);
  store.readHeader();
  return store;
}

std::set<std::string> ResultStore::finishedKeys() const {
  std::set<std::string> keys;
  Statement select(db_, "SELECT key FROM points", path_);
  while (select.step()) keys.insert(select.text(0));
  return keys;
}

void ResultStore::insert(const PointResult& r) {
  Statement insert(db_,
                   "INSERT OR REPLACE INTO points(key, idx, status, value, result, seconds, worker)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?)",
                   path_);
  insert.bind(1, r.key);
  insert.bind(2, static_cast<std::int64_t>(r.index));
  insert.bind(3, std::string(r.ok ? "ok" : "error"));
  const nlohmann::json value = r.result.value("value", nlohmann::json(nullptr));
  if (r.ok && value.is_number()) {
    insert.bindDouble(4, value.get<double>());
  } else {
    insert.bindNull(4);
  }
  insert.bind(5, r.result.dump());
  insert.bindDouble(6, r.seconds);
  insert.bind(7, r.worker);
  insert.step();
}

std::vector<PointResult> ResultStore::results() const {
  std::vector<PointResult> out;
  Statement select(db_, "SELECT key, idx, status, result, seconds, worker FROM points ORDER BY idx", path_);
  while (select.step()) {
    PointResult r;
    r.key = select.text(0);
    r.index = static_cast<std::size_t>(select.integer(1));
    r.ok = select.text(2) == "ok";
    r.result = nlohmann::json::parse(select.text(3), nullptr, false);
    r.seconds = select.real(4);
    r.worker = select.text(5);
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace routelab
