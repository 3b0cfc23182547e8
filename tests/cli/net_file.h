// An ibsim net file read by the tests themselves, not by routelab's reader (docs/FORMATS.md
// record form: `<Hca|Switch> <ports> "<node>"`, then `[<port>] "<peer>"[<peer port>]` per
// cabled port): the fabric that the CLI tests hold exported files against.
#pragma once

#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace routelab::test {

/// One cabled port as its record lists it: each cable appears once from each end.
struct NetFilePort {
  std::string node;
  std::string port;
  std::string peer;
  std::string peerPort;
};

struct NetFile {
  std::vector<NetFilePort> ports;
  std::set<std::string> terminals;  ///< the Hca records' nodes
};

/// The ports and CAs of the net file at `path` (`topo SPEC --export net PATH`).
inline NetFile readNetFile(const std::string& path) {
  NetFile out;
  std::ifstream file(path);
  std::string node;
  for (std::string line; std::getline(file, line);) {
    const std::size_t open = line.find('"'), close = line.find('"', open + 1);
    if (line.starts_with("Hca") || line.starts_with("Switch")) {
      node = line.substr(open + 1, close - open - 1);
      if (line.starts_with("Hca")) out.terminals.insert(node);
    } else if (line.starts_with("[")) {
      out.ports.push_back({node, line.substr(1, line.find(']') - 1), line.substr(open + 1, close - open - 1),
                           line.substr(close + 2, line.find(']', close) - close - 2)});
    }
  }
  return out;
}

}  // namespace routelab::test
