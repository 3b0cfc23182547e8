// routelab compare [SPEC] — the main job: every applicable routing engine on one fabric,
// verified, analysed and ranked; a table here and a self-contained HTML report in --output
// (report/comparison.h, report/html.h, docs/COMPARE.md). parse (the request's flags,
// request/compare_request.h) -> runCompare -> the report, compare.json and the table or JSON.
//
// Exit codes: 0 the comparison was made (whatever the engines' verdicts); 1 bad input (spec,
// unknown engine, unreadable --opensm-dir, unwritable --output, --opensm without OpenSM or on a
// fabric it cannot bring up); 2 usage (a value outside its row's range: `--vls 16`).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <system_error>

#include <unistd.h>

#include "cli.h"
#include "cli_schema.h"
#include "compare_opensm.h"
#include "core/errors.h"
#include "gnuplot.h"
#include "io/output.h"
#include "report/comparison.h"
#include "report/html.h"
#include "request/compare_request.h"

namespace routelab::cli {

namespace {

// The request's flags are generated from compareSchema() (cli_schema.h; `--engine` is an
// alias of the repeatable `--engines`); the others choose where and how the decision is
// written, and --opensm collects OpenSM's engines into the request's opensm-dir first.
struct CompareArgs {
  RequestFlags flags{"compare", {}};
  std::string output = "routelab-report";
  std::string format = "text";
  bool quiet = false;
  bool opensm = false;      ///< --opensm: collect OpenSM's engines (compare_opensm.h)
  std::string opensmCache;  ///< --opensm-cache
};

/// The command line as typed (Linux /proc/self/cmdline), else the words routelab parsed.
std::string commandLine(const std::string& spec) {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string line;
  std::string word;
  for (const char c : raw) {
    if (c != '\0') {
      word += c;
      continue;
    }
    const bool plain = !word.empty() && word.find_first_of(" \t'\"$\\;&|<>()*?") == std::string::npos;
    line += (line.empty() ? "" : " ") + (plain ? word : "'" + word + "'");
    word.clear();
  }
  if (!line.empty()) return line;
  return "routelab compare " + spec;
}

/// Characters on screen of UTF-8 text (continuation bytes do not count).
std::size_t displayWidth(const std::string& text) {
  std::size_t width = 0;
  for (const char c : text) width += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return width;
}

void printTable(const Comparison& comparison) {
  const auto rows = rankingTable(comparison);
  std::vector<std::size_t> widths(rows.front().size(), 0);
  auto refused = [](const std::vector<std::string>& row) { return row[2] == "refused"; };
  for (const auto& row : rows) {
    // A refused row fills the rank and engine columns; its reason starts in the kind column.
    const std::size_t columns = refused(row) ? 2 : row.size() - 1;
    for (std::size_t k = 0; k < columns; ++k) widths[k] = std::max(widths[k], displayWidth(row[k]));
  }
  for (const auto& row : rows) {
    if (refused(row)) {
      fmt::print("{}{}  {}{}  refused: {}\n", row[0], std::string(widths[0] - displayWidth(row[0]), ' '), row[1],
                 std::string(widths[1] - displayWidth(row[1]), ' '), row.back());
      continue;
    }
    std::string line;
    for (std::size_t k = 0; k < row.size(); ++k) {
      const std::size_t pad = k + 1 < row.size() ? widths[k] - displayWidth(row[k]) : 0;
      line += row[k] + std::string(pad, ' ') + (k + 1 < row.size() ? "  " : "");
    }
    fmt::print("{}\n", line);
  }
}

/// Removes the output directory again when compare created it and fails before writing the
/// report (a bad fabric spec must not leave an empty directory behind).
class CreatedDirectory {
 public:
  explicit CreatedDirectory(std::string path) : path_(std::move(path)) {}
  CreatedDirectory(const CreatedDirectory&) = delete;
  CreatedDirectory& operator=(const CreatedDirectory&) = delete;
  ~CreatedDirectory() {
    if (path_.empty()) return;
    std::error_code error;
    for (std::filesystem::recursive_directory_iterator it(path_, error), end; !error && it != end;
         it.increment(error)) {
      if (!it->is_directory(error)) return;  // something was written: keep it all
    }
    if (!error) std::filesystem::remove_all(path_, error);
  }
  /// The topmost folder of `path` that does not exist yet (empty when `path` exists).
  static std::string firstMissing(const std::string& path) {
    std::error_code ignored;
    std::filesystem::path missing;
    for (std::filesystem::path p = std::filesystem::absolute(path, ignored);
         !p.empty() && !std::filesystem::exists(p, ignored); p = p.parent_path()) {
      missing = p;
      if (p == p.parent_path()) break;
    }
    return missing.string();
  }
  void keep() { path_.clear(); }

