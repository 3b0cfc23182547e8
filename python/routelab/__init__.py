"""routelab from Python: fabrics, routings, deadlock verification, congestion analysis,
flit-level simulation, circuit scheduling and `routelab compare` on the same C++ library as
the `routelab` CLI (docs/PYTHON.md).

    import routelab as rl
    fabric = rl.Fabric("kary-ntree:k=4,n=3")
    routing = rl.route(fabric, "dmodk")
    rl.verify(fabric, routing).deadlock_free                    # True
    rl.analyze(fabric, routing, metric="worst").value          # 1.0 (Nienaber Table I)
    rl.simulate(fabric, routing, loads=[0.1, 0.3], packet_flits=32)  # a pandas.DataFrame

Options are the library's keys with '-' written '_' (the CLI's `--packet-flits` is
`packet_flits=`); a bad option raises ValueError naming the key and its range, a file that
cannot be read `routelab.InputError` (file:line), a request beyond the memory budget
`routelab.LimitError` (a MemoryError). Long calls release the GIL and stop on Ctrl-C.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional, Sequence

import numpy as np

from . import _routelab as _rl

__all__ = [
    "Fabric", "Routing", "Verdict", "Analysis", "Path", "route", "verify", "analyze", "simulate",
    "schedule", "compare", "sweep", "read_results", "options", "operations", "Error", "InputError", "LimitError", "SpecError",
]

Error = _rl.Error
InputError = _rl.InputError
LimitError = _rl.LimitError
SpecError = _rl.SpecError

NO_ROUTE = 255  #: a table entry without a route (as OpenSM's LFTs)


def _pandas():
    import pandas  # imported on use: `import routelab` stays fast

    return pandas


def _require(value: Any, kind: type, what: str) -> None:
    if not isinstance(value, kind):
        raise TypeError(f"{what} must be a {kind.__name__} (got {type(value).__name__})")


# ---------------------------------------------------------------------------------- Fabric


class Fabric:
    """A fabric: switches and terminals joined by cables (immutable).

    ``Fabric(spec)`` builds or imports the fabric a spec names, exactly as the CLI's SPEC
    argument (``kary-ntree:k=4,n=3``, ``random:switches=16,seed=3``, ``file:PATH``, with
    ``+fail-links=N,seed=S`` modifiers; ``routelab list`` shows them all).
    """

    def __init__(self, spec: str):
        _require(spec, str, "spec")
        self._f = _rl.Fabric(spec)
        self._json: Optional[dict] = None

    @classmethod
    def _wrap(cls, native: Any) -> "Fabric":
        fabric = cls.__new__(cls)
        fabric._f = native
        fabric._json = None
        return fabric

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Fabric":
        """The fabric in a file (ibnetdiscover, ibsim .net, routelab JSON; format detected)."""
        return cls("file:" + os.fspath(path))

    @classmethod
    def from_networkx(cls, graph: Any, name: str = "networkx") -> "Fabric":
        """A fabric from a networkx graph.

        Nodes need a ``kind`` attribute (``"switch"`` or ``"terminal"``); ``ports`` (port
        count), ``guid`` and ``xgft`` ({"level", "index"}) are optional. An edge's ports are
        its ``ports`` attribute ({node: port, other: port}); edges without one get the
        lowest free port at each end, in edge order. ``graph.graph["xgft"]`` (as
        :meth:`to_networkx` writes it) keeps a fat-tree's structure. Multigraphs give
        parallel cables.
        """
        nodes = list(graph.nodes(data=True))
        used: dict[Any, set[int]] = {n: set() for n, _ in nodes}
        cables = []
        edges = graph.edges(keys=True, data=True) if graph.is_multigraph() else graph.edges(data=True)
        pending = []
        for edge in edges:
            a, b, data = edge[0], edge[1], edge[-1]
            ports = data.get("ports")
            if ports is not None:
                pa, pb = int(ports[a]), int(ports[b])
                used[a].add(pa)
                used[b].add(pb)
                cables.append({"a": str(a), "a_port": pa, "b": str(b), "b_port": pb})
            else:
                pending.append((a, b))

        def free(node: Any) -> int:
            port = 1
            while port in used[node]:
                port += 1
            used[node].add(port)
            return port

        for a, b in pending:
            cables.append({"a": str(a), "a_port": free(a), "b": str(b), "b_port": free(b)})
        out_nodes = []
        for node, data in nodes:
            if "kind" not in data:
                raise ValueError(f"node {node!r}: needs a 'kind' attribute ('switch' or 'terminal')")
            entry: dict[str, Any] = {"name": str(node), "kind": data["kind"],
                                     "ports": int(data.get("ports", max(used[node], default=1)))}
            if "guid" in data:
                entry["guid"] = data["guid"]
            if "xgft" in data and "xgft" in graph.graph:
                entry["xgft"] = data["xgft"]
            out_nodes.append(entry)
        document: dict[str, Any] = {"format": "routelab-network", "version": 1, "origin": name,
                                    "nodes": out_nodes, "cables": cables}
        if "xgft" in graph.graph:
            document["xgft"] = graph.graph["xgft"]
        return cls._wrap(_rl.Fabric.from_text(json.dumps(document), name))

    def _document(self) -> dict:
        if self._json is None:
            self._json = json.loads(self._f.network_json())
        return self._json

    def to_networkx(self) -> Any:
        """The fabric as a ``networkx.Graph`` (a ``MultiGraph`` when two nodes share several
        cables): nodes keyed by name with ``kind``, ``name``, ``ports``, ``guid`` (and
        ``xgft`` {"level", "index"} for fat-trees); edges with ``ports`` = {node: port}."""
        import networkx as nx

        doc = self._document()
        pairs = [frozenset((c["a"], c["b"])) for c in doc["cables"]]
        graph = nx.MultiGraph() if len(set(pairs)) != len(pairs) else nx.Graph()
        graph.graph["spec"] = self.spec
        if "xgft" in doc:
            graph.graph["xgft"] = doc["xgft"]
        for node in doc["nodes"]:
            graph.add_node(node["name"], **node)
        for c in doc["cables"]:
            graph.add_edge(c["a"], c["b"], ports={c["a"]: c["a_port"], c["b"]: c["b_port"]})
        return graph

    @property
    def spec(self) -> str:
        """The effective spec (defaults filled in)."""
        return self._f.spec

    @property
    def terminals(self) -> int:
        return self._f.terminals

    @property
    def switches(self) -> int:
        return self._f.switches

    @property
    def channels(self) -> int:
        """Directed channels (two per cable, plus none for unconnected ports)."""
        return self._f.channels

    def summary(self) -> dict:
        """What ``routelab topo`` prints: terminals, switches, links, channels, radix and
        degree histograms, components, diameter; for fat-trees the XGFT, levels, switches per
        level and bisection width."""
        return self._f.summary()

    @property
    def xgft(self) -> Optional[dict]:
        """A fat-tree's XGFT structure {"family", "m", "w", "params"} (None otherwise)."""
        return self._document().get("xgft")

    def terminal_names(self) -> list[str]:
        """Terminal names in terminal order (the order of addresses and of table columns)."""
        return self._f.terminal_names()

    def switch_names(self) -> list[str]:
        """Switch names in switch order (the order of table rows)."""
        return self._f.switch_names()

    def node(self, name: str) -> dict:
        """A node's attributes (kind, ports, guid, xgft) by name."""
        for node in self._document()["nodes"]:
            if node["name"] == name:
                return node
        raise KeyError(name)

    def neighbor(self, node: str, port: int) -> Optional[tuple[str, int]]:
        """The (node, port) a port is cabled to, or None."""
        return self._f.neighbor(node, port)

    def channel_frame(self) -> Any:
        """One row per channel id: from, from_port, to, to_port (a pandas.DataFrame)."""
        frame = _pandas().DataFrame(self._f.channel_columns())
        frame.index.name = "channel"
        return frame

    @property
    def export_kinds(self) -> list[str]:
        """The formats ``export`` writes: ``["net", "dot", "json"]``."""
        return list(self._f.export_kinds)

    def export(self, kind: str, path: str | os.PathLike) -> None:
        """Write the fabric to ``path`` as ``kind``: ``net`` (an ibsim net file), ``dot``
        (Graphviz) or ``json`` (routelab's JSON form, docs/FORMATS.md) — the library's dispatch
        behind ``routelab topo --export KIND FILE``, so the file is the CLI's byte for byte.
        Written to a temporary and renamed (no half-written file). An unknown ``kind`` raises
        ValueError ``export: unknown format 'xml' (net, dot, json)``; a path that cannot be
        written ``InputError``."""
        self._f.export(kind, os.fspath(path))

    def __eq__(self, other: object) -> bool:
        """Same nodes (names, kinds, ports, GUIDs, labels) and cables; the spec may differ."""
        if not isinstance(other, Fabric):
            return NotImplemented
        strip = lambda d: {k: v for k, v in d.items() if k != "origin"}  # noqa: E731
        return strip(self._document()) == strip(other._document())

    def __repr__(self) -> str:
        return f"Fabric({self.spec!r}: {self.terminals} terminals, {self.switches} switches)"


