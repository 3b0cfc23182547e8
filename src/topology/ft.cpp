#include "topology/ft.h"

#include <fmt/format.h>

#include <memory>

#include "core/errors.h"
#include "graph/builder.h"

namespace routelab {

namespace {

constexpr std::uint64_t kMaxNodes = std::uint64_t{1} << 26;

std::uint64_t power(std::uint64_t base, std::uint32_t exponent) {
  std::uint64_t out = 1;
  for (std::uint32_t i = 0; i < exponent; ++i) out *= base;
  return out;
}

}  // namespace

std::uint64_t FtShape::terminals() const { return power(children, levels); }

std::uint64_t FtShape::switchesAtLevel(std::uint32_t level) const {
  return power(children, levels - 1 - level) * power(parents, level);
}

std::uint32_t FtShape::digit(std::uint32_t level, std::uint64_t tau, std::uint32_t position) const {
  if (position < level) return static_cast<std::uint32_t>((tau / power(parents, position)) % parents);
  return static_cast<std::uint32_t>((tau / power(parents, level) / power(children, position - level)) % children);
}

std::uint64_t FtShape::parent(std::uint32_t level, std::uint64_t tau, std::uint32_t port) const {
  const std::uint64_t below = power(parents, level);  // w^h: weight of the copy digit t_h
  return tau / (children * below) * below * parents + tau % below * parents + port;
}

std::uint64_t FtShape::tauToXgftIndex(std::uint32_t level, std::uint64_t tau) const {
  const std::uint64_t below = power(parents, level);
  std::uint64_t reversed = 0;
  for (std::uint32_t j = 0; j < level; ++j) reversed = reversed * parents + digit(level, tau, j);
  return tau / below * below + reversed;
}

std::uint64_t FtShape::xgftIndexToTau(std::uint32_t level, std::uint64_t index) const {
  // The map reverses the order of the low `level` base-w digits; it is an involution.
  return tauToXgftIndex(level, index);
}

std::string FtShape::switchName(std::uint32_t level, std::uint64_t tau) const {
  static constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  if (levels == 1) return "ft-sw0";
  const bool compact = children <= 36 && parents <= 36;
  std::string digits;
  for (std::uint32_t i = levels - 1; i-- > 0;) {
    const std::uint32_t d = digit(level, tau, i);
    if (compact) {
      digits += kAlphabet[d];
    } else {
      digits += (i + 2 == levels ? "" : ".") + std::to_string(d);
    }
  }
  return fmt::format("ft-sw{}-{}", level, digits);
}

XgftParams FtShape::asXgft() const {
  XgftParams params;
  params.m.assign(levels, children);
  params.w.assign(levels, parents);
  params.w[0] = 1;
  return params;
}

Network makeFatTreeFt(std::uint32_t levels, std::uint32_t children, std::uint32_t parents) {
  if (levels < 1 || children < 1 || parents < 1) {
    throw SpecError(fmt::format("ft: l, m and w must be at least 1 (got l={}, m={}, w={})", levels, children, parents));
  }
  if (std::uint64_t{children} + parents > 254) {
    throw SpecError(
        fmt::format("ft: m + w = {} ports per switch; at most 254 are supported", std::uint64_t{children} + parents));
  }
  const FtShape shape{levels, children, parents};
  std::uint64_t nodes = 1;
  for (std::uint32_t i = 0; i < levels; ++i) {
    nodes *= children;
    if (nodes > kMaxNodes)
      throw SpecError(fmt::format("ft: l={}, m={}: too many nodes (limit 2^26)", levels, children));
  }
  for (std::uint32_t h = 0; h < levels; ++h) {
    nodes += shape.switchesAtLevel(h);
    if (nodes > kMaxNodes || shape.switchesAtLevel(h) > kMaxNodes) {
      throw SpecError(fmt::format("ft: l={}, m={}, w={}: too many nodes (limit 2^26)", levels, children, parents));
    }
  }

  auto labels = std::make_shared<XgftLabels>();
  labels->params = shape.asXgft();
  labels->family = "ft";
  labels->nodesAt.resize(levels + 1);

  NetworkBuilder builder;
  const std::uint64_t terminals = shape.terminals();
  std::uint64_t cables = terminals;
  for (std::uint32_t h = 0; h + 1 < levels; ++h) cables += shape.switchesAtLevel(h) * parents;
  builder.reserve(nodes, cables);
  labels->level.reserve(nodes);
  labels->indexInLevel.reserve(nodes);

  const std::size_t width = std::to_string(terminals - 1).size();
  labels->nodesAt[0].reserve(terminals);
  for (std::uint64_t n = 0; n < terminals; ++n) {
    labels->nodesAt[0].push_back(builder.addTerminal(fmt::format("ft-h{:0{}}", n, width), 1));
    labels->level.push_back(0);
    labels->indexInLevel.push_back(static_cast<std::uint32_t>(n));
  }
  // switchAt[h][τ]: node of SW(h, τ).
  std::vector<std::vector<NodeId>> switchAt(levels);
  const auto ports = static_cast<PortNumber>(children + parents);
  for (std::uint32_t h = 0; h < levels; ++h) {
    const std::uint64_t count = shape.switchesAtLevel(h);
    switchAt[h].reserve(count);
    labels->nodesAt[h + 1].assign(count, NodeId());
    for (std::uint64_t tau = 0; tau < count; ++tau) {
      const NodeId id = builder.addSwitch(shape.switchName(h, tau), ports);
      const std::uint64_t index = shape.tauToXgftIndex(h, tau);
      switchAt[h].push_back(id);
      labels->nodesAt[h + 1][index] = id;
      labels->level.push_back(static_cast<std::uint8_t>(h + 1));
      labels->indexInLevel.push_back(static_cast<std::uint32_t>(index));
    }
  }
  for (std::uint64_t n = 0; n < terminals; ++n) {
    builder.connect(labels->nodesAt[0][n], 1, switchAt[0][n / children], static_cast<PortNumber>(1 + n % children));
  }
  // Ding §3: SW(h, τ) is cabled through Ulink(h, τ, i) to its Theorem-1 parent, arriving
  // on the parent's down port 1 + (copy digit t_h of τ).
  for (std::uint32_t h = 0; h + 1 < levels; ++h) {
    for (std::uint64_t tau = 0; tau < switchAt[h].size(); ++tau) {
      const auto copy = static_cast<PortNumber>(shape.digit(h, tau, h));
      for (std::uint32_t i = 0; i < parents; ++i) {
        builder.connect(switchAt[h][tau], static_cast<PortNumber>(children + 1 + i),
                        switchAt[h + 1][shape.parent(h, tau, i)], static_cast<PortNumber>(1 + copy));
      }
    }
  }
  builder.setXgftLabels(std::move(labels));
  builder.setOrigin(fmt::format("ft:l={},m={},w={}", levels, children, parents));
  return builder.build();
}

}  // namespace routelab
