#include "report/deployment.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "core/errors.h"
#include "routing/lmc_tables.h"

namespace routelab {

namespace {

/// Most distinct tables one allowed-layer set spans: a source choosing among them sends one
/// pair's packets over that many paths.
std::uint32_t layerChoices(const RoutingResult& routing) {
  std::uint32_t most = 1;
  for (const std::uint16_t mask : routing.allowedLayers) {
    std::vector<std::uint16_t> tables;
    for (std::size_t layer = 0; layer < routing.tableOfLayer.size() && layer < 16; ++layer) {
      if ((mask >> layer & 1U) == 0) continue;
      if (std::find(tables.begin(), tables.end(), routing.tableOfLayer[layer]) == tables.end()) {
        tables.push_back(routing.tableOfLayer[layer]);
      }
    }
    most = std::max(most, static_cast<std::uint32_t>(tables.size()));
  }
  return most;
}

int kindRank(const DeploymentProfile& p) {
  if (p.kind == "deterministic") return 0;
  if (p.kind == "source-dependent") return 1;
  return p.kind == "multipath" ? 2 : 3;
}

auto costKey(const DeploymentProfile& p) {
  return std::make_tuple(p.vls, p.addressesPerTerminal, p.entriesPerSwitch, kindRank(p), !p.inOrder);
}

bool isFabricFile(const std::string& spec) {
  for (const char* kind : {"file:", "ibnetdiscover:", "net:", "json:"}) {
    if (spec.rfind(kind, 0) == 0) return true;
  }
  return false;
}

}  // namespace

DeploymentProfile deploymentProfile(const Network& network, const RoutingResult& routing, std::size_t vlsUsed) {
  DeploymentProfile p;
  p.escape = routing.escapeLayer >= 0;
  p.tables = static_cast<std::uint32_t>(std::max<std::size_t>(routing.tables.size(), 1));
  bool adaptiveTables = false;
  for (const ForwardingTable& table : routing.tables) {
    adaptiveTables = adaptiveTables || table.adaptive();
    p.maxCandidates = std::max(p.maxCandidates, static_cast<std::uint32_t>(table.maxCandidates()));
  }
  p.switchModel = adaptiveTables || p.escape ? SwitchModel::Adaptive : SwitchModel::Lft;
  std::uint32_t block = 1, paths = 1;
  for (const NodeId t : network.terminals()) {
    if (!routing.addresses.hasAddresses(t)) continue;
    block = std::max(block, routing.addresses.blockSize(t));
    paths = std::max(paths, routing.pathCount(t));
  }
  p.pathsPerPair = paths * layerChoices(routing);
  // The tables merged into one LFT take LID copies of each block (routing/lmc_tables.h).
  p.lmc = lmcOf(std::uint64_t{block} * lmcCopies(p.escape ? 1 : p.tables));
  p.addressesPerTerminal = p.lmc < 32 ? std::uint32_t{1} << p.lmc : 0;
  p.vls = vlsUsed > 0 ? vlsUsed : routing.layerCount();
  p.perPairSl = !p.escape && routing.layerCount() > 1 && p.vls > 1;
  p.lids = static_cast<std::uint64_t>(network.terminalCount()) * (std::uint64_t{1} << std::min(p.lmc, 40U)) +
           network.switchCount();
  p.entriesPerSwitch = p.lids;
  p.inOrder = p.switchModel == SwitchModel::Lft && p.pathsPerPair == 1;
  p.sourceClasses = std::max<std::uint32_t>(routing.sourceClasses, 1);
  p.kind = p.switchModel == SwitchModel::Adaptive ? "adaptive"
           : p.pathsPerPair > 1                   ? "multipath"
           : p.sourceClasses > 1                  ? "source-dependent"
                                                  : "deterministic";
  return p;
}

std::vector<std::string> routelabDeployCommands(const DeploymentProfile& profile, const std::string& fabricSpec,
                                                const std::string& engineSpec) {
  if (profile.switchModel == SwitchModel::Adaptive) return {};
  std::vector<std::string> commands;
  std::string fabric = fabricSpec;
  if (!isFabricFile(fabricSpec)) {
    commands.push_back(
        "ibnetdiscover > fabric.ibnetdiscover   # the running fabric, with the LIDs its subnet manager assigned");
    fabric = "file:fabric.ibnetdiscover";
  }
  commands.push_back(fmt::format("routelab route {} --engine '{}' --switch-addresses --export lft routing.lfts{}",
                                 fabric, engineSpec, profile.perPairSl ? " --export sl routing.sl" : ""));
  commands.push_back(fmt::format("opensm -R file -U routing.lfts{}{}",
                                 profile.lmc > 0 ? fmt::format(" --lmc {}", profile.lmc) : "",
                                 profile.perPairSl ? " -Q" : ""));
  if (profile.tables > 1) {
    commands.push_back(fmt::format(
        "give OpenSM routelab's LIDs (its {} tables are LID copies of one LFT, LMC {}) through its guid2lid "
        "cache before it loads routing.lfts (docs/ROUTING.md, \"Layered routings as LFT + SL file\")",
        profile.tables, profile.lmc));
  }
  if (profile.sourceClasses > 1) {
    commands.push_back(fmt::format(
        "make every source of class c send to destination d at LID base(d) + c ({} source classes: routelab route "
        "--format json gives source_classes; the subnet manager's path records do not apply this rule)",
        profile.sourceClasses));
  }
  if (profile.pathsPerPair > 1) {
    commands.push_back(
        fmt::format("let the sources spread each pair's packets over its {} destination LIDs", profile.pathsPerPair));
  }
  if (profile.perPairSl) {
    commands.push_back(
        fmt::format("give each pair the SL of routing.sl (slid dlid sl; {} SLs, each on its own VL) through the subnet "
                    "manager's QoS policy or the applications' path records",
                    profile.vls));
  }
  return commands;
}

void validateConstraints(const FabricConstraints& constraints) {
  if (constraints.vls < 1 || constraints.vls > FabricConstraints::kMaxVls) {
    throw SpecError(fmt::format("--vls {}: the data virtual lanes of a fabric are 1..{} (InfiniBand VL0-VL14)",
                                constraints.vls, FabricConstraints::kMaxVls));
  }
}

std::vector<std::string> constraintViolations(const DeploymentProfile& profile, const FabricConstraints& constraints) {
  validateConstraints(constraints);
  std::vector<std::string> reasons;
  if (profile.switchModel == SwitchModel::Adaptive && !constraints.adaptiveSwitches) {
    reasons.push_back(
        profile.escape
            ? "needs adaptive switches (escape routing: packets choose among outputs and change VL "
              "inside the fabric)"
            : fmt::format("needs adaptive switches (up to {} outputs per destination)", profile.maxCandidates));
  }
  if (profile.vls > constraints.vls) {
    reasons.push_back(fmt::format("needs {} VLs, {} available", profile.vls, constraints.vls));
  }
  if (constraints.inOrder && !profile.inOrder) {
    reasons.push_back(
        fmt::format("delivers out of order ({} paths per pair): needs reorder buffers",
                    profile.kind == "adaptive" ? std::string("adaptive") : std::to_string(profile.pathsPerPair)));
  }
  if (profile.lmc > kMaxLmc) {
    reasons.push_back(fmt::format("needs {} addresses per terminal (LMC {}), InfiniBand allows at most {} (LMC {})",
                                  std::uint64_t{1} << std::min(profile.lmc, 63U), profile.lmc, 1U << kMaxLmc, kMaxLmc));
  }
  if (profile.lids > kUnicastLids) {
    reasons.push_back(fmt::format("needs {} unicast LIDs, InfiniBand has {}", profile.lids, kUnicastLids));
  }
  return reasons;
}

bool cheaperToDeploy(const DeploymentProfile& a, const DeploymentProfile& b) { return costKey(a) < costKey(b); }

bool sameDeploymentCost(const DeploymentProfile& a, const DeploymentProfile& b) { return costKey(a) == costKey(b); }

}  // namespace routelab
