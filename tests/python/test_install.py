"""`pip install . --no-build-isolation` works offline (docs/PYTHON.md "Set-up"): into a virtual
environment that sees Debian's numpy/pandas/networkx, from the source tree, with no index;
the installed package (and its type stubs) imports outside the source and build trees."""

import os
import subprocess
import sys

import pytest


def test_pip_install_offline(tmp_path):
    source = os.environ.get("ROUTELAB_SOURCE")
    build = os.environ.get("ROUTELAB_BUILD_DIR")
    if not source or not build:
        pytest.skip("ROUTELAB_SOURCE / ROUTELAB_BUILD_DIR not set (CTest sets them)")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    env = dict(os.environ, ROUTELAB_BUILD_DIR=build, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    done = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-index", source],
                          capture_output=True, text=True, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    check = ("import routelab as rl, os; f = rl.Fabric('kary-ntree:k=2,n=2'); "
             "print(f.terminals, os.path.exists(os.path.join(os.path.dirname(rl.__file__), '__init__.pyi')))")
    out = subprocess.run([str(venv / "bin" / "python"), "-c", check], capture_output=True, text=True, env=env,
                         cwd=tmp_path, check=True)
    assert out.stdout.split() == ["4", "True"]
