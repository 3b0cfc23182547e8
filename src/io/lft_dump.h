// routelab/io/lft_dump.h — OpenSM `opensm-lfts.dump` (linear forwarding tables), the format
// `opensm -R file -U FILE` loads (tests/data/opensm/README.md; OpenSM osm_dump.c
// dump_ucast_lfts):
//
//   Unicast lids [0-<max LID>] of switch Lid <LID> guid 0x<16 hex> ('<NodeDescription>'):
//   0x<LID, 4 hex> <port, 3 digits> # <Channel Adapter|Switch|Router> portguid 0x<16 hex>: '<desc>'
//   ...                                  (or "# unknown node and type"; entries 255 omitted)
//   <max LID> lids dumped
//
// One block per switch, in increasing switch GUID order.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>

#include "routing/routing_result.h"

namespace routelab {

/// Read a dump (".gz" transparently) against `network`. Switch blocks are matched by GUID,
/// else by NodeDescription; destination LIDs by port GUID (switch: its GUID; CA: node GUID +
/// port number, as ibsim numbers them), else by exact NodeDescription. Every LID seen
/// becomes an address with that LID (a node's LIDs form its block, LMC style); every
/// switch block becomes that switch's table row; entries without a route stay kNoRoute.
/// Throws ParseError "<file>:<line>: <what>" for malformed lines, unknown nodes, ports
/// beyond the switch's port count, duplicate blocks, conflicting LIDs; IoError if unreadable.
RoutingResult readLftDump(const std::string& path, const Network& network);
/// Same from text; `name` is quoted in messages.
RoutingResult parseLftDump(const std::string& text, const std::string& name, const Network& network);

/// Write `routing`'s table (one table; preferred ports) in the format above, LIDs from the
/// address map (default address + 1; the fabric's own with withFabricLids, io/lid_map.h).
/// A switch header gives `switchLids[switch index]` when that is given and not 0 (the
/// fabric's LIDs, io/lid_map.h switchLids), else the switch's own address's LID, else 0.
/// Throws RoutingError for layered multi-table routings and LIDs beyond 0xBFFF.
void writeLftDump(const Network& network, const RoutingResult& routing, std::ostream& out,
                  std::span<const std::uint32_t> switchLids = {});
/// The checks writeLftDump makes before writing anything (throws RoutingError).
void validateLftExport(const RoutingResult& routing);

}  // namespace routelab
