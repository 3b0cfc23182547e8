// Random irregular fabrics: gen_ibsim_net.py (tests/data/opensm/README.md) random_irregular(), draw for
// draw (see the header), generalised to t terminals per switch.
#include "topology/random_irregular.h"

#include <string>
#include <unordered_set>

#include <fmt/format.h>

#include "core/errors.h"
#include "graph/builder.h"
#include "topology/python_random.h"

namespace routelab {

namespace {

constexpr std::uint32_t kMaxRadix = 254;         // InfiniBand switch port limit (builder)
constexpr std::uint64_t kMaxNodes = 1ULL << 26;  // as the fat-tree generators
constexpr int kAttempts = 1000;                  // gen_ibsim_net.py: range(1000)
constexpr int kExtraLinkDraws = 100000;          // gen_ibsim_net.py: tries > 100000

/// Positions 0..n-1 with a 0/1 mark; the k-th marked position in O(log n) (Fenwick tree).
/// Stands in for Python's list `cands` (marked positions in increasing order), so
/// choice(cands) = position kth(randbelow(count())).
class MarkedPositions {
 public:
  explicit MarkedPositions(std::size_t n) : tree_(n + 1, 0) {
    while ((highBit_ << 1) <= n) highBit_ <<= 1;
  }
  void mark(std::size_t position) {
    update(position, +1);
    ++count_;
  }
  void unmark(std::size_t position) {
    update(position, -1);
    --count_;
  }
  std::size_t count() const { return count_; }
  /// Position of the k-th (0-based) marked position; precondition k < count().
  std::size_t kth(std::size_t k) const {
    std::size_t position = 0;
    std::int64_t remaining = static_cast<std::int64_t>(k) + 1;
    for (std::size_t step = highBit_; step > 0; step >>= 1) {
      const std::size_t next = position + step;
      if (next < tree_.size() && tree_[next] < remaining) {
        position = next;
        remaining -= tree_[next];
      }
    }
    return position;  // 1-based index position + 1 holds it, i.e. 0-based `position`
  }

