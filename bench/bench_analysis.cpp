// Static congestion analysis speed (issue 3, item 7). Targets: exact WORST of T(24+24, 48)
// in under 1 s; at least 100,000 bisect samples per second per core on T(25+25, 50).
// Results and the exact command: docs/PERFORMANCE.md, "## analysis".
#include <benchmark/benchmark.h>

#include "analysis/paths.h"
#include "analysis/sampling.h"
#include "analysis/split.h"
#include "analysis/worst.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "topology/xgft.h"

namespace {

using namespace routelab;

const char* kEngines[] = {"opt", "dmodk"};

/// Paths of every pair of T(24+24, 48) (1152 terminals, 1.3 M pairs) from the routing.
void BM_PairPathsT24(benchmark::State& state) {
  const Network net = makeGft2(24, 24, 48);
  const RoutingResult routing = runEngine(kEngines[state.range(0)], net);
  const int threads = static_cast<int>(state.range(1));
  for (auto _ : state) {
    const PairPaths paths = PairPaths::build(net, routing, threads);
    benchmark::DoNotOptimize(paths.totalHops());
  }
  state.SetLabel(std::string(kEngines[state.range(0)]) + (threads == 1 ? " 1 thread" : " all threads"));
}
BENCHMARK(BM_PairPathsT24)->Args({0, 1})->Args({0, 0})->Args({1, 1})->Unit(benchmark::kMillisecond);

/// WORST alone (paths given): transpose + bounds + Hopcroft–Karp on unpruned channels.
void BM_WorstT24(benchmark::State& state) {
  const Network net = makeGft2(24, 24, 48);
  const RoutingResult routing = runEngine(kEngines[state.range(0)], net);
  const PairPaths paths = PairPaths::build(net, routing);
  const int threads = static_cast<int>(state.range(1));
  std::uint32_t value = 0;
  for (auto _ : state) {
    const WorstCase worst = worstCasePermutationLoad(paths, threads);
    value = worst.value;
    benchmark::DoNotOptimize(value);
  }
  state.counters["WORST"] = value;
  state.SetLabel(std::string(kEngines[state.range(0)]) + (threads == 1 ? " 1 thread" : " all threads"));
}
BENCHMARK(BM_WorstT24)->Args({0, 1})->Args({0, 0})->Args({1, 1})->Args({1, 0})->Unit(benchmark::kMillisecond);

/// The whole `--metric worst` computation after routing: paths + WORST, one thread.
void BM_WorstEndToEndT24(benchmark::State& state) {
  const Network net = makeGft2(24, 24, 48);
  const RoutingResult routing = runEngine(kEngines[state.range(0)], net);
  for (auto _ : state) {
    const PairPaths paths = PairPaths::build(net, routing, 1);
    benchmark::DoNotOptimize(worstCasePermutationLoad(paths, 1).value);
  }
  state.SetLabel(std::string(kEngines[state.range(0)]) + " 1 thread");
}
BENCHMARK(BM_WorstEndToEndT24)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

/// WORST from source classes (worst.h; no per-pair paths), the computation `analyze --metric
/// worst` runs after routing: T(24+24, 48) with OPT and D-mod-k, one thread.
void BM_WorstClassesT24(benchmark::State& state) {
  const Network net = makeGft2(24, 24, 48);
  const RoutingResult routing = runEngine(kEngines[state.range(0)], net);
  std::uint32_t value = 0;
  for (auto _ : state) {
    value = worstCasePermutationLoad(net, routing, 1).value;
    benchmark::DoNotOptimize(value);
  }
  state.counters["WORST"] = value;
  state.SetLabel(std::string(kEngines[state.range(0)]) + " 1 thread");
}
BENCHMARK(BM_WorstClassesT24)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

/// Issue 13's WORST target: the 16-ary 3-tree (4096 terminals) with D-mod-k, one thread,
/// the routing made outside the timed loop (arg 0), or fabric + routing + WORST (arg 1).
void BM_WorstKaryNTree16x3(benchmark::State& state) {
  const bool endToEnd = state.range(0) == 1;
  const Fabric fabric = loadFabric("kary-ntree:k=16,n=3");
  const RoutingResult routing = runEngine("dmodk", fabric.network);
  std::uint32_t value = 0;
  for (auto _ : state) {
    if (endToEnd) {
      const Fabric built = loadFabric("kary-ntree:k=16,n=3");
      value = worstCasePermutationLoad(built.network, runEngine("dmodk", built.network), 1).value;
    } else {
      value = worstCasePermutationLoad(fabric.network, routing, 1).value;
    }
    benchmark::DoNotOptimize(value);
  }
  state.counters["WORST"] = value;
  state.SetLabel(endToEnd ? "dmodk, fabric + routing + WORST, 1 thread" : "dmodk, WORST after routing, 1 thread");
}
BENCHMARK(BM_WorstKaryNTree16x3)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

/// Bisect samples per second on one core, T(25+25, 50) (1250 terminals).
void BM_BisectSamplesT25(benchmark::State& state) {
  const Network net = makeGft2(25, 25, 50);
  const RoutingResult routing = runEngine(kEngines[state.range(0)], net);
  const PairPaths paths = PairPaths::build(net, routing);
  SamplingOptions options;
  options.initialSamples = 20000;
  options.maxSamples = 20000;
  options.precision = 1e9;  // one batch of exactly initialSamples
  options.threads = static_cast<int>(state.range(1));
  std::uint64_t samples = 0;
  for (auto _ : state) {
    const SampledBandwidth result = sampleBandwidth(paths, SampledPattern::Bisect, options);
    samples += result.samples;
    benchmark::DoNotOptimize(result.mean);
  }
  state.counters["samples_per_second"] = benchmark::Counter(static_cast<double>(samples), benchmark::Counter::kIsRate);
  state.SetLabel(std::string(kEngines[state.range(0)]) + (options.threads == 1 ? " 1 thread" : " all threads"));
}
// CPU time of the calling thread: per-core throughput (the machines are shared; wall time
// on a loaded machine says little). The all-threads variant reports wall time.
BENCHMARK(BM_BisectSamplesT25)->Args({0, 1})->Args({1, 1})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BisectSamplesT25)->Args({0, 0})->Unit(benchmark::kMillisecond)->UseRealTime();

