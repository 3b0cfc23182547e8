#!/usr/bin/env bash
# Reproduce the simulations of Gómez et al. 2007 §5.2 with `routelab simulate`: Fig. 5
# (4-ary 4-tree, uniform, latency vs accepted traffic, deterministic vs adaptive FF/SADP,
# without and with in-order delivery), §5.2.1 bit-reversal, Fig. 6 (hot-spot 5 % / 20 %
# with in-order delivery), Fig. 7 (time to deliver a synthetic I/O trace on a 2-ary 7-tree).
# Writes results/*.csv and (with gnuplot) results/*.png; see RESULTS.md.
# Usage: experiments/gomez_sim/run.sh [ROUTELAB_BINARY]   (PARTS="fig5 bitrev fig6 fig7 fig7spread" to choose)
# Environment: CYCLES (measured cycles per point, default 3000), FLITS (flits per packet,
# default 32), THREADS (default 1).
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/../common.sh"
routelab_binary "${1:-}"
cycles="${CYCLES:-3000}"
flits="${FLITS:-32}"
threads="${THREADS:-1}"
parts="${PARTS:-fig5 bitrev fig6 fig7 fig7spread}"
res="$here/results"
mkdir -p "$res"
tree="kary-ntree:k=4,n=4"
header="figure,pattern,routing,selection,in_order,reorder_buffer,offered,accepted,latency_avg,total_latency_avg,out_of_order,saturated"

# curve FIGURE PATTERN LOADS ROUTING SELECTION ROB  (ROB 0 = no in-order delivery)
curve() {
  local fig=$1 pattern=$2 loads=$3 routing=$4 sel=$5 rob=$6 io=()
  [ "$rob" -gt 0 ] && io=(--in-order --reorder-buffer "$rob")
  nice "$bin" simulate "$tree" --engine "ftree-$routing" --selection "$sel" --pattern "$pattern" \
    --packet-flits "$flits" --loads "$loads" --threads "$threads" --cycles "$cycles" "${io[@]}" --format json |
    jq -r --arg f "$fig" --arg p "$pattern" --arg r "$routing" --arg s "$sel" --arg b "$rob" '
      .points[] | [$f, $p, $r, $s, (if $b == "0" then "no" else "yes" end), $b, .offered, .accepted,
                   .latency_avg, .total_latency_avg, .out_of_order, .saturated] | @csv' | tr -d '"'
}
# saturation FIGURE PATTERN ROUTING SELECTION ROB [FABRIC] -> one line of saturation.csv
saturation() {
  local fig=$1 pattern=$2 routing=$3 sel=$4 rob=$5 fabric=${6:-$tree} io=()
  [ "$rob" -gt 0 ] && io=(--in-order --reorder-buffer "$rob")
  nice "$bin" simulate "$fabric" --engine "ftree-$routing" --selection "$sel" --pattern "$pattern" \
    --packet-flits "$flits" --saturation --cycles "$cycles" "${io[@]}" --format json |
    jq -r --arg f "$fig" --arg p "$pattern" --arg r "$routing" --arg s "$sel" --arg b "$rob" '
      [$f, $p, $r, $s, (if $b == "0" then "no" else "yes" end), $b, .offered, .saturation_throughput,
       .latency_avg] | @csv' | tr -d '"'
}

# Fig. 5: uniform; deterministic (in order by design), adaptive SADP and FF without and with
# in-order delivery (reorder buffers of 4 and 64 packets per destination).
configs5=("deterministic sadp 0" "adaptive sadp 0" "adaptive ff 0" "adaptive sadp 4" "adaptive sadp 64"
          "adaptive ff 4" "adaptive ff 64")
if [[ " $parts " == *" fig5 "* ]]; then
  write_atomically "$res/fig5.csv"
  echo "$header" > "$tmp"
  for c in "${configs5[@]}"; do curve fig5 uniform 0.05:0.75:0.05 $c >> "$tmp"; done
  mv "$tmp" "$out"
  write_atomically "$res/saturation.csv"
  echo "figure,pattern,routing,selection,in_order,reorder_buffer,offered,saturation_throughput,latency_avg" > "$tmp"
  for c in "${configs5[@]}"; do saturation fig5 uniform $c >> "$tmp"; done
  for c in "deterministic sadp 0" "adaptive sadp 0" "adaptive ff 0" "adaptive sadp 64"; do
    saturation bitrev bit-reversal $c >> "$tmp"
  done
  # Control: on the 4-ary 3-tree the static analysis gives bit-reversal exactly 1/k (Gómez's
  # statement); on the 4-ary 4-tree 16 sources share one channel above the leaves (1/15).
  saturation bitrev-4ary3tree bit-reversal deterministic sadp 0 kary-ntree:k=4,n=3 >> "$tmp"
  saturation bitrev-4ary3tree bit-reversal adaptive sadp 0 kary-ntree:k=4,n=3 >> "$tmp"
  mv "$tmp" "$out"
fi
# §5.2.1: bit-reversal curves.
if [[ " $parts " == *" bitrev "* ]]; then
  write_atomically "$res/bitrev.csv"
  echo "$header" > "$tmp"
  for c in "deterministic sadp 0" "adaptive sadp 0" "adaptive ff 0"; do
    curve bitrev bit-reversal 0.05:0.75:0.1 $c >> "$tmp"
  done
  mv "$tmp" "$out"
