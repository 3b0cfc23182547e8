#!/usr/bin/env python3
"""routelab's mutation harness: plant one realistic bug at a time, rebuild, run the tests.

    tests/mutation/mutate.py [--mutants FILE] [--only ID[,ID...]] [--subset N --rotation K]
                             [--generate N [--seed S] [--max-rebuild K] [--under DIR]]
                             [--suite selected|ctest]
                             [--work DIR] [--tests REGEX] [--labels] [--jobs J] [--timeout S]
                             [--budget S] [--require-killed] [--json FILE] [--list] [--check]

Two kinds of mutants:
  hand-written  the list tests/mutation/mutants.toml: a file, an exact piece of its text (which
                must occur exactly once), its replacement and the property it should break;
  generated     --generate N: N points drawn with --seed S (default: a new seed each run,
                printed) among every operator, constant and condition of src/ (comments,
                strings and preprocessor lines left out): a relational, logical, arithmetic or
                compound-assignment operator replaced by its neighbour (< and <=, == and !=,
                && and ||, + and -, * and /, += and -=), an integer constant n by n + 1, true
                by false, an if/while condition c by !(c). tests/mutation/generated.toml
                records the triage of generated survivors (equivalent ones are not run again).
                --under DIR: a focused draw, only in files under DIR and only points not
                triaged yet (to hunt one module's untested behaviour; not a sample).
The harness copies the repository (tracked files of HEAD plus the working tree's changes) to a
scratch directory once, configures one build there, builds it and runs the test binaries and the
script tests once unmutated (a baseline: they must pass; their times order the runs), then for every mutant:
applies it, rebuilds the targets it can reach, runs the tests it can reach, restores the file.
Which tests (--suite selected, the default): a mutant in src/M/ reaches the test binaries that
link M or a module depending on M (CMakeLists.txt routelab_module DEPS, tests/CMakeLists.txt
routelab_test DEPS) and those that run the CLI (their sources call runRoutelab), plus the
script tests (ctest) carrying those binaries' labels or running the CLI, and the Python
package's tests (python.pytest: the package links every module and drives the CLI; its module
is relinked only when they are to run); a mutant in apps/ reaches the CLI tests; one in python/
only the Python tests. The binaries run directly (gtest --gtest_fail_fast), the mutated
module's own first, then the fastest first, J at a time, and the run stops at the first
failure. --suite ctest runs the whole CTest suite instead (without the soak, OpenSM and
mutation-list labels; --labels: only the mutant's labels); tests without a label (the
repository's form checks) never run for a mutant.
A mutant is
  killed     when the build succeeds and a test fails (or times out),
  survived   when every test passes,
  invalid    when it does not compile or its text is not found exactly once (a harness error
             for a hand-written mutant, counted apart: fix the list; a generated one that does
             not compile is "uncompilable" and not counted),
  equivalent when the list (or generated.toml) marks it so (`equivalent = "reason"`); not run.
A hand-written mutant the suite is known not to kill carries `survives = "reason"` (an
explained survivor: still run and counted). The kill rate is killed / (killed + survived), for
each kind apart. Output: a table (Markdown) on stdout and, with --json FILE, the rows as JSON.
--subset N --rotation K runs the N hand-written mutants starting at (K * N) mod count, so CI
can rotate through the list (docs/TESTING.md); --only takes hand-written ids and generated
ids (gen<seed>.<n>, as a run prints them) with the draw's own --generate N --seed S (and
--max-rebuild/--under): the draw is made again and only those points run; --budget S starts no new mutant once S seconds
have passed (the rest are listed as "not run"); --max-rebuild K draws generated mutants only
in files whose change recompiles at most K objects (a header included everywhere rebuilds
the whole tree).
Exit status: 0 when each kind's kill rate is at least --min-kill-rate (default 0.9) — with
--require-killed (CI), when no hand-written mutant survives that is not an explained survivor
(generated survivors are listed with the seed to rerun them, not failed on) —, 1 otherwise, 2
on a harness error (an invalid hand-written mutant, an unbuildable tree, a failing baseline).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_mutants(path: Path) -> list[dict]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    mutants = data.get("mutant", [])
    seen = set()
    for m in mutants:
        for key in ("id", "file", "original", "replacement", "breaks"):
            if key not in m:
                raise SystemExit(f"{path}: mutant {m.get('id', '?')}: missing key '{key}'")
        if m["id"] in seen:
            raise SystemExit(f"{path}: mutant id '{m['id']}' used twice")
        seen.add(m["id"])
    return mutants


def check_texts(mutants: list[dict]) -> int:
    """Exit status 0 when every mutant's `original` occurs exactly once in its file (so a
    refactoring that moves a mutated line fails a test at once, not a later CI rotation)."""
    bad = 0
    for m in mutants:
        path = ROOT / m["file"]
        count = path.read_text().count(m["original"]) if path.exists() else -1
        if count != 1:
            where = "file not found" if count < 0 else f"text found {count} times"
            print(f"{m['id']}: {m['file']}: {where}: {m['original']!r}", file=sys.stderr)
            bad += 1
    print(f"{len(mutants) - bad} of {len(mutants)} mutants apply")
    return 1 if bad else 0


def source_files() -> list[str]:
    """Tracked and untracked-but-not-ignored files (a git checkout), else every file outside
    the build trees (a source tree without .git)."""
    listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True)
    if listing.returncode == 0:
        return [name for name in listing.stdout.decode().split("\0") if name]
    names = []
    for path in ROOT.rglob("*"):
        relative = path.relative_to(ROOT)
        top = relative.parts[0]
        if top.startswith("build") or top in (".git", ".cache", "out") or not path.is_file():
            continue
        names.append(str(relative))
    return names


def copy_tree(destination: Path) -> None:
    """The source files as they are in the working tree (uncommitted edits included)."""
    for name in source_files():
        source, target = ROOT / name, destination / name
        if not source.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists() or target.read_bytes() != source.read_bytes():
            # A fresh modification time (not the source's): ninja must see the file as newer
            # than the objects an earlier run built from its previous content.
            shutil.copy(source, target)


def run(command: list[str], cwd: Path, timeout: float | None = None) -> tuple[int, str]:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return 124, out


def first_failures(ctest_output: str, limit: int = 3) -> str:
    """The tests ctest lists under "The following tests FAILED:" ("12 - graph.Foo (Failed)")."""
    names = []
    failed_section = False
    for line in ctest_output.splitlines():
        line = line.strip()
        if line.startswith("The following tests"):
            failed_section = line.startswith("The following tests FAILED")
            continue
        if failed_section and line and line[0].isdigit() and " - " in line and line.endswith(")"):
            names.append(line.split(" - ", 1)[1].rsplit(" (", 1)[0])
    return ", ".join(names[:limit]) + (" ..." if len(names) > limit else "")


# ---- which tests a mutant can reach (the module graph) -------------------------------------

EXCLUDED_LABELS = {"soak", "opensm", "mutation-list"}
PYTHON_LABEL, PYTHON_TARGET = "python", "_routelab"  # python/CMakeLists.txt: python.pytest, the module


def module_deps(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules it names in CMakeLists.txt (`routelab_module(M DEPS a b LIBS ...)`)."""
    deps = {}
    for m in re.finditer(r"^routelab_module\((\w+)([^)]*)\)", (root / "CMakeLists.txt").read_text(), re.M):
        words = m.group(2).split()
        named = words[1:] if words[:1] == ["DEPS"] else []
        deps[m.group(1)] = set(named[:named.index("LIBS")] if "LIBS" in named else named)
    return deps