# --------------------------------------------------------------------------------- Routing


@dataclass
class Path:
    """One walk of a routing: status ("delivered", "no route", "loop", ...), the layer, the
    destination address and its LID, the hops as (from, from_port, to, to_port) and the
    channel ids (injection channel first)."""

    status: str
    layer: int
    address: int
    lid: int
    hops: list
    channels: list

    @property
    def nodes(self) -> list[str]:
        """The nodes visited, source first."""
        return [self.hops[0][0]] + [h[2] for h in self.hops] if self.hops else []


class Routing:
    """A routing of a fabric: per layer group a forwarding table (switch x address ->
    candidate ports), the addresses (LIDs) and the layers (virtual lanes) of each pair.

    Get one from :func:`route` (any engine of the library), :meth:`from_function` or
    :meth:`from_tables` (a routing written in Python); every operation takes any of them.
    """

    def __init__(self, native: Any, fabric: Fabric):
        self._r = native
        self.fabric = fabric

    # ---- construction from Python ----

    @classmethod
    def from_tables(cls, fabric: Fabric, tables: Sequence[Any] | Any, layer_of: Any = None,
                    table_of_layer: Optional[Sequence[int]] = None, name: str = "python",
                    deterministic: bool = True) -> "Routing":
        """A routing from filled tables, one address per terminal (terminal order).

        ``tables``: one array per layer group, shape (switches, terminals) of output ports,
        or (switches, terminals, K) of candidate ports, preferred first, 255 = none.
        ``layer_of``: (terminals, terminals) array, the layer of source s's traffic to
        destination d (None: layer 0). ``table_of_layer``: the table each layer uses
        (None: one layer, table 0). Raises ValueError naming a bad port or shape.
        """
        _require(fabric, Fabric, "fabric")
        if isinstance(tables, np.ndarray) and tables.ndim in (2, 3) and not isinstance(tables, list):
            tables = [tables]
        arrays = [np.asarray(t, dtype=np.int64) for t in tables]
        layers = None if layer_of is None else np.asarray(layer_of, dtype=np.int64)
        native = _rl.from_tables(fabric._f, arrays, layers, list(table_of_layer or []), name, deterministic)
        return cls(native, fabric)

    @classmethod
    def from_function(cls, fabric: Fabric, function: Callable[[str, str], Any], name: str = "python",
                      layer: Optional[Callable[[str, str], int]] = None) -> "Routing":
        """A routing written in Python: ``function(switch, destination)`` gives the output
        port (an int) or the candidate ports (a list, preferred first; [] or None: no route)
        of ``switch`` toward terminal ``destination`` (node names). ``layer(source,
        destination)``, if given, assigns each terminal pair a layer; each layer uses the
        same table (a routing with a table per layer: :meth:`from_tables`)."""
        _require(fabric, Fabric, "fabric")
        if not callable(function):
            raise TypeError("function must be callable (switch, destination) -> ports")
        switches, terminals = fabric.switch_names(), fabric.terminal_names()
        entries = []
        width = 1
        for s in switches:
            row = []
            for d in terminals:
                ports = function(s, d)
                if ports is None:
                    ports = []
                elif isinstance(ports, (int, np.integer)):
                    ports = [int(ports)]
                else:
                    ports = [int(p) for p in ports]
                width = max(width, len(ports))
                row.append(ports)
            entries.append(row)
        table = np.full((len(switches), len(terminals), width), NO_ROUTE, dtype=np.int64)
        for i, row in enumerate(entries):
            for j, ports in enumerate(row):
                table[i, j, :len(ports)] = ports
        layer_of, table_of_layer = None, None
        if layer is not None:
            layer_of = np.array([[int(layer(s, d)) for d in terminals] for s in terminals], dtype=np.int64)
            table_of_layer = [0] * (int(layer_of.max()) + 1 if layer_of.size else 1)
        return cls.from_tables(fabric, [table], layer_of, table_of_layer, name, deterministic=width == 1)

    # ---- properties ----

    @property
    def engine(self) -> str:
        """The effective engine spec (name:options), "python" for routings built here."""
        return self._r.engine

    @property
    def reference(self) -> str:
        return self._r.reference

    @property
    def deterministic(self) -> bool:
        return self._r.deterministic

    @property
    def minimal(self) -> bool:
        return self._r.minimal

    @property
    def layers(self) -> int:
        return self._r.layers

    @property
    def table_of_layer(self) -> list[int]:
        return self._r.table_of_layer

    @property
    def addresses(self) -> int:
        return self._r.addresses

    @property
    def stats(self) -> dict:
        return dict(self._r.stats)

    @property
    def checks(self) -> Optional[dict]:
        """The checks ``routelab route`` prints (its JSON's ``checks``: pairs delivered,
        loops, minimal and deterministic claims, path lengths, stages), when
        ``route(..., no_checks=False)`` ran them; else None."""
        return self._r.checks

    @property
    def tables(self) -> list[np.ndarray]:
        """The forwarding tables as read-only numpy arrays (switches x addresses) that view
        the library's memory without copying (``arr.base`` is the routing): a code below
        :meth:`list_base` is a port, 255 is no route, other codes name candidate lists
        (:meth:`candidate_lists`). A compacted table is expanded once, on first view."""
        return [self._r.table_codes(i) for i in range(self._r.table_count)]

    def table(self, index: int = 0) -> np.ndarray:
        """Table ``index`` as :attr:`tables` gives it."""
        return self._r.table_codes(index)

    def list_base(self, index: int = 0) -> int:
        """Codes at and above this (below 255) are candidate lists (one-byte tables)."""
        return self._r.list_base(index)

    def candidate_lists(self, index: int = 0) -> list[list[int]]:
        """The candidate port lists of an adaptive table, by list id."""
        return self._r.candidate_lists(index)

    def ports(self, index: int = 0) -> np.ndarray:
        """The preferred port of every entry (switches x addresses, uint8; 255 = no route):
        the table itself for a deterministic one-byte table, else decoded (a copy)."""
        codes = self.table(index)
        lists = self.candidate_lists(index)
        if not lists and self._r.code_width(index) == 1:
            return codes
        wide = self._r.code_width(index) > 1
        base = 256 if wide else self.list_base(index)
        out = codes.astype(np.uint8 if not wide else np.uint16)
        for i, ports in enumerate(lists):
            code = (256 + i) if wide else (254 - i)
            out[codes == code] = ports[0]
        if wide:
            out[codes == 255] = NO_ROUTE
        del base
        return out.astype(np.uint8)

    def path(self, source: str, destination: str, path: int = 0) -> Path:
        """The walk of the preferred ports from ``source`` to ``destination`` (node names) on
        LMC path ``path``."""
        return Path(**self._r.path(source, destination, path))

    def paths(self, source: str, destination: str) -> list[Path]:
        """Every LMC path of a pair."""
        return [self.path(source, destination, p) for p in range(self._r.path_count(destination))]

    @property
    def export_kinds(self) -> list[str]:
        """The kinds ``export`` writes for this routing: ``lft`` and ``sl`` for every routing,
        ``fir`` / ``ir`` where the engine's registry row declares them (``routelab list``)."""
        return list(self._r.export_kinds)

    def export(self, kind: str, path: str | os.PathLike) -> None:
        """Write the routing to ``path`` as ``kind`` — the library's dispatch behind
        ``routelab route --export KIND FILE``, so the file is the CLI's byte for byte:

        * ``lft``: an OpenSM LFT dump (a routing with several tables gets a LID per table,
          LMC; a fabric with LIDs of its own is written on them);
        * ``sl``: ``slid dlid sl`` per terminal pair (load it with the LFT);
        * ``fir`` / ``ir``: the interval-routing registers of Gómez et al. 2007 §4.1 / §3.1,
          for the engines that declare them (``export_kinds``).

        Written to a temporary and renamed (no half-written file). A kind this routing does
        not export raises ValueError naming the kind and the allowed ones (``export ir: the IR
        registers describe ftree-adaptive (Gómez §3.1); the engine is 'dmodk', which exports
        lft, sl, fir``); a path that cannot be written ``InputError``."""
        self._r.export(kind, os.fspath(path))

    def __repr__(self) -> str:
        return f"Routing({self.engine!r}: {self.layers} layer(s), {self.addresses} addresses)"


