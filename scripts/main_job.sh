#!/usr/bin/env bash
# The main job on the built-in example (a 4-ary 3-tree): what the fabric is, then every
# routing engine that handles it, compared on what it costs: layers (virtual lanes),
# deadlock freedom (verifier), path lengths, exact worst-case permutation load (WORST) and
# average bisection bandwidth (ABB, Nienaber et al. 2011 §II). Usage: main_job.sh [routelab]
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
  "$routelab" analyze "$fabric" --engine "$engine" --metric worst --format json >"$work/$engine.worst.json" 2>>"$work/$engine.err" || true
  "$routelab" analyze "$fabric" --engine "$engine" --metric abb --seed "$seed" --format json >"$work/$engine.abb.json" 2>>"$work/$engine.err" || true
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
rows = []
print("| engine | deterministic | layers | deadlock-free | mean hops | max hops | WORST | ABB (99% CI) |")
print("|---|---|---|---|---|---|---|---|")
for e in engines:
    route, verify, worst, abb = (load(f"{e}.{k}.json") for k in ("route", "verify", "worst", "abb"))
    if route is None or verify is None:
        err = open(os.path.join(work, e + ".err")).read().strip().splitlines()
        print(f"| {e} | refused: {err[0] if err else 'no output'} |||||||")
        continue
    checks = route.get("checks", {})
    det = "yes" if checks.get("multi_candidate_entries", 0) == 0 else "no (adaptive)"
    w = worst.get("value") if worst else "-"
    a = f"{abb['mean']:.3f} ± {abb['ci99_halfwidth']:.3f}" if abb and "mean" in abb else "-"
    print(f"| {e} | {det} | {verify.get('layers')} | {'yes' if verify.get('deadlock_free') else 'NO'} | "
          f"{checks.get('mean_hops', 0):.2f} | {checks.get('max_hops', '-')} | {w} | {a} |")
print()
print("WORST = the largest number of source/destination pairs of one permutation that share a channel")
print("(exact, per-channel maximum bipartite matching); ABB = mean of 1/max-link-load over random")
print("bisection patterns until the 99% CI is within 1% (adaptive engines: load split over candidates")
print("is not modelled here; their first candidate is used).")
PY
