#!/bin/sh
# CTest sweep.mpi_equals_single_process: the same sweep under `mpirun -np 2` (routelab-mpi)
# and in one process (routelab) exports the same results apart from timings; so do a 2-rank
# run stopped by --max-points and resumed by the single-process binary, and a 2-rank run
# with the samples of every ABB point split over both ranks (--split-samples).
# usage: mpi_sweep.sh ROUTELAB ROUTELAB_MPI SWEEP_FILE [MPIRUN]
set -eu
routelab=$1
routelab_mpi=$2
sweep=$3
mpirun=${4:-mpirun}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# CI may run as root; more ranks than cores are fine for this small sweep.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { "$mpirun" -np 2 --oversubscribe "$routelab_mpi" "$@"; }

"$routelab" sweep "$sweep" --results "$work/single.sqlite" --quiet >"$work/single.out"
mpi sweep "$sweep" --results "$work/mpi.sqlite" --quiet >"$work/mpi.out"
"$routelab" results "$work/single.sqlite" --no-timings >"$work/single.csv"
"$routelab" results "$work/mpi.sqlite" --no-timings >"$work/mpi.csv"
cmp "$work/single.csv" "$work/mpi.csv"
# the MPI points were computed by rank 1
"$routelab" results "$work/mpi.sqlite" | tail -n +2 | grep -q ',rank 1$'
"$routelab" results "$work/mpi.sqlite" | tail -n +2 | grep -v -q ',rank 1$' && { echo "a point not from rank 1"; exit 1; }

# interrupted (--max-points) under MPI, resumed in one process: the same results
mpi sweep "$sweep" --results "$work/parts.sqlite" --max-points 3 --quiet >"$work/parts.out"
grep -q "3 computed now" "$work/parts.out"
"$routelab" sweep "$sweep" --results "$work/parts.sqlite" --quiet >"$work/resume.out"
grep -q "3 stored before" "$work/resume.out"
"$routelab" results "$work/parts.sqlite" --no-timings >"$work/parts.csv"
cmp "$work/single.csv" "$work/parts.csv"
# the samples of each ABB point split over both ranks: still the same results
mpi sweep "$sweep" --results "$work/split.sqlite" --split-samples --quiet >"$work/split.out"
"$routelab" results "$work/split.sqlite" --no-timings >"$work/split.csv"
cmp "$work/single.csv" "$work/split.csv"
"$routelab" results "$work/split.sqlite" | grep -q ',abb,.*,ranks$'

lines=$(wc -l <"$work/single.csv")
echo "mpi sweep: $((lines - 1)) points, 2-rank results equal the single-process results"
