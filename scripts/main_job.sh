#!/usr/bin/env bash
# The main job on the built-in example (a 4-ary 3-tree): what the fabric is, then every
# routing engine that handles it, compared on what it costs: layers (virtual lanes),
# deadlock freedom (verifier), path lengths, worst-case permutation load (WORST) and average
# bisection bandwidth (ABB, Nienaber et al. 2011 §II) under each load model of
# docs/ANALYSIS.md (first-path, even-split, best-split: what an adaptive or multipath engine's
# routes allow), ranked by best-split ABB. Usage: main_job.sh [routelab]
set -euo pipefail
routelab=${1:-build/bin/routelab}
fabric=${ROUTELAB_EXAMPLE:-kary-ntree:k=4,n=3}
seed=${ROUTELAB_SEED:-1}
engines="ftree-deterministic ftree-adaptive dmodk smodk minhop updown updown-dfs mroots lash mp-lash a-lash escape"

echo "\$ routelab topo $fabric"
"$routelab" topo "$fabric"
echo
echo "Routing engines on $fabric (seed $seed):"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for engine in $engines; do
  "$routelab" route "$fabric" --engine "$engine" --format json >"$work/$engine.route.json" 2>"$work/$engine.err" || true
  "$routelab" verify "$fabric" --engine "$engine" --format json >"$work/$engine.verify.json" 2>>"$work/$engine.err" || true
  for model in first-path even-split best-split; do
    "$routelab" analyze "$fabric" --engine "$engine" --metric worst --load-model "$model" --format json \
      >"$work/$engine.worst.$model.json" 2>>"$work/$engine.err" || true
    "$routelab" analyze "$fabric" --engine "$engine" --metric abb --load-model "$model" --seed "$seed" --format json \
      >"$work/$engine.abb.$model.json" 2>>"$work/$engine.err" || true
  done
done
python3 - "$work" $engines <<'PY'
import json, sys, os
work, engines = sys.argv[1], sys.argv[2:]
def load(name):
    try:
        with open(os.path.join(work, name)) as f:
            return json.load(f)
    except Exception:
        return None
models = ("first-path", "even-split", "best-split")
def worst_cell(w):
    if not w:
        return "-"
    v, lo = w["value"], w.get("lower_bound", w["value"])
    fmt = (lambda x: f"{x:g}") if float(v).is_integer() else (lambda x: f"{x:.3f}")
    return fmt(v) if lo == v else f"{lo:.3f}..{v:.3f}"
def abb_cell(a):
    if not a or "mean" not in a:
        return "-"
    cell = f"{a['mean']:.3f} ± {a['ci99_halfwidth']:.3f}"
    if not a.get("exact", True):
        cell += f" (≤ {a['bandwidth_upper_bound']:.3f})"
    return cell
rows = []
for e in engines:
    route, verify = load(f"{e}.route.json"), load(f"{e}.verify.json")
    if route is None or verify is None:
        err = open(os.path.join(work, e + ".err")).read().strip().splitlines()
        rows.append((-1.0, f"| {e} | refused: {err[0] if err else 'no output'} ||||||||||"))
        continue
    worst = {m: load(f"{e}.worst.{m}.json") for m in models}
    abb = {m: load(f"{e}.abb.{m}.json") for m in models}
    checks = route.get("checks", {})
    single = (abb["first-path"] or {}).get("single_path", True)
    det = "yes" if checks.get("multi_candidate_entries", 0) == 0 else "no (adaptive)"
    if det == "yes" and not single:
        det = "yes (multipath)"
    rank = (abb["best-split"] or {}).get("mean", -1.0)
    rows.append((rank, f"| {e} | {det} | {verify.get('layers')} | {'yes' if verify.get('deadlock_free') else 'NO'} | "
          f"{checks.get('mean_hops', 0):.2f} | {checks.get('max_hops', '-')} | "
          + " | ".join(worst_cell(worst[m]) for m in models) + " | "
          + " | ".join(abb_cell(abb[m]) for m in models) + " |"))
print("Ranked by ABB under the best-split load model (the bandwidth the engine's allowed routes can give a")
print("bisection pattern); every WORST and ABB column names its load model.")
print()
print("| engine | deterministic | layers | deadlock-free | mean hops | max hops | WORST first-path | WORST even-split "
      "| WORST best-split | ABB first-path | ABB even-split | ABB best-split |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for _, row in sorted(rows, key=lambda r: -r[0]):
    print(row)
print()
print("Load models (docs/ANALYSIS.md): first-path = every pair on its preferred path (path 0, first candidate);")
print("even-split = each pair's unit divided equally over its allowed routes, hop by hop (candidates, LMC/MP-LASH")
print("paths, allowed layers, escape layer); best-split = the least maximum channel load over all splits of the")
print("allowed routes (Frank-Wolfe; an achievable value, with the certified bound in parentheses when not exact).")
print("Single-path engines give the same numbers under all three. WORST = the largest load one permutation puts")
print("on a channel (first-path and even-split exact by per-channel matching; best-split as lower..upper bounds);")
print("ABB = mean of 1/max-link-load over random bisection patterns until the 99% CI is within 1%.")
PY
