#!/usr/bin/env bash
# Snapshot of what the CLI prints, for refactorings that must not change behaviour.
#
#   scripts/output_snapshot.sh ROUTELAB_BINARY OUT_DIR [--quick | --simulate]
#   diff -r BEFORE_DIR AFTER_DIR          # nothing = byte-identical
#
# Runs every subcommand over a matrix of fabrics (generated, faulty, random irregular and
# the committed OpenSM fabrics with OpenSM's own tables), every registered engine, text and
# JSON, and writes one file per command: its stdout, its stderr and its exit code. Sampled
# metrics use fixed seeds. Used for issue 8 (docs/ARCHITECTURE.md, "Checking a refactoring")
# and for the simulator's speed work (issue 9: every step must leave `sim.*` byte-identical).
set -uo pipefail
usage="usage: output_snapshot.sh ROUTELAB_BINARY OUT_DIR [--quick | --simulate]"
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "output_snapshot: $usage" >&2; exit 2; }
bin=$1 out=$2 quick=${3:-}
case "$quick" in
  "" | --quick | --simulate) ;;
  *) echo "output_snapshot: unknown option '$quick' ($usage)" >&2; exit 2 ;;
esac
[ -f "$bin" ] && [ -x "$bin" ] || { echo "output_snapshot: '$bin' is not an executable file" >&2; exit 2; }
root="$(cd "$(dirname "$0")/.." && pwd)"
data="$root/tests/data/opensm"
mkdir -p "$out"

n=0
run() {  # run NAME ARGS... -> OUT/NAME.{out,err,rc}
  local name=$1
  shift
  "$bin" "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
  # Paths of the data directory differ between checkouts.
  sed -i "s|$root|ROOT|g" "$out/$name.out" "$out/$name.err"
  n=$((n + 1))
}

engines="ftree-deterministic ftree-adaptive dmodk smodk opt opt-balanced opt-grid minhop updown updown-dfs
         mroots d-mroots lash lash:addressing=pair mp-lash a-lash escape"
fabrics="kary-ntree:k=4,n=3 kary-ntree:k=2,n=4 gft2:n=4,m=4,r=8 gft2:n=4,m=2,r=6 ft:l=2,m=4,w=4
         xgft:h=3,m=2.3.2,w=1.2.2 random:switches=16 random:switches=24,seed=3+fail-links=3,seed=2
         kary-ntree:k=4,n=2+fail-links=2,seed=7 net:$data/rnd16_s1/topology.net"
if [ "$quick" = --simulate ]; then  # only the simulator's commands (the end of this script)
  fabrics=""
fi
if [ "$quick" = --quick ]; then
  fabrics="kary-ntree:k=4,n=3 gft2:n=4,m=4,r=8 random:switches=16"
fi

