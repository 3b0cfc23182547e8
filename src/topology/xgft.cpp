#include "topology/xgft.h"

#include <fmt/format.h>

#include <functional>
#include <memory>

#include "core/errors.h"
#include "graph/builder.h"

namespace routelab {

namespace {

constexpr std::uint64_t kMaxNodes = std::uint64_t{1} << 26;

void validate(const XgftParams& params) {
  if (params.height() == 0) throw SpecError("xgft: h must be at least 1");
  if (params.w.size() != params.m.size()) {
    throw SpecError(fmt::format("xgft: m has {} entries and w has {}; both need h", params.m.size(), params.w.size()));
  }
  for (std::size_t j = 0; j < params.height(); ++j) {
    if (params.m[j] == 0 || params.w[j] == 0) {
      throw SpecError(fmt::format("xgft: m_{} and w_{} must be at least 1", j + 1, j + 1));
    }
  }
  std::uint64_t total = 0;
  for (std::size_t l = 0; l <= params.height(); ++l) {
    std::uint64_t count = 1;
    for (std::size_t j = 1; j <= params.height(); ++j) {
      count *= params.base(l, j);
      if (count > kMaxNodes) throw SpecError(fmt::format("{}: too many nodes (limit 2^26)", params.str()));
    }
    total += count;
    if (total > kMaxNodes) throw SpecError(fmt::format("{}: too many nodes (limit 2^26)", params.str()));
  }
}

using NameFunction = std::function<std::string(std::size_t level, std::uint64_t index)>;

// Builds the XGFT with the given naming; `switchPorts(level)` may exceed the used radix
// (k-ary n-tree top switches keep 2k ports).
Network buildXgft(const XgftParams& params, const std::string& family, const NameFunction& nameOf,
                  const std::function<PortNumber(std::size_t)>& portsAt, std::string origin) {
  validate(params);
  const std::size_t h = params.height();
  for (std::size_t l = 0; l <= h; ++l) {
    if (portsAt(l) > 254 || params.radix(l) > 254) {
      throw SpecError(
          fmt::format("{}: level {} needs {} ports; at most 254 are supported", params.str(), l, params.radix(l)));
    }
  }
  auto labels = std::make_shared<XgftLabels>();
  labels->params = params;
  labels->family = family;
  labels->nodesAt.resize(h + 1);

  NetworkBuilder builder;
  std::size_t nodes = 0, cables = 0;
  for (std::size_t l = 0; l <= h; ++l) {
    nodes += params.nodesAtLevel(l);
    cables += params.nodesAtLevel(l) * params.upPorts(l);
  }
  builder.reserve(nodes, cables);
  labels->level.reserve(nodes);
  labels->indexInLevel.reserve(nodes);
  for (std::size_t l = 0; l <= h; ++l) {
    const std::uint64_t count = params.nodesAtLevel(l);
    labels->nodesAt[l].reserve(count);
    for (std::uint64_t i = 0; i < count; ++i) {
      const NodeId id = builder.addNode(l == 0 ? NodeKind::Terminal : NodeKind::Switch, nameOf(l, i), portsAt(l));
      labels->nodesAt[l].push_back(id);
      labels->level.push_back(static_cast<std::uint8_t>(l));
      labels->indexInLevel.push_back(static_cast<std::uint32_t>(i));
    }
  }
  // Cables between level l and l+1: node at level l with tuple x connects, for every
  // parent digit b in [0, w_{l+1}), to the level-(l+1) node with x_{l+1} := b.
  // Index arithmetic: position l+1 has weight prod_{j<=l} w_j in both levels' numbering
  // (positions below l+1 are w-digits at both levels).
  for (std::size_t l = 0; l < h; ++l) {
    std::uint64_t weight = 1;
    for (std::size_t j = 1; j <= l; ++j) weight *= params.w[j - 1];
    const std::uint32_t childBase = params.m[l];   // base of position l+1 at level l
    const std::uint32_t parentBase = params.w[l];  // base of position l+1 at level l+1
    const auto& lower = labels->nodesAt[l];
    const auto& upper = labels->nodesAt[l + 1];
    for (std::uint64_t i = 0; i < lower.size(); ++i) {
      const std::uint64_t low = i % weight;
      const std::uint64_t digit = (i / weight) % childBase;
      const std::uint64_t high = i / weight / childBase;
      for (std::uint32_t b = 0; b < parentBase; ++b) {
        const std::uint64_t parent = (high * parentBase + b) * weight + low;
        builder.connect(lower[i], static_cast<PortNumber>(params.downPorts(l) + 1 + b), upper[parent],
                        static_cast<PortNumber>(1 + digit));
      }
    }
  }
  builder.setXgftLabels(std::move(labels));
  builder.setOrigin(std::move(origin));
  return builder.build();
}

/// The base-`base` digits of `value`, least significant first: one character each
/// (0-9, a-z) up to base 36, as gen_ibsim_net.py writes them; beyond, decimal numbers joined
/// by '.' (a 40-ary tree's "kt-s0-39.0"), so that every switch keeps a distinct name.
std::string digitsString(std::uint64_t value, std::uint32_t base, std::uint32_t count) {
  static constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string out;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t d = value % base;
    if (base <= 36) {
      out += kAlphabet[d];
    } else {
      out += (i == 0 ? "" : ".") + std::to_string(d);
    }
    value /= base;
  }
  return out;
}

std::string padded(std::uint64_t value, std::uint64_t maxValue) {
  return fmt::format("{:0{}}", value, std::to_string(maxValue).size());
}

}  // namespace

