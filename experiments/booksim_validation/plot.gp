# gnuplot -e "res='experiments/booksim_validation/results'" experiments/booksim_validation/plot.gp
# Accepted against offered traffic and latency against offered traffic, routelab and BookSim2,
# one panel per fabric and pattern present in results/points.csv.
if (!exists("res")) res = "results"
set datafile separator ","
set terminal pngcairo size 1500,900 font ",9"
sel(tool, k, n, p) = sprintf("< awk -F, '$1==\"%s\" && $2==%d && $3==%d && $4==\"%s\"' %s/points.csv", tool, k, n, p, res)
fabrics = "4:4 8:3"
patterns = "uniform bit-reversal perfect-shuffle"
do for [what in "accepted latency"] {
  set output sprintf("%s/%s.png", res, what)
  set multiplot layout words(fabrics), words(patterns) title (what eq "accepted" ? "Accepted vs offered (flits/terminal/cycle)" : "Network latency (cycles) vs offered")
  do for [f in fabrics] {
    do for [p in patterns] {
      k = int(substr(f, 1, strstrt(f, ":") - 1)); n = int(substr(f, strstrt(f, ":") + 1, strlen(f)))
      set title sprintf("%d-ary %d-tree, %s", k, n, p)
      set xrange [0:1.05]
      if (what eq "accepted") { set yrange [0:1.05]; unset logscale y; col = 7 } else { set autoscale y; set logscale y; col = 8 }
      plot sel("routelab", k, n, p) using 5:col with linespoints title "routelab (oblivious, round-robin)", \
           sel("booksim", k, n, p) using 5:col with linespoints title "BookSim2 (nca)"
    }
  }
  unset multiplot
}
