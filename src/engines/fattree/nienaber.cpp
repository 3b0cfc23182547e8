// Nienaber, Mahapatra, Yuan 2011: OPT (Fig. 2) and the enhanced OPT of §IV on the 2-level
// generalized fat-tree T(n+m, r) = XGFT(2; n, r; 1, m).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engines/fattree/fat_tree.h"
#include "engines/fattree/xgft_tables.h"

namespace routelab {

namespace {

using xgft_detail::XgftModel;

/// T(n+m, r) parameters of a network, or UnsupportedTopology.
struct TwoLevel {
  std::uint32_t n = 0, m = 0, r = 0;
  std::uint32_t k = 0;          ///< floor(sqrt(m))
  std::uint32_t groupSize = 0;  ///< Fig. 2 grp_size = ceil(n / k)
  std::uint32_t groups = 0;     ///< source/destination groups per leaf: ceil(n / grp_size)
};

TwoLevel twoLevel(const XgftModel& model, const std::string& engine) {
  const XgftParams& p = model.params();
  if (p.height() != 2 || p.w[0] != 1) {
    throw UnsupportedTopology(
        fmt::format("{} needs a 2-level fat-tree T(n+m, r) = XGFT(2; n, r; 1, m) (Nienaber §II); "
                    "'{}' is {}",
                    engine, model.network().origin(), p.str()));
  }
  TwoLevel t;
  t.n = p.m[0];
  t.r = p.m[1];
  t.m = p.w[1];
  t.k = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(t.m)));
  while (t.k * t.k > t.m) --t.k;
  while ((t.k + 1) * (t.k + 1) <= t.m) ++t.k;
  // Fig. 2 verbatim: grp_size = n / k; if (n / k * k != n) grp_size++.
  t.groupSize = t.n / t.k;
  if (t.n / t.k * t.k != t.n) ++t.groupSize;
  t.groups = (t.n + t.groupSize - 1) / t.groupSize;
  return t;
}

/// Fig. 2: the top switch of the pair (s, d), s and d on different leaves.
std::uint32_t optTop(const TwoLevel& t, std::uint64_t s, std::uint64_t d) {
  const auto sourceGroup = static_cast<std::uint32_t>((s % t.n) / t.groupSize);
  const auto destinationGroup = static_cast<std::uint32_t>((d % t.n) / t.groupSize);
  return sourceGroup * t.k + destinationGroup;
}

/// Smallest B with B >= n / sqrt(m), exactly: B^2 m >= n^2.
std::uint32_t sourceBound(std::uint32_t n, std::uint32_t m) {
  std::uint64_t b = 0;
  while (b * b * m < std::uint64_t{n} * n) ++b;
  return static_cast<std::uint32_t>(b);
}

/// A set of node ids with its size (the distinct sources or destinations of a link).
struct CountedSet {
  std::vector<std::uint8_t> member;
  std::uint32_t size = 0;
  bool contains(std::size_t i) const { return member[i] != 0; }
  void insert(std::size_t i) {
    if (!member[i]) {
      member[i] = 1;
      ++size;
    }
  }
};

/// The links into and out of one receiving (originally unused) top switch.
struct ReceivingLinks {
  std::vector<CountedSet> upSources, upDestinations;      // per leaf: leaf -> top
  std::vector<CountedSet> downSources, downDestinations;  // per leaf: top -> leaf
};

}  // namespace

RoutingResult routeOpt(const Network& network, const RoutingContext& context) {
  const XgftModel model(network, "opt");
  const TwoLevel t = twoLevel(model, "opt");
  RoutingResult result = xgft_detail::fillXgftRouting(
      model, context, t.groups, false,
      [t](std::size_t, std::uint64_t leaf, std::uint64_t d, std::uint32_t path, std::uint32_t group) {
        const std::uint64_t source = leaf * t.n + std::uint64_t{group} * t.groupSize;  // a node of that group
        return (optTop(t, source, d) + path) % t.m;
      });
  result.sourceClassOf.assign(result.addresses.owners().size(), 0);
  for (NodeId terminal : network.terminals()) {
    result.sourceClassOf[result.addresses.sourceIndex(terminal)] =
        static_cast<std::uint32_t>((model.terminalIndex(terminal) % t.n) / t.groupSize);
  }
  result.stats.emplace_back("k", std::to_string(t.k));
  result.stats.emplace_back("grp_size", std::to_string(t.groupSize));
  result.stats.emplace_back("tops_used", std::to_string(t.groups * t.groups));
  return result;
}

