"""The package and the CLI (`routelab ... --format json`) give the same answers to the same
requests: both are the same library calls."""

import pytest

import routelab as rl

SPEC = "kary-ntree:k=2,n=3"


@pytest.mark.parametrize("engine", ["dmodk", "ftree-adaptive", "lash"])
def test_route_and_verify(cli, engine):
    fabric = rl.Fabric(SPEC)
    routing = rl.route(fabric, engine)
    j = cli("route", SPEC, "--engine", engine)
    assert j["engine"] == routing.engine
    assert j["tables"]["count"] == len(routing.tables) and j["tables"]["layers"] == routing.layers
    assert j["addresses"]["count"] == routing.addresses
    v = cli("verify", SPEC, "--engine", engine)
    verdict = rl.verify(fabric, routing)
    for key in ("connected", "loop_free", "deadlock_free", "layers", "layers_used", "dependencies", "method"):
        assert v[key] == getattr(verdict, key, verdict.details.get(key)), key
    assert v["cycle"] == verdict.cycle


def test_verify_deadlock_prone(cli):
    spec = "random:switches=8,seed=3"
    v = cli("verify", spec, "--engine", "minhop", ok=(0, 4))
    verdict = rl.verify(rl.Fabric(spec), rl.route(rl.Fabric(spec), "minhop"))
    assert (v["deadlock_free"], v["cycle"], v["cycle_layer"]) == (verdict.deadlock_free, verdict.cycle,
                                                                 verdict.cycle_layer)


@pytest.mark.parametrize("metric,extra", [("worst", []), ("pattern", ["--pattern", "shift:s=3"]),
                                          ("abb", ["--max-samples", "4000"]), ("stages", [])])
def test_analyze(cli, metric, extra):
    fabric = rl.Fabric("gft2:n=4,m=4,r=4")
    routing = rl.route(fabric, "dmodk")
    j = cli("analyze", "gft2:n=4,m=4,r=4", "--engine", "dmodk", "--metric", metric, *extra)
    options = {}
    if metric == "pattern":
        options["pattern"] = "shift:s=3"
    if metric == "abb":
        options["max_samples"] = 4000
    a = rl.analyze(fabric, routing, metric=metric, **options)
    key = {"worst": "worst", "pattern": "max_load", "abb": "abb", "stages": "max_paths"}[metric]
    value = j.get("value", j.get(key))
    assert value == pytest.approx(a.value), j
    if metric == "worst":
        witness = [(w["source"], w["destination"]) for w in j["witness"]]
        assert witness == [tuple(w) for w in a.witness]


def test_simulate(cli):
    fabric = rl.Fabric(SPEC)
    routing = rl.route(fabric, "dmodk")
    j = cli("simulate", SPEC, "--engine", "dmodk", "--loads", "0.2:0.4:0.2", "--cycles", "1500", "--packet-flits",
            "16")
    frame = rl.simulate(fabric, routing, loads=[0.2, 0.4], cycles=1500, packet_flits=16)
    assert len(j["points"]) == 2
    for point, (_, row) in zip(j["points"], frame.iterrows()):
        for key in ("offered", "accepted", "latency_avg", "latency_p99", "packets_delivered", "deadlock"):
            assert point[key] == row[key], key


@pytest.mark.parametrize("lmc", [0, 1, 7])
def test_the_routing_supplies_its_lmc(cli, lmc):
    """verify, analyze and simulate take the lmc from the Routing (2^lmc addresses per terminal,
    0..7) and echo it as the CLI does for --lmc."""
    fabric = rl.Fabric(SPEC)
    routing = rl.route(fabric, "dmodk", lmc=lmc)
    assert routing.addresses == 8 * 2**lmc
    assert rl.verify(fabric, routing).details["lmc"] == lmc
    assert rl.analyze(fabric, routing, metric="worst").details["lmc"] == lmc
    assert rl.simulate(fabric, routing, loads=[0.1], cycles=300).attrs["config"]["lmc"] == lmc
    for operation in ("verify", "analyze", "simulate"):
        assert cli(operation, SPEC, "--engine", "dmodk", "--lmc", str(lmc))["lmc"] == lmc, operation


