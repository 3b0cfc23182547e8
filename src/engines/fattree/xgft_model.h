// routelab/engines/fattree/xgft_model.h — the label arithmetic the fat-tree engines route
// with (internal to routing/; built once per routing call).
//
// XGFT(h; m_1..m_h; w_1..w_h) as in graph/xgft_labels.h. With M_l = m_1···m_l and
// W_l = w_1···w_l (M_0 = W_0 = 1):
//   * terminal d (index in level 0) has m-digits only: d = Σ d_j M_{j-1};
//   * a level-l switch with index i has w-digits at positions 1..l (low part i mod W_l) and
//     m-digits at positions l+1..h (high part i / W_l);
//   * the switch is an ancestor of terminal d iff i / W_l == d / M_l (Gómez §3: the first
//     differing component gives the stage to climb to); it reaches d through down port
//     1 + d_l = 1 + (d / M_{l-1}) mod m_l, and up port m_l + 1 + b leads to the parent whose
//     position-(l+1) digit is b.
// Everything is O(1) per (switch, destination) after an O(nodes) set-up.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/errors.h"
#include "graph/network.h"

namespace routelab::xgft_detail {

class XgftModel {
 public:
  /// Throws UnsupportedTopology naming `engine` and the fabric if `network` carries no
  /// XGFT labels.
  XgftModel(const Network& network, const std::string& engine) : network_(network) {
    labels_ = network.xgft();
    if (labels_ == nullptr) {
      throw UnsupportedTopology(fmt::format("{} needs a fat-tree (XGFT) fabric; '{}' is not one", engine,
                                            network.origin().empty() ? std::string("this fabric") : network.origin()));
    }
    const XgftParams& p = labels_->params;
    height_ = p.height();
    mProduct_.assign(height_ + 1, 1);
    wProduct_.assign(height_ + 1, 1);
    for (std::size_t l = 1; l <= height_; ++l) {
      mProduct_[l] = mProduct_[l - 1] * p.m[l - 1];
      wProduct_[l] = wProduct_[l - 1] * p.w[l - 1];
    }
    switchLevel_.resize(network.switchCount());
    switchIndex_.resize(network.switchCount());
    for (std::size_t s = 0; s < network.switchCount(); ++s) {
      const NodeId node = network.switchNode(s);
      switchLevel_[s] = labels_->level[node.index()];
      switchIndex_[s] = labels_->indexInLevel[node.index()];
    }
  }

  const Network& network() const { return network_; }
  const XgftLabels& labels() const { return *labels_; }
  const XgftParams& params() const { return labels_->params; }
  std::size_t height() const { return height_; }
  std::uint64_t mProduct(std::size_t level) const { return mProduct_[level]; }
  std::uint64_t wProduct(std::size_t level) const { return wProduct_[level]; }
  std::uint32_t m(std::size_t level) const { return labels_->params.m[level - 1]; }
  /// Parents of a level-l node (w_{l+1}); 0 at the top.
  std::uint32_t upCount(std::size_t level) const { return level < height_ ? labels_->params.w[level] : 0; }

  std::size_t switchLevel(std::size_t switchIndex) const { return switchLevel_[switchIndex]; }
  std::uint64_t switchIndexInLevel(std::size_t switchIndex) const { return switchIndex_[switchIndex]; }
  /// Index in level 0 of a terminal node.
  std::uint64_t terminalIndex(NodeId terminal) const { return labels_->indexInLevel[terminal.index()]; }

  bool isAncestor(std::size_t level, std::uint64_t indexInLevel, std::uint64_t terminal) const {
    return indexInLevel / wProduct_[level] == terminal / mProduct_[level];
  }
  PortNumber downPort(std::size_t level, std::uint64_t terminal) const {
    return static_cast<PortNumber>(1 + (terminal / mProduct_[level - 1]) % m(level));
  }
  PortNumber upPort(std::size_t level, std::uint32_t parent) const {
    return static_cast<PortNumber>(m(level) + 1 + parent);
  }

  /// Route from switch S (level, index) towards switch X (level lx, index ix) along an
  /// up*/down* path. Returns the forced hardware port, or 0 with `freeUp` = true when any
  /// up port is minimal (the caller chooses), or kNoRoute when no up*/down* path exists
  /// (S's w-digits below X's level differ from X's — only a down-up path could reach X, and
  /// like OpenSM's ftree/updn we leave such switch-to-switch entries unrouted).
  PortNumber towardsSwitch(std::size_t level, std::uint64_t index, std::size_t lx, std::uint64_t ix,
                           bool& freeUp) const {
    freeUp = false;
    if (level == lx && index == ix) return kSelfPort;
    const std::size_t low = level < lx ? level : lx;
    if (index % wProduct_[low] != ix % wProduct_[low]) return kNoRoute;
    // X's weight of position j (j > lx): W_lx · m_{lx+1} ··· m_{j-1}.
    auto weightX = [&](std::size_t position) { return wProduct_[lx] * (mProduct_[position - 1] / mProduct_[lx]); };
    if (level > lx) {
      const std::uint64_t highX = ix / weightX(level + 1);
      if (index / wProduct_[level] == highX) {
        return static_cast<PortNumber>(1 + (ix / weightX(level)) % m(level));
      }
    }
    if (level >= height_) return kNoRoute;
    if (level < lx) {
      // Position level+1 <= lx is one of X's w-digits: the parent is forced.
      const auto b = static_cast<std::uint32_t>((ix / wProduct_[level]) % upCount(level));
      return upPort(level, b);
    }
    freeUp = true;
    return kSelfPort;
  }

 private:
  const Network& network_;
  const XgftLabels* labels_ = nullptr;
  std::size_t height_ = 0;
  std::vector<std::uint64_t> mProduct_, wProduct_;
  std::vector<std::uint8_t> switchLevel_;
  std::vector<std::uint64_t> switchIndex_;
};

}  // namespace routelab::xgft_detail
