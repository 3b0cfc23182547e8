#!/usr/bin/env bash
# Side-by-side validation of `routelab simulate` against BookSim2 (issue 38, Deliver 5) on
# matched k-ary n-tree configurations: BookSim's fat-tree example router (`routing_function =
# nca`: a random up port per packet and hop, `router = iq`, 4 VCs x 16 flits, separable
# input-first allocators) against routelab's `ftree-adaptive --selection oblivious` (the same
# random up port, waited for) with 4 VCs x 2 packets of 8 flits, routing delay 1, fly time 1
# and round-robin switch allocation. Bernoulli injection, 8-flit packets, loads in flits per
# terminal per cycle. BookSim is NOT part of routelab: build it yourself from
# github:booksim/booksim2 (cd src && make) and pass its binary.
#
# usage: experiments/booksim_validation/run.sh --booksim BIN [ROUTELAB_BINARY]
# Environment: FABRICS (default "4:4 8:3": k:n), PATTERNS (default "uniform bit-reversal
# perfect-shuffle transpose hot-spot"; transpose only where N is an even power of two, e.g. 256;
# hot-spot = routelab's `uniform-hot-spot:fraction=HOTSPOT,target=0` against BookSim2's
# `hotspot` over every terminal weighted to the same destination distribution, HOTSPOT default
# 0.05 as in Gómez Fig. 6), LOADS (default "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0"; any list,
# e.g. LOADS="$(seq 0.030 0.0025 0.060)" for a fine grid at a knee), PERIOD (BookSim's sample
# period and routelab's window unit, default 1000 cycles: 3 warm-up and 3 measured periods for
# both), SEEDS (the seeds of every point, default "$SEED", SEED default 1: BookSim's `seed` and
# routelab's --seed), BOOKSIM_MAX_SAMPLES (BookSim's max_samples, default 6; BookSim counts
# its warm-up periods among the samples, so 6 = 3 warm-up + 3 measured periods; 3, the value of
# the runs committed in results/ and results-hot-spot-4000/, measures only BookSim's third
# period, after 2 periods of warm-up), RESULTS (the directory, default results/).
# Appends to results/points.csv (one row per tool, point and seed; a row already there for the
# same windows is not run again, so an interrupted run resumes):
#   tool,k,n,pattern,load,offered,accepted,latency_avg,mode,source_min,source_fairness,seed,warmup_cycles,measure_cycles
# (warmup_cycles and measure_cycles: the windows of that tool's run, statistics cleared at the
# end of the warm-up);
# accepted is over every terminal (BookSim's fixed points of a permutation send to themselves,
# routelab's send nothing: see RESULTS.md); mode is BookSim's sim_type (latency, or throughput
# where latency mode aborted as unstable); then `summary.py` prints the comparison and
# `plot.gp` (gnuplot) draws results/*.png.
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../common.sh"
booksim=''
if [ "${1:-}" = --booksim ]; then booksim=$2; shift 2; fi
[ -n "$booksim" ] && [ -x "$booksim" ] || { echo "booksim_validation: --booksim BIN (a BookSim2 binary) is required" >&2; exit 2; }
routelab_binary "${1:-}"
fabrics="${FABRICS:-4:4 8:3}"
patterns="${PATTERNS:-uniform bit-reversal perfect-shuffle transpose hot-spot}"
hotspot="${HOTSPOT:-0.05}"
loads="${LOADS:-0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 1.0}"
period="${PERIOD:-1000}"
seeds="${SEEDS:-${SEED:-1}}"
booksim_samples="${BOOKSIM_MAX_SAMPLES:-6}"
[ "$booksim_samples" -ge 3 ] || { echo "booksim_validation: BOOKSIM_MAX_SAMPLES must be 3 or more" >&2; exit 2; }
# BookSim2's _SingleSim with warmup_periods = 3 clears its statistics at the start of periods 0
# and 2 and of the first period after the warm-up, and counts every period in max_samples.
if [ "$booksim_samples" -eq 3 ]; then
  booksim_window="$((2 * period)),$period"
else
  booksim_window="$((3 * period)),$(((booksim_samples - 3) * period))"
fi
routelab_window="$((3 * period)),$((3 * period))"
results="${RESULTS:-$here/results}"
csv="$results/points.csv"
mkdir -p "$results"
header="tool,k,n,pattern,load,offered,accepted,latency_avg,mode,source_min,source_fairness,seed,warmup_cycles,measure_cycles"
[ -s "$csv" ] || echo "$header" >"$csv"
[ "$(head -1 "$csv")" = "$header" ] || { echo "booksim_validation: $csv has another header than $header" >&2; exit 2; }
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT

booksim_pattern() {  # routelab's pattern name -> BookSim's traffic name
  case $1 in
    uniform) echo uniform ;; bit-reversal) echo bitrev ;; perfect-shuffle) echo shuffle ;;
    transpose) echo transpose ;; bit-complement) echo bitcomp ;; hot-spot) echo hotspot ;;
    *) echo "booksim_validation: no BookSim name for pattern '$1'" >&2; exit 2 ;;
  esac
}
done_already() { grep -q "^$1,$2,$3,$4,$5,.*,$6,$7\$" "$csv"; }  # tool k n pattern load seed window
routelab_pattern() {  # the validation's pattern name -> routelab's traffic spec
  if [ "$1" = hot-spot ]; then echo "uniform-hot-spot:fraction=$hotspot,target=0"; else echo "$1"; fi
}
applies() {  # k n pattern: false (with a note) where the pattern is not defined on k^n terminals
  local bits=0 t=$(($1 ** $2))
  while [ "$t" -gt 1 ]; do t=$((t / 2)) bits=$((bits + 1)); done
  if [ "$3" = transpose ] && [ $((bits % 2)) -ne 0 ]; then
    echo "booksim_validation: transpose needs 2^(2b) terminals; skipped on the $1-ary $2-tree" >&2
    return 1
  fi
}

