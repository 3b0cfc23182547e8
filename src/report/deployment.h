// routelab/report/deployment.h — what a fabric must offer to run a routing, and how to deploy
// it (docs/COMPARE.md "Deployment model").
//
// The profile is computed from the routing value alone (routing/routing_result.h), whoever
// made it (a routelab engine, OpenSM, an LFT dump):
//   * switch model — an entry with one output per destination address is what an InfiniBand
//     linear forwarding table (LFT) holds; an entry with several candidates, or an escape
//     layer (Duato: packets change virtual lane inside the fabric), needs switches that choose
//     among several outputs per packet (adaptive switches);
//   * addresses per terminal — the LID block of a terminal (LMC = log2 of it, InfiniBand allows
//     at most 7); a routing with several tables (LASH's per-layer tables) is deployed as one LFT
//     with one LID copy per table (routing/lmc_tables.h), which multiplies the block;
//   * VLs — the layers the traffic uses (verify: OpenSM's "VLs needed"); with more than one
//     layer and no escape layer, the subnet manager hands out one SL per pair;
//   * table entries per switch — the LIDs every switch's LFT must route (terminal blocks plus one
//     LID per switch, as OpenSM assigns them);
//   * in-order delivery by construction — every pair's packets follow one path: deterministic
//     tables, one address per pair, one layer per pair.
// Constraints (FabricConstraints) say what the fabric offers; constraintViolations() lists,
// in words, what a routing needs beyond them ("needs 3 VLs, 2 available").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab {

/// What the fabric offers (compare's --vls, --adaptive-switches, --in-order).
struct FabricConstraints {
  static constexpr std::uint32_t kMaxVls = 15;  ///< InfiniBand data VLs (VL15 is management)
  std::uint32_t vls = 8;                        ///< data virtual lanes, 1..kMaxVls
  bool adaptiveSwitches = false;                ///< switches may choose among several outputs per packet
  bool inOrder = false;                         ///< the application needs in-order delivery
};

/// InfiniBand limits every profile is checked against, whatever the constraints.
inline constexpr std::uint32_t kMaxLmc = 7;            ///< LMC: at most 128 LIDs per port
inline constexpr std::uint64_t kUnicastLids = 0xBFFF;  ///< unicast LIDs 1..0xBFFF (49,151)

/// The switch behaviour a routing needs.
enum class SwitchModel { Lft, Adaptive };

struct DeploymentProfile {
  SwitchModel switchModel = SwitchModel::Lft;
  bool escape = false;                     ///< packets change layer inside the fabric (Duato)
  std::uint32_t tables = 1;                ///< forwarding tables (one LID copy each when merged)
  std::uint32_t addressesPerTerminal = 1;  ///< LIDs a terminal needs on the wire (2^lmc)
  std::uint32_t lmc = 0;                   ///< InfiniBand LMC for that block
  std::uint32_t pathsPerPair = 1;          ///< paths a source spreads one pair's packets over
  /// Source-dependent addressing (S-mod-k, OPT: RoutingResult::sourceClasses > 1): a source
  /// of class c must send to destination d at LID base(d) + c, a rule the hosts apply (the
  /// subnet manager's path records do not know it).
  std::uint32_t sourceClasses = 1;
  std::uint32_t maxCandidates = 1;     ///< most outputs one table entry offers
  std::size_t vls = 1;                 ///< layers (VLs) the traffic uses
  bool perPairSl = false;              ///< the subnet manager must give each pair its SL
  std::uint64_t lids = 0;              ///< unicast LIDs the fabric needs (terminals and switches)
  std::uint64_t entriesPerSwitch = 0;  ///< LFT entries every switch holds (= lids)
  bool inOrder = true;                 ///< in-order delivery by construction
  /// "deterministic" (one path per pair, any source uses the destination's base LID),
  /// "source-dependent" (one path per pair, the source picks the LID of its class),
  /// "multipath" (several LIDs per destination, the source spreads packets over them) or
  /// "adaptive" (the switches choose).
  std::string kind = "deterministic";
  /// How to deploy it, one command or instruction per line (empty: no subnet manager can).
  std::vector<std::string> deploy;
};

/// The profile of `routing` on `network`; `vlsUsed` is the verifier's layers used (0: take
/// the routing's layer count). O(switches x addresses) for the candidate scan.
DeploymentProfile deploymentProfile(const Network& network, const RoutingResult& routing, std::size_t vlsUsed);

/// The deploy commands of a routelab routing computed by `engineSpec` on `fabricSpec`: export
/// its LFT (and SL file) with `routelab route`, load it with OpenSM's file engine. Empty when
/// no subnet manager can configure it (adaptive switches needed).
std::vector<std::string> routelabDeployCommands(const DeploymentProfile& profile, const std::string& fabricSpec,
                                                const std::string& engineSpec);

/// What `profile` needs beyond `constraints` and InfiniBand's limits, one phrase each
/// ("needs 3 VLs, 2 available"); empty = deployable here. Throws SpecError when the
/// constraints are impossible (vls outside 1..15).
std::vector<std::string> constraintViolations(const DeploymentProfile& profile, const FabricConstraints& constraints);

/// Throws SpecError naming the value when `constraints` are impossible (vls outside 1..15).
void validateConstraints(const FabricConstraints& constraints);

/// Deployment cost, lower first: fewer VLs, fewer addresses per terminal, smaller tables,
/// deterministic before source-dependent before multipath before adaptive, in order by
/// construction (docs/COMPARE.md).
bool cheaperToDeploy(const DeploymentProfile& a, const DeploymentProfile& b);
/// Equal in every cost criterion of cheaperToDeploy().
bool sameDeploymentCost(const DeploymentProfile& a, const DeploymentProfile& b);

}  // namespace routelab
