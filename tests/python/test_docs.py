"""Every ```python block of docs/PYTHON.md runs (in order, each in a fresh namespace), so
the documentation's examples cannot rot."""

import os
import re

import pytest

DOC = os.path.join(os.environ.get("ROUTELAB_SOURCE", os.path.join(os.path.dirname(__file__), "..", "..")),
                   "docs", "PYTHON.md")


def blocks():
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_there_are_examples():
    assert len(blocks()) >= 7


@pytest.mark.parametrize("index", range(len(blocks())))
def test_example_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(blocks()[index], f"docs/PYTHON.md block {index + 1}", "exec"), {"__name__": "__doc_example__"})
