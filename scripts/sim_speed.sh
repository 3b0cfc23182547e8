#!/usr/bin/env bash
# scripts/sim_speed.sh — the simulator's speed on BookSim2's reference cases (issue 9, Deliver
# 9; docs/PERFORMANCE.md "Simulation speed"), optionally side by side with BookSim2.
#
# usage: scripts/sim_speed.sh [--routelab BIN] [--booksim BIN] [--terminals 256|4096|65536 ...]
#                             [--threads "1 2 4"] [--repeat N] [--booksim-period CYCLES] [--overlap]
# (BookSim's sample period: 2000 cycles for 256 terminals, 200 for 4096, 100 for 65,536.)
#
# Every case is a k-ary n-tree (4-ary 4-tree: 256 terminals, 4-ary 6-tree: 4096, 16-ary
# 4-tree: 65,536) with uniform traffic at 0.5 flits/node/cycle, 8-flit packets, 4 VCs of two
# packets (BookSim: 16 flits), random up-port choice, routing delay 1 and fly time 1 — the
# configuration of BookSim's fat-tree example router that our speed targets are set against.
# BookSim (built by anyone from github:booksim/booksim2, not part of routelab) runs the same
# case from the configuration below.
#
# It names the machine first on stderr (processor, family, CPUs, L3 cache, load average): the
# ratio moves with the processor (`git show 159bb92:docs/PERFORMANCE.md`). With --booksim, the two
# tools' runs alternate round by round (a shared machine's speed drifts), and each case ends
# with the ratio of the medians (routelab's one-thread runs over BookSim's) on stderr. With
# --overlap (and --booksim), BookSim's --repeat runs of a case go on in the background, one
# after another, while routelab's rounds repeat until they have finished (at least --repeat
# rounds): on a machine of several cores, both tools meet the same machine state even when
# one BookSim run takes minutes (4096 terminals: 2-3 min), and routelab's median comes from
# many runs. Each tool then runs beside the other, sharing the processor's cache and memory.
# Prints one CSV row per run on stdout:
#   tool,terminals,threads,cycles,cpu_s,wall_s,cycles_per_cpu_s,cycles_per_wall_s,max_rss_kib
# cycles are the simulated cycles (routelab: the JSON "simulated_cycles"; BookSim: "Time taken is N
# cycles"); cpu_s is user + system time of the whole process, routing and set-up included.
# Exit: 0 ok; 2 usage; 1 a run failed.
set -euo pipefail

routelab=build/bin/routelab booksim='' threads='1' repeat=1 period='' overlap=''
terminals=()
while [ $# -gt 0 ]; do
  case $1 in
    --routelab) routelab=$2; shift 2 ;;
    --booksim) booksim=$2; shift 2 ;;
    --terminals) terminals+=("$2"); shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    --booksim-period) period=$2; shift 2 ;;
    --overlap) overlap=1; shift ;;
    -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "sim_speed: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ ${#terminals[@]} -gt 0 ] || terminals=(256 4096)
for n in "${terminals[@]}"; do
  case $n in 256 | 4096 | 65536) ;; *) echo "sim_speed: --terminals must be 256, 4096 or 65536, not '$n'" >&2; exit 2 ;; esac
done
[ -x "$routelab" ] || { echo "sim_speed: no routelab binary at '$routelab' (--routelab)" >&2; exit 2; }
[ -z "$booksim" ] || [ -x "$booksim" ] || { echo "sim_speed: no BookSim binary at '$booksim' (--booksim)" >&2; exit 2; }
[[ $repeat =~ ^[1-9][0-9]*$ ]] || { echo "sim_speed: --repeat must be a positive whole number, not '$repeat'" >&2; exit 2; }
[ -z "$overlap" ] || [ -n "$booksim" ] || { echo "sim_speed: --overlap needs --booksim" >&2; exit 2; }

tmp=$(mktemp -d)
background=''  # --overlap: BookSim's runs in the background (their process group), stopped if routelab fails
trap '[ -z "$background" ] || kill -- "-$background" 2>/dev/null; rm -rf "$tmp"' EXIT

fabric_of() {  # terminals -> "fabric k n warmup measure booksim-sample-period"
  case $1 in
    256) echo "kary-ntree:k=4,n=4 4 4 6000 24000 2000" ;;
    4096) echo "kary-ntree:k=4,n=6 4 6 600 600 200" ;;
    65536) echo "kary-ntree:k=16,n=4 16 4 200 200 100" ;;
  esac
}

# BookSim's fat-tree example router (k, n and the sample period are set per case).
cat >"$tmp/booksim.cfg" <<'EOF'
topology = fattree; k = 4; n = 4; routing_function = nca; router = iq;
num_vcs = 4; vc_buf_size = 16; wait_for_tail_credit = 0; hold_switch_for_packet = 1;
vc_allocator = separable_input_first; sw_allocator = separable_input_first; alloc_iters = 1;
credit_delay = 2; routing_delay = 0; vc_alloc_delay = 1; sw_alloc_delay = 1; st_final_delay = 1;
input_speedup = 1; output_speedup = 1; internal_speedup = 1.0;
traffic = uniform; injection_process = bernoulli; packet_size = 8;
injection_rate_uses_flits = 1; injection_rate = 0.5;
sim_type = latency; warmup_periods = 3; sample_period = 2000; max_samples = 10;
stopping_thres = -1.0; acc_stopping_thres = -1.0; seed = 1; print_csv_results = 1;
EOF

