# gnuplot -e "res='experiments/booksim_validation/results'" experiments/booksim_validation/plot.gp
# Accepted against offered traffic and latency against offered traffic, routelab and BookSim2,
# one panel per fabric and pattern of the committed run (k:n:pattern; transpose is defined on
# 256 = 2^8 terminals, not on 512 = 2^9).
if (!exists("res")) res = "results"
set datafile separator ","
set terminal pngcairo size 1800,800 font ",9"
sel(tool, k, n, p) = sprintf("< awk -F, '$1==\"%s\" && $2==%d && $3==%d && $4==\"%s\"' %s/points.csv", tool, k, n, p, res)
panels = "4:4:uniform 4:4:bit-reversal 4:4:perfect-shuffle 4:4:transpose 4:4:hot-spot " . \
         "8:3:uniform 8:3:bit-reversal 8:3:perfect-shuffle 8:3:hot-spot"
field(s, i) = word(system(sprintf("echo '%s' | tr ':' ' '", s)), i)
set key bottom right font ",8"
do for [what in "accepted latency"] {
  set output sprintf("%s/%s.png", res, what)
  set multiplot layout 2, 5 title (what eq "accepted" ? "Accepted vs offered traffic, averaged over all terminals (a permutation's fixed points are silent in routelab); hot-spot: 5 % of each source's packets to terminal 0" : "Packet latency (cycles, log scale) vs offered traffic (flits/terminal/cycle)")
  do for [panel in panels] {
    k = int(field(panel, 1)); n = int(field(panel, 2)); p = field(panel, 3)
    set title sprintf("%d-ary %d-tree, %s", k, n, p)
    set xrange [0:1.05]
    set xlabel "offered (flits/terminal/cycle)"
    if (what eq "accepted") { set yrange [0:(p eq "hot-spot" ? 0.12 : 1.05)]; unset logscale y; set ylabel "accepted (flits/terminal/cycle)"; col = 7 } else { set autoscale y; set logscale y; set ylabel "latency (cycles)"; col = 8 }
    plot sel("routelab", k, n, p) using 5:col with linespoints title "routelab", \
         sel("booksim", k, n, p) using 5:col with linespoints title "BookSim2"
  }
  unset multiplot
}
