#include "sim/sim_options.h"

#include <fmt/format.h>

#include "core/errors.h"
#include "sim/arbitration/registry.h"
#include "sim/component_rows.h"
#include "sim/selection/registry.h"
#include "sim/sim_json.h"

namespace routelab {

// Long function: it must stay whole, one table with one row per option of `simulate` in the
// order --help prints them; split in parts, it would hide that order and let a row be declared twice.
const OptionSchema& simConfigRows() {
  // One row per option; the defaults are SimConfig's (sim/model.h).
  static const OptionSchema rows = {
      {"traffic",
       OptionType::String,
       "uniform",
       "uniform | uniform-hot-spot:fraction=F[,target=T] | a traffic pattern spec",
       false,
       "",
       "",
       false,
       {},
       "docs/SIMULATION.md \"Traffic\""},
      {"load",
       OptionType::Real,
       "0.1",
       "offered load in flits per terminal per cycle",
       false,
       "0",
       "1",
       true,
       {},
       "Gomez et al. 2007 §5.1"},
      {"seed", OptionType::Integer, "1", "seed of every random choice", false, "0", "9223372036854775807"},
      {"packet-flits",
       OptionType::Integer,
       "8",
       "flits per packet",
       false,
       "1",
       "4096",
       false,
       {},
       "Gomez et al. 2007 §5.1"},
      {"vcs",
       OptionType::Integer,
       "0",
       "virtual channels per link (0: one per routing layer)",
       false,
       "0",
       "64",
       false,
       {},
       "sim/model.h"},
      {"buffer-packets",
       OptionType::Integer,
       "2",
       "packets per VC queue",
       false,
       "1",
       "1024",
       false,
       {},
       "Gomez et al. 2007 §5.1"},
      {"routing-delay",
       OptionType::Integer,
       "20",
       "cycles from head arrival to the crossbar request",
       false,
       "0",
       "100000",
       false,
       {},
       "Gomez et al. 2007 §5.1"},
      {"fly-time",
       OptionType::Integer,
       "8",
       "cycles on a link",
       false,
       "1",
       "100000",
       false,
       {},
       "Gomez et al. 2007 §5.1"},
      {"selection", OptionType::String, "sadp",
       sim::selectionNames() + " (docs/SIMULATION.md \"Components\": the adaptive ones choose among the free "
                               "candidates; oblivious draws one per packet and hop and waits for it)",
       false, "", "", false, sim::rowNameList(sim::selectionRegistry()), "Gomez et al. 2007 §5.1"},
      {"arbitration", OptionType::String, "round-robin",
       "switch allocation: " + sim::arbitrationNames() + " (docs/SIMULATION.md \"Arbitration and fairness\")", false,
       "", "", false, sim::rowNameList(sim::arbitrationRegistry()), "docs/SIMULATION.md \"Arbitration and fairness\""},
      {"paths",
       OptionType::String,
       "random",
       "multipath sources: random | round-robin | adaptive",
       false,
       "",
       "",
       false,
       {"random", "round-robin", "adaptive"},
       "docs/SIMULATION.md"},
      {"injection",
       OptionType::String,
       "bernoulli",
       "bernoulli | poisson",
       false,
       "",
       "",
       false,
       {"bernoulli", "poisson"},
       "sim/model.h"},
      {"message-packets", OptionType::Integer, "1", "packets per message", false, "1", "1048576"},
      {"in-order",
       OptionType::Flag,
       "false",
       "in-order delivery: reorder buffers + end-to-end flow control",
       false,
       "",
       "",
       false,
       {},
       "Gomez et al. 2007 §5.1"},
      {"reorder-buffer", OptionType::Integer, "64", "reorder buffer per destination, packets (in-order only)", false,
       "1", "1073741824"},
      {"cycles", OptionType::Integer, "10000", "measured cycles", false, "1", "1099511627776"},
      {"warmup",
       OptionType::Integer,
       "0",
       "warm-up cycles (0: until latency is stable)",
       false,
       "0",
       "1099511627776",
       false,
       {},
       "docs/SIMULATION.md \"Warm-up\""},
      {"watchdog", OptionType::Integer, "20000", "cycles without movement that mean deadlock", false, "1",
       "1099511627776"},
      {"check", OptionType::Flag, "false",
       "check the simulator's invariants every cycle (with threads > 1: between windows; slow)"},
  };
  return rows;
}

SimConfig simConfigFromOptions(const Options& o) {
  SimConfig c;
  c.traffic = o.string("traffic");
  c.load = o.real("load");
  c.seed = static_cast<std::uint64_t>(o.integer("seed"));
  c.packetFlits = static_cast<std::uint32_t>(o.integer("packet-flits"));
  c.vcs = static_cast<std::uint32_t>(o.integer("vcs"));
  c.bufferPackets = static_cast<std::uint32_t>(o.integer("buffer-packets"));
  c.routingDelay = static_cast<std::uint32_t>(o.integer("routing-delay"));
  c.flyTime = static_cast<std::uint32_t>(o.integer("fly-time"));
  c.selection = parseSelection(o.string("selection"), "selection");
  c.arbitration = parseArbitration(o.string("arbitration"), "arbitration");
  c.pathPolicy = parsePathPolicy(o.string("paths"), "paths");
  c.injection = parseInjection(o.string("injection"), "injection");
  c.messagePackets = static_cast<std::uint32_t>(o.integer("message-packets"));
  c.inOrder = o.flag("in-order");
  c.reorderPackets = static_cast<std::uint32_t>(o.integer("reorder-buffer"));
  c.measureCycles = static_cast<std::uint64_t>(o.integer("cycles"));
  c.warmupCycles = static_cast<std::uint64_t>(o.integer("warmup"));
  c.watchdogCycles = static_cast<std::uint64_t>(o.integer("watchdog"));
  c.checkInvariants = o.flag("check");
  return c;
}

void validateSimConfig(const SimConfig& c, bool withTrace) {
  // Setting every bounded field through Options applies the rows' ranges (one check, one
  // message): "simulate: packet-flits must lie in [1, 4096] (got 5000)".
  Options o("simulate", simConfigRows());
  if (!withTrace) o.set("load", fmt::format("{}", c.load));
  if (!withTrace) o.set("cycles", std::to_string(c.measureCycles));
  o.set("packet-flits", std::to_string(c.packetFlits));
  o.set("vcs", std::to_string(c.vcs));
  o.set("buffer-packets", std::to_string(c.bufferPackets));
  o.set("routing-delay", std::to_string(c.routingDelay));
  o.set("fly-time", std::to_string(c.flyTime));
  o.set("message-packets", std::to_string(c.messagePackets));
  if (c.inOrder) o.set("reorder-buffer", std::to_string(c.reorderPackets));
  o.set("watchdog", std::to_string(c.watchdogCycles));
}

}  // namespace routelab
