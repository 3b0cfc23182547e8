// routelab/sweep/runner.cpp — a small pool of worker threads over the pending points.
#include "sweep/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <new>
#include <thread>

#include "core/errors.h"
#include "sweep/point_kinds.h"

namespace routelab {

PointResult computePoint(const SweepPoint& point, int threads, const std::string& worker, const SampleSplit& split) {
  PointResult r;
  r.index = point.index;
  r.key = point.key;
  r.worker = worker;
  const auto start = std::chrono::steady_clock::now();
  try {
    r.result = evaluatePoint(point.config, EvaluationContext{std::max(threads, 1), split});
  } catch (const Error& e) {
    r.ok = false;
    r.result = {{"error", e.what()}, {"value", nullptr}};
  } catch (const std::bad_alloc&) {
    r.ok = false;
    r.result = {{"error", "out of memory"}, {"value", nullptr}};
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::vector<const SweepPoint*> pendingPoints(const Sweep& sweep, const std::set<std::string>& finished) {
  std::vector<const SweepPoint*> pending;
  for (const SweepPoint& point : sweep.points) {
    if (finished.count(point.key) == 0) pending.push_back(&point);
  }
  return pending;
}

namespace {

struct SharedState {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<PointResult> done;
  std::exception_ptr failure;
  std::size_t next = 0;
  std::size_t running = 0;  ///< workers still looping
  bool abort = false;       ///< the consumer failed: start nothing more
};

void workerLoop(SharedState& state, const std::vector<const SweepPoint*>& points, std::size_t limit,
                const RunOptions& options, int threads) {
  for (;;) {
    std::size_t i = 0;
    {
      std::lock_guard lock(state.mutex);
      const bool stop = options.stop && options.stop->load();
      if (state.abort || state.failure || stop || state.next >= limit) break;
      i = state.next++;
    }
    try {
      PointResult r = computePoint(*points[i], threads, "thread");
      std::lock_guard lock(state.mutex);
      state.done.push_back(std::move(r));
    } catch (...) {
      std::lock_guard lock(state.mutex);
      if (!state.failure) state.failure = std::current_exception();
    }
    state.ready.notify_one();
  }
  std::lock_guard lock(state.mutex);
  --state.running;
  state.ready.notify_one();
}

}  // namespace

Parallelism parallelismFor(const RunOptions& options, std::size_t points, unsigned cores) {
  cores = std::max(1U, cores);
  Parallelism p;
  p.jobs = static_cast<unsigned>(
      std::clamp<std::size_t>(options.jobs ? options.jobs : cores, 1, std::max<std::size_t>(points, 1)));
  p.threadsPerPoint =
      options.threadsPerPoint > 0 ? options.threadsPerPoint : static_cast<int>(std::max(1U, cores / p.jobs));
  return p;
}

RunSummary runPoints(const std::vector<const SweepPoint*>& points, const RunOptions& options,
                     const std::function<void(const PointResult&)>& onResult) {
  const std::size_t limit = options.maxPoints > 0 ? std::min(options.maxPoints, points.size()) : points.size();
  const Parallelism parallelism = parallelismFor(options, limit, std::thread::hardware_concurrency());
  const unsigned jobs = parallelism.jobs;
  const int threads = parallelism.threadsPerPoint;
  SharedState state;
  state.running = jobs;
  std::vector<std::jthread> workers;
  for (unsigned w = 0; w < jobs; ++w) {
    workers.emplace_back([&] { workerLoop(state, points, limit, options, threads); });
  }
  RunSummary summary;
  summary.workers = fmt::format("{} point{} at a time, {} thread{} per point", jobs, jobs == 1 ? "" : "s", threads,
                                threads == 1 ? "" : "s");
  std::exception_ptr consumerFailure;
  for (;;) {
    std::unique_lock lock(state.mutex);
    state.ready.wait(lock, [&] { return !state.done.empty() || state.running == 0; });
    if (state.done.empty()) break;
    PointResult r = std::move(state.done.front());
    state.done.pop_front();
    lock.unlock();
    if (consumerFailure) continue;
    try {
      onResult(r);
      ++summary.computed;
      summary.failed += r.ok ? 0 : 1;
    } catch (...) {
      consumerFailure = std::current_exception();
      std::lock_guard relock(state.mutex);
      state.abort = true;
    }
  }
  workers.clear();
  if (consumerFailure) std::rethrow_exception(consumerFailure);
  if (state.failure) std::rethrow_exception(state.failure);
  summary.stopped = summary.computed < points.size();
  return summary;
}

}  // namespace routelab