def test_schedule(cli):
    j = cli("schedule", "ft:l=2,m=4,w=4", "--permutations", "20", "--scheduler", "local-greedy")
    r = rl.schedule(rl.Fabric("ft:l=2,m=4,w=4"), "local-greedy", permutations=20)
    for key in ("ratio_mean", "ratio_min", "ratio_max"):
        got = j[key] if key in j else j["ratio"][key.split("_")[1]]
        assert got == pytest.approx(r[key]), key


def test_compare(cli, tmp_path):
    """The same compare request through the CLI's flags and Python's keywords gives the same
    decision (timings, the command line and the version apart)."""
    options = dict(engines=["dmodk", "updown", "mroots:layers=2"], vls=1, seed=3, max_shifts=8, precision=0.05,
                   simulate=False)
    j = cli("compare", SPEC, "--engine", "dmodk", "--engine", "updown", "--engines", "mroots:layers=2", "--vls", "1",
            "--seed", "3", "--max-shifts", "8", "--precision", "0.05", "--no-simulate", "--quiet", "--output",
            str(tmp_path / "cli"))
    ranking = rl.compare(rl.Fabric(SPEC), output=tmp_path / "python", **options)
    p = ranking.attrs["json"]
    assert ranking.attrs["request"]["engines"] == "dmodk;updown;mroots:layers=2"
    assert ranking.attrs["request"]["vls"] == 1 and ranking.attrs["request"]["simulate"] is False

    def strip(o):
        if isinstance(o, dict):
            return {k: strip(v) for k, v in o.items()
                    if k not in ("timings", "total_seconds", "command_line", "version")}
        if isinstance(o, list):
            return [strip(v) for v in o]
        return o

    assert strip(j) == strip(p)
    assert j["configuration"]["vls"] == 1 and not any("simulation" in e for e in j["engines"])


def test_compare_doc_table_lists_the_rows():
    """docs/COMPARE.md "Options" names every row of the compare request with its default and
    range, in the schema's order."""
    import os

    source = os.environ.get("ROUTELAB_SOURCE")
    if not source:
        pytest.skip("ROUTELAB_SOURCE is not set (CTest sets it)")
    text = open(os.path.join(source, "docs", "COMPARE.md"), encoding="utf-8").read()
    table = text[text.index("| request key (CLI flag) |"):]
    table = table[:table.index("\n\n")].splitlines()[2:]
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table]
    keys = [c[0].split("`")[1] for c in cells]
    rows = rl.options("compare")
    assert keys == [k.replace("_", "-") for k in rows]
    for (key, row), c in zip(rows.items(), cells):
        default = row["default"]
        expected = "—" if default is None else str(default).lower() if isinstance(default, bool) else str(default)
        if key not in ("fabric", "engines"):
            assert c[1] == expected, key
        if key == "fabric":
            assert c[1] == f"`{default}`"
        low, high = row["minimum"], row["maximum"]
        if low is None and high is None:
            assert c[2] == "", key
        else:
            assert c[2][1:-1].split(", ") == [low or "-inf", high or "inf"], key


# ---- one schema, three front ends ----

FIXED = {"fabric", "engine", "lmc"}  # supplied by the Fabric and Routing objects in Python
# Per operation: keys a Python call does not take (the objects carry them, or they belong to
# the CLI's routing step).
NOT_IN_PYTHON = {"analyze": FIXED, "simulate": FIXED, "verify": FIXED | {"seed", "sl", "lid_map"},
                 "schedule": {"fabric"}, "compare": {"fabric"}}


def caller(operation):
    if operation == "schedule":
        fabric = rl.Fabric("ft:l=2,m=4,w=4")
        return fabric, None, lambda f, r, **kw: rl.schedule(f, **kw)
    if operation == "compare":  # the options are checked before the report's directory is made
        return rl.Fabric(SPEC), None, lambda f, r, **kw: rl.compare(f, output="no-such-report-directory", **kw)
    fabric = rl.Fabric(SPEC)
    return fabric, rl.route(fabric, "dmodk"), getattr(rl, operation)


