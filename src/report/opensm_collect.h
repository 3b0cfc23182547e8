// routelab/report/opensm_collect.h — OpenSM's own routing engines run on a fabric under
// ibsim, collected as an OpenSM engine directory (docs/FORMATS.md) and cached per fabric:
// what `routelab compare --opensm` ranks beside routelab's engines (docs/COMPARE.md "OpenSM's
// engines from one command").
//
// The work is done by the worker script scripts/opensm_engines.sh (installed beside the CLI
// as bin/routelab-opensm-engines, with its bin/opensm_lib.sh): it starts ibsim and OpenSM once
// per engine and stops them by PID. This module checks the tools, computes the cache key,
// runs the worker in a staging directory and renames the finished directory into the cache,
// so a cache entry is complete or absent. It never prints; progress goes to the callback.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/network.h"

namespace routelab {

/// A tool the collection needs and the Debian package that installs it.
struct OpenSmTool {
  std::string name;     ///< e.g. "opensm", "ibsim", "saquery"
  std::string package;  ///< e.g. "opensm", "ibsim-utils", "infiniband-diags"
};

/// The tools the worker runs: ibsim, ibsim-run (ibsim-utils), opensm (opensm), ibnetdiscover,
/// saquery (infiniband-diags).
const std::vector<OpenSmTool>& openSmTools();

/// `name` as found in the directories of `path` (a PATH value: ':'-separated; an empty entry
/// is the current directory): the first executable regular file; "" when there is none.
std::string findOnPath(const std::string& name, const std::string& path);

/// Throws IoError when a tool of openSmTools() is not on `path`, naming the tool, its Debian
/// package and the install command of all three packages.
void requireOpenSmTools(const std::string& path);

/// ${XDG_CACHE_HOME:-$HOME/.cache}/routelab/opensm from the given variables (an empty or
/// relative XDG_CACHE_HOME is ignored, as the XDG base directory specification says).
/// Throws IoError when both are unusable (no absolute XDG_CACHE_HOME, no HOME).
std::string defaultOpenSmCache(const std::string& xdgCacheHome, const std::string& home);

/// The cache key of a collection: 16 lowercase hex digits of FNV-1a 64 over the fabric's ibsim
/// net export, OpenSM's `--version` text and the worker's text (its engine list and every
/// engine's options live there, and in opensm_lib.sh, whose text is included too).
std::string openSmCacheKey(const std::string& netText, const std::string& opensmVersion, const std::string& workerText);

struct OpenSmCollectOptions {
  std::string worker;     ///< the worker script (bin/routelab-opensm-engines)
  std::string routelab;   ///< the routelab CLI the worker runs (`routelab topo --export net`)
  std::string cache;      ///< cache root: the directory is <cache>/<key>
  std::string path;       ///< PATH to find the tools on (and to run the worker with)
  std::string temporary;  ///< TMPDIR for the worker's scratch files ("" = the worker's default)
  std::string label;      ///< the fabric's name in the worker's messages and .error files
};

struct OpenSmCollection {
  std::string directory;      ///< the OpenSM engine directory, <cache>/<key>
  std::string key;            ///< openSmCacheKey
  std::string opensmVersion;  ///< first line of `opensm --version` with a version number
  bool reused = false;        ///< true: the cache held it, nothing was run
  double seconds = 0;         ///< wall time of the worker (0 when reused)
  std::string summary;        ///< the worker's last line ("...: ftree updn lash+sl ...")
};

/// OpenSM's engines on `network`: the cached directory when <cache>/<key> exists (holding
/// fabric.ibnetdiscover), else the worker's run, renamed into place when complete.
/// Throws IoError for a missing tool (requireOpenSmTools), a missing worker, an unusable
/// cache directory, and a worker that fails (its own message, e.g. "OpenSM did not bring the
/// subnet ... up", quoted); nothing is left in the cache then.
OpenSmCollection collectOpenSmEngines(const Network& network, const OpenSmCollectOptions& options,
                                      const std::function<void(const std::string&)>& progress = {});

}  // namespace routelab
