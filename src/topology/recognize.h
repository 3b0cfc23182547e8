// routelab/topology/recognize.h — recognising fat-trees in imported fabrics.
//
// An imported fabric (ibsim net, ibnetdiscover, JSON without labels) carries no XGFT
// labels, so the fat-tree engines could not run on it. recognizeFatTree() finds them when
// the fabric is an XGFT (Öhring et al.; k-ary n-trees of Gómez et al. §2, T(n+m, r) of
// Nienaber et al. §II, FT(l, m, w) of Ding et al. §2-3 and general XGFTs) cabled with
// the hardware-port convention documented in graph/xgft_labels.h — the convention of our
// generators and of gen_ibsim_net.py (tests/data/opensm/README.md):
//   level-l switch: ports 1..m_l down (port 1+c to the child whose x_l = c),
//                   ports m_l+1..m_l+w_{l+1} up (port m_l+1+b to the parent whose x_{l+1} = b);
//   terminal:       ports 1..w_1 up.
// Ports beyond the used radix may exist but must be uncabled.
#pragma once

#include <optional>

#include "graph/network.h"

namespace routelab {

/// A copy of `network` with XgftLabels attached (validated by checkXgftLabels) if it is
/// an XGFT cabled with the documented port convention; nullopt otherwise (also when it
/// already has labels it returns a copy with freshly derived ones). Levels are the hop
/// distances from the terminals; node tuples are read off the port numbers (down port
/// 1+c of a parent gives its child's digit x_{l+1} = c, up port m_l+1+b of a child gives
/// its parent's digit x_l = b). The family is "kary-ntree" (XGFT(n; k..k; 1,k..k) on
/// 2k-port switches), "ft" (XGFT(l; m..m; 1,w..w) on (m+w)-port switches), "gft2"
/// (XGFT(2; n,r; 1,m) with (n+m)-port leaves and r-port tops) or else "xgft".
/// O((nodes + channels) * height).
std::optional<Network> recognizeFatTree(const Network& network);

}  // namespace routelab
