// routelab compare [SPEC] — the main job: every applicable routing engine on one fabric,
// verified, analysed and ranked; a table here and a self-contained HTML report in --output
// (report/comparison.h, report/html.h, docs/COMPARE.md).
//
// Exit codes: 0 the comparison was made (whatever the engines' verdicts); 1 bad input (spec,
// unknown engine, unreadable --opensm-dir, unwritable --output, --opensm without OpenSM or on a
// fabric it cannot bring up); 2 usage.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>

#include <unistd.h>

#include "cli.h"
#include "compare_opensm.h"
#include "core/errors.h"
#include "engines/registry.h"
#include "fabric/fabric.h"
#include "gnuplot.h"
#include "io/output.h"
#include "report/comparison.h"
#include "report/html.h"

namespace routelab::cli {

namespace {

constexpr const char* kDefaultFabric = "kary-ntree:k=4,n=3";

struct CompareArgs {
  CompareOptions options;
  std::string output = "routelab-report";
  std::string format = "text";
  bool quiet = false;
  bool noSimulate = false;
  bool opensm = false;      ///< --opensm: collect OpenSM's engines (compare_opensm.h)
  std::string opensmCache;  ///< --opensm-cache
};

/// The command line as typed (Linux /proc/self/cmdline), else the words routelab parsed.
std::string commandLine(const CompareArgs& args) {
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
  return "routelab compare " + args.options.spec;
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

void printConfiguration(const CompareArgs& args, const std::string& reportPath) {
  const CompareOptions& o = args.options;
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

int runCompare(CompareArgs& args) {
  validateConstraints(args.options.constraints);  // impossible constraints fail before any output
  if (args.noSimulate) args.options.simulate = false;
  if (args.opensm) {
    args.options.opensmDirectory = collectOpenSmForCompare(args.options.spec, args.opensmCache, args.quiet);
  }
  CreatedDirectory created(CreatedDirectory::firstMissing(args.output));
  const std::string reportPath = prepareOutput(args.output);
  const std::string jsonPath = (std::filesystem::path(args.output) / "compare.json").string();
  const bool json = args.format == "json";
  if (!json) printConfiguration(args, reportPath);
  if (!args.quiet) {
    args.options.progress = [](const std::string& message) { std::cerr << "compare: " << message << std::endl; };
  }
  Comparison comparison = compareEngines(args.options);
  comparison.commandLine = commandLine(args);
  comparison.version = fmt::format("routelab {} (C++ {}, {})", ROUTELAB_VERSION, __cplusplus, __VERSION__);
  const std::string jsonText = comparisonJson(comparison);
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

/// The constraints of the fabric and the simulator's evidence (docs/COMPARE.md).
void addDecisionOptions(CLI::App& command, CompareArgs& args) {
  command
      .add_option("--vls", args.options.constraints.vls,
                  "data virtual lanes the fabric has (1..15): routings needing more are not deployable")
      ->default_str("8");
  command.add_flag("--adaptive-switches", args.options.constraints.adaptiveSwitches,
                   "the switches may choose among several outputs per packet (InfiniBand LFTs cannot)");
  command.add_flag("--in-order", args.options.constraints.inOrder,
                   "the application needs in-order delivery: multipath and adaptive routings are not deployable");
  command.add_flag("--no-simulate", args.noSimulate, "no simulation of the leading routings");
  command.add_flag("--simulate", args.options.simulateAlways,
                   "simulate the leading routings whatever the fabric's size");
  command
      .add_option("--simulate-terminals", args.options.simulateTerminals,
                  "simulate the leading routings on fabrics up to this many terminals")
      ->check(unsignedDecimal())
      ->default_str(std::to_string(args.options.simulateTerminals));
  command
      .add_option("--simulate-leaders", args.options.simulateLeaders,
                  "deployable routings simulated (distinct tables, best first; plus each relaxed constraint's best)")
      ->check(unsignedDecimal(1, 64))
      ->default_str(std::to_string(args.options.simulateLeaders));
  command.add_option("--simulate-cycles", args.options.simulateCycles, "measured cycles per simulated point")
      ->check(unsignedDecimal(1, std::uint64_t{1} << 32))
      ->default_str(std::to_string(args.options.simulateCycles));
  command
      .add_option("--simulate-steps", args.options.simulateSteps,
                  "halvings of the saturation search on (0, 1] (resolution 0.99 / 2^steps)")
      ->check(CLI::Range(1, 20))
      ->default_str(std::to_string(args.options.simulateSteps));
}

}  // namespace

Command compareCommand() {
  return {
      "compare", "the main job: every engine on one fabric, verified, analysed, ranked; HTML report",
      [](CLI::App& command) {
        auto args = std::make_shared<CompareArgs>();
        args->options.spec = kDefaultFabric;
        command.add_option("spec", args->options.spec, "fabric spec or file (default: kary-ntree:k=4,n=3)");
        command.add_option("--engine", args->options.engines,
                           "engine spec to compare (repeatable; default: every engine of the registry)");
        command.add_option("--output", args->output, "report directory (index.html)")->default_str("routelab-report");
        auto* opensmDir =
            command.add_option("--opensm-dir", args->options.opensmDirectory,
                               "OpenSM routings to rank too: <engine>.lfts [+ <engine>.sl] or <engine>.error");
        auto* opensm =
            command
                .add_flag("--opensm", args->opensm,
                          "run OpenSM's own engines on the fabric under ibsim (cached per fabric) and rank them too")
                ->excludes(opensmDir);
        command
            .add_option("--opensm-cache", args->opensmCache,
                        "cache of --opensm (default: ${XDG_CACHE_HOME:-$HOME/.cache}/routelab/opensm)")
            ->needs(opensm);
        command.add_option("--seed", args->options.seed, "seed of engines and sampled patterns")
            ->check(unsignedDecimal())
            ->default_str("1");
        command.add_option("--precision", args->options.precision, "sampling: 99% half-width <= precision x mean")
            ->check(CLI::PositiveNumber)
            ->default_str("0.01");
        command.add_option("--max-samples", args->options.maxSamples, "sampling: at most this many samples")
            ->check(unsignedDecimal(2))
            ->default_str(std::to_string(args->options.maxSamples));
        command.add_option("--max-shifts", args->options.maxShifts, "all-to-all: at most this many shifts")
            ->check(unsignedDecimal(1, 1U << 20))
            ->default_str(std::to_string(args->options.maxShifts));
        command
            .add_option("--detail-terminals", args->options.detailTerminals,
                        "AFPB, ADB and the even-/best-split load models only up to this many terminals")
            ->check(unsignedDecimal())
            ->default_str(std::to_string(args->options.detailTerminals));
        command
            .add_option("--max-addresses-per-terminal", args->options.maxAddressesPerTerminal,
                        "above --detail-terminals, analyse routings up to this many addresses per terminal")
            ->check(unsignedDecimal())
            ->default_str(std::to_string(args->options.maxAddressesPerTerminal));
        command
            .add_option("--generic-engine-switches", args->options.genericEngineSwitches,
                        "on a fat-tree with more switches, leave the generic engines (minhop, updown, mroots, the "
                        "LASH family, escape) out of the default list")
            ->check(unsignedDecimal())
            ->default_str(std::to_string(args->options.genericEngineSwitches));
        command.add_option("--threads", args->options.threads, "worker threads (0 = every core)")
            ->check(CLI::NonNegativeNumber)
            ->default_str("0");
        command.add_flag("--quiet", args->quiet, "no progress lines on stderr");
        addDecisionOptions(command, *args);
        command.add_option("--format", args->format, "terminal output: text (table) or json (the whole decision)")
            ->check(CLI::IsMember({"text", "json"}))
            ->default_str("text");
        return std::function<int()>([args] { return runCompare(*args); });
      }};
}

}  // namespace routelab::cli