cat >"$work/ft.cfg" <<'CFG'
topology = fattree; routing_function = nca; router = iq;
num_vcs = 4; vc_buf_size = 16; wait_for_tail_credit = 0; hold_switch_for_packet = 1;
vc_allocator = separable_input_first; sw_allocator = separable_input_first; alloc_iters = 1;
credit_delay = 2; routing_delay = 0; vc_alloc_delay = 1; sw_alloc_delay = 1; st_final_delay = 1;
input_speedup = 1; output_speedup = 1; internal_speedup = 1.0;
injection_process = bernoulli; packet_size = 8; injection_rate_uses_flits = 1;
warmup_periods = 3; stopping_thres = -1.0; acc_stopping_thres = -1.0; print_csv_results = 0;
CFG

run_booksim() {  # k n pattern load mode seed -> "offered accepted latency" or nothing
  # hot-spot: BookSim2's `hotspot({{0,...,N-1},{w,100}})` draws destination 0 with weight w and
  # every other terminal with weight 100: w = 100 (N - 1) p / (1 - p) for p = F + (1 - F) / N,
  # the probability that uniform-hot-spot:fraction=F,target=0 gives terminal 0 (BookSim2's
  # uniform traffic includes the source itself; so does its hotspot list).
  local traffic
  traffic=$(booksim_pattern "$3")
  if [ "$3" = hot-spot ]; then
    traffic=$(awk -v f="$hotspot" -v n="$(($1 ** $2))" 'BEGIN {
      p = f + (1 - f) / n; w = int(100 * (n - 1) * p / (1 - p) + 0.5)
      printf "hotspot({{"; for (i = 0; i < n; ++i) printf "%s%d", (i ? "," : ""), i; printf "},{%d,100}})", w }')
  fi
  "$booksim" "$work/ft.cfg" k="$1" n="$2" traffic="$traffic" injection_rate="$4" sim_type="$5" \
    sample_period="$period" max_samples="$booksim_samples" seed="$6" >"$work/booksim.out" 2>&1 || true  # (its exit status is inverted)
  awk '/Overall Traffic Statistics/ { ov = 1 }
       ov && /^Injected flit rate average =/ { off = $6 }
       ov && /^Accepted flit rate average =/ { acc = $6 }
       ov && /^Packet latency average =/ { lat = $5 }
       END { if (acc != "" && lat != "") print off, acc, lat }' "$work/booksim.out"
}

for fabric in $fabrics; do
  k=${fabric%%:*} n=${fabric##*:}
  for pattern in $patterns; do
    applies "$k" "$n" "$pattern" || continue
    for load in $loads; do
      for seed in $seeds; do
        if ! done_already routelab "$k" "$n" "$pattern" "$load" "$seed" "$routelab_window"; then
          nice "$bin" simulate "kary-ntree:k=$k,n=$n" --engine ftree-adaptive --selection oblivious --vcs 4 \
            --buffer-packets 2 --packet-flits 8 --routing-delay 1 --fly-time 1 --pattern "$(routelab_pattern "$pattern")" \
            --load "$load" --warmup $((3 * period)) --cycles $((3 * period)) --seed "$seed" --format json |
            jq -r --arg k "$k" --arg n "$n" --arg p "$pattern" --arg l "$load" --arg s "$seed" --arg w "$routelab_window" \
              '["routelab", $k, $n, $p, $l, .offered, .accepted, .latency_avg, "-", .source_accepted_min,
                .source_fairness, $s, $w] | @csv' | tr -d '"' >>"$csv"
        fi
        if ! done_already booksim "$k" "$n" "$pattern" "$load" "$seed" "$booksim_window"; then
          mode=latency
          result=$(run_booksim "$k" "$n" "$pattern" "$load" latency "$seed")
          if [ -z "$result" ]; then mode=throughput result=$(run_booksim "$k" "$n" "$pattern" "$load" throughput "$seed"); fi
          if [ -z "$result" ]; then
            echo "booksim_validation: BookSim gave no statistics for k=$k n=$n $pattern $load seed $seed" >&2
            tail -3 "$work/booksim.out" >&2
            continue
          fi
          read -r offered accepted latency <<<"$result"
          echo "booksim,$k,$n,$pattern,$load,$offered,$accepted,$latency,$mode,,,$seed,$booksim_window" >>"$csv"
        fi
      done
    done
  done
done
# Zero-load latency against docs/SIMULATION.md's formula (8 + 3 S for F = R = 1, P = 8): load
# 0.002, where a packet almost never meets another.
zero="$results/zero_load.csv"
echo "k,n,pattern,latency_avg,average_hops" >"$work/zero.csv"
for fabric in $fabrics; do
  k=${fabric%%:*} n=${fabric##*:}
  for pattern in $patterns; do
    applies "$k" "$n" "$pattern" 2>/dev/null || continue
    nice "$bin" simulate "kary-ntree:k=$k,n=$n" --engine ftree-adaptive --selection oblivious --vcs 4 \
      --buffer-packets 2 --packet-flits 8 --routing-delay 1 --fly-time 1 --pattern "$(routelab_pattern "$pattern")" --load 0.002 \
      --warmup 1000 --cycles 20000 --seed "${seeds%% *}" --format json |
      jq -r --arg k "$k" --arg n "$n" --arg p "$pattern" '[$k, $n, $p, .latency_avg, .average_hops] | @csv' |
      tr -d '"' >>"$work/zero.csv"
  done
done
mv "$work/zero.csv" "$zero"
echo "booksim_validation: $(($(wc -l <"$csv") - 1)) rows in $csv" >&2
