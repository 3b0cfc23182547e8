// routelab/topology/random_irregular.h — random irregular fabrics (Lysne et al. 2006 §8).
//
// Lysne, Skeie, Reinemo, Theiss, "Layered Routing in Irregular Networks", IEEE TPDS 2006:
// §5 (Fig. 3/4) and §8 evaluate random topologies of 16, 32, 64 (and 128) switches with
// "twice as many links as switches" and "one traffic node attached to each switch"; the
// paper states no switch radix. Their setting is therefore
//   random:switches=16,seed=<i>   (links defaults to 2 x switches, terminals to 1)
// for i = 1..16 (§8 averages over 16 topologies per size; §5 over 100).
//
// The construction is deliberately the one of gen_ibsim_net.py (tests/data/opensm/README.md)
// (random_irregular()), draw for draw, using a bit-exact copy of Python's random.Random
// (topology/python_random.h): with terminals = 1 the same (switches, links, radix, seed)
// gives exactly the fabric that script writes — same names, node order, cables and ports —
// so the ibsim/OpenSM fixture rnd16_s1 (`gen_ibsim_net.py random 16 --seed 1`) imports
// equal to `random:switches=16,links=32,terminals=1,radix=16,seed=1`.
//
// Construction (per attempt, at most 1000 attempts, one continuing random stream):
//   1. perm = shuffle(0..S-1); for idx = 1..S-1 connect perm[idx] to choice(eligible
//      earlier switches in perm order), eligible = fewer than (radix - terminals) switch
//      links: a random spanning tree, hence connected;
//   2. add links (a, b) with a, b = randrange(S), randrange(S), skipping self-loops,
//      existing pairs and full switches, until L links (attempt fails after 100000 draws).
// Result: a simple graph (no self-loops, no parallel cables), exactly L switch links,
// every switch with at most radix cabled ports.
//
// Ports and names: switch i ("rnd-sw<i>", zero padded to the width of S-1) has `radix`
// ports; its terminals use ports 1..t, its switch links ports t+1, t+2, ... in link
// creation order. Terminals are "rnd-h<i>" when t = 1 and "rnd-h<i>-<j>" (j = 0..t-1,
// zero padded) otherwise, each with one port. Node order: all terminals (by switch, then
// slot), then all switches, as the script writes its files (so GUIDs agree with ibsim).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "graph/network.h"

namespace routelab {

struct RandomIrregularParams {
  std::uint32_t switches = 16;
  std::optional<std::uint32_t> links;  ///< switch-to-switch links; unset = 2 * switches (Lysne §8)
  std::uint32_t terminals = 1;         ///< terminals per switch (Lysne §8: one)
  std::uint32_t radix = 16;            ///< ports per switch (gen_ibsim_net.py default)
  std::int64_t seed = 1;               ///< Python random.Random seed (sign ignored, as Python)
};

/// The cables between switches as (switch index a, switch index b) in creation order —
/// the core of makeRandomIrregular, exposed for tests and benchmarks. Throws SpecError
/// with gen_ibsim_net.py's conditions and wording plus the option values ("random: need
/// at least S-1 links for connectivity ('links' = 10 < 'switches' - 1 = 15)", "... too
/// many links for a simple graph ...", "... radix too small ...", "random: could not build
/// ..." after 1000 attempts). O(L + S log S) expected per attempt.
std::vector<std::pair<std::uint32_t, std::uint32_t>> randomIrregularSwitchLinks(const RandomIrregularParams& params);

/// A connected random irregular network, reproducible from the seed (see above).
/// Throws SpecError when the parameters are impossible.
Network makeRandomIrregular(const RandomIrregularParams& params);

}  // namespace routelab
