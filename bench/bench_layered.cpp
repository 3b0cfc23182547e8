// Engines for any topology (Lysne et al. 2006): LASH targets of issue 4 — the 4-ary 4-tree
// in under 0.1 s (OpenSM 3.3.23: 9.6 s, 8 layers) and a 1024-switch random fabric with 2048
// links in under 10 s; the other engines for comparison. Counters: layers used (including
// the UpDown layer of the §8.4 fallback).
#include <benchmark/benchmark.h>

#include <string>

#include "core/errors.h"
#include "engines/registry.h"
#include "topology/random_irregular.h"
#include "topology/xgft.h"

namespace {

using routelab::Network;

double layersOf(const routelab::RoutingResult& result) { return static_cast<double>(result.layerCount()); }

Network randomFabric(std::uint32_t switches) {
  routelab::RandomIrregularParams params;
  params.switches = switches;
  params.links = 2 * switches;
  params.terminals = 1;
  params.radix = 16;
  params.seed = 1;
  return routelab::makeRandomIrregular(params);
}

void runSpec(benchmark::State& state, const std::string& spec, const Network& network) {
  double layers = 0;
  for (auto _ : state) {
    routelab::RoutingResult result;
    try {
      result = routelab::runEngine(spec, network);
    } catch (const routelab::RoutingError& error) {
      // e.g. max-layers=0 on a fabric needing more than kMaxLayers (16) layers: refused.
      state.SkipWithError(error.what());
      break;
    }
    layers = layersOf(result);
    benchmark::DoNotOptimize(result.tables.data());
  }
  state.counters["layers"] = layers;
  state.counters["switches"] = static_cast<double>(network.switchCount());
}

void BM_LashKaryNtree(benchmark::State& state) {
  const Network network =
      routelab::makeKaryNtree(static_cast<std::uint32_t>(state.range(0)), static_cast<std::uint32_t>(state.range(1)));
  runSpec(state, "lash", network);
}
BENCHMARK(BM_LashKaryNtree)->Args({4, 4})->Args({8, 3})->Args({16, 3})->Unit(benchmark::kMillisecond);

// LASH on random fabrics (links = 2 S, radix 16, seed 1 = `random:switches=S,links=2S`):
// the default (fit=first, max-layers=8: UpDown layer beyond 8), first-fit with no budget
// (layers needed), and the speed hint fit=suffix with and without the budget
// (fit=suffix,max-layers=0 was the default before issue 12). The 1024-switch fabric needs 18
// layers: with no budget it is refused at the kMaxLayers (16) limit (issue 8), reported as
// a skipped benchmark with the engine's message.
void BM_LashRandom(benchmark::State& state, const std::string& spec) {
  const Network network = randomFabric(static_cast<std::uint32_t>(state.range(0)));
  runSpec(state, spec, network);
}
BENCHMARK_CAPTURE(BM_LashRandom, default, std::string("lash"))
    ->Arg(128)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LashRandom, first_unbudgeted, std::string("lash:max-layers=0"))
    ->Arg(128)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LashRandom, suffix, std::string("lash:fit=suffix"))
    ->Arg(128)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LashRandom, suffix_unbudgeted, std::string("lash:fit=suffix,max-layers=0"))
    ->Arg(128)
    ->Arg(256)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);

void BM_EngineRandom128(benchmark::State& state, const std::string& spec) {
  static const Network network = randomFabric(128);
  runSpec(state, spec, network);
}
BENCHMARK_CAPTURE(BM_EngineRandom128, minhop, std::string("minhop"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineRandom128, updown, std::string("updown"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineRandom128, updown_dfs, std::string("updown-dfs"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineRandom128, d_mroots4, std::string("d-mroots:layers=4"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineRandom128, lash_pair, std::string("lash:addressing=pair"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineRandom128, lash_balance, std::string("lash:balance=true"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineRandom128, mp_lash, std::string("mp-lash"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineRandom128, a_lash, std::string("a-lash"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_EngineRandom128, escape, std::string("escape"))->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
