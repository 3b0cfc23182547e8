#include "schedule/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <type_traits>

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
  Run(const CircuitFabric& fabric, const SchedulerConfig& config, std::span<const SourceDestination> requests,
      std::uint64_t seed, LinkState& state, CircuitSchedule& out)
      : fabric_(fabric),
        config_(config),
        requests_(requests),
        state_(state),
        out_(out),
        rng_(seed),
        h_(fabric.levels()) {
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
    if (Single && levelWise && config_.policy == PortPolicy::First && !config_.releaseOnFail) {
      // Without release, level k's links are touched only by level-k steps, in request
      // order in both orders: the two orders take identical decisions (docs/SCHEDULING.md),
      // so the fused request-by-request loop serves both.
      switch (h_) {
        case 2: levelWiseFirstFitFused<2>(); return;
        case 3: levelWiseFirstFitFused<3>(); return;
        case 4: levelWiseFirstFitFused<4>(); return;
        default: levelWiseFirstFitFused<0>(); return;
      }
    }
    low_.assign(requests_.size(), 0);
    if (Single && levelWise && config_.policy == PortPolicy::First && config_.order == RequestOrder::LevelByLevel) {
      levelWiseFirstFit();
      return;
    }
    for (std::size_t r = 0; r < requests_.size(); ++r) {
      out_.ancestor[r] =
          static_cast<std::uint8_t>(fabric_.ancestorLevel(requests_[r].source, requests_[r].destination));
    }
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

  /// The default configuration (Ding Fig. 7 with the priority selector, one word per
  /// node) with every per-level quantity hoisted into locals: the hot loop of the
  /// Table 1 benchmark. Same decisions as levelWiseStep (tests compare both against a naive
  /// scheduler).
  struct LevelBase {
    const std::uint32_t* groups;
    std::uint64_t weight;
    std::uint64_t* up;
    std::uint64_t* down;
    std::uint64_t mask;
  };
  static constexpr std::size_t kMaxLevels = 64;

  /// levelWiseFirstFit one request at a time, all levels fused; `Levels` > 0 fixes the
  /// height at compile time (the loop over levels unrolls, the per-level bases are const
  /// locals), 0 = any height. The hot kernel of the Table 1 benchmark (docs/PERFORMANCE.md):
  /// each of the two loops below keeps its per-level locals in registers across the fused
  /// levels. Tested against naiveLevelWise, a plain scheduler on the cables
  /// (tests/schedule/test_scheduler.cpp, LevelWise.FusedKernelAgrees...).
  template <std::uint32_t Levels>
  using LevelBases = std::array<LevelBase, (Levels > 0 ? Levels : kMaxLevels)>;
  template <std::uint32_t Levels>
  void levelWiseFirstFitFused() {
    const auto h = Levels > 0 ? Levels : static_cast<std::uint32_t>(h_);
    LevelBases<Levels> bases{};
    for (std::uint32_t k = 0; k < h; ++k) {
      bases[k] = {fabric_.groups(k).data(), fabric_.weight(k), state_.up(k, 0), state_.down(k, 0), masks_[k][0]};
    }
    if (h > 0 && fabric_.upPorts(0) == 1) {
      fusedOnPackedTerminals<Levels>(bases);
    } else {
      fusedOnAnyPorts<Levels>(bases);
    }
  }

  // Terminal links (level 0, one up port per node, as in FT(l, m, w)): work on a packed
  // copy, one byte per node (an eighth of a word per terminal; bytes rather than bits so
  // consecutive requests do not chain through one shared word), and write it back at the
  // end. Same decisions: the only port is 0.
  template <std::uint32_t Levels>
  void fusedOnPackedTerminals(const LevelBases<Levels> levels) {
    const auto h = Levels > 0 ? Levels : static_cast<std::uint32_t>(h_);  // a constant when Levels > 0
    const std::size_t n = requests_.size();
    const SourceDestination* request = requests_.data();
    std::uint8_t* ancestor = out_.ancestor.data();
    std::uint16_t* ports = out_.ports.data();
    packTerminalLinks();
    std::uint8_t* pu = packedUp_.data();
    std::uint8_t* pd = packedDown_.data();
    constexpr std::size_t kSlots = Levels > 0 ? Levels : kMaxLevels;
    std::array<std::uint32_t, kSlots> weightAt{};
    std::array<std::uint64_t*, kSlots> upAt{}, downAt{};
    std::array<std::uint64_t, kSlots> maskAt{};
    for (std::uint32_t k = 0; k < h; ++k) {
      weightAt[k] = static_cast<std::uint32_t>(levels[k].weight);
      upAt[k] = levels[k].up;
      downAt[k] = levels[k].down;
      maskAt[k] = levels[k].mask;
    }
    std::array<std::uint32_t, kSlots> shiftAt{};
    for (std::uint32_t k = 0; k < h; ++k) shiftAt[k] = fabric_.shiftGroups() ? fabric_.groupShift(k) : 0;
    std::size_t grantedCount = 0;
    auto requestsLoop = [&]<bool Shift>(std::bool_constant<Shift>) {
      for (std::size_t r = 0; r < n; ++r) {
        const std::uint32_t source = request[r].source, destination = request[r].destination;
        const std::uint32_t* sourceGroups = Shift ? nullptr : fabric_.groupsOf(source);
        const std::uint32_t* destinationGroups = Shift ? nullptr : fabric_.groupsOf(destination);
        auto sourceGroup = [&](std::uint32_t k) { return Shift ? source >> shiftAt[k] : sourceGroups[k]; };
        auto destinationGroup = [&](std::uint32_t k) {
          return Shift ? destination >> shiftAt[k] : destinationGroups[k];
        };
        const std::uint32_t sigma0 = sourceGroup(0), delta0 = destinationGroup(0);
        std::uint32_t k = 0;
        bool granted = true;
        if ((pu[sigma0] | pd[delta0]) != 0) {
          granted = false;
        } else {
          pu[sigma0] = 1;
          pd[delta0] = 1;  // port 0: ports[r * h] is already 0
          std::uint32_t low = 0;
#pragma GCC unroll 8
          for (k = 1; k < h; ++k) {
            if (sourceGroup(k) == destinationGroup(k)) break;
            const std::uint32_t sigma = sourceGroup(k) * weightAt[k] + low;
            const std::uint32_t delta = destinationGroup(k) * weightAt[k] + low;
            const std::uint64_t avail = ~(upAt[k][sigma] | downAt[k][delta]) & maskAt[k];
            if (avail == 0) {
              granted = false;
              break;
            }
            const auto b = static_cast<std::uint32_t>(std::countr_zero(avail));
            const std::uint64_t bit = std::uint64_t{1} << b;
            upAt[k][sigma] |= bit;
            downAt[k][delta] |= bit;
            ports[r * h + k] = static_cast<std::uint16_t>(b);
            low += b * weightAt[k];
          }
        }
        if (granted) {
          ancestor[r] = static_cast<std::uint8_t>(k);
          ++grantedCount;
        } else {
          fail(r, k, CircuitStatus::NoCommonPort);
          // fabric_.ancestorLevel: levels 1 .. k had different groups.
          std::uint32_t top = k + 1;
          while (top < h && sourceGroup(top) != destinationGroup(top)) ++top;
          ancestor[r] = static_cast<std::uint8_t>(std::min<std::uint32_t>(top, h));
        }
      }
    };
    if (fabric_.shiftGroups()) {
      requestsLoop(std::true_type{});
    } else {
      requestsLoop(std::false_type{});
    }
    granted_ = grantedCount;
    unpackTerminalLinks();
  }

  void packTerminalLinks() {
    const auto nodes = static_cast<std::uint32_t>(fabric_.nodesAt(0));
    packedUp_.resize(nodes);
    packedDown_.resize(nodes);
    const std::uint64_t* up0 = state_.up(0, 0);
    const std::uint64_t* down0 = state_.down(0, 0);
    for (std::uint32_t i = 0; i < nodes; ++i) {
      packedUp_[i] = static_cast<std::uint8_t>(up0[i] & 1U);
      packedDown_[i] = static_cast<std::uint8_t>(down0[i] & 1U);
    }
  }

  void unpackTerminalLinks() {
    std::uint64_t* up0 = state_.up(0, 0);
    std::uint64_t* down0 = state_.down(0, 0);
    for (std::size_t i = 0; i < packedUp_.size(); ++i) {
      up0[i] = packedUp_[i];
      down0[i] = packedDown_[i];
    }
  }

  // Any number of up ports at every level: the per-level bases straight from `levels`.
  template <std::uint32_t Levels>
  void fusedOnAnyPorts(const LevelBases<Levels> levels) {
    const auto h = Levels > 0 ? Levels : static_cast<std::uint32_t>(h_);  // a constant when Levels > 0
    const std::size_t n = requests_.size();
    const SourceDestination* request = requests_.data();
    std::uint8_t* ancestor = out_.ancestor.data();
    std::uint16_t* ports = out_.ports.data();
    for (std::size_t r = 0; r < n; ++r) {
      const std::uint32_t source = request[r].source, destination = request[r].destination;
      std::uint64_t low = 0;
      std::uint32_t k = 0;
      bool granted = true;
      for (; k < h; ++k) {
        const LevelBase& level = levels[k];
        const std::uint64_t sourceGroup = level.groups[source];
        const std::uint64_t destinationGroup = level.groups[destination];
        if (sourceGroup == destinationGroup) break;  // common ancestor reached (never at k = 0)
        const std::uint64_t sigma = sourceGroup * level.weight + low;
        const std::uint64_t delta = destinationGroup * level.weight + low;
        const std::uint64_t avail = ~(level.up[sigma] | level.down[delta]) & level.mask;
        if (avail == 0) {
          granted = false;
          break;
        }
        const auto b = static_cast<std::uint32_t>(std::countr_zero(avail));
        const std::uint64_t bit = std::uint64_t{1} << b;
        level.up[sigma] |= bit;
        level.down[delta] |= bit;
        ports[r * h + k] = static_cast<std::uint16_t>(b);
        low += b * level.weight;
      }
      if (granted) {
        ancestor[r] = static_cast<std::uint8_t>(k);
      } else {
        fail(r, k, CircuitStatus::NoCommonPort);
        ancestor[r] = static_cast<std::uint8_t>(fabric_.ancestorLevel(source, destination));
      }
    }
  }

  void levelWiseFirstFit() {
    constexpr std::uint64_t kDone = ~std::uint64_t{0};  // low of a request that stopped climbing
    const std::size_t n = requests_.size();
    const SourceDestination* request = requests_.data();
    std::uint8_t* ancestor = out_.ancestor.data();
    std::uint16_t* ports = out_.ports.data();
    std::uint64_t* lows = low_.data();
    for (std::uint32_t k = 0; k < h_; ++k) {
      const std::uint32_t* groups = fabric_.groups(k).data();
      const std::uint64_t weight = fabric_.weight(k);
      std::uint64_t* up = state_.up(k, 0);
      std::uint64_t* down = state_.down(k, 0);
      const std::uint64_t mask = masks_[k][0];
      for (std::size_t r = 0; r < n; ++r) {
        const std::uint64_t low = lows[r];
        if (low == kDone) continue;
        const std::uint64_t sourceGroup = groups[request[r].source];
        const std::uint64_t destinationGroup = groups[request[r].destination];
        if (sourceGroup == destinationGroup) {  // common ancestor reached (never at k = 0)
          ancestor[r] = static_cast<std::uint8_t>(k);
          lows[r] = kDone;
          continue;
        }
        const std::uint64_t sigma = sourceGroup * weight + low;
        const std::uint64_t delta = destinationGroup * weight + low;
        const std::uint64_t avail = ~(up[sigma] | down[delta]) & mask;
        if (avail == 0) {
          ancestor[r] = static_cast<std::uint8_t>(fabric_.ancestorLevel(request[r].source, request[r].destination));
          lows[r] = kDone;
          fail(r, k, CircuitStatus::NoCommonPort);
          if (config_.releaseOnFail) release(r, k, 0, k);
          continue;
        }
        const auto b = static_cast<std::uint32_t>(std::countr_zero(avail));
        const std::uint64_t bit = std::uint64_t{1} << b;
        up[sigma] |= bit;
        down[delta] |= bit;
        ports[r * h_ + k] = static_cast<std::uint16_t>(b);
        lows[r] = low + b * weight;
      }
    }
    for (std::size_t r = 0; r < n; ++r) {
      if (lows[r] != kDone) ancestor[r] = static_cast<std::uint8_t>(h_);
    }
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
  std::span<const SourceDestination> requests_;
  LinkState& state_;
  CircuitSchedule& out_;
  Rng rng_;
  std::size_t h_;
  std::vector<std::uint64_t> low_;
  std::vector<std::uint8_t> packedUp_, packedDown_;  // level-0 busy flags, one byte per node

 public:
  /// Granted requests when the path counted them, else SIZE_MAX.
  std::size_t granted_ = SIZE_MAX;

 private:
  std::vector<std::array<std::uint64_t, kMaxWords>> masks_;
};

}  // namespace