/// Full-permutation samples (N pairs, derangement by rejection), one core.
void BM_FullPermutationSamplesT25(benchmark::State& state) {
  const Network net = makeGft2(25, 25, 50);
  const PairPaths paths = PairPaths::build(net, runEngine("opt", net));
  SamplingOptions options;
  options.initialSamples = options.maxSamples = 10000;
  options.precision = 1e9;
  options.threads = 1;
  std::uint64_t samples = 0;
  for (auto _ : state) {
    samples += sampleBandwidth(paths, SampledPattern::FullPermutation, options).samples;
  }
  state.counters["samples_per_second"] = benchmark::Counter(static_cast<double>(samples), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FullPermutationSamplesT25)->Unit(benchmark::kMillisecond);

/// Split load models (issue 12): bisect samples per second on one core under even split and
/// best split, ftree-adaptive on T(16+16, 32) (512 terminals, 16 candidate tops per pair).
void BM_SplitBisectSamplesT16(benchmark::State& state) {
  const Network net = makeGft2(16, 16, 32);
  const RoutingResult routing = runEngine("ftree-adaptive", net);
  const LoadModel model = state.range(0) == 0 ? LoadModel::EvenSplit : LoadModel::BestSplit;
  SamplingOptions options;
  options.initialSamples = options.maxSamples = model == LoadModel::EvenSplit ? 2000 : 200;
  options.precision = 1e9;
  options.threads = 1;
  std::uint64_t samples = 0;
  std::uint32_t iterations = 0;
  for (auto _ : state) {
    const SampledBandwidth result = sampleSplitBandwidth(net, routing, SampledPattern::Bisect, model, options);
    samples += result.samples;
    iterations = result.maxIterations;
    benchmark::DoNotOptimize(result.mean);
  }
  state.counters["samples_per_second"] = benchmark::Counter(static_cast<double>(samples), benchmark::Counter::kIsRate);
  state.counters["max_iterations"] = iterations;
  state.SetLabel(loadModelName(model) + ", ftree-adaptive, 1 thread");
}
BENCHMARK(BM_SplitBisectSamplesT16)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

/// Best split on MP-LASH (per-pair paths) and escape (escape layer at every hop), the
/// main job's 4-ary 3-tree, 1 thread.
void BM_BestSplitSamplesMainJob(benchmark::State& state) {
  const Fabric fabric = loadFabric("kary-ntree:k=4,n=3");
  const char* engine = state.range(0) == 0 ? "mp-lash" : "escape";
  const RoutingResult routing = runEngine(engine, fabric.network);
  SamplingOptions options;
  options.initialSamples = options.maxSamples = 1000;
  options.precision = 1e9;
  options.threads = 1;
  std::uint64_t samples = 0;
  for (auto _ : state) {
    samples +=
        sampleSplitBandwidth(fabric.network, routing, SampledPattern::Bisect, LoadModel::BestSplit, options).samples;
  }
  state.counters["samples_per_second"] = benchmark::Counter(static_cast<double>(samples), benchmark::Counter::kIsRate);
  state.SetLabel(std::string("best-split, ") + engine + ", 1 thread");
}
BENCHMARK(BM_BestSplitSamplesMainJob)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

/// Exact even-split WORST (maximum-weight matching per channel), ftree-adaptive on the
/// 4-ary 3-tree and T(16+16, 32), 1 thread.
void BM_EvenSplitWorst(benchmark::State& state) {
  const Fabric fabric = loadFabric(state.range(0) == 0 ? "kary-ntree:k=4,n=3" : "gft2:n=16,m=16,r=32");
  const RoutingResult routing = runEngine("ftree-adaptive", fabric.network);
  double value = 0;
  for (auto _ : state) {
    value = worstUnderModel(fabric.network, routing, LoadModel::EvenSplit, 1).value;
    benchmark::DoNotOptimize(value);
  }
  state.counters["WORST"] = value;
  state.SetLabel(fabric.spec + ", ftree-adaptive, 1 thread");
}
BENCHMARK(BM_EvenSplitWorst)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
