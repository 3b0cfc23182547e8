# gnuplot -e "res='experiments/booksim_validation/results'" experiments/booksim_validation/plot.gp
# Accepted against offered traffic and latency against offered traffic, routelab and BookSim2,
# one panel per fabric and pattern (k:n:pattern; transpose is defined on 256 = 2^8 terminals, not
# on 512 = 2^9). Where a load was run with several seeds, a point is the mean over the seeds and
# its bar spans the lowest to the highest run. Settings (-e): res (the results directory),
# panels, rows and cols (the layout), xmin and xmax, logx (1: a logarithmic load axis), hotspot
# (run.sh's HOTSPOT, default 0.05: hot-spot panels draw the hot spot's bound 1 / (F N + 1 - F)).
# The hot-spot knee runs:
#   gnuplot -e "res='experiments/booksim_validation/results-hot-spot-knee'; panels='4:4:hot-spot 8:3:hot-spot';
#     rows=1; cols=2; xmin=0.025; xmax=0.35; logx=1" experiments/booksim_validation/plot.gp
if (!exists("res")) res = "results"
if (!exists("panels")) panels = "4:4:uniform 4:4:bit-reversal 4:4:perfect-shuffle 4:4:transpose 4:4:hot-spot " . \
                                 "8:3:uniform 8:3:bit-reversal 8:3:perfect-shuffle 8:3:hot-spot"
if (!exists("rows")) rows = 2
if (!exists("cols")) cols = 5
if (!exists("xmin")) xmin = 0
if (!exists("xmax")) xmax = 1.05
if (!exists("logx")) logx = 0
if (!exists("hotspot")) hotspot = 0.05
set datafile separator ","
set terminal pngcairo size 360 * cols, 400 * rows + 40 font ",9"
# tool k n pattern column -> "load,mean,lowest,highest" per load, in load order
sel(tool, k, n, p, col) = sprintf("< awk -F, 'BEGIN { OFS = \",\" } $1 == \"%s\" && $2 == %d && $3 == %d && $4 == \"%s\" { l = $5 + 0; v = $%d; s[l] += v; c[l]++; if (!(l in lo) || v < lo[l]) lo[l] = v; if (!(l in hi) || v > hi[l]) hi[l] = v } END { for (l in s) print l, s[l] / c[l], lo[l], hi[l] }' %s/points.csv | sort -g", tool, k, n, p, col, res)
field(s, i) = word(system(sprintf("echo '%s' | tr ':' ' '", s)), i)
set key top left font ",8"
if (logx) { set logscale x; set format x "%g" } else { unset logscale x }
do for [what in "accepted latency"] {
  set output sprintf("%s/%s.png", res, what)
  set multiplot layout rows, cols title (cols < 4 ? (what eq "accepted" ? "Accepted vs offered (flits/terminal/cycle); mean over seeds, bar = lowest to highest run" : "Latency (cycles) vs offered; mean over seeds, bar = lowest to highest run") : what eq "accepted" ? "Accepted vs offered traffic, averaged over all terminals (a permutation's fixed points are silent in routelab); hot-spot: 5 % of each source's packets to terminal 0; seeds: mean, bar = lowest to highest run" : "Packet latency (cycles, log scale) vs offered traffic (flits/terminal/cycle); seeds: mean, bar = lowest to highest run")
  do for [panel in panels] {
    k = int(field(panel, 1)); n = int(field(panel, 2)); p = field(panel, 3)
    bound = 1.0 / (hotspot * k ** n + 1 - hotspot)
    set title sprintf("%d-ary %d-tree, %s", k, n, p)
    set xrange [xmin:xmax]
    set xlabel "offered (flits/terminal/cycle)"
    if (what eq "accepted") { set yrange [0:(p eq "hot-spot" ? (xmax < 0.12 ? xmax : 0.12) : 1.05)]; unset logscale y; set ylabel "accepted (flits/terminal/cycle)"; col = 7 } else { set autoscale y; set logscale y; set ylabel "latency (cycles)"; col = 8 }
    if (what eq "accepted" && p eq "hot-spot") {
      plot sel("routelab", k, n, p, col) using 1:2:3:4 with yerrorlines pt 7 ps 0.6 title "routelab", \
           sel("booksim", k, n, p, col) using 1:2:3:4 with yerrorlines pt 5 ps 0.6 title "BookSim2", \
           (x < bound ? x : bound) with lines dt 2 lc "gray40" title sprintf("min(offered, 1/(FN+1-F) = %.4f)", bound)
    } else {
      plot sel("routelab", k, n, p, col) using 1:2:3:4 with yerrorlines pt 7 ps 0.6 title "routelab", \
           sel("booksim", k, n, p, col) using 1:2:3:4 with yerrorlines pt 5 ps 0.6 title "BookSim2"
    }
  }
  unset multiplot
}
