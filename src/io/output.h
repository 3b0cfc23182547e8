// routelab/io/output.h — writing result files safely.
//
// Contract: writeFileAtomically() writes into "<path>.tmp-<pid>" and renames it over
// `path` only after the writer returned and the stream flushed without error, so a failure
// never leaves a half-written output file. Throws IoError naming the path.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

namespace routelab {

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& writer);

/// Whole file as a string; transparently gunzips files ending in ".gz" (or starting with
/// the gzip magic). Throws IoError naming the path.
std::string readFileText(const std::string& path);

}  // namespace routelab
