// routelab/report/opensm_directory.h — OpenSM's routings of a fabric, one file set per
// engine, to rank beside routelab's (`routelab compare --opensm-dir DIR`, docs/COMPARE.md):
//
//   DIR/<engine>.lfts   OpenSM LFT dump (io/lft_dump.h; `.gz` content transparently)
//   DIR/<engine>.sl     optional: per-pair SLs, lines `slid dlid sl` (io/sl_table.h, as
//                       `routelab verify --sl` reads them); SL = layer
//   DIR/<engine>.error  optional: OpenSM refused the engine; the text is the reason
//   DIR/<engine>.options optional: the OpenSM options of the run, one line (`-R lash,no_fallback
//                       -Q`; file names in it are files of DIR), as scripts/opensm_engines.sh
//                       writes it
//
// An engine with a `.error` file is refused whatever else is there.
#pragma once

#include <string>
#include <vector>

#include "graph/network.h"
#include "routing/routing_result.h"

namespace routelab {

struct ImportedRouting {
  std::string engine;  ///< <engine> of the file names
  bool refused = false;
  std::string reason;  ///< refused: the text of <engine>.error (trimmed, first 2000 characters)
  /// The first line of <engine>.options, trimmed: what to give `opensm` to deploy this
  /// routing (e.g. "-R updn,no_fallback -a updn.roots"); empty when there is no such file.
  std::string opensmOptions;
  RoutingResult routing;
};

/// The routings of `directory`, by engine name. Throws IoError when the directory cannot be
/// listed or holds no `.lfts` or `.error` file, and the readers' ParseError / IoError (with
/// file and line) for a dump or SL file that does not match `network`.
std::vector<ImportedRouting> importOpenSmDirectory(const std::string& directory, const Network& network);

}  // namespace routelab