 private:
  void update(std::size_t position, std::int64_t delta) {
    for (std::size_t i = position + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
  }
  std::vector<std::int64_t> tree_;
  std::size_t highBit_ = 1;
  std::size_t count_ = 0;
};

std::size_t decimalWidth(std::uint64_t value) { return std::to_string(value).size(); }

std::uint32_t effectiveLinks(const RandomIrregularParams& params) { return params.links.value_or(2 * params.switches); }

void checkParameters(const RandomIrregularParams& params) {
  const std::uint64_t s = params.switches;
  const std::uint64_t links = effectiveLinks(params);
  if (s == 0) throw SpecError("random: option 'switches' must be at least 1");
  if (params.radix == 0 || params.radix > kMaxRadix) {
    throw SpecError(fmt::format("random: option 'radix' must be in [1, {}], got {}", kMaxRadix, params.radix));
  }
  if (s * (std::uint64_t{params.terminals} + 1) > kMaxNodes) {
    throw SpecError(
        fmt::format("random: {} switches x ({} terminals + 1) exceeds {} nodes", s, params.terminals, kMaxNodes));
  }
  // The three checks of gen_ibsim_net.py, in its order, with "radix - 1" generalised to
  // the ports left after the terminals. A refusal of links the spec did not give says so.
  const std::string defaulted =
      params.links ? std::string() : fmt::format("; 'links' not given: the default, 2 x 'switches' = {}", links);
  if (links + 1 < s) {
    throw SpecError(
        fmt::format("random: need at least S-1 links for connectivity ('links' = {} < 'switches' - 1 = {}{})", links,
                    s - 1, defaulted));
  }
  if (links > s * (s - 1) / 2) {
    throw SpecError(
        fmt::format("random: too many links for a simple graph ('links' = {} > 'switches' ({}) choose 2 = {}{})", links,
                    s, s * (s - 1) / 2, defaulted));
  }
  if (params.terminals > params.radix || 2 * links > s * (std::uint64_t{params.radix} - params.terminals)) {
    throw SpecError(fmt::format(
        "random: radix too small ('radix' = {} with 'terminals' = {} leaves {} switch ports per switch; "
        "{} links need {} switch ports in total, {} available{})",
        params.radix, params.terminals, params.terminals > params.radix ? 0 : params.radix - params.terminals, links,
        2 * links, params.terminals > params.radix ? 0 : s * (params.radix - params.terminals), defaulted));
  }
}

}  // namespace

std::vector<std::pair<std::uint32_t, std::uint32_t>> randomIrregularSwitchLinks(const RandomIrregularParams& params) {
  checkParameters(params);
  const std::uint32_t s = params.switches;
  const std::uint32_t links = effectiveLinks(params);
  const std::uint32_t cap = params.radix - params.terminals;  // switch links per switch
  PythonRandom rng(params.seed);

  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  std::vector<std::uint32_t> degree(s);
  std::vector<std::uint32_t> perm(s);
  std::unordered_set<std::uint64_t> pairs;
  const auto key = [s](std::uint32_t a, std::uint32_t b) { return std::uint64_t{std::min(a, b)} * s + std::max(a, b); };
  edges.reserve(links);
  pairs.reserve(2 * std::size_t{links});
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    edges.clear();
    pairs.clear();
    std::fill(degree.begin(), degree.end(), 0U);
    for (std::uint32_t i = 0; i < s; ++i) perm[i] = i;
    rng.shuffle(std::span<std::uint32_t>(perm));
    bool ok = true;
    // 1. Random spanning tree: perm[idx] joins a random eligible earlier switch.
    MarkedPositions eligible(s);
    for (std::uint32_t idx = 1; idx < s; ++idx) {
      if (degree[perm[idx - 1]] < cap) eligible.mark(idx - 1);
      if (eligible.count() == 0) {
        ok = false;
        break;
      }
      const std::uint32_t a = perm[idx];
      const std::size_t position = eligible.kth(static_cast<std::size_t>(rng.randbelow(eligible.count())));
      const std::uint32_t b = perm[position];
      edges.emplace_back(a, b);
      pairs.insert(key(a, b));
      ++degree[a];
      if (++degree[b] >= cap) eligible.unmark(position);
    }
    // 2. Random extra links between distinct, non-adjacent, non-full switches.
    int draws = 0;
    while (ok && edges.size() < links) {
      if (++draws > kExtraLinkDraws) {
        ok = false;
        break;
      }
      const auto a = static_cast<std::uint32_t>(rng.randrange(s));
      const auto b = static_cast<std::uint32_t>(rng.randrange(s));
      if (a == b || pairs.count(key(a, b)) != 0) continue;
      if (degree[a] >= cap || degree[b] >= cap) continue;
      edges.emplace_back(a, b);
      pairs.insert(key(a, b));
      ++degree[a];
      ++degree[b];
    }
    if (ok) return edges;
  }
  throw SpecError(
      fmt::format("random: could not build a connected simple graph with 'switches' = {}, 'links' = {}, 'radix' = {}, "
                  "'terminals' = {} in {} attempts (seed {}); try fewer links or a larger radix",
                  s, links, params.radix, params.terminals, kAttempts, params.seed));
}

Network makeRandomIrregular(const RandomIrregularParams& params) {
  const auto edges = randomIrregularSwitchLinks(params);
  const std::uint32_t s = params.switches;
  const std::uint32_t t = params.terminals;
  const std::size_t switchWidth = decimalWidth(s - 1);
  const std::size_t slotWidth = t > 1 ? decimalWidth(t - 1) : 0;

  NetworkBuilder builder;
  builder.reserve(std::size_t{s} * (t + 1), std::size_t{s} * t + edges.size());
  std::vector<NodeId> hosts;
  hosts.reserve(std::size_t{s} * t);
  for (std::uint32_t i = 0; i < s; ++i) {
    for (std::uint32_t j = 0; j < t; ++j) {
      hosts.push_back(builder.addTerminal(t == 1 ? fmt::format("rnd-h{:0{}}", i, switchWidth)
                                                 : fmt::format("rnd-h{:0{}}-{:0{}}", i, switchWidth, j, slotWidth),
                                          1));
    }
  }
  std::vector<NodeId> switches(s);
  for (std::uint32_t i = 0; i < s; ++i) {
    switches[i] = builder.addSwitch(fmt::format("rnd-sw{:0{}}", i, switchWidth), static_cast<PortNumber>(params.radix));
  }
  for (std::uint32_t i = 0; i < s; ++i) {
    for (std::uint32_t j = 0; j < t; ++j) {
      builder.connect(hosts[std::size_t{i} * t + j], 1, switches[i], static_cast<PortNumber>(1 + j));
    }
  }
  std::vector<PortNumber> nextPort(s, static_cast<PortNumber>(t + 1));
  for (const auto& [a, b] : edges) {
    builder.connect(switches[a], nextPort[a]++, switches[b], nextPort[b]++);
  }
  builder.setOrigin(fmt::format("random:switches={},links={},terminals={},radix={},seed={}", s, effectiveLinks(params),
                                t, params.radix, params.seed));
  return builder.build();
}

}  // namespace routelab