CircuitScheduler::CircuitScheduler(const CircuitFabric& fabric, SchedulerConfig config)
    : fabric_(&fabric), config_(std::move(config)) {}

void CircuitScheduler::run(std::span<const SourceDestination> requests, std::uint64_t seed, LinkState& state,
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
  bool bad = false;
  for (const SourceDestination& request : requests) {
    bad |= (request.source >= terminals) | (request.destination >= terminals) | (request.source == request.destination);
  }
  for (std::size_t r = 0; bad && r < requests.size(); ++r) {
    const SourceDestination& request = requests[r];
    if (request.source >= terminals || request.destination >= terminals) {
      throw AnalysisError(
          fmt::format("circuit request {} ({} -> {}): terminal index out of range (the fabric has {} terminals)", r,
                      request.source, request.destination, terminals));
    }
    if (request.source == request.destination) {
      throw AnalysisError(fmt::format("circuit request {}: terminal {} to itself is not a circuit", r, request.source));
    }
  }
  bool single = true;
  for (std::size_t k = 0; k < h; ++k) single = single && state.words(k) == 1;
  std::size_t granted = SIZE_MAX;
  if (single) {
    Run<true> run(fabric, config_, requests, seed, state, out);
    run.schedule();
    granted = run.granted_;
  } else {
    Run<false> run(fabric, config_, requests, seed, state, out);
    run.schedule();
    granted = run.granted_;
  }
  out.granted =
      granted != SIZE_MAX
          ? granted
          : static_cast<std::size_t>(std::count(out.status.begin(), out.status.end(), CircuitStatus::Granted));
}

CircuitSchedule CircuitScheduler::run(std::span<const SourceDestination> requests, std::uint64_t seed) const {
  LinkState state(*fabric_);
  CircuitSchedule out;
  run(requests, seed, state, out);
  return out;
}

}  // namespace routelab
