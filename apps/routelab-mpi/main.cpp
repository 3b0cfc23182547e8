// routelab-mpi — `routelab sweep` over MPI ranks (docs/SWEEPS.md). Built when CMake finds
// MPI; linked dynamically (MPI cannot be linked statically), so it is a binary of its own
// and bin/routelab stays static and MPI-free.
//
//   mpirun -np 8 routelab-mpi sweep FILE --results R.sqlite
//
// Rank 0 parses the command, reads the sweep, owns the SQLite results file and hands out
// one point at a time (its canonical configuration) to ranks 1..N-1, which compute it and
// send the result back; rank 0 stores it as it arrives. Workers need no access to the sweep
// file or the results file. With one rank the points run on threads, as in bin/routelab.
// Results equal those of bin/routelab: a point's result depends on its configuration only.
#include <fmt/format.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "cmd_sweep.h"
#include "core/errors.h"
#include "sweep/point_kinds.h"

namespace {

constexpr int kTagWork = 1;
constexpr int kTagStop = 2;
constexpr int kTagResult = 3;
constexpr int kTagCollective = 4;  ///< a sampled point every rank computes a share of

/// The sum over every rank, element-wise (the SampleSplit of a collective point).
routelab::SampleSplit rankSplit(int rank, int size) {
  return {static_cast<std::uint32_t>(rank), static_cast<std::uint32_t>(size), [](std::span<double> values) {
            MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM,
                          MPI_COMM_WORLD);
          }};
}

