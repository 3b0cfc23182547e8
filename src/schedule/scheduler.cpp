#include "schedule/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>

#include "core/errors.h"
#include "core/random.h"

namespace routelab {

// ---- LinkState ---------------------------------------------------------------------------

LinkState::LinkState(const CircuitFabric& fabric) {
  const std::size_t h = fabric.levels();
  words_.resize(h);
  up_.resize(h);
  down_.resize(h);
  for (std::size_t k = 0; k < h; ++k) {
    words_[k] = (fabric.upPorts(k) + 63) / 64;
    up_[k].assign(fabric.nodesAt(k) * words_[k], 0);
    down_[k].assign(fabric.nodesAt(k) * words_[k], 0);
  }
}

void LinkState::reset() {
  for (auto& v : up_) std::fill(v.begin(), v.end(), 0);
  for (auto& v : down_) std::fill(v.begin(), v.end(), 0);
}

void LinkState::setUp(std::size_t level, std::uint64_t node, std::uint32_t port, bool busy) {
  const std::uint64_t bit = std::uint64_t{1} << (port % 64);
  std::uint64_t& word = up(level, node)[port / 64];
  word = busy ? (word | bit) : (word & ~bit);
}

void LinkState::setDown(std::size_t level, std::uint64_t node, std::uint32_t port, bool busy) {
  const std::uint64_t bit = std::uint64_t{1} << (port % 64);
  std::uint64_t& word = down(level, node)[port / 64];
  word = busy ? (word | bit) : (word & ~bit);
}

std::size_t LinkState::busyUpLinks() const {
  std::size_t count = 0;
  for (const auto& v : up_) {
    for (std::uint64_t word : v) count += static_cast<std::size_t>(std::popcount(word));
  }
  return count;
}

std::size_t LinkState::busyDownLinks() const {
  std::size_t count = 0;
  for (const auto& v : down_) {
    for (std::uint64_t word : v) count += static_cast<std::size_t>(std::popcount(word));
  }
  return count;
}

const char* toString(CircuitStatus status) {
  switch (status) {
    case CircuitStatus::Granted: return "granted";
    case CircuitStatus::NoCommonPort: return "no-common-port";
    case CircuitStatus::NoUpPort: return "no-up-port";
    case CircuitStatus::DownConflict: return "down-conflict";
  }
  return "unknown";
}

// ---- the schedulers ------------------------------------------------------------------------

namespace {

constexpr std::size_t kMaxWords = 4;  // w <= 253 (radix limit 254)
constexpr std::uint32_t kNoPort = UINT32_MAX;

/// One scheduling run; `Single` = every level fits one 64-bit word (w <= 64).
template <bool Single>
class Run {
 public:
  Run(const CircuitFabric& fabric, const SchedulerConfig& config, std::span<const CircuitRequest> requests,
      std::uint64_t seed, LinkState& state, CircuitSchedule& out)
      : fabric_(fabric), config_(config), requests_(requests), state_(state), out_(out), rng_(seed),
        h_(fabric.levels()) {
    low_.assign(requests.size(), 0);
    masks_.resize(h_);
    for (std::size_t k = 0; k < h_; ++k) {
      const std::uint32_t ports = fabric.upPorts(k);
      for (std::size_t i = 0; i < kMaxWords; ++i) {
        const std::uint64_t first = 64 * i;
        masks_[k][i] = ports >= first + 64 ? ~std::uint64_t{0}
                       : ports > first     ? (std::uint64_t{1} << (ports - first)) - 1
                                           : 0;
      }
    }
  }

  void schedule() {
    const bool levelWise = config_.kind == SchedulerKind::LevelWise;
    if (config_.order == RequestOrder::RequestByRequest) {
      for (std::size_t r = 0; r < requests_.size(); ++r) {
        const std::uint32_t top = out_.ancestor[r];
        for (std::uint32_t k = 0; k < top && alive(r); ++k) levelWise ? levelWiseStep(r, k) : localUpStep(r, k);
        if (!levelWise) {
          for (std::uint32_t k = top; k-- > 0 && alive(r);) localDownStep(r, k);
        }
      }
      return;
    }
    for (std::uint32_t k = 0; k < h_; ++k) {
      for (std::size_t r = 0; r < requests_.size(); ++r) {
        if (out_.ancestor[r] > k && alive(r)) levelWise ? levelWiseStep(r, k) : localUpStep(r, k);
      }
    }
    if (!levelWise) {
      for (std::uint32_t k = static_cast<std::uint32_t>(h_); k-- > 0;) {
        for (std::size_t r = 0; r < requests_.size(); ++r) {
          if (out_.ancestor[r] > k && alive(r)) localDownStep(r, k);
        }
      }
    }
  }

