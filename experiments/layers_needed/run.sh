#!/usr/bin/env bash
# Layers needed by LASH, MP-LASH and A-LASH (Lysne et al. 2006 Figs. 3-6).
# Usage: experiments/layers_needed/run.sh [BUILD_DIR] [SAMPLES]
#   BUILD_DIR defaults to build (RelWithDebInfo); SAMPLES to 100 per point, as in the paper.
# Writes results/connectivity.csv, results/growth.csv and results/layers_needed.png here.
# Uses all cores (OpenMP); results do not depend on the thread count (seed 1, one derived
# seed per fabric).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${1:-$root/build}"
samples="${2:-100}"
cmake --build "$build" --target layers_needed >/dev/null
mkdir -p "$here/results"
"$build/bin/layers_needed" connectivity "$here/results/connectivity.csv" --samples "$samples" --seed 1 --sizes 16.32.64.128
"$build/bin/layers_needed" growth "$here/results/growth.csv" --samples "$samples" --seed 1 --sizes 8.16.32.64.128.256
# LASH with plain first-fit in source order (as OpenSM; the paper's numbers), for comparison.
"$build/bin/layers_needed" connectivity "$here/results/connectivity_lash_first_fit.csv" --samples "$samples" --seed 1 \
  --sizes 16.32.64.128 --engines lash:fit=first
"$build/bin/layers_needed" growth "$here/results/growth_lash_first_fit.csv" --samples "$samples" --seed 1 \
  --sizes 8.16.32.64.128.256 --engines lash:fit=first
python3 "$here/table.py" > "$here/results/tables.md"
gnuplot -e "dir='$here/results'" "$here/plot.gp"
echo "wrote $here/results/{connectivity,growth}{,_lash_first_fit}.csv, tables.md, layers_needed.png"
