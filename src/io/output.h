// routelab/io/output.h — writing result files safely.
//
// Contract: writeFileAtomically() writes into "<path>.tmp-<pid>" and renames it over
// `path` only after the writer returned and the stream flushed without error, so a failure
// never leaves a half-written output file. Throws IoError naming the path.
#pragma once

#include <cstddef>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace routelab {

void writeFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& writer);

/// One output file of writeFilesAtomically: its path and the function writing its content.
struct OutputFile {
  std::string path;
  std::function<void(std::ostream&)> writer;
};
/// Several output files, all or nothing: every writer writes its temporary first; only
/// when all succeeded are they renamed over their paths. A failure (a writer throwing, a
/// write error, a path named twice) removes every temporary and leaves no file behind.
/// Throws IoError naming the path (SpecError for a path named twice).
void writeFilesAtomically(const std::vector<OutputFile>& files);

/// One file of an export request (`--export KIND FILE` of the CLI, `export(kind, path)` of
/// the Python package): what to write and where.
struct ExportFile {
  std::string kind;
  std::string path;
};
/// The kinds as a list for messages: "a, b, c".
std::string joinKinds(const std::vector<std::string>& kinds);
/// Throws SpecError "export: unknown <noun> 'KIND' (a, b, ...)" for the first export whose
/// kind is not one of `kinds`; call it before writing anything.
void requireExportKinds(const std::vector<ExportFile>& exports, const std::vector<std::string>& kinds,
                        const std::string& noun);

/// Largest input file (and largest decompressed gzip content) the readers accept: 1 GiB.
/// The biggest fabric/LFT/SL files that fit the 24 GiB budget are far smaller
/// (docs/RELIABILITY.md, "Limits"); the cap turns a wrong file or a gzip bomb into an error.
inline constexpr std::size_t kMaxInputFileBytes = std::size_t{1} << 30;

/// Whole file as a string; transparently gunzips content starting with the gzip magic.
/// Regular files and pipes only: devices (/dev/zero), sockets and directories are refused.
/// Throws IoError naming the path (unreadable, not a regular file, larger than
/// kMaxInputFileBytes, corrupt or truncated gzip data).
std::string readFileText(const std::string& path);
/// Decompress gzip (or zlib) data held in memory; `name` is quoted in messages. Throws
/// IoError for corrupt or truncated data and for content beyond kMaxInputFileBytes.
std::string gunzipText(const std::string& compressed, const std::string& name);

}  // namespace routelab
