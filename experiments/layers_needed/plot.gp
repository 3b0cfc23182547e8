# Plots of the layers-needed experiment (Lysne et al. 2006 Figs. 3, 5, 6: layers vs links
# per size; Fig. 4: layers vs size at links = 2 x switches). Call with -e "dir='...'".
set terminal pngcairo size 1600,1100 font ",10"
set output dir.'/layers_needed.png'
set datafile separator ','
set key top right
set grid
set multiplot layout 2,3 title "Layers needed (min / mean / max over random fabrics; one terminal per switch)"
lashname = (exists('lashname') ? lashname : 'lash')
conn = dir.'/connectivity.csv'
grow = (exists('growfile') ? growfile : dir.'/growth.csv')
do for [engine in "lash mp-lash a-lash"] {
  set title engine.': layers vs links'
  set xlabel 'switch-to-switch links'
  set ylabel 'layers'
  set logscale x 2
  set yrange [0:*]
  plot for [s in "16 32 64 128"] conn using ((strcol(2) eq engine && $3 == s) ? $4 : 1/0):8:7:9 \
         with yerrorlines title s.' switches'
}
unset logscale x
set logscale x 2
set title 'links = 2 x switches: mean (min-max bars)'
set xlabel 'switches'
plot for [engine in lashname." mp-lash a-lash"] grow using ((strcol(2) eq engine) ? $3 : 1/0):8:7:9 \
       with yerrorlines title engine
set title 'LASH at links = 2 x switches vs log2(switches)'
set xlabel 'switches'
plot grow using ((strcol(2) eq lashname) ? $3 : 1/0):8 with linespoints title 'lash mean', \
     grow using ((strcol(2) eq lashname) ? $3 : 1/0):9 with linespoints title 'lash max', \
     log(x)/log(2) - 1 with lines dt 2 title 'log2(S) - 1'
unset multiplot
