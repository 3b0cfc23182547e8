// routelab Python package — shared pieces of the bindings (_routelab.cpp, operations.cpp).
//
// The bindings are a thin layer: every computation is a library call, the same one the
// CLI's apps/routelab/cmd_*.cpp makes; the bindings convert arguments and results only.
// Python objects hold the library's values through shared pointers, so a numpy view of a
// forwarding table keeps its Routing (and that its Fabric) alive.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "fabric/fabric.h"
#include "routing/routing_result.h"

namespace routelab::python {

namespace py = pybind11;

/// A fabric as Python sees it (immutable once built).
struct PyFabric {
  std::shared_ptr<const Fabric> fabric;
  const Network& network() const { return fabric->network; }
};

/// A routing of one fabric (immutable, except that a compacted table is expanded once when
/// Python first views it as an array).
struct PyRouting {
  std::shared_ptr<const Fabric> fabric;
  std::shared_ptr<RoutingResult> routing;
  std::string reference;  ///< the engine's paper reference ("" for Python-built routings)
  /// The engine's registry row ("file" for an imported LFT dump, "" for a Python-built
  /// routing): which export kinds it has (request/route_export.h).
  std::string engineName;
  /// The checks `routelab route` prints (request/route_request.h routeChecksJson); null when
  /// not run (route's no_checks, the default from Python; routings built in Python).
  nlohmann::json checks;
};

/// The library's typed errors as Python exceptions (registered once by the module).
void registerErrors(py::module_& m);

/// Converts a JSON value to the equal Python object (dict, list, str, int, float, bool, None).
py::object toPython(const nlohmann::json& value);

/// Keyword arguments to a configuration object in the library's keys: the one place where
/// Python's spelling (packet_flits) meets the library's. Every key must be one of `known`
/// (ValueError naming the key and the known ones otherwise); values must be str, int, float
/// or bool (TypeError otherwise).
nlohmann::json optionsToJson(const py::kwargs& kwargs, const std::vector<std::string>& known,
                             const std::string& operation);

/// Thrown by a progress callback when Python asked to stop (Ctrl-C): the library call
/// unwinds and the binding raises KeyboardInterrupt.
struct Cancelled {};

/// Runs `work(cancel)` without the GIL on a thread of its own while this (the Python) thread
/// waits and checks for signals every 50 ms; on Ctrl-C it sets `cancel` (the work's
/// progress callback throws Cancelled when it sees it), waits for the work to end and
/// raises KeyboardInterrupt. Work without a progress hook runs to its end first.
/// Exceptions of the work propagate (translated by registerErrors()).
template <class Work>
auto interruptible(Work&& work) -> decltype(work(std::declval<const std::atomic<bool>&>()));

void bindOperations(py::module_& m);

}  // namespace routelab::python

namespace routelab::python {

template <class Work>
auto interruptible(Work&& work) -> decltype(work(std::declval<const std::atomic<bool>&>())) {
  std::atomic<bool> cancel{false};
  auto future = std::async(std::launch::async, [&] { return work(cancel); });
  for (;;) {
    {
      py::gil_scoped_release release;
      if (future.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready) break;
    }
    if (PyErr_CheckSignals() != 0) {
      cancel = true;
      {
        py::gil_scoped_release release;
        future.wait();
      }
      throw py::error_already_set();
    }
  }
  return future.get();
}

}  // namespace routelab::python
