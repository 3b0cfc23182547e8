// The simulator against BookSim2's fat-tree case (docs/PERFORMANCE.md, "Simulation speed"):
// uniform Bernoulli traffic at 0.5 flits/terminal/cycle, 8-flit packets, 4 VCs of two packets
// (16 flits), random up-port choice, 1-cycle routing and links; a fixed 12,000 cycles
// (BookSim's 3 warm-up + 3 measured periods of 2000). Counter: simulated cycles per second.
// The *Threads cases run one simulation on `threads` threads (SimConfig::threads) with a fly
// time of 1 (BookSim's: the threads meet every cycle) or 8 (the default: every 8 cycles);
// wall-clock time, since the work is spread over threads.
#include <benchmark/benchmark.h>

#include <memory>
#include <utility>
#include <vector>

#include "core/bulk_allocator.h"
#include "core/random.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "sim/simulator.h"

namespace {

using namespace routelab;

void runBookSimCase(benchmark::State& state, const char* spec, std::uint32_t threads = 1, std::uint32_t flyTime = 1) {
  const Fabric fabric = loadFabric(spec);
  const RoutingResult routing = runEngine("ftree-adaptive", fabric.network);
  SimConfig config;
  config.load = 0.5;
  config.packetFlits = 8;
  config.vcs = 4;
  config.bufferPackets = 2;
  config.routingDelay = 1;
  config.flyTime = flyTime;
  config.threads = threads;
  config.selection = Selection::Random;
  config.warmupCycles = 6000;
  config.measureCycles = 6000;
  config.drainCycles = 1;
  std::uint64_t cycles = 0;
  for (auto _ : state) {
    const SimResult result = simulate(fabric.network, routing, config);
    cycles += result.cycles;
    benchmark::DoNotOptimize(result.latencyAvg);
  }
  state.counters["cycles_per_s"] = benchmark::Counter(double(cycles), benchmark::Counter::kIsRate);
}

void BM_SimK4n4BookSimCase(benchmark::State& state) { runBookSimCase(state, "kary-ntree:k=4,n=4"); }
BENCHMARK(BM_SimK4n4BookSimCase)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_SimK4n6BookSimCase(benchmark::State& state) { runBookSimCase(state, "kary-ntree:k=4,n=6"); }
BENCHMARK(BM_SimK4n6BookSimCase)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_SimK4n4BookSimCaseThreads(benchmark::State& state) {
  runBookSimCase(state, "kary-ntree:k=4,n=4", static_cast<std::uint32_t>(state.range(0)),
                 static_cast<std::uint32_t>(state.range(1)));
}
BENCHMARK(BM_SimK4n4BookSimCaseThreads)
    ->ArgsProduct({{1, 2}, {1, 8}})
    ->ArgNames({"threads", "fly"})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// The machine, not routelab: the time of one dependent load from a working set of
// `state.range(0)` KiB (a random cycle over 64-byte lines). The simulator's speed on a large
// fabric is bound by these loads (docs/PERFORMANCE.md, "Session 11: what the 4096-terminal
// case is bound by"): its state outgrows the cache from which a load costs a few nanoseconds.
// Memory: std::allocator (pages of 4 KiB unless the kernel's THP mode is `always`) or
// BulkAllocator (2 MiB aligned and advised as huge pages from 4 MiB on, as the simulator's
// channel records are): the difference is the cost of the TLB misses of random access.
template <class Allocator>
void machineLoadLatency(benchmark::State& state) {
  struct alignas(64) Line {
    std::size_t next = 0;
  };
  const auto lines = static_cast<std::size_t>(state.range(0)) * 1024 / sizeof(Line);
  std::vector<std::size_t> order(lines);
  for (std::size_t i = 0; i < lines; ++i) order[i] = i;
  Rng rng(1);
  for (std::size_t i = lines - 1; i > 0; --i) std::swap(order[i], order[rng.below(i + 1)]);
  std::vector<Line, typename std::allocator_traits<Allocator>::template rebind_alloc<Line>> memory(lines);
  for (std::size_t i = 0; i < lines; ++i) memory[order[i]].next = order[(i + 1) % lines];
  constexpr std::size_t kLoads = 1 << 22;
  std::size_t at = 0;
  for (std::size_t i = 0; i < lines; ++i) at = memory[at].next;  // warm the caches and pages
  for (auto _ : state) {
    for (std::size_t i = 0; i < kLoads; ++i) at = memory[at].next;
    benchmark::DoNotOptimize(at);
  }
  state.counters["ns_per_load"] = benchmark::Counter(double(state.iterations()) * kLoads,
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void BM_MachineLoadLatency(benchmark::State& state) { machineLoadLatency<std::allocator<char>>(state); }
BENCHMARK(BM_MachineLoadLatency)
    ->ArgsProduct({{256, 1024, 2048, 4096, 8192, 16384, 32768, 262144}})
    ->Unit(benchmark::kMillisecond);
void BM_MachineLoadLatencyHugePages(benchmark::State& state) { machineLoadLatency<BulkAllocator<char>>(state); }
BENCHMARK(BM_MachineLoadLatencyHugePages)
    ->ArgsProduct({{4096, 8192, 16384, 32768, 262144}})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