def route(fabric: Fabric, engine: str, *, no_checks: bool = True, **options: Any) -> Routing:
    """Route ``fabric`` with an engine spec (``"dmodk"``, ``"lash:vls=4"``, ``"file:LFTS"``;
    ``routelab list`` shows every engine and its options), as ``routelab route``. The options
    are the route request's rows (:func:`options` lists them): ``lmc`` (2^lmc addresses per
    terminal), ``switch_addresses``, ``seed``, ``lid_map`` (an OpenSM guid2lid file: the
    exports use its LIDs) and ``no_checks`` — True by default here (:func:`verify` is the
    check from Python); ``no_checks=False`` runs the checks ``routelab route`` prints and
    keeps them in ``Routing.checks``."""
    _require(fabric, Fabric, "fabric")
    _require(engine, str, "engine")
    return Routing(_rl.route(fabric._f, engine, no_checks=no_checks, **options), fabric)


# ---------------------------------------------------------------------------------- verify


@dataclass
class Verdict:
    """``rl.verify``'s answer (Lysne Thms. 1-2; Duato for escape layers): connected,
    loop_free, deadlock_free, passed; on a deadlock-prone routing the witness ``cycle``
    (channels "sw[p] -> sw[q]") in layer ``cycle_layer``."""

    connected: bool
    loop_free: bool
    deadlock_free: bool
    passed: bool
    layers: int
    layers_used: int
    method: str
    cycle: Optional[list[str]]
    cycle_layer: Optional[int]
    cycle_channel_ids: list[int]
    failures: list[dict]
    details: dict = field(repr=False)

    def __bool__(self) -> bool:
        return self.passed


