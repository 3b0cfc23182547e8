// routelab compare --opensm: OpenSM's engines on the compared fabric, from the cache or run
// under ibsim by the worker beside this binary (report/opensm_collect.h, docs/COMPARE.md).
#pragma once

#include <string>

namespace routelab::cli {

/// The OpenSM engine directory of fabric `spec` for --opensm-dir: collected, or reused from
/// `cache` (empty: ${XDG_CACHE_HOME:-$HOME/.cache}/routelab/opensm). Prints one progress line
/// on stderr unless `quiet`. Throws routelab::IoError (exit 1) for a missing tool (naming its
/// Debian package) or a fabric OpenSM cannot bring up.
std::string collectOpenSmForCompare(const std::string& spec, const std::string& cache, bool quiet);

}  // namespace routelab::cli
