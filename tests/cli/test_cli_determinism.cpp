// Determinism (docs/RELIABILITY.md): every seeded command prints byte-identical output
// across runs and across 1, 2 and all threads (OMP_NUM_THREADS, and --threads where the
// command has it). One test per subcommand; the fabrics are large enough that the
// parallel paths run (routing checks from 128 destinations, pair paths, sampling).
// No command prints timings; the only field that may differ is analyze's echo of
// --threads, which is removed before comparing.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "test_support.h"

using routelab::test::fixturesDir;
using routelab::test::runRoutelab;

namespace {

/// Restores OMP_NUM_THREADS at the end of a test.
class ThreadsEnvironment {
 public:
  ThreadsEnvironment() {
    if (const char* value = std::getenv("OMP_NUM_THREADS")) saved_ = value;
  }
  ~ThreadsEnvironment() {
    if (saved_)
      ::setenv("OMP_NUM_THREADS", saved_->c_str(), 1);
    else
      ::unsetenv("OMP_NUM_THREADS");
  }
  void set(unsigned threads) { ::setenv("OMP_NUM_THREADS", std::to_string(threads).c_str(), 1); }

 private:
  std::optional<std::string> saved_;
};

std::vector<unsigned> threadCounts() {
  const unsigned all = std::max(2U, std::thread::hardware_concurrency());
  return {1, 2, all, all};  // all twice: run-to-run as well
}

/// `text` with every JSON `"threads": N` replaced by `"threads": T`. (No std::regex: GCC's
/// -Wmaybe-uninitialized fires inside <regex> under -fsanitize=address.)
std::string withoutThreadCount(std::string text) {
  const std::string key = "\"threads\": ";
  for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + key.size())) {
    std::size_t end = at + key.size();
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    text.replace(at + key.size(), end - at - key.size(), "T");
  }
  return text;
}

/// Runs `arguments` (a "@T@" in it becomes the thread count, 0 meaning all for --threads)
/// under each thread count; every output must equal the first, and the command must succeed
/// with `expectedExit`.
void expectIdenticalAcrossThreads(const std::string& arguments, int expectedExit = 0) {
  ThreadsEnvironment environment;
  std::string reference;
  const auto counts = threadCounts();
  for (std::size_t i = 0; i < counts.size(); ++i) {
    environment.set(counts[i]);
    std::string command = arguments;
    const std::string threads = i + 1 == counts.size() ? "0" : std::to_string(counts[i]);
    for (auto at = command.find("@T@"); at != std::string::npos; at = command.find("@T@")) {
      command.replace(at, 3, threads);
    }
    const auto result = runRoutelab(command);
    ASSERT_EQ(result.exitCode, expectedExit) << command << "\n" << result.err;
    // analyze echoes --threads (JSON "threads": N); nothing else may differ.
    const std::string output = withoutThreadCount(result.out);
    ASSERT_FALSE(output.empty()) << command;
    if (i == 0) {
      reference = output;
    } else {
      EXPECT_EQ(output, reference) << command << " with OMP_NUM_THREADS=" << counts[i]
                                   << " differs from OMP_NUM_THREADS=" << counts[0];
    }
  }
}

TEST(Determinism, Topo) {
  expectIdenticalAcrossThreads("topo random:switches=96,links=200,seed=5+fail-links=7,seed=3 --format json");
  expectIdenticalAcrossThreads("topo kary-ntree:k=4,n=4+fail-switches=3,seed=9 --format json");
}

TEST(Determinism, Route) {
  // 256 terminals: the checks run in parallel (>= 128 destinations).
  expectIdenticalAcrossThreads("route kary-ntree:k=4,n=4 --engine ftree-deterministic --format json");
  expectIdenticalAcrossThreads("route random:switches=64,terminals=3,seed=11 --engine lash --seed 5 --format json");
  expectIdenticalAcrossThreads("route random:switches=48,terminals=3,seed=4 --engine mroots --seed 7 --format json");
}

TEST(Determinism, Verify) {
  expectIdenticalAcrossThreads("verify random:switches=64,terminals=3,seed=12 --engine lash --seed 2 --format json");
  expectIdenticalAcrossThreads("verify kary-ntree:k=4,n=4+fail-links=4,seed=1 --engine minhop --format json");
  // The fixture's minhop routing is deadlock-prone: the cycle witness must not depend on threads.
  expectIdenticalAcrossThreads("verify file:" + fixturesDir() + "/rnd16_s1/ibnetdiscover.txt --engine file:" +
                                   fixturesDir() + "/rnd16_s1/lfts.minhop.dump --format json",
                               4);
}

TEST(Determinism, Analyze) {
  expectIdenticalAcrossThreads("analyze gft2:n=8,m=8,r=16 --engine dmodk --metric worst --threads @T@ --format json");
  expectIdenticalAcrossThreads(
      "analyze gft2:n=8,m=8,r=16 --engine dmodk --metric abb --seed 7 --precision 0.05 --threads @T@ --format json");
  expectIdenticalAcrossThreads(
      "analyze random:switches=32,terminals=2,seed=3 --engine lash --metric afpb --seed 3 --precision 0.05 "
      "--threads @T@ --format json");
  expectIdenticalAcrossThreads(
      "analyze kary-ntree:k=4,n=3 --engine ftree-adaptive --metric pattern --pattern random-permutation --seed 4 "
      "--load-model split --threads @T@ --format json");
  expectIdenticalAcrossThreads("analyze kary-ntree:k=4,n=4 --engine dmodk --metric stages --threads @T@ --format json");
}

TEST(Determinism, Schedule) {
  expectIdenticalAcrossThreads(
      "schedule ft:l=3,m=4,w=4 --scheduler local-random --permutations 40 --seed 3 --rounds --format json");
  expectIdenticalAcrossThreads(
      "schedule ft:l=2,m=8,w=8 --scheduler level-wise --permutations 40 --seed 5 --format json");
}

TEST(Determinism, Simulate) {
  // One simulation split over 1, 2 and every thread (--threads): byte-identical JSON.
  expectIdenticalAcrossThreads(
      "simulate kary-ntree:k=4,n=3 --engine ftree-adaptive --selection random --load 0.6 --warmup 300 --cycles 600 "
      "--threads @T@ --format json");
  expectIdenticalAcrossThreads(
      "simulate random:switches=16,seed=1 --engine lash --pattern random-permutation --load 0.9 --fly-time 2 "
      "--routing-delay 3 --cycles 800 --threads @T@ --format json");
}

TEST(Determinism, List) { expectIdenticalAcrossThreads("list --format json"); }

}  // namespace
