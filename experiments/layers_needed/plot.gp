# Plots of the layers-needed experiment (Lysne et al. 2006 Figs. 3, 5, 6: layers vs links
# per size; Fig. 4: layers vs size at links = 2 x switches). Call with -e "dir='...'".
set terminal pngcairo size 1600,1100 font ",10"
set output dir.'/layers_needed.png'
set datafile separator ','
set key top left
set grid
set offsets 0, 0, 1, 0   # one layer of headroom above the largest maximum
set multiplot layout 2,3 title "Layers needed (min / mean / max over random fabrics; one terminal per switch)"
conn = dir.'/connectivity.csv'
grow = dir.'/growth.csv'
growsuffix = dir.'/growth_lash_suffix_fit.csv'
do for [engine in "lash mp-lash a-lash"] {
  set title engine.': layers vs links'
  set xlabel 'switch-to-switch links'
  set ylabel 'layers'
  set logscale x 2
  set yrange [0:*]
  # One series per (engine, size), selected with grep so that its points are joined.
  plot for [s in "16 32 64 128"] '< grep -F ",'.engine.','.s.'," '.conn using 4:8:7:9 \
         with yerrorlines title s.' switches'
}
unset logscale x
set logscale x 2
set title 'LASH at links = 2 x switches: mean (min-max bars)'
set xlabel 'switches'
plot grow using 3:8:7:9 with yerrorlines title 'lash (fit=first)', \
     growsuffix using 3:8:7:9 with yerrorlines title 'lash:fit=suffix'
set title 'LASH at links = 2 x switches vs log2(switches)'
set xlabel 'switches'
plot grow using 3:8 with linespoints title 'lash mean', \
     grow using 3:9 with linespoints title 'lash max', \
     log(x)/log(2) - 1 with lines dt 2 title 'log2(S) - 1'
unset multiplot
