// routelab/schedule/scheduler.h — circuit schedulers on fat-trees (Ding et al., SC'06).
//
// A circuit is an exclusive path between two terminals: every directed channel carries at
// most one circuit (a cable carries one circuit up and one down). A scheduler takes
// requests in order and grants a conflict-free subset; the schedulability ratio is
// granted / requested (Ding §1).
//
// Link state (Ding §3–4): per scheduling level k and level-k node, the availability of
// its w_{k+1} up channels (Ulink) and of the w_{k+1} down channels into it (Dlink) as bit
// vectors. We store busy bits (1 = occupied) so a reset is a memset; Ding's availability
// vectors are their complements.
//
// Schedulers (registry in schedule/registry.h):
//   * LevelWise (Ding §4, Fig. 7): at level k the request's source-side node σ_k and
//     destination-side node δ_k are known (Theorem 1); available = ~Ulink(k, σ_k) &
//     ~Dlink(k, δ_k); the policy picks a port P_k (first free, as the paper's priority
//     selector, or uniformly random); both links are marked busy; σ_{k+1}, δ_{k+1} follow
//     from P_k. A request with no common free port fails at level k. By Theorem 2 a
//     request that passed all levels below its common ancestor is granted: no conflict
//     can appear on the way down.
//   * Local (Ding §1, §5 baseline, "adaptive distributed scheduling"): going up, each node
//     picks a free up port of its own (first free = local-greedy, random = local-random),
//     ignoring the down links; the path down from the common ancestor is then fixed
//     (Theorem 2) and a busy down channel there fails the request ("the conflict is not
//     detected until both connections are routed back", Ding §4, Fig. 4a).
//
// Order (Ding §4: "performed sequentially on a per source basis. Once level h has been
// scheduled, a new set of sources for level h+1 are created from the set of scheduled
// sources at level h"):
//   * LevelByLevel (default): level 0 for every request in request order, then level 1
//     for the survivors, ...; local schedulers then walk down level by level from the top.
//   * RequestByRequest: each request is scheduled completely before the next one (the
//     order a sequential software scheduler, or the FPGA pipeline of §6, sees them).
// A request that fails keeps the links it took (default: what the paper's pipelined
// hardware does — it never writes a vector back to free a link) or, with releaseOnFail,
// returns them before the next request is considered.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "schedule/circuit_fabric.h"

namespace routelab {

enum class SchedulerKind : std::uint8_t { LevelWise, Local };
enum class PortPolicy : std::uint8_t { First, Random };
enum class RequestOrder : std::uint8_t { LevelByLevel, RequestByRequest };

struct SchedulerConfig {
  std::string name = "level-wise";  ///< registry name
  SchedulerKind kind = SchedulerKind::LevelWise;
  PortPolicy policy = PortPolicy::First;
  RequestOrder order = RequestOrder::LevelByLevel;
  bool releaseOnFail = false;
  /// Effective spec "name:key=value,..." (filled by the registry), echoed in results.
  std::string effective = "level-wise";
};

/// Busy bits of every Ulink and Dlink, per scheduling level and node.
class LinkState {
 public:
  LinkState() = default;
  explicit LinkState(const CircuitFabric& fabric);
  /// Every link idle. O(links / 64).
  void reset();

  std::size_t levels() const { return words_.size(); }
  /// 64-bit words per node at level k (ceil(w_{k+1} / 64)).
  std::uint32_t words(std::size_t level) const { return words_[level]; }
  std::uint64_t* up(std::size_t level, std::uint64_t node) { return up_[level].data() + node * words_[level]; }
  std::uint64_t* down(std::size_t level, std::uint64_t node) { return down_[level].data() + node * words_[level]; }
  const std::uint64_t* up(std::size_t level, std::uint64_t node) const {
    return up_[level].data() + node * words_[level];
  }
  const std::uint64_t* down(std::size_t level, std::uint64_t node) const {
    return down_[level].data() + node * words_[level];
  }

  bool upBusy(std::size_t level, std::uint64_t node, std::uint32_t port) const {
    return (up(level, node)[port / 64] >> (port % 64)) & 1U;
  }
  bool downBusy(std::size_t level, std::uint64_t node, std::uint32_t port) const {
    return (down(level, node)[port / 64] >> (port % 64)) & 1U;
  }
  /// Mark Ulink(k, node, port) / Dlink(k, node, port) busy or idle (e.g. links taken by
  /// circuits set up earlier, or failed hardware).
  void setUp(std::size_t level, std::uint64_t node, std::uint32_t port, bool busy);
  void setDown(std::size_t level, std::uint64_t node, std::uint32_t port, bool busy);
  /// Number of busy up (down) links, over all levels.
  std::size_t busyUpLinks() const;
  std::size_t busyDownLinks() const;

 private:
  std::vector<std::uint32_t> words_;
  std::vector<std::vector<std::uint64_t>> up_, down_;
};

enum class CircuitStatus : std::uint8_t {
  Granted,
  NoCommonPort,  ///< level-wise: Ulink(σ_k) AND Dlink(δ_k) all busy at the failed level
  NoUpPort,      ///< local: every up port of the node was busy
  DownConflict,  ///< local: the down channel at the failed level was already taken
};
const char* toString(CircuitStatus status);

/// The outcome of one scheduling run: per request its status, common ancestor level H,
/// failed level (if any) and the ports chosen at levels 0 .. H-1 (a granted request's
/// ports define its path: CircuitFabric::circuitPath).
struct CircuitSchedule {
  std::size_t levels = 0;
  std::vector<CircuitStatus> status;
  std::vector<std::uint8_t> ancestor;
  std::vector<std::uint8_t> failedLevel;  ///< meaningful when not granted
  std::vector<std::uint16_t> ports;       ///< request r, level k at r * levels + k
  std::size_t granted = 0;

  std::size_t requests() const { return status.size(); }
  double ratio() const {
    return status.empty() ? 1.0 : static_cast<double>(granted) / static_cast<double>(status.size());
  }
  std::span<const std::uint16_t> portsOf(std::size_t request) const {
    return {ports.data() + request * levels, ancestor[request]};
  }
};

class CircuitScheduler {
 public:
  CircuitScheduler(const CircuitFabric& fabric, SchedulerConfig config);
  const SchedulerConfig& config() const { return config_; }
  const CircuitFabric& fabric() const { return *fabric_; }

  /// Schedule `requests` in order on `state` (not reset: links already busy stay busy,
  /// granted circuits are added to it) and write the outcome into `out` (buffers reused).
  /// `seed` drives the random port policy. Throws AnalysisError for a terminal index out
  /// of range or a request from a terminal to itself (naming the request).
  /// O(requests × levels × words) plus, with releaseOnFail, O(levels) per failure.
  void run(std::span<const SourceDestination> requests, std::uint64_t seed, LinkState& state,
           CircuitSchedule& out) const;
  /// Same on an idle fabric.
  CircuitSchedule run(std::span<const SourceDestination> requests, std::uint64_t seed) const;

 private:
  const CircuitFabric* fabric_;
  SchedulerConfig config_;
};

}  // namespace routelab
