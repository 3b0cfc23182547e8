// routelab/io/lid_map.h — the LIDs a fabric already has (docs/FORMATS.md, "Fabric LIDs").
//
// A fabric discovered on a running subnet carries the LIDs its subnet manager assigned:
// `ibnetdiscover` prints them (switch header `... base port 0 lid <L> lmc <M>`, CA port line
// `[p](<port GUID>) ... # lid <L> lmc <M> ...`), and OpenSM keeps them in its LID cache
// (`guid2lid`: `0x<port GUID> 0x<base LID> 0x<last LID>` per port). An LFT dump or SL file
// computed for such a fabric must use these LIDs, or it cannot be loaded on it.
//
// Rule (withFabricLids): every node that owns addresses takes the base LID of its port —
// a switch its port 0 (port GUID = node GUID), a terminal the port of its link (port GUID =
// node GUID + port number, the ibsim/ConnectX numbering; an ibnetdiscover map also knows
// the port by node GUID and port number) — and its k-th address gets base + k, which needs
// k < 2^LMC of that port.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab {

struct LidMap {
  struct Entry {
    std::uint32_t lid = 0;  ///< base LID (1..0xBFFF)
    std::uint8_t lmc = 0;   ///< the port answers base .. base + 2^lmc - 1
    std::size_t line = 0;   ///< where it was read (messages)
  };
  std::string source;  ///< file name (messages)
  std::unordered_map<std::uint64_t, Entry> byPortGuid;
  /// (node GUID, port number; 0 for a switch) -> entry, from ibnetdiscover output only.
  std::unordered_map<std::uint64_t, std::unordered_map<std::uint32_t, Entry>> byNodePort;

  bool empty() const { return byPortGuid.empty() && byNodePort.empty(); }
  /// The entry of `node`'s port (see the rule above), or nullptr.
  const Entry* find(const Network& network, NodeId node) const;
};

/// OpenSM's `guid2lid` cache text. ParseError("<name>:<line>: <what>") for malformed lines,
/// a LID range that is not 2^k long and aligned (LMC), LIDs outside 1..0xBFFF, a GUID listed
/// twice, two ports sharing a LID.
LidMap parseGuid2Lid(const std::string& text, const std::string& name);
/// From a file (gzip transparently); IoError if unreadable.
LidMap readGuid2Lid(const std::string& path);

/// The LIDs printed in `ibnetdiscover` output (the file must already parse as a fabric).
/// LID 0 (a port the SM has not configured) counts as no LID; a file without any LID gives
/// an empty map. ParseError for LIDs outside 0..0xBFFF and two ports sharing a LID.
LidMap parseIbnetdiscoverLids(const std::string& text, const std::string& name);

/// `routing` with every address relabelled to the fabric's LID (rule above). RoutingError
/// naming the node if an address owner has no LID in `lids`, or owns more addresses than its
/// LMC gives; ParseError-free. The routing's tables and layers are unchanged.
RoutingResult withFabricLids(const Network& network, RoutingResult routing, const LidMap& lids);

/// The LID of every switch in `lids` (0 where none), indexed by switch index: the switch
/// headers of an LFT dump (writeLftDump).
std::vector<std::uint32_t> switchLids(const Network& network, const LidMap& lids);

}  // namespace routelab
