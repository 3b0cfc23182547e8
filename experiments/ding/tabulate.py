#!/usr/bin/env python3
"""Turn run.sh's JSON lines into markdown tables and the gnuplot data of Fig. 9."""
import json
import sys
from pathlib import Path

out = Path(sys.argv[1])
rows = [json.loads(line) for line in (out / "schedulability.jsonl").read_text().splitlines() if line]


def name(row):
    return row["scheduler"].split(":")[0]


def released(row):
    return "release-on-fail=true" in row["scheduler"]


def request_order(row):
    return "order=request" in row["scheduler"]


points = []
for row in rows:
    key = (row["xgft"], row["spec"], row["terminals"])
    if key not in points:
        points.append(key)
schedulers = ["level-wise", "local-greedy", "local-random"]

lines = ["| tree | nodes | levels | scheduler | level order: mean | min | max "
         "| request order, keep: mean | request order, release: mean | min | max |",
         "|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
data = ["# point label  lw_mean lw_min lw_max  greedy_mean min max  random_mean min max"]
for xgft, spec, terminals in points:
    level_count = spec.split("l=")[1].split(",")[0]
    width = spec.split("w=")[1]
    values = []
    for scheduler in schedulers:
        keep = next(r for r in rows if r["spec"] == spec and name(r) == scheduler and not request_order(r))
        request_keep = next(r for r in rows if r["spec"] == spec and name(r) == scheduler and request_order(r)
                            and not released(r))
        free = next(r for r in rows if r["spec"] == spec and name(r) == scheduler and released(r))
        lines.append(f"| FT({level_count},{width}) | {terminals} | {level_count} | {scheduler} | "
                     f"{keep['ratio_mean']:.3f} | {keep['ratio_min']:.3f} | {keep['ratio_max']:.3f} | "
                     f"{request_keep['ratio_mean']:.3f} | "
                     f"{free['ratio_mean']:.3f} | {free['ratio_min']:.3f} | {free['ratio_max']:.3f} |")
        values += [keep["ratio_mean"], keep["ratio_min"], keep["ratio_max"]]
    data.append(f'"{level_count}L {terminals}" ' + " ".join(f"{v:.4f}" for v in values))
(out / "table.md").write_text("\n".join(lines) + "\n")
(out / "fig9.dat").write_text("\n".join(data) + "\n")

# Statements of Ding §1, §5 checked on the default (keep) runs.
keep = [r for r in rows if not request_order(r)]
local = [r for r in keep if name(r) != "level-wise"]
level = [r for r in keep if name(r) == "level-wise"]
checks = ["", "| statement (Ding et al.) | ours |", "|---|---|"]
checks.append(f"| local scheduling 45%-70% (means) | {min(r['ratio_mean'] for r in local):.1%} - "
              f"{max(r['ratio_mean'] for r in local):.1%} |")
checks.append(f"| level-wise 78%-95% (means) | {min(r['ratio_mean'] for r in level):.1%} - "
              f"{max(r['ratio_mean'] for r in level):.1%} |")
improvements = []
for xgft, spec, terminals in points:
    lw = next(r for r in level if r["spec"] == spec)
    for r in local:
        if r["spec"] == spec:
            improvements.append((terminals, spec, name(r), lw["ratio_mean"] / r["ratio_mean"] - 1,
                                 lw["ratio_mean"] - r["ratio_mean"]))
big = [i for i in improvements if i[0] > 500]
checks.append(f"| improvement over 30% beyond 500 nodes | relative {min(i[3] for i in big):.0%} - "
              f"{max(i[3] for i in big):.0%}, absolute {min(i[4] for i in big):.1%} - {max(i[4] for i in big):.1%} "
              f"(points > 500 nodes) |")
above = []
for xgft, spec, terminals in points:
    lw = next(r for r in level if r["spec"] == spec)
    best_local = max(r["ratio_max"] for r in local if r["spec"] == spec)
    above.append((lw["ratio_min"] > best_local, spec, lw["ratio_min"], best_local))
holds = sum(1 for a in above if a[0])
checks.append(f"| level-wise minimum above local maximum | {holds} of {len(above)} points"
              + ("" if holds == len(above) else ": fails at " + ", ".join(
                  f"{a[1]} ({a[2]:.3f} vs {a[3]:.3f})" for a in above if not a[0])) + " |")
with (out / "table.md").open("a") as f:
    f.write("\n".join(checks) + "\n")

rounds = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines() if line]
lines = ["| tree | nodes | pattern | scheduler | requests | samples | rounds mean | min | max | load lower bound |",
         "|---|---:|---|---|---:|---:|---:|---:|---:|---:|"]
for r in rounds:
    lines.append(f"| {r['spec']} | {r['terminals']} | {r['pattern']} | {name(r)} | {r['requests']:.0f} | "
                 f"{r['permutations']} | {r['rounds']['mean']:.2f} | {r['rounds']['min']} | {r['rounds']['max']} | "
                 f"{r['rounds']['lower_bound_max']} |")
(out / "rounds.md").write_text("\n".join(lines) + "\n")