def closure(modules: set[str], deps: dict[str, set[str]]) -> set[str]:
    seen, todo = set(), list(modules)
    while todo:
        m = todo.pop()
        if m not in seen:
            seen.add(m)
            todo.extend(deps.get(m, ()))
    return seen


@dataclass
class TestBinary:
    label: str  # its CTest label (tests/CMakeLists.txt routelab_test ... LABEL, default its folder)
    target: str  # test_<folder>
    modules: set[str]  # the modules it links, dependencies included
    cli: bool  # its tests run the routelab CLI (which links every module)
    seconds: float = 0.0  # the baseline run's time


def test_binaries(deps: dict[str, set[str]], root: Path = ROOT) -> list[TestBinary]:
    """The GoogleTest binaries of tests/CMakeLists.txt (`routelab_test(folder DEPS libs [LABEL l])`)."""
    binaries = []
    text = (root / "tests/CMakeLists.txt").read_text()
    for m in re.finditer(r"^routelab_test\((\w+)([^)]*)\)", text, re.M):
        folder, words = m.group(1), m.group(2).split()
        label = words[words.index("LABEL") + 1] if "LABEL" in words else folder
        linked = {w.removeprefix("routelab_") for w in words if w.removeprefix("routelab_") in deps}
        sources = [p for p in (root / "tests" / folder).glob("*") if p.suffix in (".cpp", ".h")]
        cli = any("runRoutelab(" in p.read_text() for p in sources)
        binaries.append(TestBinary(label, f"test_{folder}", closure(linked, deps), cli))
    return binaries


def reached_binaries(file: str, binaries: list[TestBinary], deps: dict[str, set[str]]) -> list[TestBinary]:
    """The binaries a change to `file` can alter, the mutated module's own first."""
    parts = Path(file).parts
    candidates = [b for b in binaries if b.label not in EXCLUDED_LABELS]
    if parts[0] == "apps":
        chosen = [b for b in candidates if b.cli]
    elif parts[0] == "python":
        chosen = []  # no test binary links the Python module: its tests are the python-labelled scripts
    elif parts[0] == "src" and len(parts) > 2 and parts[1] in deps:
        chosen = [b for b in candidates if parts[1] in b.modules or b.cli]
    else:
        chosen = candidates
    own = parts[1] if parts[0] == "src" and len(parts) > 2 else ""
    return sorted(chosen, key=lambda b: (b.label != own, b.seconds))


@dataclass
class ScriptTest:
    name: str
    labels: set[str]
    cli: bool  # its command runs bin/routelab


