#include "traffic/pattern.h"

#include <fmt/format.h>
#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <sstream>
#include <utility>

#include "core/errors.h"
#include "io/output.h"

namespace routelab {

namespace {

void requireTerminals(const std::string& name, std::size_t terminals, std::size_t minimum) {
  if (terminals < minimum) {
    throw SpecError(
        fmt::format("pattern '{}' needs at least {} terminals, the fabric has {}", name, minimum, terminals));
  }
}

void requireEven(const std::string& name, std::size_t terminals) {
  requireTerminals(name, terminals, 2);
  if (terminals % 2 != 0) {
    throw SpecError(fmt::format("pattern '{}' needs an even number of terminals (Nienaber §II), the fabric has {}",
                                name, terminals));
  }
}

/// Bits of a power-of-two terminal count; throws for other counts.
unsigned requirePowerOfTwo(const std::string& name, std::size_t terminals) {
  requireTerminals(name, terminals, 2);
  if (!std::has_single_bit(terminals)) {
    throw SpecError(
        fmt::format("pattern '{}' needs a power-of-two number of terminals, the fabric has {}", name, terminals));
  }
  return static_cast<unsigned>(std::countr_zero(terminals));
}

/// Pattern from a per-terminal destination function; fixed points are dropped.
template <class Destination>
TrafficPattern fromFunction(std::size_t terminals, Destination destination) {
  TrafficPattern pattern;
  pattern.terminals = terminals;
  for (std::uint32_t s = 0; s < terminals; ++s) {
    const std::uint32_t d = destination(s);
    if (d != s) pattern.pairs.push_back({s, d});
  }
  return pattern;
}

std::uint32_t reverseBits(std::uint32_t value, unsigned bits) {
  std::uint32_t out = 0;
  for (unsigned i = 0; i < bits; ++i) out |= ((value >> i) & 1U) << (bits - 1 - i);
  return out;
}

TrafficPattern randomRow(void (*sampler)(Rng&, std::span<std::uint32_t>, std::vector<SourceDestination>&),
                         std::size_t terminals, std::uint64_t seed) {
  TrafficPattern pattern;
  pattern.terminals = terminals;
  pattern.random = true;
  pattern.seed = seed;
  std::vector<std::uint32_t> scratch(terminals);
  Rng rng(seed);
  sampler(rng, scratch, pattern.pairs);
  return pattern;
}

/// Nienaber §II's uniform random patterns (Defs. 1–4), drawn with the row's seed.
void addRandomRows(std::vector<RegistryRow<PatternFactory>>& rows) {
  rows.push_back({"random-permutation",
                  "uniform random permutation of the terminals, fixed points dropped",
                  "Nienaber 2011 §II Def. 1",
                  {},
                  [](const Network& network, const Options&, std::uint64_t seed) {
                    requireTerminals("random-permutation", network.terminalCount(), 2);
                    return randomRow(sampleRandomPermutation, network.terminalCount(), seed);
                  }});
  rows.push_back({"bisect",
                  "half of the terminals send to the other half, uniform random (N/2 pairs)",
                  "Nienaber 2011 §II Def. 2",
                  {},
                  [](const Network& network, const Options&, std::uint64_t seed) {
                    requireEven("bisect", network.terminalCount());
                    return randomRow(sampleBisect, network.terminalCount(), seed);
                  }});
  rows.push_back({"full-permutation",
                  "uniform random derangement: every terminal sends and receives once",
                  "Nienaber 2011 §II Def. 3",
                  {},
                  [](const Network& network, const Options&, std::uint64_t seed) {
                    requireTerminals("full-permutation", network.terminalCount(), 2);
                    return randomRow(sampleFullPermutation, network.terminalCount(), seed);
                  }});
  rows.push_back({"dissemination",
                  "uniform random pairing, each pair exchanges both ways (Bruck)",
                  "Nienaber 2011 §II Def. 4",
                  {},
                  [](const Network& network, const Options&, std::uint64_t seed) {
                    requireEven("dissemination", network.terminalCount());
                    return randomRow(sampleDissemination, network.terminalCount(), seed);
                  }});
}

TrafficPattern fixedPattern(std::size_t terminals, std::vector<SourceDestination> pairs) {
  TrafficPattern pattern;
  pattern.terminals = terminals;
  pattern.pairs = std::move(pairs);
  return pattern;
}

/// The shift patterns of an all-to-all exchange (Zahavi et al. 2009).
void addShiftRows(std::vector<RegistryRow<PatternFactory>>& rows) {
  rows.push_back({"shift",
                  "terminal i sends to (i + s) mod N",
                  "Zahavi et al. 2009 (shift all-to-all phase)",
                  {{"s", OptionType::Integer, "", "shift distance (not a multiple of N)", true}},
                  [](const Network& network, const Options& options, std::uint64_t) {
                    const std::size_t n = network.terminalCount();
                    requireTerminals("shift", n, 2);
                    const std::int64_t s = options.integer("s");
                    std::vector<SourceDestination> pairs = shiftPairs(n, s);
                    if (pairs.empty()) {
                      throw SpecError(
                          fmt::format("pattern 'shift': s={} is a multiple of the {} terminals, so "
                                      "nobody communicates",
                                      s, n));
                    }
                    return fixedPattern(n, std::move(pairs));
                  }});
  rows.push_back({"all-to-all",
                  "every terminal to every other: the N-1 shifts s = 1..N-1 together",
                  "Zahavi et al. 2009; Nienaber 2011 §II",
                  {},
                  [](const Network& network, const Options&, std::uint64_t) {
                    const std::size_t n = network.terminalCount();
                    requireTerminals("all-to-all", n, 2);
                    return fixedPattern(n, allToAllPairs(n));
                  }});
}

/// The bit permutations of Dally & Towles §3.2 on a power-of-two terminal count.
void addBitRows(std::vector<RegistryRow<PatternFactory>>& rows) {
  rows.push_back({"bit-reversal",
                  "destination = source index with its log2(N) bits reversed",
                  "Gómez 2007 §5.2.1 (worst case of deterministic fat-tree routing)",
                  {},
                  [](const Network& network, const Options&, std::uint64_t) {
                    const unsigned bits = requirePowerOfTwo("bit-reversal", network.terminalCount());
                    return fromFunction(network.terminalCount(), [&](std::uint32_t i) { return reverseBits(i, bits); });
                  }});
  rows.push_back({"bit-complement",
                  "destination = source index with every bit complemented",
                  "Dally & Towles 2004 §3.2; Gómez 2007 §5.2.1",
                  {},
                  [](const Network& network, const Options&, std::uint64_t) {
                    const std::size_t n = network.terminalCount();
                    requirePowerOfTwo("bit-complement", n);
                    return fromFunction(n, [&](std::uint32_t i) { return static_cast<std::uint32_t>(~i & (n - 1)); });
                  }});
  rows.push_back({"perfect-shuffle",
                  "destination = source index rotated left by one bit",
                  "Dally & Towles 2004 §3.2; Gómez 2007 §5.2.1",
                  {},
                  [](const Network& network, const Options&, std::uint64_t) {
                    const std::size_t n = network.terminalCount();
                    const unsigned bits = requirePowerOfTwo("perfect-shuffle", n);
                    return fromFunction(n, [&](std::uint32_t i) {
                      return static_cast<std::uint32_t>(((i << 1) | (i >> (bits - 1))) & (n - 1));
                    });
                  }});
  rows.push_back(
      {"transpose",
       "the index's high and low halves of its log2(N) bits swapped (N an even power of two)",
       "Dally & Towles 2004 §3.2 (matrix transpose)",
       {},
       [](const Network& network, const Options&, std::uint64_t) {
         const std::size_t n = network.terminalCount();
         const unsigned bits = requirePowerOfTwo("transpose", n);
         if (bits % 2 != 0) {
           throw SpecError(fmt::format(
               "pattern 'transpose' needs an even power of two of terminals (2^(2b)), the fabric has {}", n));
         }
         const unsigned half = bits / 2;
         const std::uint32_t low = (1U << half) - 1;
         return fromFunction(n, [&](std::uint32_t i) { return ((i >> half) & low) | ((i & low) << half); });
       }});
  rows.push_back({"butterfly",
                  "destination = source index with its most and least significant bits swapped",
                  "Dally & Towles 2004 §3.2; Gómez 2007 slides (synthetic traffic)",
                  {},
                  [](const Network& network, const Options&, std::uint64_t) {
                    const std::size_t n = network.terminalCount();
                    const unsigned bits = requirePowerOfTwo("butterfly", n);
                    return fromFunction(n, [&](std::uint32_t i) {
                      const std::uint32_t low = i & 1U;
                      const std::uint32_t high = (i >> (bits - 1)) & 1U;
                      std::uint32_t d = i & ~1U & ~(1U << (bits - 1));
                      return d | high | (low << (bits - 1));
                    });
                  }});
}

/// Gómez 2007 §5.2.1's hot spot: `senders` terminals (all others when 0) to `target`
/// (drawn with the seed when -1); a strict subset of senders is drawn with the seed.
TrafficPattern hotSpotPattern(const Network& network, const Options& options, std::uint64_t seed) {
  const std::size_t n = network.terminalCount();
  requireTerminals("hot-spot", n, 2);
  Rng rng(seed);
  const std::int64_t target = options.integerIn("target", -1, static_cast<std::int64_t>(n) - 1);
  const std::int64_t senders = options.integerIn("senders", 0, static_cast<std::int64_t>(n) - 1);
  TrafficPattern pattern;
  pattern.terminals = n;
  pattern.random = target < 0 || (senders != 0 && senders < static_cast<std::int64_t>(n) - 1);
  pattern.seed = pattern.random ? seed : 0;
  const auto hot = target >= 0 ? static_cast<std::uint32_t>(target) : static_cast<std::uint32_t>(rng.below(n));
  std::vector<std::uint32_t> others;
  for (std::uint32_t i = 0; i < n; ++i) {
    if (i != hot) others.push_back(i);
  }
  std::size_t count = others.size();
  if (senders != 0 && static_cast<std::size_t>(senders) < others.size()) {
    rng.shuffle(std::span<std::uint32_t>(others));
    count = static_cast<std::size_t>(senders);
    std::sort(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(count));
  }
  for (std::size_t i = 0; i < count; ++i) pattern.pairs.push_back({others[i], hot});
  return pattern;
}

std::vector<RegistryRow<PatternFactory>> patternRows() {
  std::vector<RegistryRow<PatternFactory>> rows;
  addRandomRows(rows);
  addShiftRows(rows);
  addBitRows(rows);
  rows.push_back({"hot-spot",
                  "`senders` terminals all send to one `target` terminal",
                  "Gómez 2007 §5.2.1 (hot-spot traffic)",
                  {{"target", OptionType::Integer, "-1", "terminal index of the hot spot (-1: drawn with the seed)"},
                   {"senders", OptionType::Integer, "0", "number of senders, drawn with the seed (0: all others)"}},
                  hotSpotPattern});
  rows.push_back({"file",
                  "pattern file: one 'SRC DST' per line, terminal names or indices, '#' comments",
                  "routelab docs/ANALYSIS.md (pattern files)",
                  {{"path", OptionType::String, "", "pattern file (written as file:PATH)", true}},
                  [](const Network& network, const Options& options, std::uint64_t) {
                    return readPatternFile(options.string("path"), network);
                  }});
  return rows;
}

}  // namespace

bool isPermutation(std::span<const SourceDestination> pairs, std::size_t terminals) {
  std::vector<std::uint8_t> sends(terminals, 0), receives(terminals, 0);
  for (const auto& [s, d] : pairs) {
    if (s >= terminals || d >= terminals || s == d || sends[s] || receives[d]) return false;
    sends[s] = 1;
    receives[d] = 1;
  }
  return true;
}

bool isBisect(std::span<const SourceDestination> pairs, std::size_t terminals) {
  if (terminals % 2 != 0 || pairs.size() * 2 != terminals || !isPermutation(pairs, terminals)) return false;
  std::vector<std::uint8_t> used(terminals, 0);
  for (const auto& [s, d] : pairs) {
    if (used[s] || used[d]) return false;
    used[s] = used[d] = 1;
  }
  return true;
}

bool isFullPermutation(std::span<const SourceDestination> pairs, std::size_t terminals) {
  return pairs.size() == terminals && isPermutation(pairs, terminals);
}

bool isDissemination(std::span<const SourceDestination> pairs, std::size_t terminals) {
  if (!isFullPermutation(pairs, terminals)) return false;
  std::vector<std::uint32_t> destination(terminals);
  for (const auto& [s, d] : pairs) destination[s] = d;
  for (const auto& [s, d] : pairs) {
    if (destination[d] != s) return false;
  }
  return true;
}

std::vector<SourceDestination> shiftPairs(std::size_t terminals, std::int64_t shift) {
  std::vector<SourceDestination> out;
  if (terminals == 0) return out;
  const auto n = static_cast<std::int64_t>(terminals);
  const std::int64_t by = ((shift % n) + n) % n;
  if (by == 0) return out;
  out.reserve(terminals);
  for (std::int64_t i = 0; i < n; ++i) {
    out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>((i + by) % n)});
  }
  return out;
}