namespace {

/// OPT (Fig. 2) for every pair of nodes on different leaves: the top of each pair
/// (topOf[s * N + d]), the pairs per top in (s, d) order and the load per top.
struct TopAssignment {
  std::vector<std::uint16_t> topOf;
  std::vector<std::uint64_t> load;
  std::vector<std::vector<std::uint32_t>> pairsOf;
};

TopAssignment optBaseline(const TwoLevel& t, std::size_t N) {
  TopAssignment a{std::vector<std::uint16_t>(N * N, 0), std::vector<std::uint64_t>(t.m, 0),
                  std::vector<std::vector<std::uint32_t>>(t.m)};
  for (std::size_t s = 0; s < N; ++s) {
    for (std::size_t d = 0; d < N; ++d) {
      if (s / t.n == d / t.n) continue;
      const std::uint32_t top = optTop(t, s, d);
      a.topOf[s * N + d] = static_cast<std::uint16_t>(top);
      ++a.load[top];
      a.pairsOf[top].push_back(static_cast<std::uint32_t>(s * N + d));
    }
  }
  return a;
}

/// Balancing (§IV, our reading, docs/ROUTING.md): round robin over the loaded switches, each
/// offers its next SD pair (in (s, d) order); the pair moves to the first unloaded switch,
/// in round-robin order from where the previous move went, whose load stays below the
/// giving switch's (load[f] + 1 < load[u]) and whose two receiving links (leaf(s) -> f,
/// f -> leaf(d)) each keep at most `bound` sources or at most `bound` destinations.
/// Updates `a` and returns the number of moves.
std::uint64_t balanceOntoUnusedTops(const TwoLevel& t, std::size_t N, std::uint32_t bound,
                                    const std::vector<std::uint32_t>& loaded,
                                    const std::vector<std::uint32_t>& unloaded, TopAssignment& a) {
  if (unloaded.empty()) return 0;
  std::vector<ReceivingLinks> links(unloaded.size());
  auto makeSets = [](std::size_t count, std::size_t universe) {
    return std::vector<CountedSet>(count, CountedSet{std::vector<std::uint8_t>(universe, 0), 0});
  };
  for (auto& l : links) {
    l.upSources = makeSets(t.r, t.n);
    l.upDestinations = makeSets(t.r, N);
    l.downSources = makeSets(t.r, N);
    l.downDestinations = makeSets(t.r, t.n);
  }
  auto keepsBound = [&](const CountedSet& sources, std::size_t s, const CountedSet& destinations, std::size_t d) {
    const std::uint32_t sourcesAfter = sources.size + (sources.contains(s) ? 0 : 1);
    const std::uint32_t destinationsAfter = destinations.size + (destinations.contains(d) ? 0 : 1);
    return sourcesAfter <= bound || destinationsAfter <= bound;
  };
  std::uint64_t moves = 0;
  std::vector<std::size_t> cursor(t.m, 0);
  std::size_t next = 0;  // round-robin pointer into `unloaded`
  bool progress = true;
  while (progress) {
    progress = false;
    for (std::uint32_t u : loaded) {
      if (cursor[u] >= a.pairsOf[u].size()) continue;
      progress = true;
      const std::uint32_t pair = a.pairsOf[u][cursor[u]++];
      const std::size_t s = pair / N, d = pair % N;
      const std::size_t sourceLeaf = s / t.n, destinationLeaf = d / t.n;
      for (std::size_t attempt = 0; attempt < unloaded.size(); ++attempt) {
        const std::size_t slot = (next + attempt) % unloaded.size();
        const std::uint32_t f = unloaded[slot];
        if (a.load[f] + 1 >= a.load[u]) continue;
        ReceivingLinks& l = links[slot];
        if (!keepsBound(l.upSources[sourceLeaf], s % t.n, l.upDestinations[sourceLeaf], d)) continue;
        if (!keepsBound(l.downSources[destinationLeaf], s, l.downDestinations[destinationLeaf], d % t.n)) continue;
        l.upSources[sourceLeaf].insert(s % t.n);
        l.upDestinations[sourceLeaf].insert(d);
        l.downSources[destinationLeaf].insert(s);
        l.downDestinations[destinationLeaf].insert(d % t.n);
        a.topOf[pair] = static_cast<std::uint16_t>(f);
        --a.load[u];
        ++a.load[f];
        ++moves;
        next = (slot + 1) % unloaded.size();
        break;
      }
    }
  }
  return moves;
}

}  // namespace

