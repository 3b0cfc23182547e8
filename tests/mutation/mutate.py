#!/usr/bin/env python3
"""routelab's mutation harness: plant one realistic bug at a time, rebuild, run the tests.

    tests/mutation/mutate.py [--mutants FILE] [--only ID[,ID...]] [--subset N --rotation K]
                             [--work DIR] [--tests REGEX] [--labels] [--jobs J] [--timeout S]
                             [--budget S] [--require-killed] [--json FILE] [--list] [--check]

Each mutant of the list (tests/mutation/mutants.toml) names a file, an exact piece of its text
(which must occur exactly once), its replacement and the property the change should break.
The harness copies the repository (tracked files of HEAD plus the working tree's changes) to a
scratch directory once, configures one build there, and for every mutant: applies it, rebuilds
incrementally, runs the whole suite without the soak, OpenSM and mutation-list labels (about 20 s on 2 cores;
--labels: only the CTest labels the mutant names, faster but blind to a test elsewhere),
restores the file.
A mutant is
  killed     when the build succeeds and a test fails (or times out),
  survived   when every test passes,
  invalid    when it does not compile or its text is not found exactly once (a harness error,
             counted apart: fix the list),
  equivalent when the list marks it so (`equivalent = "reason"`); it is not run.
A mutant the suite is known not to kill carries `survives = "reason"` (an explained survivor:
still run and counted). The kill rate is killed / (killed + survived). Output: a table (Markdown) on stdout and, with
--json FILE, the rows as JSON. --subset N --rotation K runs the N mutants starting at
(K * N) mod count, so CI can rotate through the list (docs/TESTING.md); --budget S starts no
new mutant once S seconds have passed (the rest are listed as "not run").
Exit status: 0 when the kill rate is at least --min-kill-rate (default 0.9) — with
--require-killed (CI), when no mutant survives that is not an explained survivor —, 1
otherwise, 2 on a harness error (an invalid mutant, an unbuildable tree).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mutants", type=Path, default=ROOT / "tests/mutation/mutants.toml")
    parser.add_argument("--only", default="", help="comma-separated mutant ids")
    parser.add_argument("--subset", type=int, default=0, help="run N mutants (rotating, see --rotation)")
    parser.add_argument("--rotation", type=int, default=0, help="which window of --subset mutants")
    parser.add_argument("--work", type=Path, default=ROOT / "build-mutation", help="scratch copy (DIR/tree) and its build (DIR/tree/build)")
    parser.add_argument("--tests", default="", help="ctest -R regex for every mutant (default: the mutant's own, "
                        "else the whole suite without the slow labels)")
    parser.add_argument("--labels", action="store_true", help="run only the mutant's `labels` (ctest -L) "
                        "instead of the whole suite")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--timeout", type=float, default=900, help="seconds per test run (a hang kills the mutant)")
    parser.add_argument("--min-kill-rate", type=float, default=0.9)
    parser.add_argument("--budget", type=float, default=0, help="seconds: start no new mutant after this (0: no limit)")
    parser.add_argument("--require-killed", action="store_true",
                        help="fail (exit 1) on any survivor without `survives = \"reason\"` instead of on the kill rate")
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    parser.add_argument("--list", action="store_true", help="print the mutants and exit")
    parser.add_argument("--check", action="store_true",
                        help="only check that every mutant's text occurs exactly once in its file (no build)")
    args = parser.parse_args()

    mutants = load_mutants(args.mutants)
    if args.check:
        return check_texts(mutants)
    if args.list:
        for m in mutants:
            print(f"{m['id']:<28} {m['file']:<40} {m['breaks']}")
        return 0
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {m["id"] for m in mutants}
        if unknown:
            print(f"unknown mutant id(s): {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        mutants = [m for m in mutants if m["id"] in wanted]
    elif args.subset > 0 and mutants:
        start = (args.rotation * args.subset) % len(mutants)
        mutants = [mutants[(start + i) % len(mutants)] for i in range(min(args.subset, len(mutants)))]

    # The copy is a tree like the repository with its build inside it (tree/build), so the
    # compiler sees the same relative paths as in a checkout's build/ and ccache (base_dir)
    # serves the unchanged files from an earlier build of the same sources.
    source = args.work / "tree"
    build = source / "build"
    os.environ.setdefault("CCACHE_BASEDIR", os.path.commonpath([str(ROOT), str(args.work.resolve())]))
    os.environ.setdefault("CCACHE_NOHASHDIR", "1")
    source.mkdir(parents=True, exist_ok=True)
    copy_tree(source)
    if not (build / "CMakeCache.txt").exists():
        rc, out = run(["cmake", "-S", str(source), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                       "-DROUTELAB_BENCHMARKS=OFF"], ROOT)
        if rc != 0:
            print(out, file=sys.stderr)
            return 2
    print(f"baseline build in {build} ...", file=sys.stderr)
    rc, out = run(["cmake", "--build", str(build), "-j", str(args.jobs)], ROOT)
    if rc != 0:
        print(out[-4000:], file=sys.stderr)
        print("the unmutated tree does not build", file=sys.stderr)
        return 2

    rows = []
    run_started = time.monotonic()
    for index, m in enumerate(mutants, 1):
        row = {"id": m["id"], "file": m["file"], "breaks": m["breaks"], "status": "", "detail": ""}
        if args.budget > 0 and time.monotonic() - run_started > args.budget and "equivalent" not in m:
            row.update(status="not run", detail=f"budget of {args.budget:.0f} s spent")
            rows.append(row)
            continue
        if "equivalent" in m:
            row.update(status="equivalent", detail=m["equivalent"])
            rows.append(row)
            continue
        path = source / m["file"]
        text = path.read_text() if path.exists() else ""
        count = text.count(m["original"])
        if count != 1:
            row.update(status="invalid", detail=f"original text found {count} times")
            rows.append(row)
            continue
        started = time.monotonic()
        print(f"[{index}/{len(mutants)}] {m['id']} ({m['file']})", file=sys.stderr)
        path.write_text(text.replace(m["original"], m["replacement"]))
        try:
            rc, out = run(["cmake", "--build", str(build), "-j", str(args.jobs)], ROOT)
            if rc != 0:
                row.update(status="invalid", detail="does not compile")
            else:
                regex = args.tests or m.get("tests", "")
                command = ["ctest", "--test-dir", str(build), "-j", str(args.jobs), "--output-on-failure",
                           "--timeout", str(int(args.timeout)), "-LE", "soak|opensm|mutation-list"]
                if regex:
                    command += ["-R", regex]
                elif m.get("labels") and args.labels:
                    command += ["-L", m["labels"]]
                rc, out = run(command, ROOT, timeout=args.timeout * 2)
                if rc == 0:
                    row.update(status="survived", detail=m.get("survives", "UNEXPLAINED"))
                else:
                    row.update(status="killed", detail=first_failures(out) or ("timeout" if rc == 124 else "tests failed"))
        finally:
            path.write_text(text)  # restore (mtime changes: the next build recompiles it)
        row["seconds"] = round(time.monotonic() - started)
        rows.append(row)

    # The build is left with the last mutant's objects; the next run's baseline build (above)
    # rebuilds what the restored file needs.

    killed = sum(r["status"] == "killed" for r in rows)
    not_run = sum(r["status"] == "not run" for r in rows)
    unexplained = [r["id"] for r in rows if r["status"] == "survived" and r["detail"] == "UNEXPLAINED"]
    survived = sum(r["status"] == "survived" for r in rows)
    equivalent = sum(r["status"] == "equivalent" for r in rows)
    invalid = sum(r["status"] == "invalid" for r in rows)
    print("| mutant | file | should break | result | detail | seconds |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['id']} | `{r['file']}` | {r['breaks']} | {r['status']} | {r['detail']} | {r.get('seconds', '')} |")
    rate = killed / (killed + survived) if killed + survived else 1.0
    print(f"\nkilled {killed}, survived {survived} ({len(unexplained)} unexplained), equivalent {equivalent}, "
          f"invalid {invalid}, not run {not_run}: kill rate {100 * rate:.1f}% of {killed + survived} non-equivalent "
          f"mutants run, in {time.monotonic() - run_started:.0f} s")
    if args.json:
        args.json.write_text(json.dumps({"rows": rows, "kill_rate": rate}, indent=2) + "\n")
    if invalid:
        return 2
    if args.require_killed:
        if unexplained:
            print(f"unexplained survivors: {', '.join(unexplained)} (add a test that kills them, or "
                  f"`survives = \"reason\"` to tests/mutation/mutants.toml)", file=sys.stderr)
        return 1 if unexplained else 0
    return 0 if rate >= args.min_kill_rate else 1


if __name__ == "__main__":
    sys.exit(main())
