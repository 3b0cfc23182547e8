"""Shared fixtures of the Python package's tests (tests/python; CTest python.pytest runs
them with PYTHONPATH=build/python and ROUTELAB_BINARY=build/bin/routelab)."""

import json
import os
import subprocess

import pytest

import routelab as rl


@pytest.fixture(scope="session")
def cli():
    """Runs the CLI with --format json and returns the parsed output (and its exit code)."""
    binary = os.environ.get("ROUTELAB_BINARY")
    if not binary or not os.path.exists(binary):
        pytest.skip("ROUTELAB_BINARY is not set (CTest sets it)")

    def run(*args, ok=(0,)):
        done = subprocess.run([binary, *args, "--format", "json"], capture_output=True, text=True)
        assert done.returncode in ok, done.stderr
        return json.loads(done.stdout)

    return run


@pytest.fixture(scope="session")
def tree():
    """A 2-ary 3-tree: 8 terminals, 12 switches."""
    return rl.Fabric("kary-ntree:k=2,n=3")


@pytest.fixture
def ring():
    """Four switches in a ring, one terminal each (networkx), and its clockwise routing,
    which is deadlock-prone: the ring's channels wait on each other in a cycle."""
    import networkx as nx

    g = nx.Graph()
    for i in range(4):
        g.add_node(f"s{i}", kind="switch", ports=3)
        g.add_node(f"h{i}", kind="terminal", ports=1)
        g.add_edge(f"h{i}", f"s{i}", ports={f"h{i}": 1, f"s{i}": 1})
    for i in range(4):
        j = (i + 1) % 4
        g.add_edge(f"s{i}", f"s{j}", ports={f"s{i}": 2, f"s{j}": 3})
    fabric = rl.Fabric.from_networkx(g)
    clockwise = lambda switch, destination: 1 if switch[1:] == destination[1:] else 2  # noqa: E731
    return fabric, clockwise
