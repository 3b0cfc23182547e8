// A failing sample under the sampler split over processes (analysis/sampling.h SampleSplit):
// every process ends with the error of the failed sample of smallest index — the error of
// the same run on one process — whichever process drew it and whatever failed on its own.
#include <gtest/gtest.h>

#include <barrier>
#include <thread>

#include <fmt/format.h>

#include "analysis/sampling.h"
#include "core/errors.h"

using namespace routelab;

namespace {

/// A load source whose samples fail when their pattern holds the pair (0, 1), with a
/// message naming every pair of the pattern (so two failed samples have different messages).
class FailingSource : public LoadSource {
 public:
  class Eval : public Evaluator {
   public:
    SampleLoad maxLoad(std::span<const SourceDestination> pairs) override {
      std::string names;
      bool fails = false;
      for (const SourceDestination& p : pairs) {
        names += fmt::format(" {}>{}", p.source, p.destination);
        fails = fails || (p.source == 0 && p.destination == 1);
      }
      if (fails) throw AnalysisError("failed pattern:" + names);
      return {2, 2, 0};
    }
  };
  std::size_t terminals() const override { return 8; }
  bool integral() const override { return true; }
  std::unique_ptr<Evaluator> evaluator() const override { return std::make_unique<Eval>(); }
};

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

/// An all-reduce over `parts` threads: each adds its vector, all read the sum.
class ThreadAllReduce {
 public:
  explicit ThreadAllReduce(std::uint32_t parts) : barrier_(parts), slots_(parts) {}
  void sum(std::span<double> values, std::uint32_t part) {
    slots_[part].assign(values.begin(), values.end());
    barrier_.arrive_and_wait();
    std::vector<double> total(values.size(), 0.0);
    for (const auto& slot : slots_) {
      for (std::size_t i = 0; i < total.size(); ++i) total[i] += slot[i];
    }
    barrier_.arrive_and_wait();
    std::copy(total.begin(), total.end(), values.begin());
  }

 private:
  std::barrier<> barrier_;
  std::vector<std::vector<double>> slots_;
};

}  // namespace

TEST(SplitSampleFailure, EveryProcessEndsWithTheOneProcessError) {
  const FailingSource source;
  for (const std::uint64_t seed : {1, 2, 3, 4}) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    SamplingOptions options;
    options.seed = seed;
    options.threads = 1;
    const std::string whole = errorOf([&] { sampleLoads(source, SampledPattern::RandomPermutation, options); });
    ASSERT_EQ(whole.rfind("failed pattern:", 0), 0u) << whole;
    constexpr std::uint32_t kParts = 3;
    ThreadAllReduce reduce(kParts);
    std::vector<std::string> errors(kParts);
    {
      std::vector<std::jthread> threads;
      for (std::uint32_t p = 0; p < kParts; ++p) {
        threads.emplace_back([&, p] {
          SamplingOptions part = options;
          part.split = SampleSplit{p, kParts, [&reduce, p](std::span<double> values) { reduce.sum(values, p); }};
          errors[p] = errorOf([&] { sampleLoads(source, SampledPattern::RandomPermutation, part); });
        });
      }
    }
    for (std::uint32_t p = 0; p < kParts; ++p) EXPECT_EQ(errors[p], whole) << "part " << p;
  }
}
