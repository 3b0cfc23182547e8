#!/usr/bin/env bash
# Layers needed by LASH, MP-LASH and A-LASH (Lysne et al. 2006 Figs. 3-6).
# Usage: experiments/layers_needed/run.sh [BUILD_DIR] [SAMPLES]
#   BUILD_DIR defaults to build (RelWithDebInfo); SAMPLES to 100 per point, as in the paper.
# Writes results/{connectivity,growth}{,_lash_suffix_fit}.csv, tables.md and layers_needed.png
# here. Engines run with no layer budget (max-layers=0, see layers_needed.cpp): layers needed.
# Uses all cores (OpenMP); results do not depend on the thread count (seed 1, one derived
# seed per fabric).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../common.sh"
build="${1:-$root/build}"
samples="${2:-100}"
built_target "$build" layers_needed
mkdir -p "$here/results"
"$build/bin/layers_needed" connectivity "$here/results/connectivity.csv" --samples "$samples" --seed 1 --sizes 16.32.64.128
# Fig. 4 is LASH's growth (links = 2 S); MP-LASH and A-LASH at 256 switches take hours here.
"$build/bin/layers_needed" growth "$here/results/growth.csv" --samples "$samples" --seed 1 --sizes 8.16.32.64.128.256 \
  --engines lash
# LASH with the speed hint fit=suffix (the default before issue 12), for comparison.
"$build/bin/layers_needed" connectivity "$here/results/connectivity_lash_suffix_fit.csv" --samples "$samples" --seed 1 \
  --sizes 16.32.64.128 --engines lash:fit=suffix
"$build/bin/layers_needed" growth "$here/results/growth_lash_suffix_fit.csv" --samples "$samples" --seed 1 \
  --sizes 8.16.32.64.128.256 --engines lash:fit=suffix
python3 "$here/table.py" > "$here/results/tables.md"
gnuplot -e "dir='$here/results'" "$here/plot.gp"
echo "wrote $here/results/{connectivity,growth}{,_lash_suffix_fit}.csv, tables.md, layers_needed.png"