 private:
  bool alive(std::size_t r) const { return out_.status[r] == CircuitStatus::Granted; }
  std::uint64_t sourceSide(std::size_t r, std::uint32_t k, std::uint64_t low) const {
    return fabric_.group(k, requests_[r].source) * fabric_.weight(k) + low;
  }
  std::uint64_t destinationSide(std::size_t r, std::uint32_t k, std::uint64_t low) const {
    return fabric_.group(k, requests_[r].destination) * fabric_.weight(k) + low;
  }
  std::uint32_t words(std::uint32_t k) const { return Single ? 1U : state_.words(k); }
  std::uint16_t& port(std::size_t r, std::uint32_t k) { return out_.ports[r * h_ + k]; }

  /// A set bit of avail[0 .. words) by the policy, or kNoPort.
  std::uint32_t pick(const std::uint64_t* avail, std::uint32_t count) {
    if (config_.policy == PortPolicy::First) {
      for (std::uint32_t i = 0; i < count; ++i) {
        if (avail[i] != 0) return 64 * i + static_cast<std::uint32_t>(std::countr_zero(avail[i]));
      }
      return kNoPort;
    }
    std::uint32_t total = 0;
    for (std::uint32_t i = 0; i < count; ++i) total += static_cast<std::uint32_t>(std::popcount(avail[i]));
    if (total == 0) return kNoPort;
    auto rank = static_cast<std::uint32_t>(rng_.below(total));
    for (std::uint32_t i = 0; i < count; ++i) {
      const auto here = static_cast<std::uint32_t>(std::popcount(avail[i]));
      if (rank >= here) {
        rank -= here;
        continue;
      }
      std::uint64_t word = avail[i];
      for (; rank > 0; --rank) word &= word - 1;
      return 64 * i + static_cast<std::uint32_t>(std::countr_zero(word));
    }
    return kNoPort;
  }

  void fail(std::size_t r, std::uint32_t k, CircuitStatus status) {
    out_.status[r] = status;
    out_.failedLevel[r] = static_cast<std::uint8_t>(k);
  }

  /// Return request r's up links at levels < upBelow and down links at levels in
  /// [downFrom, downTo) to the idle state.
  void release(std::size_t r, std::uint32_t upBelow, std::uint32_t downFrom, std::uint32_t downTo) {
    std::uint64_t low = 0;
    const std::uint32_t top = std::max(upBelow, downTo);
    for (std::uint32_t j = 0; j < top; ++j) {
      const std::uint32_t b = out_.ports[r * h_ + j];
      if (j < upBelow) state_.setUp(j, sourceSide(r, j, low), b, false);
      if (j >= downFrom && j < downTo) state_.setDown(j, destinationSide(r, j, low), b, false);
      low += b * fabric_.weight(j);
    }
  }

  /// Ding Fig. 7, lines 3–8, for request r at level k.
  void levelWiseStep(std::size_t r, std::uint32_t k) {
    const std::uint64_t low = low_[r];
    std::uint64_t* up = state_.up(k, sourceSide(r, k, low));
    std::uint64_t* down = state_.down(k, destinationSide(r, k, low));
    std::array<std::uint64_t, kMaxWords> avail{};
    const std::uint32_t count = words(k);
    for (std::uint32_t i = 0; i < count; ++i) avail[i] = ~(up[i] | down[i]) & masks_[k][i];
    const std::uint32_t b = pick(avail.data(), count);
    if (b == kNoPort) {
      fail(r, k, CircuitStatus::NoCommonPort);
      if (config_.releaseOnFail) release(r, k, 0, k);
      return;
    }
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    up[b / 64] |= bit;
    down[b / 64] |= bit;
    port(r, k) = static_cast<std::uint16_t>(b);
    low_[r] = low + b * fabric_.weight(k);
  }

