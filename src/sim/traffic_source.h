// routelab/sim/traffic_source.h — where each generated message goes, and when sources
// generate (internal to the sim module; the public knobs are SimConfig's).
//
// Traffic specs (docs/SIMULATION.md):
//  * `uniform` — every message to a uniformly chosen other terminal (Gómez §5.2);
//  * `uniform-hot-spot:fraction=F[,target=T]` — with probability F to terminal T (default: a
//    terminal drawn from the seed), else uniform (Gómez Fig. 6: F = 0.05 and 0.2);
//  * any pattern of the traffic registry (traffic/pattern.h: bit-reversal, bit-complement,
//    perfect-shuffle, butterfly, shift, random-permutation, dissemination — Lysne §8's
//    pairwise traffic —, hot-spot, file:PATH, ...): a source sends only to its destinations in
//    the pattern, uniformly among them when it has several; sources without one stay silent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/random.h"
#include "graph/network.h"

namespace routelab::sim {

inline constexpr std::uint32_t kNoDestination = 0xffffffffU;

class DestinationSource {
 public:
  /// Throws SpecError for an unknown or impossible spec (e.g. fraction outside [0, 1]).
  DestinationSource(const std::string& spec, const Network& network, std::uint64_t seed);
  /// The effective spec, echoed in results.
  const std::string& effectiveSpec() const { return effective_; }
  /// Whether terminal `source` ever sends.
  bool sends(std::uint32_t source) const;
  /// The destination of the next message of `source`, drawing from `rng` (the source's own
  /// stream); kNoDestination for silent sources.
  std::uint32_t draw(std::uint32_t source, Rng& rng) const;
  /// Fraction of terminals that send (offered load is per terminal of the whole network).
  std::size_t terminals() const { return terminals_; }

 private:
  enum class Kind { Uniform, HotSpot, Pairs };
  Kind kind_ = Kind::Uniform;
  std::string effective_;
  std::size_t terminals_ = 0;
  double fraction_ = 0;
  std::uint32_t target_ = 0;
  std::vector<std::uint32_t> offset_;        // Pairs: CSR per source
  std::vector<std::uint32_t> destinations_;  // Pairs
};

/// Next generation cycle after `now` for a source with a message rate of `rate` messages
/// per cycle (0 < rate <= 1 for Bernoulli). Bernoulli: geometric gap >= 1; Poisson: the
/// exponential gap accumulated in `clock` (continuous time), floored to cycles (gap >= 0).
std::uint64_t nextBernoulli(std::uint64_t now, double rate, Rng& rng);
double nextPoisson(double clock, double rate, Rng& rng);

/// nextBernoulli() for one rate, its logarithm computed once (the same gaps, bit for bit).
class BernoulliGaps {
 public:
  explicit BernoulliGaps(double rate = 1);
  std::uint64_t next(std::uint64_t now, Rng& rng) const;

 private:
  double rate_ = 1;
  double logMiss_ = 0;  // log(1 - rate)
};

}  // namespace routelab::sim
