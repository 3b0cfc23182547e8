// routelab/topology/xgft.h — generators of the fat-tree families as XGFTs.
//
// Every generator returns a Network with XgftLabels attached (graph/xgft_labels.h) so the
// fat-tree engines can compute on the papers' numbering. Node order: all terminals first
// (by index in level), then switches level by level — the order in which
// gen_ibsim_net.py (tests/data/opensm/README.md) writes its files, so ibsim assigns the same GUIDs and
// imported fixtures compare node by node.
#pragma once

#include <cstdint>

#include "graph/network.h"

namespace routelab {

/// XGFT(h; m_1..m_h; w_1..w_h). Names "xg-h<i>" for terminals and "xg-l<level>-<i>" for
/// switches. Every switch is given exactly the ports it uses (m_l + w_{l+1}).
/// Throws SpecError for h = 0, empty/mismatched lists, zero entries, radix > 254 or more
/// than 2^26 nodes.
Network makeXgft(const XgftParams& params);

/// k-ary n-tree (Gómez §2): N = k^n terminals, n k^(n-1) switches with 2k ports (top stage
/// up ports left unconnected, as real 2k-port switches). XGFT(n; k..k; 1,k..k).
/// Names as gen_ibsim_net.py: "kt-h<h>" (zero padded), "kt-s<s>-<o_0 o_1 ...>" (digits
/// 0-9a-z; for k > 36 decimal digits joined by '.').
Network makeKaryNtree(std::uint32_t k, std::uint32_t n);

/// T(n+m, r) (Nienaber §II): r bottom switches BSW_i with n nodes each, m top switches TSW_j,
/// one cable BSW_i — TSW_j for every (i, j). XGFT(2; n, r; 1, m). Full bisection when n = m,
/// slimmed when m < n, fatted when m > n. Names as gen_ibsim_net.py: "gft-h<i>-<p>",
/// "gft-leaf<i>", "gft-top<j>"; leaves have n+m ports, tops r ports.
Network makeGft2(std::uint32_t n, std::uint32_t m, std::uint32_t r);

}  // namespace routelab
