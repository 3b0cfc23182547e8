// routelab/analysis/paths.h — the single path of every ordered terminal pair, compact.
//
// Static congestion analysis (Nienaber et al. 2011 §II, as the ORCS simulator does it)
// needs p_R^{s,d}, the set of channels of the path of (s, d) under routing R, for all
// N(N-1) ordered pairs of terminals. PairPaths walks the routing once and stores every path
// as a list of 32-bit channel ids in one CSR array, so the samplers and WORST touch only
// contiguous memory.
//
// Which path: the address the routing says the source uses for the destination
// (RoutingResult::addressFor, path 0 — source-dependent routings such as OPT pick it by
// source class, like an InfiniBand source picking a DLID under LMC), the table of the layer
// the routing assigns to (source, address), and at every switch the preferred (first)
// candidate port. For deterministic routings that is the path; for adaptive routings it is the
// "first candidate" load model (documented in docs/ANALYSIS.md; patternLoads() also offers
// the "split" model).
//
// Every path starts with the source's injection channel and ends with the channel into the
// destination (both terminal channels); the switch-to-switch part is core(s, d).
// Memory: 4 bytes per channel of every path plus 4 bytes per pair, e.g. 31 MB for
// T(25+25, 50) (1250 terminals). Build: O(N^2 hops), parallel over sources.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab {

class PairPaths {
 public:
  PairPaths() = default;

  /// Walk `routing` for every ordered pair of distinct terminals. Throws AnalysisError naming
  /// the pair and the switch when a pair is not delivered (no route, loop, dead port), or when
  /// the fabric has more than 65535 terminals. `threads` = 0 uses every core.
  static PairPaths build(const Network& network, const RoutingResult& routing, int threads = 0);

  std::size_t terminals() const { return terminals_; }
  std::size_t channelCount() const { return channelCount_; }
  /// Effective engine spec of the routing the paths come from.
  const std::string& engine() const { return engine_; }
  /// True when the routing had several candidates somewhere (paths use the first).
  bool adaptive() const { return adaptive_; }

  /// Every channel of the path of (s, d), injection first; empty when s == d.
  std::span<const std::uint32_t> path(std::uint32_t s, std::uint32_t d) const {
    const std::size_t pair = static_cast<std::size_t>(s) * terminals_ + d;
    return {channels_.data() + offset_[pair], channels_.data() + offset_[pair + 1]};
  }
  /// The switch-to-switch channels of the path of (s, d) (terminal channels dropped).
  std::span<const std::uint32_t> core(std::uint32_t s, std::uint32_t d) const {
    const auto all = path(s, d);
    return all.size() < 2 ? all.subspan(0, 0) : all.subspan(1, all.size() - 2);
  }
  /// Total number of stored channel entries (sum of path lengths).
  std::size_t totalHops() const { return channels_.size(); }
  std::size_t memoryBytes() const {
    return channels_.size() * 4 + offset_.size() * 4 + compactCore_.size() * 2 +
           (sourceOffset_.size() + destinationOffset_.size()) * sizeof(std::size_t);
  }

  /// Compact copy of the switch-to-switch parts for the samplers, when the fabric has fewer
  /// than 65535 channels: fixed-width records of coreStride() 16-bit channel ids padded with
  /// kNoCompactChannel, record(s, d) = table + sourceOffset[s] + destinationOffset[d].
  /// When the routing has one layer and addresses follow base(d) + a per-source offset, the
  /// core path depends only on (s's first switch, address), so the table holds one record per
  /// (first switch, address) — 250 KB for D-mod-k on T(25+25, 50) instead of 6 MB per pair,
  /// which keeps a sample's random lookups in cache. Otherwise one record per pair. None
  /// (coreStride() 0) when no path has a switch-to-switch channel.
  static constexpr std::uint16_t kNoCompactChannel = 0xFFFF;
  bool hasCompactCore() const { return !compactCore_.empty(); }
  std::size_t coreStride() const { return coreStride_; }
  const std::uint16_t* compactCore(std::uint32_t s, std::uint32_t d) const {
    return compactCore_.data() + sourceOffset_[s] + destinationOffset_[d];
  }
  /// True when the compact table is per (first switch, address) rather than per pair.
  bool compactBySwitch() const { return compactBySwitch_; }
  /// The layout of the compact table: record(s, d) starts at compactSourceOffset(s) +
  /// compactDestinationOffset(d) (both multiples of coreStride()), of compactEntries() entries.
  std::size_t compactSourceOffset(std::uint32_t s) const { return sourceOffset_[s]; }
  std::size_t compactDestinationOffset(std::uint32_t d) const { return destinationOffset_[d]; }
  std::size_t compactEntries() const { return compactCore_.size(); }

 private:
  /// The compact core table (above), from the stored paths.
  void buildCompactCore(const Network& network, const RoutingResult& routing);

  std::size_t terminals_ = 0;
  std::size_t channelCount_ = 0;
  std::string engine_;
  bool adaptive_ = false;
  std::vector<std::uint32_t> offset_;    // N*N + 1
  std::vector<std::uint32_t> channels_;  // CSR payload
  std::size_t coreStride_ = 0;
  std::vector<std::uint16_t> compactCore_;
  std::vector<std::size_t> sourceOffset_, destinationOffset_;
  bool compactBySwitch_ = false;
};

/// The channel path of terminal `s` to terminal `d` under `routing` (preferred candidates,
/// addressFor(s, d), the routing's layer), or AnalysisError naming the pair and where it failed.
void routePair(const Network& network, const RoutingResult& routing, std::uint32_t s, std::uint32_t d,
               std::vector<ChannelId>& out);

}  // namespace routelab