  /// Local scheduling, upward: the node's own free up ports only.
  void localUpStep(std::size_t r, std::uint32_t k) {
    const std::uint64_t low = low_[r];
    std::uint64_t* up = state_.up(k, sourceSide(r, k, low));
    std::array<std::uint64_t, kMaxWords> avail{};
    const std::uint32_t count = words(k);
    for (std::uint32_t i = 0; i < count; ++i) avail[i] = ~up[i] & masks_[k][i];
    const std::uint32_t b = pick(avail.data(), count);
    if (b == kNoPort) {
      fail(r, k, CircuitStatus::NoUpPort);
      if (config_.releaseOnFail) release(r, k, 0, 0);
      return;
    }
    up[b / 64] |= std::uint64_t{1} << (b % 64);
    port(r, k) = static_cast<std::uint16_t>(b);
    low_[r] = low + b * fabric_.weight(k);
  }

  /// Local scheduling, downward at level k (levels above already walked): the down
  /// channel fixed by Theorem 2 must be idle. low_[r] holds Σ_{j<=k} b_j W_j on entry.
  void localDownStep(std::size_t r, std::uint32_t k) {
    const std::uint32_t b = port(r, k);
    const std::uint64_t low = low_[r] - b * fabric_.weight(k);
    low_[r] = low;
    std::uint64_t* down = state_.down(k, destinationSide(r, k, low));
    const std::uint64_t bit = std::uint64_t{1} << (b % 64);
    if (down[b / 64] & bit) {
      fail(r, k, CircuitStatus::DownConflict);
      if (config_.releaseOnFail) release(r, out_.ancestor[r], k + 1, out_.ancestor[r]);
      return;
    }
    down[b / 64] |= bit;
  }

  const CircuitFabric& fabric_;
  const SchedulerConfig& config_;
  std::span<const CircuitRequest> requests_;
  LinkState& state_;
  CircuitSchedule& out_;
  Rng rng_;
  std::size_t h_;
  std::vector<std::uint64_t> low_;
  std::vector<std::array<std::uint64_t, kMaxWords>> masks_;
};

}  // namespace

CircuitScheduler::CircuitScheduler(const CircuitFabric& fabric, SchedulerConfig config)
    : fabric_(&fabric), config_(std::move(config)) {}

void CircuitScheduler::run(std::span<const CircuitRequest> requests, std::uint64_t seed, LinkState& state,
                           CircuitSchedule& out) const {
  const CircuitFabric& fabric = *fabric_;
  const std::size_t h = fabric.levels();
  if (state.levels() != h) throw AnalysisError("circuit scheduler: the link state belongs to another fabric");
  const auto terminals = static_cast<std::uint32_t>(fabric.terminals());
  out.levels = h;
  out.status.assign(requests.size(), CircuitStatus::Granted);
  out.ancestor.resize(requests.size());
  out.failedLevel.assign(requests.size(), 0);
  out.ports.assign(requests.size() * h, 0);
  for (std::size_t r = 0; r < requests.size(); ++r) {
    const CircuitRequest& request = requests[r];
    if (request.source >= terminals || request.destination >= terminals) {
      throw AnalysisError(fmt::format("circuit request {} ({} -> {}): terminal index out of range (the fabric has {})",
                                      r, request.source, request.destination, terminals));
    }
    if (request.source == request.destination) {
      throw AnalysisError(fmt::format("circuit request {}: terminal {} to itself is not a circuit", r, request.source));
    }
    out.ancestor[r] = static_cast<std::uint8_t>(fabric.ancestorLevel(request.source, request.destination));
  }
  bool single = true;
  for (std::size_t k = 0; k < h; ++k) single = single && state.words(k) == 1;
  if (single) {
    Run<true>(fabric, config_, requests, seed, state, out).schedule();
  } else {
    Run<false>(fabric, config_, requests, seed, state, out).schedule();
  }
  out.granted = static_cast<std::size_t>(std::count(out.status.begin(), out.status.end(), CircuitStatus::Granted));
}

CircuitSchedule CircuitScheduler::run(std::span<const CircuitRequest> requests, std::uint64_t seed) const {
  LinkState state(*fabric_);
  CircuitSchedule out;
  run(requests, seed, state, out);
  return out;
}

}  // namespace routelab
