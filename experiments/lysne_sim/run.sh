#!/usr/bin/env bash
# Reproduce Lysne et al. 2006 §8.1, Figs. 7-9 with `routelab simulate`: deterministic routing on
# random irregular fabrics (16, 32, 64 switches, links = 2 x switches, one terminal per switch),
# 32-flit packets, virtual cut-through, Poisson generation, uniform and pairwise traffic; LASH vs
# D-MROOTS vs UpDown (DFS spanning tree, as the paper; the BFS one too) with EQUAL numbers of
# virtual channels: LASH's layer count on each topology decides, the others get as many.
# Writes results/points-SIZE.csv (one row per topology, engine, pattern and load), results/mean.csv
# (averaged over the topologies, from every points-*.csv) and (with gnuplot) results/lysne_sim.png.
# Usage: experiments/lysne_sim/run.sh [ROUTELAB_BINARY]
# Environment: SIZES (default "16 32 64"), TOPOLOGIES (per size, default 6), CYCLES (measured
# cycles per point, default 10000), LOADS (default 0.05:0.95:0.1).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../common.sh"
routelab_binary "${1:-}"
sizes="${SIZES:-16 32 64}"
topologies="${TOPOLOGIES:-6}"
cycles="${CYCLES:-10000}"
loads="${LOADS:-0.05:0.95:0.1}"
res="$here/results"
mkdir -p "$res"
common=(--packet-flits 32 --injection poisson --cycles "$cycles" --threads 1 --format json)
fields='[.offered, .accepted, .latency_avg, .saturated, .deadlock]'
for s in $sizes; do
  write_atomically "$res/points-$s.csv"
  echo "switches,topology,layers,engine,pattern,seed,load,offered,accepted,latency_avg,saturated,deadlock" > "$tmp"
  for t in $(seq 1 "$topologies"); do
    fabric="random:switches=$s,seed=$t"
    layers=$("$bin" route "$fabric" --engine lash:addressing=pair --format json | jq -r '.stats.layers')
    # name engine VCs: equal VCs (LASH's layers) for all; updown-dfs-1vc is the control of how
    # much UpDown gains from using all the VCs of its single layer (the simulator lets a packet
    # take any VC of its layer; the paper gives each pair one layer).
    for entry in "lash lash:addressing=pair $layers" "d-mroots d-mroots:layers=$layers $layers" \
                 "updown-dfs updown-dfs $layers" "updown updown $layers" "updown-dfs-1vc updown-dfs 1"; do
      set -- $entry
      name=$1 engine=$2 vcs=$3
      # uniform: one curve per process
      nice "$bin" simulate "$fabric" --engine "$engine" --vcs "$vcs" --pattern uniform --loads "$loads" \
        --seed "$t" "${common[@]}" |
        jq -r --arg p "$s,$t,$layers,$name,uniform,$t" --argjson a "${loads%%:*}" --argjson st "${loads##*:}" \
          ".points | to_entries[] | [\$p, ((\$a + .key * \$st) * 1000 | round / 1000)] + (.value | $fields) | @csv" | tr -d '"' >> "$tmp"
      # pairwise: a new set of random pairs for every topology and load (Lysne §8)
      i=0
      for load in $(seq -f %.2f $(echo "$loads" | tr ':' ' ' | awk '{print $1, $3, $2}')); do
        i=$((i + 1)); seed=$((1000 * t + i))
        nice "$bin" simulate "$fabric" --engine "$engine" --vcs "$vcs" --pattern dissemination --load "$load" \
          --seed "$seed" "${common[@]}" |
          jq -r --arg p "$s,$t,$layers,$name,pairwise,$seed,$load" "[\$p] + $fields | @csv" | tr -d '"' >> "$tmp"
      done
    done
  done
  mv "$tmp" "$out"
done
# Means over the topologies, per (size, engine, pattern, nominal load).
write_atomically "$res/mean.csv"
python3 - "$res"/points-*.csv > "$tmp" <<'PY'
import csv, sys, collections
rows = [r for f in sys.argv[1:] for r in csv.DictReader(open(f))]
acc = collections.defaultdict(list)
for r in rows:
    nominal = round(float(r['load']), 3)
    acc[(int(r['switches']), r['engine'], r['pattern'], nominal)].append(r)
print("switches,engine,pattern,load,topologies,offered,accepted,latency_avg,saturated_runs,deadlocks")
for (s, e, p, l), rs in sorted(acc.items()):
    n = len(rs)
    f = lambda k: sum(float(r[k]) for r in rs) / n
    print(f"{s},{e},{p},{l},{n},{f('offered'):.4f},{f('accepted'):.4f},{f('latency_avg'):.1f},"
          f"{sum(r['saturated'] == 'true' for r in rs)},{sum(r['deadlock'] == 'true' for r in rs)}")
PY
mv "$tmp" "$out"
if command -v gnuplot >/dev/null; then gnuplot -e "dir='$res'" "$here/plot.gp"; fi
