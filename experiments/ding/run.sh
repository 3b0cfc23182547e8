#!/usr/bin/env bash
# Schedulability of level-wise vs local circuit scheduling (Ding et al. SC'06 §5, Fig. 9),
# plus multi-round scheduling (beyond the paper).
# Usage: experiments/ding/run.sh [BUILD_DIR] [PERMUTATIONS]
#   BUILD_DIR defaults to build (RelWithDebInfo); PERMUTATIONS to 100 per point, as the paper.
# Two-, three- and four-level FT(l, w) with w^l nodes from 64 to 4096 (only w^l-sized
# systems, as the paper); for every point and scheduler the mean/min/max schedulability
# ratio: level by level (Ding §4, default; a failed request keeps its links), and request
# by request keeping or releasing the links of failed requests. Seed 1; results do not depend on the thread count.
# Writes results/schedulability.json, results/table.md, results/fig9.png,
# results/rounds.md here.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../common.sh"
build="${1:-$root/build}"
permutations="${2:-100}"
built_target "$build" routelab
routelab="$build/bin/routelab"
out="$here/results"
mkdir -p "$out"

points="2:8 2:16 2:32 2:64 3:4 3:8 3:16 4:3 4:4 4:6 4:8"
schedulers="level-wise local-greedy local-random"
rows="$out/schedulability.jsonl"
: > "$rows"
for point in $points; do
  l="${point%%:*}"; w="${point##*:}"
  for scheduler in $schedulers; do
    for variant in "$scheduler" "$scheduler:order=request" "$scheduler:order=request,release-on-fail"; do
      "$routelab" schedule "ft:l=$l,m=$w,w=$w" --scheduler "$variant" \
        --permutations "$permutations" --seed 1 --format json |
        python3 -c 'import json,sys; j=json.load(sys.stdin); j.pop("ratios"); print(json.dumps(j))' >> "$rows"
    done
  done
done

# Multi-round scheduling: permutations, shifts and all-to-all on the 64- and 256-node trees.
rounds="$out/rounds.jsonl"
: > "$rounds"
for spec in ft:l=3,m=4,w=4 ft:l=2,m=8,w=8 ft:l=2,m=16,w=16 ft:l=4,m=4,w=4; do
  for scheduler in $schedulers; do
    for pattern in permutation shift:s=1 shift:s=17 all-to-all; do
      samples="$permutations"
      [[ "$pattern" == permutation ]] || samples=10
      [[ "$pattern" == all-to-all ]] && samples=3
      "$routelab" schedule "$spec" --scheduler "$scheduler" --pattern "$pattern" --rounds \
        --permutations "$samples" --seed 1 --format json |
        python3 -c 'import json,sys; j=json.load(sys.stdin); j.pop("ratios"); j["rounds"].pop("samples"); print(json.dumps(j))' >> "$rounds"
    done
  done
done

python3 "$here/tabulate.py" "$out"
gnuplot -e "dir='$out'" "$here/fig9.gp"
echo "wrote $out/{schedulability.jsonl,table.md,fig9.dat,fig9.png,rounds.jsonl,rounds.md}"