def _check_pair(fabric: Any, routing: Any) -> None:
    _require(fabric, Fabric, "fabric")
    _require(routing, Routing, "routing")
    if routing.fabric is not fabric and routing.fabric != fabric:
        raise ValueError("routing: it routes another fabric")


def verify(fabric: Fabric, routing: Routing, **options: Any) -> Verdict:
    """Connected, loop-free, deadlock-free per layer, as ``routelab verify`` (Lysne Thms. 1-2;
    Duato for escape layers). Options are the request's keys (:func:`options` ("verify")):
    ``switch_traffic`` (also traffic from and to switch addresses; route with
    ``switch_addresses=True``), ``examples`` (failure examples kept per kind)."""
    _check_pair(fabric, routing)
    d = _rl.verify(fabric._f, routing._r, **options)
    values = {k: d.get(k) for k in Verdict.__dataclass_fields__.keys() - {"details"}}
    values["failures"] = d.get("failures") or d.get("examples") or []
    values["cycle_channel_ids"] = d.get("cycle_channel_ids") or []
    return Verdict(**values, details=d)


# --------------------------------------------------------------------------------- analyze


@dataclass
class Analysis:
    """``rl.analyze``'s answer: ``value`` (WORST, ML, bandwidth or path count, per metric),
    ``witness`` (worst: the permutation reaching it, as (source, destination) names),
    ``loads`` (pattern, stages: per-channel loads as a DataFrame), ``details`` (all fields)."""

    metric: str
    value: float
    witness: Optional[list]
    loads: Any
    details: dict = field(repr=False)