Network makeXgft(const XgftParams& params) {
  validate(params);
  std::vector<std::uint64_t> counts;
  for (std::size_t l = 0; l <= params.height(); ++l) counts.push_back(params.nodesAtLevel(l));
  return buildXgft(
      params, "xgft",
      [&](std::size_t level, std::uint64_t index) {
        return level == 0 ? "xg-h" + padded(index, counts[0] - 1)
                          : fmt::format("xg-l{}-{}", level, padded(index, counts[level] - 1));
      },
      [&](std::size_t level) { return static_cast<PortNumber>(std::max<std::uint32_t>(1, params.radix(level))); },
      "xgft:" + params.str());
}

Network makeKaryNtree(std::uint32_t k, std::uint32_t n) {
  if (k < 2) throw SpecError(fmt::format("kary-ntree: k must be at least 2, got {}", k));
  if (n < 1) throw SpecError(fmt::format("kary-ntree: n must be at least 1, got {}", n));
  if (2 * std::uint64_t{k} > 254) throw SpecError(fmt::format("kary-ntree: k = {} needs {} ports (max 254)", k, 2 * k));
  // k^n >= 2^n terminals: refused here, before n levels are laid out (n may be up to 2^31 - 1).
  if (n >= 64 || (std::uint64_t{1} << n) > kMaxNodes) {
    throw SpecError(fmt::format("kary-ntree:k={},n={}: too many nodes (limit 2^26)", k, n));
  }
  XgftParams params;
  params.m.assign(n, k);
  params.w.assign(n, k);
  params.w[0] = 1;
  validate(params);
  std::uint64_t terminals = 1;
  for (std::uint32_t i = 0; i < n; ++i) terminals *= k;
  return buildXgft(
      params, "kary-ntree",
      [&](std::size_t level, std::uint64_t index) {
        if (level == 0) return "kt-h" + padded(index, terminals - 1);
        if (n == 1) return fmt::format("kt-s{}", level - 1);
        return fmt::format("kt-s{}-{}", level - 1, digitsString(index, k, n - 1));
      },
      [&](std::size_t level) { return static_cast<PortNumber>(level == 0 ? 1 : 2 * k); },
      fmt::format("kary-ntree:k={},n={}", k, n));
}

Network makeGft2(std::uint32_t n, std::uint32_t m, std::uint32_t r) {
  if (n < 1 || m < 1 || r < 1) {
    throw SpecError(fmt::format("gft2: n, m and r must be at least 1 (got n={}, m={}, r={})", n, m, r));
  }
  XgftParams params{{n, r}, {1, m}};
  return buildXgft(
      params, "gft2",
      [&](std::size_t level, std::uint64_t index) {
        if (level == 0) {
          return fmt::format("gft-h{}-{}", padded(index / n, r - 1), padded(index % n, n - 1));
        }
        if (level == 1) return "gft-leaf" + padded(index, r - 1);
        return "gft-top" + padded(index, m - 1);
      },
      [&](std::size_t level) {
        return static_cast<PortNumber>(level == 0 ? 1 : level == 1 ? n + m : r);
      },
      fmt::format("gft2:n={},m={},r={}", n, m, r));
}

}  // namespace routelab