row() {  # tool terminals threads cycles timefile
  read -r user sys wall rss < <(tail -1 "$5")
  awk -v t="$1" -v n="$2" -v th="$3" -v c="$4" -v u="$user" -v s="$sys" -v w="$wall" -v r="$rss" 'BEGIN {
    cpu = u + s; printf "%s,%s,%s,%s,%.2f,%.2f,%.0f,%.0f,%s\n", t, n, th, c, cpu, w,
      (cpu > 0 ? c / cpu : 0), (w > 0 ? c / w : 0), r }'
}

median() {  # tool terminals -> the median cycles/CPU-s of its one-thread rows
  # cycles / cpu_s, not the rounded column: BookSim's 13.6 cycles/CPU-s at 4096 terminals reads 14 there.
  awk -F, -v t="$1" -v n="$2" '$1 == t && $2 == n && $3 == 1 { printf "%.6f\n", ($5 > 0 ? $4 / $5 : 0) }' "$tmp/rows.csv" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR == 0) print 0; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
summary() {  # terminals [runs]: the ratio of the medians, on stderr (the CSV stays on stdout)
  local ours theirs
  ours=$(median routelab "$1") theirs=$(median booksim "$1")
  awk -v n="$1" -v r="${2:-$repeat}" -v a="$ours" -v b="$theirs" 'BEGIN {
    printf "sim_speed: %s terminals, one thread, medians of %s: routelab %.0f, BookSim2 %.1f cycles/CPU-s: ", n, r, a, b
    if (a == 0) printf "no ratio (no one-thread routelab run: --threads)\n"
    else if (b > 0) printf "%.1fx\n", a / b; else printf "no ratio (BookSim took no measurable time)\n" }' >&2
}

machine() {  # the processor, its cache and the load: a ratio holds for the machine it was measured on
  local model family l3
  model=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
  family=$(lscpu 2>/dev/null | sed -n 's/^CPU family: *//p' | head -1)
  l3=$(lscpu 2>/dev/null | sed -n 's/^L3 cache: *//p' | head -1)
  [ -n "$model" ] || model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -1)
  echo "sim_speed: machine: ${model:-unknown processor}${family:+ (family $family)}, $(nproc) CPUs, L3 ${l3:-unknown}," \
    "load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)" >&2
}

machine
: >"$tmp/rows.csv"
echo "tool,terminals,threads,cycles,cpu_s,wall_s,cycles_per_cpu_s,cycles_per_wall_s,max_rss_kib"
run_routelab() {  # terminals fabric warmup measure threads: one row
  /usr/bin/time -f '%U %S %e %M' -o "$tmp/time" "$routelab" simulate "$2" --engine ftree-adaptive \
    --selection random --vcs 4 --buffer-packets 2 --packet-flits 8 --routing-delay 1 --fly-time 1 \
    --load 0.5 --warmup "$3" --cycles "$4" --threads "$5" --format json >"$tmp/out.json" ||
    { echo "sim_speed: routelab failed on $2" >&2; exit 1; }
  cycles=$(sed -n 's/^ *"simulated_cycles": \([0-9]*\),*$/\1/p' "$tmp/out.json")
  row routelab "$1" "$5" "$cycles" "$tmp/time" | tee -a "$tmp/rows.csv"
}
run_booksim() {  # terminals k levels period: one row (its own files: it may run beside routelab)
  /usr/bin/time -f '%U %S %e %M' -o "$tmp/booksim.time" "$booksim" "$tmp/booksim.cfg" k="$2" n="$3" \
    sample_period="$4" >"$tmp/booksim.out" 2>&1 || true  # BookSim exits non-zero on success
  cycles=$(awk '/Time taken is/ { c = $4 } END { print c }' "$tmp/booksim.out")
  [ -n "$cycles" ] || { echo "sim_speed: BookSim printed no cycle count" >&2; tail -5 "$tmp/booksim.out" >&2; exit 1; }
  row booksim "$1" 1 "$cycles" "$tmp/booksim.time" | tee -a "$tmp/rows.csv"
}

# With BookSim, the runs alternate (routelab's, then BookSim's, round by round), so that both
# tools meet the same state of a shared machine (whose speed drifts over minutes).
for n in "${terminals[@]}"; do
  read -r fabric k levels warmup measure case_period <<<"$(fabric_of "$n")"
  if [ -n "$overlap" ]; then
    rm -f "$tmp/booksim.status"
    set -m  # (the background job in a process group of its own: the exit trap stops BookSim with it)
    (
      status=0
      for _ in $(seq "$repeat"); do (run_booksim "$n" "$k" "$levels" "${period:-$case_period}") || { status=1; break; }; done
      echo "$status" >"$tmp/booksim.status"
    ) &
    background=$!
    set +m
    rounds=0
    # (until BookSim's runs have ended: its status written, or its process gone)
    until [ "$rounds" -ge "$repeat" ] && { [ -e "$tmp/booksim.status" ] || ! kill -0 "$background" 2>/dev/null; }; do
      for t in $threads; do run_routelab "$n" "$fabric" "$warmup" "$measure" "$t"; done
      rounds=$((rounds + 1))
    done
    wait "$background"
    background=''
    [ "$(cat "$tmp/booksim.status" 2>/dev/null)" = 0 ] || exit 1
    summary "$n" "$rounds routelab and $repeat BookSim2 runs"
    continue
  fi
  for _ in $(seq "$repeat"); do
    for t in $threads; do run_routelab "$n" "$fabric" "$warmup" "$measure" "$t"; done
    [ -z "$booksim" ] || run_booksim "$n" "$k" "$levels" "${period:-$case_period}"
  done
  [ -z "$booksim" ] || summary "$n"
done
