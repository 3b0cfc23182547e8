// routelab/core/errors.h — the typed errors of the library.
//
// Contract: library code never prints and never exits. Everything that can go wrong
// because of user input throws one of these types with a message that names what and
// where (the spec key, the file and line, the switch and port). Internal invariants
// use assert(). Only the CLI (apps/routelab) turns errors into text and exit codes.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace routelab {

/// Base of every routelab error.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A malformed or impossible specification string or option value
/// (e.g. `kary-ntree:k=0`, an unknown engine name, an unknown option key).
class SpecError : public Error {
 public:
  using Error::Error;
};

/// A network that violates the model's invariants (port out of range, port used twice,
/// asymmetric link, disconnected where connectivity is required).
class TopologyError : public Error {
 public:
  using Error::Error;
};

/// A malformed input file. The message is "<file>:<line>: <what>".
class ParseError : public Error {
 public:
  ParseError(const std::string& file, std::size_t line, const std::string& what)
      : Error(file + ":" + std::to_string(line) + ": " + what), file_(file), line_(line) {}
  const std::string& file() const noexcept { return file_; }
  std::size_t line() const noexcept { return line_; }

 private:
  std::string file_;
  std::size_t line_;
};

/// An I/O failure (cannot open, cannot write) — distinct from malformed content.
class IoError : public Error {
 public:
  using Error::Error;
};

/// A routing engine asked to route a topology it does not support, or that cannot be
/// routed under the given constraints (e.g. more layers needed than allowed).
class RoutingError : public Error {
 public:
  using Error::Error;
};

/// The engine cannot handle this topology at all (e.g. a fat-tree engine on a random
/// fabric). Derived from RoutingError so callers may catch either.
class UnsupportedTopology : public RoutingError {
 public:
  using RoutingError::RoutingError;
};

/// An analysis or schedule request that is inconsistent with the network/routing.
class AnalysisError : public Error {
 public:
  using Error::Error;
};

/// A simulation that cannot go on: a packet at a switch whose routing offers it no usable
/// port (the routing does not deliver that pair). Deadlock is a result, not an error.
class SimulationError : public Error {
 public:
  using Error::Error;
};

}  // namespace routelab