def analyze(fabric: Fabric, routing: Routing, metric: str = "worst", **options: Any) -> Analysis:
    """Static congestion (Nienaber §II), as ``routelab analyze``: ``metric`` is worst, abb,
    afpb, adb, pattern (``pattern="shift:s=1"``) or stages; options ``seed``,
    ``load_model`` (first-path, even-split, best-split), ``precision``, ``max_samples``,
    ``split_tolerance``, ``split_iterations``, ``threads`` (:func:`options` lists them)."""
    _check_pair(fabric, routing)
    d = _rl.analyze(fabric._f, routing._r, metric=metric, **options)
    loads = None
    if "loads" in d:
        loads = fabric.channel_frame()
        loads["load"] = d.pop("loads")
    witness = d.get("witness")
    if witness is not None:
        witness = [(w["source"], w["destination"]) for w in witness]
    return Analysis(metric=d["metric"], value=d["value"], witness=witness, loads=loads, details=d)


# -------------------------------------------------------------------------------- simulate


def simulate(fabric: Fabric, routing: Routing, loads: Optional[Iterable[float]] = (0.1,), **options: Any) -> Any:
    """Flit-level simulation (Gómez §5), as ``routelab simulate``: one point per offered load
    of ``loads`` (flits/terminal/cycle), run in order, as a pandas.DataFrame with one row per
    point (load, offered, accepted, latency_avg, latency_p99, ..., source_min, source_jain,
    deadlock, ...; docs/SIMULATION.md "Output").

    ``loads=None`` runs what the options name instead: one run at ``load=``, the saturation
    search (``saturation=True``) or a trace (``trace=PATH``, ``trace_generate=SPEC``).
    Options are the request's keys (:func:`options` ("simulate"): the CLI's flags with '_'
    for '-'), e.g. ``packet_flits=32, cycles=5000, selection="ff", seed=2``; ``threads``
    splits each run's switches (results do not depend on it).

    ``frame.attrs``: ``"config"`` the effective configuration (seed included),
    ``"utilization"`` a DataFrame of per-channel utilization (one column per point, rows
    :meth:`Fabric.channel_frame`), ``"source_accepted"`` a DataFrame of per-source accepted
    traffic (one column per point, rows the terminals)."""
    _check_pair(fabric, routing)
    loads = [] if loads is None else [float(x) for x in loads]
    d = _rl.simulate(fabric._f, routing._r, loads, **options)
    utilization_columns = d.pop("channel_utilization")
    accepted_columns = d.pop("source_accepted")
    points = d.pop("points", None)
    config = dict(d)
    if points is None:
        points = [d]
    pandas = _pandas()
    rows = [{k: v for k, v in p.items() if not isinstance(v, (dict, list))} for p in points]
    frame = pandas.DataFrame(rows)
    if "load" in frame.columns:
        frame = frame[["load"] + [c for c in frame.columns if c != "load"]]
    labels = [p.get("load", i) for i, p in enumerate(points)]
    utilization = fabric.channel_frame()
    sources = pandas.DataFrame(index=pandas.Index(fabric.terminal_names(), name="terminal"))
    for label, column, accepted in zip(labels, utilization_columns, accepted_columns):
        utilization[label] = column
        if len(accepted) == len(sources.index):
            sources[label] = accepted
    echo = set(_rl.option_rows("simulate")) | {"terminals", "traffic"}
    frame.attrs["config"] = {k: v for k, v in config.items() if k in echo}
    frame.attrs["utilization"] = utilization
    frame.attrs["source_accepted"] = sources
    frame.attrs["details"] = points
    return frame


