#!/usr/bin/env python3
"""The lines of src/ that no test runs, and the mutation points on them.

    tests/mutation/coverage.py BUILD [--list FILE] [--max-rebuild K]

BUILD is a build made with `--coverage` whose tests have run (scripts/coverage.sh does both).
Every .gcda file under BUILD is read with gcov (gcc's own, JSON output); a line counts as run
when any translation unit ran it (headers are compiled into many). Prints, on stdout:

  - executable lines of src/ and how many of them no test ran;
  - the generator's mutation points (tests/mutation/mutate.py --sites; with --max-rebuild K,
    as --generate draws them) by where they lie: on a line a test ran, on a line no test ran,
    or on a line gcov does not count (declarations, default member values, braces) — then
    counted by the nearest counted line above it;
  - the files with the most points on lines no test ran.

A mutant on a line no test runs survives whatever the tests assert: those points are a floor
under the survivors of any sample. --list FILE writes every line no test ran ("file:line: text").
Exit: 0; 2 on usage errors (no .gcda files: build with --coverage and run the tests first).
"""
import argparse
import bisect
import collections
import glob
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutate  # noqa: E402  (the generator's sites and the objects per source)

ROOT = Path(__file__).resolve().parents[2]


def line_counts(build: Path) -> dict[str, dict[int, int]]:
    """file (relative to the repository) -> line -> the largest count over translation units."""
    gcdas = sorted(glob.glob(str(build / "**" / "*.gcda"), recursive=True))
    counts: dict[str, dict[int, int]] = collections.defaultdict(dict)
    with tempfile.TemporaryDirectory() as scratch:
        for i in range(0, len(gcdas), 32):
            done = subprocess.run(["gcov", "--json-format", "--stdout", *gcdas[i:i + 32]], capture_output=True,
                                  text=True, cwd=scratch, check=False)
            for document in done.stdout.splitlines():
                document = document.strip()
                if not document.startswith("{"):
                    continue
                data = json.loads(document)
                for entry in data["files"]:
                    path = Path(entry["file"])
                    if not path.is_absolute():
                        path = Path(data.get("current_working_directory", "")) / path
                    try:
                        relative = str(path.resolve().relative_to(ROOT))
                    except ValueError:
                        continue
                    if not relative.startswith("src/"):
                        continue
                    lines = counts[relative]
                    for line in entry["lines"]:
                        lines[line["line_number"]] = max(lines.get(line["line_number"], 0), line["count"])
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("build", type=Path)
    parser.add_argument("--list", type=Path, help="write every line no test ran to this file")
    parser.add_argument("--max-rebuild", type=int, default=0,
                        help="only the points --generate draws with this --max-rebuild (0: every point)")
    parser.add_argument("--top", type=int, default=25, help="files listed (most points on lines no test ran)")
    args = parser.parse_args()
    counts = line_counts(args.build)
    if not counts:
        print(f"coverage: no coverage data under {args.build} (build with --coverage and run the tests: "
              "scripts/coverage.sh)", file=sys.stderr)
        return 2
    executable = sum(len(lines) for lines in counts.values())
    unrun = sorted((f, n) for f, lines in counts.items() for n, c in lines.items() if c == 0)
    print(f"executable lines of src/: {executable}; no test ran {len(unrun)} ({100 * len(unrun) / executable:.1f} %)")

    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "src").rglob("*") if p.suffix in (".cpp", ".h"))
    if args.max_rebuild > 0:
        objects = mutate.objects_per_source(ROOT / "build", ROOT)
        files = [f for f in files if objects.get(f, 0 if f.endswith(".h") else 1) <= args.max_rebuild]
    where = collections.Counter()
    per_file = collections.Counter()
    for f in files:
        lines = counts.get(f, {})
        counted = sorted(lines)
        for site in mutate.mutation_sites(f, (ROOT / f).read_text()):
            n = site["line"]
            if n in lines:
                ran = lines[n] > 0
                kind = "on a line a test ran" if ran else "on a line no test ran"
            else:
                below = bisect.bisect_left(counted, n)  # counted lines before n
                ran = below > 0 and lines[counted[below - 1]] > 0
                kind = "not counted (nearest counted line above ran)" if ran else \
                    "not counted (nearest counted line above did not run, or none)"
            where[kind] += 1
            if kind == "on a line no test ran":
                per_file[f] += 1
    total = sum(where.values())
    print(f"mutation points{f' (--max-rebuild {args.max_rebuild})' if args.max_rebuild else ''}: {total}")
    for kind, count in where.most_common():
        print(f"  {count:6d}  {100 * count / total:5.1f} %  {kind}")
    print("files with the most points on lines no test ran:")
    for f, count in per_file.most_common(args.top):
        print(f"  {count:5d}  {f}")
    if args.list:
        with open(args.list, "w") as out:
            for f, n in unrun:
                text = (ROOT / f).read_text().split("\n")
                out.write(f"{f}:{n}: {text[n - 1].strip() if n <= len(text) else ''}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