int pointThreads(int threads) {
  // --threads 0: every core of this rank's node (run one rank per node, docs/SWEEPS.md).
  return threads > 0 ? threads : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

std::string receiveString(int source, int tag, MPI_Status& status) {
  MPI_Probe(source, tag, MPI_COMM_WORLD, &status);
  int size = 0;
  MPI_Get_count(&status, MPI_CHAR, &size);
  std::string text(static_cast<std::size_t>(size), '\0');
  MPI_Recv(text.data(), size, MPI_CHAR, status.MPI_SOURCE, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return text;
}

void sendString(const std::string& text, int destination, int tag) {
  MPI_Send(text.data(), static_cast<int>(text.size()), MPI_CHAR, destination, tag, MPI_COMM_WORLD);
}

/// Ranks 1..N-1: compute the points rank 0 sends until it says stop. A collective point
/// is computed together with every rank; rank 0 stores its result, so no reply is sent.
void workerLoop(int rank, int size) {
  for (;;) {
    MPI_Status status;
    MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    const std::string message = receiveString(0, status.MPI_TAG, status);
    if (status.MPI_TAG == kTagStop) return;
    const nlohmann::json work = nlohmann::json::parse(message);
    routelab::SweepPoint point{work["index"].get<std::size_t>(), work["config"], work["key"].get<std::string>()};
    const int threads = pointThreads(work["threads"].get<int>());
    const std::string worker = "rank " + std::to_string(rank);
    if (status.MPI_TAG == kTagCollective) {
      routelab::computePoint(point, threads, worker, rankSplit(rank, size));
      continue;
    }
    const routelab::PointResult r = routelab::computePoint(point, threads, worker);
    const nlohmann::json reply = {{"index", r.index},   {"key", r.key},         {"ok", r.ok},
                                  {"result", r.result}, {"seconds", r.seconds}, {"worker", r.worker}};
    sendString(reply.dump(), 0, kTagResult);
  }
}

/// Rank 0's view of the workers: who holds a point, who has been told to stop.
struct Coordinator {
  int size = 1;
  std::vector<bool> busy, stopped;

  /// Stops every worker, receiving (and dropping) the result of a point still running.
  void stopAll() {
    for (int r = 1; r < size; ++r) {
      if (stopped[static_cast<std::size_t>(r)]) continue;
      if (busy[static_cast<std::size_t>(r)]) {
        MPI_Status status;
        receiveString(r, kTagResult, status);
      }
      sendString("", r, kTagStop);
      stopped[static_cast<std::size_t>(r)] = true;
    }
  }
};

Coordinator gCoordinator;

nlohmann::json workMessage(const routelab::SweepPoint& point, const routelab::RunOptions& options) {
  return {{"index", point.index}, {"config", point.config}, {"key", point.key}, {"threads", options.threadsPerPoint}};
}

routelab::PointResult resultOf(const nlohmann::json& reply) {
  routelab::PointResult r;
  r.index = reply["index"].get<std::size_t>();
  r.key = reply["key"].get<std::string>();
  r.ok = reply["ok"].get<bool>();
  r.result = reply["result"];
  r.seconds = reply["seconds"].get<double>();
  r.worker = reply["worker"].get<std::string>();
  return r;
}

/// Rank 0: one point at a time to each worker rank; results stored as they come.
void distributePoints(const std::vector<const routelab::SweepPoint*>& points, const routelab::RunOptions& options,
                      std::size_t& budget, const std::function<void(const routelab::PointResult&)>& onResult,
                      routelab::RunSummary& summary) {
  Coordinator& c = gCoordinator;
  std::size_t next = 0;
  int active = 0;
  const auto give = [&](int rank) {
    if ((options.stop && options.stop->load()) || next >= points.size() || budget == 0) return;
    sendString(workMessage(*points[next++], options).dump(), rank, kTagWork);
    --budget;
    c.busy[static_cast<std::size_t>(rank)] = true;
    ++active;
  };
  for (int r = 1; r < c.size; ++r) give(r);
  while (active > 0) {
    MPI_Status status;
    const nlohmann::json reply = nlohmann::json::parse(receiveString(MPI_ANY_SOURCE, kTagResult, status));
    c.busy[static_cast<std::size_t>(status.MPI_SOURCE)] = false;
    --active;
    const routelab::PointResult r = resultOf(reply);
    onResult(r);
    ++summary.computed;
    summary.failed += r.ok ? 0 : 1;
    give(status.MPI_SOURCE);
  }
}

/// Rank 0's runner. --split-samples: the sampled points (abb/afpb/adb) come last, each
/// computed by every rank together (rank 0 included), their samples split by index ranges.
routelab::RunSummary runOverRanks(const std::vector<const routelab::SweepPoint*>& points,
                                  const routelab::RunOptions& options,
                                  const std::function<void(const routelab::PointResult&)>& onResult) {
  Coordinator& c = gCoordinator;
  if (c.size == 1) return routelab::runPoints(points, options, onResult);
  std::vector<const routelab::SweepPoint*> single, collective;
  for (const routelab::SweepPoint* point : points) {
    (options.splitSamples && routelab::splitsSamples(point->config) ? collective : single).push_back(point);
  }
  std::size_t budget = options.maxPoints > 0 ? options.maxPoints : points.size();
  routelab::RunSummary summary;
  const int threads = pointThreads(options.threadsPerPoint);
  summary.workers =
      fmt::format("{} worker rank{} (a point each){}, {} thread{} per point", c.size - 1, c.size == 2 ? "" : "s",
                  collective.empty() ? "" : " and every rank on a sampled point", threads, threads == 1 ? "" : "s");
  distributePoints(single, options, budget, onResult, summary);
  for (const routelab::SweepPoint* point : collective) {
    if ((options.stop && options.stop->load()) || budget == 0) break;
    --budget;
    const std::string work = workMessage(*point, options).dump();
    for (int r = 1; r < c.size; ++r) sendString(work, r, kTagCollective);
    const routelab::PointResult result =
        routelab::computePoint(*point, pointThreads(options.threadsPerPoint), "ranks", rankSplit(0, c.size));
    onResult(result);
    ++summary.computed;
    summary.failed += result.ok ? 0 : 1;
  }
  summary.stopped = summary.computed < points.size();
  return summary;
}

int runRankZero(int argc, char** argv) {
  using namespace routelab;
  CLI::App app{"routelab-mpi — routelab sweep over MPI ranks (docs/SWEEPS.md)"};
  app.require_subcommand(1);
  cli::Command command = cli::sweepCommand(runOverRanks, true);
  CLI::App* sub = app.add_subcommand(command.name, command.summary);
  const std::function<int()> action = command.setup(*sub);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return action();
  } catch (const Error& e) {
    std::cerr << "routelab-mpi: error: " << e.what() << '\n';
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "routelab-mpi: error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "routelab-mpi: internal error: " << e.what() << '\n';
    return 3;
  }
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &gCoordinator.size);
  int code = 0;
  if (rank == 0) {
    gCoordinator.busy.assign(static_cast<std::size_t>(gCoordinator.size), false);
    gCoordinator.stopped.assign(static_cast<std::size_t>(gCoordinator.size), false);
    code = runRankZero(argc, argv);
    gCoordinator.stopAll();
  } else {
    workerLoop(rank, gCoordinator.size);
  }
  MPI_Finalize();
  return code;
}
