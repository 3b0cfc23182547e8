// End-to-end tests of fabric files through `routelab topo`: the OpenSM/ibsim fixtures
// import with the same summary as their generator, exports re-import equal, and bad files
// fail with file:line on stderr without writing any output file.
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test_support.h"

using routelab::test::runRoutelab;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

std::string shellQuoted(const fs::path& path) { return "'" + path.string() + "'"; }

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A scratch directory removed at the end of the test.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    static int counter = 0;
    path_ =
        fs::temp_directory_path() / ("routelab-cli-io-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::create_directories(path_);
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  fs::path operator/(const std::string& name) const { return path_ / name; }
  std::size_t fileCount() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(path_), fs::directory_iterator()));
  }

 private:
  fs::path path_;
};

Json summary(const std::string& spec) {
  const auto r = runRoutelab("topo " + spec + " --format json");
  EXPECT_EQ(r.exitCode, 0) << spec << ": " << r.err;
  Json j = Json::parse(r.out, nullptr, false);
  if (j.is_object()) j.erase("spec");
  return j;
}

/// The cables of a routelab JSON file as a sorted list of "a[p]-b[q]" with a[p] < b[q].
std::vector<std::string> cableSet(const Json& fabric) {
  std::vector<std::string> out;
  for (const Json& cable : fabric["cables"]) {
    std::string a = cable["a"].get<std::string>() + "[" + std::to_string(cable["a_port"].get<int>()) + "]";
    std::string b = cable["b"].get<std::string>() + "[" + std::to_string(cable["b_port"].get<int>()) + "]";
    if (b < a) std::swap(a, b);
    out.push_back(a + "-" + b);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(CliTopoIo, EveryFixtureImportsWithItsGeneratorsSummary) {
  const std::pair<const char*, const char*> fixtures[] = {
      {"k4n2", "kary-ntree:k=4,n=2"},
      {"k2n4", "kary-ntree:k=2,n=4"},
      {"k4n3", "kary-ntree:k=4,n=3"},
      {"gft_4_4_8", "gft2:n=4,m=4,r=8"},
      {"rnd16_s1", "random:switches=16,links=32,terminals=1,radix=16,seed=1"},
      {"k6n2", "kary-ntree:k=6,n=2"},
  };
  for (const auto& [directory, spec] : fixtures) {
    const Json generated = summary(spec);
    ASSERT_TRUE(generated.is_object()) << spec;
    for (const char* file : {"topology.net", "ibnetdiscover.txt", "ibnetdiscover-p.txt"}) {
      const std::string path = routelab::test::fixturesDir() + "/" + directory + "/" + file;
      const Json imported = summary("file:" + path);
      // Same counts, radix and degree histograms, diameter and, for the fat-trees (whose
      // XGFT labels are recognised on import), levels and bisection width.
      EXPECT_EQ(imported, generated) << path;
    }
  }
}

TEST(CliTopoIo, ExportsReimportEqual) {
  const ScratchDirectory scratch;
  const std::string spec = "kary-ntree:k=4,n=3";
  auto r = runRoutelab("topo " + spec + " --export net " + shellQuoted(scratch / "a.net") + " --export json " +
                       shellQuoted(scratch / "a.json") + " --export dot " + shellQuoted(scratch / "a.dot"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const Json original = Json::parse(slurp(scratch / "a.json"));
  EXPECT_EQ(original["format"], "routelab-network");
  EXPECT_EQ(original["nodes"].size(), 64u + 48u);

  // net -> json and json -> json: same nodes (names, kinds, GUIDs, ports, XGFT labels,
  // recognised again for the net file) and the same cables.
  r = runRoutelab("topo file:" + shellQuoted(scratch / "a.net") + " --export json " +
                  shellQuoted(scratch / "from-net.json"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runRoutelab("topo json:" + shellQuoted(scratch / "a.json") + " --export json " +
                  shellQuoted(scratch / "from-json.json"));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  for (const char* name : {"from-net.json", "from-json.json"}) {
    const Json back = Json::parse(slurp(scratch / name));
    EXPECT_EQ(back["nodes"], original["nodes"]) << name;
    EXPECT_EQ(back["xgft"], original["xgft"]) << name;
    EXPECT_EQ(cableSet(back), cableSet(original)) << name;
  }
  EXPECT_EQ(summary("file:" + shellQuoted(scratch / "a.net")), summary(spec));
  EXPECT_EQ(summary("file:" + shellQuoted(scratch / "a.json")), summary(spec));

  const std::string dot = slurp(scratch / "a.dot");
  EXPECT_NE(dot.find("graph routelab {"), std::string::npos);
  std::size_t edges = 0;
  for (std::size_t at = dot.find(" -- "); at != std::string::npos; at = dot.find(" -- ", at + 1)) ++edges;
  EXPECT_EQ(edges, 64u + 2 * 64u);
  // Read back line by line against the JSON export (docs/FORMATS.md "DOT"): each edge
  // '"a" -- "b" [taillabel="p", headlabel="q"]' is one cable with its ports; each node line
  // names a node with its GUID and port count, terminals as ellipses; each rank group holds
  // one XGFT level's nodes.
  const auto quoted = [](const std::string& line, std::size_t from) {
    const std::size_t open = line.find('"', from);
    return line.substr(open + 1, line.find('"', open + 1) - open - 1);
  };
  std::vector<std::string> dotCables;
  std::map<std::string, std::string> nodeLines;
  std::map<std::size_t, std::set<std::string>> levels;
  std::size_t level = 0;
  std::istringstream lines(dot);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("  { rank=same; // level ")) {
      level = std::stoul(line.substr(line.rfind(' ') + 1));
    } else if (line.starts_with("    \"")) {
      levels[level].insert(quoted(line, 0));
    } else if (line.find(" -- ") != std::string::npos) {
      const std::size_t dash = line.find(" -- ");
      std::string a = quoted(line, 0) + "[" + quoted(line, line.find("taillabel")) + "]";
      std::string b = quoted(line, dash) + "[" + quoted(line, line.find("headlabel")) + "]";
      if (b < a) std::swap(a, b);
      dotCables.push_back(a + "-" + b);
    } else if (line.starts_with("  \"")) {
      nodeLines[quoted(line, 0)] = line;
    }
  }
  std::sort(dotCables.begin(), dotCables.end());
  EXPECT_EQ(dotCables, cableSet(original));
  ASSERT_EQ(nodeLines.size(), original["nodes"].size());
  std::map<std::size_t, std::set<std::string>> xgftLevels;
  for (const Json& node : original["nodes"]) {
    const std::string name = node["name"].get<std::string>();
    ASSERT_TRUE(nodeLines.contains(name)) << name;
    const std::string& line = nodeLines.at(name);
    EXPECT_NE(line.find("// guid " + node["guid"].get<std::string>() + ", " + std::to_string(node["ports"].get<int>()) +
                        " ports"),
              std::string::npos)
        << line;
    EXPECT_EQ(line.find("shape=ellipse") != std::string::npos, node["kind"] == "terminal") << line;
    xgftLevels[node["xgft"]["level"].get<std::size_t>()].insert(name);
  }
  EXPECT_EQ(levels, xgftLevels);
}

TEST(CliTopoIo, BadFilesFailWithFileAndLineAndWriteNothing) {
  const ScratchDirectory scratch;
  {
    std::ofstream out(scratch / "bad.net");
    out << "# a broken fabric\nSwitch 4 \"s\"\n[1] \"h\"[7]\n\nHca 1 \"h\"\n[1] \"s\"[1]\n";
  }
  auto r = runRoutelab("topo file:" + shellQuoted(scratch / "bad.net") + " --export net " +
                       shellQuoted(scratch / "out.net") + " --export json " + shellQuoted(scratch / "out.json"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find((scratch / "bad.net").string() + ":3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("out of range"), std::string::npos) << r.err;
  EXPECT_EQ(scratch.fileCount(), 1u) << "an output file was written";

  {
    std::ofstream out(scratch / "bad.json");
    out << "{\"format\": \"routelab-network\",\n \"version\": 1,\n \"nodes\": [\n  {\"name\": 5}\n ], \"cables\": "
           "[]}\n";
  }
  r = runRoutelab("topo file:" + shellQuoted(scratch / "bad.json") + " --export dot " +
                  shellQuoted(scratch / "out.dot"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find((scratch / "bad.json").string() + ":4:"), std::string::npos) << r.err;
  EXPECT_EQ(scratch.fileCount(), 2u) << "an output file was written";

  r = runRoutelab("topo file:" + shellQuoted(scratch / "missing.net"));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("missing.net"), std::string::npos) << r.err;

  r = runRoutelab("topo net:" + shellQuoted(routelab::test::fixturesDir()));
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("is a directory"), std::string::npos) << r.err;

  r = runRoutelab("topo kary-ntree:k=2,n=2 --export xml " + shellQuoted(scratch / "out.xml"));
  EXPECT_NE(r.exitCode, 0);
  EXPECT_EQ(scratch.fileCount(), 2u) << "an output file was written";
}