 private:
  std::string path_;
};

/// Creates the output directory now, so an unwritable --output fails before the work.
std::string prepareOutput(const std::string& directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error || !std::filesystem::is_directory(directory) || ::access(directory.c_str(), W_OK) != 0) {
    throw IoError(fmt::format("--output '{}': cannot create or write this directory{}", directory,
                              error ? " (" + error.message() + ")" : ""));
  }
  return (std::filesystem::path(directory) / "index.html").string();
}

void printConfiguration(const CompareOptions& o, const std::string& reportPath) {
  std::string engines;
  for (const std::string& e : comparedEngines(o)) engines += (engines.empty() ? "" : " ") + e;
  fmt::print("fabric      {}\nengines     {}{}\nseed        {}\n", o.spec, engines,
             o.engines.empty() ? " (every engine of the registry but file)" : "", o.seed);
  fmt::print("sampling    ABB/AFPB/ADB until the 99% half-width <= {} x mean, at most {} samples\n", o.precision,
             o.maxSamples);
  fmt::print("all-to-all  at most {} shifts (stage counts over the same pairs)\n", o.maxShifts);
  fmt::print(
      "detail      AFPB, ADB and split load models up to {} terminals; beyond, analysis up to {} addresses "
      "per terminal; generic engines on fat-trees up to {} switches\n",
      o.detailTerminals, o.maxAddressesPerTerminal, o.genericEngineSwitches);
  if (!o.opensmDirectory.empty()) fmt::print("opensm      {}\n", o.opensmDirectory);
  fmt::print("fabric has  {} VLs, {}{}\n", o.constraints.vls,
             o.constraints.adaptiveSwitches ? "adaptive switches" : "LFT switches (one output per destination)",
             o.constraints.inOrder ? ", in-order delivery required" : "");
  fmt::print(
      "simulation  {}\n",
      !o.simulate
          ? std::string("off (--no-simulate)")
          : fmt::format("the {} leading deployable routings and each relaxed constraint's best, on fabrics up to "
                        "{} terminals{}: {} cycles per point, saturation search with {} halvings",
                        o.simulateLeaders, o.simulateTerminals, o.simulateAlways ? " (--simulate: any size)" : "",
                        o.simulateCycles, o.simulateSteps));
  fmt::print("report      {}\n\n", reportPath);
  std::fflush(stdout);
}

// parse (the flags, validated by the library) -> runCompare -> the report, compare.json and
// the table or the library's JSON.
int runCompareCommand(const CompareArgs& args) {
  CompareRequest request = CompareRequest::fromValues(args.flags.values);
  if (args.opensm) {
    request.compare.opensmDirectory = collectOpenSmForCompare(request.compare.spec, args.opensmCache, args.quiet);
  }
  CreatedDirectory created(CreatedDirectory::firstMissing(args.output));
  const std::string reportPath = prepareOutput(args.output);
  const std::string jsonPath = (std::filesystem::path(args.output) / "compare.json").string();
  const bool json = args.format == "json";
  if (!json) printConfiguration(request.compare, reportPath);
  std::function<void(const std::string&)> progress;
  if (!args.quiet) progress = [](const std::string& message) { std::cerr << "compare: " << message << std::endl; };
  Comparison comparison = runCompare(request, {}, progress);
  comparison.commandLine = commandLine(request.compare.spec);
  comparison.version = fmt::format("routelab {} (C++ {}, {})", ROUTELAB_VERSION, __cplusplus, __VERSION__);
  const std::string jsonText = compareResultJson(comparison);
  const std::vector<RenderedFigure> figures = renderSvgFigures(comparisonFigures(comparison));
  writeFileAtomically(jsonPath, [&](std::ostream& out) { out << jsonText; });
  writeFileAtomically(reportPath, [&](std::ostream& out) { writeHtmlReport(comparison, figures, out); });
  created.keep();
  if (json) {
    fmt::print("{}", jsonText);
    return 0;
  }
  printTable(comparison);
  fmt::print("\n{}\n\nreport      {} and {} ({:.1f} s)\n", recommendation(comparison), reportPath, jsonPath,
             comparison.totalSeconds);
  return 0;
}

}  // namespace

Command compareCommand() {
  return {
      "compare", "the main job: every engine on one fabric, verified, analysed, ranked; HTML report",
      [](CLI::App& command) {
        auto args = std::make_shared<CompareArgs>();
        addRequestOptions(command, args->flags, {{"engines", "--engine"}}, {{"engines", kEngineListSeparator}});
        command.add_option("--output", args->output, "report directory (index.html)")->default_str("routelab-report");
        auto* opensm = command
                           .add_flag("--opensm", args->opensm,
                                     "run OpenSM's own engines on the fabric under ibsim (cached per fabric) and "
                                     "rank them too (the request's opensm-dir)")
                           ->excludes(command.get_option("--opensm-dir"));
        command
            .add_option("--opensm-cache", args->opensmCache,
                        "cache of --opensm (default: ${XDG_CACHE_HOME:-$HOME/.cache}/routelab/opensm)")
            ->needs(opensm);
        command.add_flag("--quiet", args->quiet, "no progress lines on stderr");
        command.add_option("--format", args->format, "terminal output: text (table) or json (the whole decision)")
            ->check(CLI::IsMember({"text", "json"}))
            ->default_str("text");
        return std::function<int()>([args] { return runCompareCommand(*args); });
      }};
}

}  // namespace routelab::cli
