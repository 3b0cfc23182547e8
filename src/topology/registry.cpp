#include "topology/registry.h"

#include <limits>

#include "core/errors.h"
#include "topology/faults.h"
#include "topology/ft.h"
#include "topology/random_irregular.h"
#include "topology/xgft.h"

namespace routelab {

namespace {

std::uint32_t u32(const Options& options, const std::string& key, std::int64_t low = 1) {
  return static_cast<std::uint32_t>(options.integerIn(key, low, std::numeric_limits<std::int32_t>::max()));
}

std::vector<std::uint32_t> list(const Options& options, const std::string& key) {
  std::vector<std::uint32_t> out;
  for (std::int64_t v : options.integerList(key)) {
    if (v < 1 || v > 65535)
      throw SpecError(options.component() + ": every entry of '" + key + "' must be in [1, 65535]");
    out.push_back(static_cast<std::uint32_t>(v));
  }
  return out;
}

}  // namespace

const Registry<TopologyFactory>& topologyRegistry() {
  static const Registry<TopologyFactory> registry(
      "topology",
      {
          {"kary-ntree",
           "k-ary n-tree: k^n terminals, n k^(n-1) switches of 2k ports",
           "Gómez et al. 2007 §2",
           {{"k", OptionType::Integer, "", "arity (down ports per switch)", true},
            {"n", OptionType::Integer, "", "stages", true}},
           [](const Options& o) { return makeKaryNtree(u32(o, "k"), u32(o, "n")); }},
          {"gft2",
           "2-level generalized fat-tree T(n+m, r): r leaves of n nodes, m tops",
           "Nienaber et al. 2011 §II",
           {{"n", OptionType::Integer, "", "nodes per bottom switch", true},
            {"m", OptionType::Integer, "", "top switches (up links per bottom switch)", true},
            {"r", OptionType::Integer, "", "bottom switches", true}},
           [](const Options& o) { return makeGft2(u32(o, "n"), u32(o, "m"), u32(o, "r")); }},
          {"ft",
           "FT(l, m, w): l switch levels, m children and w parents per switch",
           "Ding et al. 2006 §2-3",
           {{"l", OptionType::Integer, "", "levels of switches", true},
            {"m", OptionType::Integer, "", "children per switch", true},
            {"w", OptionType::Integer, "", "parents per switch", true}},
           [](const Options& o) { return makeFatTreeFt(u32(o, "l"), u32(o, "m"), u32(o, "w")); }},
          {"xgft",
           "extended generalized fat-tree XGFT(h; m1..mh; w1..wh)",
           "Öhring et al. 1995",
           {{"h", OptionType::Integer, "", "height (switch levels)", true},
            {"m", OptionType::IntegerList, "", "children per level, '.'-separated (m1.m2...)", true},
            {"w", OptionType::IntegerList, "", "parents per level, '.'-separated (w1.w2...)", true}},
           [](const Options& o) {
             XgftParams params{list(o, "m"), list(o, "w")};
             const auto h = static_cast<std::size_t>(o.integerIn("h", 1, 16));
             if (params.m.size() != h || params.w.size() != h) {
               throw SpecError("xgft: m and w must each have h entries");
             }
             return makeXgft(params);
           }},
          {"random",
           "random irregular fabric (spanning tree + random links), connected, seeded; "
           "same draws as gen_ibsim_net.py",
           "Lysne et al. 2006 §8",
           {{"switches", OptionType::Integer, "", "number of switches S", true},
            {"links", OptionType::Integer, "", "switch-to-switch links (default 2 x switches, as Lysne §8)"},
            {"terminals", OptionType::Integer, "1", "terminals per switch, on ports 1..terminals (Lysne §8: 1)"},
            {"radix", OptionType::Integer, "16", "ports per switch (terminal ports included)"},
            {"seed", OptionType::Integer, "1", "seed of Python's random.Random (same fabric as gen_ibsim_net.py)"}},
           [](const Options& o) {
             RandomIrregularParams p;
             p.switches = u32(o, "switches");
             if (o.has("links")) p.links = u32(o, "links", 0);
             p.terminals = u32(o, "terminals", 0);
             p.radix = u32(o, "radix");
             p.seed = o.integerIn("seed", 0, std::numeric_limits<std::int64_t>::max());
             return makeRandomIrregular(p);
           }},
      });
  return registry;
}

}  // namespace routelab
