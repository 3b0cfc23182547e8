// routelab Python package — the extension module `routelab._routelab`: errors, Fabric,
// Routing. The public API (docs/PYTHON.md) is python/routelab/__init__.py, which wraps these
// classes and converts results to pandas / networkx.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <sstream>

#include "bindings.h"
#include "core/errors.h"
#include "core/limits.h"
#include "io/fabric_files.h"
#include "io/output.h"
#include "request/route_export.h"
#include "topology/summary.h"

namespace routelab::python {

namespace {

// ---- errors ----

py::object toPythonImpl(const nlohmann::json& value) {
  if (value.is_null()) return py::none();
  if (value.is_boolean()) return py::bool_(value.get<bool>());
  if (value.is_number_unsigned()) return py::int_(value.get<std::uint64_t>());
  if (value.is_number_integer()) return py::int_(value.get<std::int64_t>());
  if (value.is_number_float()) return py::float_(value.get<double>());
  if (value.is_string()) return py::str(value.get<std::string>());
  if (value.is_array()) {
    py::list out;
    for (const auto& item : value) out.append(toPythonImpl(item));
    return out;
  }
  py::dict out;
  for (const auto& [key, item] : value.items()) out[py::str(key)] = toPythonImpl(item);
  return out;
}

// ---- Fabric ----

PyFabric fabricFromSpec(const std::string& spec) {
  auto fabric =
      interruptible([&](const std::atomic<bool>&) { return std::make_shared<const Fabric>(loadFabric(spec)); });
  return {std::move(fabric)};
}

/// A fabric from the text of a fabric file (the routelab-network JSON that
/// routelab.Fabric.from_networkx writes, or any format readFabricFile detects).
PyFabric fabricFromText(const std::string& text, const std::string& name) {
  auto fabric = std::make_shared<Fabric>();
  fabric->network = parseFabricText(text, name);
  fabric->spec = name;
  return {std::move(fabric)};
}

std::string networkJson(const PyFabric& f) {
  std::ostringstream out;
  writeNetworkJson(f.network(), out);
  return out.str();
}

py::dict summaryDict(const PyFabric& f) {
  const NetworkSummary s = summarize(f.network());
  py::dict d;
  d["spec"] = f.fabric->spec;
  d["terminals"] = s.terminals;
  d["switches"] = s.switches;
  d["links"] = s.links;
  d["channels"] = s.channels;
  d["switch_links"] = s.switchLinks;
  d["radix_histogram"] = s.radixHistogram;
  d["degree_histogram"] = s.degreeHistogram;
  d["components"] = s.components;
  d["diameter"] = s.diameter;
  d["connected"] = s.connected;
  d["xgft"] = s.xgft ? py::object(py::str(*s.xgft)) : py::none();
  d["levels"] = s.levels ? py::object(py::int_(*s.levels)) : py::none();
  d["switches_per_level"] = s.switchesPerLevel;
  d["bisection_width"] = s.bisectionWidth ? py::object(py::int_(*s.bisectionWidth)) : py::none();
  return d;
}

/// Per channel: id, from node, from port, to node, to port (the rows of per-channel tables).
py::dict channelColumns(const PyFabric& f) {
  const Network& n = f.network();
  std::vector<std::string> from, to;
  std::vector<int> fromPort, toPort;
  for (std::size_t c = 0; c < n.channelCount(); ++c) {
    const ChannelId ch = ChannelId::fromIndex(c);
    from.push_back(n.name(n.source(ch)));
    to.push_back(n.name(n.target(ch)));
    fromPort.push_back(n.sourcePort(ch));
    toPort.push_back(n.targetPort(ch));
  }
  py::dict d;
  d["from"] = from;
  d["from_port"] = fromPort;
  d["to"] = to;
  d["to_port"] = toPort;
  return d;
}

/// `routelab topo --export`'s dispatch (io/fabric_files.h writeFabricExports).
void exportFabric(const PyFabric& f, const std::string& kind, const std::string& path) {
  interruptible([&](const std::atomic<bool>&) {
    writeFabricExports(f.network(), {{kind, path}});
    return 0;
  });
}

NodeId nodeNamed(const Network& network, const std::string& name) {
  const std::optional<NodeId> node = network.findNode(name);
  if (!node) throw SpecError("no node named '" + name + "' in the fabric");
  return *node;
}

// ---- Routing ----

/// The codes of table `index` as a (switches, addresses) array viewing the table's memory
/// (base object: the Routing), expanding a compacted table once.
py::array tableCodes(py::object self, std::size_t index) {
  PyRouting& r = self.cast<PyRouting&>();
  if (index >= r.routing->tables.size()) {
    throw py::index_error("table " + std::to_string(index) + " of " + std::to_string(r.routing->tables.size()));
  }
  ForwardingTable& table = r.routing->tables[index];
  table.expand();
  const std::vector<py::ssize_t> shape = {static_cast<py::ssize_t>(table.switchCount()),
                                          static_cast<py::ssize_t>(table.addressCount())};
  auto view = [&](auto span) {
    using T = typename decltype(span)::element_type;
    py::array_t<T> array(shape, {static_cast<py::ssize_t>(sizeof(T) * table.addressCount()), py::ssize_t(sizeof(T))},
                         span.data(), self);
    py::detail::array_proxy(array.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    return py::array(array);
  };
  if (table.codeWidth() == 1) return view(table.codeBytes());
  if (table.codeWidth() == 2) return view(table.codeWords());
  return view(table.codeLongs());
}

std::vector<std::vector<int>> candidateLists(const PyRouting& r, std::size_t index) {
  const ForwardingTable& table = r.routing->tables.at(index);
  std::vector<std::vector<int>> lists;
  for (std::uint32_t id = 0; id < table.listCount(); ++id) {
    const auto ports = table.list(id);
    lists.emplace_back(ports.begin(), ports.end());
  }
  return lists;
}

/// The walk from `source` to `destination` (node names) on path `path` (LMC offset): its
/// status and the channels, as (from node, from port, to node, to port) rows.
py::dict pairPath(const PyRouting& r, const std::string& source, const std::string& destination, std::uint32_t path) {
  const Network& network = r.fabric->network;
  const NodeId s = nodeNamed(network, source);
  const NodeId d = nodeNamed(network, destination);
  if (!r.routing->addresses.hasAddresses(d)) throw SpecError("'" + destination + "' owns no address in this routing");
  if (!r.routing->addresses.hasAddresses(s)) throw SpecError("'" + source + "' owns no address in this routing");
  const std::uint32_t paths = r.routing->pathCount(d);
  if (path >= paths) {
    throw SpecError("path must be in 0.." + std::to_string(paths - 1) + " (got " + std::to_string(path) + ")");
  }
  const Address a = r.routing->addressFor(s, d, path);
  const LayerId layer = r.routing->layer(r.routing->addresses.sourceIndex(s), a);
  const Path walk = r.routing->path(network, s, a, layer);
  static const char* const kStatus[] = {"delivered", "no route", "loop", "dead port", "no address"};
  py::list hops;
  std::vector<std::size_t> ids;
  for (ChannelId c : walk.channels) {
    hops.append(py::make_tuple(network.name(network.source(c)), network.sourcePort(c), network.name(network.target(c)),
                               network.targetPort(c)));
    ids.push_back(c.index());
  }
  py::dict out;
  out["status"] = kStatus[static_cast<int>(walk.status)];
  out["layer"] = layer.index();
  out["address"] = a;
  out["lid"] = r.routing->addresses.lid(a);
  out["hops"] = hops;
  out["channels"] = ids;
  return out;
}

/// `routelab route --export`'s dispatch (request/route_export.h writeRouteExports): the same
/// kinds, refusals and bytes.
void exportRouting(const PyRouting& r, const std::string& kind, const std::string& path) {
  interruptible([&](const std::atomic<bool>&) {
    writeRouteExports(*r.fabric, *r.routing, r.engineName, {{kind, path}});
    return 0;
  });
}

/// A routing from filled tables: `tables[t]` holds per (switch index, destination terminal
/// index) up to K candidate ports (kNoRoute = 255 pads; all 255: no route), preferred
/// first; `layer_of[s][d]` the layer of terminal s's traffic to terminal d (empty: layer 0);
/// `table_of_layer[l]` the table layer l uses. One address per terminal (terminal order).
// Long function: the argument checks each name the offending index, one after the other.
PyRouting fromTables(const PyFabric& f, const std::vector<py::array_t<std::int64_t, py::array::forcecast>>& tables,
                     const py::object& layerOfObject, const std::vector<std::uint16_t>& tableOfLayer,
                     const std::string& name, bool deterministic) {
  const Network& network = f.network();
  auto routing = std::make_shared<RoutingResult>();
  routing->engine = name;
  routing->addresses = AddressMap::build(network, 1, false);
  const std::size_t switches = network.switchCount(), addresses = routing->addresses.count();
  if (tables.empty()) throw SpecError("tables: at least one table");
  for (std::size_t t = 0; t < tables.size(); ++t) {
    const auto& array = tables[t];
    if ((array.ndim() != 2 && array.ndim() != 3) || std::size_t(array.shape(0)) != switches ||
        std::size_t(array.shape(1)) != addresses) {
      throw SpecError("tables[" + std::to_string(t) + "]: shape must be (" + std::to_string(switches) + ", " +
                      std::to_string(addresses) + "[, K]) (switches, terminals[, candidates])");
    }
    const std::size_t k = array.ndim() == 3 ? array.shape(2) : 1;
    ForwardingTable table(switches, addresses);
    auto data = array.unchecked();
    const std::int64_t* raw = array.data();
    std::vector<PortNumber> ports;
    for (std::size_t s = 0; s < switches; ++s) {
      const PortNumber maxPort = network.portCount(network.switchNode(s));
      for (std::size_t a = 0; a < addresses; ++a) {
        ports.clear();
        for (std::size_t i = 0; i < k; ++i) {
          const std::int64_t port = raw[(s * addresses + a) * k + i];
          if (port == kNoRoute) continue;
          if (port < 0 || port > maxPort) {
            throw SpecError("tables[" + std::to_string(t) + "]: port " + std::to_string(port) + " of switch " +
                            network.name(network.switchNode(s)) + " must be in 0.." + std::to_string(maxPort) +
                            " or 255 (no route)");
          }
          ports.push_back(static_cast<PortNumber>(port));
        }
        table.setCandidates(static_cast<std::uint32_t>(s), static_cast<Address>(a), ports);
      }
    }
    (void)data;
    routing->tables.push_back(std::move(table));
  }
  routing->tableOfLayer = tableOfLayer.empty() ? std::vector<std::uint16_t>{0} : tableOfLayer;
  if (routing->tableOfLayer.size() > 255) throw SpecError("table_of_layer: at most 255 layers");
  for (std::uint16_t t : routing->tableOfLayer) {
    if (t >= routing->tables.size())
      throw SpecError("table_of_layer: table " + std::to_string(t) + " must be below " +
                      std::to_string(routing->tables.size()));
  }
  if (!layerOfObject.is_none()) {
    const auto layerOf = layerOfObject.cast<py::array_t<std::int64_t, py::array::forcecast>>();
    const std::size_t sources = routing->addresses.owners().size();
    if (layerOf.ndim() != 2 || std::size_t(layerOf.shape(0)) != sources || std::size_t(layerOf.shape(1)) != addresses)
      throw SpecError("layer_of: shape must be (" + std::to_string(sources) + ", " + std::to_string(addresses) +
                      ") (source terminals, destination terminals)");
    routing->layerOf.resize(sources * addresses);
    for (std::size_t i = 0; i < routing->layerOf.size(); ++i) {
      const std::int64_t layer = layerOf.data()[i];
      if (layer < 0 || std::size_t(layer) >= routing->tableOfLayer.size())
        throw SpecError("layer_of: layer " + std::to_string(layer) + " must be in 0.." +
                        std::to_string(routing->tableOfLayer.size() - 1));
      routing->layerOf[i] = static_cast<std::uint8_t>(layer);
    }
  }
  bool multi = false;
  for (const auto& table : routing->tables) multi = multi || table.adaptive();
  routing->deterministic = deterministic && !multi;
  return {f.fabric, std::move(routing), "", "", nullptr};
}

// Long function: the class definitions, one statement per Python method.
void bindClasses(py::module_& m) {
  py::class_<PyFabric>(m, "Fabric", "A fabric (network of switches and terminals), immutable.")
      .def(py::init(&fabricFromSpec), py::arg("spec"), "Build or import the fabric named by a spec (routelab list).")
      .def_static("from_text", &fabricFromText, py::arg("text"), py::arg("name"),
                  "A fabric from the text of a fabric file (any format the CLI reads).")
      .def_property_readonly("spec", [](const PyFabric& f) { return f.fabric->spec; })
      .def_property_readonly("terminals", [](const PyFabric& f) { return f.network().terminalCount(); })
      .def_property_readonly("switches", [](const PyFabric& f) { return f.network().switchCount(); })
      .def_property_readonly("channels", [](const PyFabric& f) { return f.network().channelCount(); })
      .def("network_json", &networkJson, "The fabric in routelab's JSON form (docs/FORMATS.md).")
      .def("summary", &summaryDict, "The numbers `routelab topo` prints.")
      .def("channel_columns", &channelColumns, "Per channel id: from, from_port, to, to_port.")
      .def("terminal_names",
           [](const PyFabric& f) {
             std::vector<std::string> names;
             for (NodeId n : f.network().terminals()) names.push_back(f.network().name(n));
             return names;
           })
      .def("switch_names",
           [](const PyFabric& f) {
             std::vector<std::string> names;
             for (NodeId n : f.network().switches()) names.push_back(f.network().name(n));
             return names;
           })
      .def("neighbor",
           [](const PyFabric& f, const std::string& node, int port) -> py::object {
             const Network& n = f.network();
             const NodeId id = nodeNamed(n, node);
             if (port < 1 || port > n.portCount(id)) return py::none();
             const ChannelId c = n.channelAt(id, static_cast<PortNumber>(port));
             if (!c.valid()) return py::none();
             return py::make_tuple(n.name(n.target(c)), n.targetPort(c));
           })
      .def("export", &exportFabric, py::arg("kind"), py::arg("path"),
           "Write the fabric as `kind` (export_kinds) to `path`, as `routelab topo --export` does.")
      .def_property_readonly_static("export_kinds", [](const py::object&) { return fabricExportKinds(); });

  py::class_<PyRouting>(m, "Routing", "A routing of a fabric: forwarding tables, addresses, layers.")
      .def_property_readonly("engine", [](const PyRouting& r) { return r.routing->engine; })
      .def_property_readonly("reference", [](const PyRouting& r) { return r.reference; })
      .def_property_readonly("deterministic", [](const PyRouting& r) { return r.routing->deterministic; })
      .def_property_readonly("minimal", [](const PyRouting& r) { return r.routing->minimal; })
      .def_property_readonly("layers", [](const PyRouting& r) { return r.routing->layerCount(); })
      .def_property_readonly("table_count", [](const PyRouting& r) { return r.routing->tables.size(); })
      .def_property_readonly("table_of_layer", [](const PyRouting& r) { return r.routing->tableOfLayer; })
      .def_property_readonly("addresses", [](const PyRouting& r) { return r.routing->addresses.count(); })
      .def_property_readonly("stats", [](const PyRouting& r) { return r.routing->stats; })
      .def_property_readonly("checks", [](const PyRouting& r) { return toPython(r.checks); })
      .def("table_codes", &tableCodes, py::arg("index") = 0)
      .def("list_base", [](const PyRouting& r, std::size_t t) { return r.routing->tables.at(t).listBase(); })
      .def("code_width", [](const PyRouting& r, std::size_t t) { return r.routing->tables.at(t).codeWidth(); })
      .def("candidate_lists", &candidateLists)
      .def("path", &pairPath, py::arg("source"), py::arg("destination"), py::arg("path") = 0)
      .def("path_count",
           [](const PyRouting& r, const std::string& destination) {
             return r.routing->pathCount(nodeNamed(r.fabric->network, destination));
           })
      .def_property_readonly("export_kinds", [](const PyRouting& r) { return routeExportKindsOf(r.engineName); })
      .def("export", &exportRouting, py::arg("kind"), py::arg("path"),
           "Write the routing as `kind` (export_kinds) to `path`, as `routelab route --export` does.");

  m.def("from_tables", &fromTables, py::arg("fabric"), py::arg("tables"), py::arg("layer_of"),
        py::arg("table_of_layer"), py::arg("name"), py::arg("deterministic"));
}

}  // namespace

py::object toPython(const nlohmann::json& value) { return toPythonImpl(value); }

nlohmann::json optionsToJson(const py::kwargs& kwargs, const std::vector<std::string>& known,
                             const std::string& operation) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [keyObject, value] : kwargs) {
    const std::string key = py::str(keyObject);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw SpecError(operation + ": unknown option '" + key + "' (known: " + list + ")");
    }
    if (py::isinstance<py::bool_>(value))
      out[key] = value.cast<bool>() ? 1 : 0;
    else if (py::isinstance<py::int_>(value))
      out[key] = value.cast<std::int64_t>();
    else if (py::isinstance<py::float_>(value))
      out[key] = value.cast<double>();
    else if (py::isinstance<py::str>(value))
      out[key] = value.cast<std::string>();
    else
      throw py::type_error(operation + ": option '" + key + "' must be a str, int, float or bool (got " +
                           std::string(py::str(value.get_type().attr("__name__"))) + ")");
  }
  return out;
}

