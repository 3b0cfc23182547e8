// routelab/topology/ft.h — Ding et al.'s FT(l, m, w) (SC'06 §2–3).
//
// FT(l, m, w) has l levels of switches h = 0..l-1 (level 0 at the processing nodes), m
// children and w parents per switch. Ding §3 builds FT(l+1, w) from w copies of FT(l, w)
// plus w^l new top switches. With m != w every new top switch still takes exactly one
// child from each copy, so FT(l+1, m, w) is built from m copies of FT(l, m, w) (one per
// down port of the new switches) plus w^l new top switches; for m = w this is the paper's
// construction. Consequences (all checked in tests/topology/test_ft.cpp):
//   * processing nodes (terminals): m^l;
//   * switches at level h: m^(l-1-h) w^h (Ding §2: w^(l-1) per level when m = w);
//   * FT(l, m, w) = XGFT(l; m,..,m; 1,w,..,w) — XGFT level h+1 is FT level h.
//
// Labels (Ding §2): switch SW(h, τ), τ written t_{l-2} .. t_0 (most significant first).
// Digits t_i with i >= h name the copy at each recursion step (base m; for m = w these
// are the paper's base-w digits); digits t_{h-1} .. t_0 are the up ports chosen on the
// way up from level 0 (base w; t_0 is the most recent one, Ding eq. 9). So
//   τ = Σ_{i>=h} t_i m^(i-h) w^h + Σ_{i<h} t_i w^i.
// Theorem 1 (generalised to m != w; for m = w it is Ding eq. 5): switch (h, τ) reaches
// through up port P the switch (h+1, (τ div (m w^h)) w^(h+1) + (τ mod w^h) w + P).
// Processing node n hangs off SW(0, n div m) at its down port n mod m (Ding Fig. 8:
// node 95 of FT(4,4,4) is on SW(0, 113)).
//
// Hardware ports (1-based, as XgftLabels documents for every XGFT):
//   port 1 + c       down to child c: for h = 0 the processing node m τ + c, for h > 0 the
//                    child in copy c (the child's digit t_{h-1} of level h-1, i.e. its
//                    copy digit)
//   port m + 1 + i   Ulink(h, τ, i) / Dlink(h, τ, i): the cable to the parent reached
//                    through up port i (Ding §3: Ulink is its upward, Dlink its downward
//                    channel)
//   terminal port 1  to its level-0 switch.
// Every switch has m + w ports; the up ports of the top level stay uncabled (a real
// (m+w)-port switch), as the k-ary n-tree generator does.
// Names: processing nodes "ft-h<n>" (zero padded), switches "ft-sw<h>-<t_{l-2}..t_0>"
// with one character per digit (0-9a-z) when m, w <= 36, else digits joined by '.';
// FT(1, m, w) has the single switch "ft-sw0".
// Node order: terminals by n, then switches level by level in τ order. The attached
// XgftLabels give each node its XGFT tuple (indexInLevel is the XGFT index, which differs
// from τ by the order of the w-digits: see ftTauToXgftIndex).
#pragma once

#include <cstdint>
#include <string>

#include "graph/network.h"

namespace routelab {

/// The shape of FT(l, m, w) and its label arithmetic.
struct FtShape {
  std::uint32_t levels = 0;    ///< l
  std::uint32_t children = 0;  ///< m
  std::uint32_t parents = 0;   ///< w

  std::uint64_t terminals() const;                           ///< m^l
  std::uint64_t switchesAtLevel(std::uint32_t level) const;  ///< m^(l-1-h) w^h
  /// Digit t_i of τ at level h (base m for i >= h, base w for i < h).
  std::uint32_t digit(std::uint32_t level, std::uint64_t tau, std::uint32_t position) const;
  /// Theorem 1: the level-(h+1) switch reached from SW(h, τ) through up port `port`.
  /// Precondition: h + 1 < l, port < w. O(h).
  std::uint64_t parent(std::uint32_t level, std::uint64_t tau, std::uint32_t port) const;
  /// XGFT index (XgftLabels::indexInLevel at XGFT level h+1) of SW(h, τ), and back. O(l).
  std::uint64_t tauToXgftIndex(std::uint32_t level, std::uint64_t tau) const;
  std::uint64_t xgftIndexToTau(std::uint32_t level, std::uint64_t index) const;
  /// "ft-sw<h>-<digits>" as documented above.
  std::string switchName(std::uint32_t level, std::uint64_t tau) const;
  /// XGFT(l; m..m; 1, w..w).
  XgftParams asXgft() const;
};

/// FT(l, m, w) as documented above. Throws SpecError when l, m or w is 0, when a switch
/// would need more than 254 ports (m + w) or the fabric more than 2^26 nodes.
/// O(nodes + cables).
Network makeFatTreeFt(std::uint32_t levels, std::uint32_t children, std::uint32_t parents);

}  // namespace routelab