fi
# Fig. 6: hot-spot 5 % and 20 %, with in-order delivery (and the adaptive ones without).
if [[ " $parts " == *" fig6 "* ]]; then
  write_atomically "$res/fig6.csv"
  echo "$header" > "$tmp"
  for hs in 0.05 0.2; do
    # The hot spot alone saturates at load 1 / (256 x fraction): 0.078 (5 %), 0.0195 (20 %).
    if [ "$hs" = 0.05 ]; then loads=0.01:0.13:0.01; else loads=0.004:0.036:0.004; fi
    for c in "deterministic sadp 0" "adaptive sadp 4" "adaptive sadp 64" "adaptive ff 4" "adaptive ff 64" \
             "adaptive sadp 0" "adaptive ff 0"; do
      curve "fig6-$hs" "uniform-hot-spot:fraction=$hs" "$loads" $c >> "$tmp"
    done
  done
  mv "$tmp" "$out"
fi
# Fig. 7: a synthetic I/O trace (23 storage + 105 clients) on the 2-ary 7-tree; time to deliver
# it (last_delivery) at compressions 1, 5, 10, without and with in-order delivery (8 MB reorder
# buffer = 8192 packets of 1 KiB payload).
iotrace="${IOTRACE:-io:storage=23,clients=105,requests=16,burst=8,gap=300000,service=200,writes=0.3}"
if [[ " $parts " == *" fig7 "* ]]; then
  write_atomically "$res/fig7.csv"
  # Besides the paper's 8 MB buffer, 64 packets (64 KB) per destination: where the end-to-end
  # flow control binds.
  echo "compression,routing,selection,in_order,reorder_buffer,last_delivery,packets_delivered,latency_avg,out_of_order,total_latency_avg,reorder_delay_avg,trace" > "$tmp"
  for comp in 1 5 10; do
    for c in "deterministic sadp 0" "adaptive sadp 0" "adaptive ff 0" "adaptive sadp 8192" "adaptive ff 8192" \
             "adaptive sadp 64" "adaptive ff 64"; do
      set -- $c
      io=(); [ "$3" -gt 0 ] && io=(--in-order --reorder-buffer "$3")
      nice "$bin" simulate kary-ntree:k=2,n=7 --engine "ftree-$1" --selection "$2" --trace-generate "$iotrace" \
        --compression "$comp" --packet-flits "$flits" "${io[@]}" --format json |
        jq -r --arg c "$comp" --arg r "$1" --arg s "$2" --arg b "$3" --arg t "$iotrace" '
          [$c, $r, $s, (if $b == "0" then "no" else "yes" end), $b, .last_delivery, .packets_delivered,
           .latency_avg, .out_of_order, .total_latency_avg, .reorder_delay_avg, $t] | @csv' | tr -d '"' >> "$tmp"
    done
  done
  mv "$tmp" "$out"
fi
# Fig. 7 control: the same trace with the terminals renumbered by bit-reversing their 7-bit
# index, so that the 23 storage servers (generated as the last terminals, all in one corner of the
# tree) are spread over the leaves. Shows how much the server placement decides the comparison.
if [[ " $parts " == *" fig7spread "* ]]; then
  write_atomically "$res/fig7_spread.csv"
  trace="$res/.trace.$$.csv"; spread="$res/.spread.$$.csv"
  trap 'rm -f "$tmp" "$trace" "$spread"' EXIT
  nice "$bin" simulate kary-ntree:k=2,n=7 --engine ftree-deterministic --trace-generate "$iotrace" \
    --packet-flits "$flits" --export-trace "$trace" --format json > /dev/null
  awk -F, 'function rev(x,  r, i) { r = 0; for (i = 0; i < 7; i++) { r = 2 * r + x % 2; x = int(x / 2) } return r }
           function map(n) { return sprintf("kt-h%03d", rev(substr(n, 5) + 0)) }
           /^#/ || NR == 1 { print; next } { print $1 "," map($2) "," map($3) "," $4 }' "$trace" > "$spread"
  echo "compression,routing,selection,in_order,reorder_buffer,last_delivery,packets_delivered,latency_avg,out_of_order,total_latency_avg,reorder_delay_avg,trace" > "$tmp"
  for comp in 5 10; do
    for c in "deterministic sadp 0" "adaptive sadp 0" "adaptive ff 0" "adaptive sadp 8192" "adaptive ff 8192"; do
      set -- $c
      io=(); [ "$3" -gt 0 ] && io=(--in-order --reorder-buffer "$3")
      nice "$bin" simulate kary-ntree:k=2,n=7 --engine "ftree-$1" --selection "$2" --trace "$spread" \
        --compression "$comp" --packet-flits "$flits" "${io[@]}" --format json |
        jq -r --arg c "$comp" --arg r "$1" --arg s "$2" --arg b "$3" --arg t "$iotrace bit-reversed terminals" '
          [$c, $r, $s, (if $b == "0" then "no" else "yes" end), $b, .last_delivery, .packets_delivered,
           .latency_avg, .out_of_order, .total_latency_avg, .reorder_delay_avg, $t] | @csv' | tr -d '"' >> "$tmp"
    done
  done
  mv "$tmp" "$out"
fi
if command -v gnuplot >/dev/null; then gnuplot -e "dir='$res'" "$here/plot.gp"; fi
