// Building fabrics: the 65,536-terminal 16-ary 4-tree must build in well under a second.
#include <benchmark/benchmark.h>

#include "topology/xgft.h"

static void BM_BuildKaryNtree(benchmark::State& state) {
  const auto k = static_cast<std::uint32_t>(state.range(0));
  const auto n = static_cast<std::uint32_t>(state.range(1));
  std::size_t channels = 0;
  for (auto _ : state) {
    routelab::Network network = routelab::makeKaryNtree(k, n);
    channels = network.channelCount();
    benchmark::DoNotOptimize(channels);
  }
  state.counters["channels"] = static_cast<double>(channels);
}
BENCHMARK(BM_BuildKaryNtree)->Args({4, 3})->Args({16, 3})->Args({16, 4})->Unit(benchmark::kMillisecond);

static void BM_BuildGft2(benchmark::State& state) {
  for (auto _ : state) {
    routelab::Network network = routelab::makeGft2(32, 32, 64);
    benchmark::DoNotOptimize(network.channelCount());
  }
}
BENCHMARK(BM_BuildGft2)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