void registerErrors(py::module_& m) {
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  static py::object inputError = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "routelab._routelab.InputError", "A fabric, routing or trace file that cannot be read (file:line message).",
      py::make_tuple(error, py::handle(PyExc_ValueError)).release().ptr(), nullptr));
  static py::object limitError = py::reinterpret_steal<py::object>(PyErr_NewExceptionWithDoc(
      "routelab._routelab.LimitError", "A request beyond routelab's memory budget (refused before allocating).",
      py::make_tuple(error, py::handle(PyExc_MemoryError)).release().ptr(), nullptr));
  static py::object specError = py::reinterpret_steal<py::object>(
      PyErr_NewExceptionWithDoc("routelab._routelab.SpecError", "A bad spec or option (names the key and its range).",
                                py::make_tuple(error, py::handle(PyExc_ValueError)).release().ptr(), nullptr));
  m.attr("InputError") = inputError;
  m.attr("LimitError") = limitError;
  m.attr("SpecError") = specError;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const SpecError& e) {
      PyErr_SetString(specError.ptr(), e.what());
    } catch (const ParseError& e) {
      PyErr_SetString(inputError.ptr(), e.what());
    } catch (const IoError& e) {
      PyErr_SetString(inputError.ptr(), e.what());
    } catch (const LimitError& e) {
      PyErr_SetString(limitError.ptr(), e.what());
    } catch (const Cancelled&) {
      PyErr_SetNone(PyExc_KeyboardInterrupt);
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
}

}  // namespace routelab::python

PYBIND11_MODULE(_routelab, m) {
  m.doc() = "routelab's library (the routelab package wraps it; docs/PYTHON.md)";
  routelab::python::registerErrors(m);
  routelab::python::bindClasses(m);
  routelab::python::bindOperations(m);
}