def cli_flags(operation):
    """The long flags `routelab OPERATION --help` lists, in Python spelling."""
    import os
    import re
    import subprocess

    binary = os.environ.get("ROUTELAB_BINARY")
    if not binary:
        pytest.skip("ROUTELAB_BINARY is not set (CTest sets it)")
    text = subprocess.run([binary, operation, "--help"], capture_output=True, text=True, check=True).stdout
    flags = set()
    for line in text.splitlines():
        for flag in re.findall(r"(?:^|[ ,])--([a-z][a-z0-9-]*)", line.split("  ")[1] if line.startswith("  ") else ""):
            flags.add(flag.replace("-", "_"))
    return flags - {"help", "format"}


@pytest.mark.parametrize("operation", ["analyze", "simulate", "verify", "schedule", "compare"])
def test_cli_and_python_accept_the_schema_keys(operation):
    rows = rl.options(operation)
    assert cli_flags(operation) | {"fabric"} >= set(rows), "a schema key without its CLI flag"
    fabric, routing, call = caller(operation)
    for key, row in rows.items():
        if key == "fabric":
            continue  # the positional argument of both
        if key in NOT_IN_PYTHON[operation] and key in ("sl", "lid_map"):
            with pytest.raises(ValueError, match="CLI's routing step"):
                call(fabric, routing, **{key: "x"})
            continue
        if key in NOT_IN_PYTHON[operation]:
            with pytest.raises(ValueError, match=f"unknown option '{key}'"):
                call(fabric, routing, **{key: row["default"] if row["default"] is not None else "x"})
            continue
        if row["maximum"] is not None and row["type"] == "int":
            past = int(row["maximum"]) + 1
            with pytest.raises(ValueError, match=rf"{operation}: {key} must lie in .* \(got {past}\)"):
                call(fabric, routing, **{key: past})
        if row["minimum"] is not None and row["type"] == "int" and int(row["minimum"]) > 0:
            below = int(row["minimum"]) - 1
            with pytest.raises(ValueError, match=rf"{key} must lie in"):
                call(fabric, routing, **{key: below})
        if row["choices"]:
            with pytest.raises(ValueError, match=key.replace("_", "[-_]")):
                call(fabric, routing, **{key: "no-such-choice"})
    if operation == "compare":
        import os
        assert not os.path.exists("no-such-report-directory"), "compare wrote before checking its options"


@pytest.mark.parametrize("operation", ["analyze", "simulate", "verify", "schedule", "compare"])
def test_type_stubs_declare_the_schema_keys(operation):
    """The .pyi's keyword parameters are the request's keys with their Python types."""
    import ast
    import os

    stub = os.path.join(os.path.dirname(rl.__file__), "__init__.pyi")
    tree = ast.parse(open(stub, encoding="utf-8").read())
    function = next(f for f in tree.body if isinstance(f, ast.FunctionDef) and f.name == operation)
    declared = {a.arg: ast.unparse(a.annotation) for a in function.args.kwonlyargs + function.args.args}
    python_type = {"int": "int", "float": "float", "str": "str", "bool": "bool"}
    for key, row in rl.options(operation).items():
        if key in NOT_IN_PYTHON[operation] or (operation, key) in {("simulate", "loads"), ("analyze", "metric"),
                                                                   ("schedule", "scheduler")}:
            continue
        if (operation, key) == ("compare", "engines"):  # a list of specs, or one string joined with ';'
            assert declared.get(key) == "str | Sequence[str]", key
            continue
        assert declared.get(key) == python_type[row["type"]], key
    extra = set(declared) - set(rl.options(operation)) - {"fabric", "routing", "scheduler", "routings", "output"}
    assert not extra, extra


SWEEP = """name = "python-sweep"
[[grid]]
kind = "analyze"
fabric = "gft2:n=4,m=4,r=4"
engines = ["dmodk", "opt"]
metrics = ["worst", "stages"]
[[grid]]
kind = "simulate"
fabric = "kary-ntree:k=2,n=3"
engine = "dmodk"
loads = [0.2, 0.4]
cycles = 1000
[[grid]]
kind = "verify"
fabric = "random:switches=8,links=16,terminals=2,seed=1"
engines = ["minhop", "lash"]
[[grid]]
kind = "schedule"
fabric = "ft:l=2,m=4,w=4"
permutations = 20
"""


