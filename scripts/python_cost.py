#!/usr/bin/python3
"""The cost of the Python package against the CLI (docs/PERFORMANCE.md "Python"), issue 36:

1. CPU: `routelab verify SPEC --engine E` + `routelab analyze SPEC --engine E --metric worst`
   (each loads the fabric and routes it) against the same work in one Python process
   (Fabric + route + verify, Fabric + route + analyze), CPU seconds (user + system) of the
   calls, the interpreter's start and imports left out; medians of --repeat runs, interleaved.
2. Memory: viewing every forwarding table of --tables-spec as numpy arrays — the bytes
   tracemalloc and the process's resident set gain on the first and on later views.

    PYTHONPATH=build/python scripts/python_cost.py --binary build/bin/routelab
"""

import argparse
import resource
import statistics
import subprocess
import time
import tracemalloc

import routelab as rl


def cli_seconds(binary, spec, engine):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for args in (["verify", spec, "--engine", engine], ["analyze", spec, "--engine", engine, "--metric", "worst"]):
        subprocess.run([binary, *args], check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def python_seconds(spec, engine):
    start = time.process_time()
    fabric = rl.Fabric(spec)
    assert rl.verify(fabric, rl.route(fabric, engine)).passed
    fabric = rl.Fabric(spec)
    rl.analyze(fabric, rl.route(fabric, engine), metric="worst")
    return time.process_time() - start


def resident_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--spec", default="kary-ntree:k=16,n=3")
    parser.add_argument("--engine", default="dmodk")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tables-spec", default="kary-ntree:k=16,n=4")
    args = parser.parse_args()

    cli, python = [], []
    python_seconds(args.spec, args.engine)  # warm the page cache and the allocator once
    for _ in range(args.repeat):
        cli.append(cli_seconds(args.binary, args.spec, args.engine))
        python.append(python_seconds(args.spec, args.engine))
    c, p = statistics.median(cli), statistics.median(python)
    print(f"cpu {args.spec} {args.engine}: cli {c:.3f} s, python {p:.3f} s, python/cli {p / c:.3f} "
          f"(medians of {args.repeat}; cli {sorted(round(x, 3) for x in cli)}, python {sorted(round(x, 3) for x in python)})")

    fabric = rl.Fabric(args.tables_spec)
    routing = rl.route(fabric, args.engine)
    rss0 = resident_kib()
    tracemalloc.start()
    first = routing.tables
    traced_first = tracemalloc.get_traced_memory()[0]
    rss1 = resident_kib()
    again = [routing.table(i) for i in range(len(first))]
    traced_again = tracemalloc.get_traced_memory()[0] - traced_first
    rss2 = resident_kib()
    tracemalloc.stop()
    entries = sum(t.size for t in first)
    print(f"tables {args.tables_spec} {args.engine}: {len(first)} table(s), {entries} entries "
          f"({first[0].dtype}, shape {first[0].shape}), views share memory: "
          f"{all(a.base is not None and not a.flags.owndata for a in first + again)}; "
          f"first view: traced {traced_first} B, resident +{rss1 - rss0} KiB (a compacted table is expanded once); "
          f"later views: traced {traced_again} B, resident +{rss2 - rss1} KiB")


if __name__ == "__main__":
    main()
