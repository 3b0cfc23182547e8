// routelab sweep FILE [--results R.sqlite] — run a grid of points (docs/SWEEPS.md)
// routelab results R.sqlite [--format csv|json] [--output FILE] [--no-timings]
// routelab plot R.sqlite --output-dir DIR
//
// The library reads the sweep (sweep/sweep_file.h), computes (sweep/runner.h) and stores
// (sweep/results_store.h); this file prints the progress bar and the summaries, handles
// SIGINT (no new point is started; finished points are kept) and runs gnuplot.
#include "cmd_sweep.h"

#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gnuplot.h"
#include "io/output.h"
#include "sweep/report.h"

extern char** environ;

namespace routelab::cli {

namespace {

std::atomic<bool> gInterrupted{false};

extern "C" void onInterrupt(int) {
  gInterrupted.store(true);
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C ends the process at once
}

std::string clock(double seconds) {
  const auto s = static_cast<long long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

/// The progress bar on stderr: redrawn in place on a terminal, one line per 10% otherwise.
class Progress {
 public:
  Progress(std::size_t total, bool quiet) : total_(total), quiet_(quiet), tty_(isatty(STDERR_FILENO) != 0) {}
  void advance() {
    ++done_;
    if (quiet_ || total_ == 0) return;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double eta = elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_);
    const std::size_t width = 30;
    const std::size_t filled = done_ * width / total_;
    const std::string line =
        fmt::format("[{}{}] {}/{} {:3}%  elapsed {}  ETA {}", std::string(filled, '#'),
                    std::string(width - filled, '.'), done_, total_, done_ * 100 / total_, clock(elapsed), clock(eta));
    if (tty_) {
      fmt::print(stderr, "\r{}{}", line, done_ == total_ ? "\n" : "");
    } else if (done_ * 10 / total_ != (done_ - 1) * 10 / total_ || done_ == total_) {
      fmt::print(stderr, "{}\n", line);
    }
    std::fflush(stderr);
  }
  void finishLine() const {
    if (!quiet_ && tty_ && done_ != total_) fmt::print(stderr, "\n");
  }

 private:
  std::size_t total_;
  std::size_t done_ = 0;
  bool quiet_;
  bool tty_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

struct SweepArgs {
  std::string file;
  std::string results;
  unsigned jobs = 0;
  int threads = 0;
  std::size_t maxPoints = 0;
  bool quiet = false;
  bool dryRun = false;
  bool splitSamples = false;
};

int runSweep(const SweepArgs& args, const PointsRunner& runner) {
  const Sweep sweep = readSweepFile(args.file);
  const std::string resultsPath =
      args.results.empty() ? (std::filesystem::path(args.file).replace_extension(".sqlite")).string() : args.results;
  if (args.dryRun) {
    fmt::print("sweep       {} (identity {}, {} points, from {})\n", sweep.name, sweep.identity, sweep.points.size(),
               sweep.source);
    for (const SweepPoint& point : sweep.points) fmt::print("point {:<5} {}\n", point.index, point.key);
    return 0;
  }
  ResultStore store = ResultStore::openForSweep(resultsPath, sweep);
  const std::vector<const SweepPoint*> pending = pendingPoints(sweep, store.finishedKeys());
  const std::size_t before = sweep.points.size() - pending.size();
  if (!args.quiet) {
    fmt::print(stderr, "routelab sweep: {} ({} points; {} already in {}, {} to compute)\n", sweep.name,
               sweep.points.size(), before, resultsPath, pending.size());
  }
  RunOptions options;
  options.jobs = args.jobs;
  options.threadsPerPoint = args.threads;
  options.maxPoints = args.maxPoints;
  options.stop = &gInterrupted;
  options.splitSamples = args.splitSamples;
  Progress progress(args.maxPoints ? std::min(args.maxPoints, pending.size()) : pending.size(), args.quiet);
  gInterrupted.store(false);
  std::signal(SIGINT, onInterrupt);
  RunSummary summary;
  try {
    summary = runner(pending, options, [&](const PointResult& r) {
      store.insert(r);
      progress.advance();
    });
  } catch (...) {
    std::signal(SIGINT, SIG_DFL);
    progress.finishLine();
    throw;
  }
  std::signal(SIGINT, SIG_DFL);
  progress.finishLine();
  const std::size_t left = pending.size() - summary.computed;
  fmt::print("sweep       {} (identity {})\nresults     {}\n", sweep.name, sweep.identity, resultsPath);
  fmt::print("points      {} in all: {} stored before, {} computed now ({} failed), {} left\n", sweep.points.size(),
             before, summary.computed, summary.failed, left);
  if (!summary.workers.empty()) fmt::print("workers     {}\n", summary.workers);
  if (left > 0) {
    fmt::print("resume      rerun the same command: finished points are not computed again\n");
    if (gInterrupted.load()) {
      fmt::print(stderr, "routelab sweep: interrupted; {} points left\n", left);
      return 1;
    }
    return 0;  // --max-points
  }
  std::size_t failed = 0;
  for (const PointResult& r : store.results()) failed += r.ok ? 0 : 1;
  if (failed > 0) {
    fmt::print(stderr, "routelab sweep: {} point(s) failed; their errors are in the results (status error)\n", failed);
    return 1;
  }
  return 0;
}

}  // namespace

Command sweepCommand(PointsRunner runner, bool mpi) {
  return {"sweep", "run a grid of analyses from a TOML file into an SQLite results file (resumable)",
          [runner, mpi](CLI::App& command) {
            auto args = std::make_shared<SweepArgs>();
            command.add_option("file", args->file, "sweep file (TOML, docs/SWEEPS.md)")->required();
            command.add_option("--results", args->results, "SQLite results file (default: FILE with .sqlite)");
            command.add_option("--jobs", args->jobs, "points computed at once (0 = every core)")
                ->check(unsignedDecimal())
                ->default_str("0");
            command.add_option("--threads", args->threads, "threads inside a point (0 = cores / jobs)")
                ->check(unsignedDecimal(0, 4096))  // the range of the requests' own threads rows
                ->default_str("0");
            command.add_option("--max-points", args->maxPoints, "compute at most N points, then stop (resumable)")
                ->check(unsignedDecimal(1));
            command.add_flag("--quiet", args->quiet, "no progress bar");
            command.add_flag("--dry-run", args->dryRun, "list the points (canonical configurations) and stop");
            if (mpi) {
              command.add_flag("--split-samples", args->splitSamples,
                               "abb/afpb/adb points: every rank draws a share of each point's samples");
            }
            return std::function<int()>([args, runner] { return runSweep(*args, runner); });
          }};
}

namespace {

struct ResultsArgs {
  std::string results;
  std::string format = "csv";
  std::string output;
  bool noTimings = false;
};

}  // namespace

Command resultsCommand() {
  return {"results", "export a sweep results file as CSV or JSON", [](CLI::App& command) {
            auto args = std::make_shared<ResultsArgs>();
            command.add_option("results", args->results, "SQLite results file of `routelab sweep`")->required();
            command.add_option("--format", args->format, "csv | json")
                ->check(CLI::IsMember({"csv", "json"}))
                ->default_str("csv");
            command.add_option("--output", args->output, "write to FILE (atomically) instead of stdout");
            command.add_flag("--no-timings", args->noTimings, "leave out seconds and worker (comparable exports)");
            return std::function<int()>([args] {
              const ResultStore store = ResultStore::openExisting(args->results);
              const std::vector<PointResult> results = store.results();
              const auto write = [&](std::ostream& out) {
                if (args->format == "csv") {
                  writeResultsCsv(out, results, !args->noTimings);
                } else {
                  out << resultsJson(store.header(), results, !args->noTimings).dump(2) << '\n';
                }
              };
              if (args->output.empty()) {
                write(std::cout);
              } else {
                writeFileAtomically(args->output, write);
              }
              return 0;
            });
          }};
}

namespace {

int runPlot(const std::string& resultsPath, const std::string& directory) {
  const ResultStore store = ResultStore::openExisting(resultsPath);
  const std::vector<PlotSpec> plots = standardPlots(store.results());
  if (plots.empty()) throw AnalysisError("results file " + resultsPath + " has no successful point to plot");
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) throw IoError("cannot create the plot folder " + directory + ": " + error.message());
  const std::string tag = fmt::format(".tmp-{}", getpid());
  std::vector<std::pair<std::string, std::string>> renames;  // temporary -> final
  try {
    for (const PlotSpec& plot : plots) {
      const std::string base = (std::filesystem::path(directory) / plot.name).string();
      renames.emplace_back(base + ".png" + tag, base + ".png");
      renames.emplace_back(base + ".svg" + tag, base + ".svg");
      const std::string script = base + ".gp" + tag;
      writeFileAtomically(
          script, [&](std::ostream& out) { out << gnuplotScript(plot, base + ".png" + tag, base + ".svg" + tag); });
      runGnuplot(script);
      std::filesystem::remove(script);
    }
  } catch (...) {
    for (const auto& [temporary, final] : renames) std::filesystem::remove(temporary);
    for (const PlotSpec& plot : plots)
      std::filesystem::remove((std::filesystem::path(directory) / plot.name).string() + ".gp" + tag);
    throw;
  }
  for (const auto& [temporary, final] : renames) {
    std::filesystem::rename(temporary, final, error);
    if (error) {
      const std::string message = "cannot write " + final + ": " + error.message();
      for (const auto& pair : renames) std::filesystem::remove(pair.first, error);
      throw IoError(message);
    }
    fmt::print("{}\n", final);
  }
  return 0;
}

}  // namespace

Command plotCommand() {
  return {"plot", "render the standard plots (PNG and SVG, gnuplot) of a sweep results file", [](CLI::App& command) {
            auto results = std::make_shared<std::string>();
            auto directory = std::make_shared<std::string>("plots");
            command.add_option("results", *results, "SQLite results file of `routelab sweep`")->required();
            command.add_option("--output-dir", *directory, "folder of the plots")->default_str("plots");
            return std::function<int()>([results, directory] { return runPlot(*results, *directory); });
          }};
}

std::vector<Command> sweepCommands() { return {sweepCommand(runPoints), resultsCommand(), plotCommand()}; }

}  // namespace routelab::cli