std::vector<SourceDestination> allToAllPairs(std::size_t terminals) {
  std::vector<SourceDestination> out;
  out.reserve(terminals * (terminals > 0 ? terminals - 1 : 0));
  for (std::size_t by = 1; by < terminals; ++by) {
    for (std::size_t i = 0; i < terminals; ++i) {
      out.push_back({static_cast<std::uint32_t>(i), static_cast<std::uint32_t>((i + by) % terminals)});
    }
  }
  return out;
}

const Registry<PatternFactory>& patternRegistry() {
  static const Registry<PatternFactory> registry("communication pattern", patternRows());
  return registry;
}

TrafficPattern makePattern(const std::string& spec, const Network& network, std::uint64_t seed) {
  const ComponentSpec component = parseComponentOrFile(spec);
  const auto& row = patternRegistry().find(component.name);
  const Options options(component.name, row.options, component);
  TrafficPattern pattern = row.factory(network, options, seed);
  pattern.spec = component.name == "file" ? "file:" + options.string("path") : options.effective();
  return pattern;
}

TrafficPattern readPatternFile(const std::string& path, const Network& network) {
  return parsePatternText(readFileText(path), path, network);
}

TrafficPattern parsePatternText(const std::string& text, const std::string& path, const Network& network) {
  const std::size_t n = network.terminalCount();
  TrafficPattern pattern;
  pattern.terminals = n;
  std::istringstream in(text);
  std::string line;
  std::size_t lineNumber = 0;
  auto terminalOf = [&](const std::string& token) -> std::uint32_t {
    if (const auto node = network.findNode(token)) {
      if (network.isTerminal(*node)) return network.terminalIndex(*node);
      throw ParseError(path, lineNumber, fmt::format("'{}' is a switch, not a terminal", token));
    }
    std::uint64_t index = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), index);
    if (ec != std::errc() || ptr != token.data() + token.size()) {
      throw ParseError(path, lineNumber, fmt::format("'{}' is neither a terminal name nor a terminal index", token));
    }
    if (index >= n) {
      throw ParseError(path, lineNumber,
                       fmt::format("terminal index {} out of range (the fabric has {} terminals)", index, n));
    }
    return static_cast<std::uint32_t>(index);
  };
  while (std::getline(in, line)) {
    ++lineNumber;
    if (const std::size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::vector<std::string> tokens;
    for (std::string token; fields >> token;) tokens.push_back(token);
    if (tokens.empty()) continue;
    if (tokens.size() != 2) {
      throw ParseError(path, lineNumber, fmt::format("expected 'SRC DST', found {} fields", tokens.size()));
    }
    const std::uint32_t s = terminalOf(tokens[0]);
    const std::uint32_t d = terminalOf(tokens[1]);
    if (s == d) {
      throw ParseError(path, lineNumber, fmt::format("'{}' sends to itself: not a communication", tokens[0]));
    }
    pattern.pairs.push_back({s, d});
  }
  return pattern;
}