i=0
for fabric in $fabrics; do
  i=$((i + 1))
  run "f$i.topo" topo "$fabric"
  run "f$i.topo.json" topo "$fabric" --format json
  for engine in $engines; do
    e=${engine//[:=,]/_}
    run "f$i.$e.route" route "$fabric" --engine "$engine"
    run "f$i.$e.route.json" route "$fabric" --engine "$engine" --format json
    run "f$i.$e.verify" verify "$fabric" --engine "$engine"
    run "f$i.$e.verify.json" verify "$fabric" --engine "$engine" --format json
    run "f$i.$e.worst" analyze "$fabric" --engine "$engine" --metric worst --format json
    run "f$i.$e.worst.first" analyze "$fabric" --engine "$engine" --metric worst --load-model first-path
    run "f$i.$e.abb" analyze "$fabric" --engine "$engine" --metric abb --seed 3 --max-samples 64 --format json
    run "f$i.$e.afpb.best" analyze "$fabric" --engine "$engine" --metric afpb --seed 3 --max-samples 64 \
      --load-model best-split
    run "f$i.$e.pattern" analyze "$fabric" --engine "$engine" --metric pattern --pattern shift:s=3 --format json
    run "f$i.$e.stages" analyze "$fabric" --engine "$engine" --metric stages
  done
done

# OpenSM's own tables on the committed fabrics (engine file:PATH).
osm_fabrics="k4n2 k2n4 rnd16_s1 gft_4_4_8"
schedulers="level-wise local-greedy local-random level-wise:order=request"
[ "$quick" = --simulate ] && osm_fabrics="" && schedulers=""
for fabric in $osm_fabrics; do
  for lft in "$data/$fabric"/lfts.*.dump*; do
    [ -e "$lft" ] || continue
    e=$(basename "$lft")
    run "osm.$fabric.$e.verify" verify "net:$data/$fabric/topology.net" --engine "file:$lft"
    run "osm.$fabric.$e.route.json" route "net:$data/$fabric/topology.net" --engine "file:$lft" --format json
    run "osm.$fabric.$e.worst" analyze "net:$data/$fabric/topology.net" --engine "file:$lft" --metric worst
  done
done

# Circuit scheduling (Ding).
for scheduler in $schedulers; do
  s=${scheduler//[:=,]/_}
  run "sched.$s" schedule ft:l=3,m=4,w=4 --scheduler "$scheduler" --permutations 20 --seed 5
  run "sched.$s.json" schedule ft:l=2,m=8,w=8 --scheduler "$scheduler" --permutations 10 --rounds --format json
  run "sched.$s.shift" schedule kary-ntree:k=4,n=3 --scheduler "$scheduler" --pattern shift:s=5
done

# The simulator (issue 9): engines, selection functions, in-order delivery, multipath sources,
# Poisson and multi-packet messages, hot-spot and bit-reversal traffic, invariant checks, two
# threads, a 4096-terminal fabric (grouped events, prefetching), a trace, 2 VCs on a
# two-level fat-tree. A speed change to the simulator must leave every one of them byte-identical.
speed="--vcs 4 --buffer-packets 2 --packet-flits 8 --routing-delay 1 --fly-time 1"
sim() {  # sim NAME ARGS...: `simulate ARGS --format json`
  local name=$1
  shift
  run "sim.$name" simulate "$@" --format json
}
sim random kary-ntree:k=4,n=4 --engine ftree-adaptive --selection random $speed --load 0.5 --warmup 1000 --cycles 2000
sim sadp kary-ntree:k=4,n=4 --engine ftree-adaptive --selection sadp --load 0.6 --warmup 1000 --cycles 2000
sim ff-in-order kary-ntree:k=4,n=4 --engine ftree-adaptive --selection ff --in-order --reorder-buffer 8 --load 0.5 \
  --warmup 1000 --cycles 2000
sim least-occupied-hotspot kary-ntree:k=4,n=3 --engine ftree-adaptive --selection least-occupied --load 0.7 \
  --warmup 500 --cycles 2000 --pattern uniform-hot-spot:fraction=0.2
sim deterministic-bitrev kary-ntree:k=4,n=3 --engine ftree-deterministic --load 0.6 --warmup 500 --cycles 2000 \
  --pattern bit-reversal
sim dmodk-poisson kary-ntree:k=4,n=3 --engine dmodk --load 0.3 --warmup 500 --cycles 2000 --injection poisson \
  --message-packets 3
sim lash random:switches=16 --engine lash --load 0.3 --warmup 500 --cycles 2000 --packet-flits 32
sim mp-lash random:switches=16 --engine mp-lash --paths adaptive --load 0.3 --warmup 500 --cycles 2000
sim escape random:switches=24,seed=3 --engine escape --load 0.3 --warmup 500 --cycles 2000 --selection random
sim threads kary-ntree:k=4,n=4 --engine ftree-adaptive --selection random $speed --load 0.5 --warmup 500 --cycles 1000 \
  --threads 2
sim check kary-ntree:k=4,n=4 --engine ftree-adaptive --selection random $speed --load 0.9 --warmup 500 --cycles 1000 \
  --check
sim k4n6 kary-ntree:k=4,n=6 --engine ftree-adaptive --selection random $speed --load 0.5 --warmup 200 --cycles 200
sim trace kary-ntree:k=2,n=7 --engine ftree-adaptive --trace-generate io:storage=23,clients=105 --compression 5 \
  --in-order
sim gft2 gft2:n=4,m=4,r=8 --engine ftree-adaptive --selection random --vcs 2 --load 0.8 --warmup 500 --cycles 2000
sim lmc kary-ntree:k=4,n=3 --engine dmodk --lmc 2 --paths round-robin --load 0.4 --warmup 500 --cycles 2000
sim low-load kary-ntree:k=4,n=3 --engine ftree-adaptive --load 0.001 --warmup 100 --cycles 50000

run list list
echo "$n commands -> $out"
