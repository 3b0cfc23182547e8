# Plots of the Lysne 2006 §8.1 simulations (experiments/lysne_sim/run.sh). Call with -e "dir='...'".
# Means over the random topologies of each size (results/mean.csv): accepted traffic and average
# network latency vs offered load, one panel per (traffic, size), as the paper's Figs. 7-9.
set terminal pngcairo size 1600,1000 font ",10"
set datafile separator ','
set grid
set key top left
m = dir.'/mean.csv'
sizes = system("tail -n +2 ".m." | cut -d, -f1 | sort -n -u | tr '\\n' ' '")
engines = "lash d-mroots updown-dfs updown updown-dfs-1vc"
sel(s, e, p) = sprintf("< grep -E '^%s,%s,%s,' %s", s, e, p, m)
set output dir.'/lysne_sim.png'
set multiplot layout 2, words(sizes) title "Lysne Figs. 7-9: accepted traffic vs offered load (mean over random fabrics, equal VCs = LASH's layers)"
do for [p in "uniform pairwise"] {
  do for [s in sizes] {
    set title sprintf("%s switches, %s", s, p)
    set xlabel 'offered load (flits/terminal/cycle)'
    set ylabel 'accepted traffic (flits/terminal/cycle)'
    set xrange [0:1]
    set yrange [0:1]
    plot for [e in engines] sel(s, e, p) using 4:7 with linespoints title e, x with lines dt 3 lc 'gray' notitle
  }
}
unset multiplot
set output dir.'/lysne_sim_latency.png'
set multiplot layout 2, words(sizes) title "Lysne Figs. 7-9: average network latency vs offered load (mean over random fabrics)"
do for [p in "uniform pairwise"] {
  do for [s in sizes] {
    set title sprintf("%s switches, %s", s, p)
    set xlabel 'offered load (flits/terminal/cycle)'
    set ylabel 'average latency (cycles)'
    set xrange [0:1]
    set yrange [0:1500]
    plot for [e in engines] sel(s, e, p) using 4:8 with linespoints title e
  }
}
unset multiplot