def test_sweep_equals_the_cli(cli, tmp_path):
    """rl.sweep stores the same points as `routelab sweep`, and read_results reads them back as
    `routelab results --format json --no-timings` does; a second run computes nothing."""
    import os
    import subprocess

    (tmp_path / "s.toml").write_text(SWEEP)
    frame = rl.sweep(tmp_path / "s.toml", tmp_path / "python.sqlite", jobs=2)
    assert len(frame) == 9 and frame.attrs["header"]
    binary = os.environ["ROUTELAB_BINARY"]
    subprocess.run([binary, "sweep", str(tmp_path / "s.toml"), "--results", str(tmp_path / "cli.sqlite"), "--quiet"],
                   check=True, capture_output=True)
    both = [rl.read_results(tmp_path / name) for name in ("python.sqlite", "cli.sqlite")]
    keys = [c for c in both[0].columns if c not in ("seconds", "worker")]
    ordered = [f.sort_values(["kind", "engine", "metric", "load"], na_position="first")[keys].reset_index(drop=True)
               for f in both]
    assert ordered[0].equals(ordered[1])
    again = rl.sweep(tmp_path / "s.toml", tmp_path / "python.sqlite")
    assert len(again) == 9
    with pytest.raises(rl.InputError):
        rl.read_results(tmp_path / "missing.sqlite")


def test_route_takes_the_schema_keys(tmp_path):
    """rl.route's keywords are the route request's rows, as for the operations above: every row
    but the fabric (the Fabric object) and the engine (the positional spec), with the rows'
    types and ranges; each reaches the routing; the stub declares them with their types."""
    import ast
    import os

    rows = rl.options("route")
    assert cli_flags("route") | {"fabric"} >= set(rows), "a schema key without its CLI flag"
    fabric = rl.Fabric(SPEC)
    for key, row in rows.items():
        if key in ("fabric", "engine"):  # the positional arguments
            continue
        if row["maximum"] is not None and row["type"] == "int":
            past = int(row["maximum"]) + 1
            with pytest.raises(ValueError, match=rf"route: {key} must lie in .* \(got {past}\)"):
                rl.route(fabric, "dmodk", **{key: past})
        wrong = "x" if row["type"] != "str" else 1
        with pytest.raises(TypeError, match=f"route: option '{key}' must be"):
            rl.route(fabric, "dmodk", **{key: wrong})
    # Each reaches the routing (a key the binding dropped would leave the default).
    plain = rl.route(fabric, "dmodk")
    assert plain.addresses == 8 and plain.checks is None
    assert rl.route(fabric, "dmodk", lmc=1).addresses == 16
    assert rl.route(fabric, "dmodk", switch_addresses=True).addresses == 8 + fabric.switches
    assert rl.route(fabric, "dmodk", no_checks=False).checks["terminal_pairs_delivered"] == 8 * 7
    # (seed: no registered engine draws at random yet — routing/engine.h — so only its range
    # and type are observable, checked above.)
    osm = os.path.join(os.environ.get("ROUTELAB_SOURCE", os.path.join(os.path.dirname(__file__), "..", "..")),
                       "tests", "data", "opensm", "k4n2")
    net = rl.Fabric(f"net:{osm}/topology.net")
    rl.route(net, "minhop", lid_map=f"{osm}/guid2lid").export("lft", tmp_path / "lids.lft")
    rl.route(net, "minhop").export("lft", tmp_path / "plain.lft")
    assert (tmp_path / "lids.lft").read_bytes() != (tmp_path / "plain.lft").read_bytes()
    # The stub declares every key but fabric and engine with the row's type.
    stub = os.path.join(os.path.dirname(rl.__file__), "__init__.pyi")
    function = next(f for f in ast.parse(open(stub, encoding="utf-8").read()).body
                    if isinstance(f, ast.FunctionDef) and f.name == "route")
    declared = {a.arg: ast.unparse(a.annotation) for a in function.args.kwonlyargs}
    assert declared == {key: row["type"] for key, row in rows.items() if key not in ("fabric", "engine")}
