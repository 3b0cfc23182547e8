# Scaling curves (experiments/scaling/run.sh): CPU time and peak memory of every stage against the
# number of terminals, log-log, one panel per fabric family, one line per stage.
# Input: stem.'.dat' from `fit.py --plot-data` (family stage terminals cpu_s wall_s peak_rss_mib
# work). Call with -e "stem='experiments/scaling/results/scaling'" (the CSV's path without .csv;
# run.sh does); writes stem.'_cpu.png', stem.'_cpu.svg', stem.'_memory.png', stem.'_memory.svg'.
if (!exists("stem")) stem = 'results/scaling'
dat = stem.'.dat'
families = "kary-ntree xgft random"
titles = "'k-ary n-trees, D-mod-k (several k per size: vertical steps)' 'slimmed XGFT(3; 16,a,b; 1,8,a/2) (D-mod-k)' 'random irregular, 4 terminals per switch (UpDown)'"
stages = "generate route verify worst abb schedule"
# One colour and point type per stage, the same in every panel.
colour(i) = word("#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b", i)
png_terminal = strstrt(GPVAL_TERMINALS, "pngcairo") > 0 ? "pngcairo" : "png"
# rows of one (family, stage), in order of terminals
series(f, s) = sprintf("< grep '^%s %s ' '%s'", f, s, dat)

set datafile commentschars '#'
set logscale xy 2
set format y '%g'
set xtics (256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536) rotate by -30
set xlabel 'terminals'
set xrange [200:84000]   # the whole list, so that partial runs (MAX_TERMINALS) keep the axes
set grid xtics ytics mytics
set key top left Left reverse font ",9"
set style line 100 lc rgb '#999999' dt 2 lw 1

do for [out in "png svg"] {
  do for [what in "cpu memory"] {
    if (out eq "png") {
      set terminal png_terminal size 1800,620 font ",11"
    } else {
      set terminal svg size 1800,620 font ",11" dynamic
    }
    set output stem.'_'.what.'.'.out
    if (what eq "cpu") {
      set ylabel 'CPU time (user + sys, one thread), s'
      set logscale y 10
      set format y '10^{%T}'
      set multiplot layout 1,3 title "CPU time per stage vs fabric size (one routelab process per point; /usr/bin/time counts 10 ms ticks, so points at 0.01 s are the floor)"
    } else {
      set ylabel 'peak resident set size, MiB'
      set logscale y 2
      set format y '%g'
      set multiplot layout 1,3 title "Peak memory per stage vs fabric size (maximum RSS of the routelab process; about 5 MiB is the process itself)"
    }
    do for [i = 1:words(families)] {
      f = word(families, i)
      set title word(titles, i)
      # Guides through (256 terminals, 0.01 s) or (256, 8 MiB): growth proportional to N and N^2.
      y0 = (what eq "cpu") ? 0.01 : 8
      plot for [j = 1:words(stages)] series(f, word(stages, j)) \
             using 3:(what eq "cpu" ? ($4 > 0 ? $4 : 1/0) : $6) \
             with linespoints lc rgb colour(j) pt (j + 3) ps 1.1 lw 1.5 title word(stages, j), \
           y0 * x / 256 ls 100 noautoscale title '∝ N', \
           y0 * (x / 256)**2 ls 100 dt 3 noautoscale title '∝ N²'
    }
    unset multiplot
  }
}
