"""The routelab package's API (docs/PYTHON.md): every call, the numpy / pandas / networkx
round trips, routings written in Python, and the error paths."""

import signal
import threading

import networkx as nx
import numpy as np
import pandas as pd
import pytest

import routelab as rl


# ---- Fabric ----

def test_fabric_counts_and_summary(tree):
    assert (tree.terminals, tree.switches) == (8, 12)
    s = tree.summary()
    assert s["terminals"] == 8 and s["switches"] == 12 and s["connected"]
    assert s["switches_per_level"] == [4, 4, 4]
    assert tree.xgft["m"] == [2, 2, 2] and tree.xgft["family"] == "kary-ntree"
    assert tree.spec == "kary-ntree:k=2,n=3"


def test_networkx_round_trip(tree):
    g = tree.to_networkx()
    assert isinstance(g, nx.Graph)
    assert g.number_of_nodes() == 20 and g.number_of_edges() == 8 + 16
    assert g.nodes["kt-h0"]["kind"] == "terminal"
    a, b, ports = next(iter(g.edges(data="ports")))
    assert set(ports) == {a, b} and tree.neighbor(a, ports[a]) == (b, ports[b])
    back = rl.Fabric.from_networkx(g)
    assert back == tree
    # the same fabric, routed the same way
    assert np.array_equal(rl.route(back, "dmodk").ports(), rl.route(tree, "dmodk").ports())


def test_networkx_without_ports_or_structure():
    g = nx.path_graph(3)
    nx.set_node_attributes(g, "switch", "kind")
    for i in range(3):
        g.add_node(f"t{i}", kind="terminal")
        g.add_edge(f"t{i}", i)
    f = rl.Fabric.from_networkx(g)
    assert (f.terminals, f.switches) == (3, 3)
    assert f.xgft is None
    assert rl.verify(f, rl.route(f, "updown")).passed


def test_fabric_load_and_export(tree, tmp_path):
    for kind in ("net", "json", "dot"):
        tree.export(kind, tmp_path / f"f.{kind}")
    assert rl.Fabric.load(tmp_path / "f.json") == tree
    assert rl.Fabric.load(tmp_path / "f.net").terminals == 8


def test_channel_frame(tree):
    frame = tree.channel_frame()
    assert len(frame) == tree.channels and list(frame.columns) == ["from", "from_port", "to", "to_port"]


# ---- Routing ----

def test_route_tables_are_views(tree):
    routing = rl.route(tree, "dmodk")
    tables = routing.tables
    assert len(tables) == 1 and tables[0].shape == (12, 8)
    table = tables[0]
    # no copy: the array views the routing's memory, and two views share it
    assert table.base is routing._r
    assert np.shares_memory(table, routing.table(0))
    assert not table.flags.writeable
    assert routing.deterministic and routing.layers == 1
    # the preferred ports agree with the walks
    path = routing.path("kt-h0", "kt-h7")
    assert path.status == "delivered" and path.nodes[0] == "kt-h0" and path.nodes[-1] == "kt-h7"
    names = tree.switch_names()
    for frm, port, _, _ in path.hops[1:-1]:
        assert table[names.index(frm), 7] == port


def test_adaptive_tables_and_paths(tree):
    routing = rl.route(tree, "ftree-adaptive")
    assert not routing.deterministic
    lists = routing.candidate_lists()
    assert lists and all(len(l) >= 2 for l in lists)
    ports = routing.ports()
    codes = routing.table()
    assert routing._r.code_width(0) == 1
    for i, ports_list in enumerate(lists):
        assert (ports[codes == 254 - i] == ports_list[0]).all()
    lmc = rl.route(tree, "dmodk", lmc=1)
    assert len(lmc.paths("kt-h0", "kt-h5")) == 2


def test_route_export(tree, tmp_path):
    routing = rl.route(tree, "dmodk")
    routing.export("lft", tmp_path / "lfts")
    routing.export("sl", tmp_path / "sl")
    again = rl.route(tree, "file:" + str(tmp_path / "lfts"))
    assert np.array_equal(again.ports(), routing.ports())


# ---- routings written in Python ----

def test_python_routing_verified_analyzed_simulated(tree):
    dmodk = rl.route(tree, "dmodk")
    table, switches, terminals = dmodk.ports(), tree.switch_names(), tree.terminal_names()
    mine = rl.Routing.from_function(tree, lambda s, d: int(table[switches.index(s), terminals.index(d)]))
    assert np.array_equal(mine.ports(), table)
    verdict = rl.verify(tree, mine)
    assert verdict.deadlock_free and verdict.connected and verdict.cycle is None and bool(verdict)
    assert rl.analyze(tree, mine).value == rl.analyze(tree, dmodk).value
    points = rl.simulate(tree, mine, loads=[0.1], cycles=1000)
    reference = rl.simulate(tree, dmodk, loads=[0.1], cycles=1000)
    assert points["accepted"].tolist() == reference["accepted"].tolist()
    assert not points["deadlock"].any()


