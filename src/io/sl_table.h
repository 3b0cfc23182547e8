// routelab/io/sl_table.h — per-pair service levels (layers) of an imported routing.
//
// Format (tests/data/opensm/README.md: `pathsl.<engine>.txt`, `dfsssp-vl-table.txt`):
// one line `slid dlid sl` per ordered pair, decimal LIDs and SL (or VL) 0..15; `#` starts
// a comment; blank lines are ignored; `NA` as SL means "no answer" (the pair stays without
// a layer). The SL is the layer: SL2VL is the identity in the fixtures (README, "SL = VL
// for SL 0-7"), and DFSSSP's table already holds VLs.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab {

struct SlTable {
  struct Entry {
    std::uint32_t slid = 0;
    std::uint32_t dlid = 0;
    std::uint8_t sl = 0;
    bool answered = true;  ///< false for `NA`
    std::size_t line = 0;
  };
  std::string name;  ///< file name (for messages)
  std::vector<Entry> entries;
};

/// Parse SL table text; ParseError("<name>:<line>: <what>") on malformed lines.
SlTable parseSlTable(const std::string& text, const std::string& name);
/// Read a file (gzip transparently); IoError if it cannot be read.
SlTable readSlTable(const std::string& path);

/// `routing` with its layer per (source, address) taken from `table` (layer = SL) and
/// layerCount = max SL + 1 (every layer uses the routing's single table; a routing with
/// one table per layer must already have enough layers). Pairs absent from the table are
/// marked as carrying no traffic (RoutingResult::kNoLayer) — but every pair in scope
/// (terminal pairs, plus switch pairs when `switchPairs`) must be present with at least one
/// LID of the destination (with LMC a source picks one DLID; the destination's other LIDs
/// then carry none of that source's traffic): otherwise AnalysisError naming the pair. ParseError (with the line) for
/// unknown LIDs and for a pair listed twice with different SLs.
RoutingResult applySlTable(const Network& network, RoutingResult routing, const SlTable& table, bool switchPairs);

/// The SL table of `routing`'s terminal traffic in the format above: one line per (source
/// terminal, address of another terminal) pair that carries traffic (RoutingResult::sends),
/// slid = the source's first LID, dlid = the address's LID, SL = the pair's layer. Read back
/// with applySlTable on the same LIDs, it gives the same layer per pair. Multi-table
/// routings are first merged (routing/lmc_tables.h) so that LIDs select the table.
void writeSlTable(const Network& network, const RoutingResult& routing, std::ostream& out);

}  // namespace routelab