# -------------------------------------------------------------------------------- schedule


def schedule(fabric: Fabric, scheduler: str = "level-wise", **options: Any) -> dict:
    """Circuit scheduling on a fat-tree (Ding §4), as ``routelab schedule``: the JSON the CLI
    prints — the schedulability ratio's mean/min/max over ``permutations`` request sets
    (``ratio_mean``, ``ratio_min``, ``ratio_max``, and ``ratios`` per set), with
    ``rounds=True`` the multi-round schedule's rounds. Options are the request's keys
    (:func:`options` ("schedule")): ``pattern``, ``permutations``, ``seed``,
    ``release_on_fail``, ``rounds``."""
    _require(fabric, Fabric, "fabric")
    _require(scheduler, str, "scheduler")
    with tempfile.TemporaryDirectory() as directory:
        d = _rl.schedule(_loadable_spec(fabric, directory), scheduler=scheduler, **options)
    for key, value in list(d.items()):
        if isinstance(value, dict) and key in ("ratio", "rounds"):
            for inner, number in value.items():
                d.setdefault(f"{key}_{inner}", number)
    return d


# --------------------------------------------------------------------------------- compare


def _loadable_spec(fabric: Fabric, directory: str) -> str:
    try:
        Fabric(fabric.spec)
        return fabric.spec
    except Exception:  # a fabric built in Python: compare reads it from a file
        path = os.path.join(directory, "fabric.json")
        fabric.export("json", path)
        return "json:" + path