def test_deadlock_prone_python_routing_refused(ring):
    fabric, clockwise = ring
    routing = rl.Routing.from_function(fabric, clockwise)
    verdict = rl.verify(fabric, routing)
    assert verdict.connected and verdict.loop_free
    assert not verdict.deadlock_free and not verdict.passed
    assert verdict.cycle_layer == 0 and len(verdict.cycle) == 4
    # the witness is the ring: every channel between two switches, clockwise
    frame = fabric.channel_frame()
    for c in verdict.cycle_channel_ids:
        assert frame.loc[c, "from"].startswith("s") and frame.loc[c, "from_port"] == 2


def test_from_tables_checks(tree):
    good = rl.route(tree, "dmodk").ports()
    with pytest.raises(ValueError, match="shape"):
        rl.Routing.from_tables(tree, [good[:, :3]])
    bad = good.astype(np.int64).copy()
    bad[0, 0] = 9
    with pytest.raises(ValueError, match=r"port 9 .* must be in 0\.\.4"):
        rl.Routing.from_tables(tree, [bad])
    with pytest.raises(ValueError, match="layer_of"):
        rl.Routing.from_tables(tree, [good], layer_of=np.zeros((8, 8)) + 3)


# ---- analyze, simulate, schedule, compare ----

def test_analyze_metrics(tree):
    routing = rl.route(tree, "dmodk")
    worst = rl.analyze(tree, routing, metric="worst")
    assert worst.value >= 1 and len(worst.witness) >= worst.value
    pattern = rl.analyze(tree, routing, metric="pattern", pattern="shift:s=1")
    assert isinstance(pattern.loads, pd.DataFrame) and pattern.loads["load"].max() == pattern.value
    stages = rl.analyze(tree, routing, metric="stages")
    assert stages.loads["load"].max() == stages.value
    abb = rl.analyze(tree, routing, metric="abb", max_samples=4000)
    assert 0 < abb.value <= 1


def test_simulate_frame(tree):
    routing = rl.route(tree, "dmodk")
    points = rl.simulate(tree, routing, loads=[0.1, 0.3], packet_flits=8, cycles=1000)
    assert list(points["load"]) == [0.1, 0.3]
    for column in ("offered", "accepted", "latency_avg", "source_fairness"):
        assert column in points.columns
    assert (points["accepted"] > 0).all() and points["accepted"].iloc[1] > points["accepted"].iloc[0]
    util = points.attrs["utilization"]
    assert len(util) == tree.channels and list(util.columns[-2:]) == [0.1, 0.3]


def test_schedule():
    fabric = rl.Fabric("ft:l=2,m=4,w=4")
    r = rl.schedule(fabric, "level-wise", permutations=10)
    assert 0 < r["ratio_min"] <= r["ratio_mean"] <= r["ratio_max"] <= 1 and len(r["ratios"]) == 10


def test_compare(tree, tmp_path):
    ranking = rl.compare(tree, engines=["dmodk", "updown"], simulate=False, output=tmp_path / "report")
    assert isinstance(ranking, pd.DataFrame) and len(ranking) >= 2
    assert (tmp_path / "report" / "index.html").exists()
    assert ranking.attrs["report"].endswith("index.html")
    assert ranking.attrs["recommendation"] == ranking["name"].iloc[0]


def test_compare_ranks_python_routings(tree, tmp_path):
    dmodk = rl.route(tree, "dmodk")
    table, switches, terminals = dmodk.ports(), tree.switch_names(), tree.terminal_names()
    same = rl.Routing.from_function(tree, lambda s, d: int(table[switches.index(s), terminals.index(d)]))
    ranking = rl.compare(tree, engines=["dmodk"], routings=[("mine", same)], simulate=False, output=tmp_path)
    assert ranking.set_index("name").loc["mine", "origin"] == "caller"
    verdict = ranking.attrs["verdict"]
    # Equal tables rank equal; the engine listed first is recommended, the copy named equal.
    assert verdict["recommended"] == "dmodk" and "mine" in verdict["equals"]
    assert "identical tables" in verdict["why"]
    assert ranking.attrs["json"]["configuration"]["routings"] == ["mine"]


def test_compare_refuses_a_deadlock_prone_python_routing(ring, tmp_path):
    fabric, clockwise = ring
    mine = rl.Routing.from_function(fabric, clockwise, name="clockwise")
    ranking = rl.compare(fabric, engines=["minhop"], routings=[mine], simulate=False, output=tmp_path)
    rows = ranking.set_index("name")
    assert not rows.loc["clockwise", "deadlock_free"]
    assert ranking.attrs["recommendation"] != "clockwise"


