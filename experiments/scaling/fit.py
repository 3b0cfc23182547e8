#!/usr/bin/env python3
"""Growth exponents of the scaling runs (experiments/scaling/run.sh).

Usage: experiments/scaling/fit.py [--min-cpu S] [--plot-data FILE] results/scaling.csv

For every (family, stage): least-squares slopes of log(cpu_s) against log(terminals) and against
log(work) (the stage's inherent work, column work_unit), over the rows with status ok and
cpu_s >= --min-cpu (default 0.05 s: /usr/bin/time counts CPU in 10 ms ticks and a routelab
process costs a few of them to start, so smaller times say nothing about growth); and the slope
of log(peak RSS above the process baseline) against log(terminals), over the ok rows whose peak
RSS is at least 3 x the baseline (the smallest peak RSS in the file, about 5 MiB: routelab
itself). Prints a Markdown table; with --plot-data also writes the rows with status ok as whitespace-separated
columns for plot.gp: family stage terminals cpu_s wall_s peak_rss_mib work.

Python 3 standard library only.
"""
import argparse
import csv
import math
import sys
from collections import defaultdict

STAGES = ["generate", "route", "verify", "worst", "abb", "schedule"]
FAMILIES = ["kary-ntree", "xgft", "random"]


def order(values, known):
    return sorted(values, key=lambda v: (known.index(v) if v in known else len(known), v))


def slope(xs, ys):
    """Least-squares slope and R^2 of log(y) on log(x); None when x takes fewer than 2 values."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    n = len(lx)
    mx, my = sum(lx) / n, sum(ly) / n
    sxx = sum((x - mx) ** 2 for x in lx)
    if n < 2 or sxx == 0:
        return None, None
    sxy = sum((x - mx) * (y - my) for x, y in zip(lx, ly))
    syy = sum((y - my) ** 2 for y in ly)
    b = sxy / sxx
    r2 = sxy * sxy / (sxx * syy) if syy > 0 else 1.0
    return b, r2


def number(text):
    return float(text) if text not in ("", None) else None


def fmt_exp(b, r2):
    return "—" if b is None else f"{b:.2f} (R² {r2:.2f})"


def fmt_int(n):
    return f"{int(n):,}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv", help="results/scaling.csv from run.sh")
    ap.add_argument("--min-cpu", type=float, default=0.05, help="fit only runs with at least this CPU time (s)")
    ap.add_argument("--plot-data", metavar="FILE", help="write the ok rows for plot.gp")
    args = ap.parse_args()

    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    required = {"family", "spec", "terminals", "stage", "cpu_s", "wall_s", "peak_rss_mib", "work", "status"}
    missing = required - set(rows[0].keys() if rows else required)
    if not rows or missing:
        sys.exit(f"{args.csv}: no rows or missing columns {sorted(missing)}")

    rss_ok = [number(r["peak_rss_mib"]) for r in rows if r["status"] == "ok" and number(r["peak_rss_mib"])]
    base = min(rss_ok) if rss_ok else 0.0
    groups = defaultdict(list)
    for r in rows:
        groups[(r["family"], r["stage"])].append(r)

    print(f"Growth exponents: least-squares slope of log(CPU) on log(terminals) and on log(work), "
          f"runs with status ok and CPU ≥ {args.min_cpu:g} s (single thread; R² of the fit in brackets). "
          f"Memory exponent: log(peak RSS − {base:.1f} MiB, the smallest peak RSS here) on log(terminals), runs with "
          f"peak RSS ≥ {3 * base:.0f} MiB.")
    print()
    print("| family | stage | work measure | runs fitted / ok / not ok | exponent vs terminals "
          "| exponent vs work | memory exponent vs terminals | largest run (terminals, spec) | its CPU | its wall | its peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for family in order({k[0] for k in groups}, FAMILIES):
        for stage in order({k[1] for k in groups if k[0] == family}, STAGES):
            rs = groups[(family, stage)]
            ok = [r for r in rs if r["status"] == "ok"]
            unit = next((r["work_unit"] for r in rs if r.get("work_unit")), "")
            if not ok:
                reasons = sorted({r["status"] for r in rs})
                print(f"| {family} | {stage} | {unit} | 0 / 0 / {len(rs)} ({', '.join(reasons)}) | — | — | — | — | — | — | — |")
                continue
            fit = [r for r in ok if number(r["cpu_s"]) >= args.min_cpu and number(r["work"])]
            bt, rt = slope([int(r["terminals"]) for r in fit], [number(r["cpu_s"]) for r in fit]) if fit else (None, None)
            bw, rw = slope([number(r["work"]) for r in fit], [number(r["cpu_s"]) for r in fit]) if fit else (None, None)
            mem = [r for r in ok if number(r["peak_rss_mib"]) >= 3 * base]
            bm, rm = slope([int(r["terminals"]) for r in mem], [number(r["peak_rss_mib"]) - base for r in mem]) \
                if mem else (None, None)
            big = max(ok, key=lambda r: (int(r["terminals"]), number(r["cpu_s"])))
            bad = [r for r in rs if r["status"] != "ok"]
            bad_text = f"{len(bad)}" + (f" ({', '.join(sorted({r['status'] for r in bad}))})" if bad else "")
            print(f"| {family} | {stage} | {unit} | {len(fit)} / {len(ok)} / {bad_text} | {fmt_exp(bt, rt)} "
                  f"| {fmt_exp(bw, rw)} | {fmt_exp(bm, rm)} | {fmt_int(big['terminals'])}, `{big['spec']}` | {number(big['cpu_s']):.2f} s "
                  f"| {number(big['wall_s']):.2f} s | {number(big['peak_rss_mib']):.0f} MiB |")

    not_ok = defaultdict(list)
    for r in rows:
        if r["status"] != "ok":
            not_ok[(r["family"], r["stage"], r["status"], r.get("note", ""))].append(r)
    if not_ok:
        print()
        print("Runs not ok:")
        print()
        for (family, stage, status, note), rs in not_ok.items():
            sizes = ", ".join(f"`{r['spec']}` ({fmt_int(r['terminals'])})" for r in rs)
            print(f"- {family} {stage}: {status}{' — ' + note if note else ''}: {sizes}")

    if args.plot_data:
        ok = [r for r in rows if r["status"] == "ok"]
        ok.sort(key=lambda r: (r["family"], r["stage"], int(r["terminals"]), number(r["work"]) or 0))
        with open(args.plot_data, "w") as f:
            f.write("# family stage terminals cpu_s wall_s peak_rss_mib work (from fit.py)\n")
            for r in ok:
                f.write(f"{r['family']} {r['stage']} {r['terminals']} {r['cpu_s']} {r['wall_s']} "
                        f"{r['peak_rss_mib']} {r['work']}\n")


if __name__ == "__main__":
    main()