def compare(fabric: Fabric | str = "kary-ntree:k=4,n=3", *, routings: Sequence[Routing | tuple[str, Routing]] = (),
            output: str | os.PathLike = "routelab-report", **options: Any) -> Any:
    """``routelab compare`` (docs/COMPARE.md): every engine (or ``engines``) routed, verified,
    analysed and checked against what the fabric offers (``vls`` virtual lanes,
    ``adaptive_switches``, ``in_order``), the leaders simulated; ``routings`` (routings built
    in Python, e.g. :meth:`Routing.from_function`, named by their engine or as ``(name,
    routing)``) are ranked beside them.

    ``options`` are the compare request's keys (``options("compare")``: the CLI's flags with
    '_' for '-', the same defaults and ranges), checked before anything is written:
    ``engines`` a list of engine specs (or one string, specs separated by ';'), ``seed``,
    ``precision``, ``max_samples``, ``max_shifts``, ``detail_terminals``,
    ``max_addresses_per_terminal``, ``generic_engine_switches``, ``threads``, ``opensm_dir``,
    ``vls``, ``adaptive_switches``, ``in_order``, ``simulate`` (not given: the leaders are
    simulated on fabrics up to ``simulate_terminals``; True: at any size; False: never),
    ``simulate_terminals``, ``simulate_leaders``, ``simulate_cycles``, ``simulate_steps``.

    Returns the ranking as a pandas.DataFrame (one row per routing, best first) with
    ``attrs["recommendation"]`` the routing to deploy, ``attrs["report"]`` the HTML report's
    path (written under ``output`` with ``compare.json``), ``attrs["json"]`` the whole
    decision (what ``routelab compare --format json`` prints) and ``attrs["request"]`` the
    request's options."""
    if isinstance(fabric, str):
        fabric = Fabric(fabric)
    _require(fabric, Fabric, "fabric")
    engines = options.get("engines")
    if engines is not None and not isinstance(engines, str):
        try:
            engines = list(engines)
        except TypeError:
            raise TypeError(f"compare: engines must be a list of engine specs (got {type(engines).__name__})") from None
        for engine in engines:
            _require(engine, str, "engines[]")
            if ";" in engine:
                raise ValueError(f"compare: engines: a spec in a list has no ';' (got {engine!r})")
        if engines:
            options["engines"] = ";".join(engines)
        else:
            del options["engines"]  # every engine of the registry
    request = _rl.compare_request(fabric.spec or "python", **options)  # ValueError/TypeError before any file
    named = []
    for item in routings:
        name, routing = item if isinstance(item, tuple) else (item.engine if isinstance(item, Routing) else None, item)
        _require(routing, Routing, "routings[]")
        _require(name, str, "routing name")
        _check_pair(fabric, routing)
        named.append((name, routing._r))
    output = os.fspath(output)
    os.makedirs(output, exist_ok=True)
    spec = _loadable_spec(fabric, output)
    text = _rl.compare(spec, named, output, **options)
    decision = json.loads(text)
    rows = decision.get("ranking") or decision.get("engines") or []
    frame = _pandas().DataFrame([{k: v for k, v in r.items() if not isinstance(v, (dict, list))} for r in rows])
    frame.attrs["report"] = os.path.join(output, "index.html")
    frame.attrs["json"] = decision
    frame.attrs["request"] = request
    frame.attrs["verdict"] = decision.get("verdict", {})
    frame.attrs["recommendation"] = frame.attrs["verdict"].get("recommended") or None
    return frame