def test_compare_options_are_the_request_rows(tree, tmp_path):
    """rl.compare's keywords are the compare request's rows: checked (ValueError naming the key
    and its range, TypeError for a wrong type) before anything is written."""
    rows = rl.options("compare")
    assert rows["vls"]["default"] == 8 and (rows["vls"]["minimum"], rows["vls"]["maximum"]) == ("1", "15")
    assert rows["simulate"]["default"] is None and rows["simulate"]["type"] == "bool"
    assert "compare" in rl.operations()
    with pytest.raises(ValueError, match=r"compare: vls must lie in \[1, 15\] \(got 16\)"):
        rl.compare(tree, vls=16, output=tmp_path / "vls")
    with pytest.raises(ValueError, match=r"compare: simulate_steps must lie in \[1, 20\] \(got 0\)"):
        rl.compare(tree, simulate_steps=0, output=tmp_path / "steps")
    with pytest.raises(ValueError, match="unknown option 'no_such_key'"):
        rl.compare(tree, no_such_key=1, output=tmp_path / "unknown")
    with pytest.raises(TypeError, match="vls"):
        rl.compare(tree, vls="8", output=tmp_path / "type")
    assert not any((tmp_path / name).exists() for name in ("vls", "steps", "unknown", "type"))
    ranking = rl.compare(tree, engines=("dmodk",), simulate=False, max_shifts=4, seed=9, output=tmp_path / "r")
    configuration = ranking.attrs["json"]["configuration"]
    assert configuration["seed"] == 9 and configuration["max_shifts"] == 4
    assert configuration["engines"] == ["dmodk"] and not configuration["simulate"]


def test_options_table():
    rows = rl.options("simulate")
    assert rows["packet_flits"]["default"] == 8 and rows["packet_flits"]["type"] == "int"
    assert rows["fabric"]["required"] and "analyze" in rl.operations() and "simulate" in rl.operations()
    assert rows["selection"]["choices"] and "sadp" in rows["selection"]["choices"]


# ---- errors ----

def test_errors(tree, tmp_path):
    routing = rl.route(tree, "dmodk")
    with pytest.raises(ValueError, match=r"packet_flits must lie in \[1, 4096\] \(got 0\)"):
        rl.simulate(tree, routing, loads=[0.1], packet_flits=0)
    with pytest.raises(ValueError, match="unknown option 'packet_flit'"):
        rl.simulate(tree, routing, loads=[0.1], packet_flit=8)
    # The requests' refusals name other options as Python spells them, not as CLI flags.
    trace = "io:storage=1,clients=3"
    with pytest.raises(ValueError, match=r"^loads, saturation and trace/trace_generate exclude each other$"):
        rl.simulate(tree, routing, trace_generate=trace)
    with pytest.raises(ValueError, match=r"^message_packets does not apply to a trace run \(the trace is the traffic"):
        rl.simulate(tree, routing, loads=None, trace_generate=trace, message_packets=2)
    with pytest.raises(ValueError, match=r"^payload applies only to a trace run \(trace or trace_generate\)$"):
        rl.simulate(tree, routing, loads=[0.1], payload=512)
    with pytest.raises(ValueError, match=r"^metric pattern needs pattern SPEC"):
        rl.analyze(tree, routing, metric="pattern")
    with pytest.raises(ValueError, match=r"load must lie in \(0, 1\]"):
        rl.simulate(tree, routing, loads=[1.5])
    with pytest.raises(ValueError):
        rl.analyze(tree, routing, metric="nope")
    with pytest.raises(ValueError):
        rl.Fabric("kary-ntree:k=2")
    with pytest.raises(ValueError, match=r"route: lmc must lie in \[0, 7\] \(got 9\)"):
        rl.route(tree, "dmodk", lmc=9)
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "routelab-network",\n "version": 1,\n "nodes": 3}\n')
    with pytest.raises(rl.InputError, match="broken.json:"):
        rl.Fabric.load(broken)
    with pytest.raises(rl.InputError):
        rl.Fabric.load(tmp_path / "missing.net")
    assert issubclass(rl.LimitError, MemoryError) and issubclass(rl.InputError, rl.Error)
    with pytest.raises(ValueError, match=r"too many nodes \(limit 2\^26\)"):
        rl.Fabric("kary-ntree:k=64,n=6")
    with pytest.raises(MemoryError, match="128.0 GiB exceeds the 24.0 GiB memory budget"):
        rl.route(rl.Fabric("kary-ntree:k=32,n=4"), "dmodk")  # refused before allocating
    with pytest.raises(rl.Error):
        rl.route(rl.Fabric("random:switches=6,seed=2"), "dmodk")  # not a fat-tree


def test_wrong_types_raise_type_error(tree):
    routing = rl.route(tree, "dmodk")
    with pytest.raises(TypeError):
        rl.Fabric(3)
    with pytest.raises(TypeError):
        rl.verify("kary-ntree:k=2,n=3", routing)
    with pytest.raises(TypeError):
        rl.simulate(tree, routing, loads=[0.1], packet_flits="many")
    with pytest.raises(TypeError):
        rl.simulate(tree, routing, loads=[0.1], packet_flits=[1])
    with pytest.raises(TypeError):
        rl.Routing.from_function(tree, 5)
    with pytest.raises(TypeError):
        routing.path(1, 2)
    with pytest.raises(ValueError, match="another fabric"):
        rl.verify(rl.Fabric("kary-ntree:k=2,n=2"), routing)


def test_ctrl_c_stops_a_simulation(tree):
    routing = rl.route(tree, "dmodk")
    timer = threading.Timer(0.5, lambda: signal.raise_signal(signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        rl.simulate(tree, routing, loads=[0.5], cycles=10**9, watchdog=10**9)
    timer.join()