RoutingResult routeOptBalanced(const Network& network, const RoutingContext& context) {
  const XgftModel model(network, "opt-balanced");
  const TwoLevel t = twoLevel(model, "opt-balanced");
  const std::uint64_t nodes = std::uint64_t{t.n} * t.r;
  if (nodes > 8192) {
    throw RoutingError(
        fmt::format("opt-balanced keeps one route per SD pair (6 bytes each); {} nodes are too many "
                    "(at most 8192)",
                    nodes));
  }
  const auto N = static_cast<std::size_t>(nodes);
  const std::uint32_t bound = sourceBound(t.n, t.m);

  TopAssignment assignment = optBaseline(t, N);
  std::vector<std::uint32_t> loaded, unloaded;
  for (std::uint32_t top = 0; top < t.m; ++top) (assignment.load[top] > 0 ? loaded : unloaded).push_back(top);
  const std::uint64_t moves = balanceOntoUnusedTops(t, N, bound, loaded, unloaded, assignment);

  const std::vector<std::uint16_t>& topOf = assignment.topOf;
  RoutingResult result = xgft_detail::fillXgftRouting(
      model, context, t.n, false,
      [&topOf, t, N](std::size_t, std::uint64_t leaf, std::uint64_t d, std::uint32_t path, std::uint32_t position) {
        const std::size_t s = leaf * t.n + position;
        return (topOf[s * N + d] + path) % t.m;
      });
  result.sourceClassOf.assign(result.addresses.owners().size(), 0);
  for (NodeId terminal : network.terminals()) {
    result.sourceClassOf[result.addresses.sourceIndex(terminal)] =
        static_cast<std::uint32_t>(model.terminalIndex(terminal) % t.n);
  }
  std::uint64_t minLoad = UINT64_MAX, maxLoad = 0;
  for (std::uint64_t l : assignment.load) {
    minLoad = std::min(minLoad, l);
    maxLoad = std::max(maxLoad, l);
  }
  result.stats.emplace_back("k", std::to_string(t.k));
  result.stats.emplace_back("grp_size", std::to_string(t.groupSize));
  result.stats.emplace_back("bound", std::to_string(bound));
  result.stats.emplace_back("unused_tops_after_opt", std::to_string(unloaded.size()));
  result.stats.emplace_back("pairs_moved", std::to_string(moves));
  result.stats.emplace_back("top_load_min", std::to_string(minLoad));
  result.stats.emplace_back("top_load_max", std::to_string(maxLoad));
  return result;
}

GridShape optGridShape(std::uint32_t n, std::uint32_t m) {
  std::uint32_t k = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(m)));
  while (k * k > m) --k;
  while ((k + 1) * (k + 1) <= m) ++k;
  GridShape best;
  best.bound = (n + k - 1) / k;  // Fig. 2's WORST: grp_size = ceil(n / floor(sqrt m))
  for (std::uint32_t a = 1; a <= m; ++a) {
    const std::uint32_t b = m / a;
    const std::uint32_t worst = std::max((n + a - 1) / a, (n + b - 1) / b);
    if (worst > best.bound) continue;
    const std::uint32_t tops = a * b;
    const std::uint32_t bestTops = best.sourceGroups * best.destinationGroups;
    const std::uint32_t bestWorst = best.sourceGroups == 0 ? UINT32_MAX : best.worst;
    // Most tops used, then the smallest WORST, then a <= b (fewer source classes).
    if (tops > bestTops || (tops == bestTops && worst < bestWorst)) {
      best.sourceGroups = a;
      best.destinationGroups = b;
      best.worst = worst;
    }
  }
  return best;
}

RoutingResult routeOptGrid(const Network& network, const RoutingContext& context, std::uint32_t sourceGroups,
                           std::uint32_t destinationGroups) {
  const XgftModel model(network, "opt-grid");
  const TwoLevel t = twoLevel(model, "opt-grid");
  GridShape shape = optGridShape(t.n, t.m);
  if (sourceGroups != 0 || destinationGroups != 0) {
    if (sourceGroups == 0 || destinationGroups == 0) {
      throw SpecError("opt-grid: give both source-groups and destination-groups, or neither (0 = the rule)");
    }
    if (std::uint64_t{sourceGroups} * destinationGroups > t.m || sourceGroups > t.n || destinationGroups > t.n) {
      throw SpecError(
          fmt::format("opt-grid: {} x {} groups need at most m = {} top switches and at most n = {} nodes "
                      "per group side",
                      sourceGroups, destinationGroups, t.m, t.n));
    }
    shape.sourceGroups = sourceGroups;
    shape.destinationGroups = destinationGroups;
    shape.worst = std::max((t.n + sourceGroups - 1) / sourceGroups, (t.n + destinationGroups - 1) / destinationGroups);
  }
  const std::uint32_t a = std::min(shape.sourceGroups, t.n), b = std::min(shape.destinationGroups, t.n);
  // Balanced contiguous groups: position p of a leaf is in group floor(p * groups / n), so
  // group sizes differ by at most one and the largest is ceil(n / groups).
  RoutingResult result = xgft_detail::fillXgftRouting(
      model, context, a, false,
      [t, b](std::size_t, std::uint64_t, std::uint64_t d, std::uint32_t path, std::uint32_t sourceGroup) {
        const auto destinationGroup = static_cast<std::uint32_t>((d % t.n) * b / t.n);
        return (sourceGroup * b + destinationGroup + path) % t.m;
      },
      xgft_detail::ClimbScope::Level);
  result.sourceClassOf.assign(result.addresses.owners().size(), 0);
  for (NodeId terminal : network.terminals()) {
    result.sourceClassOf[result.addresses.sourceIndex(terminal)] =
        static_cast<std::uint32_t>((model.terminalIndex(terminal) % t.n) * a / t.n);
  }
  result.stats.emplace_back("source_groups", std::to_string(a));
  result.stats.emplace_back("destination_groups", std::to_string(b));
  result.stats.emplace_back("tops_used", std::to_string(a * b));
  result.stats.emplace_back("worst_bound", std::to_string(shape.worst));
  result.stats.emplace_back("opt_worst", std::to_string(shape.bound));
  return result;
}

}  // namespace routelab