def script_tests(build: Path, binaries: list[TestBinary]) -> list[ScriptTest]:
    """CTest tests that are not GoogleTest cases of a test binary (shell or Python scripts)."""
    listing = subprocess.run(["ctest", "--test-dir", str(build), "--show-only=json-v1"], capture_output=True, text=True)
    if listing.returncode != 0:
        return []
    targets = {b.target for b in binaries}
    tests = []
    for t in json.loads(listing.stdout).get("tests", []):
        command = t.get("command") or []
        if not command or Path(command[0]).name in targets:
            continue
        labels = set()
        for prop in t.get("properties", []):
            if prop.get("name") == "LABELS":
                labels = set(prop.get("value") or [])
        if labels and not labels & EXCLUDED_LABELS:
            tests.append(ScriptTest(t["name"], labels, any(Path(c).name == "routelab" for c in command)))
    return tests


# ---- running the reached tests ---------------------------------------------------------------

def stop_group(process: subprocess.Popen) -> None:
    """Ends a test binary the harness started, with the processes it started (its own session)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def run_binaries(build: Path, binaries: list[TestBinary], jobs: int, timeout: float,
                 fail_fast: bool = True) -> tuple[bool, str, dict[str, float]]:
    """Runs the binaries in order, `jobs` at a time; with fail_fast, stops at the first failure.
    Returns (all passed, what failed, seconds per binary)."""
    env = dict(os.environ, ROUTELAB_BINARY=str(build / "bin" / "routelab"))
    pending, running, seconds, failures = list(binaries), [], {}, []
    while pending or running:
        while pending and len(running) < jobs and not (fail_fast and failures):
            b = pending.pop(0)
            out = open(build / f"mutation-{b.target}.log", "w+")
            command = [str(build / "tests" / b.target), "--gtest_brief=1"] + (["--gtest_fail_fast"] if fail_fast else [])
            proc = subprocess.Popen(command, cwd=build / "tests", env=env, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
            limit = max(timeout, 3 * b.seconds + 30)
            running.append((b, proc, out, time.monotonic(), limit))
        time.sleep(0.05)
        for entry in list(running):
            b, proc, out, started, limit = entry
            elapsed = time.monotonic() - started
            if proc.poll() is None and elapsed < limit:
                continue
            if proc.returncode is None:
                stop_group(proc)
                failures.append(f"{b.target}: timeout after {elapsed:.0f} s")
            elif proc.returncode != 0:
                out.seek(0)
                failed = re.findall(r"^\[  FAILED  \] (\S+?)(?:,|$| \()", out.read(), re.M)
                names = list(dict.fromkeys(failed))
                failures.append(", ".join(names[:3]) + (" ..." if len(names) > 3 else "") if names
                                else f"{b.target}: exit status {proc.returncode}")
            seconds[b.target] = elapsed
            out.close()
            running.remove(entry)
        if fail_fast and failures:
            for b, proc, out, _, _ in running:
                stop_group(proc)
                out.close()
            break
    return not failures, "; ".join(failures), seconds


def run_scripts(build: Path, tests: list[ScriptTest], jobs: int, timeout: float) -> tuple[bool, str]:
    if not tests:
        return True, ""
    regex = "^(" + "|".join(re.escape(t.name) for t in tests) + ")$"
    rc, out = run(["ctest", "--test-dir", str(build), "-j", str(jobs), "--output-on-failure", "--timeout",
                   str(int(timeout)), "-R", regex], ROOT, timeout=timeout * 2)
    return rc == 0, first_failures(out) or ("" if rc == 0 else "tests failed")


# ---- generated mutants -----------------------------------------------------------------------

OPERATOR_SWAPS = {" < ": " <= ", " <= ": " < ", " > ": " >= ", " >= ": " > ", " == ": " != ", " != ": " == ",
                  " && ": " || ", " || ": " && ", " + ": " - ", " - ": " + ", " * ": " / ", " / ": " * ",
                  " += ": " -= ", " -= ": " += "}
OPERATOR_PATTERN = re.compile("|".join(re.escape(op) for op in sorted(OPERATOR_SWAPS, key=len, reverse=True)))
# An integer literal (decimal, optional u/l suffix) that is not part of a name, a float or hex.
CONSTANT_PATTERN = re.compile(r"(?<![\w.'])(\d+)([uUlL]*)(?![\w.'])")
BOOLEAN_PATTERN = re.compile(r"\b(true|false)\b")
CONDITION_PATTERN = re.compile(r"\b(?:if|while) \(")


def mask_code(text: str) -> str:
    """The text with comments, string and character literals (raw strings too) and preprocessor
    lines replaced by spaces (newlines kept), so offsets stay those of the file."""
    out, i, n = list(text), 0, len(text)

    def blank(a: int, b: int) -> None:
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    line_start = True
    while i < n:
        c = text[i]
        if line_start and text[i:].lstrip(" \t").startswith("#"):
            end = i
            while True:  # a preprocessor line, continued by backslashes
                end = text.find("\n", end)
                if end < 0 or text[end - 1] != "\\":
                    break
                end += 1
            end = n if end < 0 else end
            blank(i, end)
            i = end
            continue
        line_start = c == "\n" or (line_start and c in " \t")
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            blank(i, end)
            i = end
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i)
            delimiter = text[i + 2:open_paren]
            end = text.find(")" + delimiter + '"', open_paren)
            end = n if end < 0 else end + len(delimiter) + 2
            blank(i, end)
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isdigit() and i + 1 < n and text[i + 1].isdigit():
                i += 1  # a digit separator
                continue
            k = i + 1
            while k < n and text[k] != c:
                k += 2 if text[k] == "\\" else 1
            blank(i, min(k + 1, n))
            i = k + 1
        else:
            i += 1
    return "".join(out)


def matching_paren(code: str, open_index: int) -> int:
    depth = 0
    for k in range(open_index, len(code)):
        if code[k] == "(":
            depth += 1
        elif code[k] == ")":
            depth -= 1
            if depth == 0:
                return k
    return -1


def mutation_sites(file: str, text: str) -> list[dict]:
    """Every mechanical mutation point of one source file, in file order."""
    code = mask_code(text)
    sites = []

    def add(offset: int, original: str, replacement: str, kind: str) -> None:
        line_start = text.rfind("\n", 0, offset) + 1
        line_end = text.find("\n", offset)
        line = text[line_start:line_end if line_end >= 0 else len(text)]
        if "static_assert" in line or re.search(r"\)\s*(const\s*)?(override\s*)?=\s*0\s*;", line):
            return
        before = text[line_start:offset].lstrip()  # the stripped line up to the site
        sites.append({"file": file, "offset": offset, "original": original, "replacement": replacement,
                      "kind": kind, "line": text.count("\n", 0, offset) + 1, "line_text": line.strip(),
                      "occurrence": before.count(original) + 1})

    for m in OPERATOR_PATTERN.finditer(code):
        add(m.start(), m.group(0), OPERATOR_SWAPS[m.group(0)], "operator")
    for m in CONSTANT_PATTERN.finditer(code):
        add(m.start(), m.group(0), str(int(m.group(1)) + 1) + m.group(2), "constant")
    for m in BOOLEAN_PATTERN.finditer(code):
        add(m.start(), m.group(0), "false" if m.group(0) == "true" else "true", "constant")
    for m in CONDITION_PATTERN.finditer(code):
        if code[max(0, m.start() - 9):m.start()].rstrip().endswith("constexpr"):
            continue
        start = m.end() - 1
        end = matching_paren(code, start)
        condition = code[start:end]
        # Not across lines, no init-statement, no declaration (`if (auto x = f())`): !(...) of
        # those does not compile.
        if end > start and "\n" not in condition and ";" not in condition and \
                not re.search(r"(?<![=!<>])=(?!=)", condition):
            original = text[start:end + 1]
            add(start, original, "(!" + original + ")", "condition")
    sites.sort(key=lambda s: s["offset"])
    return sites


def objects_per_source(build: Path, source: Path) -> dict[str, int]:
    """How many objects each source file (relative path) is compiled into (ninja's deps log)."""
    done = subprocess.run(["ninja", "-C", str(build), "-t", "deps"], capture_output=True, text=True)
    counts: dict[str, int] = {}
    for line in done.stdout.splitlines():
        if not line.startswith("    "):
            continue
        path = Path(line.strip())
        if not path.is_absolute():
            path = (build / path).resolve()
        try:
            relative = str(path.resolve().relative_to(source.resolve()))
        except ValueError:
            continue
        counts[relative] = counts.get(relative, 0) + 1
    return counts


def load_triage(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, "rb") as f:
        return tomllib.load(f).get("generated", [])


def triaged(site: dict, triage: list[dict]) -> dict | None:
    """The triage entry of a site: same file, line text, original and replacement, and — where
    the entry names one — the same `occurrence` (1-based) of the original text in the line."""
    for t in triage:
        if (t.get("file"), t.get("line"), t.get("original"), t.get("replacement")) == \
                (site["file"], site["line_text"], site["original"], site["replacement"]) and \
                t.get("occurrence", site.get("occurrence")) == site.get("occurrence"):
            return t
    return None


def generate_mutants(count: int, seed: int, source: Path, build: Path, max_rebuild: int,
                     triage: list[dict], under: list[str] | None = None) -> tuple[list[dict], int]:
    """`count` sites drawn with `seed` among those of src/ (files whose change recompiles at most
    max_rebuild objects, when max_rebuild > 0). With `under` (path prefixes), a focused draw:
    only files under them, and only sites generated.toml has not triaged (new points of one
    module, to find its untested behaviour; not a sample of the whole population). Returns
    the mutants and the number of sites."""
    files = sorted(str(p.relative_to(source)) for p in (source / "src").rglob("*") if p.suffix in (".cpp", ".h"))
    if under:
        files = [f for f in files if any(f.startswith(prefix) for prefix in under)]
    if max_rebuild > 0:
        objects = objects_per_source(build, source)
        files = [f for f in files if objects.get(f, 0 if f.endswith(".h") else 1) <= max_rebuild]
    sites = [s for f in files for s in mutation_sites(f, (source / f).read_text())]
    if under:
        sites = [s for s in sites if triaged(s, triage) is None]
    chosen = random.Random(seed).sample(sites, min(count, len(sites)))
    mutants = []
    for k, s in enumerate(chosen, 1):
        m = dict(s, id=f"gen{seed}.{k}", generated=True,
                 breaks=f"line {s['line']}: `{s['line_text'][:70]}`: {s['original'].strip()} -> {s['replacement'].strip()}")
        t = triaged(s, triage)
        if t and "equivalent" in t:
            m["equivalent"] = t["equivalent"]
        mutants.append(m)
    return mutants, len(sites)


def self_test() -> int:
    """The generator and the test selection on known inputs (CTest repository.mutation_harness)."""
    snippet = ('#include <vector>\n// a < b in a comment\nint f(int a, int b) {\n'
               '  const char* s = "x == y";\n  if (a < b && b > 0) return a + 1;\n  if (auto c = s) {}\n'
               '  std::vector<int> v;\n  return R"(p - q)"[0] == 1\'000 ? 0 : -1;\n}\n')
    sites = mutation_sites("x.cpp", snippet)
    found = [(s["line"], s["original"], s["replacement"]) for s in sites]
    expected = [(5, "(a < b && b > 0)", "(!(a < b && b > 0))"), (5, " < ", " <= "), (5, " && ", " || "),
                (5, " > ", " >= "), (5, "0", "1"), (5, " + ", " - "), (5, "1", "2"), (8, "0", "1"),
                (8, " == ", " != "), (8, "0", "1"), (8, "1", "2")]
    problems = []
    if found != expected:
        problems.append(f"sites: {found}\n  expected {expected}")
    # A focused draw (--under): only files under the prefix, and no triaged point.
    focus = "src/analysis/matching.cpp"
    points = mutation_sites(focus, (ROOT / focus).read_text())
    first = points[0]
    entry = {"file": first["file"], "line": first["line_text"], "original": first["original"],
             "replacement": first["replacement"], "occurrence": first.get("occurrence"), "equivalent": "test"}
    drawn, count = generate_mutants(len(points), 1, ROOT, ROOT / "build", 0, [entry], [focus])
    untriaged = sum(1 for point in points if triaged(point, [entry]) is None)  # same text on other lines too
    if count != untriaged or untriaged == len(points) or {m["file"] for m in drawn} != {focus} or \
            any(triaged(m, [entry]) for m in drawn):
        problems.append(f"--under {focus}: {count} of {len(points)} points ({untriaged} untriaged), "
                        f"files {sorted({m['file'] for m in drawn})}")
    # --only: generated ids are told from hand-written ones by their form.
    if generated_ids("gen5.1,core.rng-rotation,gen12x.3,gen7.10") != {"gen5.1", "gen7.10"}:
        problems.append(f"--only's generated ids: {sorted(generated_ids('gen5.1,core.rng-rotation,gen12x.3,gen7.10'))}")
    deps = module_deps()
    binaries = test_binaries(deps)
    reached = [b.target for b in reached_binaries("src/sim/engine.cpp", binaries, deps)]
    if reached[:1] != ["test_sim"] or not {"test_sweep", "test_cli"} <= set(reached) or \
            {"test_graph", "test_soak", "test_schedule"} & set(reached):
        problems.append(f"src/sim/engine.cpp reaches {reached}")
    reached = [b.target for b in reached_binaries("apps/routelab/main.cpp", binaries, deps)]
    if "test_cli" not in reached or "test_graph" in reached:
        problems.append(f"apps/routelab/main.cpp reaches {reached}")
    reached = [b.target for b in reached_binaries("python/operations.cpp", binaries, deps)]
    if reached:
        problems.append(f"python/operations.cpp reaches test binaries {reached} (only the Python tests)")
    for problem in problems:
        print(problem, file=sys.stderr)
    print("mutation harness self-test: " + ("FAILED" if problems else "ok"))
    return 1 if problems else 0


# ---- the run -----------------------------------------------------------------------------------

def mutated_text(m: dict, text: str) -> str | None:
    """The file's text with the mutant applied, or None when its text is not where it should be."""
    if m.get("generated"):
        offset, original = m["offset"], m["original"]
        if text[offset:offset + len(original)] != original:
            return None
        return text[:offset] + m["replacement"] + text[offset + len(original):]
    if text.count(m["original"]) != 1:
        return None
    return text.replace(m["original"], m["replacement"])


@dataclass
class Harness:
    args: argparse.Namespace
    source: Path
    build: Path
    deps: dict[str, set[str]] = field(default_factory=dict)
    binaries: list[TestBinary] = field(default_factory=list)
    scripts: list[ScriptTest] = field(default_factory=list)

    def baseline(self) -> bool:
        """Builds the unmutated copy; with --suite selected, runs every binary once (they must
        pass) and keeps their times."""
        print(f"baseline build in {self.build} ...", file=sys.stderr)
        rc, out = run(["cmake", "--build", str(self.build), "-j", str(self.args.jobs)], ROOT)
        if rc != 0:
            print(out[-4000:] + "\nthe unmutated tree does not build", file=sys.stderr)
            return False
        if self.args.suite != "selected":
            return True
        self.deps = module_deps(self.source)
        self.binaries = [b for b in test_binaries(self.deps, self.source) if b.label not in EXCLUDED_LABELS]
        self.scripts = script_tests(self.build, self.binaries)
        started = time.monotonic()
        passed, detail, seconds = run_binaries(self.build, self.binaries, self.args.jobs, self.args.timeout * 5,
                                               fail_fast=False)
        for b in self.binaries:
            b.seconds = seconds.get(b.target, 0.0)
        print(f"baseline tests: {len(self.binaries)} binaries in {time.monotonic() - started:.0f} s "
              f"({', '.join(f'{b.target} {b.seconds:.0f}' for b in self.binaries)})", file=sys.stderr)
        if passed and self.scripts:
            started = time.monotonic()
            passed, detail = run_scripts(self.build, self.scripts, self.args.jobs, self.args.timeout * 5)
            print(f"baseline scripts: {len(self.scripts)} in {time.monotonic() - started:.0f} s "
                  f"({', '.join(s.name for s in self.scripts)})", file=sys.stderr)
        if not passed:
            print(f"the unmutated tests fail: {detail}", file=sys.stderr)
        return passed

    def targets_and_tests(self, file: str) -> tuple[list[str], list[TestBinary], list[ScriptTest]]:
        binaries = reached_binaries(file, self.binaries, self.deps)
        labels = {b.label for b in binaries}
        cli_reached = any(b.cli for b in binaries)
        # The Python package links every module and its tests drive the CLI as well: its
        # script (python.pytest) is reached by every mutant, and is all a python/ mutant reaches.
        scripts = [s for s in self.scripts if s.labels & labels or (s.cli and cli_reached) or PYTHON_LABEL in s.labels]
        targets = [b.target for b in binaries] + (["routelab"] if cli_reached or scripts else [])
        if Path(file).parts[0] == "python":
            targets.append(PYTHON_TARGET)
        return targets, binaries, scripts

    def test(self, m: dict) -> tuple[str, str]:
        """(status, detail) of one applied mutant: build what it reaches, run its tests."""
        args = self.args
        selected = args.suite == "selected" and not (args.tests or m.get("tests"))
        targets: list[str] = []
        if selected:
            targets, binaries, scripts = self.targets_and_tests(m["file"])
        command = ["cmake", "--build", str(self.build), "-j", str(args.jobs)]
        rc, _ = run(command + (["--target", *targets] if targets else []), ROOT)
        if rc != 0:
            return ("uncompilable" if m.get("generated") else "invalid"), "does not compile"
        if selected:
            passed, detail, _ = run_binaries(self.build, binaries, args.jobs, args.timeout)
            if passed and PYTHON_TARGET not in targets and any(PYTHON_LABEL in s.labels for s in scripts):
                # Built only when its tests are to run (the binaries passed): a relink of the module.
                rc, _ = run(command + ["--target", PYTHON_TARGET], ROOT)
                if rc != 0:
                    return ("uncompilable" if m.get("generated") else "invalid"), "the Python module does not compile"
            if passed:
                passed, detail = run_scripts(self.build, scripts, args.jobs, args.timeout)
            return ("survived", "") if passed else ("killed", detail)
        regex = args.tests or m.get("tests", "")
        command = ["ctest", "--test-dir", str(self.build), "-j", str(args.jobs), "--output-on-failure",
                   "--timeout", str(int(args.timeout)), "-LE", "|".join(sorted(EXCLUDED_LABELS))]
        if regex:
            command += ["-R", regex]
        elif m.get("labels") and args.labels:
            command += ["-L", m["labels"]]
        rc, out = run(command, ROOT, timeout=args.timeout * 2)
        if rc == 0:
            return "survived", ""
        return "killed", first_failures(out) or ("timeout" if rc == 124 else "tests failed")

    def one(self, m: dict, index: int, total: int, run_started: float) -> dict:
        row = {"id": m["id"], "file": m["file"], "breaks": m["breaks"], "status": "", "detail": "",
               "kind": "generated" if m.get("generated") else "hand-written"}
        if "equivalent" in m:
            row.update(status="equivalent", detail=m["equivalent"])
            return row
        if self.args.budget > 0 and time.monotonic() - run_started > self.args.budget:
            row.update(status="not run", detail=f"budget of {self.args.budget:.0f} s spent")
            return row
        path = self.source / m["file"]
        text = path.read_text() if path.exists() else ""
        mutated = mutated_text(m, text)
        if mutated is None:
            row.update(status="invalid", detail="original text not found exactly once")
            return row
        started = time.monotonic()
        print(f"[{index}/{total}] {m['id']} ({m['file']})", file=sys.stderr)
        path.write_text(mutated)
        try:
            status, detail = self.test(m)
        finally:
            path.write_text(text)  # restore (mtime changes: the next build recompiles it)
        if status == "survived":
            detail = m.get("survives", "UNEXPLAINED")
        row.update(status=status, detail=detail, seconds=round(time.monotonic() - started))
        # Each result as it comes (a run stopped early still tells what it found).
        print(f"[{index}/{total}] {m['id']}: {status} ({row['seconds']} s) {detail}", file=sys.stderr, flush=True)
        return row


def summary(rows: list[dict], kind: str) -> tuple[float, str]:
    count = {s: sum(r["status"] == s and r["kind"] == kind for r in rows)
             for s in ("killed", "survived", "equivalent", "invalid", "uncompilable", "not run")}
    unexplained = sum(r["status"] == "survived" and r["detail"] == "UNEXPLAINED" and r["kind"] == kind for r in rows)
    seconds = [r["seconds"] for r in rows if r["kind"] == kind and "seconds" in r]
    run_ = count["killed"] + count["survived"]
    rate = count["killed"] / run_ if run_ else 1.0
    mean = f", {sum(seconds) / len(seconds):.0f} s per mutant run" if seconds else ""
    return rate, (f"{kind}: killed {count['killed']}, survived {count['survived']} ({unexplained} unexplained), "
                  f"equivalent {count['equivalent']}, invalid {count['invalid']}, uncompilable "
                  f"{count['uncompilable']}, not run {count['not run']}: kill rate {100 * rate:.1f}% of {run_} "
                  f"non-equivalent mutants run{mean}")


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mutants", type=Path, default=ROOT / "tests/mutation/mutants.toml")
    parser.add_argument("--only", default="", help="comma-separated mutant ids: hand-written ones, and generated ones "
                        "(gen<seed>.<n>) with the draw's --generate N --seed S")
    parser.add_argument("--subset", type=int, default=0, help="run N hand-written mutants (rotating, see --rotation)")
    parser.add_argument("--rotation", type=int, default=0, help="which window of --subset mutants")
    parser.add_argument("--generate", type=int, default=0, help="also N generated mutants (see --seed)")
    parser.add_argument("--generated-only", action="store_true", help="no hand-written mutants")
    parser.add_argument("--seed", type=int, default=None, help="the generated sample's seed (default: a new one, printed)")
    parser.add_argument("--max-rebuild", type=int, default=0,
                        help="draw generated mutants only in files compiled into at most K objects (0: anywhere)")
    parser.add_argument("--under", action="append", default=[],
                        help="a focused draw: generated points only in files under this path (repeatable), "
                        "leaving out those generated.toml has triaged")
    parser.add_argument("--triage", type=Path, default=ROOT / "tests/mutation/generated.toml")
    parser.add_argument("--suite", choices=("selected", "ctest"), default="selected",
                        help="selected: the test binaries the mutated module reaches, fail-fast; ctest: the whole suite")
    parser.add_argument("--work", type=Path, default=ROOT / "build-mutation", help="scratch copy (DIR/tree) and its build (DIR/tree/build)")
    parser.add_argument("--tests", default="", help="ctest -R regex for every mutant (default: the mutant's own, "
                        "else --suite)")
    parser.add_argument("--labels", action="store_true", help="--suite ctest: run only the mutant's `labels` (ctest -L)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=float, default=900, help="seconds per test (a hang kills the mutant)")
    parser.add_argument("--min-kill-rate", type=float, default=0.9)
    parser.add_argument("--budget", type=float, default=0, help="seconds: start no new mutant after this (0: no limit)")
    parser.add_argument("--require-killed", action="store_true",
                        help="fail (exit 1) on any hand-written survivor without `survives = \"reason\"` instead of on the kill rate")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    parser.add_argument("--list", action="store_true", help="print the mutants and exit")
    parser.add_argument("--check", action="store_true",
                        help="only check that every mutant's text occurs exactly once in its file (no build)")
    parser.add_argument("--sites", action="store_true", help="print the generated mutation points of src/ and exit")
    parser.add_argument("--self-test", action="store_true", help="check the generator and the test selection")
    return parser.parse_args()


def generated_ids(only: str) -> set[str]:
    """The ids in --only that name generated points (gen<seed>.<n>, as a run prints them)."""
    return {i for i in only.split(",") if re.fullmatch(r"gen\d+\.\d+", i)}


def chosen_generated(args: argparse.Namespace, generated: list[dict]) -> list[dict] | None:
    """--only's generated ids among the draw (all of it without such ids); None if one is not drawn."""
    wanted = generated_ids(args.only)
    if not wanted:
        return generated
    unknown = wanted - {m["id"] for m in generated}
    if unknown:
        print(f"not in the draw of --generate {args.generate} --seed {args.seed}: {', '.join(sorted(unknown))} "
              f"(ids are gen<seed>.<n>, n from 1 to N)", file=sys.stderr)
        return None
    return [m for m in generated if m["id"] in wanted]


def chosen_hand_mutants(args: argparse.Namespace, mutants: list[dict]) -> list[dict] | None:
    if args.generated_only:
        return []
    if args.only:
        wanted = set(args.only.split(",")) - generated_ids(args.only)
        unknown = wanted - {m["id"] for m in mutants}
        if unknown:
            print(f"unknown mutant id(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return None
        return [m for m in mutants if m["id"] in wanted]
    if args.subset > 0 and mutants:
        start = (args.rotation * args.subset) % len(mutants)
        return [mutants[(start + i) % len(mutants)] for i in range(min(args.subset, len(mutants)))]
    return mutants


def main() -> int:
    args = parse_arguments()
    mutants = load_mutants(args.mutants)
    if args.check:
        return check_texts(mutants)
    if args.self_test:
        return self_test()
    if args.list:
        for m in mutants:
            print(f"{m['id']:<28} {m['file']:<40} {m['breaks']}")
        return 0
    if args.sites:
        for f in sorted(str(p.relative_to(ROOT)) for p in (ROOT / "src").rglob("*") if p.suffix in (".cpp", ".h")):
            for s in mutation_sites(f, (ROOT / f).read_text()):
                print(f"{s['file']}:{s['line']}: {s['kind']}: {s['original']!r} -> {s['replacement']!r}")
        return 0
    hand = chosen_hand_mutants(args, mutants)
    if hand is None:
        return 2
    if generated_ids(args.only) and (args.generate <= 0 or args.seed is None):
        print("--only gen<seed>.<n> runs points of a draw: give the draw's --generate N --seed S "
              "(and --max-rebuild/--under as printed)", file=sys.stderr)
        return 2
    # Checked before the baseline build: an id of another draw, or beyond N.
    outside = sorted(i for i in generated_ids(args.only)
                     if i.split(".")[0] != f"gen{args.seed}" or not 1 <= int(i.split(".")[1]) <= args.generate)
    if outside:
        print(f"not in the draw of --generate {args.generate} --seed {args.seed}: {', '.join(outside)} "
              f"(its ids are gen{args.seed}.1 to gen{args.seed}.{args.generate})", file=sys.stderr)
        return 2

    # The copy is a tree like the repository with its build inside it (tree/build), so the
    # compiler sees the same relative paths as in a checkout's build/ and ccache (base_dir)
    # serves the unchanged files from an earlier build of the same sources.
    source = args.work / "tree"
    build = source / "build"
    os.environ.setdefault("CCACHE_BASEDIR", os.path.commonpath([str(ROOT), str(args.work.resolve())]))
    os.environ.setdefault("CCACHE_NOHASHDIR", "1")
    source.mkdir(parents=True, exist_ok=True)
    copy_tree(source)
    # Optimised as users run it, with the standard containers' bounds checked as in the
    # sanitizer tree (ROUTELAB_CHECK_BOUNDS): an index one past a vector's size that stays
    # within its capacity changes no result, and only such a check sees it. Configured every
    # run (cheap when the cache holds these values), so an earlier tree takes them.
    rc, out = run(["cmake", "-S", str(source), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                   "-DROUTELAB_BENCHMARKS=OFF", "-DROUTELAB_CHECK_BOUNDS=ON"], ROOT)
    if rc != 0:
        print(out, file=sys.stderr)
        return 2
    harness = Harness(args, source, build)
    started = time.monotonic()
    if not harness.baseline():
        return 2
    generated: list[dict] = []
    if args.generate > 0:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
        args.seed = seed
        generated, sites = generate_mutants(args.generate, seed, source, build, args.max_rebuild, load_triage(args.triage),
                                            args.under)
        print(f"generated mutants: seed {seed}, {len(generated)} of {sites} points of src/"
              f"{f' (files compiled into at most {args.max_rebuild} objects)' if args.max_rebuild else ''} "
              f"(rerun: --generate {args.generate} --seed {seed}{''.join(f' --under {u}' for u in args.under)}"
              f"{f' --max-rebuild {args.max_rebuild}' if args.max_rebuild else ''})", file=sys.stderr)
        chosen = chosen_generated(args, generated)
        if chosen is None:
            return 2
        generated = chosen
    # Header mutants last: one may rebuild most of the tree, and the budget then stops the
    # window after the cheap ones instead of before them.
    everything = sorted(hand, key=lambda m: m["file"].endswith(".h")) + generated
    run_started = time.monotonic()
    rows = [harness.one(m, i, len(everything), run_started) for i, m in enumerate(everything, 1)]
    # The build is left with the last mutant's objects; the next run's baseline build (above)
    # rebuilds what the restored file needs.

    print("| mutant | file | should break | result | detail | seconds |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['id']} | `{r['file']}` | {r['breaks']} | {r['status']} | {r['detail']} | {r.get('seconds', '')} |")
    print()
    rates = {}
    for kind in ("hand-written", "generated"):
        if any(r["kind"] == kind for r in rows):
            rates[kind], line = summary(rows, kind)
            print(line + (f" (seed {args.seed})" if kind == "generated" else ""))
    print(f"in {time.monotonic() - started:.0f} s (baseline build and tests included; mutants "
          f"{time.monotonic() - run_started:.0f} s)")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "kill_rates": rates, "seed": args.seed}, indent=2) + "\n")
    if any(r["status"] == "invalid" for r in rows):
        return 2
    if args.require_killed:
        unexplained = [r["id"] for r in rows if r["kind"] == "hand-written" and r["status"] == "survived"
                       and r["detail"] == "UNEXPLAINED"]
        survivors = [r["id"] for r in rows if r["kind"] == "generated" and r["status"] == "survived"]
        if survivors:
            print(f"generated survivors (triage them: a test, or an `equivalent` entry in {args.triage.name}): "
                  f"{', '.join(survivors)}", file=sys.stderr)
        if unexplained:
            print(f"unexplained survivors: {', '.join(unexplained)} (add a test that kills them, or "
                  f"`survives = \"reason\"` to tests/mutation/mutants.toml)", file=sys.stderr)
        return 1 if unexplained else 0
    return 0 if all(rate >= args.min_kill_rate for rate in rates.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
