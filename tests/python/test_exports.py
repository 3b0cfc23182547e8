"""Routing.export and Fabric.export are the CLI's `route --export` and `topo --export`: the
same library dispatch (request/route_export.h, io/fabric_files.h), so every kind is written
byte for byte as the CLI writes it, and a refused kind raises ValueError with the CLI's
message."""

import json
import os
import subprocess

import pytest

import routelab as rl

FIXTURES = os.path.join(os.environ.get("ROUTELAB_SOURCE", os.path.join(os.path.dirname(__file__), "..", "..")),
                        "tests", "data", "opensm")
ALL_KINDS = ["lft", "sl", "fir", "ir"]


def routelab(*args):
    binary = os.environ.get("ROUTELAB_BINARY")
    if not binary or not os.path.exists(binary):
        pytest.skip("ROUTELAB_BINARY is not set (CTest sets it)")
    return subprocess.run([binary, *args], capture_output=True, text=True)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def declared_registers():
    """engine -> the register files its registry row declares (`routelab list --format json`)."""
    done = routelab("list", "--format", "json")
    assert done.returncode == 0, done.stderr
    return {row["name"]: row["exports"] for row in json.loads(done.stdout)["engines"]}


# A fat-tree engine with FIR (dmodk on a k-ary n-tree), the one with IR, the deterministic
# one with FIR, layered engines with SLs (LASH on a fat-tree; LASH with its UpDown layer: two
# tables, a LID per table), a fabric with LIDs of its own, and an imported OpenSM dump.
CASES = [
    ("kary-ntree:k=4,n=3", "dmodk"),
    ("kary-ntree:k=2,n=3", "ftree-adaptive"),
    ("kary-ntree:k=2,n=3", "ftree-deterministic"),
    ("kary-ntree:k=2,n=3", "lash"),
    ("random:switches=32,seed=3", "lash:max-layers=2"),
    ("random:switches=16", "mp-lash"),
    (f"ibnetdiscover:{FIXTURES}/k4n2/ibnetdiscover.txt", "minhop"),
    (f"net:{FIXTURES}/k4n2/topology.net", f"file:{FIXTURES}/k4n2/lfts.lash.dump"),
]


@pytest.mark.parametrize("spec,engine", CASES, ids=[c[1].split("/")[-1] for c in CASES])
def test_every_kind_is_the_clis_file(spec, engine, tmp_path):
    routing = rl.route(rl.Fabric(spec), engine)
    row = "file" if engine.startswith("file:") else engine.split(":")[0]
    assert routing.export_kinds == ["lft", "sl"] + [k for k in ("fir", "ir") if k in declared_registers()[row]]
    for kind in routing.export_kinds:
        mine, theirs = tmp_path / f"python.{kind}", tmp_path / f"cli.{kind}"
        routing.export(kind, mine)
        done = routelab("route", spec, "--engine", engine, "--no-checks", "--export", kind, str(theirs))
        assert done.returncode == 0, done.stderr
        assert read(mine) == read(theirs), kind
    if engine == "lash:max-layers=2":
        assert len(routing.tables) == 2  # the LFT has a LID per table
    for kind in sorted(set(ALL_KINDS) - set(routing.export_kinds)):
        refused = tmp_path / f"refused.{kind}"
        with pytest.raises(ValueError) as error:
            routing.export(kind, refused)
        assert str(error.value).startswith(f"export {kind}: the "), str(error.value)
        assert str(error.value).endswith("which exports " + ", ".join(routing.export_kinds))
        done = routelab("route", spec, "--engine", engine, "--no-checks", "--export", kind, str(refused))
        assert done.returncode == 1 and done.stderr == f"routelab: error: {error.value}\n"
        assert not refused.exists()


def test_an_unknown_kind_is_the_clis_refusal(tree, tmp_path):
    routing = rl.route(tree, "dmodk")
    with pytest.raises(ValueError, match=r"^export: unknown kind 'csv' \(lft, sl, fir, ir\)$") as error:
        routing.export("csv", tmp_path / "x.csv")
    done = routelab("route", "kary-ntree:k=2,n=3", "--engine", "dmodk", "--export", "csv", str(tmp_path / "x.csv"))
    assert done.returncode == 1 and done.stderr == f"routelab: error: {error.value}\n"
    assert not (tmp_path / "x.csv").exists()


def test_a_routing_written_in_python_exports_lft_and_sl(tree, tmp_path):
    dmodk = rl.route(tree, "dmodk")
    mine = rl.Routing.from_tables(tree, [dmodk.ports()])
    assert mine.export_kinds == ["lft", "sl"]
    mine.export("lft", tmp_path / "mine.lft")
    dmodk.export("lft", tmp_path / "dmodk.lft")
    assert read(tmp_path / "mine.lft") == read(tmp_path / "dmodk.lft")
    with pytest.raises(ValueError, match="a routing built outside the registry exports lft, sl"):
        mine.export("fir", tmp_path / "mine.fir")
    assert not (tmp_path / "mine.fir").exists()


def test_an_unwritable_path_is_an_input_error(tree, tmp_path):
    with pytest.raises(rl.InputError, match="cannot write"):
        rl.route(tree, "dmodk").export("lft", tmp_path / "no" / "such" / "dir.lft")
    with pytest.raises(rl.InputError, match="cannot write"):
        tree.export("net", tmp_path / "no" / "such" / "dir.net")


@pytest.mark.parametrize("spec", ["kary-ntree:k=2,n=3", "random:switches=16", f"net:{FIXTURES}/rnd16_s1/topology.net"])
def test_fabric_exports_are_the_clis_files(spec, tmp_path):
    fabric = rl.Fabric(spec)
    assert fabric.export_kinds == ["net", "dot", "json"]
    for kind in fabric.export_kinds:
        fabric.export(kind, tmp_path / f"python.{kind}")
        done = routelab("topo", spec, "--export", kind, str(tmp_path / f"cli.{kind}"))
        assert done.returncode == 0, done.stderr
        assert read(tmp_path / f"python.{kind}") == read(tmp_path / f"cli.{kind}"), kind
    with pytest.raises(ValueError, match=r"^export: unknown format 'xml' \(net, dot, json\)$") as error:
        fabric.export("xml", tmp_path / "f.xml")
    done = routelab("topo", spec, "--export", "xml", str(tmp_path / "f.xml"))
    assert done.returncode == 1 and done.stderr == f"routelab: error: {error.value}\n"
    assert not (tmp_path / "f.xml").exists()