// ---- samplers ------------------------------------------------------------------------------

namespace {

void resetIdentity(std::span<std::uint32_t> scratch) {
  // Two entries per 64-bit store (little-endian: the lower index in the low half); the
  // scalar loop was a noticeable share of a bisect sample.
  const std::size_t n = scratch.size();
  std::size_t i = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::uint64_t twoEntries = std::uint64_t{1} << 32;  // entries 0 and 1
    for (; i + 1 < n; i += 2) {
      std::memcpy(scratch.data() + i, &twoEntries, sizeof twoEntries);
      twoEntries += (std::uint64_t{2} << 32) | 2U;
    }
  }
  for (; i < n; ++i) scratch[i] = static_cast<std::uint32_t>(i);
}

}  // namespace

void sampleBisect(Rng& rng, std::span<std::uint32_t> scratch, std::vector<SourceDestination>& out) {
  // A uniformly random ordered sample of N/2 senders (partial Fisher–Yates), paired with the
  // receivers (the complement) in increasing index order: for every sender set the
  // sender->receiver bijection is uniform, so the pattern is uniform over Def. 2 patterns.
  // N/2 random draws instead of N. (Pairing with the complement in the order the partial
  // shuffle leaves it would NOT be uniform.)
  const std::size_t n = scratch.size();
  const std::size_t half = n / 2;
  resetIdentity(scratch);
  Bounded32 draw(rng);
  out.resize(half);
  for (std::size_t i = 0; i < half; ++i) {
    // The swap of position i with j, where position i is final (never read again): its value
    // goes straight to the pattern.
    const std::size_t j = i + draw.below(static_cast<std::uint32_t>(n - i));
    out[i].source = scratch[j];
    scratch[j] = scratch[i];
  }
  // The receivers in increasing index order: a byte flag per sender (independent stores) in
  // the first n bytes of scratch (its shuffle is no longer needed), read eight at a time and
  // packed into a 64-bit mask of receivers (the multiply moves byte k's low bit to bit 56 + k
  // without carries), each mask walked lowest bit first. (Testing a flag per terminal
  // mispredicted half the time and cost most of a sample.)
  // With n >= 22 the flags, rounded up to whole masks, still fit in scratch (4n bytes); the
  // bits past n are masked off.
  auto* flags = reinterpret_cast<std::uint8_t*>(scratch.data());
  const bool wholeMasks = std::endian::native == std::endian::little && n >= 22;
  const std::size_t flagged = wholeMasks ? (n + 63) / 64 * 64 : n;
  std::fill_n(flags, flagged, std::uint8_t{0});
  for (std::size_t i = 0; i < half; ++i) flags[out[i].source] = 1;
  std::size_t next = 0, v = 0;
  if (wholeMasks) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kGather = 0x0102040810204080ULL;
    for (; v < n && next < half; v += 64) {
      std::uint64_t receivers = 0;
      for (std::size_t byte = 0; byte < 64; byte += 8) {
        std::uint64_t eight = 0;
        std::memcpy(&eight, flags + v + byte, sizeof eight);
        receivers |= (((eight ^ kOnes) * kGather) >> 56) << byte;
      }
      if (n - v < 64) receivers &= (std::uint64_t{1} << (n - v)) - 1;
      for (; receivers != 0 && next < half; receivers &= receivers - 1) {
        out[next++].destination = static_cast<std::uint32_t>(v + static_cast<std::size_t>(std::countr_zero(receivers)));
      }
    }
  }
  for (; v < n && next < half; ++v) {
    if (flags[v] == 0) out[next++].destination = static_cast<std::uint32_t>(v);
  }
}

