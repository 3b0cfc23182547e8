// Generating random irregular fabrics (Lysne et al. §8 shape: links = 2 x switches, one
// terminal per switch) and applying seeded faults.
#include <benchmark/benchmark.h>

#include "fabric/fabric.h"
#include "topology/random_irregular.h"

static void BM_RandomIrregular(benchmark::State& state) {
  routelab::RandomIrregularParams params;
  params.switches = static_cast<std::uint32_t>(state.range(0));
  params.links = 2 * params.switches;
  params.terminals = 1;
  params.radix = 16;
  params.seed = 1;
  std::size_t channels = 0;
  for (auto _ : state) {
    const routelab::Network network = routelab::makeRandomIrregular(params);
    channels = network.channelCount();
    benchmark::DoNotOptimize(channels);
  }
  state.counters["channels"] = static_cast<double>(channels);
}
BENCHMARK(BM_RandomIrregular)->Arg(64)->Arg(1024)->Arg(16384)->Unit(benchmark::kMillisecond);

// The switch graph only (Python-compatible draws), without building the Network.
static void BM_RandomIrregularSwitchLinks(benchmark::State& state) {
  routelab::RandomIrregularParams params;
  params.switches = static_cast<std::uint32_t>(state.range(0));
  params.links = 2 * params.switches;
  for (auto _ : state) benchmark::DoNotOptimize(routelab::randomIrregularSwitchLinks(params).size());
}
BENCHMARK(BM_RandomIrregularSwitchLinks)->Arg(1024)->Unit(benchmark::kMillisecond);

// Spec -> fabric with 1% of the switch cables failed.
static void BM_RandomWithFailedLinks(benchmark::State& state) {
  for (auto _ : state) {
    const routelab::Fabric fabric = routelab::loadFabric("random:switches=1024,links=2048+fail-links=20,seed=3");
    benchmark::DoNotOptimize(fabric.network.channelCount());
  }
}
BENCHMARK(BM_RandomWithFailedLinks)->Unit(benchmark::kMillisecond);

// Faults on the 65,536-terminal 16-ary 4-tree: build, two rebuilds, two component reports.
static void BM_FaultsOnSixteenAryFourTree(benchmark::State& state) {
  for (auto _ : state) {
    const routelab::Fabric fabric =
        routelab::loadFabric("kary-ntree:k=16,n=4+fail-switches=100,seed=1+fail-links=1000,seed=2");
    benchmark::DoNotOptimize(fabric.network.channelCount());
  }
}
BENCHMARK(BM_FaultsOnSixteenAryFourTree)->Unit(benchmark::kMillisecond);

// The tree alone, for the difference.
static void BM_SixteenAryFourTreeSpec(benchmark::State& state) {
  for (auto _ : state) {
    const routelab::Fabric fabric = routelab::loadFabric("kary-ntree:k=16,n=4");
    benchmark::DoNotOptimize(fabric.network.channelCount());
  }
}
BENCHMARK(BM_SixteenAryFourTreeSpec)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
