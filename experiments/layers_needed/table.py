#!/usr/bin/env python3
"""Markdown tables of results/{connectivity,growth}.csv for docs/LAYERED.md."""
import csv
import sys
from collections import defaultdict
from pathlib import Path

here = Path(__file__).resolve().parent / "results"


def read(name):
    with open(here / name) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


engines = ["lash", "mp-lash", "a-lash"]
for name, title in [("connectivity.csv", "layers vs links"), ("growth.csv", "links = 2 x switches")]:
    if not (here / name).exists():
        continue
    rows = read(name)
    extra = here / name.replace(".csv", "_lash_suffix_fit.csv")
    if extra.exists():
        rows += read(extra.name)
    present = {r["engine"] for r in rows}
    names = [e for e in engines if e in present] + sorted(present - set(engines))
    cells = defaultdict(dict)
    for r in rows:
        cells[(int(r["switches"]), int(r["links"]))][r["engine"]] = r
    print(f"\n{title} (min / mean / max over {rows[0]['samples']} fabrics per point)\n")
    print("| switches | links | links/switches | " + " | ".join(names) + " |")
    print("|---|---|---|" + "---|" * len(names))
    for (s, l) in sorted(cells):
        out = []
        for e in names:
            r = cells[(s, l)].get(e)
            if r is None:
                out.append("")
                continue
            text = f"{r['min']} / {float(r['mean']):.2f} / {r['max']}"
            if r["failures"] != "0":
                text += f" ({r['failures']} > limit)"
            out.append(text)
        print(f"| {s} | {l} | {l / s:.2f} | " + " | ".join(out) + " |")