void sampleFullPermutation(Rng& rng, std::span<std::uint32_t> scratch, std::vector<SourceDestination>& out) {
  const std::size_t n = scratch.size();
  // Fisher–Yates from the back: after the step for position i, scratch[i] is final, so a
  // fixed point is seen as soon as it is created and the draw restarts (rejection sampling:
  // every accepted permutation is a uniform derangement).
  Bounded32 draw(rng);
  bool accepted = false;
  while (!accepted) {
    resetIdentity(scratch);
    accepted = true;
    for (std::size_t i = n; i > 1; --i) {
      const std::size_t j = draw.below(static_cast<std::uint32_t>(i));
      std::swap(scratch[i - 1], scratch[j]);
      if (scratch[i - 1] == i - 1) {
        accepted = false;
        break;
      }
    }
    if (accepted && scratch[0] == 0) accepted = false;
  }
  out.resize(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = {static_cast<std::uint32_t>(i), scratch[i]};
}

void sampleDissemination(Rng& rng, std::span<std::uint32_t> scratch, std::vector<SourceDestination>& out) {
  // Uniform perfect matching: the last unmatched terminal is matched with a uniformly random
  // other unmatched one (every matching has the same probability, prod 1/(2k-1)).
  // N/2 random draws.
  resetIdentity(scratch);
  Bounded32 draw(rng);
  const std::size_t n = scratch.size() & ~std::size_t{1};
  out.resize(n);
  std::size_t remaining = n;
  for (std::size_t k = 0; k < n; k += 2) {
    const std::uint32_t a = scratch[remaining - 1];
    const std::size_t j = draw.below(static_cast<std::uint32_t>(remaining - 1));
    const std::uint32_t b = scratch[j];
    scratch[j] = scratch[remaining - 2];
    remaining -= 2;
    out[k] = {a, b};
    out[k + 1] = {b, a};
  }
}

void sampleRandomPermutation(Rng& rng, std::span<std::uint32_t> scratch, std::vector<SourceDestination>& out) {
  resetIdentity(scratch);
  Bounded32 draw(rng);
  for (std::size_t i = scratch.size(); i > 1; --i) {
    std::swap(scratch[i - 1], scratch[draw.below(static_cast<std::uint32_t>(i))]);
  }
  out.clear();
  for (std::size_t i = 0; i < scratch.size(); ++i) {
    if (scratch[i] != i) out.push_back({static_cast<std::uint32_t>(i), scratch[i]});
  }
}

void sampleDingPermutation(Rng& rng, std::size_t terminals, std::vector<SourceDestination>& out) {
  out.resize(terminals);
  for (std::size_t i = 0; i < terminals; ++i) {
    out[i] = {static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(i)};
  }
  // Fisher–Yates on the destinations.
  for (std::size_t i = terminals; i > 1; --i) {
    const auto j = static_cast<std::size_t>(rng.below(i));
    std::swap(out[i - 1].destination, out[j].destination);
  }
  std::erase_if(out, [](const SourceDestination& pair) { return pair.source == pair.destination; });
}

// ---- demands of an experiment's samples ------------------------------------------------

DemandSource::DemandSource(const std::string& spec, const Network& network, std::uint64_t seed)
    : spec_(spec), network_(&network) {
  if (spec == kDingPermutation) {
    effective_ = spec;
    ding_ = true;
    return;
  }
  TrafficPattern probe = makePattern(spec, network, seed);
  effective_ = probe.spec;
  random_ = probe.random;
  if (!random_) fixed_ = std::move(probe.pairs);
}

void DemandSource::draw(Rng& rng, std::vector<SourceDestination>& out) const {
  if (!random_) {
    out = fixed_;
  } else if (ding_) {
    sampleDingPermutation(rng, network_->terminalCount(), out);
  } else {
    out = makePattern(spec_, *network_, rng()).pairs;
  }
}

}  // namespace routelab