# ----------------------------------------------------------------------------------- sweep


def sweep(file: str | os.PathLike, results: Optional[str | os.PathLike] = None, *, jobs: int = 0,
          threads: int = 0) -> Any:
    """Run a sweep file (docs/SWEEPS.md) as ``routelab sweep`` does: the points not yet in
    ``results`` (default: the file's name with ``.sqlite``) are computed (``jobs`` at once, 0 =
    every core; ``threads`` inside a point, 0 = cores / jobs) and stored as each ends, so an
    interrupted sweep (Ctrl-C) resumes. Returns :func:`results` of the file."""
    file = os.fspath(file)
    results = os.fspath(results) if results else os.path.splitext(file)[0] + ".sqlite"
    _require(jobs, int, "jobs")
    _require(threads, int, "threads")
    if jobs < 0 or threads < 0:
        raise ValueError(f"sweep: jobs and threads must be >= 0 (got {jobs}, {threads})")
    _rl.sweep(file, results, jobs, threads)
    return read_results(results)


def read_results(results: str | os.PathLike) -> Any:
    """A sweep's results file as a pandas.DataFrame, one row per point: its configuration keys
    (the axes), then its result keys, as ``routelab results --format json`` gives them
    (timings left out); ``attrs["header"]`` the sweep's name, identity and version."""
    data = _rl.read_results(os.fspath(results))
    rows = []
    for point in data.get("results", []):
        row = {}
        for part in ("config", "result"):
            if isinstance(point.get(part), dict):
                row.update({k: v for k, v in point[part].items() if not isinstance(v, (dict, list))})
        for key, value in point.items():
            if key not in ("config", "result") and not isinstance(value, (dict, list)):
                row.setdefault(key, value)
        rows.append(row)
    frame = _pandas().DataFrame(rows)
    frame.attrs["header"] = {k: v for k, v in data.items() if k != "results"}
    return frame


def options(operation: str) -> dict:
    """The keyword options of an operation's request (``"analyze"``, ``"simulate"``, ...; see
    :func:`operations`): name -> dict(type, default, minimum, maximum, choices, help,
    reference, required). They are the CLI's flags with '_' for '-' and the sweep file's
    keys; the same rows validate all three."""
    _require(operation, str, "operation")
    fields = ("type", "default", "minimum", "maximum", "choices", "help", "reference", "required")
    return {key: dict(zip(fields, row)) for key, row in _rl.option_rows(operation).items()}


def operations() -> list[str]:
    """The operations that have a request schema (:func:`options`)."""
    return list(_rl.operations())
