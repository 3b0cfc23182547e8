// routelab/traffic/pattern.h — communication patterns: the traffic that the static analysis,
// the circuit schedulers and the simulator consume, as demands (traffic/demand.h).
//
// A communication pattern is a multiset of ordered (source, destination) pairs of
// terminal indices (Nienaber et al. 2011, §II: "a communication pattern can be represented
// by a set of SD pairs"). Terminals are numbered by Network::terminalIndex (the papers'
// processing-node numbering for the generated fat-trees). A pair never has source ==
// destination: a node that does not take part "can be considered as communicating with
// itself, which is not represented in P" (Nienaber §II), so such pairs are dropped by the
// generators and rejected in pattern files.
//
// Patterns form one registry (name, summary, reference, options, factory) like every
// component family; `routelab list` prints it. Specs follow the one grammar of
// core/options.h, e.g. `shift:s=3`, `hot-spot:target=0,senders=8`, `file:PATH`.
// Random patterns take an explicit seed (core/random.h); the same seed gives the same
// pattern on every platform and thread count.
//
// The samplers at the end fill a caller-owned buffer without allocating: the sampled
// metrics (analysis/sampling.h) call them millions of times.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core/options.h"
#include "core/random.h"
#include "core/registry.h"
#include "graph/network.h"
#include "traffic/demand.h"

namespace routelab {

struct TrafficPattern {
  std::string spec;        ///< effective spec (name:options), echoed in results
  std::uint64_t seed = 0;  ///< seed the pattern was drawn with (0 and unused if not random)
  bool random = false;     ///< whether the seed matters
  std::size_t terminals = 0;
  std::vector<SourceDestination> pairs;
};

/// Nienaber Def. 1: every terminal is a source at most once and a destination at most
/// once, and no pair has source == destination. O(|pairs| + terminals).
bool isPermutation(std::span<const SourceDestination> pairs, std::size_t terminals);
/// Def. 2: a permutation with |P| = N/2 whose sources and destinations are all different
/// terminals (every terminal is exactly one of sender or receiver).
bool isBisect(std::span<const SourceDestination> pairs, std::size_t terminals);
/// Def. 3: a permutation with |P| = N.
bool isFullPermutation(std::span<const SourceDestination> pairs, std::size_t terminals);
/// Def. 4: a permutation with |P| = N such that (s, d) in P implies (d, s) in P.
bool isDissemination(std::span<const SourceDestination> pairs, std::size_t terminals);

/// Terminal i to (i + shift) mod N for every i, in source order (empty when shift is a
/// multiple of N). O(N).
std::vector<SourceDestination> shiftPairs(std::size_t terminals, std::int64_t shift);
/// Every terminal to every other, grouped by shift s = 1 .. N-1 (N (N-1) demands). O(N^2).
std::vector<SourceDestination> allToAllPairs(std::size_t terminals);

/// Factory of a pattern row: (network, the row's options, seed) -> pattern.
using PatternFactory = std::function<TrafficPattern(const Network&, const Options&, std::uint64_t seed)>;

/// The registry of communication patterns.
const Registry<PatternFactory>& patternRegistry();

/// Build the pattern named by `spec` on `network`'s terminals. `file:PATH` reads a pattern
/// file (readPatternFile). Throws SpecError (unknown name or option, pattern impossible on
/// this terminal count), ParseError, IoError.
TrafficPattern makePattern(const std::string& spec, const Network& network, std::uint64_t seed);

/// Pattern file: one communication per line, "SRC DST", each a terminal name or a terminal
/// index (a token equal to a terminal's name is that terminal; otherwise it must be a
/// decimal index 0..N-1). '#' starts a comment; blank lines are ignored. Repeated pairs are
/// kept (they load their path twice). Throws ParseError "<file>:<line>: ..." for
/// malformed lines, unknown terminals, out-of-range indices and src == dst; IoError if the
/// file cannot be read. Files ending in .gz are decompressed.
TrafficPattern readPatternFile(const std::string& path, const Network& network);
/// The same from text; `name` is the file name quoted in messages.
TrafficPattern parsePatternText(const std::string& text, const std::string& name, const Network& network);

// ---- samplers: uniform random patterns of Nienaber §II, allocation-free ----------------
// `scratch` must have size N (the terminal count); `out` is cleared and filled. Each
// draws from `rng` only, so a sample is a function of the Rng's seed.

/// Uniform random bisect pattern (Def. 2): a uniformly random ordered half of the terminals
/// as senders, paired in order with the other half (receivers) in increasing index order.
/// Precondition: N even, 2 <= N < 2^31.
void sampleBisect(Rng& rng, std::span<std::uint32_t> scratch, std::vector<SourceDestination>& out);
/// Uniform random full permutation (Def. 3): a uniform random derangement, drawn by
/// Fisher–Yates with early rejection of fixed points (expected e restarts). N >= 2.
void sampleFullPermutation(Rng& rng, std::span<std::uint32_t> scratch, std::vector<SourceDestination>& out);
/// Uniform random dissemination pattern (Def. 4): a uniform random perfect matching (the
/// last unmatched terminal is matched with a uniformly random other one), both directions
/// of every matched pair.
/// Precondition: N even, N >= 2.
void sampleDissemination(Rng& rng, std::span<std::uint32_t> scratch, std::vector<SourceDestination>& out);
/// Uniform random permutation with its fixed points dropped (a Def. 1 permutation).
void sampleRandomPermutation(Rng& rng, std::span<std::uint32_t> scratch, std::vector<SourceDestination>& out);

/// Ding et al. (SC'06) §5's "randomly generated communication permutations", as the
/// circuit-scheduling experiments draw them: Fisher–Yates on the destinations with
/// Rng::below (one 64-bit draw per step), fixed points dropped, in source order. Uniform
/// like sampleRandomPermutation, but a different draw sequence: it is kept so that the
/// published schedulability results (experiments/ding) stay reproducible. `out` is refilled.
void sampleDingPermutation(Rng& rng, std::size_t terminals, std::vector<SourceDestination>& out);

// ---- demands of an experiment's samples ------------------------------------------------

/// The pattern spec that names sampleDingPermutation (the circuit schedulers' default).
inline constexpr const char* kDingPermutation = "permutation";

/// The demands of the samples of an experiment, from one pattern spec: either
/// kDingPermutation (a fresh sampleDingPermutation per sample) or any makePattern spec. A
/// random pattern is redrawn for every sample with makePattern(spec, network, rng()); a
/// fixed one (shift, all-to-all, file:...) is built once and every sample is a copy.
/// Construction validates the spec (makePattern with `seed`: SpecError, ParseError,
/// IoError). Keeps a pointer to `network`, which must outlive it.
class DemandSource {
 public:
  DemandSource(const std::string& spec, const Network& network, std::uint64_t seed);
  /// Effective spec, echoed in results ("permutation" or the pattern's effective spec).
  const std::string& effectiveSpec() const { return effective_; }
  /// Whether samples differ (drawn from the Rng) or are all the same pattern.
  bool random() const { return random_; }
  /// Fill `out` with one sample's demands, drawing only from `rng`. Const and without
  /// shared mutable state: may be called from several threads at once.
  void draw(Rng& rng, std::vector<SourceDestination>& out) const;

 private:
  std::string spec_;
  std::string effective_;
  const Network* network_;
  bool random_ = true;
  bool ding_ = false;
  std::vector<SourceDestination> fixed_;
};

}  // namespace routelab
