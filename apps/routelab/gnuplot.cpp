#include "gnuplot.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"

extern char** environ;

namespace routelab::cli {

void runGnuplot(const std::string& script) {
  pid_t pid = 0;
  std::string program = "gnuplot";
  std::vector<char*> argv = {program.data(), const_cast<char*>(script.c_str()), nullptr};
  // gnuplot's messages go to a temporary file: quiet on success, quoted on failure.
  std::string log = (std::filesystem::temp_directory_path() / "routelab-gnuplot.XXXXXX").string();
  const int logFd = ::mkstemp(log.data());
  if (logFd < 0) throw IoError("cannot create a temporary file for gnuplot's messages");
  ::close(logFd);
  struct RemoveLog {
    const std::string& path;
    ~RemoveLog() { std::remove(path.c_str()); }
  } removeLog{log};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int spawned = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw IoError("cannot run gnuplot (install the Debian package gnuplot-nox)");
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::ifstream in(log);
    std::string first;
    std::getline(in, first);
    throw IoError("gnuplot failed on " + script + (first.empty() ? std::string() : ": " + first));
  }
}

namespace {

/// A fresh temporary directory, removed with the object.
class TemporaryDirectory {
 public:
  TemporaryDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "routelab-figures.XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw IoError("cannot create a temporary directory for the figures");
    path_ = pattern;
  }
  TemporaryDirectory(const TemporaryDirectory&) = delete;
  TemporaryDirectory& operator=(const TemporaryDirectory&) = delete;
  ~TemporaryDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

/// The <svg> element of gnuplot's output, its ids and the references to them (`#id` followed
/// by a quote or a parenthesis) prefixed, so that several figures can share one page. (No
/// std::regex: GCC 12 warns about its internals under the sanitizers.)
std::string svgElement(const std::string& text, const std::string& prefix, const std::string& file) {
  const std::size_t start = text.find("<svg");
  if (start == std::string::npos) throw IoError("gnuplot wrote no SVG to " + file);
  const std::string svg = text.substr(start);
  std::vector<std::string> ids;
  std::string out;
  out.reserve(svg.size() + svg.size() / 16);
  for (std::size_t at = 0; at < svg.size();) {
    const std::size_t found = svg.find(" id=", at);
    const bool quoted =
        found != std::string::npos && found + 4 < svg.size() && (svg[found + 4] == '\'' || svg[found + 4] == '"');
    const std::size_t close = quoted ? svg.find(svg[found + 4], found + 5) : std::string::npos;
    if (close == std::string::npos) {
      out.append(svg, at, std::string::npos);
      break;
    }
    out.append(svg, at, found + 5 - at);
    out += prefix;
    ids.push_back(svg.substr(found + 5, close - found - 5));
    at = found + 5;
  }
  for (const std::string& id : ids) {
    for (const char* end : {"'", "\"", ")"}) {
      const std::string from = "#" + id + end, to = "#" + prefix + id + end;
      for (std::size_t at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size())) {
        out.replace(at, from.size(), to);
      }
    }
  }
  return out;
}

}  // namespace

std::vector<RenderedFigure> renderSvgFigures(const std::vector<FigureSpec>& figures) {
  std::vector<RenderedFigure> rendered;
  if (figures.empty()) return rendered;
  const TemporaryDirectory directory;
  for (const FigureSpec& figure : figures) {
    const std::string script = (directory.path() / (figure.id + ".gp")).string();
    const std::string svg = (directory.path() / (figure.id + ".svg")).string();
    {
      std::ofstream out(script);
      out << fmt::format("set terminal svg size {},{} font 'sans,12' background rgb 'white'\nset output {}\n",
                         figure.width, figure.height, gnuplotQuoted(svg))
          << figure.script << "set output\n";
      if (!out) throw IoError("cannot write the gnuplot script " + script);
    }
    runGnuplot(script);
    std::ifstream in(svg);
    std::stringstream text;
    text << in.rdbuf();
    rendered.push_back({figure, svgElement(text.str(), figure.id + "-", svg)});
  }
  return rendered;
}

}  // namespace routelab::cli
