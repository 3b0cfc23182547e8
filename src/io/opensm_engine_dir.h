// routelab/io/opensm_engine_dir.h — an "OpenSM engine directory" (docs/FORMATS.md): the
// tables OpenSM's own routing engines computed for one fabric, as scripts/opensm_engines.sh
// writes them:
//
//   DIR/fabric.ibnetdiscover   the fabric as ibnetdiscover sees it, with the LIDs of all runs
//   DIR/<engine>.lfts          OpenSM's LFT dump of that engine's run (opensm -U format)
//   DIR/<engine>.sl            optional: `slid dlid sl` per ordered CA pair (SA PathRecord SL)
//   DIR/<engine>.error         instead of .lfts: OpenSM refused the engine, its reason as text
//   DIR/<engine>.options       optional: the OpenSM options of the run, one line (`-R
//                              lash,no_fallback -Q`; file names in it are files of DIR)
//
// Each file may also be stored gzipped (`<name>.gz`), and a dump's content may be gzipped
// under the plain name (readLftDump). Engine names are [A-Za-z0-9_-]+ (OpenSM's own names,
// torus-2QoS included); other files are ignored. `routelab compare --opensm-dir DIR` reads
// its OpenSM routings with this reader (docs/COMPARE.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "graph/network.h"
#include "io/lid_map.h"
#include "io/sl_table.h"
#include "routing/routing_result.h"

namespace routelab {

struct OpensmEngineRun {
  std::string engine;                                   ///< "ftree", "lash", ... (the file name's stem)
  std::string lftFile, slFile, errorFile, optionsFile;  ///< paths read ("" when absent)
  /// The engine's tables (readLftDump), with the SL file's layers applied (applySlTable,
  /// terminal pairs) when there is one; nullopt when OpenSM refused the engine.
  std::optional<RoutingResult> routing;
  std::optional<SlTable> sl;  ///< the SL file as read
  /// OpenSM's reason: the .error file, trimmed, its first 2000 characters; set iff refused.
  std::string error;
  /// The first line of the .options file, trimmed: what to give `opensm` to deploy this
  /// routing (e.g. "-R updn,no_fallback -a updn.roots"); "" when there is no such file.
  std::string opensmOptions;
  bool refused() const { return !routing.has_value(); }
};

/// The six engines scripts/opensm_engines.sh runs, in its order.
const std::vector<std::string>& opensmEngineNames();

/// Every engine of `dir` against `network` (the fabric of DIR/fabric.ibnetdiscover, e.g.
/// loadFabric("ibnetdiscover:DIR/fabric.ibnetdiscover")): the six of opensmEngineNames()
/// first in that order, then any other engine by name. Each routing's `engine` is
/// "opensm:<engine>". When `fabricLids` is not empty, every LID of every dump must be the
/// LID it gives that port (else RoutingError naming the dump, the LID and the node).
/// Errors: IoError "<shownAs>: not a readable directory", "<shownAs> holds no <engine>.lfts
/// or <engine>.error file", and, naming the directory and the engine, for an engine with
/// both .lfts and .error, an .sl or .options without .lfts or .error, or a file both plain
/// and gzipped; ParseError "<file>:<line>: ..." from the dumps and SL files; AnalysisError
/// when an SL file misses a CA pair (applySlTable). `shownAs` names the directory in the
/// first two messages (default: `dir`; compare gives "--opensm-dir 'DIR'").
std::vector<OpensmEngineRun> readOpensmEngineDir(const std::string& dir, const Network& network,
                                                 const LidMap& fabricLids = {}, const std::string& shownAs = "");

}  // namespace routelab
